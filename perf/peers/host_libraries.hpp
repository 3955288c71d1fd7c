#pragma once
// Peers on the host: Eigen's row-major sparse matrix times a dense vector (OpenMP threads),
// librsb (Recursive Sparse Blocks, M. Martone) with its own autotuning, and Intel MKL's
// inspector-executor sparse BLAS (mkl_sparse_?_mv after mkl_sparse_set_mv_hint and
// mkl_sparse_optimize). Each is optional at configure time (used when found, an "absent:"
// entry otherwise). A static library of their own (pspmv_host_peers), tested by
// tests/test_host_peers.cpp. x (ncols) and y (nrows) are host arrays that must outlive the peers.
#include <string>
#include <vector>

#include "peers/peer.hpp"

namespace pspmv_peers {

bool eigen_available();
bool librsb_available();
bool mkl_available();

/// Each library's version ("2020.0.4", "3.4.0", "1.3.0.1"); empty when it is absent.
std::string eigen_version();
std::string librsb_version();
std::string mkl_version();

/// Every host library's variants, in a fixed order: Eigen; librsb untuned, then autotuned;
/// MKL without, then with mkl_sparse_optimize. An absent library, or one that cannot take
/// this matrix, gives one entry that says why. `expected_calls` is MKL's mkl_sparse_set_mv_hint.
template <class Value, class Offset>
std::vector<Peer> host_peers(const HostCsrView<Value, Offset>& A, const Value* x, Value* y,
                             std::int64_t expected_calls);

/// Eigen: Map of the arrays as Eigen::SparseMatrix<Value, RowMajor, int> (row_ptr copied into
/// int, for either Offset, when nnz fits), y = A * x with Eigen's OpenMP threads.
template <class Value, class Offset>
Peer eigen_peer(const HostCsrView<Value, Offset>& A, const Value* x, Value* y);

/// librsb: rsb_mtx_alloc_from_csr_const (untuned), then the same after rsb_tune_spmm
/// (structure autotuning for one right-hand side); rsb_spmv. Needs nnz and dimensions within
/// librsb's int indices. One entry when the untuned matrix cannot be built.
template <class Value, class Offset>
std::vector<Peer> librsb_peers(const HostCsrView<Value, Offset>& A, const Value* x, Value* y);

/// Intel MKL's inspector-executor: the handle alone (unplanned), then the handle after
/// mkl_sparse_set_mv_hint + mkl_sparse_optimize. One entry when MKL is absent or cannot take
/// the matrix; a failing MKL call turns its variant into a "cannot run" entry.
template <class Value, class Offset>
std::vector<Peer> mkl_peers(const HostCsrView<Value, Offset>& A, const Value* x, Value* y,
                            std::int64_t expected_calls);

/// Intel MKL's product with k vectors, Y = A X (mkl_sparse_?_mm, X and Y row-major with k
/// columns, leading dimension k): the handle alone, then after mkl_sparse_set_mm_hint +
/// mkl_sparse_optimize. One entry when MKL is absent or cannot take the matrix.
template <class Value, class Offset>
std::vector<Peer> mkl_mm_peers(const HostCsrView<Value, Offset>& A, const Value* X, Value* Y, int k,
                               std::int64_t expected_calls);

}  // namespace pspmv_peers
