// Several vectors at once (Y = alpha A X + beta Y, X and Y of k columns): every format x
// mapping x schedule on every enabled execution space, k in {1, 2, 3, 8, 16} and 17 (several
// passes: ExecTraits::multi_columns is 16 on a host, 8 on a GPU),
// LayoutLeft and LayoutRight, rectangular matrices with empty and long rows, each column against
// the long-double reference; beta == 0 on a Y of NaN and Inf; the checks of the arguments.
// The f32f64 configurations (a float matrix under double vectors: MixedPlan) run it all in
// mixed precision, k = 1 being the one-vector kernels, in double's tolerance.
#include <array>

#include "test_util.hpp"

using namespace pspmv_test;

namespace {

// Kernel names launched while a Kokkos Tools begin_parallel_for callback is set.
std::vector<std::string>& multi_launch_log() {
  static std::vector<std::string> log;
  return log;
}
void record_multi_launch(const char* name, const std::uint32_t, std::uint64_t*) {
  multi_launch_log().emplace_back(name);
}

template <class Cfg>
class MultiTest : public ConfigTest<Cfg> {
 public:
  using Exec = typename Cfg::exec;
  using Value = typename Cfg::value;
  using Offset = typename Cfg::offset;
  using MValue = typename Cfg::matrix_value;
  using Host = typename ConfigTest<Cfg>::Host;
  using PlanT = typename ConfigTest<Cfg>::PlanT;

  /// X column q, entry j: a value of Value's precision, different per column.
  static double x_value(std::int32_t j, int q) {
    return static_cast<double>(static_cast<Value>(std::sin(0.37 * j + 1.1 * q + 0.2)));
  }
  /// Y0 row i, column q: NaN and +-Inf when beta == 0 (must not survive), else a value.
  static double y0_value(std::int32_t i, int q, double beta) {
    if (beta == 0.0)
      return (i + q) % 3 == 0 ? std::numeric_limits<double>::quiet_NaN()
                              : ((i + q) % 3 == 1 ? 1.0 : -1.0) * std::numeric_limits<double>::infinity();
    return static_cast<double>(static_cast<Value>(std::cos(0.29 * i - 0.7 * q)));
  }

  /// Y = alpha A X + beta Y0 with `plan` for X of layout XL and Y of layout YL, k columns,
  /// each column checked against the reference.
  template <class XL, class YL>
  static void check_k(const Host& A, const PlanT& plan, int k, double alpha, double beta, const std::string& what) {
    std::vector<std::vector<double>> xs, ys, got;
    multiply_k<XL, YL>(A, plan, k, alpha, beta, xs, ys, got);
    for (int q = 0; q < k; ++q) {
      const auto ref = pspmv::reference::spmv(A, alpha, xs[q], beta, ys[q]);
      ASSERT_TRUE(matches_reference<Value>(A, got[q], ref))
          << what << " [" << plan.describe() << "] k=" << k << " column " << q << " alpha=" << alpha
          << " beta=" << beta << (std::is_same<XL, Kokkos::LayoutRight>::value ? " X right" : " X left")
          << (std::is_same<YL, Kokkos::LayoutRight>::value ? " Y right" : " Y left");
    }
  }

  /// The multiply of check_k: X's columns `xs`, Y0's `ys`, and Y's columns after it in `got`.
  template <class XL, class YL>
  static void multiply_k(const Host& A, const PlanT& plan, int k, double alpha, double beta,
                         std::vector<std::vector<double>>& xs, std::vector<std::vector<double>>& ys,
                         std::vector<std::vector<double>>& got) {
    Kokkos::View<Value**, XL, typename PlanT::memory_space> X("X", A.ncols, k);
    Kokkos::View<Value**, YL, typename PlanT::memory_space> Y("Y", A.nrows, k);
    auto hx = Kokkos::create_mirror_view(X);
    auto hy = Kokkos::create_mirror_view(Y);
    // Each value computed once and given to both the kernel and the reference: two loops that
    // recompute x_value may contract its multiply-adds differently.
    xs.assign(k, std::vector<double>(A.ncols));
    ys.assign(k, std::vector<double>(A.nrows));
    for (int q = 0; q < k; ++q) {
      for (std::int32_t j = 0; j < A.ncols; ++j) {
        xs[q][j] = static_cast<double>(static_cast<Value>(x_value(j, q)));
        hx(j, q) = static_cast<Value>(xs[q][j]);
      }
      for (std::int32_t i = 0; i < A.nrows; ++i) {
        ys[q][i] = beta == 0.0 ? y0_value(i, q, beta) : static_cast<double>(static_cast<Value>(y0_value(i, q, beta)));
        hy(i, q) = static_cast<Value>(ys[q][i]);
      }
    }
    Kokkos::deep_copy(X, hx);
    Kokkos::deep_copy(Y, hy);
    plan.multiply(static_cast<Value>(alpha), X, static_cast<Value>(beta), Y);
    Kokkos::fence();
    Kokkos::deep_copy(hy, Y);
    got.assign(k, std::vector<double>(A.nrows));
    for (int q = 0; q < k; ++q)
      for (std::int32_t i = 0; i < A.nrows; ++i) got[q][i] = static_cast<double>(hy(i, q));
  }

