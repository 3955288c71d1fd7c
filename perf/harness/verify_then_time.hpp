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
#include <string>
#include <type_traits>
#include <vector>

#include "pspmv/timing.hpp"
#include "harness/records.hpp"
#include "harness/reference.hpp"
#include "harness/samples.hpp"
#include "pspmv/pspmv.hpp"

namespace pspmv_cli {

/// A vector of n zeros in Mem; on a host, on the pages a plan's own arrays get
/// (detail::host_array: huge pages advised before the first touch), so that a library that
/// reads x and y (every one) reads them as pspmv's plans read their matrix.
template <class Value, class Mem>
Kokkos::View<Value*, Mem> vector_of(const char* label, std::int64_t n) {
  Kokkos::View<Value*, Mem> v;
  if constexpr (std::is_same<Mem, Kokkos::HostSpace>::value)
    v = pspmv::detail::host_array<Value>(label, n);
  else
    v = Kokkos::View<Value*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
  Kokkos::deep_copy(v, Value(0));
  return v;
}

/// The inputs of y = A x on Exec (x random in [-1, 1), rounded to Value, so that the reference
/// sees the same inputs; y) and the reference result; measure() checks and times one run.
/// MValue: A's value type (float under double vectors for a mixed-precision run).
template <class Exec, class Value, class Offset, class MValue = Value>
class VerifyThenTime {
 public:
  using Mem = typename Exec::memory_space;

  VerifyThenTime(const pspmv::HostCsr<MValue, Offset>& A, int warmups, int reps, double min_sample_s)
      : x(vector_of<Value, Mem>("pspmv::x", A.ncols)), y(vector_of<Value, Mem>("pspmv::y", A.nrows)), A_(A),
        hy_(Kokkos::create_mirror_view(y)),
        warmups_(warmups), reps_(reps), min_sample_s_(min_sample_s) {
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

  /// Poisons y with NaN, runs once and checks every row (row_matches), then times `reps` samples
  /// after `warmups` calls, each sample a batch of calls lasting at least min_sample_s
  /// (time_samples): median, minimum and dispersion per call, and the calls per sample.
  Timing measure(const std::function<void()>& run) const {
    Timing t;
    Kokkos::deep_copy(y, std::numeric_limits<Value>::quiet_NaN());
    run();
    Exec().fence();
    Kokkos::deep_copy(hy_, y);
    const std::vector<double> got(hy_.data(), hy_.data() + hy_.extent(0));
    check(got, t);
    time_samples<Exec>(run, warmups_, reps_, min_sample_s_, t);
    return t;
  }

  Kokkos::View<Value*, Mem> x, y;

 private:
  /// t.verified: every row matches the reference (reference::row_matches, as
  /// reference::compare); t.max_rel_err: the largest |got - want| / scale over the rows
  /// (infinity where a finite reference got NaN). In parallel over pieces of rows on the host
  /// (a count and a maximum: the same at any thread count).
  void check(const std::vector<double>& got, Timing& t) const {
    const std::int64_t n = static_cast<std::int64_t>(std::min(got.size(), ref_.y.size()));
    const std::int64_t np = pspmv::detail::pieces_of(n);
    std::vector<std::int64_t> bad(static_cast<std::size_t>(np), 0);
    std::vector<double> worst(static_cast<std::size_t>(np), 0.0);
    pspmv::detail::for_pieces("pspmv::verify", n, pspmv::detail::host_piece,
                              [&](std::int64_t b, std::int64_t begin, std::int64_t end) {
                                std::int64_t count = 0;
                                double w = 0;
                                for (std::int64_t i = begin; i < end; ++i) {
                                  const double want = ref_.y[i], err = std::fabs(got[i] - want);
                                  const double len = static_cast<double>(A_.row_ptr(i + 1) - A_.row_ptr(i));
                                  count += pspmv::reference::row_matches<Value>(got[i], want, ref_.scale[i], len) ? 0 : 1;
                                  if (!std::isfinite(want)) continue;  // NaN and Inf references: row_matches decides alone
                                  const double rel = ref_.scale[i] > 0 ? err / ref_.scale[i] : err;
                                  w = std::isnan(rel) ? std::numeric_limits<double>::infinity() : std::max(w, rel);
                                }
                                bad[b] = count;
                                worst[b] = w;
                              });
    std::int64_t count = got.size() != ref_.y.size() ? 1 : 0;
    double w = 0;
    for (std::int64_t b = 0; b < np; ++b) {
      count += bad[b];
      w = std::max(w, worst[b]);
    }
    t.verified = count == 0;
    t.max_rel_err = w;
  }

  const pspmv::HostCsr<MValue, Offset>& A_;
  typename Kokkos::View<Value*, Mem>::HostMirror hy_;
  pspmv::reference::Result ref_;
  int warmups_, reps_;
  double min_sample_s_;
};

}  // namespace pspmv_cli
