// Machine profiles (pspmv calibrate): the nearest probe, analyze() taking its choices, the
// checks of a profile against the machine, the JSON file, and calibrate() itself.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "pspmv/profile_json.hpp"
#include "pspmv/pspmv.hpp"
#include "test_util.hpp"

namespace {

using Host = Kokkos::DefaultHostExecutionSpace;
using pspmv_test::matches_reference;
using pspmv_test::reference_spmv;

pspmv::ProfileProbe probe(const std::string& name, double mean, double cv, double spread, double team_gain,
                          double sell_gain) {
  pspmv::ProfileProbe p;
  p.name = name;
  p.value_bytes = 8;
  p.nrows = 1 << 24;  // x of 128 MiB: far beyond the caches
  p.mean = mean;
  p.cv = cv;
  p.col_spread = spread;
  p.team_gain = team_gain;
  p.sell_gain = sell_gain;
  return p;
}

pspmv::MachineProfile profile_for_this_host() {
  pspmv::MachineProfile m;
  m.machine = "test";
  m.space = Host().name();
  m.concurrency = Host().concurrency();
  m.min_csr_bytes = 0;  // every matrix counts as large here
  m.prior_weight = 0;   // estimates from the probes in reach alone (EstimatePoolsTheProbesInReach tests the prior)
  m.reach_weight = 0;   // lengths, locality and size alone (XReachSeparatesLocalProbes tests the reach)
  m.probes = {probe("regular-local", 7, 0.05, 0.005, 1.0, 1.0), probe("irregular-local", 4, 1.2, 0.002, 1.0, 1.0),
              probe("scattered", 12, 0.6, 0.33, 1.0, 1.0)};
  return m;
}

pspmv::RowStats stats(double mean, double cv, double spread) {
  pspmv::RowStats s;
  s.nrows = s.ncols = 1 << 24;
  s.mean = mean;
  s.cv = cv;
  s.col_spread = spread;
  return s;
}

// y = A x on the plan against the long-double reference.
template <class PlanT>
::testing::AssertionResult multiplies_correctly(const PlanT& plan, const pspmv::HostCsr<double, std::int64_t>& A) {
  std::vector<double> x(A.ncols), y0(A.nrows, 0.0), want, scale;
  for (std::int32_t j = 0; j < A.ncols; ++j) x[j] = 1.0 + (j % 7) * 0.25;
  reference_spmv(A, 1.0, x, 0.0, y0, want, scale);
  typename PlanT::vector_type dx("x", A.ncols), dy("y", A.nrows);
  auto hx = Kokkos::create_mirror_view(dx);
  for (std::int32_t j = 0; j < A.ncols; ++j) hx(j) = x[j];
  Kokkos::deep_copy(dx, hx);
  plan.multiply(1.0, dx, 0.0, dy);
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dy);
  std::vector<double> got(hy.data(), hy.data() + A.nrows);
  return matches_reference(A, got, want, scale);
}

TEST(Profile, NearestProbeByRowStatistics) {
  const auto m = profile_for_this_host();
  double d = -1;
  const auto* p = m.nearest(stats(3.8, 1.1, 0.001), 8, 1 << 30, &d);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->name, "irregular-local");
  EXPECT_LT(d, 0.2);
  // Same lengths, scattered columns: the scattered probe, 2 farther for locality alone.
  p = m.nearest(stats(10, 0.6, 0.3), 8, 1 << 30, &d);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->name, "scattered");
  // Near regular-local in lengths (0.49 away without locality), but scattered: 2.49 from it,
  // 1.87 from the scattered probe; so out of reach of both.
  EXPECT_GT(m.distance(stats(5, 0.05, 0.3), 1 << 30, m.probes[0]), m.max_distance);
  EXPECT_NEAR(m.distance(stats(5, 0.05, 0.005), 1 << 30, m.probes[0]), std::log2(7.0 / 5.0), 1e-12);
  EXPECT_EQ(m.nearest(stats(5, 0.05, 0.3), 8, 1 << 30), nullptr) << "local probes are 2 away from scattered columns";
  EXPECT_NE(m.nearest(stats(5, 0.05, 0.005), 8, 1 << 30), nullptr);
  EXPECT_EQ(m.nearest(stats(200, 0.1, 0.001), 8, 1 << 30), nullptr) << "far beyond every probe";
  EXPECT_EQ(m.nearest(stats(7, 0.05, 0.005), 4, 1 << 30), nullptr) << "no probe timed in float";
  auto big_only = m;
  big_only.min_csr_bytes = 1 << 20;
  EXPECT_EQ(big_only.nearest(stats(7, 0.05, 0.005), 8, (1 << 20) - 1), nullptr) << "below min_csr_bytes";
  EXPECT_NE(big_only.nearest(stats(7, 0.05, 0.005), 8, 1 << 20), nullptr);
}

