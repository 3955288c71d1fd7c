// The model's choices for each execution space (format, mapping, schedule, launch sizes)
// and the reasons it gives: the defaults by row statistics, the memory limit of SELL, the
// rules that follow the size of the space, and the options a caller forces or gets refused.
#include "test_util.hpp"

using namespace pspmv_test;

namespace {

template <class Cfg>
class SelectTest : public ConfigTest<Cfg> {};

TYPED_TEST_SUITE(SelectTest, Configs, ConfigNames);

}  // namespace

TYPED_TEST(SelectTest, PlanRecordsItsChoices) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  auto A = pspmv::generate_skewed<V, O>(2048);
  auto plan = pspmv::analyze<Exec>(A);
  EXPECT_GT(plan.analyze_seconds(), 0.0);
  EXPECT_EQ(plan.row_stats().nnz, 16 * 2048);
  EXPECT_EQ(plan.row_stats().max_len, 419);
  EXPECT_FALSE(plan.reason().empty());
  // Skewed rows (cv ~ 4.5) get the nnz-balanced schedule by default on a host of two threads or
  // more; a GPU schedules its blocks itself, and one thread has nothing to balance.
  EXPECT_EQ(plan.schedule(), pspmv::ExecTraits<Exec>::is_gpu || Exec().concurrency() < 2
                                 ? pspmv::Schedule::static_chunks
                                 : pspmv::Schedule::nnz_balanced)
      << plan.reason();
  // On a GPU sorted SELL-32 pads the skewed matrix by 1.00: it is chosen; on the host, CSR.
  EXPECT_EQ(plan.format(), pspmv::ExecTraits<Exec>::prefer_sell ? pspmv::Format::sell : pspmv::Format::csr)
      << plan.reason();
  EXPECT_LE(static_cast<double>(plan.matrix_bytes()), 1.1 * static_cast<double>(plan.csr_bytes()) + 4096);
  // Besides the matrix, the plan's own scratch: under a static or balanced schedule only the piece
  // sums of split long rows, with room for a several-vector multiply's pass (ExecTraits::multi_columns).
  const std::size_t pieces = plan.launch().long_split ? static_cast<std::size_t>(plan.launch().long_pieces) : 0;
  EXPECT_EQ(plan.make_workspace().bytes(), pieces * pspmv::ExecTraits<Exec>::multi_columns * sizeof(V));
  EXPECT_EQ(plan.mapping(), pspmv::Mapping::thread_per_row) << plan.reason();
  auto E = pspmv::generate_even<V, O>(2048);
  auto pe = pspmv::analyze<Exec>(E);
  // Even rows of a few hundred KB on a host of two threads or more: still one block of nearly
  // equal nonzeros per thread (a static split at best); one thread: static.
  EXPECT_EQ(pe.schedule(), pspmv::ExecTraits<Exec>::is_gpu || Exec().concurrency() < 2
                               ? pspmv::Schedule::static_chunks
                               : pspmv::Schedule::nnz_balanced)
      << pe.reason();
  EXPECT_EQ(pe.mapping(), pspmv::Mapping::thread_per_row) << pe.reason();
  // Forced options are honoured.
  pspmv::AnalyzeOptions opt;
  opt.mapping = pspmv::Mapping::team_per_row;
  opt.schedule = pspmv::Schedule::dynamic_chunks;
  opt.chunk_size = 64;
  auto pf = pspmv::analyze<Exec>(E, opt);
  EXPECT_EQ(pf.mapping(), pspmv::Mapping::team_per_row);
  EXPECT_EQ(pf.schedule(), pspmv::Schedule::dynamic_chunks);
  EXPECT_EQ(pf.launch().chunk_rows, 64);
  // A matrix whose SELL form would exceed the memory limit keeps CSR when the format is
  // left to the analyzer: one very long row per window pads a whole slice.
  auto R = from_rows<V, O>(4096, 4096, [](std::int32_t i) {
    std::vector<std::int32_t> c;
    for (std::int32_t k = 0; k < (i % 1024 == 0 ? 2000 : 2); ++k) c.push_back(k);
    return c;
  });
  // Without the long-row split the 2000-entry rows pad their slices: CSR is kept.
  pspmv::AnalyzeOptions limit;
  limit.sell_memory_limit = 1.1;
  limit.sell_long_row = -1;
  auto pr = pspmv::analyze<Exec>(R, limit);
  if (pspmv::ExecTraits<Exec>::prefer_sell) EXPECT_NE(pr.reason().find("keeping CSR"), std::string::npos) << pr.reason();
  EXPECT_EQ(pr.format(), pspmv::Format::csr) << pr.reason();
  // With the default long-row handling (a GPU: rows beyond 64 entries leave the slices, cut
  // into pieces) most of the padding goes, and whether SELL then fits depends on the value and
  // offset widths: whatever the format, the plan keeps within the limit, and the reason gives
  // the ratio that decided.
  // Irregular rows (thread-per-row CSR would idle most lanes) may take SELL up to
  // ExecTraits::sell_memory_limit_irregular (1.25 on a GPU) unless the caller set a limit.
  auto ps = pspmv::analyze<Exec>(R);
  EXPECT_LE(static_cast<double>(ps.bytes()),
            std::max(1.1, pspmv::ExecTraits<Exec>::sell_memory_limit_irregular) * static_cast<double>(ps.csr_bytes()) + 4096)
      << ps.reason();
  if (pspmv::ExecTraits<Exec>::prefer_sell)
    EXPECT_NE(ps.reason().find("x the CSR bytes"), std::string::npos) << ps.reason();
  opt.vector_length = 3;
  EXPECT_THROW(pspmv::analyze<Exec>(E, opt), pspmv::InvalidArgument);
  opt.vector_length = 1;
  opt.team_size = 100000;  // beyond any backend's team: an exception, never a Kokkos::abort
  EXPECT_THROW(pspmv::analyze<Exec>(E, opt), pspmv::InvalidArgument);
  opt.team_size = 0;
  opt.vector_length = 0;
  opt.format = pspmv::Format::sell;
  opt.slice_height = 12;
  EXPECT_THROW(pspmv::analyze<Exec>(E, opt), pspmv::InvalidArgument);
  opt.slice_height = 8;
  opt.sigma = -1;
  EXPECT_THROW(pspmv::analyze<Exec>(E, opt), pspmv::InvalidArgument);
}

