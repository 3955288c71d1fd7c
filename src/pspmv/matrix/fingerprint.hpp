#pragma once
/// @file fingerprint.hpp
/// A 64-bit content fingerprint of a host CSR matrix, so that a plan can tell whether the
/// matrix it was built from has changed (Plan::matches()).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "pspmv/matrix/csr.hpp"

namespace pspmv {

namespace detail {
/// 64-bit hash of `bytes` bytes: FNV-style over 8-byte words, (h ^ w) * odd constant, in four
/// independent lanes (word i of each whole 32-byte group goes to lane i % 4, the words and bytes
/// after the last group to lane 0), so that every step is a bijection of its lane and any single
/// changed word changes the result. One lane is a chain of dependent multiplies: on one core of
/// the 2-core EPYC (a standalone loop over 268 MB, g++ 12 -O3 -march=x86-64-v4) four lanes hashed
/// 3.6x the bytes per second of one; the Xeon host's fingerprint phase: perf/results/h200.md.
inline std::uint64_t hash_bytes(const void* data, std::size_t bytes, std::uint64_t h) {
  constexpr std::uint64_t k = 0x9E3779B97F4A7C15ull;
  const unsigned char* p = static_cast<const unsigned char*>(data);
  std::uint64_t lane[4] = {h, h ^ 0x632BE59BD9B4E019ull, h ^ 0x8CB92BA72F3D8DD7ull, h ^ 0xE7037ED1A0B428DBull};
  std::size_t i = 0;
  for (; i + 32 <= bytes; i += 32) {
    std::uint64_t w[4];
    std::memcpy(w, p + i, 32);
    for (int l = 0; l < 4; ++l) lane[l] = (lane[l] ^ w[l]) * k;
  }
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    lane[0] = (lane[0] ^ w) * k;
  }
  for (; i < bytes; ++i) lane[0] = (lane[0] ^ p[i]) * 0x100000001B3ull;
  // In lane order, each step a bijection of its running value (the finalizer below).
  std::uint64_t r = lane[0];
  for (int l = 1; l < 4; ++l) r = ((r ^ (r >> 31)) * k) ^ lane[l];
  return r;
}
/// splitmix64's finalizer: spreads every input bit over the result.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/// Bytes of a piece of an array that the fingerprint hashes on its own: pieces are hashed in
/// parallel and combined in order (the result does not depend on the thread count). A staged
/// upload (detail::Stager) fills its pinned buffers in pieces of the same size, and hashes
/// them there as it goes.
constexpr std::size_t fingerprint_piece = std::size_t{1} << 20;
/// The hash of piece b of an array (its bytes at b * fingerprint_piece, `len` of them).
inline std::uint64_t hash_piece(const void* piece, std::size_t len, std::size_t b) {
  return hash_bytes(piece, len, 0xCBF29CE484222325ull + b);
}
/// An array's hash from its pieces' hashes, in order, after the hash `seed` of what came before.
inline std::uint64_t combine_pieces(std::uint64_t seed, std::size_t bytes, const std::vector<std::uint64_t>& pieces) {
  std::uint64_t r = mix64(seed ^ bytes);
  for (const std::uint64_t x : pieces) r = mix64(r ^ x);
  return r;
}
/// The hashes of the pieces of `bytes` bytes at `data`, in parallel on the default host space.
inline std::vector<std::uint64_t> piece_hashes(const void* data, std::size_t bytes) {
  const std::size_t pieces = (bytes + fingerprint_piece - 1) / fingerprint_piece;
  std::vector<std::uint64_t> h(pieces);
  const unsigned char* p = static_cast<const unsigned char*>(data);
  Kokkos::parallel_for(
      "pspmv::fingerprint", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, pieces),
      [&](const std::size_t b) {
        const std::size_t begin = b * fingerprint_piece;
        h[b] = hash_piece(p + begin, std::min(fingerprint_piece, bytes - begin), b);
      });
  Kokkos::DefaultHostExecutionSpace().fence();  // the host only: no wait on device work
  return h;
}
/// The hash of an array after `seed`.
inline std::uint64_t hash_array(const void* data, std::size_t bytes, std::uint64_t seed) {
  return combine_pieces(seed, bytes, piece_hashes(data, bytes));
}
/// The fingerprint's hash of a matrix's dimensions, before its arrays.
inline std::uint64_t dimensions_hash(std::int64_t nrows, std::int64_t ncols) {
  return mix64((static_cast<std::uint64_t>(static_cast<std::uint32_t>(nrows)) << 32) ^
               static_cast<std::uint32_t>(ncols));
}
}  // namespace detail

/// Content fingerprint of a host CSR matrix: a 64-bit hash of its dimensions and of the
/// bytes of row_ptr, col_idx and values (equal matrices, equal fingerprints; a changed
/// entry, index or dimension changes it except with probability about 2^-64). Parallel
/// over the host execution space; one pass over the arrays. A GPU plan of a host CSR computes
/// the same value while it uploads the arrays (detail::upload), in that pass.
template <class Value, class Offset, class Ordinal>
std::uint64_t fingerprint(const CsrMatrix<Value, Offset, Ordinal, Kokkos::HostSpace>& A) {
  std::uint64_t h = detail::dimensions_hash(A.nrows, A.ncols);
  h = detail::hash_array(A.row_ptr.data(), A.row_ptr.extent(0) * sizeof(Offset), h);
  h = detail::hash_array(A.col_idx.data(), A.col_idx.extent(0) * sizeof(Ordinal), h);
  return detail::hash_array(A.values.data(), A.values.extent(0) * sizeof(Value), h);
}

}  // namespace pspmv
