// pspmv's host SELL plan (the ESB slice kernel, SellSliceColumns) against loops of the same
// column loops over the same stored matrix, and the CSR plan beside them: whether the kernel as
// compiled into the library runs as fast as the loops it is written as. Each plan computes y = A x
// with thread_per_row and static_chunks on the OpenMP space (f64, 32-bit columns, no long rows, y
// in the caller's order); the two loops walk the plan's own slices (Plan::sell()): per slice the C
// sums, the columns every row has, then the longer rows' columns with a blend, the same
// multiply-add (detail::mul_add) in the same order, then y through the permutation without the
// kernel's per-row store logic (alpha = 1, no pieces, no long rows), under `omp parallel for
// schedule(static)` over the slices (the share of each thread that static_chunks gives). "plain":
// the loop over a column's C rows as it is written; "simd": the same under `omp simd`, the form
// the kernel takes where the host takes vector gathers but not the register form below (other
// heights, builds without AVX-512); "registers" (C = 8 in a build with AVX-512
// gathers, ExecTraits::masked_rows, else not run): the same columns in AVX-512 intrinsics, one
// register of 8 sums, each whole column a load of 8 values, one gather of x under an all-ones
// mask the compiler cannot see through (detail::opaque_full_mask: each gather into a fresh
// register) and a fused multiply-add, each padded column the same masked to the rows that still
// have entries, the rows' lengths loaded as one vector: in such a build the SELL plan's own slice
// loop has that form (SellSliceColumns::register_slice), so "SELL / regs" is what the plan's
// launch and per-slice work add to it. The loops' y must equal the SELL plan's
// bit for bit, and all the CSR plan's within 1e-12 of its largest entry.
// Built on request, not by default (cmake --build --preset openmp --target
// pspmv_probe_sell_slice_loop), run as
//   OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=threads
//   build/openmp/perf/pspmv_probe_sell_slice_loop [MATRICES_DIR] [ROUNDS]
// MATRICES_DIR (default $PSPMV_MATRICES, else ../shared/matrices) holds hep-th.mtx and bayer10.mtx.
// Inputs: tiles of hep-th (x1000) and bayer10 (x300), random:4000000:8, stencil27:100. ROUNDS
// (default 30) rounds after 3 untimed ones; each round runs the five in turn, the first one
// rotating from round to round (no one is always first or last). Prints the medians and
// four ratios: the SELL plan's time over each loop's (above 1: the loop is faster) and the CSR
// plan's over the SELL plan's.
#include <pspmv/analyze.hpp>
#include <pspmv/io/generators.hpp>
#include <pspmv/io/matrix_market.hpp>

#include "library_rows.hpp"

#include <omp.h>
#if PSPMV_HOST_MASKED_ROWS
#include <immintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using Exec = Kokkos::OpenMP;  // the plans' threads are the plain loop's OpenMP threads
using Csr = pspmv::HostCsr<double, std::int32_t>;
using Sell = pspmv::SellMatrix<double, Kokkos::HostSpace>;

/// The arrays of a SELL matrix that the loops below walk.
struct Slices {
  explicit Slices(const Sell& S)
      : nslices(S.nslices()), npos(S.npos), sptr(S.slice_ptr.data()), width(S.slice_width.data()),
        row_len(S.row_len.data()), perm(S.perm.data()), col(S.col_idx.data()), val(S.values.data()) {}
  std::int64_t nslices;
  std::int32_t npos;
  const std::int64_t* sptr;
  const std::int32_t* width;
  const std::int32_t* row_len;
  const std::int32_t* perm;
  const std::int32_t* col;
  const double* val;
};

