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

// 300 rows of 40 entries, then 3,000 rows of one: blocks of entries, of entries and rows, and of
// masked groups all differ on it.
namespace {
pspmv::HostCsr<double, std::int32_t> long_then_short_rows() {
  return from_rows<double, std::int32_t>(3300, 3300, [](std::int32_t i) {
    std::vector<std::int32_t> cols;
    for (std::int32_t k = 0; k < (i < 300 ? 40 : 1); ++k) cols.push_back((i * 7 + k * 61) % 3300);
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    return cols;
  });
}
}  // namespace

// The partition a plan stores is the weighted one of its choice, on its own storage and on
// storage shared with a plan of another weight (as analyze(space, A, options, like) shares it);
// a weight steers an automatic format and schedule to CSR nnz_balanced, and such a plan
// multiplies correctly.
TEST(NnzPartition, PlansStoreTheirWeightedBlocks) {
  using Exec = Kokkos::DefaultExecutionSpace;
  const auto A = long_then_short_rows();
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

// Blocks of masked groups: a row of len entries costs ceil(len / group) + 1, and block b starts
// at the first row whose cost prefix reaches b x total / blocks (rounded down), by a linear search
// here; empty rows cost 1; a group below 1 is refused.
TEST(GroupPartition, BlocksHaveNearlyEqualGroups) {
  // 300 rows of 40 entries (6 each), 3,000 of one (2 each), 200 empty (1 each), 50 of 9 (3 each).
  std::vector<std::int64_t> rp{0};
  for (int i = 0; i < 300; ++i) rp.push_back(rp.back() + 40);
  for (int i = 0; i < 3000; ++i) rp.push_back(rp.back() + 1);
  for (int i = 0; i < 200; ++i) rp.push_back(rp.back());
  for (int i = 0; i < 50; ++i) rp.push_back(rp.back() + 9);
  const auto nrows = static_cast<std::int32_t>(rp.size() - 1);
  std::vector<std::int64_t> cost{0};
  for (std::int32_t i = 0; i < nrows; ++i) cost.push_back(cost.back() + (rp[i + 1] - rp[i] + 7) / 8 + 1);
  ASSERT_EQ(cost.back(), 300 * 6 + 3000 * 2 + 200 * 1 + 50 * 3);
  for (const std::int64_t nb : {1, 4, 7, 16}) {
    std::vector<std::int32_t> part(static_cast<std::size_t>(nb) + 1);
    pspmv::group_partition(rp.data(), nrows, nb, part.data(), 8);
    EXPECT_EQ(part.front(), 0);
    EXPECT_EQ(part.back(), nrows);
    for (std::int64_t b = 0; b < nb; ++b) {
      ASSERT_LE(part[b], part[b + 1]);
      const double got = static_cast<double>(cost[part[b + 1]] - cost[part[b]]);
      EXPECT_LE(std::fabs(got - static_cast<double>(cost.back()) / nb), 6.0) << nb << " blocks, block " << b;
      if (b > 0) {
        const auto target = static_cast<std::int64_t>(static_cast<long double>(cost.back()) * b / nb);
        std::int32_t i = 0;
        while (i < nrows && cost[i] < target) ++i;
        EXPECT_EQ(part[b], i) << nb << " blocks, block " << b;
      }
    }
  }
  // By entries alone the 3,000 rows of one entry and the empty rows fall into one block of four.
  std::vector<std::int32_t> entries(5), groups(5);
  pspmv::nnz_partition(rp.data(), nrows, 4, entries.data());
  pspmv::group_partition(rp.data(), nrows, 4, groups.data(), 8);
  EXPECT_GE(entries[4] - entries[3], 3000);
  EXPECT_LT(groups[4] - groups[3], 2000);
  std::vector<std::int32_t> none(3);
  pspmv::group_partition(rp.data(), 0, 2, none.data(), 8);
  EXPECT_EQ(none, (std::vector<std::int32_t>{0, 0, 0}));
  EXPECT_THROW(pspmv::group_partition(rp.data(), nrows, 4, groups.data(), 0), pspmv::InvalidArgument);
}

// A host CSR thread_per_row nnz_balanced plan whose rows go in masked groups stores blocks of
// groups unless block_groups is false or a row weight is set (blocks of entries), and blocks of
// entries where its rows do not go in masked groups; on its own storage and on storage shared
// through `like`. block_groups true steers an automatic format, mapping and schedule, and is
// refused where rows do not go in masked groups, with a team mapping, with SELL, with a static
// schedule and with a row weight; each plan multiplies correctly.
TEST(GroupPartition, PlansStoreBlocksOfGroupsWhereRowsGoInMaskedGroups) {
  using Exec = Kokkos::DefaultHostExecutionSpace;
  constexpr bool masked = pspmv::ExecTraits<Exec>::masked_rows;
  const auto A = long_then_short_rows();
  const auto blocks_of = [](const auto& plan) {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.blocks());
    return std::vector<std::int32_t>(h.data(), h.data() + h.extent(0));
  };
  std::vector<std::int32_t> by_groups(5), by_entries(5);
  pspmv::group_partition(A.row_ptr.data(), A.nrows, 4, by_groups.data(), 8);
  pspmv::nnz_partition(A.row_ptr.data(), A.nrows, 4, by_entries.data());
  ASSERT_NE(by_groups, by_entries);  // the cost moves the blocks of this matrix
  pspmv::AnalyzeOptions o;
  o.format = pspmv::Format::csr;
  o.mapping = pspmv::Mapping::thread_per_row;
  o.schedule = pspmv::Schedule::nnz_balanced;
  o.num_blocks = 4;
  const auto plan = pspmv::analyze<Exec>(A, o);
  EXPECT_EQ(plan.launch().block_groups, masked);
  EXPECT_EQ(blocks_of(plan), masked ? by_groups : by_entries);
  EXPECT_EQ(plan.describe().find("group_blocks") != std::string::npos, masked) << plan.describe();
  EXPECT_EQ(plan.reason().find("blocks of nearly equal groups") != std::string::npos, masked) << plan.reason();
  check_multiply<Exec>(A, o, 1.5, 0.5, "blocks of the plan's choice");
  pspmv::AnalyzeOptions e = o;
  e.block_groups = false;
  const auto entries = pspmv::analyze(Exec(), A, e, plan);  // shares plan's matrix, its own blocks
  EXPECT_TRUE(entries.analysis().shares_storage);
  EXPECT_FALSE(entries.launch().block_groups);
  EXPECT_EQ(blocks_of(entries), by_entries);
  check_multiply<Exec>(A, e, -1.0, 0.0, "blocks of entries");
  // A row weight, 0 too, keeps blocks of entries (+ weight x rows).
  for (const std::int64_t weight : {0, 8}) {
    pspmv::AnalyzeOptions w = o;
    w.block_row_weight = weight;
    const auto weighed = pspmv::analyze<Exec>(A, w);
    EXPECT_FALSE(weighed.launch().block_groups) << "weight " << weight;
    std::vector<std::int32_t> by_weight(5);
    pspmv::nnz_partition(A.row_ptr.data(), A.nrows, 4, by_weight.data(), weight);
    EXPECT_EQ(blocks_of(weighed), by_weight) << "weight " << weight;
  }
  pspmv::AnalyzeOptions g = o;
  g.block_groups = true;
  // Refused with a message that names the option.
  const auto refused = [&](const pspmv::AnalyzeOptions& bad, const char* what) {
    try {
      (void)pspmv::analyze<Exec>(A, bad);
      ADD_FAILURE() << what << ": accepted";
    } catch (const pspmv::InvalidArgument& err) {
      EXPECT_NE(std::string(err.what()).find("block_groups"), std::string::npos) << what << ": " << err.what();
    }
  };
  if (masked) {
    const auto groups = pspmv::analyze(Exec(), A, g, entries);
    EXPECT_TRUE(groups.analysis().shares_storage);
    EXPECT_TRUE(groups.launch().block_groups);
    EXPECT_EQ(blocks_of(groups), by_groups);
    EXPECT_NE(groups.describe().find("group_blocks"), std::string::npos) << groups.describe();
    EXPECT_NE(groups.reason().find("blocks of nearly equal groups"), std::string::npos) << groups.reason();
    check_multiply<Exec>(A, g, 0.5, 2.0, "blocks of groups");
    g.block_row_weight = 8;
    refused(g, "with a row weight");
    g.block_row_weight.reset();
    // Left to analyze(), format, mapping and schedule follow block_groups.
    pspmv::AnalyzeOptions steered;
    steered.block_groups = true;
    const auto free = pspmv::analyze<Exec>(A, steered);
    EXPECT_EQ(free.format(), pspmv::Format::csr) << free.reason();
    EXPECT_EQ(free.mapping(), pspmv::Mapping::thread_per_row) << free.reason();
    EXPECT_EQ(free.schedule(), pspmv::Schedule::nnz_balanced) << free.reason();
    EXPECT_TRUE(free.launch().block_groups);
    EXPECT_NE(free.reason().find("block_groups: nnz_balanced"), std::string::npos) << free.reason();
  } else {
    refused(g, "without masked rows");
  }
  g.mapping = pspmv::Mapping::team_per_row;
  refused(g, "team_per_row");
  g.mapping = pspmv::Mapping::thread_per_row;
  g.format = pspmv::Format::sell;
  refused(g, "SELL");
  g.format = pspmv::Format::csr;
  g.schedule = pspmv::Schedule::static_chunks;
  refused(g, "static_chunks");
}
