// CSR matrices: COO -> CSR conversion, validation of every invariant, conversion between
// value and offset types, and the offset width (64-bit offsets beyond 2^31 entries).
#include "test_util.hpp"

namespace {

pspmv::CooMatrix<double> coo(std::int64_t m, std::int64_t n,
                             std::vector<std::tuple<std::int64_t, std::int64_t, double>> e) {
  pspmv::CooMatrix<double> c;
  c.nrows = m;
  c.ncols = n;
  for (auto& [i, j, v] : e) {
    c.row.push_back(i);
    c.col.push_back(j);
    c.values.push_back(v);
  }
  return c;
}

}  // namespace

TEST(CooToCsr, SortsColumnsAndSumsDuplicates) {
  auto A = pspmv::coo_to_csr<double>(
      coo(3, 4, {{2, 3, 1.0}, {0, 2, 2.0}, {0, 0, 3.0}, {2, 3, 4.0}, {0, 2, -1.0}, {2, 0, 5.0}, {0, 1, 0.0}}));
  ASSERT_EQ(A.nrows, 3);
  ASSERT_EQ(A.ncols, 4);
  ASSERT_EQ(A.nnz(), 5);  // (0,2) and (2,3) merged; the explicit zero (0,1) is kept
  std::vector<std::int64_t> rp(A.row_ptr.data(), A.row_ptr.data() + 4);
  EXPECT_EQ(rp, (std::vector<std::int64_t>{0, 3, 3, 5}));
  std::vector<std::int32_t> ci(A.col_idx.data(), A.col_idx.data() + 5);
  EXPECT_EQ(ci, (std::vector<std::int32_t>{0, 1, 2, 0, 3}));
  std::vector<double> v(A.values.data(), A.values.data() + 5);
  EXPECT_EQ(v, (std::vector<double>{3.0, 0.0, 1.0, 5.0, 5.0}));
}

TEST(CooToCsr, RejectsOutOfRangeAndOverflow) {
  EXPECT_THROW(pspmv::coo_to_csr<double>(coo(2, 2, {{2, 0, 1.0}})), pspmv::InvalidArgument);
  EXPECT_THROW(pspmv::coo_to_csr<double>(coo(2, 2, {{0, -1, 1.0}})), pspmv::InvalidArgument);
  EXPECT_THROW(pspmv::coo_to_csr<float>(coo(2, 2, {{0, 0, 1e300}})), pspmv::InvalidArgument);
  EXPECT_NO_THROW(pspmv::coo_to_csr<double>(coo(2, 2, {{0, 0, 1e300}})));
  EXPECT_THROW(pspmv::coo_to_csr<double>(coo(std::int64_t{1} << 31, 2, {})), pspmv::InvalidArgument);
}

TEST(Validate, CatchesEveryBrokenInvariant) {
  using V = std::vector<double>;
  using R = std::vector<std::int64_t>;
  using C = std::vector<std::int32_t>;
  EXPECT_NO_THROW((pspmv::make_csr<double, std::int64_t>(2, 3, R{0, 1, 2}, C{0, 2}, V{1, 2})));
  // row_ptr[0] != 0
  EXPECT_THROW((pspmv::make_csr<double, std::int64_t>(2, 3, R{1, 1, 2}, C{0, 2}, V{1, 2})), pspmv::InvalidMatrix);
  // decreasing
  EXPECT_THROW((pspmv::make_csr<double, std::int64_t>(2, 3, R{0, 2, 1}, C{0, 2}, V{1, 2})), pspmv::InvalidMatrix);
  // does not end at nnz
  EXPECT_THROW((pspmv::make_csr<double, std::int64_t>(2, 3, R{0, 1, 1}, C{0, 2}, V{1, 2})), pspmv::DimensionError);
  // column out of range, and negative
  EXPECT_THROW((pspmv::make_csr<double, std::int64_t>(2, 3, R{0, 1, 2}, C{0, 3}, V{1, 2})), pspmv::InvalidMatrix);
  EXPECT_THROW((pspmv::make_csr<double, std::int64_t>(2, 3, R{0, 1, 2}, C{-1, 0}, V{1, 2})), pspmv::InvalidMatrix);
  // sizes disagree
  EXPECT_THROW((pspmv::make_csr<double, std::int64_t>(3, 3, R{0, 1, 2}, C{0, 1}, V{1, 2})), pspmv::DimensionError);
  EXPECT_THROW((pspmv::make_csr<double, std::int64_t>(2, 3, R{0, 1, 2}, C{0, 1}, V{1})), pspmv::DimensionError);
  try {
    pspmv::make_csr<double, std::int64_t>(2, 3, R{0, 1, 2}, C{0, 7}, V{1, 2});
    FAIL() << "no throw";
  } catch (const pspmv::InvalidMatrix& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("column index 7 of row 1"), std::string::npos) << w;
  }
}

