#pragma once
// The registry of peers: every peer library's variants for one matrix on one execution space,
// in the order the tool reports them (plain OpenMP, Eigen, librsb, MKL, Kokkos Kernels,
// cuSPARSE). Host peers run where Exec's memory is host-accessible, cuSPARSE on CUDA.
#include <type_traits>
#include <vector>

#include "peers/cusparse.hpp"
#include "peers/host_libraries.hpp"
#include "peers/kokkos_kernels.hpp"
#include "peers/openmp_plain.hpp"
#include "peers/peer.hpp"
#include "pspmv/pspmv.hpp"

namespace pspmv_peers {

/// What the peers compute with: y = A x, A on the host (A) and in Exec's memory (dA), x and y
/// in Exec's memory; all must outlive the peers.
template <class Exec, class Value, class Offset>
struct Problem {
  using Mem = typename Exec::memory_space;
  const pspmv::HostCsr<Value, Offset>& A;
  const pspmv::CsrMatrix<Value, Offset, std::int32_t, Mem>& dA;
  Kokkos::View<const Value*, Mem> x;
  Kokkos::View<Value*, Mem> y;
  std::int64_t expected_calls = 1000;  ///< the calls hint of peers that take one (MKL)
};

/// Every peer's variants for p, prepared (see Peer for entries that cannot run).
template <class Exec, class Value, class Offset>
std::vector<Peer> make_peers(const Problem<Exec, Value, Offset>& p) {
  std::vector<Peer> out;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible) {
    const HostCsrView<Value, Offset> h{p.A.nrows, p.A.ncols, static_cast<std::int64_t>(p.A.nnz()),
                                       p.A.row_ptr.data(), p.A.col_idx.data(), p.A.values.data()};
    append(out, openmp_plain_peers(h, p.x.data(), p.y.data()));
    append(out, host_peers(h, p.x.data(), p.y.data(), p.expected_calls));
  }
  out.push_back(kokkos_kernels_peer<Exec, Value, Offset>(p.dA, p.x, p.y));
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<Exec, Kokkos::Cuda>::value) append(out, cusparse_peers(p.A, p.dA, p.x, p.y));
#endif
  return out;
}

/// What the peers of a product with k vectors compute with: Y = A X, X (ncols x k) and Y
/// (nrows x k) LayoutRight in Exec's memory.
template <class Exec, class Value, class Offset>
struct MultiProblem {
  using Mem = typename Exec::memory_space;
  const pspmv::HostCsr<Value, Offset>& A;
  const pspmv::CsrMatrix<Value, Offset, std::int32_t, Mem>& dA;
  Kokkos::View<Value**, Kokkos::LayoutRight, Mem> X;
  Kokkos::View<Value**, Kokkos::LayoutRight, Mem> Y;
  int k = 1;
  std::int64_t expected_calls = 1000;
};

/// The peers that offer the product with k vectors: MKL's mkl_sparse_?_mm on a host, Kokkos
/// Kernels' rank-2 KokkosSparse::spmv, cuSPARSE SpMM on CUDA.
template <class Exec, class Value, class Offset>
std::vector<Peer> make_multi_peers(const MultiProblem<Exec, Value, Offset>& p) {
  std::vector<Peer> out;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible) {
    const HostCsrView<Value, Offset> h{p.A.nrows, p.A.ncols, static_cast<std::int64_t>(p.A.nnz()),
                                       p.A.row_ptr.data(), p.A.col_idx.data(), p.A.values.data()};
    append(out, mkl_mm_peers(h, p.X.data(), p.Y.data(), p.k, p.expected_calls));
  }
  out.push_back(kokkos_kernels_mv_peer<Exec, Value, Offset>(p.dA, p.X, p.Y));
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<Exec, Kokkos::Cuda>::value) append(out, cusparse_spmm_peers(p.A, p.dA, p.X, p.Y, p.k));
#endif
  return out;
}

}  // namespace pspmv_peers