// The model's rules that depend on the size of the space (ExecTraits): a GPU takes a warp per
// row for small matrices with rows of 32-256 entries; a host steals work from
// stealing_bytes_per_thread CSR bytes per thread on.
TYPED_TEST(SelectTest, ModelRulesFollowTheSpaceSize) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  using Traits = pspmv::ExecTraits<Exec>;
  const std::int64_t threads = Exec().concurrency();
  // 1000 rows of 5 entries and every 10th row 100: small on any GPU (1000 x 32 lanes).
  auto S = from_rows<V, O>(1000, 1000, [](std::int32_t i) {
    std::vector<std::int32_t> c;
    for (std::int32_t k = 0; k < (i % 10 == 0 ? 100 : 5); ++k) c.push_back((i + 7 * k) % 1000);
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  });
  auto ps = pspmv::analyze<Exec>(S);
  if (Traits::is_gpu) {
    EXPECT_EQ(ps.format(), pspmv::Format::csr) << ps.reason();
    EXPECT_EQ(ps.mapping(), pspmv::Mapping::team_per_row) << ps.reason();
    EXPECT_EQ(ps.launch().vector_length, 32) << ps.reason();
    EXPECT_NE(ps.reason().find("small matrix"), std::string::npos) << ps.reason();
  } else {
    EXPECT_EQ(ps.mapping(), pspmv::Mapping::thread_per_row) << ps.reason();
    EXPECT_NE(ps.schedule(), pspmv::Schedule::work_stealing) << ps.reason();
  }
  // Rows of 2 entries, then of 6 (cv 0.5): nnz_balanced on a host of 2 threads or more, and
  // the reason says why; one thread: nothing to balance.
  if (!Traits::is_gpu) {
    auto halves = from_rows<V, O>(4000, 4000, [](std::int32_t i) {
      std::vector<std::int32_t> c;
      for (std::int32_t k = 0; k < (i < 2000 ? 2 : 6); ++k) c.push_back((i + 13 * k) % 4000);
      std::sort(c.begin(), c.end());
      return c;
    });
    auto ph = pspmv::analyze<Exec>(halves);
    if (threads >= 2) {
      EXPECT_EQ(ph.schedule(), pspmv::Schedule::nnz_balanced) << ph.reason();
      EXPECT_NE(ph.reason().find(": nnz_balanced (a block of nearly equal nonzeros per thread)"), std::string::npos)
          << ph.reason();
    } else {
      EXPECT_EQ(ph.schedule(), pspmv::Schedule::static_chunks) << ph.reason();
      EXPECT_NE(ph.reason().find("one thread: static_chunks"), std::string::npos) << ph.reason();
    }
  }
  // A caller's mapping is kept.
  pspmv::AnalyzeOptions thread;
  thread.mapping = pspmv::Mapping::thread_per_row;
  EXPECT_EQ(pspmv::analyze<Exec>(S, thread).mapping(), pspmv::Mapping::thread_per_row);
  if (!Traits::is_gpu) {
    // The smallest diagonal whose CSR bytes reach stealing_bytes_per_thread per thread, and
    // one row fewer.
    const std::int64_t per_row = sizeof(O) + sizeof(std::int32_t) + sizeof(V);
    const std::int64_t target = Traits::stealing_bytes_per_thread * threads;
    const auto n = static_cast<std::int32_t>((target - static_cast<std::int64_t>(sizeof(O)) + per_row - 1) / per_row);
    auto diag = [](std::int32_t i) { return std::vector<std::int32_t>{i}; };
    auto big = pspmv::analyze<Exec>(from_rows<V, O>(n, n, diag));
    EXPECT_EQ(big.csr_bytes(), static_cast<std::size_t>((n + 1) * sizeof(O) + n * (sizeof(std::int32_t) + sizeof(V))));
    EXPECT_GE(static_cast<std::int64_t>(big.csr_bytes()), target);
    EXPECT_EQ(big.schedule(), pspmv::Schedule::work_stealing) << big.reason();
    EXPECT_NE(big.reason().find("work_stealing"), std::string::npos) << big.reason();
    auto below = pspmv::analyze<Exec>(from_rows<V, O>(n - 1, n - 1, diag));
    EXPECT_LT(static_cast<std::int64_t>(below.csr_bytes()), target);
    EXPECT_EQ(below.schedule(), threads >= 2 ? pspmv::Schedule::nnz_balanced : pspmv::Schedule::static_chunks)
        << below.reason();
    // Rows of sell_min_mean entries or more: SELL from the same size on (its padding stays near 1
    // for random rows), whatever their columns (random or banded), CSR below it.
    // (from the larger of the SELL and the work-stealing sizes, so that the plan takes both.)
    const std::int64_t sell_target = std::max(target, Traits::sell_bytes_per_thread * threads);
    const auto rows = static_cast<std::int32_t>(sell_target / (16 * (sizeof(std::int32_t) + sizeof(V))) + 1);
    auto R = pspmv::generate_random<V, O>(rows, rows, 16.0, 5);
    auto pr = pspmv::analyze<Exec>(R);
    ASSERT_GE(static_cast<std::int64_t>(pr.csr_bytes()), sell_target);
    EXPECT_EQ(pr.format(), pspmv::Format::sell) << pr.reason();
    EXPECT_NE(pr.reason().find(" >= 12, CSR "), std::string::npos) << pr.reason();
    EXPECT_EQ(pr.schedule(), pspmv::Schedule::work_stealing) << pr.reason();
    // The rule is the thread-per-row slice kernel's: a forced team mapping keeps CSR, and says so.
    pspmv::AnalyzeOptions team;
    team.mapping = pspmv::Mapping::team_per_row;
    auto pt = pspmv::analyze<Exec>(R, team);
    EXPECT_EQ(pt.format(), pspmv::Format::csr) << pt.reason();
    EXPECT_NE(pt.reason().find("mapping team_per_row forced"), std::string::npos) << pt.reason();
    auto band = pspmv::analyze<Exec>(pspmv::generate_even<V, O>((rows + 31) / 32 * 32));
    EXPECT_EQ(band.format(), pspmv::Format::sell) << band.reason();
    if (static_cast<std::int64_t>(band.csr_bytes()) < Traits::diagonal_min_bytes)  // else the diagonal rule decides first
      EXPECT_NE(band.reason().find(" >= 12, CSR "), std::string::npos) << band.reason();
    // Short rows (mean 6 < sell_min_mean) of the same bytes stay CSR.
    const auto short_rows = static_cast<std::int32_t>(static_cast<std::int64_t>(rows) * 16 / 6 + 1);
    auto short_plan = pspmv::analyze<Exec>(pspmv::generate_random<V, O>(short_rows, short_rows, 6.0, 5));
    ASSERT_GE(static_cast<std::int64_t>(short_plan.csr_bytes()), sell_target);
    EXPECT_EQ(short_plan.format(), pspmv::Format::csr) << short_plan.reason();
    EXPECT_NE(short_plan.reason().find(" < 12: short rows stay CSR"), std::string::npos)
        << short_plan.reason();
    // A mean just below the bound reads below it: 24 rows of 12 entries and one of 11 (mean
    // 11.96) print as 11.9, never as "12.0 < 12".
    auto near = from_rows<V, O>(25, 25, [](std::int32_t i) {
      std::vector<std::int32_t> c;
      for (std::int32_t k = 0; k < (i == 0 ? 11 : 12); ++k) c.push_back((i + k) % 25);
      std::sort(c.begin(), c.end());
      return c;
    });
    const auto near_plan = pspmv::analyze<Exec>(near);
    EXPECT_NE(near_plan.reason().find("mean row 11.9 < 12: short rows stay CSR"), std::string::npos)
        << near_plan.reason();
    // No rule reads the columns of these matrices (below compress_min_bytes and
    // diagonal_min_bytes): the statistics skip them (the spread and the shares stay -1), and a
    // plan made like a forced CSR plan is the fresh automatic plan.
    for (const auto* p : {&short_plan, &pr}) {
      EXPECT_LT(p->row_stats().col_spread, 0.0);
      if (static_cast<std::int64_t>(p->csr_bytes()) < Traits::compress_min_bytes)
        EXPECT_LT(p->row_stats().narrow_share, 0.0);
    }
    pspmv::AnalyzeOptions csr;
    csr.format = pspmv::Format::csr;
    auto forced = pspmv::analyze<Exec>(R, csr);
    auto like = pspmv::analyze(Exec(), R, pspmv::AnalyzeOptions{}, forced);
    EXPECT_EQ(like.describe(), pr.describe());
    EXPECT_EQ(like.reason(), pr.reason());
    // Below sell_bytes_per_thread a thread, CSR, and the reason says why.
    auto small = pspmv::analyze<Exec>(pspmv::generate_random<V, O>(rows / 4, rows / 4, 16.0, 5));
    EXPECT_EQ(small.format(), pspmv::Format::csr) << small.reason();
    EXPECT_NE(small.reason().find(" MiB x " + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)")),
              std::string::npos)
        << small.reason();
  } else {
    // The host's rows-of-12 rule never fires on a GPU (SELL is its default where it fits).
    EXPECT_EQ(Traits::sell_bytes_per_thread, 0);
    auto R = pspmv::generate_random<V, O>(100000, 100000, 16.0, 5);
    EXPECT_EQ(pspmv::analyze<Exec>(R).reason().find(" >= 12, CSR "), std::string::npos);
    // Short rows (0 to 8 entries, mean 4 < csr_short_mean), none long: CSR a thread per row, and
    // the reason says why; from a mean of 6 (0 to 12 entries), or with one row longer than
    // sell_long_row, or with team_per_row forced, SELL as before. (A memory limit of 2: SELL
    // then fits in every precision and offset width, so the short-row rule alone decides.)
    ASSERT_EQ(Traits::csr_short_mean, 5);
    pspmv::AnalyzeOptions roomy;
    roomy.sell_memory_limit = 2.0;
    const auto short_rows = pspmv::generate_random<V, O>(100000, 100000, 4.0, 5);
    const auto ps4 = pspmv::analyze<Exec>(short_rows, roomy);
    EXPECT_LT(ps4.row_stats().mean, 5.0);
    EXPECT_EQ(ps4.format(), pspmv::Format::csr) << ps4.reason();
    EXPECT_EQ(ps4.mapping(), pspmv::Mapping::thread_per_row) << ps4.reason();
    EXPECT_NE(ps4.reason().find(" < 5, longest 8 <= 64: short rows stay CSR"), std::string::npos) << ps4.reason();
    pspmv::AnalyzeOptions thread_roomy = roomy, team = roomy;
    thread_roomy.mapping = pspmv::Mapping::thread_per_row;
    team.mapping = pspmv::Mapping::team_per_row;
    EXPECT_EQ(pspmv::analyze<Exec>(short_rows, thread_roomy).format(), pspmv::Format::csr);
    EXPECT_EQ(pspmv::analyze<Exec>(short_rows, team).format(), pspmv::Format::sell);
    const auto ps6 = pspmv::analyze<Exec>(pspmv::generate_random<V, O>(100000, 100000, 6.0, 5), roomy);
    EXPECT_EQ(ps6.format(), pspmv::Format::sell) << ps6.reason();
    EXPECT_EQ(ps6.reason().find("short rows"), std::string::npos) << ps6.reason();
    // The same short rows and one of 100 entries (the mean stays below 5): SELL, its long row split.
    auto with_long = from_rows<V, O>(100000, 100000, [](std::int32_t i) {
      std::vector<std::int32_t> c;
      for (std::int32_t k = 0; k < (i == 500 ? 100 : 4); ++k) c.push_back((i + 997 * k) % 100000);
      std::sort(c.begin(), c.end());
      return c;
    });
    const auto pl = pspmv::analyze<Exec>(with_long, roomy);
    EXPECT_EQ(pl.row_stats().max_len, 100);
    EXPECT_EQ(pl.format(), pspmv::Format::sell) << pl.reason();
    // Every 32nd row of 64 entries, the others of 1 (mean 2.97, none beyond 64): CSR would take
    // team_per_row by the mapping rule (480 lane-slots per 32 rows at vector length 8 against
    // 2048), a form the rule was not measured with: SELL, as before.
    auto spiky = from_rows<V, O>(96000, 96000, [](std::int32_t i) {
      std::vector<std::int32_t> c;
      for (std::int32_t k = 0; k < (i % 32 == 0 ? 64 : 1); ++k) c.push_back((i + 1499 * k) % 96000);
      std::sort(c.begin(), c.end());
      return c;
    });
    const auto psp = pspmv::analyze<Exec>(spiky, roomy);
    EXPECT_EQ(psp.row_stats().max_len, 64);
    EXPECT_EQ(psp.format(), pspmv::Format::sell) << psp.reason();
  }
}


