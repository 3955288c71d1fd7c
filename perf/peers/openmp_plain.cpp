#include "peers/openmp_plain.hpp"

#include <algorithm>

namespace pspmv_peers {

namespace {

enum class OmpSchedule { static_blocks, static_chunks, dynamic_chunks };

template <class Value, class Offset>
inline void row(std::int32_t i, const HostCsrView<Value, Offset>& A, const Value* x, Value* y) {
  Value s = 0;
  for (Offset k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) s += A.values[k] * x[A.col_idx[k]];
  y[i] = s;
}

/// y = A x (beta = 0) over host arrays.
template <class Value, class Offset>
void csr_spmv(const HostCsrView<Value, Offset>& A, const Value* x, Value* y, OmpSchedule schedule, int chunk) {
  switch (schedule) {
    case OmpSchedule::static_blocks:
#pragma omp parallel for schedule(static)
      for (std::int32_t i = 0; i < A.nrows; ++i) row(i, A, x, y);
      break;
    case OmpSchedule::static_chunks:
#pragma omp parallel for schedule(static, chunk)
      for (std::int32_t i = 0; i < A.nrows; ++i) row(i, A, x, y);
      break;
    case OmpSchedule::dynamic_chunks:
#pragma omp parallel for schedule(dynamic, chunk)
      for (std::int32_t i = 0; i < A.nrows; ++i) row(i, A, x, y);
      break;
  }
}

}  // namespace

template <class Value, class Offset>
std::vector<Peer> openmp_plain_peers(const HostCsrView<Value, Offset>& A, const Value* x, Value* y) {
#ifdef _OPENMP
  const int chunk = static_cast<int>(std::max<std::int64_t>(1, (std::int64_t{A.nrows} + 1999) / 2000));
  std::vector<Peer> out;
  for (const auto& [s, name] : {std::pair{OmpSchedule::static_blocks, "omp_static"},
                                std::pair{OmpSchedule::static_chunks, "omp_static_chunk"},
                                std::pair{OmpSchedule::dynamic_chunks, "omp_dynamic_chunk"}}) {
    Peer p;
    p.impl = "openmp-plain";
    p.variant = name;
    p.note = s == OmpSchedule::static_blocks ? "pragma omp for schedule(static)" : "chunk_rows=" + std::to_string(chunk);
    p.run = [A, x, y, s = s, chunk] { csr_spmv(A, x, y, s, chunk); };
    out.push_back(std::move(p));
  }
  return out;
#else
  (void)A, (void)x, (void)y;
  return {cannot_run("openmp-plain", "omp_static", "absent: this build has no OpenMP")};
#endif
}

#define PSPMV_OPENMP_PLAIN(V, O) \
  template std::vector<Peer> openmp_plain_peers<V, O>(const HostCsrView<V, O>&, const V*, V*);
PSPMV_PEER_TYPES(PSPMV_OPENMP_PLAIN)

}  // namespace pspmv_peers
