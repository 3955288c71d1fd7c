// The determinism guarantees of docs/design.md, on every enabled execution space:
// 1. every plan (format x mapping x schedule, long rows lane-shared or split, several vectors)
//    gives bit-identical y on two multiplies of the same inputs, with its own or a new workspace;
// 2. AnalyzeOptions::deterministic plans give one y bit for bit whatever the schedule, chunk
//    size, block count, team sizes and (host) thread count asked for, and choose() says so in
//    the reason.
#include <cstring>

#include "test_util.hpp"

using namespace pspmv_test;

namespace {

template <class Cfg>
class DeterminismTest : public ConfigTest<Cfg> {
 public:
  using Exec = typename Cfg::exec;
  using Value = typename Cfg::value;
  using Offset = typename Cfg::offset;
  using Host = typename ConfigTest<Cfg>::Host;
  using PlanT = typename ConfigTest<Cfg>::PlanT;

  /// x with entries of mixed sign and magnitude, so that the order of additions shows in the bits.
  static typename PlanT::vector_type make_x(std::int32_t n) {
    typename PlanT::vector_type x("x", n);
    auto h = Kokkos::create_mirror_view(x);
    for (std::int32_t j = 0; j < n; ++j) h(j) = static_cast<Value>(std::sin(1.7 * j) * std::pow(10.0, j % 7 - 3));
    Kokkos::deep_copy(x, h);
    return x;
  }
  /// y = A x (beta = 0 on a NaN-filled y), copied to the host.
  static std::vector<Value> product(const PlanT& plan, const typename PlanT::vector_type& x,
                                    const typename PlanT::workspace_type* ws = nullptr) {
    typename PlanT::vector_type y("y", plan.nrows());
    Kokkos::deep_copy(y, std::numeric_limits<Value>::quiet_NaN());
    if (ws) plan.multiply(Exec(), Value(1), x, Value(0), y, *ws);
    else plan.multiply(Value(1), x, Value(0), y);
    Kokkos::fence();
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    return std::vector<Value>(h.data(), h.data() + h.extent(0));
  }
  /// Y = A X for 8 vectors (LayoutRight), copied to the host.
  static std::vector<Value> product8(const PlanT& plan) {
    Kokkos::View<Value**, Kokkos::LayoutRight, typename PlanT::memory_space> X("X", plan.ncols(), 8),
        Y("Y", plan.nrows(), 8);
    auto hx = Kokkos::create_mirror_view(X);
    for (std::int32_t j = 0; j < plan.ncols(); ++j)
      for (int q = 0; q < 8; ++q) hx(j, q) = static_cast<Value>(std::cos(0.9 * j + q) * std::pow(10.0, (j + q) % 5 - 2));
    Kokkos::deep_copy(X, hx);
    plan.multiply(Value(1), X, Value(0), Y);
    Kokkos::fence();
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y);
    return std::vector<Value>(h.data(), h.data() + h.span());
  }
  static bool same_bits(const std::vector<Value>& a, const std::vector<Value>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Value)) == 0);
  }

  /// The matrix: rows of 0 to 60 entries and a few of 900 (long rows for SELL's thresholds).
  static Host matrix() {
    return from_rows<Value, Offset>(2000, 1500, [](std::int32_t i) {
      std::vector<std::int32_t> c;
      const std::int32_t len = i % 97 == 5 ? 900 : (i % 13 == 0 ? 0 : i % 61);
      for (std::int32_t k = 0; k < len; ++k) c.push_back(static_cast<std::int32_t>((i * 31LL + k * 7LL) % 1500));
      std::sort(c.begin(), c.end());
      c.erase(std::unique(c.begin(), c.end()), c.end());
      return c;
    });
  }
};

TYPED_TEST_SUITE(DeterminismTest, Configs, ConfigNames);