  /// Where a space runs a thread per row and W columns for LayoutRight (ExecTraits::
  /// multi_column_lanes: thread-per-row plans under static_chunks and nnz_balanced), that
  /// kernel ("...::multi::lanes") runs for LayoutRight on a plan with entries and not for
  /// LayoutLeft, and its Y is the K-sum kernel's of LayoutLeft bit for bit: each column's sum
  /// takes the same additions in the same order.
  static void check_lanes_match_rows(const Host& A, const PlanT& plan, const std::string& what) {
    if constexpr (pspmv::ExecTraits<Exec>::multi_column_lanes) {
      const auto& c = plan.choice();
      if (c.mapping != pspmv::Mapping::thread_per_row) return;
      // A plan without entries only scales Y (alpha is nonzero here), so no lanes kernel runs.
      const bool lanes = plan.nnz() > 0 && (c.schedule == pspmv::Schedule::static_chunks ||
                                            c.schedule == pspmv::Schedule::nnz_balanced);
      const auto ran_lanes = []() {
        const std::string tail = "::multi::lanes";
        for (const auto& name : multi_launch_log())
          if (name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0)
            return true;
        return false;
      };
      for (int k : {3, 8}) {
        std::vector<std::vector<double>> xs, ys, right, left;
        multi_launch_log().clear();
        Kokkos::Tools::Experimental::set_begin_parallel_for_callback(record_multi_launch);
        multiply_k<Kokkos::LayoutRight, Kokkos::LayoutRight>(A, plan, k, -0.5, 2.0, xs, ys, right);
        const bool right_lanes = ran_lanes();
        multi_launch_log().clear();
        multiply_k<Kokkos::LayoutLeft, Kokkos::LayoutLeft>(A, plan, k, -0.5, 2.0, xs, ys, left);
        const bool left_lanes = ran_lanes();
        Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
        ASSERT_EQ(right_lanes, lanes) << what << " [" << plan.describe() << "] k=" << k << ": LayoutRight";
        ASSERT_FALSE(left_lanes) << what << " [" << plan.describe() << "] k=" << k << ": LayoutLeft";
        if (!lanes) continue;
        for (int q = 0; q < k; ++q)
          for (std::int32_t i = 0; i < A.nrows; ++i)
            ASSERT_EQ(right[q][i], left[q][i]) << what << " [" << plan.describe() << "] k=" << k << " column " << q
                                               << " row " << i << ": LayoutRight (a thread per row and W columns) "
                                               << "against LayoutLeft (a thread per row)";
      }
    }
  }

  /// Every k and layout, beta == 0 (NaN-filled Y) and beta != 0, on the plan of `opt`.
  static void check_plan(const Host& A, const pspmv::AnalyzeOptions& opt, const std::string& what) {
    const PlanT plan = analyze_for<PlanT>(A, opt);
    for (int k : {1, 2, 3, 8, 16}) {
      check_k<Kokkos::LayoutRight, Kokkos::LayoutRight>(A, plan, k, 1.5, 0.0, what);
      check_k<Kokkos::LayoutLeft, Kokkos::LayoutLeft>(A, plan, k, 1.5, 0.0, what);
      check_k<Kokkos::LayoutRight, Kokkos::LayoutRight>(A, plan, k, -0.5, 2.0, what);
      check_k<Kokkos::LayoutLeft, Kokkos::LayoutLeft>(A, plan, k, -0.5, 2.0, what);
    }
    check_k<Kokkos::LayoutRight, Kokkos::LayoutLeft>(A, plan, 17, -0.5, 2.0, what);  // X and Y differ; 2 or 3 passes
    check_k<Kokkos::LayoutRight, Kokkos::LayoutLeft>(A, plan, 5, 1.5, 0.0, what);
    check_lanes_match_rows(A, plan, what);
  }

