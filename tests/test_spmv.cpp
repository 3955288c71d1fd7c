// Multiply correctness: every format x mapping x schedule x precision, on every enabled
// execution space, against the long-double reference: generated edge cases, the shared
// matrices, the BLAS alpha/beta semantics, the run-time schedules' queues and the unrolled
// gathers.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "test_util.hpp"

using namespace pspmv_test;

namespace {

template <class Cfg>
class SpmvTest : public ConfigTest<Cfg> {
 public:
  using Exec = typename Cfg::exec;
  using Host = typename ConfigTest<Cfg>::Host;
  using ConfigTest<Cfg>::check;

  /// Every format x mapping x schedule, each with a few launch shapes, alpha/beta cases
  /// included; SELL with C in {4, 8, 16, 32} and sigma in {1, C, 8C, all rows}.
  static void check_all_variants(const Host& A, const std::string& what) {
    for (auto m : pspmv::all_mappings) {
      for (auto s : pspmv::all_schedules) {
        if (!pspmv::schedule_runs(s, m, pspmv::ExecTraits<Exec>::is_gpu)) continue;  // serial: host thread_per_row
        for (int C : {4, 8, 16, 32}) {
          for (std::int64_t sigma : {std::int64_t{1}, std::int64_t{C}, std::int64_t{8} * C, std::int64_t{A.nrows} + 1}) {
            pspmv::AnalyzeOptions opt;
            opt.format = pspmv::Format::sell;
            opt.slice_height = C;
            opt.sigma = sigma;
            opt.mapping = m;
            opt.schedule = s;
            const std::string tag = what + " sell C=" + std::to_string(C) + " sigma=" + std::to_string(sigma) + " " +
                                    pspmv::to_string(m) + "/" + pspmv::to_string(s);
            check(A, opt, 1.5, 0.0, tag);
            if (sigma == 8 * C) check(A, opt, -0.5, 2.0, tag);
            if ((C == 8 && sigma == 8 * C) || (C == 32 && sigma == 1)) {
              // Long rows out of the slices: a low threshold splits many rows.
              pspmv::AnalyzeOptions lo = opt;
              lo.sell_long_row = 4;
              for (const bool split : {false, true}) {
                lo.sell_long_split = split;
                const std::string how = split ? " long>4 split" : " long>4 warp";
                check(A, lo, 1.5, 0.0, tag + how);
                check(A, lo, -0.5, 2.0, tag + how);
              }
              lo.sell_long_split.reset();
              lo.sell_long_row = -1;
              check(A, lo, 1.5, 0.0, tag + " no-long");
            }
            if (C == 8 && sigma == 8 * C) {
              opt.chunk_size = 3;
              opt.vector_length = 4;
              opt.team_size = Exec().concurrency() >= 2 ? 2 : 1;
              opt.num_blocks = 5;
              check(A, opt, 1.5, 0.0, tag + " small-chunks");
            }
          }
        }
        pspmv::AnalyzeOptions opt;
        opt.format = pspmv::Format::csr;
        opt.mapping = m;
        opt.schedule = s;
        const std::string tag = what + " " + pspmv::to_string(m) + "/" + pspmv::to_string(s);
        check(A, opt, 1.0, 0.0, tag);
        check(A, opt, -0.5, 2.0, tag);
        // Small chunks and teams: many scheduling units, rows split over lanes.
        opt.chunk_size = 3;
        opt.vector_length = 4;
        opt.team_size = Exec().concurrency() >= 2 ? 2 : 1;
        opt.num_blocks = 5;
        check(A, opt, 1.5, 0.0, tag + " small-chunks");
      }
    }
  }
};

TYPED_TEST_SUITE(SpmvTest, Configs, ConfigNames);

// The GPU's unrolled gathers (ExecTraits::gather_unroll > 1: grouped loads, the masked last
// group, lanes striding a shared row) run on the host too, so CI (no GPU) checks them.
template <int U, int LU, class PlanT, class V>
std::vector<double> run_unrolled(const PlanT& plan, const std::vector<double>& x, double alpha, double beta,
                                 const std::vector<double>& y0) {
  typename PlanT::vector_type dx("x", x.size()), dy("y", y0.size());
  auto hx = Kokkos::create_mirror_view(dx);
  auto hy = Kokkos::create_mirror_view(dy);
  for (std::size_t j = 0; j < x.size(); ++j) hx(j) = static_cast<V>(x[j]);
  for (std::size_t i = 0; i < y0.size(); ++i) hy(i) = static_cast<V>(y0[i]);
  Kokkos::deep_copy(dx, hx);
  Kokkos::deep_copy(dy, hy);
  plan.template multiply_unrolled<U, LU>(static_cast<V>(alpha), dx, static_cast<V>(beta), dy);
  Kokkos::fence();
  Kokkos::deep_copy(hy, dy);
  std::vector<double> got(y0.size());
  for (std::size_t i = 0; i < got.size(); ++i) got[i] = static_cast<double>(hy(i));
  return got;
}

}  // namespace

// The lesson's pair at 1024 rows (32 long rows of 419 among rows of 3): every variant's
// padding and split paths, at a quarter of the size this test had, which was the larger part of
// CI's sanitizer pass. The lane-slot tests check the pair's shape at 524,288 rows; its products
// are checked at 4096 rows by tool_bench_verifies and at 16.8M rows by pspmv bench on the device.
TYPED_TEST(SpmvTest, LessonPair) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  this->check_all_variants(pspmv::generate_even<V, O>(1024), "even");
  this->check_all_variants(pspmv::generate_skewed<V, O>(1024), "skewed");
}

