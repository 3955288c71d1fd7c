#pragma once
// The bandwidth floor, measured in the same process as the runs it judges (ARCHITECTURE.md
// rule 11): the least time in which Exec can move the minimum bytes of one y = A x.
#include <Kokkos_Core.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "harness/samples.hpp"
#include "pspmv/pspmv.hpp"

namespace pspmv_cli {

struct Floor {
  double seconds = 0;  ///< the floor time of the bytes
  std::string method;  ///< how it was measured, for the report
};

/// Minimum bytes one y = A x moves: row_ptr, col_idx and values once, x once, y written once;
/// x and y of Vector (A's value type unless given: double under a float matrix in mixed precision).
template <class Vector = void, class Value, class Offset>
double min_bytes(const pspmv::HostCsr<Value, Offset>& A) {
  using V = std::conditional_t<std::is_void<Vector>::value, Value, Vector>;
  return static_cast<double>(A.nrows + 1) * sizeof(Offset) +
         static_cast<double>(A.nnz()) * (sizeof(std::int32_t) + sizeof(Value)) +
         static_cast<double>(A.ncols) * sizeof(V) + static_cast<double>(A.nrows) * sizeof(V);
}

/// Minimum seconds to read `bytes` (rounded down to doubles) once, streaming, with all OpenMP
/// threads (min over `reps` samples after one warm-up, of a static and of a dynamic schedule,
/// each thread with 32 partial sums; each sample a batch of reads lasting at least
/// min_sample_s, divided by its reads, as the runs' samples: harness/samples.hpp), and the
/// threads that ran it.
Floor host_stream_read(std::size_t bytes, int reps, double min_sample_s);

/// The floor of `bytes` on Exec: a streaming parallel read on the host (Kokkos' deep_copy is no
/// floor there: SpMV beat it on the H200 host), a device-to-device copy of bytes/2 each way on a
/// GPU (counting read + write). Minimum over `reps` samples after a warm-up, each a batch of
/// copies lasting at least min_sample_s (harness/samples.hpp), as the runs it bounds are timed.
template <class Exec>
Floor bandwidth_floor(double bytes, int reps, double min_sample_s) {
  if constexpr (pspmv::ExecTraits<Exec>::is_gpu) {
    const std::size_t n = std::max<std::size_t>(1, static_cast<std::size_t>(bytes / 2) / sizeof(double));
    Kokkos::View<double*, typename Exec::memory_space> a("pspmv::floor_a", n), b("pspmv::floor_b", n);
    Kokkos::deep_copy(a, 1.0);
    Floor f{1e300, "device copy (read+write counted), samples of copies lasting at least " +
                       fmt::format("{}", min_sample_s * 1e3) + " ms"};
    const auto copy = [&] { Kokkos::deep_copy(Exec(), b, a); };
    copy();
    Exec().fence();
    const int calls = calls_per_sample<Exec>(copy, min_sample_s);
    for (int r = 0; r < reps; ++r) f.seconds = std::min(f.seconds, batch_seconds<Exec>(copy, calls) / calls);
    return f;
  } else {
    return host_stream_read(static_cast<std::size_t>(bytes), reps, min_sample_s);
  }
}

}  // namespace pspmv_cli
