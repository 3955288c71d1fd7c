#pragma once
/// @file fingerprint.hpp
/// A 64-bit content fingerprint of a host CSR matrix, so that a plan can tell whether the
/// matrix it was built from has changed (Plan::matches()).

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

#include "pspmv/matrix/csr.hpp"

namespace pspmv {

namespace detail {
/// 64-bit hash of `bytes` bytes: FNV-style over 8-byte words, (h ^ w) * odd constant, so
/// that every step is a bijection of h and any single changed word changes the result.
inline std::uint64_t hash_bytes(const void* data, std::size_t bytes, std::uint64_t h) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
  }
  for (; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  return h;
}
/// splitmix64's finalizer: spreads every input bit over the result.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/// hash_bytes in parallel over 4 MiB pieces on the default host space, combined in order
/// (the result does not depend on the thread count).
inline std::uint64_t hash_array(const void* data, std::size_t bytes, std::uint64_t seed) {
  constexpr std::size_t piece = std::size_t{1} << 22;
  const std::size_t pieces = (bytes + piece - 1) / piece;
  std::vector<std::uint64_t> h(pieces);
  const unsigned char* p = static_cast<const unsigned char*>(data);
  Kokkos::parallel_for(
      "pspmv::fingerprint", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, pieces),
      [&](const std::size_t b) {
        const std::size_t begin = b * piece, len = std::min(piece, bytes - begin);
        h[b] = hash_bytes(p + begin, len, 0xCBF29CE484222325ull + b);
      });
  Kokkos::DefaultHostExecutionSpace().fence();  // the host only: no wait on device work
  std::uint64_t r = mix64(seed ^ bytes);
  for (const std::uint64_t x : h) r = mix64(r ^ x);
  return r;
}
}  // namespace detail

/// Content fingerprint of a host CSR matrix: a 64-bit hash of its dimensions and of the
/// bytes of row_ptr, col_idx and values (equal matrices, equal fingerprints; a changed
/// entry, index or dimension changes it except with probability about 2^-64). Parallel
/// over the host execution space; one pass over the arrays.
template <class Value, class Offset, class Ordinal>
std::uint64_t fingerprint(const CsrMatrix<Value, Offset, Ordinal, Kokkos::HostSpace>& A) {
  std::uint64_t h = detail::mix64((static_cast<std::uint64_t>(static_cast<std::uint32_t>(A.nrows)) << 32) ^
                                  static_cast<std::uint32_t>(A.ncols));
  h = detail::hash_array(A.row_ptr.data(), A.row_ptr.extent(0) * sizeof(Offset), h);
  h = detail::hash_array(A.col_idx.data(), A.col_idx.extent(0) * sizeof(Ordinal), h);
  return detail::hash_array(A.values.data(), A.values.extent(0) * sizeof(Value), h);
}

}  // namespace pspmv