/// y = A x over the slices of S (height C), as SellSliceColumns computes it, written plainly;
/// with Simd, the loop over a column's C rows under `omp simd`.
template <int C, bool Simd>
void plain_slices(const Sell& S, const double* x, double* y) {
  const Slices a(S);
  const std::int64_t nslices = a.nslices;
  const std::int32_t npos = a.npos;
  const std::int64_t* sptr = a.sptr;
  const std::int32_t* width = a.width;
  const std::int32_t* row_len = a.row_len;
  const std::int32_t* perm = a.perm;
  const std::int32_t* col = a.col;
  const double* val = a.val;
#pragma omp parallel for schedule(static)
  for (std::int64_t s = 0; s < nslices; ++s) {
    const std::int64_t first = s * C;
    const std::int32_t w = width[s];
    const std::int32_t* cs = col + sptr[s];
    const double* vs = val + sptr[s];
    double acc[C];
    std::int32_t len[C];
    std::int32_t shortest = w;
    for (int r = 0; r < C; ++r) {
      acc[r] = 0;
      len[r] = first + r < npos ? row_len[first + r] : 0;
      shortest = std::min(shortest, len[r]);
    }
    std::int32_t j = 0;
    if constexpr (Simd) {
      for (; j < shortest; ++j) {
#pragma omp simd
        for (int r = 0; r < C; ++r) acc[r] = pspmv::detail::mul_add(vs[j * C + r], x[cs[j * C + r]], acc[r]);
      }
      for (; j < w; ++j) {
#pragma omp simd
        for (int r = 0; r < C; ++r) {
          const double t = pspmv::detail::mul_add(vs[j * C + r], x[cs[j * C + r]], acc[r]);
          acc[r] = j < len[r] ? t : acc[r];
        }
      }
    } else {
      for (; j < shortest; ++j)
        for (int r = 0; r < C; ++r) acc[r] = pspmv::detail::mul_add(vs[j * C + r], x[cs[j * C + r]], acc[r]);
      for (; j < w; ++j)
        for (int r = 0; r < C; ++r) {
          const double t = pspmv::detail::mul_add(vs[j * C + r], x[cs[j * C + r]], acc[r]);
          acc[r] = j < len[r] ? t : acc[r];
        }
    }
    for (int r = 0; r < C && first + r < npos; ++r) y[perm[first + r]] = acc[r];
  }
}

