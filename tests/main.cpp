// GoogleTest entry point: Kokkos lives for the whole test run.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (::testing::GTEST_FLAG(list_tests)) return RUN_ALL_TESTS();  // listing runs no test: no Kokkos
  // Kokkos' advice for unit tests (threads may outnumber cores); an explicit setting wins.
  setenv("OMP_PROC_BIND", "false", 0);
  Kokkos::ScopeGuard guard(argc, argv);
  return RUN_ALL_TESTS();
}
