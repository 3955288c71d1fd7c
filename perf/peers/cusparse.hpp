#pragma once
// Peer: NVIDIA cuSPARSE SpMV (generic API) on the same device arrays, in the same process:
// CSR ALG1, CSR ALG2 (with cusparseSpMV_preprocess) and SELL ALG1 (sliced ELLPACK, slice 32,
// unsorted, 32-bit offsets: skipped with a note when the padded size does not fit).
// Compiled only in CUDA builds with cuSPARSE found (PSPMV_HAVE_CUSPARSE).
#include <functional>
#include <string>
#include <vector>

#include "pspmv/pspmv.hpp"

namespace pspmv_peers {

struct PeerRun {
  std::string variant;             ///< e.g. "CSR_ALG1"
  std::string note;                ///< what was set up, or why it cannot run
  double setup_s = 0;              ///< descriptor creation, buffers, preprocess, format conversion
  std::function<void()> run;       ///< y = A x; empty when the variant cannot run
};

bool cusparse_available();

#if defined(KOKKOS_ENABLE_CUDA)
/// cuSPARSE variants for A (host copy, used for the SELL conversion) with device CSR `dA`.
template <class Value, class Offset>
std::vector<PeerRun> cusparse_spmv(const pspmv::HostCsr<Value, Offset>& A,
                                   const pspmv::CsrMatrix<Value, Offset, std::int32_t, Kokkos::CudaSpace>& dA,
                                   const Kokkos::View<const Value*, Kokkos::CudaSpace>& x,
                                   const Kokkos::View<Value*, Kokkos::CudaSpace>& y);
#endif

}  // namespace pspmv_peers
