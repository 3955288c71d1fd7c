// SELL-C-sigma: the shape (stored entries, padding, long rows and their pieces) against the
// built matrix, the sorted rows' positions (keep_permuted), padding never read, and the
// options SELL requires.
#include "test_util.hpp"

using namespace pspmv_test;

namespace {

template <class Cfg>
class SellTest : public ConfigTest<Cfg> {};

TYPED_TEST_SUITE(SellTest, Configs, ConfigNames);

}  // namespace

TYPED_TEST(SellTest, SellRowsLandWhereTheyBelong) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  // Distinct row lengths in scrambled order: sorting moves almost every row.
  const std::int32_t n = 1000;
  auto A = from_rows<V, O>(n, n, [&](std::int32_t i) {
    std::vector<std::int32_t> c;
    const std::int32_t len = (i * 37) % 61;
    for (std::int32_t k = 0; k < len; ++k) c.push_back((i + 7 * k) % n);
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  });
  for (int C : {4, 8, 16, 32, 64}) {
    pspmv::AnalyzeOptions opt;
    opt.format = pspmv::Format::sell;
    opt.slice_height = C;
    opt.sigma = n;
    opt.sell_long_row = C == 16 ? 40 : 0;  // C = 16: rows longer than 40 leave the slices
    this->check(A, opt, 1.0, 0.0, "caller order, C=" + std::to_string(C));
    // keep_permuted: y(p) holds row perm(p).
    opt.keep_permuted = true;
    auto plan = pspmv::analyze<Exec>(A, opt);
    EXPECT_GT(plan.padding_ratio(), 1.0);
    typename TestFixture::PlanT::vector_type x("x", n), y("y", n);
    Kokkos::deep_copy(x, V(1));
    plan.multiply(V(1), x, V(0), y);
    auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    auto hp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.permutation());
    std::vector<bool> seen(n, false);
    for (std::int32_t p = 0; p < n; ++p) {
      const std::int32_t i = hp(p);
      ASSERT_TRUE(i >= 0 && i < n && !seen[i]) << "perm is not a permutation at " << p;
      seen[i] = true;
      double want = 0;
      for (auto k = A.row_ptr(i); k < A.row_ptr(i + 1); ++k) want += static_cast<double>(A.values(k));
      const double len = static_cast<double>(A.row_ptr(i + 1) - A.row_ptr(i));
      ASSERT_NEAR(static_cast<double>(hy(p)), want, 8 * std::numeric_limits<V>::epsilon() * (len + 1) * (std::fabs(want) + len))
          << "permuted position " << p << " (row " << i << ", length " << len << ")";
      if (p > 0 && (p % C) != 0) {  // sorted within the window: lengths non-increasing
        const auto prev = hp(p - 1);
        EXPECT_GE(A.row_ptr(prev + 1) - A.row_ptr(prev), A.row_ptr(i + 1) - A.row_ptr(i));
      }
    }
  }
}

TYPED_TEST(SellTest, SellPaddingIsNeverRead) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  // Padding entries are stored as column 0; with x(0) = Inf a kernel that read padding
  // would turn rows without column 0 into NaN (0 * Inf).
  const std::int32_t n = 256;
  auto A = from_rows<V, O>(n, n, [&](std::int32_t i) {
    std::vector<std::int32_t> c;
    for (std::int32_t k = 0; k < 1 + (i * 7) % 13; ++k) c.push_back(1 + (i + k) % (n - 1));
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  });
  // 4, 8 and 16: the host slice kernel's constant heights; 32: the height read at run time.
  for (int C : {4, 8, 16, 32}) {
    pspmv::AnalyzeOptions opt;
    opt.format = pspmv::Format::sell;
    opt.slice_height = C;
    opt.sigma = 1;
    for (auto m : pspmv::all_mappings) {
      opt.mapping = m;
      auto plan = pspmv::analyze<Exec>(A, opt);
      ASSERT_GT(plan.padding_ratio(), 1.0);
      typename TestFixture::PlanT::vector_type x("x", n), y("y", n);
      Kokkos::deep_copy(x, V(1));
      Kokkos::deep_copy(Kokkos::subview(x, std::make_pair(0, 1)), std::numeric_limits<V>::infinity());
      plan.multiply(V(1), x, V(0), y);
      auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
      for (std::int32_t i = 0; i < n; ++i) ASSERT_TRUE(std::isfinite(static_cast<double>(hy(i)))) << "row " << i;
    }
  }
}