TEST(Profile, EstimatePoolsTheProbesInReach) {
  auto m = profile_for_this_host();
  m.probes[0].team_gain = 1.2;  // regular-local
  m.probes[1].team_gain = 1.0;  // irregular-local
  m.probes[0].sell_gain = 0;    // SELL not timed there
  m.probes[1].sell_gain = 0.8;
  // Between the two local probes (distance about 0.96 and 0.92), out of the scattered one's reach.
  const auto s = stats(5.5, 0.6, 0.003);
  const double d0 = m.distance(s, 1 << 30, m.probes[0]), d1 = m.distance(s, 1 << 30, m.probes[1]);
  ASSERT_LE(d0, m.max_distance);
  ASSERT_LE(d1, m.max_distance);
  ASSERT_GT(m.distance(s, 1 << 30, m.probes[2]), m.max_distance);
  const auto e = m.estimate(s, 8, 1 << 30);
  ASSERT_NE(e.nearest, nullptr);
  EXPECT_EQ(e.nearest->name, "irregular-local");
  EXPECT_EQ(e.probes, 2);
  const double w0 = std::exp(-(d0 / m.bandwidth) * (d0 / m.bandwidth));
  const double w1 = std::exp(-(d1 / m.bandwidth) * (d1 / m.bandwidth));
  EXPECT_NEAR(e.team_gain, std::exp(w0 * std::log(1.2) / (w0 + w1)), 1e-12);
  EXPECT_GT(e.team_gain, 1.0);
  EXPECT_LT(e.team_gain, 1.2);
  EXPECT_DOUBLE_EQ(e.sell_gain, 0.8) << "only the probe that timed SELL counts for SELL";
  // With the machine-wide prior (geometric means over all three probes; SELL over the two that
  // timed it) at weight 1.
  m.prior_weight = 1;
  const auto ep = m.estimate(s, 8, 1 << 30);
  const double gt = (std::log(1.2) + std::log(1.0) + std::log(1.0)) / 3, gs = (std::log(0.8) + std::log(1.0)) / 2;
  EXPECT_NEAR(ep.team_gain, std::exp((w0 * std::log(1.2) + gt) / (w0 + w1 + 1)), 1e-12);
  EXPECT_NEAR(ep.sell_gain, std::exp((w1 * std::log(0.8) + gs) / (w1 + 1)), 1e-12);
  m.prior_weight = 0;
  // At a probe's own statistics its weight dominates.
  const auto at = m.estimate(stats(7, 0.05, 0.005), 8, 1 << 30);
  EXPECT_NEAR(at.team_gain, 1.2, 0.01);
  EXPECT_EQ(m.estimate(stats(200, 0.1, 0.001), 8, 1 << 30).nearest, nullptr);
  // Size is a feature once a probe's size is known: 16x larger costs 4 x size_weight = 1.0.
  auto sized = m.probes[0];
  sized.csr_bytes = 1 << 20;
  const auto at_probe = stats(sized.mean, sized.cv, sized.col_spread);
  EXPECT_DOUBLE_EQ(m.distance(at_probe, 1 << 20, sized), 0.0);
  EXPECT_DOUBLE_EQ(m.distance(at_probe, 1 << 24, sized), 4 * m.size_weight);
  EXPECT_DOUBLE_EQ(m.distance(at_probe, 1 << 16, sized), 4 * m.size_weight);
  // The prior is taken over the nearest probe's size set only: a small probe set that says 0.5
  // does not drag a large matrix's estimate.
  auto two = m;
  for (auto& p : two.probes) p.csr_bytes = std::int64_t{1} << 28, p.team_gain = 1.2;
  auto small = two.probes;
  for (auto& p : small) p.csr_bytes = 1 << 18, p.team_gain = 0.5, p.name += "-small";
  two.probes.insert(two.probes.end(), small.begin(), small.end());
  two.prior_weight = 1;
  EXPECT_NEAR(two.estimate(stats(7, 0.05, 0.005), 8, std::int64_t{1} << 28).team_gain, 1.2, 1e-12);
  EXPECT_NEAR(two.estimate(stats(7, 0.05, 0.005), 8, 1 << 18).team_gain, 0.5, 1e-12);
}

