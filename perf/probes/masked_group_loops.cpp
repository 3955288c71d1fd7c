// The loop shapes of a host CSR row summed in masked groups of 8 entries (detail::masked_dot),
// each inside the launch a CSR thread_per_row plan makes (detail::launch_range_from under static
// rows, a functor of the plan's views filled by each thread, y = alpha * sum), in one process,
// interleaved. Four ways, double:
//   plan     plan.multiply(1, x, 0, y): the library's path and its masked_dot
//   one      one loop over the row's groups, every group under a mask (all ones but the last)
//   merging  the row's whole groups with plain loads and a gather under a mask the compiler knows
//            is all ones, then the last 1-7 entries under a mask: GCC merges each whole group's
//            gather into the register of the one before
//   opaque   the same two loops, the whole groups' mask hidden from the compiler
//            (detail::opaque_full_mask): the library's masked_dot, compiled here
// Every way adds the same products in the same order, so y must be the same bit for bit: each
// way's y is compared with the plan's before the timing (exit 1 on a difference). Each sample is
// a batch of calls of about 4M entries' worth; the rounds rotate which way goes first. Prints
// medians in microseconds and each way over "one" (below 1: faster).
// Built on request (cmake --build --preset openmp --target pspmv_probe_masked_group_loops), run as
//   OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=threads
//   build/openmp/perf/pspmv_probe_masked_group_loops [MATRICES_DIR] [ROUNDS] [large]
// MATRICES_DIR (default $PSPMV_MATRICES, else ../shared/matrices) holds the shared matrices; the
// eleven whose automatic host plans run in parallel are read. With `large`, tiles of hep-th
// (x600), bayer10 (x200) and rajat01 (x500) follow (19-22M entries). ROUNDS (default 200; at most
// 25 for the tiles). A build without masked rows (ExecTraits::masked_rows false) says so and stops.
#include <pspmv/analyze.hpp>
#include <pspmv/io/matrix_market.hpp>

#include <omp.h>

#include "library_rows.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#if PSPMV_HOST_MASKED_ROWS
#include <immintrin.h>

namespace {

using probes::Csr;
using probes::Exec;
using probes::median;
namespace detail = pspmv::detail;

/// The 8 lanes of acc added up as masked_dot adds them.
inline double lanes_sum(const __m512d acc) {
  const __m256d q =
      _mm256_add_pd(_mm512_maskz_extractf64x4_pd(0xF, acc, 0), _mm512_maskz_extractf64x4_pd(0xF, acc, 1));
  const __m128d h = _mm_add_pd(_mm256_castpd256_pd128(q), _mm256_extractf128_pd(q, 1));
  return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
}

/// The last 1-7 entries [k, end) under a mask, added to acc.
inline __m512d tail(const double* v, const std::int32_t* c, const double* x, const std::int64_t k,
                    const std::int64_t end, const __m512d acc) {
  const __mmask8 m = static_cast<__mmask8>((1u << (end - k)) - 1u);
  return _mm512_fmadd_pd(_mm512_maskz_loadu_pd(m, v + k),
                         _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, _mm256_maskz_loadu_epi32(m, c + k), x, 8),
                         acc);
}

/// "one": every group under a mask, all ones but the last.
KOKKOS_FORCEINLINE_FUNCTION double one_loop(const double* v, const std::int32_t* c, const double* x,
                                            const std::int64_t begin, const std::int64_t end) {
  __m512d acc = _mm512_setzero_pd();
  for (std::int64_t k = begin; k < end; k += 8) {
    const __mmask8 m = static_cast<__mmask8>(end - k >= 8 ? 0xFF : (1u << (end - k)) - 1u);
    acc = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(m, v + k),
                          _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, _mm256_maskz_loadu_epi32(m, c + k), x, 8),
                          acc);
  }
  return lanes_sum(acc);
}

/// "merging": whole groups under a mask the compiler sees, then the tail.
KOKKOS_FORCEINLINE_FUNCTION double merging_loops(const double* v, const std::int32_t* c, const double* x,
                                                 const std::int64_t begin, const std::int64_t end) {
  __m512d acc = _mm512_setzero_pd();
  std::int64_t k = begin;
  for (; end - k >= 8; k += 8)
    acc = _mm512_fmadd_pd(_mm512_loadu_pd(v + k),
                          _mm512_mask_i32gather_pd(_mm512_setzero_pd(), static_cast<__mmask8>(0xFF),
                                                   _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + k)), x, 8),
                          acc);
  if (k < end) acc = tail(v, c, x, k, end, acc);
  return lanes_sum(acc);
}

/// A CSR thread_per_row functor of the plan's views and store, its rows summed in loop shape Form.
template <int Form>
struct Rows {
  detail::KernelView<const std::int64_t*, Kokkos::HostSpace> row_ptr;
  detail::KernelView<const std::int32_t*, Kokkos::HostSpace> col_idx;
  detail::KernelView<const double*, Kokkos::HostSpace> values;
  detail::GatherView<const double*, Kokkos::HostSpace> x;
  detail::KernelView<double*, Kokkos::HostSpace> y;
  double alpha = 1;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(detail::RowsTag, const std::int32_t i) const {
    const double* v = values.data();
    const std::int32_t* c = col_idx.data();
    double s;
    if constexpr (Form == 0)
      s = one_loop(v, c, x.data(), row_ptr(i), row_ptr(i + 1));
    else if constexpr (Form == 1)
      s = merging_loops(v, c, x.data(), row_ptr(i), row_ptr(i + 1));
    else
      s = detail::masked_dot<probes::min_simd, double>(v, c, x.data(), row_ptr(i), row_ptr(i + 1));
    y(i) = alpha * s;
  }
  KOKKOS_FORCEINLINE_FUNCTION void operator()(detail::BlocksTag, const std::int32_t) const {}
};

