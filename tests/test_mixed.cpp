// Mixed precision (pspmv::MixedPlan: a float matrix under double x, y and sums) on every enabled
// execution space. Every format x mapping x schedule and several vectors are in
// test_multi.cpp (its f32f64 configurations); here: the sums are double's (a float plan of the
// same matrix misses double's tolerance where the mixed plan meets it), the bytes and choices,
// the transpose, repeatability, tune, `like` and a matrix already in the space's memory.
#include <cstring>

#include "test_util.hpp"

// The spaces MixedConfigs names (a CUDA build enables no Serial).
#if defined(KOKKOS_ENABLE_SERIAL) || defined(KOKKOS_ENABLE_OPENMP) || defined(KOKKOS_ENABLE_CUDA)

using namespace pspmv_test;

namespace {

template <class Cfg>
class MixedTest : public ConfigTest<Cfg> {
 public:
  using Exec = typename Cfg::exec;
  using Offset = typename Cfg::offset;
  using Host = typename ConfigTest<Cfg>::Host;    // HostCsr<float, Offset>
  using PlanT = typename ConfigTest<Cfg>::PlanT;  // MixedPlan<Exec, Offset>

  /// y = A x with x(j) = 1 + j % 3 (exact in float), as doubles.
  template <class P>
  static std::vector<double> product(const P& plan) {
    using V = typename P::value_type;
    typename P::vector_type x("x", plan.x_length()), y("y", plan.y_length());
    auto hx = Kokkos::create_mirror_view(x);
    for (std::size_t j = 0; j < hx.extent(0); ++j) hx(j) = static_cast<V>(1 + j % 3);
    Kokkos::deep_copy(x, hx);
    Kokkos::deep_copy(y, std::numeric_limits<V>::quiet_NaN());
    plan.multiply(V(1), x, V(0), y);
    Kokkos::fence();
    auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    return std::vector<double>(hy.data(), hy.data() + hy.extent(0));
  }
  static std::vector<double> x_of(std::int32_t n) {
    std::vector<double> x(static_cast<std::size_t>(n));
    for (std::int32_t j = 0; j < n; ++j) x[j] = 1 + j % 3;
    return x;
  }
  /// plan's y = A x (x as product()) against the reference of A, in double's tolerance.
  template <class P>
  static ::testing::AssertionResult exact(const Host& A, const P& plan) {
    return matches_reference<double>(A, product(plan), pspmv::reference::spmv(A, 1.0, x_of(A.ncols)));
  }
  /// Rows whose first entry is 1 and whose next 2,000 are 1e-8 (x = 1 there): a float sum stays
  /// at 1, a double sum reaches 1.00002; other rows are short and ordinary.
  static Host small_terms() {
    return from_rows<float, Offset>(300, 2100, [](std::int32_t i) {
      std::vector<std::int32_t> c;
      const std::int32_t len = i % 50 == 7 ? 2001 : 1 + i % 9;
      for (std::int32_t k = 0; k < len; ++k) c.push_back(len > 9 ? k : (i * 7 + k * 13) % 2100);
      std::sort(c.begin(), c.end());
      c.erase(std::unique(c.begin(), c.end()), c.end());
      return c;
    });
  }
};

/// Where libpspmv compiles mixed precision: OpenMP, Serial and Cuda.
using MixedConfigs = Join<
#if defined(KOKKOS_ENABLE_CUDA)
    TypeList<Config<Kokkos::Cuda, double, std::int64_t, float>, Config<Kokkos::Cuda, double, std::int32_t, float>>,
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    TypeList<Config<Kokkos::OpenMP, double, std::int64_t, float>, Config<Kokkos::OpenMP, double, std::int32_t, float>>,
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
    TypeList<Config<Kokkos::Serial, double, std::int64_t, float>>,
#endif
    TypeList<>>::type;

TYPED_TEST_SUITE(MixedTest, MixedConfigs, ConfigNames);

// The sums are double's: on rows of a 1 followed by 2,000 entries of 1e-8 (x = 1 there) every
// mixed plan meets double's tolerance; the float plan of the same matrix does not, so the check
// tells the two apart.
TYPED_TEST(MixedTest, SumsInDouble) {
  using Exec = typename TestFixture::Exec;
  using O = typename TestFixture::Offset;
  auto A = TestFixture::small_terms();
  for (std::int32_t i = 0; i < A.nrows; ++i) {
    if (A.row_ptr(i + 1) - A.row_ptr(i) < 100) continue;
    A.values(A.row_ptr(i)) = 1.0f;
    for (O k = A.row_ptr(i) + 1; k < A.row_ptr(i + 1); ++k) A.values(k) = 1e-8f;
  }
  std::vector<double> x(static_cast<std::size_t>(A.ncols), 1.0);
  const auto ref = pspmv::reference::spmv(A, 1.0, x);
  for (auto f : {pspmv::Format::csr, pspmv::Format::sell})
    for (auto m : pspmv::all_mappings) {
      pspmv::AnalyzeOptions opt;
      opt.format = f;
      opt.mapping = m;
      opt.deterministic = m == pspmv::Mapping::thread_per_row;  // long rows stay in the slices
      const auto mixed = pspmv::analyze_mixed(Exec(), A, opt);
      const auto single = pspmv::analyze<Exec>(A, opt);
      typename decltype(mixed)::vector_type xd("x", A.ncols), yd("y", A.nrows);
      typename decltype(single)::vector_type xf("x", A.ncols), yf("y", A.nrows);
      Kokkos::deep_copy(xd, 1.0);
      Kokkos::deep_copy(xf, 1.0f);
      mixed.multiply(1.0, xd, 0.0, yd);
      single.multiply(1.0f, xf, 0.0f, yf);
      Kokkos::fence();
      auto hd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), yd);
      auto hf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), yf);
      const std::vector<double> got_mixed(hd.data(), hd.data() + hd.extent(0));
      std::vector<double> got_float(static_cast<std::size_t>(A.nrows));
      for (std::int32_t i = 0; i < A.nrows; ++i) got_float[i] = hf(i);
      EXPECT_TRUE(matches_reference<double>(A, got_mixed, ref)) << mixed.describe();
      EXPECT_FALSE(matches_reference<double>(A, got_float, ref)) << "the float plan met double's tolerance: "
                                                                 << single.describe();
      EXPECT_TRUE(matches_reference<float>(A, got_float, ref)) << single.describe();
      EXPECT_NEAR(got_mixed[7], 1.00002, 1e-12);
    }
}

