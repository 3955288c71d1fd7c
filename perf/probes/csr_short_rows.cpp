// pspmv's two host CSR row sums against each other, in one process. detail::simd_dot, the "plain"
// form (the plans of a build without ExecTraits::masked_rows): the plain loop
// `for (k = begin; k < end; ++k) sum += values[k] * x[col_idx[k]]` on rows shorter than
// ExecTraits::simd_row_min, an OpenMP SIMD reduction on longer ones. detail::masked_dot, the "masked" form (the plans of a build
// with ExecTraits::masked_rows): every row 8 entries at a time in the lanes of one SIMD register,
// its whole groups and then its last 1-7 entries under a mask, so that rows of 1 to 7 entries take
// the same branches. Three ways: the plan's multiply(), and the two row forms called in a loop
// outside the plan. "masked/plain" compares the two forms alone; "plan/masked" the plan's multiply
// with its own form outside it (the plan's fixed cost per call, its checks and launch, and where
// each loop was compiled). Each input runs a CSR thread_per_row plan with its automatic plan's
// schedule where that is serial, else static_chunks, on the plan's threads; the loops outside the
// plan run the same rows on the same threads (serial, or each of the plan's threads its contiguous
// share inside a region of the whole team, as the plan's launch does). Before any timing each way
// runs once and is checked against y in long double (within 1e-12 of the row's sum of |a x|); after
// the timing the plan and its own form outside it must give y bit for bit alike.
// Built on request, not by default (cmake --build --preset openmp --target
// pspmv_probe_csr_short_rows), run as
//   OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=threads
//   build/openmp/perf/pspmv_probe_csr_short_rows [MATRICES_DIR] [ROUNDS] [large]
// MATRICES_DIR (default $PSPMV_MATRICES, else ../shared/matrices) holds the shared matrices;
// the 12 of them with fewer than 16 entries a row on average are read. With `large`, tiles of
// hep-th (x600), bayer10 (x200) and rajat01 (x500) and random:2000000:8 follow (16-22M entries,
// the sizes of the host evaluation set). ROUNDS (default 200; at most 15 for the large inputs)
// rounds after one untimed round; each round times the three in turn, the first one rotating,
// each sample a batch of calls (about 200,000 entries' worth, at least one call). Prints medians
// in microseconds and the ratios (below 1: the first is faster). On a build without masked rows
// (ExecTraits::masked_rows false) the masked form is the plain one.
#include <pspmv/analyze.hpp>
#include <pspmv/io/generators.hpp>
#include <pspmv/io/matrix_market.hpp>

#include <omp.h>

#include "library_rows.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

using probes::Csr;
using probes::Exec;
using probes::masked_rows;
using probes::plain_rows;
using probes::median;
using probes::min_simd;

