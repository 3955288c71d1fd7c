// Embeds pspmv's distributed plan as an application would: the lesson's even matrix spread
// over the ranks (one rank when run alone), y = A x with x = 1, every row checked against the
// sum of its values (exact); exit code 0 only if every row on every rank is right.
#include <pspmv/distributed.hpp>
#include <pspmv/pspmv.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int bad = 0, rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  {
    Kokkos::ScopeGuard guard(argc, argv);
    using Exec = Kokkos::DefaultExecutionSpace;
    auto A = pspmv::generate_even<double>(4096);
    const auto rows = pspmv::local_rows(A, pspmv::partition_by_nnz(A.row_ptr.data(), A.nrows, size), rank);
    pspmv::DistributedPlan<Exec, double> plan(Exec(), MPI_COMM_WORLD, rows);
    decltype(plan)::vector_type x("x", plan.local_cols()), y("y", plan.local_rows());
    Kokkos::deep_copy(x, 1.0);
    plan.multiply(Exec(), 1.0, x, 0.0, y);
    auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    for (int i = 0; i < plan.local_rows(); ++i) {
      double want = 0;
      for (auto k = rows.rows.row_ptr(i); k < rows.rows.row_ptr(i + 1); ++k) want += rows.rows.values(k);
      if (hy(i) != want) ++bad;
    }
    std::printf("consumer (rank %d of %d): %d of %d rows wrong\n", rank, size, bad, plan.local_rows());
  }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any == 0 ? 0 : 1;
}
