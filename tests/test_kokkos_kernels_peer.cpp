// The Kokkos Kernels peer of pspmv bench (perf/peers/kokkos_kernels.cpp) on the host execution
// space: where Kokkos Kernels is built in, every precision and offset width must compute
// y = A x like the tool's long-double reference, on every call (a planned handle is reused);
// where it is not, the peer must say so in an "absent:" entry that cannot run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "harness/reference.hpp"
#include "peers/kokkos_kernels.hpp"

namespace {

template <class V, class O>
struct KkCfg {
  using value = V;
  using offset = O;
};

template <class Cfg>
class KokkosKernelsPeerTest : public ::testing::Test {};

using KkCfgs = ::testing::Types<KkCfg<double, std::int32_t>, KkCfg<double, std::int64_t>, KkCfg<float, std::int32_t>,
                                KkCfg<float, std::int64_t>>;
TYPED_TEST_SUITE(KokkosKernelsPeerTest, KkCfgs);

TYPED_TEST(KokkosKernelsPeerTest, MatchesTheReferenceOnEveryCall) {
  using Value = typename TypeParam::value;
  using Offset = typename TypeParam::offset;
  using Exec = Kokkos::DefaultHostExecutionSpace;
  // 300 x 200: every 5th row empty, row 7 full, the rest 0..15 random columns.
  const std::int32_t nrows = 300, ncols = 200;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<Offset> row_ptr{0};
  std::vector<std::int32_t> col_idx;
  std::vector<Value> values;
  for (std::int32_t i = 0; i < nrows; ++i) {
    std::set<std::int32_t> cols;
    if (i == 7) {
      for (std::int32_t j = 0; j < ncols; ++j) cols.insert(j);
    } else if (i % 5 != 0) {
      const int len = static_cast<int>(rng() % 16);
      while (static_cast<int>(cols.size()) < len) cols.insert(static_cast<std::int32_t>(rng() % ncols));
    }
    for (auto j : cols) {
      col_idx.push_back(j);
      values.push_back(static_cast<Value>(dist(rng)));
    }
    row_ptr.push_back(static_cast<Offset>(col_idx.size()));
  }
  std::vector<double> xd(ncols);
  for (auto& v : xd) v = static_cast<double>(static_cast<Value>(dist(rng)));
  const auto A = pspmv::make_csr<Value, Offset, std::int32_t>(nrows, ncols, row_ptr, col_idx, values);
  const auto ref = pspmv::reference::spmv(A, 1.0, xd);

  Kokkos::View<Value*, Kokkos::HostSpace> x("x", ncols), y("y", nrows);
  for (std::int32_t j = 0; j < ncols; ++j) x(j) = static_cast<Value>(xd[j]);
  const Kokkos::View<const Value*, Kokkos::HostSpace> cx = x;
  const auto p = pspmv_peers::kokkos_kernels_peer<Exec, Value, Offset>(A, cx, y);
  SCOPED_TRACE(p.impl + " / " + p.variant + ": " + p.note);
  EXPECT_EQ(p.impl, "kokkos-kernels");
  EXPECT_FALSE(p.note.empty());
  if (!pspmv_peers::kokkos_kernels_available()) {
    EXPECT_EQ(p.note.rfind("absent:", 0), 0u);
    EXPECT_FALSE(p.run);
    GTEST_SKIP() << "Kokkos Kernels is not built in: " << p.note;
  }
  ASSERT_TRUE(p.run) << "no run although Kokkos Kernels is built in";
  EXPECT_GE(p.setup_seconds, 0.0);
  for (int rep = 0; rep < 3; ++rep) {  // every call must overwrite the NaNs again
    Kokkos::deep_copy(y, std::numeric_limits<Value>::quiet_NaN());
    p.run();
    Kokkos::fence();
    for (std::int32_t i = 0; i < nrows; ++i) {
      const double len = static_cast<double>(row_ptr[i + 1] - row_ptr[i]);
      ASSERT_TRUE(std::isfinite(static_cast<double>(y(i)))) << "call " << rep << ", row " << i;
      ASSERT_TRUE(pspmv::reference::row_matches<Value>(static_cast<double>(y(i)), ref.y[i], ref.scale[i], len))
          << "call " << rep << ", row " << i << " (length " << len << "): got " << y(i) << ", wanted " << ref.y[i];
    }
  }
}

}  // namespace
