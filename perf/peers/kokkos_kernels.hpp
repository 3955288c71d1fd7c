#pragma once
// Peer: Kokkos Kernels 3.4's native KokkosSparse::spmv (its cuSPARSE/MKL TPLs are off: this
// measures Kokkos Kernels' own kernels) on the tool's device copy of the matrix.
#include "peers/peer.hpp"
#include "pspmv/pspmv.hpp"

namespace pspmv_peers {

/// Whether the Kokkos Kernels peer was compiled in.
bool kokkos_kernels_available();

/// y = A x with KokkosSparse::spmv on A's views (no copy); setup_seconds is the wrapper's
/// construction. An "absent:" entry when Kokkos Kernels was not compiled in.
template <class Exec, class Value, class Offset>
Peer kokkos_kernels_peer(const pspmv::CsrMatrix<Value, Offset, std::int32_t, typename Exec::memory_space>& A,
                         const Kokkos::View<const Value*, typename Exec::memory_space>& x,
                         const Kokkos::View<Value*, typename Exec::memory_space>& y);

}  // namespace pspmv_peers
