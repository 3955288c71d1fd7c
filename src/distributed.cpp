// The non-template MPI code of pspmv::mpi: collective error agreement, partitions, the halo
// pattern exchange and the device-memory capability of the MPI library.
#include "pspmv/distributed/comm.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI: MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support()
#endif

#include <algorithm>
#include <climits>
#include <exception>

namespace pspmv {

namespace {
enum class Kind : int { none = 0, dimension, invalid_matrix, invalid_argument, unsupported, other };

// DimensionError's message is "<what>: expected E, got G" (errors.cpp); the part before it.
std::string checked_part(const std::string& message) {
  const auto at = message.rfind(": expected ");
  return at == std::string::npos ? message : message.substr(0, at);
}
}  // namespace

void collectively(MPI_Comm comm, const std::function<void()>& local) {
  Kind kind = Kind::none;
  std::string message;
  long long numbers[2] = {0, 0};
  try {
    local();
  } catch (const DimensionError& e) {
    kind = Kind::dimension;
    message = checked_part(e.what());
    numbers[0] = e.expected();
    numbers[1] = e.got();
  } catch (const InvalidMatrix& e) {
    kind = Kind::invalid_matrix;
    message = e.what();
  } catch (const InvalidArgument& e) {
    kind = Kind::invalid_argument;
    message = e.what();
  } catch (const Unsupported& e) {
    kind = Kind::unsupported;
    message = e.what();
  } catch (const Error& e) {
    kind = Kind::other;
    message = e.what();
  } catch (const std::exception& e) {
    // Not pspmv's own (an allocation, Kokkos, the standard library): still agreed, so that no
    // rank is left waiting in the next collective.
    kind = Kind::other;
    message = e.what();
  } catch (...) {
    kind = Kind::other;
    message = "an exception of unknown type";
  }
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int mine = kind == Kind::none ? INT_MAX : rank, first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) return;
  // The lowest failing rank tells the others what to throw.
  int header[2] = {static_cast<int>(kind), static_cast<int>(message.size())};
  MPI_Bcast(header, 2, MPI_INT, first, comm);
  message.resize(static_cast<std::size_t>(header[1]));
  MPI_Bcast(message.data(), header[1], MPI_CHAR, first, comm);
  MPI_Bcast(numbers, 2, MPI_LONG_LONG, first, comm);
  const std::string text = "rank " + std::to_string(first) + ": " + message;
  switch (static_cast<Kind>(header[0])) {
    case Kind::dimension: throw DimensionError(text, numbers[0], numbers[1]);
    case Kind::invalid_matrix: throw InvalidMatrix(text);
    case Kind::invalid_argument: throw InvalidArgument(text);
    case Kind::unsupported: throw Unsupported(text);
    default: throw Error(text);
  }
}

bool mpi_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

void check_partition(const std::vector<std::int64_t>& offsets, int parts, std::int64_t n, const std::string& what) {
  if (parts < 1) throw InvalidArgument(what + ": at least one rank is needed, got " + std::to_string(parts));
  if (static_cast<std::int64_t>(offsets.size()) != static_cast<std::int64_t>(parts) + 1)
    throw DimensionError(what + ": offsets (ranks + 1)", static_cast<std::int64_t>(parts) + 1,
                         static_cast<std::int64_t>(offsets.size()));
  if (offsets.front() != 0)
    throw InvalidArgument(what + ": offsets[0] is " + std::to_string(offsets.front()) + ", must be 0");
  for (int p = 0; p < parts; ++p)
    if (offsets[p + 1] < offsets[p])
      throw InvalidArgument(what + ": offsets decrease at rank " + std::to_string(p) + " (" +
                            std::to_string(offsets[p]) + " > " + std::to_string(offsets[p + 1]) + ")");
  if (offsets.back() != n)
    throw DimensionError(what + ": last offset (= the global size)", n, offsets.back());
}

std::vector<std::int64_t> partition_by_nnz(const std::int64_t* row_ptr, std::int64_t nrows, int parts) {
  if (parts < 1) throw InvalidArgument("partition_by_nnz: parts must be at least 1, got " + std::to_string(parts));
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(parts) + 1, nrows);
  offsets[0] = 0;
  const std::int64_t nnz = row_ptr[nrows];
  for (int p = 1; p < parts; ++p) {
    if (nnz == 0) {  // no entries to balance: equal rows
      offsets[p] = nrows * p / parts;
      continue;
    }
    const std::int64_t target = static_cast<std::int64_t>((static_cast<long double>(nnz) * p) / parts);
    // First row boundary whose prefix reaches the target, and no earlier than the previous part.
    const std::int64_t at = std::lower_bound(row_ptr, row_ptr + nrows + 1, target) - row_ptr;
    offsets[p] = std::max(offsets[p - 1], std::min(at, nrows));
  }
  return offsets;
}

std::vector<std::int64_t> partition_even(std::int64_t n, int parts) {
  if (parts < 1) throw InvalidArgument("partition_even: parts must be at least 1, got " + std::to_string(parts));
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(parts) + 1);
  for (int p = 0; p <= parts; ++p) offsets[p] = n / parts * p + std::min<std::int64_t>(p, n % parts);
  return offsets;
}

HaloPattern exchange_halo_pattern(MPI_Comm comm, const std::vector<std::int64_t>& col_offsets,
                                  const std::vector<std::int64_t>& halo_cols) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<int> recv_count(size, 0), send_count(size, 0);
  {
    int owner = 0;
    for (const std::int64_t c : halo_cols) {  // sorted: owners ascend
      while (c >= col_offsets[owner + 1]) ++owner;
      ++recv_count[owner];
    }
  }
  MPI_Alltoall(recv_count.data(), 1, MPI_INT, send_count.data(), 1, MPI_INT, comm);
  std::vector<int> rdispl(size, 0), sdispl(size, 0);
  for (int p = 1; p < size; ++p) {
    rdispl[p] = rdispl[p - 1] + recv_count[p - 1];
    sdispl[p] = sdispl[p - 1] + send_count[p - 1];
  }
  const int total_send = sdispl[size - 1] + send_count[size - 1];
  // What each rank asks of this one: the global columns it needs, in its halo order.
  std::vector<std::int64_t> asked(static_cast<std::size_t>(total_send));
  MPI_Alltoallv(halo_cols.data(), recv_count.data(), rdispl.data(), MPI_INT64_T, asked.data(), send_count.data(),
                sdispl.data(), MPI_INT64_T, comm);
  HaloPattern h;
  for (int p = 0; p < size; ++p) {
    if (recv_count[p] > 0) {
      h.recv_ranks.push_back(p);
      h.recv_counts.push_back(recv_count[p]);
      h.recv_displs.push_back(rdispl[p]);
    }
    if (send_count[p] > 0) {
      h.send_ranks.push_back(p);
      h.send_counts.push_back(send_count[p]);
      h.send_displs.push_back(sdispl[p]);
    }
  }
  h.send_local.resize(asked.size());
  for (std::size_t k = 0; k < asked.size(); ++k)
    h.send_local[k] = static_cast<std::int32_t>(asked[k] - col_offsets[rank]);
  return h;
}

}  // namespace pspmv
