#include "peers/kokkos_kernels.hpp"

#include <chrono>

#ifdef PSPMV_HAVE_KOKKOSKERNELS
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#endif

namespace pspmv_peers {

bool kokkos_kernels_available() {
#ifdef PSPMV_HAVE_KOKKOSKERNELS
  return true;
#else
  return false;
#endif
}

template <class Exec, class Value, class Offset>
Peer kokkos_kernels_peer(const pspmv::CsrMatrix<Value, Offset, std::int32_t, typename Exec::memory_space>& A,
                         const Kokkos::View<const Value*, typename Exec::memory_space>& x,
                         const Kokkos::View<Value*, typename Exec::memory_space>& y) {
#ifdef PSPMV_HAVE_KOKKOSKERNELS
  Peer p;
  p.impl = "kokkos-kernels";
  p.variant = "KokkosSparse::spmv";
  p.note = "native kernels, TPLs off";
  const auto t0 = std::chrono::steady_clock::now();
  using Device = Kokkos::Device<Exec, typename Exec::memory_space>;
  using Matrix = KokkosSparse::CrsMatrix<Value, std::int32_t, Device, void, Offset>;
  Matrix M("pspmv::kokkos_kernels_peer", A.nrows, A.ncols, A.nnz(), A.values, A.row_ptr, A.col_idx);
  p.setup_seconds = seconds_since(t0);
  p.run = [M, x, y] { KokkosSparse::spmv("N", Value(1), M, x, Value(0), y); };
  return p;
#else
  (void)A, (void)x, (void)y;
  return cannot_run("kokkos-kernels", "KokkosSparse::spmv", "absent: Kokkos Kernels was not built");
#endif
}

#define PSPMV_KK_INST(EXEC, V, O)                                                                      \
  template Peer kokkos_kernels_peer<EXEC, V, O>(const pspmv::CsrMatrix<V, O, std::int32_t, EXEC::memory_space>&, \
                                                const Kokkos::View<const V*, EXEC::memory_space>&,       \
                                                const Kokkos::View<V*, EXEC::memory_space>&);
#define PSPMV_KK_HOST(V, O) PSPMV_KK_INST(Kokkos::DefaultHostExecutionSpace, V, O)
PSPMV_PEER_TYPES(PSPMV_KK_HOST)
#if defined(KOKKOS_ENABLE_CUDA)
#define PSPMV_KK_CUDA(V, O) PSPMV_KK_INST(Kokkos::Cuda, V, O)
PSPMV_PEER_TYPES(PSPMV_KK_CUDA)
#endif

}  // namespace pspmv_peers
