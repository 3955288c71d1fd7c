// What a host CSR plan's multiply costs beyond its rows: the same rows timed several ways in one
// process, interleaved (each sample a batch of calls of about 200,000 entries' worth), medians in
// microseconds. Static rows on the plan's threads (a region of the whole team):
//   plan     plan.multiply(space, 1, x, 0, y): the library's path (checks, launch, functor)
//   made     detail::launch_range_from with a maker like the plan's (a pointer to the plan's
//            arrays, x, y and the scalars by value): each thread fills its own functor
//   fresh    detail::launch_range with a functor the calling thread fills on each call (the
//            plan's launch before each thread made its own)
//   filled   detail::launch_range with a functor filled once, before the timing
//   functor  that functor in this file's own `omp parallel` region
//   rows     raw-pointer rows (the library's row sum) in this file's own region
//   empty    an empty region of the team
// The functors are of the plan's kernel type over the plan's arrays, built here (no nnz
// partition: static rows need none). made/fresh and fresh/filled are the two comparisons of the
// same code. On an instance of one thread the library opens no region (made, fresh, filled, and
// the plan) while functor, rows and empty still open one.
// Then the serial schedule on the five smallest matrices: the plan, detail::run_serial with a
// functor filled once, and the raw rows on the calling thread. Every way's y is compared with the
// plan's, bit for bit, before the timing (exit 1 on a difference; with these matrices and x the
// sums are exact, so it checks that every row was computed, not the order of the additions).
// Built on request (cmake --build --preset openmp --target pspmv_probe_launch_cost), run as
//   OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=threads
//   build/openmp/perf/pspmv_probe_launch_cost [MATRICES_DIR] [ROUNDS] [serial]
// MATRICES_DIR (default $PSPMV_MATRICES, else ../shared/matrices) holds the shared matrices;
// ROUNDS (default 200) rounds after one untimed round; `serial`: the serial part alone.
#include <pspmv/analyze.hpp>
#include <pspmv/io/matrix_market.hpp>

#include <omp.h>

#include "library_rows.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using probes::Csr;
using probes::Exec;
using probes::library_rows;
using probes::median;
using probes::min_simd;

using Functor = pspmv::detail::CsrThreadPerRow<Exec, double, std::int64_t, pspmv::ExecTraits<Exec>::gather_unroll, true,
                                                double, pspmv::ExecTraits<Exec>::masked_rows>;
using Matrix = pspmv::CsrMatrix<double, std::int64_t, std::int32_t, Kokkos::HostSpace>;

/// A functor of the plan's kernel type over the plan's arrays, x and y (alpha 1, beta 0).
Functor functor_of(const Matrix& m, const double* x, std::int32_t ncols, double* y, std::int32_t nrows) {
  Functor f;
  f.row_ptr = m.row_ptr;
  f.col_idx = m.col_idx;
  f.values = m.values;
  f.x = pspmv::detail::GatherView<const double*, Kokkos::HostSpace>(x, ncols);
  f.y = pspmv::detail::KernelView<double*, Kokkos::HostSpace>(y, nrows);
  f.alpha = 1.0;
  f.beta = 0.0;
  return f;
}

/// Times `ways` ways in interleaved rounds (each sample a batch of calls of about 200,000 entries'
/// worth) after checking each way's y against the first's, bit for bit (which, on these matrices
/// and x, checks that every row was computed, not the order of its additions). Medians in us, or
/// an empty vector after printing WRONG.
std::vector<double> time_ways(const std::string& name, const std::vector<std::function<void()>>& run,
                              const std::vector<const double*>& ys, std::int32_t nrows, std::int64_t nnz, int rounds) {
  const std::size_t ways = run.size();
  for (std::size_t k = 0; k < ways; ++k) run[k]();
  Kokkos::fence();
  for (std::size_t k = 1; k < ys.size(); ++k)
    if (std::memcmp(ys[0], ys[k], sizeof(double) * static_cast<std::size_t>(nrows)) != 0) {
      std::printf("%-20s WRONG: way %zu differs from the plan's y\n", name.c_str(), k);
      return {};
    }
  const int batch = static_cast<int>(std::max<std::int64_t>(1, 200000 / std::max<std::int64_t>(1, nnz)));
  std::vector<std::vector<double>> t(ways);
  for (int round = 0; round <= rounds; ++round)
    for (std::size_t q = 0; q < ways; ++q) {
      const std::size_t k = (q + static_cast<std::size_t>(round)) % ways;
      run[k]();
      const auto t0 = std::chrono::steady_clock::now();
      for (int b = 0; b < batch; ++b) run[k]();
      Kokkos::fence();
      const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / batch;
      if (round > 0) t[k].push_back(dt * 1e6);
    }
  std::vector<double> m;
  for (const auto& v : t) m.push_back(median(v));
  return m;
}

