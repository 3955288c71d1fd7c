#include "peers/cusparse.hpp"

#include <chrono>
#include <memory>
#include <stdexcept>

#if defined(PSPMV_HAVE_CUSPARSE)
#include <cuda_runtime.h>
#include <cusparse.h>
#endif

namespace pspmv_peers {

#if defined(PSPMV_HAVE_CUSPARSE)
namespace {

void check(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS)
    throw pspmv::Error(std::string("cuSPARSE: ") + what + " failed: " + cusparseGetErrorString(s));
}
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw pspmv::Error(std::string("CUDA: ") + what + " failed: " + cudaGetErrorString(e));
}

template <class Value>
constexpr cudaDataType value_type() {
  return sizeof(Value) == 4 ? CUDA_R_32F : CUDA_R_64F;
}

/// Owns the cuSPARSE objects of one variant; shared by the run closure.
struct State {
  cusparseHandle_t handle = nullptr;
  cusparseSpMatDescr_t mat = nullptr;
  cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
  void* buffer = nullptr;
  Kokkos::View<std::int32_t*, Kokkos::CudaSpace> sell_offsets, sell_cols;  // SELL arrays kept alive
  Kokkos::View<char*, Kokkos::CudaSpace> sell_values;
  ~State() {
    if (buffer) cudaFree(buffer);
    if (vx) cusparseDestroyDnVec(vx);
    if (vy) cusparseDestroyDnVec(vy);
    if (mat) cusparseDestroySpMat(mat);
    if (handle) cusparseDestroy(handle);
  }
};

/// The variant `name` of st's matrix: vectors, buffer, preprocess; setup timed from t0.
template <class Value>
Peer make_peer(const std::string& name, const std::string& note, std::shared_ptr<State> st, cusparseSpMVAlg_t alg,
               bool preprocess, const Kokkos::View<const Value*, Kokkos::CudaSpace>& x,
               const Kokkos::View<Value*, Kokkos::CudaSpace>& y, std::int64_t nrows, std::int64_t ncols,
               std::chrono::steady_clock::time_point t0) {
  const cudaDataType vt = value_type<Value>();
  check(cusparseCreateDnVec(&st->vx, ncols, const_cast<Value*>(x.data()), vt), "cusparseCreateDnVec(x)");
  check(cusparseCreateDnVec(&st->vy, nrows, y.data(), vt), "cusparseCreateDnVec(y)");
  const Value one = 1, zero = 0;
  std::size_t bytes = 0;
  check(cusparseSpMV_bufferSize(st->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, st->mat, st->vx, &zero, st->vy,
                                vt, alg, &bytes),
        "cusparseSpMV_bufferSize");
  if (bytes > 0) check(cudaMalloc(&st->buffer, bytes), "cudaMalloc(buffer)");
  if (preprocess)
    check(cusparseSpMV_preprocess(st->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, st->mat, st->vx, &zero, st->vy,
                                  vt, alg, st->buffer),
          "cusparseSpMV_preprocess");
  check(cudaDeviceSynchronize(), "setup");
  Peer r;
  r.impl = "cusparse";
  r.variant = name;
  r.unplanned = name == "CSR_ALG1" ? "" : "CSR_ALG1";
  r.note = note;
  r.setup_seconds = seconds_since(t0);
  r.run = [st, alg, vt]() {
    const Value one_ = 1, zero_ = 0;
    check(cusparseSpMV(st->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, st->mat, st->vx, &zero_, st->vy, vt, alg,
                       st->buffer),
          "cusparseSpMV");
  };
  return r;
}

}  // namespace

