// y = alpha A^T x + beta y (AnalyzeOptions::operation = transpose): the parallel transpose
// against a serial one, bit for bit; every format x mapping x schedule on every enabled
// execution space against the long-double reference of A^T (built here serially), rectangular
// matrices with empty rows and columns, beta == 0 on a NaN-filled y; several vectors; the
// shape checks.
#include "test_util.hpp"

using namespace pspmv_test;

namespace {

/// A^T by the definition: walk A row by row, append each entry to its column's list.
template <class V, class O>
pspmv::HostCsr<V, O> serial_transpose(const pspmv::HostCsr<V, O>& A) {
  std::vector<std::vector<std::pair<std::int32_t, V>>> cols(static_cast<std::size_t>(A.ncols));
  for (std::int32_t i = 0; i < A.nrows; ++i)
    for (O k = A.row_ptr(i); k < A.row_ptr(i + 1); ++k) cols[A.col_idx(k)].emplace_back(i, A.values(k));
  std::vector<O> rp(1, 0);
  std::vector<std::int32_t> ci;
  std::vector<V> v;
  for (const auto& c : cols) {
    for (const auto& [i, a] : c) {
      ci.push_back(i);
      v.push_back(a);
    }
    rp.push_back(static_cast<O>(ci.size()));
  }
  return pspmv::make_csr<V, O, std::int32_t>(A.ncols, A.nrows, rp, ci, v);
}

/// Rows of 0 to 30 entries, some empty, and columns never used (every 5th).
template <class V, class O>
pspmv::HostCsr<V, O> rectangular(std::int32_t nrows, std::int32_t ncols) {
  return from_rows<V, O>(nrows, ncols, [&](std::int32_t i) {
    std::vector<std::int32_t> c;
    const std::int32_t len = i % 9 == 4 ? 0 : (i % 53 == 0 ? 120 : i % 31);
    for (std::int32_t k = 0; k < len; ++k) {
      std::int32_t col = static_cast<std::int32_t>((i * 11LL + k * 17LL) % ncols);
      if (col % 5 == 2) col = (col + 1) % ncols;
      c.push_back(col);
    }
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  });
}

template <class Cfg>
class TransposeTest : public ConfigTest<Cfg> {
 public:
  using Exec = typename Cfg::exec;
  using Value = typename Cfg::value;
  using Host = typename ConfigTest<Cfg>::Host;
  using PlanT = typename ConfigTest<Cfg>::PlanT;

  /// y = alpha A^T x + beta y0 by a transpose plan of `opt`, against the reference of At.
  static void check(const Host& A, const Host& At, pspmv::AnalyzeOptions opt, double alpha, double beta,
                    const std::string& what) {
    opt.operation = pspmv::Operation::transpose;
    const PlanT plan = pspmv::analyze<Exec>(A, opt);
    ASSERT_EQ(plan.operation(), pspmv::Operation::transpose);
    ASSERT_EQ(plan.x_length(), A.nrows);
    ASSERT_EQ(plan.y_length(), A.ncols);
    std::vector<double> x(A.nrows), y0(A.ncols);
    for (std::int32_t j = 0; j < A.nrows; ++j) x[j] = static_cast<double>(static_cast<Value>(std::sin(0.7 * j + 0.1)));
    for (std::int32_t i = 0; i < A.ncols; ++i)
      y0[i] = beta == 0.0 ? std::numeric_limits<double>::quiet_NaN()
                          : static_cast<double>(static_cast<Value>(std::cos(0.3 * i)));
    typename PlanT::vector_type dx("x", A.nrows), dy("y", A.ncols);
    auto hx = Kokkos::create_mirror_view(dx);
    auto hy = Kokkos::create_mirror_view(dy);
    for (std::int32_t j = 0; j < A.nrows; ++j) hx(j) = static_cast<Value>(x[j]);
    for (std::int32_t i = 0; i < A.ncols; ++i) hy(i) = static_cast<Value>(y0[i]);
    Kokkos::deep_copy(dx, hx);
    Kokkos::deep_copy(dy, hy);
    plan.multiply(static_cast<Value>(alpha), dx, static_cast<Value>(beta), dy);
    Kokkos::fence();
    Kokkos::deep_copy(hy, dy);
    std::vector<double> got(A.ncols);
    for (std::int32_t i = 0; i < A.ncols; ++i) got[i] = static_cast<double>(hy(i));
    const auto ref = pspmv::reference::spmv(At, alpha, x, beta, y0);
    EXPECT_TRUE(matches_reference(At, got, ref)) << what << " [" << plan.describe() << "]";
  }
};

TYPED_TEST_SUITE(TransposeTest, Configs, ConfigNames);

TYPED_TEST(TransposeTest, ParallelTransposeIsTheSerialOne) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  for (const auto& A : {rectangular<V, O>(301, 517), rectangular<V, O>(517, 203), pspmv::generate_skewed<V, O>(4096),
                        from_rows<V, O>(0, 7, [](std::int32_t) { return std::vector<std::int32_t>{}; }),
                        from_rows<V, O>(7, 0, [](std::int32_t) { return std::vector<std::int32_t>{}; })}) {
    const auto T = pspmv::transpose(A);
    const auto S = serial_transpose(A);
    ASSERT_EQ(T.nrows, S.nrows);
    ASSERT_EQ(T.ncols, S.ncols);
    ASSERT_EQ(T.nnz(), S.nnz());
    for (std::int32_t j = 0; j <= S.nrows; ++j) ASSERT_EQ(T.row_ptr(j), S.row_ptr(j)) << "row_ptr " << j;
    for (O k = 0; k < S.nnz(); ++k) {
      ASSERT_EQ(T.col_idx(k), S.col_idx(k)) << "entry " << k;
      ASSERT_EQ(T.values(k), S.values(k)) << "entry " << k;
    }
  }
}