/// Static rows on the plan's threads, seven ways.
int probe(const std::string& name, const Csr& A, int rounds) {
  pspmv::AnalyzeOptions o;
  o.format = pspmv::Format::csr;
  o.mapping = pspmv::Mapping::thread_per_row;
  o.schedule = pspmv::Schedule::static_chunks;
  const Exec space;
  const auto plan = pspmv::analyze<Exec>(A, o);
  const int team = static_cast<int>(space.concurrency());
  const int nt = std::max(1, std::min(team, plan.launch().threads > 0 ? plan.launch().threads : team));
  const std::int32_t nrows = A.nrows, ncols = A.ncols;
  Kokkos::View<double*, Kokkos::HostSpace> x("x", ncols);
  std::vector<Kokkos::View<double*, Kokkos::HostSpace>> y;
  for (int k = 0; k < 6; ++k) y.emplace_back("y", nrows);
  for (std::int32_t i = 0; i < ncols; ++i) x(i) = 1.0 + 0.25 * (i % 7);
  const std::int64_t* rp = A.row_ptr.data();
  const std::int32_t* ci = A.col_idx.data();
  const double* v = A.values.data();
  const Matrix* m = &plan.matrix();
  const Functor filled = functor_of(*m, x.data(), ncols, y[2].data(), nrows),
                own = functor_of(*m, x.data(), ncols, y[3].data(), nrows);
  const pspmv::detail::KernelView<std::int64_t*, Kokkos::HostSpace> words;
  // What a plan's multiply hands each thread (detail::CallWords): a pointer to the plan's arrays,
  // and x and y by value.
  const pspmv::detail::KernelView<const double*, Kokkos::HostSpace> xv(x.data(), ncols);
  const pspmv::detail::KernelView<double*, Kokkos::HostSpace> yv(y[1].data(), nrows);
  const std::vector<std::function<void()>> run = {
      [&] { plan.multiply(space, 1.0, x, 0.0, y[0]); },
      [&] {
        const auto make = [m, xv, yv, nrows, ncols] { return functor_of(*m, xv.data(), ncols, yv.data(), nrows); };
        pspmv::detail::launch_range_from(space, "probe", pspmv::Schedule::static_chunks, nrows, 0, 0, make, words, nt);
      },
      [&] {
        const Functor fresh = functor_of(*m, x.data(), ncols, y[1].data(), nrows);
        pspmv::detail::launch_range(space, "probe", pspmv::Schedule::static_chunks, nrows, 0, 0, fresh, words, nt);
      },
      [&] { pspmv::detail::launch_range(space, "probe", pspmv::Schedule::static_chunks, nrows, 0, 0, filled, words, nt); },
      [&] {
#pragma omp parallel num_threads(team)
        {
          const int t = omp_get_thread_num(), n = std::min(nt, omp_get_num_threads());
          if (t < n) {
            const Functor fn = own;
            const std::int64_t a = static_cast<std::int64_t>(nrows) * t / n, b = static_cast<std::int64_t>(nrows) * (t + 1) / n;
            for (std::int32_t i = static_cast<std::int32_t>(a); i < static_cast<std::int32_t>(b); ++i)
              fn(pspmv::detail::RowsTag(), i);
          }
        }
      },
      [&] {
        double* yy = y[4].data();
#pragma omp parallel num_threads(team)
        {
          const int t = omp_get_thread_num(), n = std::min(nt, omp_get_num_threads());
          if (t < n) {
            const std::int64_t a = static_cast<std::int64_t>(nrows) * t / n, b = static_cast<std::int64_t>(nrows) * (t + 1) / n;
            library_rows(static_cast<std::int32_t>(a), static_cast<std::int32_t>(b), rp, ci, v, x.data(), yy);
          }
        }
      },
      [&] {
#pragma omp parallel num_threads(team)
        {
          if (omp_get_thread_num() > 1 << 20) std::printf("never\n");
        }
      }};
  const auto us = time_ways(name, run, {y[0].data(), y[1].data(), y[2].data(), y[3].data(), y[4].data()}, nrows,
                            A.nnz(), rounds);
  if (us.empty()) return 1;
  std::printf("%-20s %8lld %3d", name.c_str(), static_cast<long long>(A.nnz()), nt);
  for (double u : us) std::printf(" %8.2f", u);
  std::printf("\n");
  return 0;
}

