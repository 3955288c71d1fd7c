// What the probes that link pspmv share: the library's host row sums called outside a plan, the
// median of a sample, the shared matrices' folder, the rounds argument, and the tiles of shared
// matrices that the row-form probes time.
#pragma once

#include <pspmv/analyze.hpp>
#include <pspmv/io/generators.hpp>
#include <pspmv/io/matrix_market.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace probes {

using Exec = Kokkos::OpenMP;
using Csr = pspmv::HostCsr<double, std::int64_t>;
constexpr int min_simd = pspmv::ExecTraits<Exec>::simd_row_min<double>();

/// Rows [r0, r1) of y = A x in the plain form (detail::simd_dot), outside a plan.
inline void plain_rows(std::int32_t r0, std::int32_t r1, const std::int64_t* rp, const std::int32_t* ci,
                       const double* v, const double* x, double* y) {
  for (std::int32_t i = r0; i < r1; ++i)
    y[i] = pspmv::detail::simd_dot<min_simd, pspmv::ExecTraits<Exec>::row_gathers, double>(v, ci, x, rp[i], rp[i + 1]);
}

/// Rows [r0, r1) of y = A x in the masked form (detail::masked_dot), outside a plan.
inline void masked_rows(std::int32_t r0, std::int32_t r1, const std::int64_t* rp, const std::int32_t* ci,
                        const double* v, const double* x, double* y) {
  for (std::int32_t i = r0; i < r1; ++i) y[i] = pspmv::detail::masked_dot<min_simd, double>(v, ci, x, rp[i], rp[i + 1]);
}

/// Rows [r0, r1) of y = A x as a CSR thread_per_row plan of this build sums them
/// (ExecTraits::masked_rows), outside the plan.
inline void library_rows(std::int32_t r0, std::int32_t r1, const std::int64_t* rp, const std::int32_t* ci,
                         const double* v, const double* x, double* y) {
  if constexpr (pspmv::ExecTraits<Exec>::masked_rows)
    masked_rows(r0, r1, rp, ci, v, x, y);
  else
    plain_rows(r0, r1, rp, ci, v, x, y);
}

/// The shared matrices' folder: argv[1], else $PSPMV_MATRICES, else ../shared/matrices.
inline std::string matrices_dir(int argc, char** argv) {
  const char* env = std::getenv("PSPMV_MATRICES");
  return argc > 1 ? argv[1] : env ? env : "../shared/matrices";
}

/// argv[index] as a count of rounds (at least 1), else `fallback`.
inline int rounds_arg(int argc, char** argv, int index, int fallback) {
  return argc > index ? std::max(1, std::atoi(argv[index])) : fallback;
}

/// A probe's arguments [MATRICES_DIR] [ROUNDS] [WORD]: the shared matrices' folder
/// (matrices_dir), the rounds (argv[2], at least 1, else `default_rounds`) and the word after
/// them (argv[3], else empty).
struct Args {
  Args(int argc, char** argv, int default_rounds)
      : dir(matrices_dir(argc, argv)),
        rounds(rounds_arg(argc, argv, 2, default_rounds)),
        word(argc > 3 ? argv[3] : "") {}
  std::string dir;
  int rounds;
  std::string word;
};

/// Entries a row on average (0 for a matrix without rows).
inline double mean_row(const Csr& A) { return A.nrows > 0 ? static_cast<double>(A.nnz()) / A.nrows : 0.0; }

/// Block-diagonal tiles of three shared matrices (dir holds them), 19-22M entries each, the
/// sizes of the host evaluation set: hep-th x600, bayer10 x200, rajat01 x500.
inline std::vector<std::pair<std::string, Csr>> large_tiles(const std::string& dir) {
  std::vector<std::pair<std::string, Csr>> out;
  for (const auto& [file, copies] : {std::pair{"hep-th", 600}, std::pair{"bayer10", 200}, std::pair{"rajat01", 500}})
    out.emplace_back(std::string("tile:") + file + ":" + std::to_string(copies),
                     pspmv::generate_tiled<double, std::int64_t>(
                         pspmv::read_matrix_market<double, std::int64_t>(dir + "/" + file + ".mtx"), copies));
  return out;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace probes
