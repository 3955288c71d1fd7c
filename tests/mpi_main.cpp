// GoogleTest entry point of the MPI tests (pspmv_mpi_tests, run under mpirun): MPI and Kokkos
// live for the whole run; only rank 0 prints; the exit status is the worst over all ranks.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {  // a failure on another rank still shows: gtest prints failures as they happen
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int failed = 0;
  {
    setenv("OMP_PROC_BIND", "false", 0);
    Kokkos::ScopeGuard guard(argc, argv);
    failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  }
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (failed) std::fprintf(stderr, "pspmv_mpi_tests: rank %d had failures\n", rank);
  MPI_Finalize();
  return any;
}