/// Fills a Rows<Form> on each thread, as the plan's maker does.
template <int Form>
struct Make {
  const Csr* A;
  const double* x;
  double* y;
  Rows<Form> operator()() const {
    Rows<Form> f;
    f.row_ptr = decltype(f.row_ptr)(A->row_ptr.data(), A->row_ptr.size());
    f.col_idx = decltype(f.col_idx)(A->col_idx.data(), A->col_idx.size());
    f.values = decltype(f.values)(A->values.data(), A->values.size());
    f.x = decltype(f.x)(x, static_cast<std::size_t>(A->ncols));
    f.y = decltype(f.y)(y, static_cast<std::size_t>(A->nrows));
    return f;
  }
};

int probe(const std::string& name, const Csr& A, const int rounds) {
  pspmv::AnalyzeOptions o;
  o.format = pspmv::Format::csr;
  o.mapping = pspmv::Mapping::thread_per_row;
  o.schedule = pspmv::Schedule::static_chunks;
  const auto plan = pspmv::analyze<Exec>(A, o);
  constexpr int K = 4;
  Kokkos::View<double*, Kokkos::HostSpace> x("x", A.ncols), y[K];
  for (auto& v : y) v = Kokkos::View<double*, Kokkos::HostSpace>("y", A.nrows);
  for (std::int32_t i = 0; i < A.ncols; ++i) x(i) = 1.0 + 0.25 * (i % 7);
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> words("words", 64);
  const detail::KernelView<std::int64_t*, Kokkos::HostSpace> w(words.data(), 64);
  const Exec space;
  const std::string label = "probe";
  const auto launch = [&](const auto& make) {
    detail::launch_range_from(space, label, pspmv::Schedule::static_chunks, A.nrows, 0, 0, make, w);
  };
  const char* way[K] = {"plan", "one", "merging", "opaque"};
  const std::function<void()> run[K] = {[&] { plan.multiply(1.0, x, 0.0, y[0]); },
                                        [&] { launch(Make<0>{&A, x.data(), y[1].data()}); },
                                        [&] { launch(Make<1>{&A, x.data(), y[2].data()}); },
                                        [&] { launch(Make<2>{&A, x.data(), y[3].data()}); }};
  for (int k = 0; k < K; ++k) run[k]();
  Kokkos::fence();
  for (int k = 1; k < K; ++k)
    for (std::int32_t i = 0; i < A.nrows; ++i)
      if (!(y[k](i) == y[0](i))) {
        std::printf("%-18s WRONG: row %d: %s gives %.17g, the plan %.17g\n", name.c_str(), i, way[k], y[k](i), y[0](i));
        return 1;
      }
  const int batch = static_cast<int>(std::max<std::int64_t>(1, 4000000 / std::max<std::int64_t>(1, A.nnz())));
  std::vector<double> t[K];
  for (int round = 0; round <= rounds; ++round)
    for (int q = 0; q < K; ++q) {
      const int k = (q + round) % K;
      run[k]();
      Kokkos::fence();
      const auto t0 = std::chrono::steady_clock::now();
      for (int b = 0; b < batch; ++b) run[k]();
      Kokkos::fence();
      if (round > 0)
        t[k].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / batch);
    }
  double us[K];
  for (int k = 0; k < K; ++k) us[k] = median(t[k]) * 1e6;
  std::printf("%-18s %10lld %6.2f %11.2f %11.2f %11.2f %11.2f %9.3f %9.3f %9.3f\n", name.c_str(),
              static_cast<long long>(A.nnz()), probes::mean_row(A), us[0],
              us[1], us[2], us[3], us[0] / us[1], us[2] / us[1], us[3] / us[1]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const probes::Args args(argc, argv, 200);
  std::printf("%d threads, static rows, double; medians in us; ratios over \"one\"\n", omp_get_max_threads());
  std::printf("%-18s %10s %6s %11s %11s %11s %11s %9s %9s %9s\n", "input", "nnz", "mean", "plan", "one", "merging",
              "opaque", "plan/one", "merg/one", "opaq/one");
  int bad = 0;
  for (const char* m : {"jagmesh7", "bcspwr10", "cryg2500", "bcsstk21", "zenios", "adder_dcop_05", "watt_2", "hep-th",
                        "rajat01", "bcsstk13", "bayer10"})
    bad |= probe(m, pspmv::read_matrix_market<double, std::int64_t>(args.dir + "/" + m + ".mtx"), args.rounds);
  if (args.word == "large")
    for (const auto& [name, A] : probes::large_tiles(args.dir)) bad |= probe(name, A, std::min(args.rounds, 25));
  return bad;
}
#else
int main() {
  std::printf("this build sums host CSR rows without masked groups (ExecTraits::masked_rows false): "
              "nothing to probe\n");
  return 0;
}
#endif