// A mixed plan's bytes are a float matrix's, and its SIMD widths double's: SELL's C and the
// vector length are those a double plan of the same matrix takes (the thread count may differ:
// it follows the bytes).
TYPED_TEST(MixedTest, BytesAndChoices) {
  using Exec = typename TestFixture::Exec;
  using O = typename TestFixture::Offset;
  const auto A = pspmv::generate_random<float, O>(5000, 4000, 9.0, 11);
  const auto A64 = pspmv::convert<double, O>(A);
  pspmv::AnalyzeOptions csr;
  csr.format = pspmv::Format::csr;
  const auto p = pspmv::analyze_mixed(Exec(), A, csr);
  EXPECT_EQ(p.csr_bytes(), A.bytes());
  EXPECT_EQ(p.csr_bytes(), (A.nrows + 1) * sizeof(O) + A.nnz() * (sizeof(std::int32_t) + sizeof(float)));
  EXPECT_EQ(p.matrix_bytes(), A.bytes());
  EXPECT_DOUBLE_EQ(p.compression_ratio(), 1.0);
  for (auto m : pspmv::all_mappings) {
    pspmv::AnalyzeOptions sell;
    sell.format = pspmv::Format::sell;
    sell.mapping = m;
    const auto ps = pspmv::analyze_mixed(Exec(), A, sell);
    const auto pd = pspmv::analyze<Exec>(A64, sell);
    EXPECT_EQ(ps.launch().slice_height, pd.launch().slice_height);
    EXPECT_EQ(ps.launch().slice_height, pspmv::ExecTraits<Exec>::template sell_slice_height<double>());
    EXPECT_EQ(ps.launch().vector_length, pd.launch().vector_length);
    EXPECT_EQ(ps.sell().values.extent(0), pd.sell().values.extent(0));
    // Values take 4 bytes: the double plan's stored matrix exceeds the mixed one's by that.
    EXPECT_EQ(pd.matrix_bytes() - ps.matrix_bytes(), 4 * pd.sell().values.extent(0) + 4 * pd.sell().long_values.extent(0));
    EXPECT_TRUE(TestFixture::exact(A, ps)) << ps.describe();
  }
}