TYPED_TEST(DeterminismTest, EveryPlanRepeatsItsResultBitForBit) {
  using Exec = typename TestFixture::Exec;
  const auto A = TestFixture::matrix();
  const auto x = TestFixture::make_x(A.ncols);
  for (auto f : pspmv::all_formats)
    for (auto m : pspmv::all_mappings)
      for (auto s : pspmv::all_schedules) {
        if (!pspmv::schedule_runs(s, m, pspmv::ExecTraits<Exec>::is_gpu)) continue;
        for (int long_mode = 0; long_mode < (f == pspmv::Format::sell ? 3 : 1); ++long_mode) {
          pspmv::AnalyzeOptions opt;
          opt.format = f;
          opt.mapping = m;
          opt.schedule = s;
          opt.chunk_size = 7;
          if (long_mode > 0) {
            opt.sell_long_row = 32;
            opt.sell_long_split = long_mode == 2;
          }
          const auto plan = pspmv::analyze<Exec>(A, opt);
          const auto ws = plan.make_workspace();
          const auto first = TestFixture::product(plan, x);
          const std::string what = plan.describe();
          EXPECT_TRUE(TestFixture::same_bits(first, TestFixture::product(plan, x))) << what;
          EXPECT_TRUE(TestFixture::same_bits(first, TestFixture::product(plan, x, &ws))) << what << " (new workspace)";
          EXPECT_TRUE(TestFixture::same_bits(TestFixture::product8(plan), TestFixture::product8(plan)))
              << what << " (8 vectors)";
        }
      }
}

TYPED_TEST(DeterminismTest, DeterministicPlansAgreeWhateverTheLaunch) {
  using Exec = typename TestFixture::Exec;
  const auto A = TestFixture::matrix();
  const auto x = TestFixture::make_x(A.ncols);
  // On a host, also the number of threads a multiply runs on (0: every thread, the default).
  std::vector<int> thread_counts{0};
  if constexpr (!pspmv::ExecTraits<Exec>::is_gpu) {
    const int n = Exec().concurrency();
    if (n > 1) thread_counts.insert(thread_counts.end(), {1, n > 2 ? n - 1 : 2, n});
  }
  for (auto f : pspmv::all_formats) {
    std::vector<typename TestFixture::Value> want;
    std::string want_plan;
    for (auto s : pspmv::all_schedules) {
      if (!pspmv::schedule_runs(s, pspmv::Mapping::thread_per_row, pspmv::ExecTraits<Exec>::is_gpu)) continue;
      for (std::int64_t chunk : {0, 1, 5, 300}) {
        for (const int threads : thread_counts) {
          if (s == pspmv::Schedule::serial && threads > 1) continue;  // refused: serial runs on one thread
          pspmv::AnalyzeOptions opt;
          opt.deterministic = true;
          opt.format = f;
          opt.schedule = s;
          opt.chunk_size = chunk;
          opt.num_blocks = chunk == 0 ? 0 : chunk + 2;
          opt.threads = threads;
          const auto plan = pspmv::analyze<Exec>(A, opt);
          EXPECT_EQ(plan.mapping(), pspmv::Mapping::thread_per_row);
          EXPECT_EQ(plan.launch().long_rows, 0);
          EXPECT_NE(plan.reason().find("deterministic"), std::string::npos) << plan.reason();
          const auto y = TestFixture::product(plan, x);
          if (want.empty()) {
            want = y;
            want_plan = plan.describe();
          } else {
            EXPECT_TRUE(TestFixture::same_bits(want, y)) << plan.describe() << " differs from " << want_plan;
          }
        }
      }
    }
  }
  // The automatic choice too, and the options that contradict it are refused.
  pspmv::AnalyzeOptions opt;
  opt.deterministic = true;
  EXPECT_EQ(pspmv::analyze<Exec>(A, opt).mapping(), pspmv::Mapping::thread_per_row);
  opt.mapping = pspmv::Mapping::team_per_row;
  EXPECT_THROW(pspmv::analyze<Exec>(A, opt), pspmv::InvalidArgument);
  opt.mapping.reset();
  opt.format = pspmv::Format::sell;
  opt.sell_long_row = 16;
  EXPECT_THROW(pspmv::analyze<Exec>(A, opt), pspmv::InvalidArgument);
  opt.sell_long_row = 0;
  opt.sell_long_split = true;
  EXPECT_THROW(pspmv::analyze<Exec>(A, opt), pspmv::InvalidArgument);
}

}  // namespace