/// Times the plan of A and the two row forms; 0 on success, 1 on a wrong result.
int probe(const std::string& name, const Csr& A, int rounds) {
  pspmv::AnalyzeOptions o;
  o.format = pspmv::Format::csr;
  o.mapping = pspmv::Mapping::thread_per_row;
  const auto automatic = pspmv::analyze<Exec>(A);
  const bool serial = automatic.schedule() == pspmv::Schedule::serial;
  o.schedule = serial ? pspmv::Schedule::serial : pspmv::Schedule::static_chunks;
  const auto plan = pspmv::analyze<Exec>(A, o);
  const int nt = serial ? 1 : std::max(1, plan.launch().threads > 0 ? plan.launch().threads : omp_get_max_threads());
  Kokkos::View<double*, Kokkos::HostSpace> x("x", A.ncols), y0("y0", A.nrows), y1("y1", A.nrows), y2("y2", A.nrows);
  for (std::int32_t i = 0; i < A.ncols; ++i) x(i) = 1.0 + 0.25 * (i % 7);
  const std::int64_t* rp = A.row_ptr.data();
  const std::int32_t* ci = A.col_idx.data();
  const double* v = A.values.data();
  // f over the plan's rows on the plan's threads: serial, or each of the plan's threads its
  // contiguous share inside a region of the whole team (as the plan's launch).
  const auto rows = [&](auto f, double* y) {
    if (serial) {
      f(0, A.nrows, rp, ci, v, x.data(), y);
      return;
    }
#pragma omp parallel
    {
      const int t = omp_get_thread_num(), n = std::min(nt, omp_get_num_threads());
      if (t < n) {
        const std::int64_t a = static_cast<std::int64_t>(A.nrows) * t / n;
        const std::int64_t b = static_cast<std::int64_t>(A.nrows) * (t + 1) / n;
        f(static_cast<std::int32_t>(a), static_cast<std::int32_t>(b), rp, ci, v, x.data(), y);
      }
    }
  };
  const std::function<void()> run[3] = {[&] { plan.multiply(1.0, x, 0.0, y0); },
                                        [&] { rows(plain_rows, y2.data()); }, [&] { rows(masked_rows, y1.data()); }};
  // Each way once, checked against y in long double before anything is timed.
  const char* way[3] = {"the plan", "the plain form", "the masked form"};
  const double* got[3] = {y0.data(), y2.data(), y1.data()};
  for (int k = 0; k < 3; ++k) {
    run[k]();
    Kokkos::fence();
    for (std::int32_t i = 0; i < A.nrows; ++i) {
      long double sum = 0, mag = 0;
      for (std::int64_t e = rp[i]; e < rp[i + 1]; ++e) {
        sum += static_cast<long double>(v[e]) * x(ci[e]);
        mag += std::abs(static_cast<long double>(v[e]) * x(ci[e]));
      }
      if (!(std::abs(got[k][i] - sum) <= 1e-12L * mag)) {
        std::printf("%-20s WRONG: row %d: %s gives %.17g, the reference %.17Lg\n", name.c_str(), i, way[k], got[k][i],
                    sum);
        return 1;
      }
    }
  }
  const int batch = static_cast<int>(std::max<std::int64_t>(1, 200000 / std::max<std::int64_t>(1, A.nnz())));
  std::vector<double> t[3];
  for (int round = 0; round <= rounds; ++round)
    for (int q = 0; q < 3; ++q) {
      const int k = (q + round) % 3;
      run[k]();
      Kokkos::fence();
      const auto t0 = std::chrono::steady_clock::now();
      for (int b = 0; b < batch; ++b) run[k]();
      Kokkos::fence();
      const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / batch;
      if (round > 0) t[k].push_back(dt);
    }
  // The plan runs the masked form where the build has it (LaunchParams::masked_rows), else the plain one.
  const double* own = plan.launch().masked_rows ? y1.data() : y2.data();
  for (std::int32_t i = 0; i < A.nrows; ++i)
    if (!(y0(i) == own[i] || (y0(i) != y0(i) && own[i] != own[i]))) {
      std::printf("%-20s WRONG: row %d: plan %.17g, its form outside the plan %.17g\n", name.c_str(), i, y0(i), own[i]);
      return 1;
    }
  const double us[3] = {median(t[0]) * 1e6, median(t[1]) * 1e6, median(t[2]) * 1e6};
  std::printf("%-20s %10lld %6.2f %-7s %3d %10.2f %10.2f %10.2f %12.3f %11.3f\n", name.c_str(),
              static_cast<long long>(A.nnz()), probes::mean_row(A),
              serial ? "serial" : "static", nt, us[0], us[1], us[2], us[2] / us[1], us[0] / us[2]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const probes::Args args(argc, argv, 200);
  const bool large = args.word == "large";
  std::printf("%d threads; the plain form's rows below %d entries in the plain loop; masked rows in this build: %s; "
              "medians in us\n",
              omp_get_max_threads(), min_simd, pspmv::ExecTraits<Exec>::masked_rows ? "yes" : "no");
  std::printf("%-20s %10s %6s %-7s %3s %10s %10s %10s %12s %11s\n", "input", "nnz", "mean", "plan", "thr", "plan",
              "plain", "masked", "masked/plain", "plan/masked");
  int bad = 0;
  for (const char* m : {"karate", "west0067_jumbled", "494_bus", "Erdos971", "lp_e226", "jagmesh7", "bcspwr10",
                        "cryg2500", "bcsstk21", "zenios", "adder_dcop_05", "watt_2"})
    bad |= probe(m, pspmv::read_matrix_market<double, std::int64_t>(args.dir + "/" + m + ".mtx"), args.rounds);
  if (large) {
    const int r = std::min(args.rounds, 15);
    for (const auto& [name, A] : probes::large_tiles(args.dir)) bad |= probe(name, A, r);
    bad |= probe("random:2000000:8", pspmv::generate_random<double, std::int64_t>(2000000, 2000000, 8.0), r);
  }
  return bad;
}
