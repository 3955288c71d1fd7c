// The host peers of pspmv bench (perf/peers/host_libraries.cpp: Eigen, librsb, Intel MKL):
// every variant this build has must compute y = A x like the long-double reference that the
// tool shares (perf/harness/reference.hpp), and the list must keep its contract (absent notes,
// unplanned names).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "harness/reference.hpp"
#include "peers/host_libraries.hpp"

namespace {

template <class V, class O>
struct PeerCfg {
  using value = V;
  using offset = O;
};

template <class Cfg>
class HostPeersTest : public ::testing::Test {};

using PeerCfgs = ::testing::Types<PeerCfg<double, std::int32_t>, PeerCfg<double, std::int64_t>,
                                  PeerCfg<float, std::int32_t>, PeerCfg<float, std::int64_t>>;
TYPED_TEST_SUITE(HostPeersTest, PeerCfgs);

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

bool impl_available(const std::string& impl) {
  if (impl == "eigen") return pspmv_peers::eigen_available();
  if (impl == "librsb") return pspmv_peers::librsb_available();
  if (impl == "mkl") return pspmv_peers::mkl_available();
  ADD_FAILURE() << "unknown impl '" << impl << "'";
  return false;
}

TYPED_TEST(HostPeersTest, EveryVariantMatchesTheReference) {
  using Value = typename TypeParam::value;
  using Offset = typename TypeParam::offset;
  // 500 x 400: every 7th row empty, row 3 full (400 entries), the rest 0..12 random columns.
  const std::int32_t nrows = 500, ncols = 400;
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<Offset> row_ptr{0};
  std::vector<std::int32_t> col_idx;
  std::vector<Value> values;
  for (std::int32_t i = 0; i < nrows; ++i) {
    std::set<std::int32_t> cols;
    if (i == 3) {
      for (std::int32_t j = 0; j < ncols; ++j) cols.insert(j);
    } else if (i % 7 != 0) {
      const int len = static_cast<int>(rng() % 13);
      while (static_cast<int>(cols.size()) < len) cols.insert(static_cast<std::int32_t>(rng() % ncols));
    }
    for (auto j : cols) {
      col_idx.push_back(j);
      values.push_back(static_cast<Value>(dist(rng)));
    }
    row_ptr.push_back(static_cast<Offset>(col_idx.size()));
  }
  std::vector<Value> x(ncols);
  for (auto& v : x) v = static_cast<Value>(dist(rng));
  // The reference from the Value-rounded inputs, and the scale sum |a_ij x_j| per row.
  const auto csr = pspmv::make_csr<Value, Offset, std::int32_t>(nrows, ncols, row_ptr, col_idx, values);
  const auto ref = pspmv::reference::spmv(csr, 1.0, std::vector<double>(x.begin(), x.end()));

  std::vector<Value> y(nrows);
  const pspmv_peers::HostCsrView<Value, Offset> A{nrows, ncols, static_cast<std::int64_t>(values.size()),
                                                  row_ptr.data(), col_idx.data(), values.data()};
  const auto peers = pspmv_peers::host_peers(A, x.data(), y.data(), 100);

  // Fixed order, one or two entries per impl.
  ASSERT_GE(peers.size(), 3u);
  EXPECT_EQ(peers.front().impl, "eigen");
  EXPECT_EQ(peers.back().impl, "mkl");
  std::size_t expected_entries = 1;
  expected_entries += pspmv_peers::librsb_available() ? 2 : 1;
  expected_entries += pspmv_peers::mkl_available() ? 2 : 1;
  EXPECT_EQ(peers.size(), expected_entries);

  int ran = 0;
  for (const auto& p : peers) {
    SCOPED_TRACE(p.impl + " / " + p.variant + ": " + p.note);
    EXPECT_FALSE(p.variant.empty());
    EXPECT_FALSE(p.note.empty());
    if (!impl_available(p.impl)) {
      EXPECT_TRUE(starts_with(p.note, "absent:"));
      EXPECT_FALSE(p.run);
      EXPECT_TRUE(p.unplanned.empty());
      continue;
    }
    // A configured peer must take this small matrix.
    ASSERT_TRUE(p.run) << "no run for an available peer";
    EXPECT_FALSE(starts_with(p.note, "absent:"));
    if (p.impl == "mkl") {
      EXPECT_TRUE(starts_with(p.variant, sizeof(Value) == 8 ? "mkl_sparse_d_mv" : "mkl_sparse_s_mv"));
      EXPECT_NE(p.note.find("threads"), std::string::npos);
    }
    if (!p.unplanned.empty()) {
      bool found = false;
      for (const auto& q : peers)
        found = found || (q.impl == p.impl && q.variant == p.unplanned && q.unplanned.empty() && q.run);
      EXPECT_TRUE(found) << "unplanned '" << p.unplanned << "' is no runnable variant of " << p.impl;
      EXPECT_NE(p.unplanned, p.variant);
    }
    for (int rep = 0; rep < 2; ++rep) {  // the second call must overwrite NaN again
      y.assign(nrows, std::numeric_limits<Value>::quiet_NaN());
      p.run();
      for (std::int32_t i = 0; i < nrows; ++i) {
        const Offset len = row_ptr[i + 1] - row_ptr[i];
        ASSERT_TRUE(std::isfinite(static_cast<double>(y[i]))) << "row " << i;
        ASSERT_TRUE(pspmv::reference::row_matches<Value>(static_cast<double>(y[i]), ref.y[i], ref.scale[i],
                                                         static_cast<double>(len)))
            << "row " << i << " (length " << len << "): got " << y[i] << ", wanted " << ref.y[i];
      }
    }
    ++ran;
  }
  const int expected_ran = (pspmv_peers::eigen_available() ? 1 : 0) + (pspmv_peers::librsb_available() ? 2 : 0) +
                           (pspmv_peers::mkl_available() ? 2 : 0);
  EXPECT_EQ(ran, expected_ran);
}

// nnz beyond 32-bit indices: every configured peer says so in one entry and never touches
// the arrays (they are null here).
TEST(HostPeers, NnzBeyondInt32CannotRun) {
  const std::int64_t nnz = std::int64_t{1} << 31;
  const pspmv_peers::HostCsrView<double, std::int64_t> A{10, 10, nnz, nullptr, nullptr, nullptr};
  const auto peers = pspmv_peers::host_peers(A, static_cast<const double*>(nullptr), static_cast<double*>(nullptr), 1);
  ASSERT_EQ(peers.size(), 3u);  // one entry per impl
  for (const auto& p : peers) {
    SCOPED_TRACE(p.impl + ": " + p.note);
    EXPECT_FALSE(p.run);
    if (impl_available(p.impl)) {
      EXPECT_TRUE(starts_with(p.note, "cannot run: nnz 2147483648 beyond"));
    } else {
      EXPECT_TRUE(starts_with(p.note, "absent:"));
    }
  }
  if (pspmv_peers::mkl_available())
    EXPECT_EQ(peers[2].note, "cannot run: nnz 2147483648 beyond MKL's 32-bit MKL_INT (LP64)");
}

// MKL starts its library on the first sparse call of a process (about 10 ms): the peer does
// that untimed, so that the first matrix's setup is not charged with it (each test runs in a
// process of its own, so here the peer makes the process's first MKL call).
TEST(HostPeers, MklSetupCarriesNoLibraryStartUp) {
  if (!pspmv_peers::mkl_available()) GTEST_SKIP() << "MKL was not found at configure time";
  // A 34 x 34 tridiagonal matrix: its setup is microseconds.
  const std::int32_t n = 34;
  std::vector<std::int32_t> row_ptr{0}, col_idx;
  std::vector<double> values;
  for (std::int32_t i = 0; i < n; ++i) {
    for (std::int32_t j = std::max(0, i - 1); j <= std::min(n - 1, i + 1); ++j) {
      col_idx.push_back(j);
      values.push_back(1.0 + j);
    }
    row_ptr.push_back(static_cast<std::int32_t>(col_idx.size()));
  }
  std::vector<double> x(n, 1.0), y(n);
  const pspmv_peers::HostCsrView<double, std::int32_t> A{n, n, static_cast<std::int64_t>(values.size()),
                                                         row_ptr.data(), col_idx.data(), values.data()};
  const auto first = pspmv_peers::mkl_peers(A, x.data(), y.data(), 100);
  const auto second = pspmv_peers::mkl_peers(A, x.data(), y.data(), 100);
  ASSERT_EQ(first.size(), 2u);
  ASSERT_EQ(second.size(), 2u);
  ASSERT_TRUE(first[0].run) << first[0].note;
  // The start-up is about 10 ms; a setup of this matrix, tens of microseconds either time. The
  // margin (5 ms) leaves room for a busy machine's hiccup and still catches the start-up. Run
  // in a process whose earlier tests called MKL (the test binary run by hand) it cannot fail:
  // ctest runs each test in a process of its own.
  EXPECT_LT(first[0].setup_seconds, second[0].setup_seconds + 5e-3)
      << "the first setup " << first[0].setup_seconds * 1e3 << " ms, the next " << second[0].setup_seconds * 1e3
      << " ms";
}

}  // namespace
