// Row statistics and the lane-slot model (the lesson's numbers).
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
  EXPECT_EQ(pspmv::detail::best_vector_length<pspmv::ExecTraits<Kokkos::DefaultHostExecutionSpace>>(
                S.row_ptr.data(), S.nrows, 32),
            16);
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

TEST(NnzPartition, BlocksHaveNearlyEqualNnz) {
  auto S = pspmv::generate_skewed<double, std::int64_t>(32 * 100);
  const std::int64_t nb = 7;
  std::vector<std::int32_t> part(nb + 1);
  pspmv::detail::nnz_partition(S.row_ptr.data(), S.nrows, nb, part.data());
  EXPECT_EQ(part.front(), 0);
  EXPECT_EQ(part.back(), S.nrows);
  const double ideal = static_cast<double>(S.nnz()) / nb;
  for (std::int64_t b = 0; b < nb; ++b) {
    EXPECT_LE(part[b], part[b + 1]);
    const double got = static_cast<double>(S.row_ptr(part[b + 1]) - S.row_ptr(part[b]));
    EXPECT_LE(std::fabs(got - ideal), 419.0) << "block " << b;  // off by at most one row
  }
}
