#pragma once
// Peer: Kokkos Kernels 3.4's native KokkosSparse::spmv (its cuSPARSE/MKL TPLs are off:
// this measures Kokkos Kernels' own kernels) on the plan's own device arrays.
#include <functional>
#include <string>

#include "pspmv/pspmv.hpp"

namespace pspmv_peers {

/// Whether the Kokkos Kernels peer was compiled in.
bool kokkos_kernels_available();

/// Returns a callable computing y = A x with KokkosSparse::spmv on A's views, or an empty
/// function when Kokkos Kernels is absent. `setup_seconds` receives the wrapper's setup time.
template <class Exec, class Value, class Offset>
std::function<void()> kokkos_kernels_spmv(
    const pspmv::CsrMatrix<Value, Offset, std::int32_t, typename Exec::memory_space>& A,
    const Kokkos::View<const Value*, typename Exec::memory_space>& x,
    const Kokkos::View<Value*, typename Exec::memory_space>& y, double& setup_seconds);

}  // namespace pspmv_peers