TEST(Profile, GainsPoolOnlyUnderTheirSchedule) {
  auto m = profile_for_this_host();
  m.prior_weight = 1;
  // The same local probe timed under two schedules: team_per_row lost under static_chunks (a
  // league of many one-thread teams) and won under nnz_balanced.
  auto under_static = probe("local-static", 7, 1.0, 0.002, 0.6, 0.9);
  auto under_balanced = probe("local-balanced", 7, 1.0, 0.002, 1.1, 0.9);
  using pspmv::Schedule;
  under_static.schedule = Schedule::static_chunks;
  under_balanced.schedule = Schedule::nnz_balanced;
  m.probes = {under_static, under_balanced};
  const auto s = stats(7, 1.0, 0.002);
  const auto balanced = m.estimate(s, 8, 1 << 30, Schedule::nnz_balanced);
  ASSERT_NE(balanced.nearest, nullptr);
  EXPECT_EQ(balanced.nearest->name, "local-balanced");
  EXPECT_EQ(balanced.probes, 1);
  EXPECT_NEAR(balanced.team_gain, 1.1, 1e-12) << "the probe and the prior of its schedule alone";
  EXPECT_NEAR(m.estimate(s, 8, 1 << 30, Schedule::static_chunks).team_gain, 0.6, 1e-12);
  EXPECT_EQ(m.estimate(s, 8, 1 << 30, Schedule::work_stealing).nearest, nullptr) << "no probe timed under it";
  EXPECT_NEAR(m.estimate(s, 8, 1 << 30).team_gain, std::sqrt(0.6 * 1.1), 1e-12) << "no schedule given: all";
  // A probe of unknown schedule counts for every schedule.
  m.probes[0].schedule.reset();
  EXPECT_EQ(m.estimate(s, 8, 1 << 30, Schedule::nnz_balanced).probes, 2);
  // analyze() asks for the schedule the matrix's CSR plan takes (named in the reason) and takes
  // the mapping the probe of that schedule favours: under each schedule the caller sets.
  const auto A = pspmv::generate_stencil<double, std::int64_t>(4, 4, 4, 7);
  m.probes[0].schedule = Schedule::static_chunks;
  m.probes[1].schedule = Schedule::nnz_balanced;
  for (auto& p : m.probes) p.mean = 5.5, p.cv = 0.15;  // near the stencil's rows
  pspmv::AnalyzeOptions o;
  o.profile = std::make_shared<const pspmv::MachineProfile>(m);
  for (const Schedule sched : {Schedule::static_chunks, Schedule::nnz_balanced}) {
    o.schedule = sched;
    const auto plan = pspmv::analyze<Host>(A, o);
    EXPECT_EQ(plan.schedule(), sched);
    EXPECT_NE(plan.reason().find("timed under " + pspmv::to_string(sched)), std::string::npos) << plan.reason();
    EXPECT_EQ(plan.mapping(),
              sched == Schedule::nnz_balanced ? pspmv::Mapping::team_per_row : pspmv::Mapping::thread_per_row)
        << plan.reason();
    EXPECT_TRUE(multiplies_correctly(plan, A));
  }
  // A schedule no probe was timed under: the compile-time model, and the reason says why.
  o.schedule = Schedule::work_stealing;
  const auto plan = pspmv::analyze<Host>(A, o);
  EXPECT_EQ(plan.mapping(), pspmv::Mapping::thread_per_row);
  EXPECT_NE(plan.reason().find("no probe timed under work_stealing"), std::string::npos) << plan.reason();
  // Without a caller's schedule, the one analyze() picks is the one the estimate used.
  o.schedule.reset();
  const auto own = pspmv::analyze<Host>(A, o);
  EXPECT_NE(own.reason().find("timed under " + pspmv::to_string(own.schedule())), std::string::npos) << own.reason();
}