TYPED_TEST(SpmvTest, Random) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  this->check_all_variants(pspmv::generate_random<V, O>(3001, 2999, 9.0, 11), "random");
}

TYPED_TEST(SpmvTest, EmptyRowsAtStartMiddleEnd) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  const std::int32_t n = 500;
  auto A = from_rows<V, O>(n, n, [&](std::int32_t i) {
    std::vector<std::int32_t> c;
    const bool empty = i < 37 || (i >= 200 && i < 260) || i >= n - 41 || i % 7 == 3;
    if (!empty)
      for (std::int32_t k = 0; k < 1 + i % 23; ++k) c.push_back((i * 13 + k * 17) % n);
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  });
  this->check_all_variants(A, "empty-rows");
}

TYPED_TEST(SpmvTest, RowLongerThanAnyTeam) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  const std::int32_t n = 6000;
  auto A = from_rows<V, O>(300, n, [&](std::int32_t i) {
    std::vector<std::int32_t> c;
    const std::int32_t len = i == 150 ? n : (i == 0 ? 2049 : 2 + i % 5);
    for (std::int32_t k = 0; k < len; ++k) c.push_back(k);
    return c;
  });
  this->check_all_variants(A, "long-row");
}

TYPED_TEST(SpmvTest, MoreThreadsThanRows) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  auto A = from_rows<V, O>(3, 40, [](std::int32_t i) {
    std::vector<std::int32_t> c;
    for (std::int32_t k = 0; k < 5 + 7 * i; ++k) c.push_back(k);
    return c;
  });
  this->check_all_variants(A, "3-rows");
}

TYPED_TEST(SpmvTest, DegenerateShapes) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  // 0 x 0, 0 x n, n x 0, 1 x n, n x 1, rectangular both ways, all-zero rows (nnz = 0).
  this->check_all_variants(from_rows<V, O>(0, 0, [](std::int32_t) { return std::vector<std::int32_t>{}; }), "0x0");
  this->check_all_variants(from_rows<V, O>(0, 9, [](std::int32_t) { return std::vector<std::int32_t>{}; }), "0x9");
  this->check_all_variants(from_rows<V, O>(9, 0, [](std::int32_t) { return std::vector<std::int32_t>{}; }), "9x0");
  this->check_all_variants(from_rows<V, O>(1, 777, [](std::int32_t) {
    std::vector<std::int32_t> c;
    for (std::int32_t k = 0; k < 777; k += 2) c.push_back(k);
    return c;
  }), "1xn");
  this->check_all_variants(from_rows<V, O>(777, 1, [](std::int32_t i) {
    return i % 3 ? std::vector<std::int32_t>{0} : std::vector<std::int32_t>{};
  }), "nx1");
  this->check_all_variants(pspmv::generate_random<V, O>(50, 1200, 30.0, 3), "wide");
  this->check_all_variants(pspmv::generate_random<V, O>(1200, 50, 4.0, 5), "tall");
  this->check_all_variants(from_rows<V, O>(64, 64, [](std::int32_t) { return std::vector<std::int32_t>{}; }), "nnz0");
}

TYPED_TEST(SpmvTest, AlphaBetaSemantics) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  auto A = pspmv::generate_random<V, O>(700, 700, 6.0, 17);
  for (auto m : pspmv::all_mappings)
    for (auto s : pspmv::all_schedules) {
      if (!pspmv::schedule_runs(s, m, pspmv::ExecTraits<typename TestFixture::Exec>::is_gpu)) continue;
      pspmv::AnalyzeOptions opt;
      opt.mapping = m;
      opt.schedule = s;
      this->check(A, opt, 0.0, 0.0, "alpha=0,beta=0 (y := 0, NaN must not survive)");
      this->check(A, opt, 0.0, 3.0, "alpha=0 (only scales y)");
      this->check(A, opt, 2.0, 1.0, "beta=1");
      this->check(A, opt, 1.0, -1.0, "beta=-1");
    }
}

// The run-time schedules (dynamic_chunks, work_stealing) hand out chunks from queues held by
// the plan: every call must set them up again, every row must be computed exactly once. One
// plan, called five times with y = A x + y on y = 1 (a row computed twice would add A x twice,
// a row skipped would stay 1), for each format and mapping, with more chunks than threads and
// with fewer, and with team_size 2 where the space allows it.
TYPED_TEST(SpmvTest, DynamicChunksEveryCallComputesEveryRow) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  using PlanT = typename TestFixture::PlanT;
  auto A = pspmv::generate_skewed<V, O>(3008);
  std::vector<double> xv(A.ncols), ones(A.nrows, 1.0);
  for (std::size_t j = 0; j < xv.size(); ++j) xv[j] = static_cast<double>(static_cast<V>(0.25 + 0.001 * (j % 97)));
  const auto ref = pspmv::reference::spmv(A, 1.0, xv, 1.0, ones);
  for (auto f : pspmv::all_formats)
    for (auto m : pspmv::all_mappings)
      for (auto s : {pspmv::Schedule::dynamic_chunks, pspmv::Schedule::work_stealing})
        for (std::int64_t chunk : {std::int64_t{8}, std::int64_t{2048}})
          for (int team_size : {0, 2}) {
            if (team_size && m != pspmv::Mapping::team_per_row) continue;
            pspmv::AnalyzeOptions opt;
            opt.format = f;
            opt.mapping = m;
            opt.schedule = s;
            opt.chunk_size = chunk;
            opt.team_size = team_size;
            std::optional<PlanT> made;
            try {
              made.emplace(pspmv::analyze<Exec>(A, opt));
            } catch (const pspmv::InvalidArgument& e) {
              // Only a team of 2 may exceed the space's largest team (Serial: 1).
              ASSERT_EQ(team_size, 2) << e.what();
              continue;
            }
            const PlanT& plan = *made;
            ASSERT_EQ(plan.schedule(), s);
            if (team_size) ASSERT_EQ(plan.launch().team_size, 2) << plan.describe();
            typename PlanT::vector_type dx("x", A.ncols), dy("y", A.nrows);
            auto hx = Kokkos::create_mirror_view(dx);
            auto hy = Kokkos::create_mirror_view(dy);
            for (std::size_t j = 0; j < xv.size(); ++j) hx(j) = static_cast<V>(xv[j]);
            Kokkos::deep_copy(dx, hx);
            for (int call = 0; call < 5; ++call) {
              Kokkos::deep_copy(dy, V(1));
              plan.multiply(V(1), dx, V(1), dy);
              Kokkos::fence();
              Kokkos::deep_copy(hy, dy);
              std::vector<double> got(A.nrows);
              for (std::size_t i = 0; i < got.size(); ++i) got[i] = static_cast<double>(hy(i));
              ASSERT_TRUE(matches_reference(A, got, ref))
                  << "call " << call << " of [" << plan.describe() << "]";
            }
          }
}