TYPED_TEST(SellTest, KeepPermutedNeedsSell) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  auto A = pspmv::generate_random<V, O>(300, 300, 5.0, 4);
  pspmv::AnalyzeOptions opt;
  opt.keep_permuted = true;
  EXPECT_EQ(pspmv::analyze<Exec>(A, opt).format(), pspmv::Format::sell);
  opt.format = pspmv::Format::csr;
  EXPECT_THROW(pspmv::analyze<Exec>(A, opt), pspmv::InvalidArgument);
  // A piece of a split long row has no position of its own in y.
  opt.format = pspmv::Format::sell;
  opt.sell_long_row = 4;
  opt.sell_long_split = true;
  EXPECT_THROW(pspmv::analyze<Exec>(A, opt), pspmv::InvalidArgument);
  opt.sell_long_split.reset();
  EXPECT_FALSE(pspmv::analyze<Exec>(A, opt).launch().long_split) << "keep_permuted keeps long rows whole";
}


TEST(SellShape, LessonSkewedPaddingAndLaneSlots) {
  auto S = pspmv::generate_skewed<float, std::int64_t>(524288);
  auto sorted = pspmv::sell_shape(S.row_ptr.data(), S.nrows, 32, 524288);
  EXPECT_EQ(sorted.stored, 8388608);
  EXPECT_NEAR(sorted.padding, 1.00, 1e-12);
  auto unsorted = pspmv::sell_shape(S.row_ptr.data(), S.nrows, 32, 1);
  EXPECT_EQ(unsorted.stored, 219676672);
  EXPECT_NEAR(unsorted.padding, 26.19, 0.005);
  // The built matrix agrees with the shape.
  auto small = pspmv::generate_skewed<double, std::int64_t>(4096);
  for (std::int64_t sigma : {1, 32, 256, 4096}) {
    for (std::int64_t long_row : {0, 64}) {
      for (const bool split : {false, true}) {
        auto M = pspmv::csr_to_sell(small, 32, sigma, long_row, split);
        const auto shape = pspmv::sell_shape(small.row_ptr.data(), small.nrows, 32, sigma, long_row, split);
        EXPECT_EQ(M.stored(), shape.stored);
        EXPECT_EQ(M.nnz, small.nnz());
        EXPECT_EQ(M.nlong(), long_row > 0 ? small.nrows / 32 : 0);  // the 419-entry rows
        // Split: each 419-entry row becomes 7 pieces (6 of 64, one of 35), inside the slices.
        EXPECT_EQ(M.npieces(), long_row > 0 && split ? 7 * small.nrows / 32 : 0);
        EXPECT_EQ(shape.pieces, M.npieces());
        EXPECT_EQ(M.npos, small.nrows + M.npieces());
        EXPECT_EQ(M.long_values.extent(0), long_row > 0 && !split ? 419u * (small.nrows / 32) : 0u);
      }
    }
  }
  // Sorted, the pieces nearly fill their slices: 7 pieces per long row (6 of 64 entries, one
  // of 35) sort into slices of 64s and slices of 35s; only the slice where a window's 64s end
  // mixes both (1.007 here).
  const auto split = pspmv::sell_shape(S.row_ptr.data(), S.nrows, 32, 1024, 64, true);
  EXPECT_EQ(split.pieces, 7 * 16384);
  EXPECT_EQ(split.long_rows, 16384);
  EXPECT_GT(split.padding, 1.0);
  EXPECT_LT(split.padding, 1.01);
  // With the long rows out, unsorted skewed SELL-32 pads only the long row's lane (3 entries
  // per slice of 32 rows), and sorted it pads nothing.
  EXPECT_EQ(pspmv::sell_shape(S.row_ptr.data(), S.nrows, 32, 1, 64).stored, 8388608 + 16384 * 3);
  EXPECT_EQ(pspmv::sell_shape(S.row_ptr.data(), S.nrows, 32, 1024, 64).stored, 8388608);
}
