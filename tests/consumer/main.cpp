// Embeds pspmv as an application would: y = A x on the lesson's even matrix, where every
// row of A sums to a known value, checked exactly; exit code 0 only if every row is right.
#include <pspmv/pspmv.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Exec = Kokkos::DefaultExecutionSpace;
  auto A = pspmv::generate_even<double>(4096);
  auto plan = pspmv::analyze<Exec>(A);
  using Plan = decltype(plan);
  typename Plan::vector_type x("x", A.ncols), y("y", A.nrows);
  Kokkos::deep_copy(x, 1.0);
  plan.multiply(1.0, x, 0.0, y);
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  int bad = 0;
  for (int i = 0; i < A.nrows; ++i) {
    double want = 0;
    for (auto k = A.row_ptr(i); k < A.row_ptr(i + 1); ++k) want += A.values(k);
    if (hy(i) != want) ++bad;
  }
  std::printf("consumer: %s, %d of %d rows wrong\n", plan.describe().c_str(), bad, A.nrows);
  return bad == 0 ? 0 : 1;
}