TEST(Profile, PriorOverTheNearestProbesSizeSet) {
  // Two size sets whose probes' CSR bytes overlap (tile probes are whole blocks): the prior
  // follows size_set_bytes, not a window around the nearest probe's bytes.
  auto m = profile_for_this_host();
  m.prior_weight = 1;
  auto near = probe("small-set", 4, 1.2, 0.002, 1.2, 0);
  near.csr_bytes = 450 << 10;
  near.size_set_bytes = 256 << 10;
  auto same_set = probe("small-set-far", 26, 0.1, 0.002, 0.8, 0);  // out of reach: the prior alone
  same_set.csr_bytes = 200 << 10;
  same_set.size_set_bytes = 256 << 10;
  auto other_set = probe("medium-set-far", 26, 0.1, 0.002, 0.5, 0);  // 450 KiB of the 1 MiB set
  other_set.csr_bytes = 450 << 10;
  other_set.size_set_bytes = 1 << 20;
  m.probes = {near, same_set, other_set};
  const auto e = m.estimate(stats(4, 1.2, 0.002), 8, 450 << 10);
  ASSERT_NE(e.nearest, nullptr);
  EXPECT_EQ(e.nearest->name, "small-set");
  EXPECT_EQ(e.probes, 1);
  // Local weight 1 at log 1.2, prior (log 1.2 + log 0.8) / 2 at weight 1.
  EXPECT_NEAR(e.team_gain, std::exp((std::log(1.2) + (std::log(1.2) + std::log(0.8)) / 2) / 2), 1e-12);
  // Unknown size sets: a window of 3x around the nearest probe's CSR bytes takes all three.
  for (auto& p : m.probes) p.size_set_bytes = 0;
  const double all = (std::log(1.2) + std::log(0.8) + std::log(0.5)) / 3;
  EXPECT_NEAR(m.estimate(stats(4, 1.2, 0.002), 8, 450 << 10).team_gain, std::exp((std::log(1.2) + all) / 2), 1e-12);
}

TEST(Profile, XReachSeparatesLocalProbes) {
  auto m = profile_for_this_host();
  m.reach_weight = 0.5;
  // Two local probes of the same lengths: blocks of 2,048 rows (x reach about 5.5 KB) where SELL
  // lost, and of 8,192 rows (about 22 KB) where it won. Both cover 2^22 rows.
  auto short_reach = probe("short-reach", 3.9, 1.2, 0.33 * 2048 / (1 << 22), 1.0, 0.75);
  auto long_reach = probe("long-reach", 3.9, 1.2, 0.33 * 8192 / (1 << 22), 1.0, 1.25);
  short_reach.nrows = long_reach.nrows = 1 << 22;
  m.probes = {short_reach, long_reach};
  EXPECT_NEAR(m.reach(short_reach.col_spread, short_reach.nrows, 8), 0.33 * 2048 * 8, 1e-6);
  EXPECT_DOUBLE_EQ(m.reach(0, 1 << 22, 8), 64) << "clamped to one cache line";
  EXPECT_DOUBLE_EQ(m.reach(0.33, 1 << 22, 8), static_cast<double>(m.max_reach_bytes)) << "and to max_reach_bytes";
  // The reach term: reach_weight per doubling.
  auto s = stats(3.9, 1.2, 0.33 * 2048 / (1 << 22));
  s.nrows = s.ncols = 1 << 22;
  EXPECT_NEAR(m.distance(s, 0, short_reach), 0.0, 1e-12);
  EXPECT_NEAR(m.distance(s, 0, long_reach), 0.5 * 2, 1e-12) << "4x the reach: 2 doublings";
  // A matrix of 8,361-row blocks (as tiled hep-th) pools mostly the long-reach probe: SELL.
  auto hep = stats(3.8, 1.14, 0.22 * 8361 / (1 << 23));
  hep.nrows = hep.ncols = 1 << 23;
  const auto e_hep = m.estimate(hep, 8, 0);
  ASSERT_NE(e_hep.nearest, nullptr);
  EXPECT_EQ(e_hep.nearest->name, "long-reach");
  EXPECT_GT(e_hep.sell_gain, m.min_gain);
  // ... and one of 1,024-row blocks the short-reach probe: CSR.
  auto small_blocks = stats(3.8, 1.14, 0.33 * 1024 / (1 << 23));
  small_blocks.nrows = small_blocks.ncols = 1 << 23;
  const auto e_small = m.estimate(small_blocks, 8, 0);
  ASSERT_NE(e_small.nearest, nullptr);
  EXPECT_EQ(e_small.nearest->name, "short-reach");
  EXPECT_LT(e_small.sell_gain, 1.0);
  // Without the reach both probes lie at the same distance and their gains cancel.
  m.reach_weight = 0;
  EXPECT_NEAR(m.estimate(hep, 8, 0).sell_gain, std::sqrt(0.75 * 1.25), 1e-12);
}

