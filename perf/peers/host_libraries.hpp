#pragma once
// Peers on the host: Eigen's row-major sparse matrix times a dense vector (OpenMP threads),
// librsb (Recursive Sparse Blocks, M. Martone) with its own autotuning, and Intel MKL's
// inspector-executor sparse BLAS (mkl_sparse_?_mv after mkl_sparse_set_mv_hint and
// mkl_sparse_optimize). Each is optional at configure time (used when found, reported as
// absent otherwise).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pspmv_peers {

/// What a host peer computes with: y = A x on the caller's host CSR arrays.
template <class Value, class Offset>
struct HostCsrView {
  std::int32_t nrows = 0, ncols = 0;
  std::int64_t nnz = 0;
  const Offset* row_ptr = nullptr;
  const std::int32_t* col_idx = nullptr;
  const Value* values = nullptr;
};

/// A peer's prepared multiply: `run` computes y = A x (y overwritten); `setup_seconds` is the
/// peer's own preparation (format conversion, tuning); `note` says what was prepared, or why
/// the peer cannot run (then `run` is empty).
struct HostPeer {
  std::string impl;      ///< "eigen", "librsb", "mkl"
  std::string variant;
  /// The variant of the same impl that is this one's call without its analysis stage (e.g.
  /// librsb untuned, MKL without mkl_sparse_optimize), for the break-even number of calls;
  /// empty when this variant has no analysis stage or is the unplanned call itself.
  std::string unplanned;
  std::string note;
  double setup_seconds = 0;
  std::function<void()> run;
};

bool eigen_available();
bool librsb_available();
bool mkl_available();

/// Every host peer's variants for y = A x, in a fixed order (Eigen; librsb untuned, then
/// autotuned; MKL without, then with mkl_sparse_optimize). An absent peer gives one entry whose
/// note starts with "absent:"; a peer that cannot take this matrix gives one whose note says
/// why; both have an empty `run`. `expected_calls` is the hint given to MKL's
/// mkl_sparse_set_mv_hint. x (ncols) and y (nrows) are host arrays that must outlive the peers.
template <class Value, class Offset>
std::vector<HostPeer> host_peers(const HostCsrView<Value, Offset>& A, const Value* x, Value* y,
                                 std::int64_t expected_calls);

/// Eigen: Map of the arrays as Eigen::SparseMatrix<Value, RowMajor, int> (row_ptr copied into
/// int, for either Offset, when nnz fits), y = A * x with Eigen's OpenMP threads.
template <class Value, class Offset>
HostPeer eigen_spmv(const HostCsrView<Value, Offset>& A, const Value* x, Value* y);

/// librsb: rsb_mtx_alloc_from_csr_const, then rsb_tune_spmm (structure autotuning for one
/// right-hand side), then rsb_spmv. Needs nnz and dimensions within librsb's int indices.
template <class Value, class Offset>
HostPeer librsb_spmv(const HostCsrView<Value, Offset>& A, const Value* x, Value* y);

}  // namespace pspmv_peers