TYPED_TEST(SpmvTest, SharedMatrices) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  const std::string dir = shared_matrices_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/matrices not found (set PSPMV_MATRICES to its path)";
  const auto manifest = read_manifest(dir);
  ASSERT_FALSE(manifest.empty()) << "no rows in " << dir << "/MANIFEST.tsv";
  for (const auto& m : manifest) {
    SCOPED_TRACE(m.file);
    auto A = pspmv::read_matrix_market<V, O>(dir + "/" + m.file);
    EXPECT_EQ(A.nrows, m.rows);
    EXPECT_EQ(A.ncols, m.cols);
    EXPECT_EQ(static_cast<std::int64_t>(A.nnz()), m.expanded_nnz);
    this->check_all_variants(A, m.file);
  }
}

TYPED_TEST(SpmvTest, UnrolledGathersOnTheHost) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  if constexpr (pspmv::ExecTraits<Exec>::is_gpu) {
    GTEST_SKIP() << "a GPU runs the unrolled kernels by default (every other test)";
  } else {
    // Rows of 0 to 40 entries and one of 900: every remainder of the groups, long rows.
    auto A = from_rows<V, O>(700, 1000, [](std::int32_t i) {
      std::vector<std::int32_t> c;
      const std::int32_t len = i == 350 ? 900 : (i * 7) % 41;
      for (std::int32_t k = 0; k < len; ++k) c.push_back((i * 3 + k * 11) % 1000);
      std::sort(c.begin(), c.end());
      c.erase(std::unique(c.begin(), c.end()), c.end());
      return c;
    });
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> x(A.ncols), y0(A.nrows);
    for (auto& v : x) v = static_cast<double>(static_cast<V>(dist(rng)));
    for (auto& v : y0) v = static_cast<double>(static_cast<V>(dist(rng)));
    const auto ref = pspmv::reference::spmv(A, 1.5, x, -0.5, y0);
    for (auto f : pspmv::all_formats)
      for (auto m : pspmv::all_mappings)
        for (int split = 0; split < (f == pspmv::Format::sell ? 2 : 1); ++split) {
          pspmv::AnalyzeOptions opt;
          opt.format = f;
          opt.mapping = m;
          opt.schedule = pspmv::Schedule::static_chunks;
          opt.vector_length = 4;
          if (f == pspmv::Format::sell) {
            opt.slice_height = 8;
            opt.sell_long_row = 16;
            opt.sell_long_split = split == 1;
          }
          const auto plan = pspmv::analyze<Exec>(A, opt);
          const std::string what = plan.describe();
          EXPECT_TRUE(matches_reference(A, run_unrolled<4, 4, decltype(plan), V>(plan, x, 1.5, -0.5, y0), ref))
              << "U=4: " << what;
          EXPECT_TRUE(matches_reference(A, run_unrolled<3, 2, decltype(plan), V>(plan, x, 1.5, -0.5, y0), ref))
              << "U=3, long U=2: " << what;
        }
  }
}


