// Every mapping x schedule x precision, on every enabled execution space, against the
// sequential double-precision reference: generated edge cases and the shared matrices.
#include <functional>
#include <optional>
#include <random>

#include "test_util.hpp"

using namespace pspmv_test;

namespace {

template <class Cfg>
class SpmvTest : public ::testing::Test {
 public:
  using Exec = typename Cfg::exec;
  using Value = typename Cfg::value;
  using Offset = typename Cfg::offset;
  using Host = pspmv::HostCsr<Value, Offset>;
  using PlanT = pspmv::Plan<Exec, Value, Offset>;

  /// Runs y = alpha A x + beta y0 with the given options and checks it; y0 is NaN when
  /// beta == 0 (BLAS semantics: y must be overwritten, never read).
  static void check(const Host& A, const pspmv::AnalyzeOptions& opt, double alpha, double beta,
                    const std::string& what, std::uint64_t seed = 7) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> x(A.ncols), y0(A.nrows);
    for (auto& v : x) v = static_cast<double>(static_cast<Value>(dist(rng)));
    // beta == 0: y starts as NaN and +-Inf, which must not survive (BLAS semantics).
    for (std::size_t i = 0; i < y0.size(); ++i)
      y0[i] = beta == 0.0 ? (i % 3 == 0 ? std::numeric_limits<double>::quiet_NaN()
                                        : (i % 3 == 1 ? 1.0 : -1.0) * std::numeric_limits<double>::infinity())
                          : static_cast<double>(static_cast<Value>(dist(rng)));
    PlanT plan = pspmv::analyze<Exec>(A, opt);
    typename PlanT::vector_type dx("x", A.ncols), dy("y", A.nrows);
    auto hx = Kokkos::create_mirror_view(dx);
    auto hy = Kokkos::create_mirror_view(dy);
    for (std::size_t j = 0; j < x.size(); ++j) hx(j) = static_cast<Value>(x[j]);
    for (std::size_t i = 0; i < y0.size(); ++i) hy(i) = static_cast<Value>(y0[i]);
    Kokkos::deep_copy(dx, hx);
    Kokkos::deep_copy(dy, hy);
    plan.multiply(static_cast<Value>(alpha), dx, static_cast<Value>(beta), dy);
    Kokkos::fence();
    Kokkos::deep_copy(hy, dy);
    std::vector<double> got(A.nrows), want, scale;
    for (std::size_t i = 0; i < got.size(); ++i) got[i] = static_cast<double>(hy(i));
    std::vector<double> y0v(y0);
    reference_spmv(A, alpha, x, beta, y0v, want, scale);
    EXPECT_TRUE(matches_reference(A, got, want, scale))
        << what << " [" << plan.describe() << "] alpha=" << alpha << " beta=" << beta;
  }