TEST(Profile, AnalyzeTakesTheNearestProbesChoices) {
  // A 3D 7-point stencil: mean 6.4 at this size, cv 0.13, local columns: near "regular-local".
  const auto A = pspmv::generate_stencil<double, std::int64_t>(12, 12, 12, 7);
  auto m = profile_for_this_host();
  pspmv::AnalyzeOptions o;

  // Neither gain reaches min_gain: the host default, CSR thread_per_row, with the reason.
  o.profile = std::make_shared<const pspmv::MachineProfile>(m);
  auto plan = pspmv::analyze<Host>(A, o);
  EXPECT_EQ(plan.format(), pspmv::Format::csr);
  EXPECT_EQ(plan.mapping(), pspmv::Mapping::thread_per_row);
  EXPECT_NE(plan.reason().find("nearest regular-local"), std::string::npos) << plan.reason();
  EXPECT_NE(plan.reason().find("team_per_row's gain 1.000 < 1.05"), std::string::npos) << plan.reason();

  // team_per_row measured 1.2x faster there: team_per_row at the default vector length.
  m.probes[0].team_gain = 1.2;
  o.profile = std::make_shared<const pspmv::MachineProfile>(m);
  plan = pspmv::analyze<Host>(A, o);
  EXPECT_EQ(plan.format(), pspmv::Format::csr);
  EXPECT_EQ(plan.mapping(), pspmv::Mapping::team_per_row);
  EXPECT_EQ(plan.launch().vector_length, pspmv::ExecTraits<Host>::simd_lanes<double>());
  EXPECT_NE(plan.reason().find("probes ran it 1.200x faster than thread_per_row"), std::string::npos) << plan.reason();
  EXPECT_TRUE(multiplies_correctly(plan, A));
  // A mapping the caller set wins over the profile.
  auto forced = o;
  forced.mapping = pspmv::Mapping::thread_per_row;
  EXPECT_EQ(pspmv::analyze<Host>(A, forced).mapping(), pspmv::Mapping::thread_per_row);

  // SELL measured 1.3x faster there: SELL (its bytes fit the profile's limit of 1.25x).
  m.probes[0].sell_gain = 1.3;
  o.profile = std::make_shared<const pspmv::MachineProfile>(m);
  plan = pspmv::analyze<Host>(A, o);
  EXPECT_EQ(plan.format(), pspmv::Format::sell) << plan.reason();
  EXPECT_NE(plan.reason().find("SELL ran them 1.300x faster than CSR"), std::string::npos) << plan.reason();
  EXPECT_TRUE(multiplies_correctly(plan, A));
  // ... unless the caller's memory limit is below its bytes.
  auto tight = o;
  tight.sell_memory_limit = 1.0;
  EXPECT_EQ(pspmv::analyze<Host>(A, tight).format(), pspmv::Format::csr);

  // A matrix below min_csr_bytes keeps the compile-time model, untouched by the profile.
  m.min_csr_bytes = static_cast<std::int64_t>(A.bytes()) + 1;
  o.profile = std::make_shared<const pspmv::MachineProfile>(m);
  plan = pspmv::analyze<Host>(A, o);
  EXPECT_EQ(plan.reason().find("profile"), std::string::npos) << plan.reason();
  EXPECT_EQ(plan.describe(), pspmv::analyze<Host>(A).describe());
}

