#pragma once
// Peer: the CSR thread-per-row loop as plain OpenMP pragmas, so that each Kokkos schedule can
// be checked against an OpenMP loop of the same kind (perf/ only; never in the library).
// Kokkos 3.4's Schedule<Static> gives each thread ONE contiguous range of chunks
// (HostThreadTeamData::get_work_partition), which matches schedule(static) without a chunk,
// not schedule(static, chunk) (round robin); Schedule<Dynamic> is work stealing from those
// ranges, not a shared counter.
#include <vector>

#include "peers/peer.hpp"

namespace pspmv_peers {

/// Three variants over host arrays: omp_static (schedule(static): one block of rows per
/// thread), omp_static_chunk (chunks dealt round robin) and omp_dynamic_chunk (chunks from a
/// shared counter), chunks of ceil(nrows / 2000) rows. One "absent:" entry without OpenMP.
template <class Value, class Offset>
std::vector<Peer> openmp_plain_peers(const HostCsrView<Value, Offset>& A, const Value* x, Value* y);

}  // namespace pspmv_peers
