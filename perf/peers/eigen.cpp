#include "peers/host_libraries.hpp"

#include <limits>
#include <memory>

#if defined(PSPMV_HAVE_EIGEN)
#include <Eigen/SparseCore>
#endif

namespace pspmv_peers {

std::string eigen_version() {
#if defined(PSPMV_HAVE_EIGEN)
  return std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
         std::to_string(EIGEN_MINOR_VERSION);
#else
  return "";
#endif
}

bool eigen_available() {
#if defined(PSPMV_HAVE_EIGEN)
  return true;
#else
  return false;
#endif
}

template <class Value, class Offset>
Peer eigen_peer(const HostCsrView<Value, Offset>& A, const Value* x, Value* y) {
  Peer p = cannot_run("eigen", "SparseMatrix<RowMajor> * x", "");
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

#define PSPMV_EIGEN_PEER(V, O) template Peer eigen_peer<V, O>(const HostCsrView<V, O>&, const V*, V*);
PSPMV_PEER_TYPES(PSPMV_EIGEN_PEER)

}  // namespace pspmv_peers