// IEEE specials in the matrix: the reference row holding a NaN is NaN, the row holding +Inf
// (times x) is an infinity of x's sign; every variant must give exactly those, and the check
// (reference::row_matches) must accept them and hold only the finite rows to the tolerance.
TYPED_TEST(SpmvTest, IeeeSpecialsInTheMatrix) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  const TempPath path("ieee_specials.mtx");
  {
    std::ofstream f(path.str());
    f << "%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 2.5\n1 2 nan\n2 2 inf\n3 1 -1\n3 3 4\n";
  }
  const auto A = pspmv::read_matrix_market<V, O>(path);
  ASSERT_EQ(A.nnz(), 5);
  const std::vector<double> x = {0.5, -0.25, 0.75};
  const auto ref = pspmv::reference::spmv(A, 1.0, x);
  ASSERT_TRUE(std::isnan(ref.y[0]));
  ASSERT_TRUE(std::isinf(ref.y[1]) && ref.y[1] < 0);  // +Inf times -0.25
  ASSERT_TRUE(std::isfinite(ref.y[2]));
  // The check itself: NaN matches NaN only, an infinity only the same infinity.
  EXPECT_TRUE(pspmv::reference::row_matches<V>(std::nan(""), ref.y[0], ref.scale[0], 2));
  EXPECT_FALSE(pspmv::reference::row_matches<V>(0.0, ref.y[0], ref.scale[0], 2));
  EXPECT_TRUE(pspmv::reference::row_matches<V>(-INFINITY, ref.y[1], ref.scale[1], 1));
  EXPECT_FALSE(pspmv::reference::row_matches<V>(INFINITY, ref.y[1], ref.scale[1], 1));
  EXPECT_FALSE(pspmv::reference::row_matches<V>(std::nan(""), ref.y[1], ref.scale[1], 1));
  EXPECT_FALSE(pspmv::reference::row_matches<V>(std::nan(""), ref.y[2], ref.scale[2], 2));
  EXPECT_FALSE(pspmv::reference::row_matches<V>(ref.y[2] + 1.0, ref.y[2], ref.scale[2], 2));
  using PlanT = typename TestFixture::PlanT;
  for (auto f : pspmv::all_formats)
    for (auto m : pspmv::all_mappings)
      for (auto s : pspmv::all_schedules) {
        if (!pspmv::schedule_runs(s, m, pspmv::ExecTraits<typename TestFixture::Exec>::is_gpu)) continue;
        pspmv::AnalyzeOptions opt;
        opt.format = f;
        opt.mapping = m;
        opt.schedule = s;
        PlanT plan = pspmv::analyze<typename TestFixture::Exec>(A, opt);
        typename PlanT::vector_type dx("x", 3), dy("y", 3);
        auto hx = Kokkos::create_mirror_view(dx);
        for (int j = 0; j < 3; ++j) hx(j) = static_cast<V>(x[j]);
        Kokkos::deep_copy(dx, hx);
        Kokkos::deep_copy(dy, std::numeric_limits<V>::quiet_NaN());
        plan.multiply(V(1), dx, V(0), dy);
        Kokkos::fence();
        auto hy = Kokkos::create_mirror_view(dy);
        Kokkos::deep_copy(hy, dy);
        const std::vector<double> got = {double(hy(0)), double(hy(1)), double(hy(2))};
        EXPECT_TRUE(pspmv_test::matches_reference(A, got, ref)) << plan.describe();
      }
}

// A host plan's thread count (AnalyzeOptions::threads): every parallel schedule of both
// formats computes every row at each count from 1 to the space's concurrency, on more rows
// than threads and on fewer; a count beyond the concurrency, above 1 with the serial schedule,
// below the concurrency with a team mapping, or on a GPU is refused.
TYPED_TEST(SpmvTest, HostThreadCounts) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  const int concurrency = Exec().concurrency();
  auto A = pspmv::generate_skewed<V, O>(2048);
  pspmv::AnalyzeOptions over;
  if (pspmv::ExecTraits<Exec>::is_gpu) {
    over.threads = 1;
    EXPECT_THROW(pspmv::analyze<Exec>(A, over), pspmv::InvalidArgument);
    return;
  }
  auto few = from_rows<V, O>(3, 40, [](std::int32_t i) {
    std::vector<std::int32_t> c;
    for (std::int32_t k = 0; k < 5 + 7 * i; ++k) c.push_back(k);
    return c;
  });
  for (int t = 1; t <= concurrency; ++t)
    for (auto f : pspmv::all_formats)
      for (auto s : pspmv::all_schedules) {
        if (s == pspmv::Schedule::serial) continue;
        pspmv::AnalyzeOptions opt;
        opt.format = f;
        opt.mapping = pspmv::Mapping::thread_per_row;
        opt.schedule = s;
        opt.threads = t;
        const std::string tag = pspmv::to_string(f) + "/" + pspmv::to_string(s) + " threads=" + std::to_string(t);
        this->check(A, opt, 1.5, 0.0, "skewed:2048 " + tag);
        this->check(A, opt, -0.5, 2.0, "skewed:2048 " + tag);
        this->check(few, opt, 1.0, 0.0, "3-rows " + tag);
        if (t < concurrency)
          EXPECT_NE(pspmv::analyze<Exec>(A, opt).describe().find("threads=" + std::to_string(t)), std::string::npos);
      }
  over.threads = concurrency + 1;
  EXPECT_THROW(pspmv::analyze<Exec>(A, over), pspmv::InvalidArgument);
  pspmv::AnalyzeOptions serial;
  serial.schedule = pspmv::Schedule::serial;
  serial.threads = 2;
  EXPECT_THROW(pspmv::analyze<Exec>(A, serial), pspmv::InvalidArgument);
  if (concurrency > 1) {
    pspmv::AnalyzeOptions team;
    team.mapping = pspmv::Mapping::team_per_row;
    team.threads = concurrency - 1;
    EXPECT_THROW(pspmv::analyze<Exec>(A, team), pspmv::InvalidArgument);
  }
}