/// The serial schedule: the plan's multiply, run_serial with a functor filled once, raw rows.
int probe_serial(const std::string& name, const Csr& A, int rounds) {
  pspmv::AnalyzeOptions o;
  o.format = pspmv::Format::csr;
  o.mapping = pspmv::Mapping::thread_per_row;
  o.schedule = pspmv::Schedule::serial;
  const Exec space;
  const auto plan = pspmv::analyze<Exec>(A, o);
  const std::int32_t nrows = A.nrows;
  Kokkos::View<double*, Kokkos::HostSpace> x("x", A.ncols);
  std::vector<Kokkos::View<double*, Kokkos::HostSpace>> y;
  for (int k = 0; k < 3; ++k) y.emplace_back("y", nrows);
  for (std::int32_t i = 0; i < A.ncols; ++i) x(i) = 1.0 + 0.25 * (i % 7);
  const Functor f = functor_of(plan.matrix(), x.data(), A.ncols, y[1].data(), nrows);
  const std::int64_t* rp = A.row_ptr.data();
  const std::int32_t* ci = A.col_idx.data();
  const double* v = A.values.data();
  const std::vector<std::function<void()>> run = {[&] { plan.multiply(space, 1.0, x, 0.0, y[0]); },
                                                  [&] { pspmv::detail::run_serial<Exec>("probe", nrows, f); },
                                                  [&] { library_rows(0, nrows, rp, ci, v, x.data(), y[2].data()); }};
  const auto us = time_ways(name, run, {y[0].data(), y[1].data(), y[2].data()}, nrows, A.nnz(), rounds);
  if (us.empty()) return 1;
  std::printf("%-20s %8lld %3s %8.3f %8s %8s %8.3f %8s %8.3f\n", name.c_str(), static_cast<long long>(A.nnz()), "1",
              us[0], "", "", us[1], "", us[2]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const probes::Args args(argc, argv, 200);
  std::printf("%d threads; medians in us\n%-20s %8s %3s %8s %8s %8s %8s %8s %8s %8s\n", omp_get_max_threads(), "input",
              "nnz", "thr", "plan", "made", "fresh", "filled", "functor", "rows", "empty");
  int bad = 0;
  const bool serial_only = args.word == "serial";
  for (const char* m : {"karate", "494_bus", "jagmesh7", "bcspwr10", "cryg2500", "bcsstk21", "adder_dcop_05", "watt_2"})
    if (!serial_only)
      bad |= probe(m, pspmv::read_matrix_market<double, std::int64_t>(args.dir + "/" + m + ".mtx"), args.rounds);
  std::printf("serial schedule: plan, run_serial with a functor filled once (in 'filled'), raw rows (in 'rows')\n");
  for (const char* m : {"karate", "west0067_jumbled", "494_bus", "Erdos971", "lp_e226"})
    bad |= probe_serial(m, pspmv::read_matrix_market<double, std::int64_t>(args.dir + "/" + m + ".mtx"), args.rounds);
  return bad;
}