  /// Every format x mapping x schedule: CSR; SELL plain, with long rows in a lane-shared part
  /// and split into pieces; small chunks and teams.
  static void check_all_variants(const Host& A, const std::string& what) {
    for (auto m : pspmv::all_mappings)
      for (auto s : pspmv::all_schedules) {
        if (!pspmv::schedule_runs(s, m, pspmv::ExecTraits<Exec>::is_gpu)) continue;
        pspmv::AnalyzeOptions opt;
        opt.mapping = m;
        opt.schedule = s;
        const std::string tag = what + " " + pspmv::to_string(m) + "/" + pspmv::to_string(s);
        opt.format = pspmv::Format::csr;
        check_plan(A, opt, tag + " csr");
        opt.chunk_size = 3;
        opt.vector_length = 4;
        opt.team_size = Exec().concurrency() >= 2 ? 2 : 1;
        opt.num_blocks = 5;
        check_plan(A, opt, tag + " csr small-chunks");
        opt = pspmv::AnalyzeOptions{};
        opt.mapping = m;
        opt.schedule = s;
        opt.format = pspmv::Format::sell;
        opt.slice_height = 8;
        opt.sigma = 64;
        opt.sell_long_row = -1;
        check_plan(A, opt, tag + " sell C=8");
        opt.sell_long_row = 4;
        for (const bool split : {false, true}) {
          opt.sell_long_split = split;
          check_plan(A, opt, tag + (split ? " sell long>4 split" : " sell long>4 lanes"));
        }
        // 16-bit column offsets per slice (SellMatrix::compressed), with split long rows too.
        opt.compress = true;
        check_plan(A, opt, tag + " sell compressed long>4 split");
        opt.sell_long_row = -1;
        opt.sell_long_split.reset();
        check_plan(A, opt, tag + " sell compressed");
      }
  }
};

/// Each space with f64 and f32 (one offset width each: the kernels' offsets are those of the
/// one-vector kernels, which test_spmv.cpp runs at both widths), and each with a float matrix
/// under double vectors (mixed precision): k = 1 runs the one-vector
/// kernels, so every format x mapping x schedule of a mixed plan is checked here, in double's
/// tolerance (a float sum would miss it).
using MultiConfigs = Join<
#if defined(KOKKOS_ENABLE_CUDA)
    TypeList<Config<Kokkos::Cuda, double, std::int64_t>, Config<Kokkos::Cuda, float, std::int32_t>,
             Config<Kokkos::Cuda, double, std::int32_t, float>>,
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    TypeList<Config<Kokkos::OpenMP, double, std::int64_t>, Config<Kokkos::OpenMP, float, std::int32_t>,
             Config<Kokkos::OpenMP, double, std::int64_t, float>>,
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
    TypeList<Config<Kokkos::Serial, double, std::int32_t>, Config<Kokkos::Serial, float, std::int64_t>,
             Config<Kokkos::Serial, double, std::int32_t, float>>,
#endif
    TypeList<>>::type;

TYPED_TEST_SUITE(MultiTest, MultiConfigs, ConfigNames);

/// Rows of 0 to 40 entries, empty ones at the start, middle and end, and a few of 150.
template <class V, class O>
pspmv::HostCsr<V, O> rows_mixed(std::int32_t nrows, std::int32_t ncols) {
  return from_rows<V, O>(nrows, ncols, [&](std::int32_t i) {
    std::vector<std::int32_t> c;
    const bool empty = i < 5 || (i >= nrows / 2 && i < nrows / 2 + 9) || i >= nrows - 4 || i % 11 == 3;
    const std::int32_t len = empty ? 0 : (i % 37 == 0 ? std::min<std::int32_t>(150, ncols) : 1 + i % 40);
    for (std::int32_t k = 0; k < len; ++k) c.push_back(static_cast<std::int32_t>((i * 7LL + k * 13LL) % ncols));
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  });
}

TYPED_TEST(MultiTest, WideMatrixEveryVariant) {
  this->check_all_variants(rows_mixed<typename TestFixture::MValue, typename TestFixture::Offset>(301, 517), "301x517");
}

TYPED_TEST(MultiTest, TallMatrixEveryVariant) {
  this->check_all_variants(rows_mixed<typename TestFixture::MValue, typename TestFixture::Offset>(517, 203), "517x203");
}

// SELL at the space's own slice height (ExecTraits::sell_slice_height of the vectors' type: 16
// floats or 8 doubles under AVX-512, 4 or 8 under AVX2, a warp on a GPU), plain and compressed,
// with split long rows: the host's several-vector slice kernel compiles that height and 8 in
// ESB's order, and the tests above force 8.
TYPED_TEST(MultiTest, SlicesOfTheSpacesOwnHeight) {
  using V = typename TestFixture::MValue;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  const auto A = rows_mixed<V, O>(301, 517);
  for (const bool compress : {false, true}) {
    pspmv::AnalyzeOptions opt;
    opt.format = pspmv::Format::sell;
    opt.slice_height = pspmv::ExecTraits<Exec>::template sell_slice_height<typename TestFixture::Value>();
    opt.sigma = 64;
    opt.mapping = pspmv::Mapping::thread_per_row;
    opt.schedule = pspmv::Schedule::static_chunks;
    opt.compress = compress;
    opt.sell_long_row = compress ? 4 : -1;
    if (compress) opt.sell_long_split = true;
    this->check_plan(A, opt, std::string("own height C=") + std::to_string(opt.slice_height) +
                                 (compress ? " compressed long>4 split" : ""));
  }
}

// Compressed slices beside wide and diagonal ones (columns spanning more than 65,536; a band),
// every mapping and schedule: each slice's columns read in its own form.
TYPED_TEST(MultiTest, CompressedAndWideSlices) {
  using V = typename TestFixture::MValue;
  using O = typename TestFixture::Offset;
  const std::int32_t ncols = 70000;  // row i % 40 == 17 reaches column ncols - 1 - i >= 69,600
  const auto A = from_rows<V, O>(400, ncols, [&](std::int32_t i) {
    std::vector<std::int32_t> c;
    if (i >= 200 && i < 300) {
      c = {i - 1, i, i + 3};  // a band: diagonal slices (no column per entry)
    } else {
      for (std::int32_t k = 0; k < 1 + i % 9; ++k) c.push_back((i * 3 + k * 5) % 60);
    }
    if (i % 40 == 17) c.push_back(ncols - 1 - i);  // its slice spans > 65,536: kept wide
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  });
  for (auto m : pspmv::all_mappings)
    for (auto s : pspmv::all_schedules) {
      if (!pspmv::schedule_runs(s, m, pspmv::ExecTraits<typename TestFixture::Exec>::is_gpu)) continue;
      pspmv::AnalyzeOptions opt;
      opt.format = pspmv::Format::sell;
      opt.slice_height = 8;
      opt.sigma = 1;
      opt.compress = true;
      opt.mapping = m;
      opt.schedule = s;
      if (m == pspmv::Mapping::thread_per_row && s == pspmv::Schedule::static_chunks)
        ASSERT_GT(analyze_for<typename TestFixture::PlanT>(A, opt).sell().diagonal_slices, 0);
      this->check_plan(A, opt, "mixed spans " + pspmv::to_string(m) + "/" + pspmv::to_string(s));
    }
}

TYPED_TEST(MultiTest, AutomaticPlansAndDegenerateShapes) {
  using V = typename TestFixture::MValue;
  using O = typename TestFixture::Offset;
  this->check_plan(pspmv::generate_skewed<V, O>(1024), {}, "skewed auto");
  this->check_plan(pspmv::generate_random<V, O>(700, 650, 6.0, 17), {}, "random auto");
  this->check_plan(from_rows<V, O>(64, 64, [](std::int32_t) { return std::vector<std::int32_t>{}; }), {}, "nnz0");
  this->check_plan(from_rows<V, O>(9, 0, [](std::int32_t) { return std::vector<std::int32_t>{}; }), {}, "9x0");
  this->check_plan(from_rows<V, O>(0, 9, [](std::int32_t) { return std::vector<std::int32_t>{}; }), {}, "0x9");
}

// X and Y as k = 8 or 12 adjacent columns of wider LayoutRight multivectors (rows 8 to 16 values
// apart, the block's first column at 0 to 4, columns on either side): on a GPU a thread of the
// lanes kernel loads a run of X's columns only where every run stays aligned (rows a multiple of
// the run apart and the block's first column aligned), else one column (multi_launch.hpp); k =
// 12 adds a full block of 4 at column 8. Each column against the reference and the columns
// beside the block untouched, CSR and SELL.
TYPED_TEST(MultiTest, ColumnBlocksOfWiderMultivectors) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using PlanT = typename TestFixture::PlanT;
  using Mem = typename PlanT::memory_space;
  const auto A = rows_mixed<typename TestFixture::MValue, O>(301, 517);
  for (const auto format : {pspmv::Format::csr, pspmv::Format::sell}) {
    pspmv::AnalyzeOptions opt;
    opt.format = format;
    opt.mapping = pspmv::Mapping::thread_per_row;
    opt.schedule = pspmv::Schedule::static_chunks;
    const PlanT plan = analyze_for<PlanT>(A, opt);
    // {first column, columns of the wider multivectors, k}
    for (const auto& [first, width, k] : {std::array<int, 3>{0, 8, 8}, std::array<int, 3>{1, 9, 8},
                                          std::array<int, 3>{2, 10, 8}, std::array<int, 3>{4, 12, 8},
                                          std::array<int, 3>{1, 10, 8}, std::array<int, 3>{2, 12, 8},
                                          std::array<int, 3>{2, 14, 8}, std::array<int, 3>{4, 16, 8},
                                          std::array<int, 3>{0, 12, 12}, std::array<int, 3>{4, 16, 12}}) {
      const std::string what = pspmv::to_string(format) + " columns [" + std::to_string(first) + ", " +
                               std::to_string(first + k) + ") of " + std::to_string(width);
      Kokkos::View<V**, Kokkos::LayoutRight, Mem> Xw("Xw", A.ncols, width), Yw("Yw", A.nrows, width);
      auto hx = Kokkos::create_mirror_view(Xw);
      auto hy = Kokkos::create_mirror_view(Yw);
      std::vector<std::vector<double>> xs(k, std::vector<double>(A.ncols)), ys(k, std::vector<double>(A.nrows));
      for (int q = 0; q < width; ++q) {
        for (std::int32_t j = 0; j < A.ncols; ++j) hx(j, q) = static_cast<V>(TestFixture::x_value(j, q));
        for (std::int32_t i = 0; i < A.nrows; ++i) hy(i, q) = static_cast<V>(TestFixture::y0_value(i, q, 2.0));
      }
      for (int q = 0; q < k; ++q) {
        for (std::int32_t j = 0; j < A.ncols; ++j) xs[q][j] = static_cast<double>(hx(j, first + q));
        for (std::int32_t i = 0; i < A.nrows; ++i) ys[q][i] = static_cast<double>(hy(i, first + q));
      }
      const auto before = Kokkos::create_mirror(Yw);
      Kokkos::deep_copy(before, hy);
      Kokkos::deep_copy(Xw, hx);
      Kokkos::deep_copy(Yw, hy);
      const auto cols = std::pair<int, int>(first, first + k);
      plan.multiply(V(-0.5), Kokkos::subview(Xw, Kokkos::ALL, cols), V(2), Kokkos::subview(Yw, Kokkos::ALL, cols));
      Kokkos::fence();
      Kokkos::deep_copy(hy, Yw);
      for (int q = 0; q < k; ++q) {
        std::vector<double> got(A.nrows);
        for (std::int32_t i = 0; i < A.nrows; ++i) got[i] = static_cast<double>(hy(i, first + q));
        const auto ref = pspmv::reference::spmv(A, -0.5, xs[q], 2.0, ys[q]);
        ASSERT_TRUE(matches_reference<V>(A, got, ref)) << what << " [" << plan.describe() << "] column " << q;
      }
      for (int q = 0; q < width; ++q)
        if (q < first || q >= first + k)
          for (std::int32_t i = 0; i < A.nrows; ++i)
            ASSERT_EQ(hy(i, q), before(i, q)) << what << ": column " << q << " (outside the block) written, row " << i;
    }
  }
}