// Small host matrices run on the calling thread (Schedule::serial) up to
// ExecTraits::serial_max_bytes of CSR arrays and vectors, and in parallel from one row more;
// serial with a team mapping, or on a GPU, is refused.
TYPED_TEST(SelectTest, SerialScheduleForSmallHostMatrices) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  using Traits = pspmv::ExecTraits<Exec>;
  auto diag = [](std::int32_t i) { return std::vector<std::int32_t>{i}; };
  pspmv::AnalyzeOptions serial;
  serial.schedule = pspmv::Schedule::serial;
  if (Traits::is_gpu) {
    auto A = from_rows<V, O>(100, 100, diag);
    EXPECT_NE(pspmv::analyze<Exec>(A).schedule(), pspmv::Schedule::serial);
    EXPECT_THROW(pspmv::analyze<Exec>(A, serial), pspmv::InvalidArgument);
    // A GPU's nnz_balanced blocks weigh entries alone, unless the caller sets a weight.
    pspmv::AnalyzeOptions balanced;
    balanced.format = pspmv::Format::csr;
    balanced.schedule = pspmv::Schedule::nnz_balanced;
    EXPECT_EQ(pspmv::analyze<Exec>(A, balanced).launch().block_row_weight, 0);
    balanced.block_row_weight = 8;
    EXPECT_EQ(pspmv::analyze<Exec>(A, balanced).launch().block_row_weight, 8);
    return;
  }
  // A diagonal of n rows touches (n + 1) offsets, n entries and x and y of n values.
  const std::int64_t per_row = sizeof(O) + sizeof(std::int32_t) + 3 * sizeof(V);
  const auto n = static_cast<std::int32_t>((Traits::serial_max_bytes - static_cast<std::int64_t>(sizeof(O))) / per_row);
  auto fits = pspmv::analyze<Exec>(from_rows<V, O>(n, n, diag));
  EXPECT_EQ(fits.schedule(), pspmv::Schedule::serial) << fits.reason();
  EXPECT_NE(fits.reason().find("serial"), std::string::npos) << fits.reason();
  auto over = pspmv::analyze<Exec>(from_rows<V, O>(n + 1, n + 1, diag));
  EXPECT_NE(over.schedule(), pspmv::Schedule::serial) << over.reason();
  // A caller's team mapping keeps a parallel schedule; forcing serial with it is refused.
  pspmv::AnalyzeOptions team;
  team.mapping = pspmv::Mapping::team_per_row;
  EXPECT_NE(pspmv::analyze<Exec>(from_rows<V, O>(n, n, diag), team).schedule(), pspmv::Schedule::serial);
  serial.mapping = pspmv::Mapping::team_per_row;
  EXPECT_THROW(pspmv::analyze<Exec>(from_rows<V, O>(n, n, diag), serial), pspmv::InvalidArgument);
  // Forced serial on a large matrix is honoured (every row computed: the multiply tests cover
  // it under every format).
  serial.mapping.reset();
  EXPECT_EQ(pspmv::analyze<Exec>(from_rows<V, O>(4 * n, 4 * n, diag), serial).schedule(), pspmv::Schedule::serial);
  // The row sum: a CSR thread_per_row plan's rows in masked SIMD groups, serial or parallel,
  // where the build has them (LaunchParams::masked_rows, named by describe(); that the plans run
  // that form: HostRowSums.PlansRunTheRowFormTheyRecord).
  for (const auto& plan : {fits, over, pspmv::analyze<Exec>(from_rows<V, O>(4 * n, 4 * n, diag), serial)}) {
    EXPECT_EQ(plan.launch().masked_rows, Traits::masked_rows) << plan.describe();
    EXPECT_EQ(plan.describe().find("masked_rows") != std::string::npos, Traits::masked_rows) << plan.describe();
  }
  // A team plan and a SELL plan have no CSR rows of their own.
  EXPECT_FALSE(pspmv::analyze<Exec>(from_rows<V, O>(n, n, diag), team).launch().masked_rows);
  pspmv::AnalyzeOptions sell;
  sell.format = pspmv::Format::sell;
  EXPECT_FALSE(pspmv::analyze<Exec>(from_rows<V, O>(4 * n, 4 * n, diag), sell).launch().masked_rows);
  // nnz_balanced blocks weigh entries alone (rows in masked groups too), unless the caller
  // sets a weight: honoured and named by describe(), refused off a CSR nnz_balanced plan.
  pspmv::AnalyzeOptions balanced;
  balanced.schedule = pspmv::Schedule::nnz_balanced;
  const auto plain = pspmv::analyze<Exec>(from_rows<V, O>(4 * n, 4 * n, diag), balanced);
  EXPECT_EQ(plain.launch().block_row_weight, 0) << plain.describe();
  EXPECT_EQ(plain.describe().find("row_weight"), std::string::npos) << plain.describe();
  team.schedule = pspmv::Schedule::nnz_balanced;
  EXPECT_EQ(pspmv::analyze<Exec>(from_rows<V, O>(4 * n, 4 * n, diag), team).launch().block_row_weight, 0);
  balanced.block_row_weight = 3;
  const auto three = pspmv::analyze<Exec>(from_rows<V, O>(4 * n, 4 * n, diag), balanced);
  EXPECT_EQ(three.launch().block_row_weight, 3);
  EXPECT_NE(three.describe().find(" row_weight=3"), std::string::npos) << three.describe();
  balanced.block_row_weight = -1;
  EXPECT_THROW(pspmv::analyze<Exec>(from_rows<V, O>(4 * n, 4 * n, diag), balanced), pspmv::InvalidArgument);
  balanced.block_row_weight = 0;
  balanced.schedule = pspmv::Schedule::static_chunks;
  EXPECT_THROW(pspmv::analyze<Exec>(from_rows<V, O>(4 * n, 4 * n, diag), balanced), pspmv::InvalidArgument);
  balanced.schedule = pspmv::Schedule::nnz_balanced;
  balanced.format = pspmv::Format::sell;
  EXPECT_THROW(pspmv::analyze<Exec>(from_rows<V, O>(4 * n, 4 * n, diag), balanced), pspmv::InvalidArgument);
}