// A serial CSR plan runs its rows on the calling thread from the arrays' and vectors' pointers
// (Plan::multiply_x), not through a launch: the same y bit for bit as the same plan's functor
// on the calling thread (multiply_unrolled<1>: detail::run_serial) and as the launch of the same
// rows on one thread (static rows, threads = 1), for beta 0 (y's NaN not read) and not, on rows
// of 0 to 70 entries around the SIMD threshold, x a managed View and an unmanaged const one;
// alpha 0 takes the launch's path (y = beta y). Lengths and overlap are refused before any
// write. On a GPU the serial schedule is refused.
TYPED_TEST(SpmvTest, SerialRowsAreTheLaunchsRows) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  pspmv::AnalyzeOptions serial;
  serial.format = pspmv::Format::csr;
  serial.mapping = pspmv::Mapping::thread_per_row;
  serial.schedule = pspmv::Schedule::serial;
  const auto A = from_rows<V, O>(300, 500, [](std::int32_t i) {
    std::vector<std::int32_t> c;
    for (std::int32_t k = 0; k < i % 71; ++k) c.push_back((i * 37 + k * 13) % 500);
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  });
  if constexpr (pspmv::ExecTraits<Exec>::is_gpu) {
    EXPECT_THROW(pspmv::analyze<Exec>(A, serial), pspmv::InvalidArgument);
  } else {
    pspmv::AnalyzeOptions launched = serial;
    launched.schedule = pspmv::Schedule::static_chunks;
    launched.threads = 1;
    const auto s = pspmv::analyze<Exec>(A, serial);
    const auto l = pspmv::analyze<Exec>(A, launched);
    ASSERT_EQ(s.schedule(), pspmv::Schedule::serial);
    ASSERT_EQ(l.schedule(), pspmv::Schedule::static_chunks);
    Kokkos::View<V*, Kokkos::HostSpace> x("x", A.ncols), y0("y0", A.nrows), ys("ys", A.nrows), yl("yl", A.nrows),
        yf("yf", A.nrows);
    for (std::int32_t j = 0; j < A.ncols; ++j) x(j) = V(1) / V(3 + j % 17) - V(0.03) * V(j % 5);
    for (std::int32_t i = 0; i < A.nrows; ++i) y0(i) = V(0.7) - V(i % 9) / V(7);
    const Kokkos::View<const V*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> xc(x.data(), x.extent(0));
    for (const V beta : {V(0), V(0.75)})
      for (const V alpha : {V(1), V(-2.5), V(0)}) {
        const std::string tag = "alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
        for (const auto& y : {ys, yl, yf}) {
          Kokkos::deep_copy(y, y0);
          if (beta == V(0)) y(3) = std::numeric_limits<V>::quiet_NaN();  // beta 0 overwrites y unread
        }
        s.multiply(alpha, xc, beta, ys);
        s.template multiply_unrolled<1>(alpha, x, beta, yf);
        l.multiply(alpha, x, beta, yl);
        Kokkos::fence();
        EXPECT_EQ(std::memcmp(ys.data(), yf.data(), sizeof(V) * A.nrows), 0) << tag << " (the plan's functor)";
        EXPECT_EQ(std::memcmp(ys.data(), yl.data(), sizeof(V) * A.nrows), 0) << tag << " (a launch)";
        for (std::int32_t i = 0; i < A.nrows; ++i) ASSERT_FALSE(std::isnan(ys(i))) << tag << " row " << i;
      }
    // Lengths are checked before any row: y one entry short is refused, y untouched.
    Kokkos::deep_copy(ys, y0);
    const Kokkos::View<V*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> short_y(ys.data(), A.nrows - 1);
    EXPECT_THROW(s.multiply(V(1), x, V(0), short_y), pspmv::DimensionError);
    EXPECT_EQ(std::memcmp(ys.data(), y0.data(), sizeof(V) * A.nrows), 0);
    // x and y overlapping by one entry are refused.
    Kokkos::View<V*, Kokkos::HostSpace> both("both", A.ncols + A.nrows);
    const Kokkos::View<V*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> x_over(both.data(), A.ncols),
        y_over(both.data() + A.ncols - 1, A.nrows);
    Kokkos::deep_copy(both, V(2));
    EXPECT_THROW(s.multiply(V(1), x_over, V(0), y_over), pspmv::InvalidArgument);
    for (std::size_t k = 0; k < both.extent(0); ++k) ASSERT_EQ(both(k), V(2)) << "entry " << k;
  }
}

namespace {
/// Both host row sums of detail::simd_dot (SIMD gathers; 4 scalar partial sums) against a
/// long-double sum, on every row length from 0 to 70 around the MinSimd threshold.
template <class V, bool Gathers>
void expect_row_sums_match(const double tol) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<V> x(500), values(70);
  std::vector<std::int32_t> cols(70);
  for (auto& v : x) v = static_cast<V>(dist(rng));
  for (std::int64_t len = 0; len <= 70; ++len) {
    for (std::int64_t k = 0; k < len; ++k) {
      values[k] = static_cast<V>(dist(rng));
      cols[k] = static_cast<std::int32_t>((k * 37 + len * 11) % 500);
    }
    long double ref = 0, mag = 0;
    for (std::int64_t k = 0; k < len; ++k) {
      ref += static_cast<long double>(values[k]) * x[cols[k]];
      mag += std::abs(static_cast<long double>(values[k]) * x[cols[k]]);
    }
    const V got = pspmv::detail::simd_dot<16, Gathers, V>(values.data(), cols.data(), x.data(), 0, len);
    EXPECT_LE(std::abs(static_cast<long double>(got) - ref), tol * (mag + 1)) << "length " << len;
    // The same row again gives the same bits: the order of the additions is fixed.
    EXPECT_EQ(got, (pspmv::detail::simd_dot<16, Gathers, V>(values.data(), cols.data(), x.data(), 0, len)));
  }
}
}  // namespace

