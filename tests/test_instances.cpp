// Execution-space instances: analyze() and multiply() on a caller's instance, and two
// multiplies of one plan running at once on two instances, each with its own workspace
// (OpenMP partitions of the thread pool; CUDA streams).

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>
#include <vector>

#include "harness/reference.hpp"
#include "pspmv/pspmv.hpp"

namespace {

using HostCsr = pspmv::HostCsr<double, std::int64_t>;

/// Plans that write scratch: a run-time schedule (chunk cursors) and SELL with split long
/// rows (piece sums), and one that writes none.
std::vector<pspmv::AnalyzeOptions> scratch_options() {
  pspmv::AnalyzeOptions stealing, dynamic, split, plain;
  stealing.format = pspmv::Format::csr;
  stealing.schedule = pspmv::Schedule::work_stealing;
  dynamic.format = pspmv::Format::sell;
  dynamic.schedule = pspmv::Schedule::dynamic_chunks;
  split.format = pspmv::Format::sell;
  split.sell_long_row = 16;
  split.sell_long_split = true;
  split.schedule = pspmv::Schedule::static_chunks;
  plain.format = pspmv::Format::csr;
  plain.schedule = pspmv::Schedule::static_chunks;
  return {stealing, dynamic, split, plain};
}

/// x(j) = 1 + (j mod 7) / 8 for instance k = 0, and its negation plus 1 for k = 1, so that
/// two concurrent multiplies compute different results.
std::vector<double> x_of(std::int32_t n, int k) {
  std::vector<double> x(static_cast<std::size_t>(n));
  for (std::int32_t j = 0; j < n; ++j) x[j] = (k == 0 ? 1.0 : -1.0) * (1.0 + (j % 7) / 8.0) + k;
  return x;
}

template <class Plan>
::testing::AssertionResult check(const HostCsr& A, const Plan& plan, const typename Plan::vector_type& y,
                                 const std::vector<double>& x, const char* what, double alpha = 1.0) {
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  std::vector<double> got(hy.data(), hy.data() + hy.extent(0));
  const auto want = pspmv::reference::spmv(A, alpha, x);
  const auto m = pspmv::reference::compare(A, got, want);
  if (m.count == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ", plan " << plan.describe() << ": " << m.count
                                       << " rows wrong, first " << m.first;
}

template <class Space>
typename pspmv::Plan<Space, double>::vector_type device_x(const std::vector<double>& x) {
  typename pspmv::Plan<Space, double>::vector_type d("x", x.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t j = 0; j < x.size(); ++j) h(j) = x[j];
  Kokkos::deep_copy(d, h);
  return d;
}

}  // namespace

TEST(Instances, WorkspaceSizesFollowThePlan) {
  const HostCsr A = pspmv::generate_skewed<double>(4096);
  for (const auto& o : scratch_options()) {
    const auto plan = pspmv::analyze<Kokkos::DefaultHostExecutionSpace>(A, o);
    const auto ws = plan.make_workspace();
    const bool scratch = o.schedule != pspmv::Schedule::static_chunks || o.sell_long_split.value_or(false);
    EXPECT_EQ(plan.needs_workspace(), scratch) << plan.describe();
    EXPECT_EQ(ws.bytes() > 0, scratch) << plan.describe();
    if (scratch) {
      // A workspace of another, smaller plan is refused, naming the remedy.
      pspmv::Plan<Kokkos::DefaultHostExecutionSpace, double>::workspace_type empty;
      typename decltype(plan)::vector_type x("x", A.ncols), y("y", A.nrows);
      try {
        plan.multiply(Kokkos::DefaultHostExecutionSpace(), 1.0, x, 0.0, y, empty);
        ADD_FAILURE() << "an empty workspace was accepted by " << plan.describe();
      } catch (const pspmv::InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("make_workspace"), std::string::npos) << e.what();
      }
    }
  }
}