TYPED_TEST(TransposeTest, EveryVariantMatchesTheReference) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  for (const auto& A : {rectangular<V, O>(301, 517), rectangular<V, O>(517, 203)}) {
    const auto At = serial_transpose(A);
    const std::string shape = std::to_string(A.nrows) + "x" + std::to_string(A.ncols);
    this->check(A, At, {}, 1.5, 0.0, shape + " auto");
    for (auto f : pspmv::all_formats)
      for (auto m : pspmv::all_mappings)
        for (auto s : pspmv::all_schedules) {
          if (!pspmv::schedule_runs(s, m, pspmv::ExecTraits<Exec>::is_gpu)) continue;
          pspmv::AnalyzeOptions opt;
          opt.format = f;
          opt.mapping = m;
          opt.schedule = s;
          if (f == pspmv::Format::sell) {
            opt.slice_height = 8;
            opt.sell_long_row = 16;  // A^T's long rows leave the slices
          }
          const std::string tag = shape + " " + pspmv::to_string(f) + " " + pspmv::to_string(m) + "/" + pspmv::to_string(s);
          this->check(A, At, opt, 1.5, 0.0, tag);
          this->check(A, At, opt, -0.5, 2.0, tag);
        }
  }
}

TYPED_TEST(TransposeTest, SeveralVectorsShapesAndReuse) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  using Mem = typename TestFixture::PlanT::memory_space;
  const auto A = rectangular<V, O>(120, 90);
  const auto At = serial_transpose(A);
  pspmv::AnalyzeOptions opt;
  opt.operation = pspmv::Operation::transpose;
  const auto plan = pspmv::analyze<Exec>(A, opt);
  EXPECT_NE(plan.reason().find("transpose"), std::string::npos) << plan.reason();
  EXPECT_EQ(plan.nrows(), 120);
  EXPECT_EQ(plan.ncols(), 90);
  // Three vectors: each column against the reference of A^T.
  Kokkos::View<V**, Kokkos::LayoutRight, Mem> X("X", 120, 3), Y("Y", 90, 3);
  auto hx = Kokkos::create_mirror_view(X);
  for (int j = 0; j < 120; ++j)
    for (int q = 0; q < 3; ++q) hx(j, q) = static_cast<V>(std::sin(0.5 * j + q));
  Kokkos::deep_copy(X, hx);
  Kokkos::deep_copy(Y, std::numeric_limits<V>::quiet_NaN());
  plan.multiply(V(1), X, V(0), Y);
  Kokkos::fence();
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y);
  for (int q = 0; q < 3; ++q) {
    std::vector<double> x(120), got(90);
    for (int j = 0; j < 120; ++j) x[j] = static_cast<double>(hx(j, q));
    for (int i = 0; i < 90; ++i) got[i] = static_cast<double>(hy(i, q));
    EXPECT_TRUE(matches_reference(At, got, pspmv::reference::spmv(At, 1.0, x))) << "column " << q;
  }
  // Shapes are those of A^T: x of nrows(A), y of ncols(A).
  typename TestFixture::PlanT::vector_type x_plain("x", 90), y_plain("y", 120), x_t("x", 120), y_t("y", 90);
  try {
    plan.multiply(V(1), x_plain, V(0), y_t);
    ADD_FAILURE() << "x of ncols(A) accepted by a transpose plan";
  } catch (const pspmv::DimensionError& e) {
    EXPECT_EQ(e.expected(), 120);
    EXPECT_EQ(e.got(), 90);
    EXPECT_NE(std::string(e.what()).find("transpose"), std::string::npos) << e.what();
  }
  EXPECT_THROW(plan.multiply(V(1), x_t, V(0), y_plain), pspmv::DimensionError);
  EXPECT_NO_THROW(plan.multiply(V(1), x_t, V(0), y_t));
  Kokkos::fence();
  // A plan of A reused for another operation is refused; the same operation is reused.
  const auto plain = pspmv::analyze<Exec>(A);
  EXPECT_THROW(pspmv::analyze(Exec(), A, opt, plain), pspmv::InvalidArgument);
  EXPECT_NO_THROW(pspmv::analyze(Exec(), A, opt, plan));
  EXPECT_EQ(pspmv::parse_operation("transpose"), pspmv::Operation::transpose);
  EXPECT_THROW(pspmv::parse_operation("conjugate"), pspmv::InvalidArgument);
}

}  // namespace