  /// Every format x mapping x schedule, each with a few launch shapes, alpha/beta cases
  /// included; SELL with C in {4, 8, 16, 32} and sigma in {1, C, 8C, all rows}.
  static void check_all_variants(const Host& A, const std::string& what) {
    for (auto m : pspmv::all_mappings) {
      for (auto s : pspmv::all_schedules) {
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

using Configs = ::testing::Types<
#if defined(KOKKOS_ENABLE_CUDA)
    Config<Kokkos::Cuda, double, std::int64_t>, Config<Kokkos::Cuda, float, std::int32_t>,
    Config<Kokkos::Cuda, double, std::int32_t>, Config<Kokkos::Cuda, float, std::int64_t>,
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    Config<Kokkos::OpenMP, double, std::int64_t>, Config<Kokkos::OpenMP, float, std::int32_t>,
    Config<Kokkos::OpenMP, double, std::int32_t>, Config<Kokkos::OpenMP, float, std::int64_t>,
#endif
    Config<Kokkos::Serial, double, std::int32_t>, Config<Kokkos::Serial, float, std::int64_t>>;

class ConfigNames {
 public:
  template <class Cfg>
  static std::string GetName(int) {
    std::string s = Cfg::exec::name();
    s += sizeof(typename Cfg::value) == 4 ? "_f32" : "_f64";
    s += sizeof(typename Cfg::offset) == 4 ? "_i32" : "_i64";
    return s;
  }
};

TYPED_TEST_SUITE(SpmvTest, Configs, ConfigNames);

template <class Value, class Offset>
pspmv::HostCsr<Value, Offset> from_rows(std::int32_t nrows, std::int32_t ncols,
                                        const std::function<std::vector<std::int32_t>(std::int32_t)>& cols_of) {
  std::vector<Offset> rp(1, 0);
  std::vector<std::int32_t> ci;
  std::vector<Value> v;
  for (std::int32_t i = 0; i < nrows; ++i) {
    for (std::int32_t c : cols_of(i)) {
      ci.push_back(c);
      v.push_back(static_cast<Value>(pspmv::generated_value(i, c) - 1.3));
    }
    rp.push_back(static_cast<Offset>(ci.size()));
  }
  return pspmv::make_csr<Value, Offset, std::int32_t>(nrows, ncols, rp, ci, v);
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
  std::vector<double> xv(A.ncols), want, scale, ones(A.nrows, 1.0);
  for (std::size_t j = 0; j < xv.size(); ++j) xv[j] = static_cast<double>(static_cast<V>(0.25 + 0.001 * (j % 97)));
  reference_spmv(A, 1.0, xv, 1.0, ones, want, scale);
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
              ASSERT_TRUE(matches_reference(A, got, want, scale))
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

TYPED_TEST(SpmvTest, DimensionAndAliasErrors) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using PlanT = typename TestFixture::PlanT;
  auto A = pspmv::generate_random<V, O>(40, 30, 3.0, 1);
  PlanT plan = pspmv::analyze<typename TestFixture::Exec>(A);
  typename PlanT::vector_type x("x", 30), y("y", 40), bad_x("x", 31), bad_y("y", 39), both("xy", 100);
  EXPECT_THROW(plan.multiply(1, bad_x, 0, y), pspmv::DimensionError);
  EXPECT_THROW(plan.multiply(1, x, 0, bad_y), pspmv::DimensionError);
  try {
    plan.multiply(1, bad_x, 0, y);
    ADD_FAILURE() << "no DimensionError for a short x";
  } catch (const pspmv::DimensionError& e) {
    EXPECT_EQ(e.expected(), 30);
    EXPECT_EQ(e.got(), 31);
    EXPECT_NE(std::string(e.what()).find("31"), std::string::npos) << e.what();
  }
  auto xs = Kokkos::subview(both, std::make_pair(0, 30));
  auto ys = Kokkos::subview(both, std::make_pair(20, 60));
  EXPECT_THROW(plan.multiply(1, xs, 0, ys), pspmv::InvalidArgument);
  EXPECT_TRUE(plan.built_from(A));
  auto B = pspmv::generate_random<V, O>(40, 30, 3.0, 1);
  EXPECT_FALSE(plan.built_from(B));
}

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
    std::vector<double> want, scale;
    reference_spmv(A, 1.5, x, -0.5, y0, want, scale);
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
          EXPECT_TRUE(matches_reference(A, run_unrolled<4, 4, decltype(plan), V>(plan, x, 1.5, -0.5, y0), want, scale))
              << "U=4: " << what;
          EXPECT_TRUE(matches_reference(A, run_unrolled<3, 2, decltype(plan), V>(plan, x, 1.5, -0.5, y0), want, scale))
              << "U=3, long U=2: " << what;
        }
  }
}

TYPED_TEST(SpmvTest, StalePlanIsDetected) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  auto A = pspmv::generate_random<V, O>(500, 400, 6.0, 21);
  for (auto f : pspmv::all_formats) {
    pspmv::AnalyzeOptions opt;
    opt.format = f;
    auto plan = pspmv::analyze<typename TestFixture::Exec>(A, opt);
    EXPECT_TRUE(plan.matches(A));
    EXPECT_NE(plan.fingerprint(), 0u);
    const V v = A.values(17);
    A.values(17) = v + V(1);  // the caller edits the matrix after analyze()
    EXPECT_FALSE(plan.matches(A)) << "a changed value must make the plan stale";
    EXPECT_TRUE(plan.built_from(A)) << "same storage: built_from() cannot see the change";
    A.values(17) = v;
    EXPECT_TRUE(plan.matches(A));
    const std::int32_t c = A.col_idx(3);
    A.col_idx(3) = (c + 1) % A.ncols;
    EXPECT_FALSE(plan.matches(A)) << "a changed column index must make the plan stale";
    A.col_idx(3) = c;
    EXPECT_FALSE(plan.matches(pspmv::generate_random<V, O>(500, 400, 6.0, 22))) << "another matrix";
    opt.fingerprint = false;
    auto unhashed = pspmv::analyze<typename TestFixture::Exec>(A, opt);
    EXPECT_THROW(unhashed.matches(A), pspmv::InvalidArgument);
  }
}