TEST(Convert, OffsetAndValueRange) {
  auto A = pspmv::generate_even<double, std::int64_t>(64, 4);
  auto B = pspmv::convert<float, std::int32_t>(A);
  ASSERT_EQ(B.nnz(), A.nnz());
  for (std::int32_t i = 0; i <= A.nrows; ++i) EXPECT_EQ(B.row_ptr(i), A.row_ptr(i));
  for (std::int64_t k = 0; k < A.nnz(); ++k) EXPECT_EQ(B.values(k), static_cast<float>(A.values(k)));
  // Same value type: the values are shared, only the offsets converted.
  const auto D = pspmv::convert<double, std::int32_t>(A);
  EXPECT_EQ(D.values.data(), A.values.data());
  for (std::int32_t i = 0; i <= A.nrows; ++i) EXPECT_EQ(D.row_ptr(i), A.row_ptr(i));
  A.values(5) = 1e200;
  A.values(A.nnz() - 1) = -1e300;
  try {
    (void)pspmv::convert<float, std::int32_t>(A);
    ADD_FAILURE() << "no throw";
  } catch (const pspmv::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("of entry 5 overflows float"), std::string::npos) << e.what();
  }
}

// The parallel conversion over many pieces of entries: every value and offset.
TEST(Convert, LargeMatrixInParallel) {
  const auto A = pspmv::generate_random<double, std::int64_t>(200003, 5000, 3.0, 4);
  const auto B = pspmv::convert<float, std::int32_t>(A);
  ASSERT_EQ(B.nnz(), A.nnz());
  for (std::int32_t i = 0; i <= A.nrows; ++i) ASSERT_EQ(B.row_ptr(i), A.row_ptr(i)) << i;
  for (std::int64_t k = 0; k < A.nnz(); ++k) ASSERT_EQ(B.values(k), static_cast<float>(A.values(k))) << k;
}

// 64-bit offsets, by arithmetic on row_ptr alone: nothing below allocates the billions of
// entries it describes (the H200 run of perf/results holds a real matrix beyond 2^31).
TEST(Offsets, WidthIsChosenFromTheEntryCount) {
  EXPECT_EQ(pspmv::offset_bits_for(0), 32);
  EXPECT_EQ(pspmv::offset_bits_for(2147483647), 32);
  EXPECT_EQ(pspmv::offset_bits_for(2147483648LL), 64);
  EXPECT_EQ(pspmv::offset_bits_for(5000000000LL), 64);
  EXPECT_NO_THROW(pspmv::check_offset_fits<std::int32_t>(2147483647));
  EXPECT_NO_THROW(pspmv::check_offset_fits<std::int64_t>(2147483648LL));
  try {
    pspmv::check_offset_fits<std::int32_t>(2147483648LL, "SELL stored entries");
    ADD_FAILURE() << "no error for 2^31 entries with 32-bit offsets";
  } catch (const pspmv::InvalidArgument& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("SELL stored entries = 2147483648"), std::string::npos) << w;
    EXPECT_NE(w.find("32-bit"), std::string::npos) << w;
  }
}

TEST(Offsets, RowStatisticsPartitionAndSellShapeBeyond2To31) {
  // 1000 rows of 3,000,000 entries (nnz 3e9) and 24 rows of 1: only row_ptr exists.
  const std::int32_t nrows = 1024;
  std::vector<std::int64_t> rp(nrows + 1, 0);
  for (std::int32_t i = 0; i < nrows; ++i) rp[i + 1] = rp[i] + (i < 1000 ? 3000000 : 1);
  const std::int64_t nnz = rp[nrows];
  ASSERT_EQ(nnz, 3000000024LL);
  EXPECT_EQ(pspmv::offset_bits_for(nnz), 64);
  const auto s = pspmv::compute_row_stats(rp.data(), nrows, 1 << 30);
  EXPECT_EQ(s.nnz, nnz);
  EXPECT_EQ(s.max_len, 3000000);
  EXPECT_EQ(s.min_len, 1);
  // Lane-slots at width 32: 32 rows of a warp run as long as their longest.
  const auto ls = pspmv::compute_lane_slots(rp.data(), nrows, 32);
  EXPECT_EQ(ls.thread_per_row, 31LL * 32 * 3000000 + 32LL * 3000000);  // 31 full warps + the mixed one
  // nnz-balanced blocks of about 750 rows of 3e6 entries each (no 32-bit wrap).
  std::vector<std::int32_t> part(5);
  pspmv::nnz_partition(rp.data(), nrows, 4, part.data());
  EXPECT_EQ(part, (std::vector<std::int32_t>{0, 251, 501, 751, nrows}));  // first row reaching b * nnz / 4
  // SELL-32 with sorting: 32 slices of 3e6 columns and the short rows in the last one.
  const auto shape = pspmv::sell_shape(rp.data(), nrows, 32, nrows, 0);
  EXPECT_EQ(shape.nslices, 32);
  EXPECT_EQ(shape.stored, 32LL * 3000000 * 32);  // slice 31 holds rows 992-999 (3e6) and 24 short rows
  EXPECT_EQ(pspmv::offset_bits_for(shape.stored), 64);
  EXPECT_THROW(pspmv::check_offset_fits<std::int32_t>(shape.stored, "SELL stored entries"), pspmv::InvalidArgument);
}