// A parallel host plan runs on every thread of the instance whatever its size (its region
// always holds the whole team, so fewer threads would only have more rows each), and the
// reason names no forced count; a caller's count is honoured and named; a GPU takes none.
TYPED_TEST(SelectTest, HostPlansTakeEveryThread) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  using Traits = pspmv::ExecTraits<Exec>;
  auto diag = [](std::int32_t i) { return std::vector<std::int32_t>{i}; };
  const std::int64_t concurrency = Exec().concurrency();
  const std::int64_t per_row = sizeof(O) + sizeof(std::int32_t) + 3 * sizeof(V);
  for (const std::int64_t kib : {std::int64_t{80}, std::int64_t{200}, std::int64_t{4096}}) {
    const auto n = static_cast<std::int32_t>((kib << 10) / per_row);
    const auto plan = pspmv::analyze<Exec>(from_rows<V, O>(n, n, diag));
    EXPECT_NE(plan.schedule(), pspmv::Schedule::serial) << kib << " KiB: " << plan.reason();  // above serial_max_bytes
    EXPECT_EQ(plan.choice().launch.threads, Traits::is_gpu ? 0 : concurrency) << kib << " KiB: " << plan.describe();
    EXPECT_EQ(plan.reason().find("threads forced"), std::string::npos) << plan.reason();
  }
  if constexpr (!Traits::is_gpu) {
    pspmv::AnalyzeOptions one;
    one.threads = 1;
    one.schedule = pspmv::Schedule::static_chunks;
    const auto forced = pspmv::analyze<Exec>(from_rows<V, O>(100000, 100000, diag), one);
    EXPECT_EQ(forced.choice().launch.threads, 1);
    EXPECT_NE(forced.reason().find("threads forced: 1"), std::string::npos) << forced.reason();
  }
}

