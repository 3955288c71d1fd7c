// pspmv's host SELL plan (the ESB slice kernel, SellSliceColumns) against a plain loop of the
// same column loops over the same stored matrix, and the CSR plan beside them: whether the
// kernel as compiled into the library runs as fast as the loops it is written as. Each plan
// computes y = A x with thread_per_row and static_chunks on the OpenMP space (f64, 32-bit
// columns, no long rows, y in the caller's order); the plain loop walks the plan's own slices
// (Plan::sell()): per slice the C sums, the columns every row has, then the longer rows' columns
// with a blend, the same multiply-add (detail::mul_add) in the same order, then y through the
// permutation without the kernel's per-row store logic (alpha = 1, no pieces, no long rows), under
// `omp parallel for schedule(static)` over the slices (the share of each thread that
// static_chunks gives). The plain loop's y must equal the SELL plan's bit for bit, and both the
// CSR plan's within 1e-12 of its largest entry.
// Built on request, not by default: cmake --build --preset openmp --target pspmv_probe_sell_slice_loop
//   OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=threads \
//     build/openmp/perf/pspmv_probe_sell_slice_loop [MATRICES_DIR] [ROUNDS]
// MATRICES_DIR (default $PSPMV_MATRICES, else ../shared/matrices) holds hep-th.mtx and bayer10.mtx.
// Inputs: tiles of hep-th (x1000) and bayer10 (x300), random:4000000:8, stencil27:100. ROUNDS
// (default 30) rounds after 3 untimed ones; each round runs the three in turn, the first one
// rotating from round to round (no one is always first or last). Prints the medians and
// two ratios: the SELL plan's time over the plain loop's (above 1: the kernel as compiled loses
// time the loop does not) and the CSR plan's over the SELL plan's.
#include <pspmv/analyze.hpp>
#include <pspmv/io/generators.hpp>
#include <pspmv/io/matrix_market.hpp>

#include "library_rows.hpp"

#include <omp.h>

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

/// y = A x over the slices of S (height C), as SellSliceColumns computes it, written plainly.
template <int C>
void plain_slices(const Sell& S, const double* x, double* y) {
  const std::int64_t nslices = S.nslices();
  const std::int32_t npos = S.npos;
  const std::int64_t* sptr = S.slice_ptr.data();
  const std::int32_t* width = S.slice_width.data();
  const std::int32_t* row_len = S.row_len.data();
  const std::int32_t* perm = S.perm.data();
  const std::int32_t* col = S.col_idx.data();
  const double* val = S.values.data();
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
    for (; j < shortest; ++j)
      for (int r = 0; r < C; ++r) acc[r] = pspmv::detail::mul_add(vs[j * C + r], x[cs[j * C + r]], acc[r]);
    for (; j < w; ++j)
      for (int r = 0; r < C; ++r) {
        const double t = pspmv::detail::mul_add(vs[j * C + r], x[cs[j * C + r]], acc[r]);
        acc[r] = j < len[r] ? t : acc[r];
      }
    for (int r = 0; r < C && first + r < npos; ++r) y[perm[first + r]] = acc[r];
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const std::string dir = probes::matrices_dir(argc, argv);
  const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 30;
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
  std::printf("%-18s %5s %10s %10s %10s %12s %11s\n", "input", "C", "SELL plan", "plain loop", "CSR plan",
              "SELL / plain", "CSR / SELL");
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
        y2("y2", A.nrows);
    for (std::int32_t i = 0; i < A.ncols; ++i) x(i) = 1.0 + 0.25 * (i % 7);
    const std::function<void()> run[3] = {
        [&] { sell.multiply(1.0, x, 0.0, y1); },
        [&] {
          if (C == 4) plain_slices<4>(S, x.data(), y2.data());
          else if (C == 8) plain_slices<8>(S, x.data(), y2.data());
          else plain_slices<16>(S, x.data(), y2.data());
        },
        [&] { csr.multiply(1.0, x, 0.0, y0); }};
    std::vector<double> t[3];
    for (int round = 0; round < rounds + 3; ++round)
      for (int q = 0; q < 3; ++q) {
        const int k = (q + round) % 3;
        const auto t0 = std::chrono::steady_clock::now();
        run[k]();
        Kokkos::fence();
        const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (round >= 3) t[k].push_back(dt);
      }
    double err = 0, scale = 0;
    for (std::int32_t i = 0; i < A.nrows; ++i) {
      if (!(y2(i) == y1(i))) {
        std::printf("%-18s WRONG: row %d: plain loop %.17g, SELL plan %.17g\n", name.c_str(), i, y2(i), y1(i));
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
    const double ms[3] = {median(t[0]) * 1e3, median(t[1]) * 1e3, median(t[2]) * 1e3};
    std::printf("%-18s %5d %10.3f %10.3f %10.3f %12.2f %11.2f\n", name.c_str(), C, ms[0], ms[1], ms[2],
                ms[0] / ms[1], ms[2] / ms[0]);
  }
  return 0;
}