TYPED_TEST(SpmvTest, PlanRecordsItsChoices) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  auto A = pspmv::generate_skewed<V, O>(2048);
  auto plan = pspmv::analyze<Exec>(A);
  EXPECT_GT(plan.analyze_seconds(), 0.0);
  EXPECT_EQ(plan.row_stats().nnz, 16 * 2048);
  EXPECT_EQ(plan.row_stats().max_len, 419);
  EXPECT_FALSE(plan.reason().empty());
  // Skewed rows (cv ~ 4.5) get the nnz-balanced schedule by default on the host; a GPU
  // schedules its blocks itself.
  EXPECT_EQ(plan.schedule(), pspmv::ExecTraits<Exec>::is_gpu ? pspmv::Schedule::static_chunks
                                                              : pspmv::Schedule::nnz_balanced)
      << plan.reason();
  // On a GPU sorted SELL-32 pads the skewed matrix by 1.00: it is chosen; on the host, CSR.
  EXPECT_EQ(plan.format(), pspmv::ExecTraits<Exec>::prefer_sell ? pspmv::Format::sell : pspmv::Format::csr)
      << plan.reason();
  EXPECT_LE(static_cast<double>(plan.bytes()), 1.1 * static_cast<double>(plan.csr_bytes()) + 4096);
  EXPECT_EQ(plan.mapping(), pspmv::Mapping::thread_per_row) << plan.reason();
  auto E = pspmv::generate_even<V, O>(2048);
  auto pe = pspmv::analyze<Exec>(E);
  EXPECT_EQ(pe.schedule(), pspmv::Schedule::static_chunks) << pe.reason();
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
TYPED_TEST(SpmvTest, ModelRulesFollowTheSpaceSize) {
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
  // Rows of 2 entries, then of 6: cv 0.5, yet a static split gives the second half 1.5x the
  // mean nnz: nnz_balanced on a host of 2 threads or more (one thread: nothing to balance).
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
      EXPECT_NE(ph.reason().find("row blocks gives its fullest"), std::string::npos) << ph.reason();
    } else {
      EXPECT_EQ(ph.schedule(), pspmv::Schedule::static_chunks) << ph.reason();
    }
    std::vector<std::int64_t> rp{0, 2, 4, 10, 16};
    EXPECT_DOUBLE_EQ(pspmv::static_imbalance(rp.data(), 4, 2), 12.0 / 8.0);
    EXPECT_DOUBLE_EQ(pspmv::static_imbalance(rp.data(), 4, 1), 1.0);
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
    EXPECT_EQ(below.schedule(), pspmv::Schedule::static_chunks) << below.reason();
    // Scattered columns: SELL from the same size on (its padding stays near 1 for random rows),
    // CSR below it, and CSR for a banded matrix of the same size.
    const auto rows = static_cast<std::int32_t>(target / (16 * (sizeof(std::int32_t) + sizeof(V))) + 1);
    auto R = pspmv::generate_random<V, O>(rows, rows, 16.0, 5);
    auto pr = pspmv::analyze<Exec>(R);
    ASSERT_GE(static_cast<std::int64_t>(pr.csr_bytes()), target);
    EXPECT_EQ(pr.format(), pspmv::Format::sell) << pr.reason();
    EXPECT_NE(pr.reason().find("scattered columns"), std::string::npos) << pr.reason();
    EXPECT_EQ(pr.schedule(), pspmv::Schedule::work_stealing) << pr.reason();
    auto small = pspmv::analyze<Exec>(pspmv::generate_random<V, O>(rows / 4, rows / 4, 16.0, 5));
    EXPECT_EQ(small.format(), pspmv::Format::csr) << small.reason();
    auto band = pspmv::analyze<Exec>(pspmv::generate_even<V, O>((rows + 31) / 32 * 32));
    EXPECT_EQ(band.format(), pspmv::Format::csr) << band.reason();
  } else {
    auto R = pspmv::generate_random<V, O>(100000, 100000, 16.0, 5);
    EXPECT_EQ(pspmv::analyze<Exec>(R).reason().find("scattered"), std::string::npos);
  }
}