TEST(Instances, AnalyzeAndMultiplyOnAnInstance) {
  using Space = Kokkos::DefaultExecutionSpace;
  const HostCsr A = pspmv::generate_skewed<double>(4096);
  const Space space;
  for (const auto& o : scratch_options()) {
    const auto plan = pspmv::analyze(space, A, o);
    const auto x = x_of(A.ncols, 0);
    const auto dx = device_x<Space>(x);
    typename decltype(plan)::vector_type y("y", A.nrows);
    Kokkos::deep_copy(y, std::numeric_limits<double>::quiet_NaN());  // beta == 0 never reads y
    const auto ws = plan.make_workspace();
    plan.multiply(space, 1.0, dx, 0.0, y, ws);
    space.fence();
    EXPECT_TRUE(check(A, plan, y, x, "one instance"));
  }
}

#if defined(KOKKOS_ENABLE_OPENMP)
// Two partitions of the OpenMP thread pool multiply with one plan at once, each into its own
// y with its own workspace.
TEST(Instances, TwoOpenMPPartitionsShareOnePlan) {
  const HostCsr A = pspmv::generate_skewed<double>(1 << 15);
  for (const auto& o : scratch_options()) {
    const auto plan = pspmv::analyze<Kokkos::OpenMP>(A, o);
    using Plan = std::decay_t<decltype(plan)>;
    const std::vector<double> x[2] = {x_of(A.ncols, 0), x_of(A.ncols, 1)};
    const typename Plan::vector_type dx[2] = {device_x<Kokkos::OpenMP>(x[0]), device_x<Kokkos::OpenMP>(x[1])};
    const typename Plan::vector_type y[2] = {typename Plan::vector_type("y0", A.nrows),
                                             typename Plan::vector_type("y1", A.nrows)};
    const typename Plan::workspace_type ws[2] = {plan.make_workspace(), plan.make_workspace()};
    // Enough calls for the two partitions' launches to overlap; call c scales by alpha = c + 1,
    // so that a row a call skipped keeps an earlier call's value and shows.
    constexpr int calls = 20;
#if KOKKOS_VERSION < 40000
    // Kokkos 3's partitions are nested OpenMP teams: without a second active level it runs
    // one partition only.
    const int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(2);
    int ran[2] = {0, 0}, partitions = 0;
    Kokkos::OpenMP::partition_master(
        [&](int id, int parts) {
          if (id == 0) partitions = parts;
          for (int k = id; k < 2; k += parts)
            for (int c = 0; c < calls; ++c) {
              plan.multiply(Kokkos::OpenMP(), c + 1.0, dx[k], 0.0, y[k], ws[k]);
              ++ran[k];
            }
        },
        2);
    omp_set_max_active_levels(levels);
    EXPECT_EQ(ran[0], calls);
    EXPECT_EQ(ran[1], calls);
    if (Kokkos::OpenMP::concurrency() >= 2) EXPECT_EQ(partitions, 2) << "the two partitions did not both run";
#else
    const auto parts = Kokkos::Experimental::partition_space(Kokkos::OpenMP(), 1, 1);
    std::thread t0([&] {
      for (int c = 0; c < calls; ++c) plan.multiply(parts[0], c + 1.0, dx[0], 0.0, y[0], ws[0]);
    });
    std::thread t1([&] {
      for (int c = 0; c < calls; ++c) plan.multiply(parts[1], c + 1.0, dx[1], 0.0, y[1], ws[1]);
    });
    t0.join();
    t1.join();
#endif
    Kokkos::fence();
    EXPECT_TRUE(check(A, plan, y[0], x[0], "partition 0", calls));
    EXPECT_TRUE(check(A, plan, y[1], x[1], "partition 1", calls));
  }
}
#endif