TYPED_TEST(MultiTest, AlphaZeroOnlyScalesAndZeroColumns) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using PlanT = typename TestFixture::PlanT;
  const auto A = pspmv::generate_random<typename TestFixture::MValue, O>(300, 300, 5.0, 3);
  const auto plan = analyze_for<PlanT>(A);
  this->template check_k<Kokkos::LayoutRight, Kokkos::LayoutRight>(A, plan, 4, 0.0, 3.0, "alpha=0");
  this->template check_k<Kokkos::LayoutLeft, Kokkos::LayoutLeft>(A, plan, 3, 0.0, 0.0, "alpha=0 beta=0");
  // k = 0: nothing to do, no error.
  Kokkos::View<V**, Kokkos::LayoutRight, typename TestFixture::PlanT::memory_space> X("X", 300, 0), Y("Y", 300, 0);
  EXPECT_NO_THROW(plan.multiply(V(1), X, V(0), Y));
}

TYPED_TEST(MultiTest, ChecksShapesAndOverlap) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Mem = typename TestFixture::PlanT::memory_space;
  using M = typename TestFixture::MValue;
  const auto A = pspmv::generate_random<M, O>(40, 30, 4.0, 3);
  const auto plan = analyze_for<typename TestFixture::PlanT>(A);
  Kokkos::View<V**, Kokkos::LayoutRight, Mem> X("X", 30, 4), Y("Y", 40, 4), Xbad("Xbad", 40, 4), Ybad("Ybad", 30, 4),
      Y3("Y3", 40, 3);
  EXPECT_NO_THROW(plan.multiply(V(1), X, V(0), Y));
  try {
    plan.multiply(V(1), Xbad, V(0), Y);
    ADD_FAILURE() << "X of 40 rows for a matrix of 30 columns was accepted";
  } catch (const pspmv::DimensionError& e) {
    EXPECT_EQ(e.expected(), 30);
    EXPECT_EQ(e.got(), 40);
    EXPECT_NE(std::string(e.what()).find("rows of X"), std::string::npos) << e.what();
  }
  try {
    plan.multiply(V(1), X, V(0), Ybad);
    ADD_FAILURE() << "Y of 30 rows for a matrix of 40 rows was accepted";
  } catch (const pspmv::DimensionError& e) {
    EXPECT_EQ(e.expected(), 40);
    EXPECT_EQ(e.got(), 30);
  }
  try {
    plan.multiply(V(1), X, V(0), Y3);
    ADD_FAILURE() << "X of 4 columns with Y of 3 was accepted";
  } catch (const pspmv::DimensionError& e) {
    EXPECT_EQ(e.expected(), 4);
    EXPECT_EQ(e.got(), 3);
    EXPECT_NE(std::string(e.what()).find("columns"), std::string::npos) << e.what();
  }
  // X and Y sharing memory: a square matrix and the same View twice, or two windows of one.
  const auto S = pspmv::generate_random<M, O>(40, 40, 4.0, 5);
  const auto square = analyze_for<typename TestFixture::PlanT>(S);
  EXPECT_THROW(square.multiply(V(1), Y, V(0), Y), pspmv::InvalidArgument);
  Kokkos::View<V**, Kokkos::LayoutLeft, Mem> Z("Z", 40, 6);
  const auto Z1 = Kokkos::subview(Z, Kokkos::ALL, std::make_pair(0, 3));
  const auto Z2 = Kokkos::subview(Z, Kokkos::ALL, std::make_pair(2, 5));
  EXPECT_THROW(square.multiply(V(1), Z1, V(0), Z2), pspmv::InvalidArgument);
  // Disjoint windows of one View are no overlap.
  const auto Z3 = Kokkos::subview(Z, Kokkos::ALL, std::make_pair(3, 6));
  EXPECT_NO_THROW(square.multiply(V(1), Z1, V(0), Z3));
  Kokkos::fence();
}

}  // namespace
