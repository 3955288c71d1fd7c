// CsrMatrix validation, COO -> CSR conversion and type conversion.
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
  A.values(5) = 1e200;
  EXPECT_THROW((pspmv::convert<float, std::int32_t>(A)), pspmv::InvalidArgument);
}

TEST(Generators, LessonPairHasEqualNnzAndTheRightShape) {
  auto E = pspmv::generate_even<double>(1024);
  auto S = pspmv::generate_skewed<double>(1024);
  EXPECT_EQ(E.nnz(), 16 * 1024);
  EXPECT_EQ(S.nnz(), E.nnz());
  EXPECT_EQ(S.row_ptr(1) - S.row_ptr(0), 419);
  EXPECT_EQ(S.row_ptr(2) - S.row_ptr(1), 3);
  EXPECT_EQ(S.row_ptr(33) - S.row_ptr(32), 419);
  // Columns consecutive from the diagonal, wrapping, stored sorted.
  EXPECT_EQ(E.col_idx(E.row_ptr(5)), 5);
  EXPECT_EQ(E.col_idx(E.row_ptr(1023)), 0);  // row 1023 wraps: columns 0..14 then 1023
  EXPECT_EQ(E.col_idx(E.row_ptr(1024) - 1), 1023);
  EXPECT_NO_THROW(pspmv::validate(E));
  EXPECT_NO_THROW(pspmv::validate(S));
  EXPECT_THROW(pspmv::generate_skewed<double>(1000), pspmv::InvalidArgument);
  EXPECT_THROW(pspmv::generate_even<double>(8), pspmv::InvalidArgument);
  // nnz beyond a 32-bit offset is refused, not wrapped (computed before any allocation).
  EXPECT_THROW((pspmv::generate_even<float, std::int32_t>(200000000, 16)), pspmv::InvalidArgument);
  auto T = pspmv::generate_tiled<double, std::int64_t>(S, 3);
  EXPECT_EQ(T.nnz(), 3 * S.nnz());
  EXPECT_EQ(T.nrows, 3 * 1024);
  EXPECT_NO_THROW(pspmv::validate(T));
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

TEST(Fingerprint, ChangesWithAnyEntryIndexOrDimension) {
  auto A = pspmv::generate_random<double, std::int64_t>(300, 200, 7.0, 5);
  const std::uint64_t f0 = pspmv::fingerprint(A);
  EXPECT_EQ(pspmv::fingerprint(A), f0);
  auto B = pspmv::generate_random<double, std::int64_t>(300, 200, 7.0, 5);
  EXPECT_EQ(pspmv::fingerprint(B), f0) << "equal matrices, equal fingerprints";
  for (std::int64_t k : {std::int64_t{0}, A.nnz() / 2, A.nnz() - 1}) {
    const double v = A.values(k);
    A.values(k) = std::nextafter(v, 1e300);  // one ulp
    EXPECT_NE(pspmv::fingerprint(A), f0) << "value " << k;
    A.values(k) = v;
    const std::int32_t c = A.col_idx(k);
    A.col_idx(k) = c == 0 ? 1 : c - 1;
    EXPECT_NE(pspmv::fingerprint(A), f0) << "column " << k;
    A.col_idx(k) = c;
  }
  EXPECT_EQ(pspmv::fingerprint(A), f0);
  A.ncols += 1;
  EXPECT_NE(pspmv::fingerprint(A), f0) << "ncols";
}

TEST(Generators, StencilsHaveTheirClosedFormNnzAndZeroInteriorRowSums) {
  for (int points : {7, 27}) {
    auto A = pspmv::generate_stencil<double, std::int64_t>(3, 4, 5, points);
    ASSERT_EQ(A.nrows, 60);
    EXPECT_NO_THROW(pspmv::validate(A));
    // 7-point: n + 2 (faces between neighbours); 27-point: prod over dims of (3 n_d - 2).
    const std::int64_t want = points == 7 ? 60 + 2 * (2 * 4 * 5 + 3 * 3 * 5 + 3 * 4 * 4) : 7 * 10 * 13;
    EXPECT_EQ(static_cast<std::int64_t>(A.nnz()), want) << points;
    const auto s = pspmv::compute_row_stats(A.row_ptr.data(), A.nrows, A.ncols);
    EXPECT_EQ(s.max_len, points) << "an interior point has every neighbour";
    EXPECT_EQ(s.min_len, points == 7 ? 4 : 8) << "a corner";
    // Interior row (1, 1, 1) -> 1 + 3 (1 + 4 * 1) = 16: its row sums to zero (Laplacian).
    double sum = 0;
    for (auto k = A.row_ptr(16); k < A.row_ptr(17); ++k) sum += A.values(k);
    EXPECT_EQ(sum, 0.0);
    for (std::int32_t i = 0; i < A.nrows; ++i)
      for (auto k = A.row_ptr(i) + 1; k < A.row_ptr(i + 1); ++k) EXPECT_LT(A.col_idx(k - 1), A.col_idx(k));
  }
  EXPECT_THROW((pspmv::generate_stencil<double, std::int64_t>(4, 4, 4, 9)), pspmv::InvalidArgument);
  EXPECT_THROW((pspmv::generate_stencil<double, std::int64_t>(2000, 2000, 2000, 7)), pspmv::InvalidArgument);
}

TEST(Generators, RmatIsDeterministicSkewedAndWithinBounds) {
  auto A = pspmv::generate_rmat<double, std::int64_t>(12, 16, 7);
  auto B = pspmv::generate_rmat<double, std::int64_t>(12, 16, 7);
  auto C = pspmv::generate_rmat<double, std::int64_t>(12, 16, 8);
  ASSERT_EQ(A.nrows, 4096);
  EXPECT_NO_THROW(pspmv::validate(A));
  EXPECT_EQ(pspmv::fingerprint(A), pspmv::fingerprint(B)) << "same seed, same graph";
  EXPECT_NE(pspmv::fingerprint(A), pspmv::fingerprint(C));
  EXPECT_LE(static_cast<std::int64_t>(A.nnz()), 16 * 4096);  // duplicates are summed
  EXPECT_GT(static_cast<std::int64_t>(A.nnz()), 8 * 4096);
  const auto s = pspmv::compute_row_stats(A.row_ptr.data(), A.nrows, A.ncols);
  // A power law: the largest row is many times the mean, many rows are empty, cv well above 1.
  EXPECT_GT(static_cast<double>(s.max_len), 20.0 * s.mean);
  EXPECT_GT(s.empty_rows, 100);
  EXPECT_GT(s.cv, 1.5);
  // The permutation spreads the heavy vertices: the longest row is not among the first 16.
  std::int32_t longest = 0;
  for (std::int32_t i = 1; i < A.nrows; ++i)
    if (A.row_ptr(i + 1) - A.row_ptr(i) > A.row_ptr(longest + 1) - A.row_ptr(longest)) longest = i;
  EXPECT_GT(longest, 15);
  EXPECT_THROW((pspmv::generate_rmat<double, std::int64_t>(0)), pspmv::InvalidArgument);
  EXPECT_THROW((pspmv::generate_rmat<double, std::int64_t>(10, 16, 1, 0.6, 0.3, 0.3)), pspmv::InvalidArgument);
}