TEST(Profile, RejectsAProfileOfAnotherMachine) {
  const auto A = pspmv::generate_stencil<double, std::int64_t>(8, 8, 8, 7);
  auto m = profile_for_this_host();
  m.concurrency += 1;
  pspmv::AnalyzeOptions o;
  o.profile = std::make_shared<const pspmv::MachineProfile>(m);
  try {
    (void)pspmv::analyze<Host>(A, o);
    FAIL() << "a profile of another thread count was accepted";
  } catch (const pspmv::InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(std::to_string(m.concurrency) + " threads"), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(Host().concurrency()) + " threads"), std::string::npos) << what;
  }
  m = profile_for_this_host();
  m.min_gain = 0.5;
  o.profile = std::make_shared<const pspmv::MachineProfile>(m);
  EXPECT_THROW((void)pspmv::analyze<Host>(A, o), pspmv::InvalidArgument);
}

TEST(Profile, JsonRoundTripAndErrorsNameTheFile) {
  auto m = profile_for_this_host();
  m.probes[1].nrows = 123;
  m.probes[1].csr_bytes = 4567;
  m.probes[1].sell_seconds = 2.5e-3;
  m.probes[1].team_gain = 1.125;
  m.probes[1].sell_gain = 0.875;
  m.probes[1].schedule = pspmv::Schedule::nnz_balanced;
  m.probes[1].size_set_bytes = 1 << 20;
  // Every rule parameter off its default, so that a writer or reader that drops one is caught.
  m.min_gain = 1.03;
  m.max_distance = 1.25;
  m.bandwidth = 0.75;
  m.prior_weight = 2;
  m.size_weight = 0.5;
  m.reach_weight = 0.75;
  m.max_reach_bytes = 4096;
  m.sell_memory_limit = 1.5;
  m.scattered_spread = 0.2;
  m.scattered_min_x_bytes = 12345;
  m.min_csr_bytes = 678;
  const std::string path = ::testing::TempDir() + "pspmv_profile_test.json";
  pspmv::write_profile(path, m);
  const auto back = pspmv::read_profile(path);
  EXPECT_EQ(back->space, m.space);
  EXPECT_EQ(back->concurrency, m.concurrency);
  EXPECT_EQ(back->min_csr_bytes, m.min_csr_bytes);
  ASSERT_EQ(back->probes.size(), m.probes.size());
  EXPECT_EQ(back->probes[1].name, "irregular-local");
  EXPECT_EQ(back->probes[1].nrows, 123);
  EXPECT_EQ(back->probes[1].csr_bytes, 4567);
  EXPECT_DOUBLE_EQ(back->probes[1].team_gain, 1.125);
  EXPECT_DOUBLE_EQ(back->probes[1].sell_gain, 0.875);
  ASSERT_TRUE(back->probes[1].schedule.has_value());
  EXPECT_EQ(*back->probes[1].schedule, pspmv::Schedule::nnz_balanced);
  EXPECT_FALSE(back->probes[0].schedule.has_value()) << "unknown stays unknown";
  EXPECT_EQ(back->probes[1].size_set_bytes, 1 << 20);
  EXPECT_DOUBLE_EQ(back->min_gain, 1.03);
  EXPECT_DOUBLE_EQ(back->max_distance, 1.25);
  EXPECT_DOUBLE_EQ(back->bandwidth, 0.75);
  EXPECT_DOUBLE_EQ(back->prior_weight, 2);
  EXPECT_DOUBLE_EQ(back->size_weight, 0.5);
  EXPECT_DOUBLE_EQ(back->reach_weight, 0.75);
  EXPECT_EQ(back->max_reach_bytes, 4096);
  EXPECT_DOUBLE_EQ(back->sell_memory_limit, 1.5);
  EXPECT_DOUBLE_EQ(back->scattered_spread, 0.2);
  EXPECT_EQ(back->scattered_min_x_bytes, 12345);
  EXPECT_DOUBLE_EQ(back->probes[1].cv, 1.2);
  EXPECT_DOUBLE_EQ(back->probes[1].sell_seconds, 2.5e-3);

  auto expect_parse_error = [&](const std::string& text, const std::string& needle) {
    {
      std::ofstream out(path);
      out << text;
    }
    try {
      (void)pspmv::read_profile(path);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const pspmv::ParseError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find(needle), std::string::npos) << what;
    }
  };
  expect_parse_error("{\"format\": \"pspmv machine profile 4\", ", "parse error");
  for (const char* older : {"1", "2", "3"})
    expect_parse_error(std::string("{\"format\": \"pspmv machine profile ") + older + "\"}", "calibrate");
  expect_parse_error("{\"format\": \"pspmv machine profile 4\", \"machine\": \"x\", \"space\": \"OpenMP\"}",
                     "concurrency");
  // Valid JSON of the right shape, values out of range: named, with the file.
  {
    auto text_of = [&](const pspmv::MachineProfile& p) {  // the file write_profile() writes
      pspmv::write_profile(path, p);
      std::ifstream in(path);
      std::stringstream text;
      text << in.rdbuf();
      return text.str();
    };
    auto bad = m;
    bad.probes[2].value_bytes = 3;
    expect_parse_error(text_of(bad), "probe 2 (scattered)");
    bad = m;
    bad.min_gain = 0.9;
    expect_parse_error(text_of(bad), "min_gain 0.9");
    bad = m;
    bad.reach_weight = -0.5;
    expect_parse_error(text_of(bad), "reach_weight -0.5");
    bad = m;
    bad.max_reach_bytes = 32;
    EXPECT_THROW(bad.validate(), pspmv::InvalidArgument) << "max_reach_bytes below one cache line";
    // A schedule that is not one: the probe is named.
    std::string typo = text_of(m);
    const auto at = typo.find("\"nnz_balanced\"");
    ASSERT_NE(at, std::string::npos);
    typo.replace(at, 14, "\"nnz_balance\"");
    expect_parse_error(typo, "probe irregular-local: unknown schedule 'nnz_balance'");
  }
  // A file that cannot be written is named, and no temporary is left.
  EXPECT_THROW(pspmv::write_profile(::testing::TempDir() + "no/such/dir/p.json", m), pspmv::Error);
  std::remove(path.c_str());
  EXPECT_THROW((void)pspmv::read_profile(path), pspmv::ParseError);
}

