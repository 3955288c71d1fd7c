#pragma once
// Peer: NVIDIA cuSPARSE SpMV (generic API) on the same device arrays, in the same process:
// CSR ALG1, CSR ALG2 (with cusparseSpMV_preprocess) and SELL ALG1 (sliced ELLPACK, slice 32,
// unsorted, 32-bit offsets: "cannot store" when the padded size does not fit). CUDA builds
// only; an "absent:" entry where cuSPARSE was not found (PSPMV_HAVE_CUSPARSE).
#include <vector>

#include "peers/peer.hpp"
#include "pspmv/pspmv.hpp"

namespace pspmv_peers {

#if defined(KOKKOS_ENABLE_CUDA)
/// cuSPARSE variants for A (host copy, used for the SELL conversion) with device CSR `dA`;
/// ALG2 and SELL name CSR_ALG1 as their unplanned call.
/// @throws pspmv::Error when a cuSPARSE or CUDA call fails.
template <class Value, class Offset>
std::vector<Peer> cusparse_peers(const pspmv::HostCsr<Value, Offset>& A,
                                 const pspmv::CsrMatrix<Value, Offset, std::int32_t, Kokkos::CudaSpace>& dA,
                                 const Kokkos::View<const Value*, Kokkos::CudaSpace>& x,
                                 const Kokkos::View<Value*, Kokkos::CudaSpace>& y);
/// cuSPARSE SpMM, Y = A X with X and Y row-major of k columns (LayoutRight), CSR: the default
/// algorithm, CSR ALG1, ALG2 and ALG3 (with cusparseSpMM_preprocess); a variant cuSPARSE
/// refuses becomes a "cannot run" entry naming the call.
template <class Value, class Offset>
std::vector<Peer> cusparse_spmm_peers(const pspmv::HostCsr<Value, Offset>& A,
                                      const pspmv::CsrMatrix<Value, Offset, std::int32_t, Kokkos::CudaSpace>& dA,
                                      const Kokkos::View<Value**, Kokkos::LayoutRight, Kokkos::CudaSpace>& X,
                                      const Kokkos::View<Value**, Kokkos::LayoutRight, Kokkos::CudaSpace>& Y, int k);
#endif

}  // namespace pspmv_peers
