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
std::function<void()> kokkos_kernels_spmv(
    const pspmv::CsrMatrix<Value, Offset, std::int32_t, typename Exec::memory_space>& A,
    const Kokkos::View<const Value*, typename Exec::memory_space>& x,
    const Kokkos::View<Value*, typename Exec::memory_space>& y, double& setup_seconds) {
#ifdef PSPMV_HAVE_KOKKOSKERNELS
  const auto t0 = std::chrono::steady_clock::now();
  using Device = Kokkos::Device<Exec, typename Exec::memory_space>;
  using Matrix = KokkosSparse::CrsMatrix<Value, std::int32_t, Device, void, Offset>;
  Matrix M("pspmv::kokkos_kernels_peer", A.nrows, A.ncols, A.nnz(), A.values, A.row_ptr, A.col_idx);
  setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return [M, x, y]() { KokkosSparse::spmv("N", Value(1), M, x, Value(0), y); };
#else
  (void)A, (void)x, (void)y;
  setup_seconds = 0;
  return {};
#endif
}

#define PSPMV_KK_INST(EXEC, V, O)                                                                 \
  template std::function<void()> kokkos_kernels_spmv<EXEC, V, O>(                                 \
      const pspmv::CsrMatrix<V, O, std::int32_t, EXEC::memory_space>&,                            \
      const Kokkos::View<const V*, EXEC::memory_space>&, const Kokkos::View<V*, EXEC::memory_space>&, \
      double&);
#define PSPMV_KK_INST_SPACE(EXEC)             \
  PSPMV_KK_INST(EXEC, float, std::int32_t)    \
  PSPMV_KK_INST(EXEC, float, std::int64_t)    \
  PSPMV_KK_INST(EXEC, double, std::int32_t)   \
  PSPMV_KK_INST(EXEC, double, std::int64_t)

PSPMV_KK_INST_SPACE(Kokkos::DefaultHostExecutionSpace)
#if defined(KOKKOS_ENABLE_CUDA)
PSPMV_KK_INST_SPACE(Kokkos::Cuda)
#endif

}  // namespace pspmv_peers