namespace {
/// detail::masked_dot against a long-double sum on every row length from 0 to 40 and at every
/// offset of the row within its group of 8, the row followed in its arrays by entries that a lane
/// past its end must not read: a value that is NaN and a column far outside x (a gather of it
/// would read beyond x's allocation). In a build with masked rows, also against the sum in the
/// order the form promises, bit for bit.
template <class V, class MV>
void expect_masked_sums_match(const double tol) {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<V> x(500);
  for (auto& v : x) v = static_cast<V>(dist(rng));
  for (std::int64_t len = 0; len <= 40; ++len)
    for (std::int64_t begin = 0; begin < 8; ++begin) {
      const std::int64_t end = begin + len;
      std::vector<MV> values(static_cast<std::size_t>(end + 16), std::numeric_limits<MV>::quiet_NaN());
      std::vector<std::int32_t> cols(static_cast<std::size_t>(end + 16), std::numeric_limits<std::int32_t>::max() / 2);
      long double ref = 0, mag = 0;
      for (std::int64_t k = begin; k < end; ++k) {
        values[k] = static_cast<MV>(dist(rng));
        cols[k] = static_cast<std::int32_t>((k * 37 + len * 11) % 500);
        ref += static_cast<long double>(values[k]) * x[cols[k]];
        mag += std::abs(static_cast<long double>(values[k]) * x[cols[k]]);
      }
      const V got = pspmv::detail::masked_dot<16, V>(values.data(), cols.data(), x.data(), begin, end);
      EXPECT_LE(std::abs(static_cast<long double>(got) - ref), tol * (mag + 1)) << "length " << len << " at " << begin;
#if PSPMV_HOST_MASKED_ROWS
      // The order of the additions, bit for bit: entry k a fused multiply-add into lane
      // (k - begin) % 8, whole groups and the masked last one alike, then lanes i and i + 4 added,
      // then those sums j and j + 2, then the two.
      V lane[8] = {};
      for (std::int64_t k = begin; k < end; ++k)
        lane[(k - begin) % 8] = std::fma(static_cast<V>(values[k]), x[cols[k]], lane[(k - begin) % 8]);
      const V q0 = lane[0] + lane[4], q1 = lane[1] + lane[5], q2 = lane[2] + lane[6], q3 = lane[3] + lane[7];
      EXPECT_EQ(got, (q0 + q2) + (q1 + q3)) << "length " << len << " at " << begin;
#endif
    }
}

/// A host CSR thread_per_row plan of rows of 0 to 40 entries, under every schedule, against its
/// row form called row by row: masked_dot where the plan says masked_rows (every such plan of a
/// build with ExecTraits::masked_rows), else simd_dot. With alpha 1 and beta 0 the plan's y is
/// the row sums themselves, so the two agree bit for bit only if the plan ran that form.
template <class Exec, class V, class MV, class PlanOf>
void expect_plan_runs_its_row_form(const PlanOf& analyze_plan) {
  using Traits = pspmv::ExecTraits<Exec>;
  const std::int32_t n = 300;
  const auto A = from_rows<MV, std::int64_t>(n, n, [](std::int32_t i) {
    std::vector<std::int32_t> c;
    for (std::int32_t k = 0; k < (i * 7) % 41; ++k) c.push_back((i * 13 + k * 29) % n);
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  });
  std::vector<V> xs(n);
  for (std::int32_t j = 0; j < n; ++j) xs[j] = static_cast<V>(std::sin(1.3 * j) * std::pow(10.0, j % 5 - 2));
  std::vector<V> want(n);
  constexpr int min_simd = Traits::template simd_row_min<V>();
  for (pspmv::Schedule s : pspmv::all_schedules) {
    pspmv::AnalyzeOptions o;
    o.format = pspmv::Format::csr;
    o.mapping = pspmv::Mapping::thread_per_row;
    o.schedule = s;
    const auto plan = analyze_plan(A, o);
    EXPECT_EQ(plan.launch().masked_rows, Traits::masked_rows) << plan.describe();
    for (std::int32_t i = 0; i < n; ++i)
      want[i] = plan.launch().masked_rows
                    ? pspmv::detail::masked_dot<min_simd, V>(A.values.data(), A.col_idx.data(), xs.data(),
                                                             A.row_ptr(i), A.row_ptr(i + 1))
                    : pspmv::detail::simd_dot<min_simd, Traits::row_gathers, V>(
                          A.values.data(), A.col_idx.data(), xs.data(), A.row_ptr(i), A.row_ptr(i + 1));
    Kokkos::View<V*, Kokkos::HostSpace> x("x", n), y("y", n);
    for (std::int32_t j = 0; j < n; ++j) x(j) = xs[j];
    Kokkos::deep_copy(y, std::numeric_limits<V>::quiet_NaN());
    plan.multiply(Exec(), V(1), x, V(0), y);
    Kokkos::fence();
    EXPECT_EQ(std::memcmp(y.data(), want.data(), sizeof(V) * n), 0) << plan.describe();
  }
}
}  // namespace

/// Built with PSPMV_HOST_MASKED_ROWS (AVX-512F, VL and FMA, gathers), the SIMD form; elsewhere
/// masked_dot is simd_dot, under the same checks.
TEST(HostRowSums, MaskedGroupsMatchTheReferenceAndReadNothingPastTheRow) {
  expect_masked_sums_match<double, double>(1e-14);
  expect_masked_sums_match<float, float>(1e-6);
  expect_masked_sums_match<double, float>(1e-14);
}

