#pragma once
// Peer: Kokkos Kernels' native KokkosSparse::spmv (its own kernels, not its cuSPARSE/MKL TPLs)
// on the tool's device copy of the matrix; with Kokkos Kernels 4.3 or later through a
// KokkosSparse::SPMVHandle planned once and reused by every call.
#include "peers/peer.hpp"
#include "pspmv/pspmv.hpp"

namespace pspmv_peers {

/// Whether the Kokkos Kernels peer was compiled in.
bool kokkos_kernels_available();

/// y = A x with KokkosSparse::spmv on A's views (no copy); setup_seconds is the wrapper's
/// construction, and with a handle its planning (a first call). An "absent:" entry when
/// Kokkos Kernels was not compiled in.
template <class Exec, class Value, class Offset>
Peer kokkos_kernels_peer(const pspmv::CsrMatrix<Value, Offset, std::int32_t, typename Exec::memory_space>& A,
                         const Kokkos::View<const Value*, typename Exec::memory_space>& x,
                         const Kokkos::View<Value*, typename Exec::memory_space>& y);

/// Y = A X with KokkosSparse::spmv on rank-2 Views (its multivector product; X and Y of k
/// columns, LayoutRight), with a planning handle where Kokkos Kernels has one. An "absent:"
/// entry when Kokkos Kernels was not compiled in.
template <class Exec, class Value, class Offset>
Peer kokkos_kernels_mv_peer(const pspmv::CsrMatrix<Value, Offset, std::int32_t, typename Exec::memory_space>& A,
                            const Kokkos::View<Value**, Kokkos::LayoutRight, typename Exec::memory_space>& X,
                            const Kokkos::View<Value**, Kokkos::LayoutRight, typename Exec::memory_space>& Y);

}  // namespace pspmv_peers
