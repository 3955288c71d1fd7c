#include "peers/host_libraries.hpp"

#include <chrono>
#include <limits>
#include <memory>
#include <vector>

#if defined(PSPMV_HAVE_EIGEN)
#include <Eigen/SparseCore>
#endif
#if defined(PSPMV_HAVE_LIBRSB)
#include <rsb.h>
#include <rsb-config.h>  // RSB_PACKAGE_VERSION
#endif

namespace pspmv_peers {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

bool eigen_available() {
#if defined(PSPMV_HAVE_EIGEN)
  return true;
#else
  return false;
#endif
}

bool librsb_available() {
#if defined(PSPMV_HAVE_LIBRSB)
  return true;
#else
  return false;
#endif
}

template <class Value, class Offset>
HostPeer eigen_spmv(const HostCsrView<Value, Offset>& A, const Value* x, Value* y) {
  HostPeer p;
  p.variant = "SparseMatrix<RowMajor> * x";
#if defined(PSPMV_HAVE_EIGEN)
  if (A.nnz > std::numeric_limits<int>::max()) {
    p.note = "cannot run: nnz " + std::to_string(A.nnz) + " beyond Eigen's int StorageIndex";
    return p;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto rp = std::make_shared<std::vector<int>>(A.row_ptr, A.row_ptr + A.nrows + 1);
  using Sparse = Eigen::SparseMatrix<Value, Eigen::RowMajor, int>;
  auto M = std::make_shared<Eigen::Map<const Sparse>>(A.nrows, A.ncols, static_cast<int>(A.nnz), rp->data(), A.col_idx,
                                                      A.values);
  using Vec = Eigen::Matrix<Value, Eigen::Dynamic, 1>;
  auto xm = std::make_shared<Eigen::Map<const Vec>>(x, A.ncols);
  auto ym = std::make_shared<Eigen::Map<Vec>>(y, A.nrows);
  p.setup_seconds = seconds_since(t0);
  p.note = "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
           std::to_string(EIGEN_MINOR_VERSION) + ", " + std::to_string(Eigen::nbThreads()) + " threads";
  p.run = [rp, M, xm, ym] { ym->noalias() = (*M) * (*xm); };
#else
  (void)A, (void)x, (void)y;
  p.note = "absent: Eigen3 was not found at configure time";
#endif
  return p;
}

template <class Value, class Offset>
HostPeer librsb_spmv(const HostCsrView<Value, Offset>& A, const Value* x, Value* y) {
  HostPeer p;
  p.variant = "rsb_spmv (rsb_tune_spmm)";
#if defined(PSPMV_HAVE_LIBRSB)
  if (A.nnz > std::numeric_limits<rsb_nnz_idx_t>::max()) {
    p.note = "cannot run: nnz " + std::to_string(A.nnz) + " beyond librsb's index type";
    return p;
  }
  static const rsb_err_t init = rsb_lib_init(RSB_NULL_INIT_OPTIONS);
  if (init != RSB_ERR_NO_ERROR) {
    p.note = "cannot run: rsb_lib_init failed";
    return p;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<rsb_coo_idx_t> rp(A.row_ptr, A.row_ptr + A.nrows + 1);
  const rsb_type_t type = sizeof(Value) == 8 ? RSB_NUMERICAL_TYPE_DOUBLE : RSB_NUMERICAL_TYPE_FLOAT;
  rsb_err_t err = RSB_ERR_NO_ERROR;
  rsb_mtx_t* M = rsb_mtx_alloc_from_csr_const(A.values, rp.data(), A.col_idx, static_cast<rsb_nnz_idx_t>(A.nnz), type,
                                              A.nrows, A.ncols, 1, 1, RSB_FLAG_NOFLAGS, &err);
  if (M == nullptr || err != RSB_ERR_NO_ERROR) {
    p.note = "cannot run: rsb_mtx_alloc_from_csr_const failed";
    if (M) rsb_mtx_free(M);
    return p;
  }
  const Value one = 1, zero = 0;
  rsb_real_t speedup = 0;
  err = rsb_tune_spmm(&M, &speedup, nullptr, 0, 0.0, RSB_TRANSPOSITION_N, &one, nullptr, 1,
                      RSB_FLAG_WANT_COLUMN_MAJOR_ORDER, x, A.ncols, &zero, y, A.nrows);
  p.setup_seconds = seconds_since(t0);
  p.note = std::string("librsb ") + RSB_PACKAGE_VERSION +
           (err == RSB_ERR_NO_ERROR ? ", autotuned (predicted speedup " + std::to_string(speedup).substr(0, 4) + "x)"
                                    : ", autotuning failed: untuned");
  std::shared_ptr<rsb_mtx_t> owner(M, [](rsb_mtx_t* m) { rsb_mtx_free(m); });
  p.run = [owner, x, y] {
    const Value a = 1, b = 0;
    rsb_spmv(RSB_TRANSPOSITION_N, &a, owner.get(), x, 1, &b, y, 1);
  };
#else
  (void)A, (void)x, (void)y;
  p.note = "absent: librsb was not found at configure time";
#endif
  return p;
}

#define PSPMV_HOST_PEERS(V, O)                                                                \
  template HostPeer eigen_spmv<V, O>(const HostCsrView<V, O>&, const V*, V*);                 \
  template HostPeer librsb_spmv<V, O>(const HostCsrView<V, O>&, const V*, V*);
PSPMV_HOST_PEERS(double, std::int32_t)
PSPMV_HOST_PEERS(double, std::int64_t)
PSPMV_HOST_PEERS(float, std::int32_t)
PSPMV_HOST_PEERS(float, std::int64_t)
#undef PSPMV_HOST_PEERS

}  // namespace pspmv_peers
