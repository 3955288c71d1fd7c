// The generators: the lesson's even/skewed pair (and tiled copies), the 7- and 27-point
// stencils, and R-MAT graphs.
#include "test_util.hpp"

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