TYPED_TEST(SpmvTest, SellRowsLandWhereTheyBelong) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  // Distinct row lengths in scrambled order: sorting moves almost every row.
  const std::int32_t n = 1000;
  auto A = from_rows<V, O>(n, n, [&](std::int32_t i) {
    std::vector<std::int32_t> c;
    const std::int32_t len = (i * 37) % 61;
    for (std::int32_t k = 0; k < len; ++k) c.push_back((i + 7 * k) % n);
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  });
  for (int C : {4, 8, 16, 32, 64}) {
    pspmv::AnalyzeOptions opt;
    opt.format = pspmv::Format::sell;
    opt.slice_height = C;
    opt.sigma = n;
    opt.sell_long_row = C == 16 ? 40 : 0;  // C = 16: rows longer than 40 leave the slices
    this->check(A, opt, 1.0, 0.0, "caller order, C=" + std::to_string(C));
    // keep_permuted: y(p) holds row perm(p).
    opt.keep_permuted = true;
    auto plan = pspmv::analyze<Exec>(A, opt);
    EXPECT_GT(plan.padding_ratio(), 1.0);
    typename TestFixture::PlanT::vector_type x("x", n), y("y", n);
    Kokkos::deep_copy(x, V(1));
    plan.multiply(V(1), x, V(0), y);
    auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    auto hp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.permutation());
    std::vector<bool> seen(n, false);
    for (std::int32_t p = 0; p < n; ++p) {
      const std::int32_t i = hp(p);
      ASSERT_TRUE(i >= 0 && i < n && !seen[i]) << "perm is not a permutation at " << p;
      seen[i] = true;
      double want = 0;
      for (auto k = A.row_ptr(i); k < A.row_ptr(i + 1); ++k) want += static_cast<double>(A.values(k));
      const double len = static_cast<double>(A.row_ptr(i + 1) - A.row_ptr(i));
      ASSERT_NEAR(static_cast<double>(hy(p)), want, 8 * std::numeric_limits<V>::epsilon() * (len + 1) * (std::fabs(want) + len))
          << "permuted position " << p << " (row " << i << ", length " << len << ")";
      if (p > 0 && (p % C) != 0) {  // sorted within the window: lengths non-increasing
        const auto prev = hp(p - 1);
        EXPECT_GE(A.row_ptr(prev + 1) - A.row_ptr(prev), A.row_ptr(i + 1) - A.row_ptr(i));
      }
    }
  }
}

TYPED_TEST(SpmvTest, SellPaddingIsNeverRead) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  // Padding entries are stored as column 0; with x(0) = Inf a kernel that read padding
  // would turn rows without column 0 into NaN (0 * Inf).
  const std::int32_t n = 256;
  auto A = from_rows<V, O>(n, n, [&](std::int32_t i) {
    std::vector<std::int32_t> c;
    for (std::int32_t k = 0; k < 1 + (i * 7) % 13; ++k) c.push_back(1 + (i + k) % (n - 1));
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  });
  for (int C : {4, 32}) {
    pspmv::AnalyzeOptions opt;
    opt.format = pspmv::Format::sell;
    opt.slice_height = C;
    opt.sigma = 1;
    for (auto m : pspmv::all_mappings) {
      opt.mapping = m;
      auto plan = pspmv::analyze<Exec>(A, opt);
      ASSERT_GT(plan.padding_ratio(), 1.0);
      typename TestFixture::PlanT::vector_type x("x", n), y("y", n);
      Kokkos::deep_copy(x, V(1));
      Kokkos::deep_copy(Kokkos::subview(x, std::make_pair(0, 1)), std::numeric_limits<V>::infinity());
      plan.multiply(V(1), x, V(0), y);
      auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
      for (std::int32_t i = 0; i < n; ++i) ASSERT_TRUE(std::isfinite(static_cast<double>(hy(i)))) << "row " << i;
    }
  }
}

