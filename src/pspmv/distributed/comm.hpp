#pragma once
/// @file comm.hpp
/// The MPI side of the distributed SpMV (library pspmv::mpi, src/distributed.cpp): errors that
/// every rank agrees on, the row partition, the halo pattern built with one collective exchange,
/// and whether the MPI library reads device memory.

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pspmv/errors.hpp"

namespace pspmv {

/// Runs `local` on every rank of `comm` (collective), catching the pspmv::Error it throws;
/// then, if any rank failed, every rank throws the same error: the one of the lowest failing
/// rank, of the same type (DimensionError, InvalidMatrix, InvalidArgument, Unsupported, else
/// Error), its message prefixed with "rank R: ". A failing rank thus never leaves the others
/// waiting in a later collective.
void collectively(MPI_Comm comm, const std::function<void()>& local);

/// Whether the MPI library can send from and receive into CUDA device memory, asked at run
/// time with MPIX_Query_cuda_support() where the library declares it (Open MPI's mpi-ext.h);
/// false where it cannot be asked.
bool mpi_cuda_aware();

/// Checks a partition: offsets.size() == parts + 1, offsets[0] == 0, non-decreasing, ending at n.
/// @throws InvalidArgument naming the first bad offset.
void check_partition(const std::vector<std::int64_t>& offsets, int parts, std::int64_t n, const std::string& what);

/// The rows split into `parts` contiguous ranges of about equal nonzeros (row_ptr of the global
/// matrix, nrows + 1 entries): part p starts at the first row whose row_ptr reaches p nnz / parts.
/// Rows never split; a part may be empty (more parts than rows, or one row holding most entries).
std::vector<std::int64_t> partition_by_nnz(const std::int64_t* row_ptr, std::int64_t nrows, int parts);

/// `n` indices split into `parts` contiguous ranges of sizes differing by at most one.
std::vector<std::int64_t> partition_even(std::int64_t n, int parts);

/// Which x entries a rank receives from and sends to each neighbour, from one collective
/// exchange (MPI_Alltoall of the counts, MPI_Alltoallv of the indices).
struct HaloPattern {
  std::vector<int> recv_ranks;            ///< ranks this rank receives from, ascending
  std::vector<int> recv_counts;           ///< entries from each
  std::vector<int> recv_displs;           ///< where each neighbour's entries start in the halo
  std::vector<int> send_ranks;            ///< ranks this rank sends to, ascending
  std::vector<int> send_counts;           ///< entries to each
  std::vector<int> send_displs;           ///< where each neighbour's entries start in the send buffer
  std::vector<std::int32_t> send_local;   ///< owned-column index (local) of each entry sent, packed
};

/// Builds the halo pattern (collective over comm). halo_cols: the global columns this rank needs
/// from others, sorted ascending and distinct (so grouped by owner); col_offsets: the column
/// partition (size ranks + 1). Every rank learns which of its owned entries each neighbour needs.
HaloPattern exchange_halo_pattern(MPI_Comm comm, const std::vector<std::int64_t>& col_offsets,
                                  const std::vector<std::int64_t>& halo_cols);

}  // namespace pspmv
