/* The hash of one piece of an array for the fingerprint (pspmv/matrix/fingerprint.hpp):
 * XXH3-64 of Debian's libxxhash-dev, compiled inline here, so that no installed header and no
 * C++ source needs xxhash.h and no xxhash library is linked or installed. */
#include <stddef.h>
#include <stdint.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t pspmv_hash_piece(const void* data, size_t bytes, uint64_t seed) {
  return (uint64_t)XXH3_64bits_withSeed(data, bytes, (XXH64_hash_t)seed);
}