TYPED_TEST(SpmvTest, KeepPermutedNeedsSell) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  auto A = pspmv::generate_random<V, O>(300, 300, 5.0, 4);
  pspmv::AnalyzeOptions opt;
  opt.keep_permuted = true;
  EXPECT_EQ(pspmv::analyze<Exec>(A, opt).format(), pspmv::Format::sell);
  opt.format = pspmv::Format::csr;
  EXPECT_THROW(pspmv::analyze<Exec>(A, opt), pspmv::InvalidArgument);
  // A piece of a split long row has no position of its own in y.
  opt.format = pspmv::Format::sell;
  opt.sell_long_row = 4;
  opt.sell_long_split = true;
  EXPECT_THROW(pspmv::analyze<Exec>(A, opt), pspmv::InvalidArgument);
  opt.sell_long_split.reset();
  EXPECT_FALSE(pspmv::analyze<Exec>(A, opt).launch().long_split) << "keep_permuted keeps long rows whole";
}

TEST(SellShape, LessonSkewedPaddingAndLaneSlots) {
  auto S = pspmv::generate_skewed<float, std::int64_t>(524288);
  auto sorted = pspmv::sell_shape(S.row_ptr.data(), S.nrows, 32, 524288);
  EXPECT_EQ(sorted.stored, 8388608);
  EXPECT_NEAR(sorted.padding, 1.00, 1e-12);
  auto unsorted = pspmv::sell_shape(S.row_ptr.data(), S.nrows, 32, 1);
  EXPECT_EQ(unsorted.stored, 219676672);
  EXPECT_NEAR(unsorted.padding, 26.19, 0.005);
  // The built matrix agrees with the shape.
  auto small = pspmv::generate_skewed<double, std::int64_t>(4096);
  for (std::int64_t sigma : {1, 32, 256, 4096}) {
    for (std::int64_t long_row : {0, 64}) {
      for (const bool split : {false, true}) {
        auto M = pspmv::csr_to_sell(small, 32, sigma, long_row, split);
        const auto shape = pspmv::sell_shape(small.row_ptr.data(), small.nrows, 32, sigma, long_row, split);
        EXPECT_EQ(M.stored(), shape.stored);
        EXPECT_EQ(M.nnz, small.nnz());
        EXPECT_EQ(M.nlong(), long_row > 0 ? small.nrows / 32 : 0);  // the 419-entry rows
        // Split: each 419-entry row becomes 7 pieces (6 of 64, one of 35), inside the slices.
        EXPECT_EQ(M.npieces(), long_row > 0 && split ? 7 * small.nrows / 32 : 0);
        EXPECT_EQ(shape.pieces, M.npieces());
        EXPECT_EQ(M.npos, small.nrows + M.npieces());
        EXPECT_EQ(M.long_values.extent(0), long_row > 0 && !split ? 419u * (small.nrows / 32) : 0u);
      }
    }
  }
  // Sorted, the pieces nearly fill their slices: 7 pieces per long row (6 of 64 entries, one
  // of 35) sort into slices of 64s and slices of 35s; only the slice where a window's 64s end
  // mixes both (1.007 here).
  const auto split = pspmv::sell_shape(S.row_ptr.data(), S.nrows, 32, 1024, 64, true);
  EXPECT_EQ(split.pieces, 7 * 16384);
  EXPECT_EQ(split.long_rows, 16384);
  EXPECT_GT(split.padding, 1.0);
  EXPECT_LT(split.padding, 1.01);
  // With the long rows out, unsorted skewed SELL-32 pads only the long row's lane (3 entries
  // per slice of 32 rows), and sorted it pads nothing.
  EXPECT_EQ(pspmv::sell_shape(S.row_ptr.data(), S.nrows, 32, 1, 64).stored, 8388608 + 16384 * 3);
  EXPECT_EQ(pspmv::sell_shape(S.row_ptr.data(), S.nrows, 32, 1024, 64).stored, 8388608);
}
