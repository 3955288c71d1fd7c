#pragma once
// Verify-then-time of a product with k vectors (Y = A X, X and Y of k columns, LayoutRight):
// every column checked row by row against the long-double reference with Y poisoned by NaN,
// then timed after warm-ups, as verify_then_time.hpp does for one vector.
#include <Kokkos_Core.hpp>

#include <chrono>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "harness/records.hpp"
#include "harness/reference.hpp"
#include "harness/samples.hpp"
#include "pspmv/pspmv.hpp"
#include "pspmv/timing.hpp"

namespace pspmv_cli {

template <class Exec, class Value, class Offset, class MValue = Value>  // MValue: A's values (VerifyThenTime)
class VerifyThenTimeMulti {
 public:
  using Mem = typename Exec::memory_space;
  using MultiView = Kokkos::View<Value**, Kokkos::LayoutRight, Mem>;

  /// n x k zeros in Mem; on a host, huge pages advised before the first touch (vector_of).
  static MultiView block_of(const char* label, std::int64_t n, int k) {
    MultiView v(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n, k);
    if constexpr (std::is_same<Mem, Kokkos::HostSpace>::value)
      pspmv::detail::advise_huge_pages(v.data(), v.span() * sizeof(Value));
    Kokkos::deep_copy(v, Value(0));
    return v;
  }

  VerifyThenTimeMulti(const pspmv::HostCsr<MValue, Offset>& A, int k, int warmups, int reps, double min_sample_s)
      : X(block_of("pspmv::X", A.ncols, k)), Y(block_of("pspmv::Y", A.nrows, k)), A_(A), hy_(Kokkos::create_mirror_view(Y)), k_(k),
        warmups_(warmups), reps_(reps), min_sample_s_(min_sample_s) {
    std::mt19937_64 rng(2024);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    auto hx = Kokkos::create_mirror_view(X);
    xd_.assign(static_cast<std::size_t>(k), std::vector<double>(static_cast<std::size_t>(A.ncols)));
    for (std::int32_t j = 0; j < A.ncols; ++j)
      for (int q = 0; q < k; ++q) {
        hx(j, q) = static_cast<Value>(dist(rng));
        xd_[q][j] = static_cast<double>(hx(j, q));
      }
    Kokkos::deep_copy(X, hx);
  }

  int vectors() const { return k_; }

  /// Poisons Y with NaN, runs once and checks every column (the reference computed per column),
  /// then times `reps` samples after `warmups` calls (time_samples).
  Timing measure(const std::function<void()>& run) const {
    Timing t;
    Kokkos::deep_copy(Y, std::numeric_limits<Value>::quiet_NaN());
    run();
    Exec().fence();
    Kokkos::deep_copy(hy_, Y);
    t.verified = true;
    std::vector<double> got(static_cast<std::size_t>(A_.nrows));
    for (int q = 0; q < k_; ++q) {
      for (std::int32_t i = 0; i < A_.nrows; ++i) got[i] = static_cast<double>(hy_(i, q));
      const auto ref = pspmv::reference::spmv(A_, 1.0, xd_[q]);
      if (pspmv::reference::compare<Value>(A_, got, ref).count != 0) t.verified = false;
      for (std::size_t i = 0; i < got.size(); ++i) {
        const double want = ref.y[i];
        if (!std::isfinite(want)) continue;
        const double err = std::fabs(got[i] - want), rel = ref.scale[i] > 0 ? err / ref.scale[i] : err;
        t.max_rel_err = std::isnan(rel) ? std::numeric_limits<double>::infinity() : std::max(t.max_rel_err, rel);
      }
    }
    time_samples<Exec>(run, warmups_, reps_, min_sample_s_, t);
    return t;
  }

  MultiView X, Y;

 private:
  const pspmv::HostCsr<MValue, Offset>& A_;
  typename MultiView::HostMirror hy_;
  std::vector<std::vector<double>> xd_;
  int k_, warmups_, reps_;
  double min_sample_s_;
};

}  // namespace pspmv_cli
