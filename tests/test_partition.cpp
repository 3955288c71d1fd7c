// The nnz-balanced partition of rows into blocks (the nnz_balanced schedule's blocks).
#include "test_util.hpp"

TEST(NnzPartition, BlocksHaveNearlyEqualNnz) {
  auto S = pspmv::generate_skewed<double, std::int64_t>(32 * 100);
  const std::int64_t nb = 7;
  std::vector<std::int32_t> part(nb + 1);
  pspmv::nnz_partition(S.row_ptr.data(), S.nrows, nb, part.data());
  EXPECT_EQ(part.front(), 0);
  EXPECT_EQ(part.back(), S.nrows);
  const double ideal = static_cast<double>(S.nnz()) / nb;
  for (std::int64_t b = 0; b < nb; ++b) {
    EXPECT_LE(part[b], part[b + 1]);
    const double got = static_cast<double>(S.row_ptr(part[b + 1]) - S.row_ptr(part[b]));
    EXPECT_LE(std::fabs(got - ideal), 419.0) << "block " << b;  // off by at most one row
  }
}
