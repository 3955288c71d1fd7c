// The heaviest thread's work over the threads' mean under three splits of a CSR matrix's rows,
// in the cost of rows summed in masked SIMD groups of 8 entries (detail::masked_dot): a row of len
// entries costs ceil(len / 8) + 1 (its groups, and its lanes' sum and store). The splits: static
// rows (thread t the contiguous rows [t n / T, (t + 1) n / T), a host static_chunks launch), blocks
// of nearly equal entries (nnz_partition) and blocks of nearly equal groups (group_partition, what
// a plan of masked rows takes under nnz_balanced; docs/selection.md, "Blocks of masked groups").
// A model, not a timing: the table of that section. Built on request (target
// pspmv_probe_block_costs, in the probe list of probes_compile):
//   build/openmp/perf/pspmv_probe_block_costs [MATRICES] [THREADS]
// MATRICES: the shared matrices' folder (default $PSPMV_MATRICES, else ../shared/matrices);
// THREADS: the split's parts (default 16). The eleven shared matrices an automatic host plan of
// 16 threads runs under nnz_balanced.
#include <pspmv/analyze.hpp>
#include <pspmv/io/matrix_market.hpp>

#include "library_rows.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Csr = pspmv::HostCsr<double, std::int64_t>;

/// The heaviest part over the mean of the parts bounded by `bounds` (T + 1 row indices).
double heaviest(const std::vector<std::int64_t>& cost, const std::vector<std::int32_t>& bounds) {
  const auto parts = static_cast<std::int64_t>(bounds.size()) - 1;
  std::int64_t most = 0;
  for (std::int64_t t = 0; t < parts; ++t) most = std::max(most, cost[bounds[t + 1]] - cost[bounds[t]]);
  return static_cast<double>(most) * static_cast<double>(parts) / static_cast<double>(cost.back());
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const std::string dir = probes::matrices_dir(argc, argv);
  const int T = argc > 2 ? std::max(1, std::atoi(argv[2])) : 16;
  std::printf("%d parts; a row costs ceil(len / 8) + 1; the heaviest part over the mean\n", T);
  std::printf("%-16s %8s %8s %12s %18s %17s\n", "matrix", "rows", "nnz", "static rows", "blocks of entries",
              "blocks of groups");
  for (const char* m : {"hep-th", "zenios", "bcspwr10", "watt_2", "bayer10", "cryg2500", "bcsstk21", "jagmesh7",
                        "adder_dcop_05", "rajat01", "bcsstk13"}) {
    const Csr A = pspmv::read_matrix_market<double, std::int64_t>(dir + "/" + m + ".mtx");
    std::vector<std::int64_t> cost(static_cast<std::size_t>(A.nrows) + 1, 0);
    for (std::int32_t i = 0; i < A.nrows; ++i) cost[i + 1] = cost[i] + (A.row_ptr(i + 1) - A.row_ptr(i) + 7) / 8 + 1;
    std::vector<std::int32_t> rows(static_cast<std::size_t>(T) + 1), entries(rows), groups(rows);
    for (int t = 0; t <= T; ++t) rows[t] = static_cast<std::int32_t>(std::int64_t{A.nrows} * t / T);
    pspmv::nnz_partition(A.row_ptr.data(), A.nrows, T, entries.data());
    pspmv::group_partition(A.row_ptr.data(), A.nrows, T, groups.data(), 8);
    std::printf("%-16s %8d %8lld %12.2f %18.2f %17.2f\n", m, A.nrows, static_cast<long long>(A.nnz()),
                heaviest(cost, rows), heaviest(cost, entries), heaviest(cost, groups));
  }
  return 0;
}