/// Host plans run the row form they record, in double, float and mixed precision.
TEST(HostRowSums, PlansRunTheRowFormTheyRecord) {
  using Exec = Kokkos::DefaultHostExecutionSpace;
  expect_plan_runs_its_row_form<Exec, double, double>(
      [](const auto& A, const pspmv::AnalyzeOptions& o) { return pspmv::analyze<Exec>(A, o); });
  expect_plan_runs_its_row_form<Exec, float, float>(
      [](const auto& A, const pspmv::AnalyzeOptions& o) { return pspmv::analyze<Exec>(A, o); });
  expect_plan_runs_its_row_form<Exec, double, float>(
      [](const auto& A, const pspmv::AnalyzeOptions& o) { return pspmv::analyze_mixed(Exec(), A, o); });
}

TEST(HostRowSums, GathersAndPartialSumsMatchTheReference) {
  expect_row_sums_match<double, true>(1e-14);
  expect_row_sums_match<double, false>(1e-14);
  expect_row_sums_match<float, true>(1e-6);
  expect_row_sums_match<float, false>(1e-6);
}

namespace {
/// SellSliceColumns' slice loop at the fixed height C, which is the AVX-512 register form
/// (register_slice) where detail::register_slices holds, against the same loop with C read at
/// run time (the generic loops), slice by slice over one SELL matrix: y and the split rows' piece
/// sums bit for bit. The matrix has empty rows, rows of 1-30 entries, rows longer than the long-row
/// bound (split into pieces, or left out of the slices with length -1), a last slice of fewer
/// than C rows, and NaN in every padded value (a padded lane's product must not reach a sum);
/// with Compressed, slices of 16-bit offsets and wide slices. alpha is not 1, and beta not 0
/// unless BetaZero (y's old values then never read). The sums are also checked against a
/// long-double reference. In a build without the register form both sides are the generic loops,
/// the fixed height's instantiation against the run-time one.
template <class V, class MV, bool Compressed, bool BetaZero = false>
void expect_register_slices_match(const int C, const bool split, const bool keep_permuted, const std::int64_t sigma) {
  using Exec = Kokkos::DefaultHostExecutionSpace;
  using F = pspmv::detail::SellSliceColumns<Exec, V, BetaZero, Compressed, MV>;
  const std::int32_t n = 8 * C + 3, ncols = Compressed ? 200000 : 900;
  const auto A = from_rows<MV, std::int64_t>(n, ncols, [&](std::int32_t i) {
    std::vector<std::int32_t> c;
    const std::int32_t len = i % 29 == 7 ? 90 : (i % 23 == 0 ? 0 : 1 + (i * 7) % 30);
    const std::int32_t base = Compressed ? (i / C) * 1000 : 0, span = Compressed ? 700 : ncols;
    for (std::int32_t k = 0; k < len; ++k) c.push_back(base + (i * 13 + k * 29) % span);
    if (Compressed && i % 37 == 3) c.push_back(ncols - 1);  // a wide slice
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  });
  pspmv::AnalyzeOptions o;
  o.format = pspmv::Format::sell;
  o.mapping = pspmv::Mapping::thread_per_row;
  o.slice_height = C;
  o.sigma = sigma;
  o.compress = Compressed;
  o.sell_long_row = 40;
  o.sell_long_split = split;
  o.keep_permuted = keep_permuted;
  const auto plan = [&] {
    if constexpr (std::is_same<MV, V>::value) return pspmv::analyze<Exec>(A, o);
    else return pspmv::analyze_mixed(Exec(), A, o);
  }();
  const auto& S = plan.sell();
  const std::string where = "C=" + std::to_string(C) + " sigma=" + std::to_string(sigma) +
                            (split ? " split" : " long rows apart") + (keep_permuted ? " keep_permuted" : "");
  ASSERT_EQ(S.compressed, Compressed) << where;
  ASSERT_GT(S.long_rows.extent(0), 0u) << where;
  if (split) ASSERT_GT(S.npieces(), 0) << where;
  else ASSERT_EQ(S.npieces(), 0) << where;
  // The values with NaN in every padded slot (a lane past its row's length, or a long row's).
  Kokkos::View<MV*, Kokkos::HostSpace> values("values", S.values.extent(0));
  Kokkos::deep_copy(values, S.values);
  std::int64_t padded = 0;
  for (std::int64_t s = 0; s < S.nslices(); ++s)
    for (std::int32_t r = 0; r < C; ++r) {
      const std::int64_t p = s * C + r;
      const std::int32_t len = p < S.npos ? S.row_len(p) : 0;
      for (std::int32_t j = len < 0 ? 0 : len; j < S.slice_width(s); ++j, ++padded)
        values(S.slice_ptr(s) + static_cast<std::int64_t>(j) * C + r) = std::numeric_limits<MV>::quiet_NaN();
    }
  ASSERT_GT(padded, 0) << where;
  // Some slice has whole columns (every row of it has column 0) and padded ones; compressed: both
  // narrow and wide slices.
  std::int64_t whole = 0, narrow = 0, wide = 0;
  for (std::int64_t s = 0; s < S.nslices(); ++s) {
    std::int32_t least = S.slice_width(s);
    for (std::int32_t r = 0; r < C; ++r) {
      const std::int64_t p = s * C + r;
      const std::int32_t len = p < S.npos ? S.row_len(p) : 0;
      least = std::min(least, std::max(len, 0));
    }
    whole += least > 0 && least < S.slice_width(s);
    if (Compressed) {
      narrow += S.col_base(s) >= 0;
      wide += S.col_base(s) == pspmv::sell_wide_slice;
    }
  }
  ASSERT_GT(whole, 0) << where;
  if (Compressed) {
    ASSERT_GT(narrow, 0) << where;
    ASSERT_GT(wide, 0) << where;
  }
  Kokkos::View<V*, Kokkos::HostSpace> xs("xs", ncols), y0("y0", n);
  for (std::int32_t j = 0; j < ncols; ++j) xs(j) = static_cast<V>(std::sin(0.37 * j) + 0.01 * (j % 7));
  for (std::int32_t i = 0; i < n; ++i) y0(i) = static_cast<V>(0.5 - 0.125 * (i % 5));
  const auto run = [&](auto fixed, Kokkos::View<V*, Kokkos::HostSpace> y, Kokkos::View<V*, Kokkos::HostSpace> partial) {
    constexpr int Fixed = decltype(fixed)::value;
    F f;
    f.slice_ptr = S.slice_ptr;
    f.row_len = S.row_len;
    f.perm = S.perm;
    f.col_idx = S.col_idx;
    f.values = values;
    f.col_base = S.col_base;
    f.off_ptr = S.off_ptr;
    f.col_off = S.col_off;
    f.slice_width = S.slice_width;
    f.x = xs;
    f.y = y;
    f.partial = partial;
    f.alpha = V(-1.5);
    f.beta = V(0.75);
    f.nrows = n;
    f.npos = S.npos;
    f.nslices = static_cast<std::int32_t>(S.nslices());
    f.log2_c = C == 8 ? 3 : 4;
    f.permuted_output = keep_permuted;
    f.compressed = Compressed;
    for (std::int32_t s = 0; s < f.nslices; ++s) {
      if constexpr (Compressed) {
        const std::int32_t first = S.col_base(s);
        if (first >= 0)
          f.template slice_sum_of<Fixed>(s, S.col_off.data() + S.off_ptr(s), xs.data() + first);
        else if (first == pspmv::sell_diagonal_slice)
          f.diagonal_sum(s, S.col_idx.data() + S.off_ptr(s));
        else
          f.template slice_sum_of<Fixed>(s, S.col_idx.data() + S.off_ptr(s), xs.data());
      } else {
        f.template slice_sum_of<Fixed>(s, S.col_idx.data() + S.slice_ptr(s), xs.data());
      }
    }
  };
  const std::int64_t pieces = S.npieces() > 0 ? S.npieces() : 1;
  Kokkos::View<V*, Kokkos::HostSpace> yf("yf", n), yr("yr", n), pf("pf", pieces), pr("pr", pieces);
  Kokkos::deep_copy(yf, y0);
  Kokkos::deep_copy(yr, y0);
  if (C == 8) run(std::integral_constant<int, 8>(), yf, pf);
  else run(std::integral_constant<int, 16>(), yf, pf);
  run(std::integral_constant<int, 0>(), yr, pr);
  EXPECT_EQ(std::memcmp(yf.data(), yr.data(), sizeof(V) * n), 0) << where;
  EXPECT_EQ(std::memcmp(pf.data(), pr.data(), sizeof(V) * pieces), 0) << where;
  // The rows in the slices (not split, not long), against the reference, in y's order.
  const double tol = std::is_same<V, float>::value ? 1e-5 : 1e-13;
  for (std::int32_t p = 0; p < S.npos; ++p) {
    const std::int32_t i = S.perm(p);
    if (i >= n || S.row_len(p) < 0) continue;  // a piece of a split row, or a long row
    long double ref = 0, mag = 0;
    for (std::int64_t k = A.row_ptr(i); k < A.row_ptr(i + 1); ++k) {
      ref += static_cast<long double>(V(A.values(k))) * xs(A.col_idx(k));
      mag += std::abs(static_cast<long double>(V(A.values(k))) * xs(A.col_idx(k)));
    }
    const std::int32_t at = keep_permuted ? p : i;
    const long double want = -1.5L * ref + (BetaZero ? 0.0L : 0.75L * static_cast<long double>(y0(at)));
    ASSERT_LE(std::abs(static_cast<long double>(yf(at)) - want), tol * (1.5L * mag + 1)) << where << " row " << i;
  }
}
}  // namespace

