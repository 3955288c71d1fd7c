#pragma once
/// @file fingerprint.hpp
/// A 64-bit content fingerprint of a host CSR matrix, so that a plan can tell whether the
/// matrix it was built from has changed (Plan::matches()).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "pspmv/matrix/csr.hpp"

/// XXH3-64 of `bytes` bytes at `data` with `seed` (src/fingerprint_hash.c: Debian's libxxhash,
/// compiled into the library). perf/probes/fingerprint_hash.cpp compares it with an FNV-style
/// hash of four multiply chains and with a plain read (perf/results/cpu-2core-xeon.md).
extern "C" std::uint64_t pspmv_hash_piece(const void* data, std::size_t bytes, std::uint64_t seed);

namespace pspmv {

namespace detail {
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
  return pspmv_hash_piece(piece, len, 0xCBF29CE484222325ull + b);
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