TEST(Calibrate, MeasuresEveryProbe) {
  pspmv::CalibrateOptions c;
  c.probe_bytes = std::int64_t{4} << 20;  // the 8,192-row tile probes' blocks (up to about 800 KB) are smaller
  c.medium_probe_bytes = std::int64_t{1} << 20;
  c.small_probe_bytes = std::int64_t{256} << 10;
  c.reps = 1;
  c.rounds = 1;
  c.min_sample_seconds = 0;
  int lines = 0;
  c.progress = [&](const std::string&) { ++lines; };
  const auto m = pspmv::calibrate<Host, double>(c);
  EXPECT_EQ(m.space, Host().name());
  EXPECT_EQ(m.concurrency, Host().concurrency());
  // Three sizes of every probe, but a tile probe of one block (tile:rmat:13:8, about 800 KB) is
  // the same matrix at 1 MiB and 256 KiB: measured once.
  ASSERT_EQ(m.probes.size(), 3 * pspmv::calibration_probe_count() - 1) << "three sizes of every probe";
  EXPECT_EQ(lines, static_cast<int>(m.probes.size()));
  for (const auto& p : m.probes) {
    // Within 2x of the size asked for (stencil sides and R-MAT scales are whole numbers): the
    // first fourteen the large size, the next fourteen the medium one, the rest the small one.
    // A tile probe's block may exceed a small size: it is then one block (":1" copies).
    const auto i = static_cast<std::size_t>(&p - m.probes.data());
    const std::size_t n = pspmv::calibration_probe_count();
    const std::int64_t asked = i < n ? c.probe_bytes : i < 2 * n ? c.medium_probe_bytes : c.small_probe_bytes;
    const bool one_block = p.name.rfind("tile:", 0) == 0 && p.name.size() > 2 &&
                           p.name.compare(p.name.size() - 2, 2, ":1") == 0;
    if (!one_block) {
      EXPECT_GT(p.csr_bytes, asked / 2) << p.name;
      EXPECT_LT(p.csr_bytes, asked * 2) << p.name;
    } else {
      EXPECT_GT(p.csr_bytes, asked / 2) << p.name;
      EXPECT_LT(p.csr_bytes, std::int64_t{1} << 20) << p.name;
    }
    EXPECT_EQ(p.value_bytes, 8);
    EXPECT_EQ(p.size_set_bytes, asked) << p.name;
    EXPECT_TRUE(p.schedule.has_value()) << p.name << ": calibrate records the schedule it timed under";
    EXPECT_GT(p.nnz, 0) << p.name;
    EXPECT_GT(p.csr_thread_seconds, 0) << p.name;
    EXPECT_GT(p.csr_team_seconds, 0) << p.name;
    EXPECT_NEAR(p.team_gain, p.csr_thread_seconds / p.csr_team_seconds, 1e-12) << p.name;
    if (p.sell_bytes_ratio <= m.sell_memory_limit) {
      EXPECT_GT(p.sell_seconds, 0) << p.name;
      EXPECT_NEAR(p.sell_gain, std::min(p.csr_thread_seconds, p.csr_team_seconds) / p.sell_seconds, 1e-12) << p.name;
    } else {
      EXPECT_EQ(p.sell_gain, 0) << p.name << " has SELL over the limit, so it was not timed";
    }
    // The probes span what they claim: each family's statistics (col_spread itself; whether a
    // matrix counts as scattered also depends on its x, see EstimatePoolsTheProbesInReach).
    const bool large = i < n;  // far more blocks than one
    if (p.name.rfind("stencil", 0) == 0) {
      EXPECT_LT(p.cv, 0.3) << p.name;
      EXPECT_LT(p.col_spread, 0.1) << p.name;
    } else if (p.name.rfind("random", 0) == 0 || p.name.rfind("rmat", 0) == 0) {
      EXPECT_GT(p.col_spread, 0.3) << p.name;
    } else {
      EXPECT_EQ(p.name.rfind("tile:rmat", 0), 0u) << p.name;
      if (large) EXPECT_LT(p.col_spread, m.scattered_spread) << p.name << ": block-diagonal copies";
      EXPECT_GT(p.cv, 0.7) << p.name;
      // Blocks of 8,192 rows reach beyond a 48 KiB L1's third; those of at most 2,048 rows do not.
      const double reach = m.reach(p.col_spread, p.nrows, p.value_bytes);
      if (p.name.rfind("tile:rmat:13:", 0) == 0) EXPECT_GT(reach, 16000) << p.name;
      else EXPECT_LT(reach, 8000) << p.name;
    }
  }
  pspmv::CalibrateOptions tiny = c;
  tiny.probe_bytes = 1000;
  EXPECT_THROW((void)(pspmv::calibrate<Host, double>(tiny)), pspmv::InvalidArgument);
  tiny = c;
  tiny.medium_probe_bytes = 1000;
  EXPECT_THROW((void)(pspmv::calibrate<Host, double>(tiny)), pspmv::InvalidArgument);
  if constexpr (pspmv::ExecTraits<Kokkos::DefaultExecutionSpace>::is_gpu) {
    EXPECT_THROW((void)(pspmv::calibrate<Kokkos::DefaultExecutionSpace, double>(c)), pspmv::InvalidArgument);
    // A profile given to a GPU plan is refused, not silently ignored.
    pspmv::AnalyzeOptions o;
    o.profile = std::make_shared<const pspmv::MachineProfile>(m);
    const auto A = pspmv::generate_stencil<double, std::int64_t>(8, 8, 8, 7);
    EXPECT_THROW((void)pspmv::analyze<Kokkos::DefaultExecutionSpace>(A, o), pspmv::InvalidArgument);
  }
}

}  // namespace
