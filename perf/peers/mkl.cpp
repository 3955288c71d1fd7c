#include "peers/host_libraries.hpp"

#include <algorithm>
#include <limits>
#include <memory>
#include <type_traits>

#if defined(PSPMV_HAVE_MKL)
#include <mkl.h>  // mkl_get_version, mkl_get_max_threads
#include <mkl_spblas.h>
#endif

namespace pspmv_peers {

std::string mkl_version() {
#if defined(PSPMV_HAVE_MKL)
  MKLVersion v;
  mkl_get_version(&v);
  return std::to_string(v.MajorVersion) + "." + std::to_string(v.MinorVersion) + "." + std::to_string(v.UpdateVersion);
#else
  return "";
#endif
}

bool mkl_available() {
#if defined(PSPMV_HAVE_MKL)
  return true;
#else
  return false;
#endif
}

#if defined(PSPMV_HAVE_MKL)
namespace {

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

template <class Value>
sparse_status_t mkl_mm(sparse_matrix_t h, matrix_descr descr, const Value* X, Value* Y, MKL_INT k) {
  if constexpr (std::is_same_v<Value, double>)
    return mkl_sparse_d_mm(SPARSE_OPERATION_NON_TRANSPOSE, 1.0, h, descr, SPARSE_LAYOUT_ROW_MAJOR, X, k, k, 0.0, Y, k);
  else
    return mkl_sparse_s_mm(SPARSE_OPERATION_NON_TRANSPOSE, 1.0f, h, descr, SPARSE_LAYOUT_ROW_MAJOR, X, k, k, 0.0f, Y, k);
}

/// MKL starts its library (CPU dispatch, threads, buffers) on its first sparse call, once per
/// process: about 10 ms on a 2-core host, which the first matrix's setup would otherwise be
/// charged (a break-even of "at once" for its optimize, whose baseline paid it). One untimed
/// round of every call the peers time (mv and mm, with their hints and optimize), on a 2 x 2
/// matrix, once per value type.
template <class Value>
void start_mkl_once() {
  static const bool started = [] {
    MKL_INT rp[] = {0, 1, 2}, col[] = {0, 1};
    Value val[] = {1, 2}, x[] = {1, 1}, y[] = {0, 0}, X[] = {1, 1, 1, 1}, Y[] = {0, 0, 0, 0};
    matrix_descr descr{};
    descr.type = SPARSE_MATRIX_TYPE_GENERAL;
    sparse_matrix_t h = nullptr;
    if (mkl_create_csr<Value>(&h, 2, 2, rp, rp + 1, col, val) == SPARSE_STATUS_SUCCESS) {
      mkl_sparse_set_mv_hint(h, SPARSE_OPERATION_NON_TRANSPOSE, descr, 1000);
      mkl_sparse_optimize(h);
      mkl_mv<Value>(h, descr, x, y);
      mkl_sparse_set_mm_hint(h, SPARSE_OPERATION_NON_TRANSPOSE, descr, SPARSE_LAYOUT_ROW_MAJOR, 2, 1000);
      mkl_sparse_optimize(h);
      mkl_mm<Value>(h, descr, X, Y, 2);
    }
    if (h) mkl_sparse_destroy(h);
    return true;
  }();
  (void)started;
}

}  // namespace
#endif

template <class Value, class Offset>
std::vector<Peer> mkl_peers(const HostCsrView<Value, Offset>& A, const Value* x, Value* y,
                            std::int64_t expected_calls) {
  const std::string mv = sizeof(Value) == 8 ? "mkl_sparse_d_mv" : "mkl_sparse_s_mv";
  const std::string create = sizeof(Value) == 8 ? "mkl_sparse_d_create_csr" : "mkl_sparse_s_create_csr";
  std::vector<Peer> out(2);
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
  start_mkl_once<Value>();
  using Handle = std::shared_ptr<std::remove_pointer_t<sparse_matrix_t>>;

  for (std::size_t k = 0; k < out.size(); ++k) {
    Peer& p = out[k];
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

template <class Value, class Offset>
std::vector<Peer> mkl_mm_peers(const HostCsrView<Value, Offset>& A, const Value* X, Value* Y, int k,
                               std::int64_t expected_calls) {
  const std::string mm = sizeof(Value) == 8 ? "mkl_sparse_d_mm" : "mkl_sparse_s_mm";
  const std::string create = sizeof(Value) == 8 ? "mkl_sparse_d_create_csr" : "mkl_sparse_s_create_csr";
  std::vector<Peer> out(2);
  out[0].variant = mm;
  out[1].variant = mm + " (hint+optimize)";
  for (auto& p : out) p.impl = "mkl";
#if defined(PSPMV_HAVE_MKL)
  if (A.nnz > std::numeric_limits<MKL_INT>::max()) {
    out.resize(1);
    out[0].note = "cannot run: nnz " + std::to_string(A.nnz) + " beyond MKL's 32-bit MKL_INT (LP64)";
    return out;
  }
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
  auto* col = const_cast<MKL_INT*>(reinterpret_cast<const MKL_INT*>(A.col_idx));
  auto* val = const_cast<Value*>(A.values);
  matrix_descr descr{};
  descr.type = SPARSE_MATRIX_TYPE_GENERAL;
  const std::string note = mkl_note() + ", row-major X and Y of " + std::to_string(k) + " columns";
  start_mkl_once<Value>();
  using Handle = std::shared_ptr<std::remove_pointer_t<sparse_matrix_t>>;
  for (std::size_t v = 0; v < out.size(); ++v) {
    Peer& p = out[v];
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
    if (v == 1) {
      const auto calls = static_cast<MKL_INT>(
          std::clamp<std::int64_t>(expected_calls, 1, std::numeric_limits<MKL_INT>::max()));
      s = mkl_sparse_set_mm_hint(h.get(), SPARSE_OPERATION_NON_TRANSPOSE, descr, SPARSE_LAYOUT_ROW_MAJOR, k, calls);
      if (s != SPARSE_STATUS_SUCCESS) {
        fail("mkl_sparse_set_mm_hint", s);
        continue;
      }
      s = mkl_sparse_optimize(h.get());
      if (s != SPARSE_STATUS_SUCCESS) {
        fail("mkl_sparse_optimize", s);
        continue;
      }
    }
    p.setup_seconds = copy_seconds + seconds_since(t0);
    s = mkl_mm<Value>(h.get(), descr, X, Y, k);
    if (s != SPARSE_STATUS_SUCCESS) {
      fail(mm, s);
      continue;
    }
    p.note = note + (v == 1 ? ", expected_calls " + std::to_string(expected_calls) : "");
    p.run = [h, rp_copy, descr, X, Y, k] { mkl_mm<Value>(h.get(), descr, X, Y, k); };
  }
#else
  (void)A, (void)X, (void)Y, (void)k, (void)expected_calls;
  out.resize(1);
  out[0].note = "absent: Intel MKL was not found at configure time";
#endif
  return out;
}

#define PSPMV_MKL_PEERS(V, O)                                                                         \
  template std::vector<Peer> mkl_peers<V, O>(const HostCsrView<V, O>&, const V*, V*, std::int64_t); \
  template std::vector<Peer> mkl_mm_peers<V, O>(const HostCsrView<V, O>&, const V*, V*, int, std::int64_t);
PSPMV_PEER_TYPES(PSPMV_MKL_PEERS)

}  // namespace pspmv_peers