template <class Value, class Offset>
std::vector<Peer> cusparse_peers(const pspmv::HostCsr<Value, Offset>& A,
                                 const pspmv::CsrMatrix<Value, Offset, std::int32_t, Kokkos::CudaSpace>& dA,
                                 const Kokkos::View<const Value*, Kokkos::CudaSpace>& x,
                                 const Kokkos::View<Value*, Kokkos::CudaSpace>& y) {
  std::vector<Peer> out;
  const cudaDataType vt = value_type<Value>();
  const cusparseIndexType_t ot = sizeof(Offset) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
  const cudaStream_t stream = Kokkos::Cuda().cuda_stream();
  for (auto [name, alg, pre] : {std::make_tuple(std::string("CSR_ALG1"), CUSPARSE_SPMV_CSR_ALG1, false),
                                std::make_tuple(std::string("CSR_ALG2+preprocess"), CUSPARSE_SPMV_CSR_ALG2, true)}) {
    const auto t0 = std::chrono::steady_clock::now();
    auto st = std::make_shared<State>();
    check(cusparseCreate(&st->handle), "cusparseCreate");
    check(cusparseSetStream(st->handle, stream), "cusparseSetStream");
    check(cusparseCreateCsr(&st->mat, A.nrows, A.ncols, static_cast<std::int64_t>(A.nnz()), dA.row_ptr.data(),
                            dA.col_idx.data(), dA.values.data(), ot, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt),
          "cusparseCreateCsr");
    out.push_back(make_peer<Value>(name, sizeof(Offset) == 4 ? "32-bit row offsets" : "64-bit row offsets", st, alg,
                                   pre, x, y, A.nrows, A.ncols, t0));
  }
  // SELL ALG1: cuSPARSE's sliced ELL, slice 32, rows unsorted, padding column -1, 32-bit offsets.
  {
    const auto t0 = std::chrono::steady_clock::now();
    const auto shape = pspmv::sell_shape(A.row_ptr.data(), A.nrows, 32, 1);
    if (shape.stored > INT32_MAX) {
      out.push_back(cannot_run("cusparse", "SELL_ALG1",
                               "cannot store: " + std::to_string(shape.stored) + " padded entries (padding " +
                                   std::to_string(shape.padding).substr(0, 5) +
                                   ") exceed cuSPARSE's 32-bit slice offsets"));
    } else {
      const auto S = pspmv::csr_to_sell(A, 32, 1);
      auto st = std::make_shared<State>();
      const std::int64_t nsl = S.nslices(), stored = S.stored();
      Kokkos::View<std::int32_t*, Kokkos::HostSpace> off("off", nsl + 1), cols("cols", stored);
      for (std::int64_t s = 0; s <= nsl; ++s) off(s) = static_cast<std::int32_t>(S.slice_ptr(s));
      for (std::int64_t k = 0; k < stored; ++k) cols(k) = -1;
      for (std::int32_t p = 0; p < S.nrows; ++p) {
        const std::int64_t s = p / 32, r = p % 32;
        for (std::int32_t j = 0; j < S.row_len(p); ++j) cols(S.slice_ptr(s) + j * 32 + r) = S.col_idx(S.slice_ptr(s) + j * 32 + r);
      }
      st->sell_offsets = Kokkos::View<std::int32_t*, Kokkos::CudaSpace>("pspmv::cusparse_sell_offsets", nsl + 1);
      st->sell_cols = Kokkos::View<std::int32_t*, Kokkos::CudaSpace>("pspmv::cusparse_sell_cols", stored);
      st->sell_values = Kokkos::View<char*, Kokkos::CudaSpace>("pspmv::cusparse_sell_values", stored * sizeof(Value));
      Kokkos::deep_copy(st->sell_offsets, off);
      Kokkos::deep_copy(st->sell_cols, cols);
      check(cudaMemcpy(st->sell_values.data(), S.values.data(), stored * sizeof(Value), cudaMemcpyHostToDevice),
            "cudaMemcpy(SELL values)");
      check(cusparseCreate(&st->handle), "cusparseCreate");
      check(cusparseSetStream(st->handle, stream), "cusparseSetStream");
      check(cusparseCreateSlicedEll(&st->mat, A.nrows, A.ncols, static_cast<std::int64_t>(A.nnz()), stored, 32,
                                    st->sell_offsets.data(), st->sell_cols.data(), st->sell_values.data(),
                                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt),
            "cusparseCreateSlicedEll");
      out.push_back(make_peer<Value>("SELL_ALG1", "slice 32, unsorted, padding " + std::to_string(shape.padding).substr(0, 5),
                                     st, CUSPARSE_SPMV_SELL_ALG1, false, x, y, A.nrows, A.ncols, t0));
    }
  }
  return out;
}

namespace {

/// Owns the cuSPARSE objects of one SpMM variant; shared by the run closure.
struct MmState {
  cusparseHandle_t handle = nullptr;
  cusparseSpMatDescr_t mat = nullptr;
  cusparseDnMatDescr_t mx = nullptr, my = nullptr;
  void* buffer = nullptr;
  ~MmState() {
    if (buffer) cudaFree(buffer);
    if (mx) cusparseDestroyDnMat(mx);
    if (my) cusparseDestroyDnMat(my);
    if (mat) cusparseDestroySpMat(mat);
    if (handle) cusparseDestroy(handle);
  }
};

}  // namespace

