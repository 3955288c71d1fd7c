#include "peers/host_libraries.hpp"

#include <limits>
#include <memory>

#if defined(PSPMV_HAVE_LIBRSB)
#include <rsb.h>
#include <rsb-config.h>  // RSB_PACKAGE_VERSION
#endif

namespace pspmv_peers {

std::string librsb_version() {
#if defined(PSPMV_HAVE_LIBRSB)
  return RSB_PACKAGE_VERSION;
#else
  return "";
#endif
}

bool librsb_available() {
#if defined(PSPMV_HAVE_LIBRSB)
  return true;
#else
  return false;
#endif
}

namespace {

constexpr const char* rsb_untuned_variant = "rsb_spmv untuned";
constexpr const char* rsb_tuned_variant = "rsb_spmv (rsb_tune_spmm)";

/// librsb, untuned (rsb_mtx_alloc_from_csr_const only) or autotuned (then rsb_tune_spmm).
template <class Value, class Offset>
Peer librsb_peer(const HostCsrView<Value, Offset>& A, const Value* x, Value* y, bool tune) {
  Peer p = cannot_run("librsb", tune ? rsb_tuned_variant : rsb_untuned_variant, "");
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

}  // namespace

template <class Value, class Offset>
std::vector<Peer> librsb_peers(const HostCsrView<Value, Offset>& A, const Value* x, Value* y) {
  // When the untuned matrix cannot be built (absent, too large), that one entry says why.
  std::vector<Peer> out{librsb_peer(A, x, y, false)};
  if (out.front().run) out.push_back(librsb_peer(A, x, y, true));
  return out;
}

#define PSPMV_LIBRSB_PEERS(V, O) \
  template std::vector<Peer> librsb_peers<V, O>(const HostCsrView<V, O>&, const V*, V*);
PSPMV_PEER_TYPES(PSPMV_LIBRSB_PEERS)

}  // namespace pspmv_peers
