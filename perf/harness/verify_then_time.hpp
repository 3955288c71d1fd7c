#pragma once
// Verify-then-time: every run is first checked row by row against the long-double reference
// (harness/reference.hpp) with y poisoned by NaN, then timed after warm-ups.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "pspmv/timing.hpp"
#include "harness/records.hpp"
#include "harness/reference.hpp"
#include "pspmv/pspmv.hpp"

namespace pspmv_cli {

/// The inputs of y = A x on Exec (x random in [-1, 1), rounded to Value, so that the reference
/// sees the same inputs; y) and the reference result; measure() checks and times one run.
template <class Exec, class Value, class Offset>
class VerifyThenTime {
 public:
  using Mem = typename Exec::memory_space;

  VerifyThenTime(const pspmv::HostCsr<Value, Offset>& A, int warmups, int reps)
      : x("pspmv::x", A.ncols), y("pspmv::y", A.nrows), A_(A), hy_(Kokkos::create_mirror_view(y)),
        warmups_(warmups), reps_(reps) {
    std::mt19937_64 rng(2024);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    auto hx = Kokkos::create_mirror_view(x);
    std::vector<double> xd(static_cast<std::size_t>(A.ncols));
    for (std::int32_t j = 0; j < A.ncols; ++j) {
      hx(j) = static_cast<Value>(dist(rng));
      xd[j] = static_cast<double>(hx(j));
    }
    Kokkos::deep_copy(x, hx);
    ref_ = pspmv::reference::spmv(A, 1.0, xd);
  }

  /// Poisons y with NaN, runs once and checks every row (row_matches), then times `reps` runs
  /// after `warmups`, each fenced: median, minimum and dispersion (timing_of).
  Timing measure(const std::function<void()>& run) const {
    Timing t;
    Kokkos::deep_copy(y, std::numeric_limits<Value>::quiet_NaN());
    run();
    Exec().fence();
    Kokkos::deep_copy(hy_, y);
    const std::vector<double> got(hy_.data(), hy_.data() + hy_.extent(0));
    t.verified = pspmv::reference::compare(A_, got, ref_).count == 0;
    t.max_rel_err = max_rel_err(got);
    for (int w = 0; w < warmups_; ++w) run();
    Exec().fence();
    std::vector<double> times;
    for (int r = 0; r < reps_; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      run();
      Exec().fence();
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    const Timing spread = timing_of(times);
    t.median_s = spread.median_s;
    t.min_s = spread.min_s;
    t.iqr_s = spread.iqr_s;
    t.cv = spread.cv;
    return t;
  }

  Kokkos::View<Value*, Mem> x, y;

 private:
  /// The largest |got - want| / scale over the rows (infinity where a finite reference got NaN).
  double max_rel_err(const std::vector<double>& got) const {
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double want = ref_.y[i], err = std::fabs(got[i] - want);
      if (!std::isfinite(want)) continue;  // NaN and Inf references: row_matches decides alone
      const double rel = ref_.scale[i] > 0 ? err / ref_.scale[i] : err;
      worst = std::isnan(rel) ? std::numeric_limits<double>::infinity() : std::max(worst, rel);
    }
    return worst;
  }

  const pspmv::HostCsr<Value, Offset>& A_;
  typename Kokkos::View<Value*, Mem>::HostMirror hy_;
  pspmv::reference::Result ref_;
  int warmups_, reps_;
};

}  // namespace pspmv_cli
