#pragma once
// The one shape of every peer library the tool measures pspmv against: a prepared y = A x.
// peers/registry.hpp lists them all; each peers/*.cpp prepares one library's variants.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace pspmv_peers {

/// One peer variant, prepared: `run` computes y = A x (y overwritten) on the arrays it was
/// prepared with. An empty `run` means the variant cannot run here: then `note` says why, and
/// starts with "absent:" when the library was not compiled in (such a peer is left out of the
/// records; any other is recorded as skipped).
struct Peer {
  std::string impl;     ///< "openmp-plain", "eigen", "librsb", "mkl", "kokkos-kernels", "cusparse"
  std::string variant;  ///< e.g. "omp_static", "CSR_ALG2+preprocess"
  /// The variant of the same impl that is this one's call without its analysis stage (e.g.
  /// librsb untuned, MKL without mkl_sparse_optimize, cuSPARSE CSR_ALG1), for the break-even
  /// number of calls; empty when this variant has no analysis stage or is that call itself.
  std::string unplanned;
  std::string note;           ///< what was prepared (library version, threads...), or why it cannot run
  double setup_seconds = 0;   ///< the peer's own preparation: conversion, tuning, preprocessing
  std::function<void()> run;  ///< y = A x; empty when the variant cannot run
};

/// A peer variant that cannot run here, with the reason.
inline Peer cannot_run(std::string impl, std::string variant, std::string note) {
  Peer p;
  p.impl = std::move(impl);
  p.variant = std::move(variant);
  p.note = std::move(note);
  return p;
}

/// Moves the entries of `more` to the end of `out`.
inline void append(std::vector<Peer>& out, std::vector<Peer> more) {
  for (auto& p : more) out.push_back(std::move(p));
}

/// Seconds from t0 to now (setup_seconds).
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The host CSR arrays a host peer computes with.
template <class Value, class Offset>
struct HostCsrView {
  std::int32_t nrows = 0, ncols = 0;
  std::int64_t nnz = 0;
  const Offset* row_ptr = nullptr;
  const std::int32_t* col_idx = nullptr;
  const Value* values = nullptr;
};

/// Instantiates MACRO(Value, Offset) for the four precisions and offset widths of the tool.
#define PSPMV_PEER_TYPES(MACRO) \
  MACRO(double, std::int32_t)   \
  MACRO(double, std::int64_t)   \
  MACRO(float, std::int32_t)    \
  MACRO(float, std::int64_t)

}  // namespace pspmv_peers
