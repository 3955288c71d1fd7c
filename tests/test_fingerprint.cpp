// The fingerprint of a CSR matrix (values, column indices, dimensions) and the plan's use of
// it: a plan knows when the matrix it was built from has changed since analyze().
#include "test_util.hpp"

using namespace pspmv_test;

namespace {

template <class Cfg>
class FingerprintTest : public ConfigTest<Cfg> {};

TYPED_TEST_SUITE(FingerprintTest, Configs, ConfigNames);

}  // namespace
TEST(Fingerprint, ChangesWithAnyEntryIndexOrDimension) {
  auto A = pspmv::generate_random<double, std::int64_t>(300, 200, 7.0, 5);
  const std::uint64_t f0 = pspmv::fingerprint(A);
  EXPECT_EQ(pspmv::fingerprint(A), f0);
  auto B = pspmv::generate_random<double, std::int64_t>(300, 200, 7.0, 5);
  EXPECT_EQ(pspmv::fingerprint(B), f0) << "equal matrices, equal fingerprints";
  for (std::int64_t k : {std::int64_t{0}, A.nnz() / 2, A.nnz() - 1}) {
    const double v = A.values(k);
    A.values(k) = std::nextafter(v, 1e300);  // one ulp
    EXPECT_NE(pspmv::fingerprint(A), f0) << "value " << k;
    A.values(k) = v;
    const std::int32_t c = A.col_idx(k);
    A.col_idx(k) = c == 0 ? 1 : c - 1;
    EXPECT_NE(pspmv::fingerprint(A), f0) << "column " << k;
    A.col_idx(k) = c;
  }
  EXPECT_EQ(pspmv::fingerprint(A), f0);
  A.ncols += 1;
  EXPECT_NE(pspmv::fingerprint(A), f0) << "ncols";
}

TYPED_TEST(FingerprintTest, StalePlanIsDetected) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  auto A = pspmv::generate_random<V, O>(500, 400, 6.0, 21);
  for (auto f : pspmv::all_formats) {
    pspmv::AnalyzeOptions opt;
    opt.format = f;
    auto plan = pspmv::analyze<typename TestFixture::Exec>(A, opt);
    EXPECT_TRUE(plan.matches(A));
    EXPECT_NE(plan.fingerprint(), 0u);
    // A GPU plan takes it during the upload; the same value as the standalone pass.
    EXPECT_EQ(plan.fingerprint(), pspmv::fingerprint(A));
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