#if PSPMV_HOST_MASKED_ROWS
/// y = A x over the slices of S (height 8) in AVX-512 registers (the file comment's "registers").
void register_slices(const Sell& S, const double* x, double* y) {
  const Slices a(S);
#pragma omp parallel for schedule(static)
  for (std::int64_t s = 0; s < a.nslices; ++s) {
    const std::int64_t first = s * 8;
    const int rows = static_cast<int>(std::min<std::int64_t>(8, a.npos - first));
    const __mmask8 full = pspmv::detail::opaque_full_mask();
    const __m256i lens = _mm256_maskz_loadu_epi32(static_cast<__mmask8>((1u << rows) - 1u), a.row_len + first);
    const std::int32_t w = a.width[s];
    const __m256i at_least_0 = _mm256_max_epi32(lens, _mm256_setzero_si256());
    const std::int32_t shortest = std::min(w, _mm512_mask_reduce_min_epi32(0xFF, _mm512_castsi256_si512(at_least_0)));
    const std::int32_t* cs = a.col + a.sptr[s];
    const double* vs = a.val + a.sptr[s];
    __m512d acc = _mm512_setzero_pd();
    std::int32_t j = 0;
    for (; j < shortest; ++j) {
      const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(cs + j * 8));
      const __m512d g = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), full, c, x, 8);
      acc = _mm512_fmadd_pd(_mm512_loadu_pd(vs + j * 8), g, acc);
    }
    for (; j < w; ++j) {
      const __mmask8 m = _mm256_cmpgt_epi32_mask(lens, _mm256_set1_epi32(j));
      const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(cs + j * 8));
      const __m512d g = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, c, x, 8);
      acc = _mm512_mask3_fmadd_pd(_mm512_loadu_pd(vs + j * 8), g, acc, m);
    }
    double sums[8];
    _mm512_storeu_pd(sums, acc);
    for (int r = 0; r < rows; ++r) y[a.perm[first + r]] = sums[r];
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const probes::Args args(argc, argv, 30);
  const std::string& dir = args.dir;
  const int rounds = args.rounds;
  std::vector<std::pair<std::string, Csr>> inputs;
  inputs.emplace_back("tile:hep-th:1000",
                      pspmv::generate_tiled<double, std::int32_t>(
                          pspmv::read_matrix_market<double, std::int32_t>(dir + "/hep-th.mtx"), 1000));
  inputs.emplace_back("tile:bayer10:300",
                      pspmv::generate_tiled<double, std::int32_t>(
                          pspmv::read_matrix_market<double, std::int32_t>(dir + "/bayer10.mtx"), 300));
  inputs.emplace_back("random:4000000:8", pspmv::generate_random<double, std::int32_t>(4000000, 4000000, 8.0));
  inputs.emplace_back("stencil27:100", pspmv::generate_stencil<double, std::int32_t>(100, 100, 100, 27));
  std::printf("%d threads, %d rounds; medians in ms\n", omp_get_max_threads(), rounds);
  std::printf("%-18s %5s %10s %10s %10s %10s %10s %12s %12s %12s %11s\n", "input", "C", "SELL plan", "plain loop",
              "simd loop", "registers", "CSR plan", "SELL / plain", "SELL / simd", "SELL / regs", "CSR / SELL");
  for (const auto& [name, A] : inputs) {
    pspmv::AnalyzeOptions o;
    o.mapping = pspmv::Mapping::thread_per_row;
    o.schedule = pspmv::Schedule::static_chunks;
    o.format = pspmv::Format::csr;
    const auto csr = pspmv::analyze<Exec>(A, o);
    o.format = pspmv::Format::sell;
    o.compress = false;
    o.sell_long_row = -1;
    const auto sell = pspmv::analyze<Exec>(A, o);
    const Sell& S = sell.sell();
    const int C = S.slice_height;
    const int threads = omp_get_max_threads();
    if (!sell.launch().slice_columns || S.npos != S.nrows || S.long_rows.extent(0) != 0 || S.compressed ||
        (C != 4 && C != 8 && C != 16) || sell.launch().threads != threads || csr.launch().threads != threads) {
      std::printf("%-18s not the plain slice kernel at C = 4, 8 or 16 on %d threads here (C = %d, plan threads "
                  "%d and %d): skipped\n",
                  name.c_str(), threads, C, sell.launch().threads, csr.launch().threads);
      continue;
    }
    Kokkos::View<double*, Kokkos::HostSpace> x("x", A.ncols), y0("y0", A.nrows), y1("y1", A.nrows),
        y2("y2", A.nrows), y3("y3", A.nrows), y4("y4", A.nrows);
    for (std::int32_t i = 0; i < A.ncols; ++i) x(i) = 1.0 + 0.25 * (i % 7);
    const auto loop = [&](auto simd, double* y) {
      constexpr bool Simd = decltype(simd)::value;
      if (C == 4) plain_slices<4, Simd>(S, x.data(), y);
      else if (C == 8) plain_slices<8, Simd>(S, x.data(), y);
      else plain_slices<16, Simd>(S, x.data(), y);
    };
#if PSPMV_HOST_MASKED_ROWS
    const bool registers = C == 8;
#else
    const bool registers = false;
#endif
    const std::function<void()> run[5] = {[&] { sell.multiply(1.0, x, 0.0, y1); },
                                          [&] { loop(std::false_type(), y2.data()); },
                                          [&] { loop(std::true_type(), y3.data()); },
                                          [&] {
#if PSPMV_HOST_MASKED_ROWS
                                            if (registers) register_slices(S, x.data(), y4.data());
#endif
                                          },
                                          [&] { csr.multiply(1.0, x, 0.0, y0); }};
    std::vector<double> t[5];
    for (int round = 0; round < rounds + 3; ++round)
      for (int q = 0; q < 5; ++q) {
        const int k = (q + round) % 5;
        const auto t0 = std::chrono::steady_clock::now();
        run[k]();
        Kokkos::fence();
        const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (round >= 3) t[k].push_back(dt);
      }
    double err = 0, scale = 0;
    for (std::int32_t i = 0; i < A.nrows; ++i) {
      if (!(y2(i) == y1(i) && y3(i) == y1(i) && (!registers || y4(i) == y1(i)))) {
        std::printf("%-18s WRONG: row %d: plain loop %.17g, simd loop %.17g, registers %.17g, SELL plan %.17g\n",
                    name.c_str(), i, y2(i), y3(i), y4(i), y1(i));
        return 1;
      }
      const double d = std::abs(y1(i) - y0(i));
      err = d > err || d != d ? d : err;  // a NaN is kept
      scale = std::max(scale, std::abs(y0(i)));
    }
    if (!(err <= 1e-12 * std::max(1.0, scale))) {
      std::printf("%-18s WRONG: max difference %.3g from the CSR plan's y\n", name.c_str(), err);
      return 1;
    }
    double ms[5];
    for (int k = 0; k < 5; ++k) ms[k] = probes::median(t[k]) * 1e3;
    char regs[16] = "-", over_regs[16] = "-";
    if (registers) {
      std::snprintf(regs, sizeof regs, "%.3f", ms[3]);
      std::snprintf(over_regs, sizeof over_regs, "%.2f", ms[0] / ms[3]);
    }
    std::printf("%-18s %5d %10.3f %10.3f %10.3f %10s %10.3f %12.2f %12.2f %12s %11.2f\n", name.c_str(), C, ms[0],
                ms[1], ms[2], regs, ms[4], ms[0] / ms[1], ms[0] / ms[2], over_regs, ms[4] / ms[0]);
  }
  return 0;
}