/// The AVX-512 register form of the ESB slice loop is the generic loop's arithmetic: double and
/// float (C = 8 and 16: one register), float values under double vectors, 32-bit columns and
/// compressed ones, split long rows and long rows apart, y in the caller's or the permuted order,
/// no sorting and sorting across the whole matrix, beta 0 (y unread) and not.
TEST(HostSlices, RegisterSlicesMatchTheLoopsBitForBit) {
  for (const std::int64_t sigma : {std::int64_t{1}, std::int64_t{1} << 20})
    for (const bool compressed : {false, true}) {
      for (const int shape : {0, 1, 2}) {  // split long rows; long rows apart; apart, y permuted
        const bool split = shape == 0, keep = shape == 2;
        if (compressed) {
          expect_register_slices_match<double, double, true>(8, split, keep, sigma);
          expect_register_slices_match<float, float, true>(16, split, keep, sigma);
          expect_register_slices_match<double, float, true>(8, split, keep, sigma);
        } else {
          expect_register_slices_match<double, double, false>(8, split, keep, sigma);
          expect_register_slices_match<float, float, false>(16, split, keep, sigma);
          expect_register_slices_match<double, float, false>(8, split, keep, sigma);
        }
      }
    }
  expect_register_slices_match<double, double, false, true>(8, false, false, std::int64_t{1} << 20);
  expect_register_slices_match<float, float, true, true>(16, true, false, 1);
}
