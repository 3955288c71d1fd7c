#include "peers/host_libraries.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#if defined(PSPMV_HAVE_EIGEN)
#include <Eigen/SparseCore>
#endif
#if defined(PSPMV_HAVE_LIBRSB)
#include <rsb.h>
#include <rsb-config.h>  // RSB_PACKAGE_VERSION
#endif
#if defined(PSPMV_HAVE_MKL)
#include <mkl.h>  // mkl_get_version, mkl_get_max_threads
#include <mkl_spblas.h>
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

bool mkl_available() {
#if defined(PSPMV_HAVE_MKL)
  return true;
#else
  return false;
#endif
}

template <class Value, class Offset>
HostPeer eigen_spmv(const HostCsrView<Value, Offset>& A, const Value* x, Value* y) {
  HostPeer p;
  p.impl = "eigen";
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

namespace {

constexpr const char* rsb_untuned_variant = "rsb_spmv untuned";
constexpr const char* rsb_tuned_variant = "rsb_spmv (rsb_tune_spmm)";

/// librsb, untuned (rsb_mtx_alloc_from_csr_const only) or autotuned (then rsb_tune_spmm).
template <class Value, class Offset>
HostPeer librsb_peer(const HostCsrView<Value, Offset>& A, const Value* x, Value* y, bool tune) {
  HostPeer p;
  p.impl = "librsb";
  p.variant = tune ? rsb_tuned_variant : rsb_untuned_variant;
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
  p.note = std::string("librsb ") + RSB_PACKAGE_VERSION;
  if (tune) {
    const Value one = 1, zero = 0;
    rsb_real_t speedup = 0;
    err = rsb_tune_spmm(&M, &speedup, nullptr, 0, 0.0, RSB_TRANSPOSITION_N, &one, nullptr, 1,
                        RSB_FLAG_WANT_COLUMN_MAJOR_ORDER, x, A.ncols, &zero, y, A.nrows);
    p.note += err == RSB_ERR_NO_ERROR ? ", autotuned (predicted speedup " + std::to_string(speedup).substr(0, 4) + "x)"
                                      : ", autotuning failed: untuned";
    p.unplanned = rsb_untuned_variant;
  } else {
    p.note += ", untuned";
  }
  p.setup_seconds = seconds_since(t0);
  std::shared_ptr<rsb_mtx_t> owner(M, [](rsb_mtx_t* m) { rsb_mtx_free(m); });
  p.run = [owner, x, y] {
    const Value a = 1, b = 0;
    rsb_spmv(RSB_TRANSPOSITION_N, &a, owner.get(), x, 1, &b, y, 1);
  };
#else
  (void)A, (void)x, (void)y, (void)tune;
  p.note = "absent: librsb was not found at configure time";
#endif
  return p;
}

#if defined(PSPMV_HAVE_MKL)
const char* to_string(sparse_status_t s) {
  switch (s) {
    case SPARSE_STATUS_SUCCESS: return "SPARSE_STATUS_SUCCESS";
    case SPARSE_STATUS_NOT_INITIALIZED: return "SPARSE_STATUS_NOT_INITIALIZED";
    case SPARSE_STATUS_ALLOC_FAILED: return "SPARSE_STATUS_ALLOC_FAILED";
    case SPARSE_STATUS_INVALID_VALUE: return "SPARSE_STATUS_INVALID_VALUE";
    case SPARSE_STATUS_EXECUTION_FAILED: return "SPARSE_STATUS_EXECUTION_FAILED";
    case SPARSE_STATUS_INTERNAL_ERROR: return "SPARSE_STATUS_INTERNAL_ERROR";
    case SPARSE_STATUS_NOT_SUPPORTED: return "SPARSE_STATUS_NOT_SUPPORTED";
  }
  return "an unknown sparse_status_t";
}

std::string mkl_note() {
  MKLVersion v;
  mkl_get_version(&v);
  return "Intel MKL " + std::to_string(v.MajorVersion) + "." + std::to_string(v.MinorVersion) + "." +
         std::to_string(v.UpdateVersion) + " (build " + v.Build + ", LP64, GNU OpenMP), " +
         std::to_string(mkl_get_max_threads()) + " threads";
}

template <class Value>
sparse_status_t mkl_create_csr(sparse_matrix_t* h, MKL_INT rows, MKL_INT cols, MKL_INT* start, MKL_INT* end,
                               MKL_INT* col, Value* val) {
  if constexpr (std::is_same_v<Value, double>)
    return mkl_sparse_d_create_csr(h, SPARSE_INDEX_BASE_ZERO, rows, cols, start, end, col, val);
  else
    return mkl_sparse_s_create_csr(h, SPARSE_INDEX_BASE_ZERO, rows, cols, start, end, col, val);
}

template <class Value>
sparse_status_t mkl_mv(sparse_matrix_t h, matrix_descr descr, const Value* x, Value* y) {
  if constexpr (std::is_same_v<Value, double>)
    return mkl_sparse_d_mv(SPARSE_OPERATION_NON_TRANSPOSE, 1.0, h, descr, x, 0.0, y);
  else
    return mkl_sparse_s_mv(SPARSE_OPERATION_NON_TRANSPOSE, 1.0f, h, descr, x, 0.0f, y);
}
#endif

/// Intel MKL's inspector-executor: the handle alone (unplanned), then the handle after
/// mkl_sparse_set_mv_hint + mkl_sparse_optimize. One entry when MKL is absent or cannot take
/// the matrix; a failing MKL call turns its variant into a "cannot run" entry.
template <class Value, class Offset>
std::vector<HostPeer> mkl_peers(const HostCsrView<Value, Offset>& A, const Value* x, Value* y,
                                std::int64_t expected_calls) {
  const std::string mv = sizeof(Value) == 8 ? "mkl_sparse_d_mv" : "mkl_sparse_s_mv";
  const std::string create = sizeof(Value) == 8 ? "mkl_sparse_d_create_csr" : "mkl_sparse_s_create_csr";
  std::vector<HostPeer> out(2);
  out[0].variant = mv;
  out[1].variant = mv + " (hint+optimize)";
  out[1].unplanned = out[0].variant;
  for (auto& p : out) p.impl = "mkl";
#if defined(PSPMV_HAVE_MKL)
  static_assert(sizeof(MKL_INT) == sizeof(std::int32_t), "the MKL peer is built for the LP64 interface");
  if (A.nnz > std::numeric_limits<MKL_INT>::max()) {
    out.resize(1);
    out[0].note = "cannot run: nnz " + std::to_string(A.nnz) + " beyond MKL's 32-bit MKL_INT (LP64)";
    return out;
  }
  // MKL_INT row offsets: the caller's array when Offset is MKL_INT, else a copy (shared by
  // both variants, kept alive by their run lambdas).
  std::shared_ptr<std::vector<MKL_INT>> rp_copy;
  MKL_INT* rp = nullptr;
  double copy_seconds = 0;
  if constexpr (std::is_same_v<Offset, MKL_INT>) {
    rp = const_cast<MKL_INT*>(A.row_ptr);
  } else {
    const auto t0 = std::chrono::steady_clock::now();
    rp_copy = std::make_shared<std::vector<MKL_INT>>(A.row_ptr, A.row_ptr + A.nrows + 1);
    rp = rp_copy->data();
    copy_seconds = seconds_since(t0);
  }
  // MKL takes non-const arrays but does not write them (it keeps pointers to them).
  auto* col = const_cast<MKL_INT*>(reinterpret_cast<const MKL_INT*>(A.col_idx));
  auto* val = const_cast<Value*>(A.values);
  matrix_descr descr{};
  descr.type = SPARSE_MATRIX_TYPE_GENERAL;
  const std::string note = mkl_note();
  using Handle = std::shared_ptr<std::remove_pointer_t<sparse_matrix_t>>;

  for (std::size_t k = 0; k < out.size(); ++k) {
    HostPeer& p = out[k];
    auto fail = [&](const std::string& call, sparse_status_t s) {
      p.note = "cannot run: " + call + " returned " + to_string(s);
    };
    const auto t0 = std::chrono::steady_clock::now();
    sparse_matrix_t raw = nullptr;
    sparse_status_t s = mkl_create_csr<Value>(&raw, A.nrows, A.ncols, rp, rp + 1, col, val);
    if (s != SPARSE_STATUS_SUCCESS) {
      if (raw) mkl_sparse_destroy(raw);
      fail(create, s);
      continue;
    }
    Handle h(raw, [](sparse_matrix_t m) { mkl_sparse_destroy(m); });
    if (k == 1) {
      const auto calls = static_cast<MKL_INT>(
          std::clamp<std::int64_t>(expected_calls, 1, std::numeric_limits<MKL_INT>::max()));
      s = mkl_sparse_set_mv_hint(h.get(), SPARSE_OPERATION_NON_TRANSPOSE, descr, calls);
      if (s != SPARSE_STATUS_SUCCESS) {
        fail("mkl_sparse_set_mv_hint", s);
        continue;
      }
      s = mkl_sparse_optimize(h.get());
      if (s != SPARSE_STATUS_SUCCESS) {
        fail("mkl_sparse_optimize", s);
        continue;
      }
    }
    p.setup_seconds = copy_seconds + seconds_since(t0);
    // One untimed call, so that a failing multiply is a note here, not a crash later.
    s = mkl_mv<Value>(h.get(), descr, x, y);
    if (s != SPARSE_STATUS_SUCCESS) {
      fail(mv, s);
      continue;
    }
    p.note = note + (k == 1 ? ", expected_calls " + std::to_string(expected_calls) : "");
    p.run = [h, rp_copy, descr, x, y] { mkl_mv<Value>(h.get(), descr, x, y); };
  }
#else
  (void)A, (void)x, (void)y, (void)expected_calls;
  out.resize(1);
  out[0].unplanned.clear();
  out[0].note = "absent: Intel MKL was not found at configure time";
#endif
  return out;
}

}  // namespace

template <class Value, class Offset>
HostPeer librsb_spmv(const HostCsrView<Value, Offset>& A, const Value* x, Value* y) {
  return librsb_peer(A, x, y, true);
}

template <class Value, class Offset>
std::vector<HostPeer> host_peers(const HostCsrView<Value, Offset>& A, const Value* x, Value* y,
                                 std::int64_t expected_calls) {
  std::vector<HostPeer> out;
  out.push_back(eigen_spmv(A, x, y));
  // librsb: when the untuned matrix cannot be built (absent, too large), that one entry says why.
  HostPeer rsb = librsb_peer(A, x, y, false);
  const bool rsb_runs = static_cast<bool>(rsb.run);
  out.push_back(std::move(rsb));
  if (rsb_runs) out.push_back(librsb_peer(A, x, y, true));
  for (auto& p : mkl_peers(A, x, y, expected_calls)) out.push_back(std::move(p));
  return out;
}

#define PSPMV_HOST_PEERS(V, O)                                                                                   \
  template HostPeer eigen_spmv<V, O>(const HostCsrView<V, O>&, const V*, V*);                                    \
  template HostPeer librsb_spmv<V, O>(const HostCsrView<V, O>&, const V*, V*);                                   \
  template std::vector<HostPeer> host_peers<V, O>(const HostCsrView<V, O>&, const V*, V*, std::int64_t);
PSPMV_HOST_PEERS(double, std::int32_t)
PSPMV_HOST_PEERS(double, std::int64_t)
PSPMV_HOST_PEERS(float, std::int32_t)
PSPMV_HOST_PEERS(float, std::int64_t)
#undef PSPMV_HOST_PEERS

}  // namespace pspmv_peers