template <class Value, class Offset>
std::vector<Peer> cusparse_spmm_peers(const pspmv::HostCsr<Value, Offset>& A,
                                      const pspmv::CsrMatrix<Value, Offset, std::int32_t, Kokkos::CudaSpace>& dA,
                                      const Kokkos::View<Value**, Kokkos::LayoutRight, Kokkos::CudaSpace>& X,
                                      const Kokkos::View<Value**, Kokkos::LayoutRight, Kokkos::CudaSpace>& Y, int k) {
  std::vector<Peer> out;
  const cudaDataType vt = value_type<Value>();
  const cusparseIndexType_t ot = sizeof(Offset) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
  const cudaStream_t stream = Kokkos::Cuda().cuda_stream();
  for (auto [name, alg, pre] : {std::make_tuple(std::string("SpMM_ALG_DEFAULT"), CUSPARSE_SPMM_ALG_DEFAULT, false),
                                std::make_tuple(std::string("SpMM_CSR_ALG1"), CUSPARSE_SPMM_CSR_ALG1, false),
                                std::make_tuple(std::string("SpMM_CSR_ALG2"), CUSPARSE_SPMM_CSR_ALG2, false),
                                std::make_tuple(std::string("SpMM_CSR_ALG3+preprocess"), CUSPARSE_SPMM_CSR_ALG3, true)}) {
    try {
      const auto t0 = std::chrono::steady_clock::now();
      auto st = std::make_shared<MmState>();
      check(cusparseCreate(&st->handle), "cusparseCreate");
      check(cusparseSetStream(st->handle, stream), "cusparseSetStream");
      check(cusparseCreateCsr(&st->mat, A.nrows, A.ncols, static_cast<std::int64_t>(A.nnz()), dA.row_ptr.data(),
                              dA.col_idx.data(), dA.values.data(), ot, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt),
            "cusparseCreateCsr");
      check(cusparseCreateDnMat(&st->mx, A.ncols, k, k, X.data(), vt, CUSPARSE_ORDER_ROW), "cusparseCreateDnMat(X)");
      check(cusparseCreateDnMat(&st->my, A.nrows, k, k, Y.data(), vt, CUSPARSE_ORDER_ROW), "cusparseCreateDnMat(Y)");
      const Value one = 1, zero = 0;
      const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
      std::size_t bytes = 0;
      check(cusparseSpMM_bufferSize(st->handle, op, op, &one, st->mat, st->mx, &zero, st->my, vt, alg, &bytes),
            "cusparseSpMM_bufferSize");
      if (bytes > 0) check(cudaMalloc(&st->buffer, bytes), "cudaMalloc(buffer)");
      if (pre)
        check(cusparseSpMM_preprocess(st->handle, op, op, &one, st->mat, st->mx, &zero, st->my, vt, alg, st->buffer),
              "cusparseSpMM_preprocess");
      check(cusparseSpMM(st->handle, op, op, &one, st->mat, st->mx, &zero, st->my, vt, alg, st->buffer),
            "cusparseSpMM");
      check(cudaDeviceSynchronize(), "setup");
      Peer r;
      r.impl = "cusparse";
      r.variant = name;
      r.note = std::string(sizeof(Offset) == 4 ? "32-bit" : "64-bit") + " row offsets, row-major X and Y of " +
               std::to_string(k) + " columns";
      r.setup_seconds = seconds_since(t0);
      r.run = [st, alg, vt]() {
        const Value one_ = 1, zero_ = 0;
        const auto op_ = CUSPARSE_OPERATION_NON_TRANSPOSE;
        check(cusparseSpMM(st->handle, op_, op_, &one_, st->mat, st->mx, &zero_, st->my, vt, alg, st->buffer),
              "cusparseSpMM");
      };
      out.push_back(std::move(r));
    } catch (const pspmv::Error& e) {
      out.push_back(cannot_run("cusparse", name, std::string("cannot run: ") + e.what()));
    }
  }
  return out;
}

#elif defined(KOKKOS_ENABLE_CUDA)
template <class Value, class Offset>
std::vector<Peer> cusparse_spmm_peers(const pspmv::HostCsr<Value, Offset>&,
                                      const pspmv::CsrMatrix<Value, Offset, std::int32_t, Kokkos::CudaSpace>&,
                                      const Kokkos::View<Value**, Kokkos::LayoutRight, Kokkos::CudaSpace>&,
                                      const Kokkos::View<Value**, Kokkos::LayoutRight, Kokkos::CudaSpace>&, int) {
  return {cannot_run("cusparse", "SpMM_ALG_DEFAULT", "absent: cuSPARSE was not found at configure time")};
}
template <class Value, class Offset>
std::vector<Peer> cusparse_peers(const pspmv::HostCsr<Value, Offset>&,
                                 const pspmv::CsrMatrix<Value, Offset, std::int32_t, Kokkos::CudaSpace>&,
                                 const Kokkos::View<const Value*, Kokkos::CudaSpace>&,
                                 const Kokkos::View<Value*, Kokkos::CudaSpace>&) {
  return {cannot_run("cusparse", "CSR_ALG1", "absent: cuSPARSE was not found at configure time")};
}
#endif

#if defined(KOKKOS_ENABLE_CUDA)
#define PSPMV_CUSPARSE_INST(V, O)                                                                   \
  template std::vector<Peer> cusparse_peers<V, O>(                                                  \
      const pspmv::HostCsr<V, O>&, const pspmv::CsrMatrix<V, O, std::int32_t, Kokkos::CudaSpace>&, \
      const Kokkos::View<const V*, Kokkos::CudaSpace>&, const Kokkos::View<V*, Kokkos::CudaSpace>&);  \
  template std::vector<Peer> cusparse_spmm_peers<V, O>(                                             \
      const pspmv::HostCsr<V, O>&, const pspmv::CsrMatrix<V, O, std::int32_t, Kokkos::CudaSpace>&, \
      const Kokkos::View<V**, Kokkos::LayoutRight, Kokkos::CudaSpace>&,                             \
      const Kokkos::View<V**, Kokkos::LayoutRight, Kokkos::CudaSpace>&, int);
PSPMV_PEER_TYPES(PSPMV_CUSPARSE_INST)
#endif

}  // namespace pspmv_peers
