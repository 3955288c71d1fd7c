#pragma once
// Peer: the same CSR thread-per-row loop as plain OpenMP pragmas, so that each Kokkos
// schedule can be checked against an OpenMP loop of the same kind (perf/ only; never
// in the library). Kokkos 3.4's Schedule<Static> gives each thread ONE contiguous
// range of chunks (HostThreadTeamData::get_work_partition), which matches
// schedule(static) without a chunk, not schedule(static, chunk) (round robin);
// Schedule<Dynamic> is work stealing from those ranges, not a shared counter.
#include <cstdint>
#include <string>

namespace pspmv_peers {

enum class OmpSchedule {
  static_blocks,  ///< schedule(static): one contiguous block of rows per thread
  static_chunks,  ///< schedule(static, chunk): chunks dealt round robin
  dynamic_chunks  ///< schedule(dynamic, chunk): chunks from a shared counter
};

std::string to_string(OmpSchedule s);

/// y = A x (beta = 0) over host arrays. Shapes: row_ptr nrows + 1, col_idx/values nnz.
template <class Value, class Offset>
void openmp_csr_spmv(std::int32_t nrows, const Offset* row_ptr, const std::int32_t* col_idx,
                     const Value* values, const Value* x, Value* y, OmpSchedule schedule,
                     std::int64_t chunk);

/// Whether this binary was built with OpenMP (the peer is absent otherwise).
bool openmp_available();

/// Threads an OpenMP parallel region gets here.
int openmp_threads();

/// Minimum seconds to read `bytes` (rounded down to doubles) once, streaming, with all
/// OpenMP threads: the host's bandwidth floor (min over `reps` after one warm-up, of a
/// static and of a dynamic schedule, each thread with eight partial sums).
double openmp_stream_read_seconds(std::size_t bytes, int reps);

}  // namespace pspmv_peers
