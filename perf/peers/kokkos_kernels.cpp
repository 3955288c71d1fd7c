#include "peers/kokkos_kernels.hpp"

#include <chrono>
#include <memory>
#include <string>

#ifdef PSPMV_HAVE_KOKKOSKERNELS
#include <KokkosKernels_config.h>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
// Kokkos Kernels 4.3 and later: a KokkosSparse::SPMVHandle plans the multiply once (its
// algorithm choice and any analysis, done by the first call) and is reused by every call.
// Kokkos Kernels 3.x has no handle (and no KOKKOSKERNELS_VERSION): each call decides anew.
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40300
#define PSPMV_KK_SPMV_HANDLE 1
#include <KokkosSparse_spmv_handle.hpp>
#endif
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
  const auto t0 = std::chrono::steady_clock::now();
  using Device = Kokkos::Device<Exec, typename Exec::memory_space>;
  using Matrix = KokkosSparse::CrsMatrix<Value, std::int32_t, Device, void, Offset>;
  Matrix M("pspmv::kokkos_kernels_peer", A.nrows, A.ncols, A.nnz(), A.values, A.row_ptr, A.col_idx);
#ifdef PSPMV_KK_SPMV_HANDLE
  using X = Kokkos::View<const Value*, typename Exec::memory_space>;
  using Y = Kokkos::View<Value*, typename Exec::memory_space>;
  using Handle = KokkosSparse::SPMVHandle<Device, Matrix, X, Y>;
  // SPMV_NATIVE: Kokkos Kernels' own kernels even where it was built with vendor TPLs (the tool
  // measures cuSPARSE and MKL as peers of their own). The handle cannot be copied; the run
  // closure shares it. Planned here, by a first call (its result is overwritten by every run),
  // so setup_seconds holds the planning.
  auto handle = std::make_shared<Handle>(KokkosSparse::SPMV_NATIVE);
  KokkosSparse::spmv(Exec(), handle.get(), "N", Value(1), M, x, Value(0), y);
  Exec().fence();
  p.setup_seconds = seconds_since(t0);
  p.variant = "KokkosSparse::spmv+SPMVHandle";
  p.note = std::string("Kokkos Kernels ") + std::to_string(KOKKOSKERNELS_VERSION_MAJOR) + "." +
           std::to_string(KOKKOSKERNELS_VERSION_MINOR) + "." + std::to_string(KOKKOSKERNELS_VERSION_PATCH) +
           ", planned handle (" + KokkosSparse::get_spmv_algorithm_name(handle->get_algorithm()) +
           "), native kernels";
  p.run = [M, x, y, handle] { KokkosSparse::spmv(Exec(), handle.get(), "N", Value(1), M, x, Value(0), y); };
#else
  p.setup_seconds = seconds_since(t0);
  p.note = "Kokkos Kernels 3.x (no planning handle), native kernels, TPLs off";
  p.run = [M, x, y] { KokkosSparse::spmv("N", Value(1), M, x, Value(0), y); };
#endif
  return p;
#else
  (void)A, (void)x, (void)y;
  return cannot_run("kokkos-kernels", "KokkosSparse::spmv", "absent: Kokkos Kernels was not built");
#endif
}

template <class Exec, class Value, class Offset>
Peer kokkos_kernels_mv_peer(const pspmv::CsrMatrix<Value, Offset, std::int32_t, typename Exec::memory_space>& A,
                            const Kokkos::View<Value**, Kokkos::LayoutRight, typename Exec::memory_space>& X,
                            const Kokkos::View<Value**, Kokkos::LayoutRight, typename Exec::memory_space>& Y) {
#ifdef PSPMV_HAVE_KOKKOSKERNELS
  Peer p;
  p.impl = "kokkos-kernels";
  p.variant = "KokkosSparse::spmv (rank-2)";
  const auto t0 = std::chrono::steady_clock::now();
  using Device = Kokkos::Device<Exec, typename Exec::memory_space>;
  using Matrix = KokkosSparse::CrsMatrix<Value, std::int32_t, Device, void, Offset>;
  Matrix M("pspmv::kokkos_kernels_mv_peer", A.nrows, A.ncols, A.nnz(), A.values, A.row_ptr, A.col_idx);
  using XV = Kokkos::View<const Value**, Kokkos::LayoutRight, typename Exec::memory_space>;
  const XV Xc = X;
#ifdef PSPMV_KK_SPMV_HANDLE
  using YV = Kokkos::View<Value**, Kokkos::LayoutRight, typename Exec::memory_space>;
  using Handle = KokkosSparse::SPMVHandle<Device, Matrix, XV, YV>;
  auto handle = std::make_shared<Handle>(KokkosSparse::SPMV_NATIVE);
  KokkosSparse::spmv(Exec(), handle.get(), "N", Value(1), M, Xc, Value(0), Y);
  Exec().fence();
  p.setup_seconds = seconds_since(t0);
  p.variant = "KokkosSparse::spmv+SPMVHandle (rank-2)";
  p.note = "native kernels, planned handle, LayoutRight X and Y of " + std::to_string(X.extent(1)) + " columns";
  p.run = [M, Xc, Y, handle] { KokkosSparse::spmv(Exec(), handle.get(), "N", Value(1), M, Xc, Value(0), Y); };
#else
  p.setup_seconds = seconds_since(t0);
  p.note = "Kokkos Kernels 3.x, native kernels, LayoutRight X and Y of " + std::to_string(X.extent(1)) + " columns";
  p.run = [M, Xc, Y] { KokkosSparse::spmv("N", Value(1), M, Xc, Value(0), Y); };
#endif
  return p;
#else
  (void)A, (void)X, (void)Y;
  return cannot_run("kokkos-kernels", "KokkosSparse::spmv (rank-2)", "absent: Kokkos Kernels was not built");
#endif
}

#define PSPMV_KK_INST(EXEC, V, O)                                                                      \
  template Peer kokkos_kernels_peer<EXEC, V, O>(const pspmv::CsrMatrix<V, O, std::int32_t, EXEC::memory_space>&, \
                                                const Kokkos::View<const V*, EXEC::memory_space>&,       \
                                                const Kokkos::View<V*, EXEC::memory_space>&);            \
  template Peer kokkos_kernels_mv_peer<EXEC, V, O>(                                                    \
      const pspmv::CsrMatrix<V, O, std::int32_t, EXEC::memory_space>&,                                 \
      const Kokkos::View<V**, Kokkos::LayoutRight, EXEC::memory_space>&,                               \
      const Kokkos::View<V**, Kokkos::LayoutRight, EXEC::memory_space>&);
#define PSPMV_KK_HOST(V, O) PSPMV_KK_INST(Kokkos::DefaultHostExecutionSpace, V, O)
PSPMV_PEER_TYPES(PSPMV_KK_HOST)
#if defined(KOKKOS_ENABLE_CUDA)
#define PSPMV_KK_CUDA(V, O) PSPMV_KK_INST(Kokkos::Cuda, V, O)
PSPMV_PEER_TYPES(PSPMV_KK_CUDA)
#endif

}  // namespace pspmv_peers