#if defined(KOKKOS_ENABLE_OPENMP)
// A multiply called from inside an application's own parallel region, nested parallelism off:
// the region a range launch opens then has one thread, which runs every row (every chunk queue,
// every block) whatever the schedule, and y is the whole product. A plan with team launches is
// refused there on Kokkos 3 (its team launch would skip most teams), before y is written.
TEST(Instances, MultiplyInsideAnApplicationsParallelRegion) {
  const HostCsr A = pspmv::generate_skewed<double>(1 << 15);
  auto options = scratch_options();
  pspmv::AnalyzeOptions balanced;
  balanced.format = pspmv::Format::csr;
  balanced.schedule = pspmv::Schedule::nnz_balanced;
  options.push_back(balanced);
  options.emplace_back();  // the automatic plan
  const int levels = omp_get_max_active_levels();
  omp_set_max_active_levels(1);
  for (const auto& o : options) {
    const auto plan = pspmv::analyze<Kokkos::OpenMP>(A, o);
    using Plan = std::decay_t<decltype(plan)>;
    const std::vector<double> x = x_of(A.ncols, 0);
    const typename Plan::vector_type dx = device_x<Kokkos::OpenMP>(x);
    const typename Plan::vector_type y("y", A.nrows);
    Kokkos::deep_copy(y, std::numeric_limits<double>::quiet_NaN());
#pragma omp parallel num_threads(2)
    {
#pragma omp master
      plan.multiply(Kokkos::OpenMP(), 2.0, dx, 0.0, y);
    }
    Kokkos::fence();
    EXPECT_TRUE(check(A, plan, y, x, "inside a parallel region", 2.0));
  }
  pspmv::AnalyzeOptions team;
  team.mapping = pspmv::Mapping::team_per_row;
  const auto plan = pspmv::analyze<Kokkos::OpenMP>(A, team);
  using Plan = std::decay_t<decltype(plan)>;
  const std::vector<double> x = x_of(A.ncols, 0);
  const typename Plan::vector_type dx = device_x<Kokkos::OpenMP>(x);
  const typename Plan::vector_type y("y", A.nrows);
  Kokkos::deep_copy(y, 7.0);
  bool refused = false, active = false;
#pragma omp parallel num_threads(2)
  {
#pragma omp master
    {
      active = omp_in_parallel() != 0;
      try {
        plan.multiply(Kokkos::OpenMP(), 2.0, dx, 0.0, y);
      } catch (const pspmv::InvalidArgument&) {
        refused = true;
      }
    }
  }
  Kokkos::fence();
  omp_set_max_active_levels(levels);
  if (KOKKOS_VERSION < 40000 && active) {
    EXPECT_TRUE(refused) << "a team plan ran inside an active parallel region on Kokkos 3";
    auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    for (std::size_t i = 0; i < hy.extent(0); ++i) ASSERT_EQ(hy(i), 7.0) << "row " << i << " written before the refusal";
  } else {
    EXPECT_FALSE(refused);
    EXPECT_TRUE(check(A, plan, y, x, "team plan inside a parallel region", 2.0));
  }
}
#endif

#if defined(KOKKOS_ENABLE_CUDA)
// Two CUDA streams multiply with one plan at once, each into its own y with its own
// workspace; the plan itself was analyzed on a third stream.
TEST(Instances, TwoCudaStreamsShareOnePlan) {
  const HostCsr A = pspmv::generate_skewed<double>(1 << 18);
  cudaStream_t streams[3];
  for (auto& s : streams) ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  {
    const Kokkos::Cuda analyzer(streams[2]);
    const Kokkos::Cuda space[2] = {Kokkos::Cuda(streams[0]), Kokkos::Cuda(streams[1])};
    for (const auto& o : scratch_options()) {
      const auto plan = pspmv::analyze(analyzer, A, o);
      using Plan = std::decay_t<decltype(plan)>;
      const std::vector<double> x[2] = {x_of(A.ncols, 0), x_of(A.ncols, 1)};
      const typename Plan::vector_type dx[2] = {device_x<Kokkos::Cuda>(x[0]), device_x<Kokkos::Cuda>(x[1])};
      const typename Plan::vector_type y[2] = {typename Plan::vector_type("y0", A.nrows),
                                               typename Plan::vector_type("y1", A.nrows)};
      const typename Plan::workspace_type ws[2] = {plan.make_workspace(), plan.make_workspace()};
      Kokkos::fence();
      constexpr int calls = 20;  // call c scales by c + 1 (see the OpenMP test)
      for (int c = 0; c < calls; ++c)
        for (int k = 0; k < 2; ++k) plan.multiply(space[k], c + 1.0, dx[k], 0.0, y[k], ws[k]);
      space[0].fence();
      space[1].fence();
      EXPECT_TRUE(check(A, plan, y[0], x[0], "stream 0", calls));
      EXPECT_TRUE(check(A, plan, y[1], x[1], "stream 1", calls));
    }
  }
  for (auto& s : streams) cudaStreamDestroy(s);
}
#endif
