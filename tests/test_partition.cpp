// The nnz-balanced partition of rows into blocks (the nnz_balanced schedule's blocks).
#include "test_util.hpp"

using namespace pspmv_test;

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

// With a row weight w, each block holds nearly equal entries + w x rows (off by at most one
// row's cost), the first row reaching b (nnz + w nrows) / blocks; w = 0 is the partition above.
TEST(NnzPartition, RowWeightBalancesEntriesAndRows) {
  // A run of 3,000 rows of one entry after 300 rows of 40: by entries alone the run is one block.
  std::vector<std::int64_t> rp{0};
  for (int i = 0; i < 300; ++i) rp.push_back(rp.back() + 40);
  for (int i = 0; i < 3000; ++i) rp.push_back(rp.back() + 1);
  const auto nrows = static_cast<std::int32_t>(rp.size() - 1);
  const std::int64_t nb = 4;
  std::vector<std::int32_t> plain(nb + 1), weighed(nb + 1);
  pspmv::nnz_partition(rp.data(), nrows, nb, plain.data());
  pspmv::nnz_partition(rp.data(), nrows, nb, weighed.data(), 0);
  EXPECT_EQ(plain, weighed);
  // 3,750 entries a block: the last one holds the whole run of 3,000 rows.
  EXPECT_GE(plain.back() - plain[nb - 1], 3000);
  for (const std::int64_t w : {1, 8, 40}) {
    pspmv::nnz_partition(rp.data(), nrows, nb, weighed.data(), w);
    EXPECT_EQ(weighed.front(), 0);
    EXPECT_EQ(weighed.back(), nrows);
    const double total = static_cast<double>(rp.back() + w * nrows);
    for (std::int64_t b = 0; b < nb; ++b) {
      ASSERT_LE(weighed[b], weighed[b + 1]);
      const double cost = static_cast<double>(rp[weighed[b + 1]] - rp[weighed[b]] + w * (weighed[b + 1] - weighed[b]));
      EXPECT_LE(std::fabs(cost - total / nb), 40.0 + w) << "w " << w << ", block " << b;
      if (b > 0) {  // the first row reaching the target, by a linear search
        std::int32_t i = 0;
        const auto target = static_cast<std::int64_t>(total * b / nb);  // rounded down, as the entries' target
        while (i < nrows && rp[i] + w * i < target) ++i;
        EXPECT_EQ(weighed[b], i) << "w " << w << ", block " << b;
      }
    }
  }
  EXPECT_THROW(pspmv::nnz_partition(rp.data(), nrows, nb, weighed.data(), -1), pspmv::InvalidArgument);
}

// The partition a plan stores is the weighted one of its choice, on its own storage and on
// storage shared with a plan of another weight (as analyze(space, A, options, like) shares it);
// a weight steers an automatic format and schedule to CSR nnz_balanced, and such a plan
// multiplies correctly.
TEST(NnzPartition, PlansStoreTheirWeightedBlocks) {
  using Exec = Kokkos::DefaultExecutionSpace;
  const auto A = from_rows<double, std::int32_t>(3300, 3300, [](std::int32_t i) {
    std::vector<std::int32_t> cols;
    for (std::int32_t k = 0; k < (i < 300 ? 40 : 1); ++k) cols.push_back((i * 7 + k * 61) % 3300);
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    return cols;
  });
  const auto stored = [](const auto& st) {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.partition);
    return std::vector<std::int32_t>(h.data(), h.data() + h.extent(0));
  };
  const auto expected = [&](std::int64_t w) {
    std::vector<std::int32_t> part(5);
    pspmv::nnz_partition(A.row_ptr.data(), A.nrows, 4, part.data(), w);
    return part;
  };
  ASSERT_NE(expected(0), expected(8));  // the weight moves the blocks of this matrix
  pspmv::PlanChoice weighed;
  weighed.schedule = pspmv::Schedule::nnz_balanced;
  weighed.launch.num_blocks = 4;
  weighed.launch.block_row_weight = 8;
  pspmv::PlanChoice plain = weighed;
  plain.launch.block_row_weight = 0;
  const auto own = pspmv::detail::build_storage(Exec(), A, weighed);
  EXPECT_EQ(stored(own), expected(8));
  const auto shared = pspmv::detail::build_storage(Exec(), A, plain, nullptr, nullptr, &own, &weighed, false);
  EXPECT_EQ(shared.csr.values.data(), own.csr.values.data());  // the matrix shared, the blocks its own
  EXPECT_EQ(stored(shared), expected(0));
  // A plan of that weight, through analyze() and its `like`.
  pspmv::AnalyzeOptions o;
  o.num_blocks = 4;
  o.block_row_weight = 8;
  const auto plan = pspmv::analyze<Exec>(A, o);
  EXPECT_EQ(plan.format(), pspmv::Format::csr) << plan.reason();
  EXPECT_EQ(plan.schedule(), pspmv::Schedule::nnz_balanced) << plan.reason();
  EXPECT_NE(plan.reason().find("block_row_weight: nnz_balanced"), std::string::npos) << plan.reason();
  EXPECT_EQ(plan.launch().block_row_weight, 8);
  check_multiply<Exec>(A, o, 1.5, 0.5, "block_row_weight 8");
  check_multiply<Exec>(A, o, -1.0, 0.0, "block_row_weight 8, beta 0");
  o.block_row_weight = 0;
  EXPECT_EQ(pspmv::analyze(Exec(), A, o, plan).launch().block_row_weight, 0);
}
