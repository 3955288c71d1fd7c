// Row statistics (moments, histogram, empty rows, column spread) and the lane-slot model
// (the lesson's numbers, team-per-row at each vector length).
#include "test_util.hpp"

TEST(LaneSlots, LessonPairAt524288Rows) {
  auto S = pspmv::generate_skewed<float, std::int64_t>(524288);
  auto ls = pspmv::compute_lane_slots(S.row_ptr.data(), S.nrows, 32);
  EXPECT_EQ(ls.thread_per_row, 219676672);  // 16384 groups * 32 lanes * 419
  EXPECT_EQ(ls.team_per_row, 16384LL * (31 * 32 + 14 * 32));
  auto E = pspmv::generate_even<float, std::int64_t>(524288);
  auto le = pspmv::compute_lane_slots(E.row_ptr.data(), E.nrows, 32);
  EXPECT_EQ(le.thread_per_row, 524288LL * 16);
  EXPECT_DOUBLE_EQ(le.useful_thread_per_row, 1.0);
  EXPECT_EQ(le.team_per_row, 524288LL * 32);
  EXPECT_DOUBLE_EQ(le.useful_team_per_row, 0.5);
}

TEST(LaneSlots, TeamPerRowAtEachVectorLength) {
  auto S = pspmv::generate_skewed<float, std::int64_t>(524288);
  EXPECT_EQ(pspmv::team_lane_slots(S.row_ptr.data(), S.nrows, 32), 23592960);  // = warp-per-row
  EXPECT_EQ(pspmv::team_lane_slots(S.row_ptr.data(), S.nrows, 16), 16384LL * (27 * 32 + 15 * 32));
  EXPECT_EQ(pspmv::team_lane_slots(S.row_ptr.data(), S.nrows, 1), 219676672);  // = thread-per-row
  auto E = pspmv::generate_even<float, std::int64_t>(524288);
  EXPECT_EQ(pspmv::team_lane_slots(E.row_ptr.data(), E.nrows, 16), 8388608);
  pspmv::LaneSlots counted_apart;  // no counts of the statistics pass: passes over row_ptr
  counted_apart.lane_width = 32;
  EXPECT_EQ(pspmv::best_vector_length<pspmv::ExecTraits<Kokkos::DefaultHostExecutionSpace>>(S.row_ptr.data(), S.nrows,
                                                                                            counted_apart),
            16);
  const auto facts = pspmv::matrix_facts(S, 32, false, false, 0, true);
  ASSERT_TRUE(facts.lane_slots.vector_slots);
  EXPECT_EQ(pspmv::best_vector_length<pspmv::ExecTraits<Kokkos::DefaultHostExecutionSpace>>(
                static_cast<const std::int64_t*>(nullptr), S.nrows, facts.lane_slots),
            16);
}

// The statistics pass counts team_lane_slots at every vector length in its one pass over
// row_ptr: equal to the pass of its own, on the lesson's pair, a ragged random matrix whose
// last warps are partial (rows not a multiple of 32), one row, and lane widths 32, 16 and 8.
TEST(LaneSlots, StatisticsPassCountsEachVectorLength) {
  std::vector<pspmv::CsrMatrix<double, std::int64_t>> inputs;
  inputs.push_back(pspmv::generate_skewed<double, std::int64_t>(524288));
  inputs.push_back(pspmv::generate_even<double, std::int64_t>(65536));
  inputs.push_back(pspmv::generate_random<double, std::int64_t>(100003, 100003, 9.0, 5));
  inputs.push_back(pspmv::make_csr<double, std::int64_t>(1, 4, {0, 3}, {0, 1, 3}, {1.0, 2.0, 3.0}));
  for (const auto& A : inputs)
    for (const int W : {32, 16, 8}) {
      const auto facts = pspmv::matrix_facts(A, W, false, false, 0, true);
      ASSERT_TRUE(facts.lane_slots.vector_slots);
      for (int e = 0, V = 2; e < 5; ++e, V *= 2)
        EXPECT_EQ(facts.lane_slots.team_at_vector[e], V <= W ? pspmv::team_lane_slots(A.row_ptr.data(), A.nrows, V, W) : 0)
            << A.nrows << " rows, W = " << W << ", V = " << V;
    }
  // Not asked for, or a lane width that is no power of two: not counted.
  EXPECT_FALSE(pspmv::matrix_facts(inputs[0], 32, false).lane_slots.vector_slots);
  EXPECT_FALSE(pspmv::matrix_facts(inputs[0], 24, false, false, 0, true).lane_slots.vector_slots);
}

TEST(RowStats, MomentsHistogramAndEmptyRows) {
  std::vector<std::int64_t> rp{0, 0, 1, 3, 3, 7, 15};  // lengths 0 1 2 0 4 8
  auto s = pspmv::compute_row_stats(rp.data(), 6, 10);
  EXPECT_EQ(s.nnz, 15);
  EXPECT_EQ(s.min_len, 0);
  EXPECT_EQ(s.max_len, 8);
  EXPECT_EQ(s.empty_rows, 2);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(s.stddev, std::sqrt((0 + 1 + 4 + 0 + 16 + 64) / 6.0 - 6.25), 1e-12);
  ASSERT_EQ(s.histogram.size(), 5u);
  EXPECT_EQ(s.histogram, (std::vector<std::int64_t>{2, 1, 1, 1, 1}));
  EXPECT_EQ(pspmv::RowStats::bucket_label(3), "4-7");
  auto z = pspmv::compute_row_stats(rp.data(), 0, 0);
  EXPECT_EQ(z.nnz, 0);
}

TEST(RowStats, ColumnSpread) {
  // 2 x 4: row 0 has columns 0 and 3, row 1 column 2. |0 - 0| + |3/4 - 0| + |2/4 - 1/2| over 3.
  std::vector<std::int64_t> rp{0, 2, 3};
  std::vector<std::int32_t> ci{0, 3, 2};
  EXPECT_DOUBLE_EQ(pspmv::column_spread(rp.data(), ci.data(), 2, 4), 0.75 / 3);
  std::vector<std::int64_t> none{0, 0, 0};
  EXPECT_EQ(pspmv::column_spread(none.data(), ci.data(), 2, 4), 0.0);
  // A banded matrix sits near the diagonal; uniformly random columns average about 1/3.
  auto E = pspmv::generate_even<double, std::int64_t>(100000);
  EXPECT_LT(pspmv::column_spread(E.row_ptr.data(), E.col_idx.data(), E.nrows, E.ncols), 1e-3);
  auto R = pspmv::generate_random<double, std::int64_t>(100000, 100000, 8.0, 3);
  EXPECT_NEAR(pspmv::column_spread(R.row_ptr.data(), R.col_idx.data(), R.nrows, R.ncols), 1.0 / 3, 0.01);
}