// analyze() reads col_idx for the column statistics only where a rule can use them
// (detail::column_facts_needed), and from exactly the rules' sizes on: the diagonal share from
// diagonal_min_bytes, the narrow share where a SELL plan may be compressed by the rule (from
// compress_min_bytes; on a host only for rows the SELL rule takes, thread_per_row), neither
// where the caller forces CSR or decides compression.
TYPED_TEST(SelectTest, ColumnFactsAreReadWhereARuleCanUseThem) {
  using V = typename TestFixture::Value;
  using Exec = typename TestFixture::Exec;
  using Traits = pspmv::ExecTraits<Exec>;
  constexpr std::int64_t threads = 16;
  const auto want = [](const pspmv::AnalyzeOptions& o, std::int64_t bytes, double mean) {
    const std::int64_t nnz = bytes / static_cast<std::int64_t>(sizeof(std::int32_t) + sizeof(V));
    const auto nrows = static_cast<std::int64_t>(static_cast<double>(nnz) / mean);
    return pspmv::detail::column_facts_needed<Traits, V>(o, nrows, nnz, bytes, threads);
  };
  const int C = Traits::template sell_slice_height<V>();
  const int block = C >= 4 && C <= 64 && pspmv::RowStats::span_block % C == 0 ? C : 0;
  const std::int64_t diagonal = Traits::diagonal_min_bytes;
  const pspmv::AnalyzeOptions none;
  EXPECT_EQ(want(none, diagonal, 16.0).diagonal_block, block);
  EXPECT_EQ(want(none, diagonal - 1, 16.0).diagonal_block, 0);
  pspmv::AnalyzeOptions csr, decided, team;
  csr.format = pspmv::Format::csr;
  decided.compress = false;
  team.mapping = pspmv::Mapping::team_per_row;
  for (const auto& o : {csr, decided}) {
    EXPECT_EQ(want(o, 2 * diagonal, 16.0).diagonal_block, 0);
    EXPECT_FALSE(want(o, 2 * diagonal, 16.0).span);
  }
  if constexpr (Traits::compress_min_bytes < std::numeric_limits<std::int64_t>::max()) {
    const std::int64_t edge = Traits::compress_min_bytes;
    ASSERT_GE(edge, Traits::sell_bytes_per_thread * threads);  // the SELL rule holds at the edge
    EXPECT_TRUE(want(none, edge, 16.0).span);
    EXPECT_FALSE(want(none, edge - 1, 16.0).span);
    // Rows below sell_min_mean, or a team mapping, stay CSR on a host: no narrow share then.
    EXPECT_EQ(want(none, edge, Traits::sell_min_mean / 2).span, Traits::prefer_sell);
    EXPECT_EQ(want(team, edge, 16.0).span, Traits::prefer_sell);
  } else {
    EXPECT_FALSE(want(none, 4 * diagonal, 16.0).span);  // no 16-bit offsets by rule on this space
  }
}