// The transpose, two multiplies bit for bit, tune and `like`.
TYPED_TEST(MixedTest, TransposeRepeatTuneLike) {
  using Exec = typename TestFixture::Exec;
  using O = typename TestFixture::Offset;
  const auto A = TestFixture::small_terms();
  pspmv::AnalyzeOptions t;
  t.operation = pspmv::Operation::transpose;
  const auto pt = pspmv::analyze_mixed(Exec(), A, t);
  const auto At = pspmv::transpose(A);
  EXPECT_TRUE(TestFixture::exact(At, pt)) << pt.describe();

  pspmv::AnalyzeOptions sell;
  sell.format = pspmv::Format::sell;
  sell.sell_long_row = 64;
  sell.sell_long_split = true;
  const auto ps = pspmv::analyze_mixed(Exec(), A, sell);
  const auto first = TestFixture::product(ps), second = TestFixture::product(ps);
  ASSERT_EQ(first.size(), second.size());
  EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(double)), 0) << ps.describe();
  EXPECT_TRUE(matches_reference<double>(A, first, pspmv::reference::spmv(A, 1.0, TestFixture::x_of(A.ncols))));

  pspmv::AnalyzeOptions tuned;
  tuned.selection = pspmv::Selection::tune;
  const auto pu = pspmv::analyze_mixed(Exec(), A, tuned);
  static_assert(std::is_same<std::decay_t<decltype(pu)>, pspmv::MixedPlan<Exec, O>>::value, "tune keeps mixed precision");
  EXPECT_TRUE(TestFixture::exact(A, pu)) << pu.describe();

  pspmv::AnalyzeOptions team = sell;
  team.mapping = pspmv::Mapping::team_per_row;
  const auto pl = pspmv::analyze(Exec(), A, team, ps);  // a mixed `like`: a mixed plan, storage shared
  static_assert(std::is_same<std::decay_t<decltype(pl)>, pspmv::MixedPlan<Exec, O>>::value, "like keeps mixed precision");
  EXPECT_TRUE(pl.analysis().shares_storage);
  EXPECT_TRUE(TestFixture::exact(A, pl)) << pl.describe();
}

// A float CSR already in the space's memory: the mixed plan analyze_mixed makes of its host copy.
TYPED_TEST(MixedTest, MatrixInTheSpacesMemory) {
  using Exec = typename TestFixture::Exec;
  using PlanT = typename TestFixture::PlanT;
  const auto A = TestFixture::small_terms();
  const auto dA = pspmv::detail::upload(Exec(), A);
  for (auto f : {pspmv::Format::csr, pspmv::Format::sell}) {
    pspmv::AnalyzeOptions o;
    o.format = f;
    // analyze_mixed(space, dA) where the space's memory is not the host's; the constructor it calls
    // on a host space (where dA is a host CSR and analyze_mixed analyzes it as one).
    const PlanT resident = [&] {
      if constexpr (std::is_same<typename Exec::memory_space, Kokkos::HostSpace>::value)
        return PlanT(pspmv::ResidentInput{}, Exec(), dA, pspmv::detail::model_options(o));
      else
        return pspmv::analyze_mixed(Exec(), dA, o);
    }();
    const auto hosted = pspmv::analyze_mixed(Exec(), A, o);
    EXPECT_EQ(resident.describe(), hosted.describe());
    const auto a = TestFixture::product(resident), b = TestFixture::product(hosted);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0) << resident.describe();
  }
}

}  // namespace

#endif
