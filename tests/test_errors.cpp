// Errors at the public boundary of multiply(): vectors of the wrong length (DimensionError
// with both sizes), x and y overlapping, and built_from() telling one matrix from another.
#include "test_util.hpp"

using namespace pspmv_test;

namespace {

template <class Cfg>
class ErrorsTest : public ConfigTest<Cfg> {};

TYPED_TEST_SUITE(ErrorsTest, Configs, ConfigNames);

}  // namespace

TYPED_TEST(ErrorsTest, DimensionAndAliasErrors) {
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
