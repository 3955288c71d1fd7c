// The fingerprint's hash of a 1 MiB piece (pspmv/matrix/fingerprint.hpp) against the memory's
// read rate: XXH3-64 (Debian's libxxhash, what the fingerprint uses) and, for comparison, an
// FNV-style hash of four chains of dependent multiplies, h = (h ^ word) * odd constant, each
// over the pieces of one array in parallel, beside a plain parallel read of the same bytes
// (a sum of its 64-bit words) that bounds them: whether the hash keeps up with the memory on
// this machine. Built on request (target pspmv_probe_fingerprint_hash, not in `all`), or alone:
//   g++ -O3 -march=native -fopenmp perf/probes/fingerprint_hash.cpp -o /tmp/fingerprint_hash
//   (the folder of xxhash.h added with -I where it is not in /usr/include)
//   OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=threads /tmp/fingerprint_hash [MIB]
// An array of MIB MiB (default 256), first touched by the threads that read it; 3 untimed
// rounds, then 21 rounds of the three in turn (the first one rotating); the medians in GB/s and
// each hash's rate over the read's.
#define XXH_INLINE_ALL
#include <xxhash.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

namespace {

constexpr std::size_t piece = std::size_t{1} << 20;

std::uint64_t chains(const unsigned char* p, std::size_t bytes, std::uint64_t h) {
  constexpr std::uint64_t k = 0x9E3779B97F4A7C15ull;
  std::uint64_t lane[4] = {h, h ^ 0x632BE59BD9B4E019ull, h ^ 0x8CB92BA72F3D8DD7ull, h ^ 0xE7037ED1A0B428DBull};
  for (std::size_t i = 0; i + 32 <= bytes; i += 32) {
    std::uint64_t w[4];
    std::memcpy(w, p + i, 32);
    for (int l = 0; l < 4; ++l) lane[l] = (lane[l] ^ w[l]) * k;
  }
  return lane[0] ^ lane[1] ^ lane[2] ^ lane[3];
}

std::uint64_t read(const unsigned char* p, std::size_t bytes, std::uint64_t) {
  std::uint64_t s = 0;
  for (std::size_t i = 0; i + 8 <= bytes; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    s += w;
  }
  return s;
}

std::uint64_t xxh3(const unsigned char* p, std::size_t bytes, std::uint64_t seed) {
  return XXH3_64bits_withSeed(p, bytes, seed);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256;
  if (mib == 0) {
    std::fprintf(stderr, "fingerprint_hash: MIB must be a positive number of MiB, got '%s'\n", argv[1]);
    return 2;
  }
  const std::size_t bytes = mib * piece, pieces = mib;
  unsigned char* a = static_cast<unsigned char*>(std::malloc(bytes));
  if (!a) {
    std::fprintf(stderr, "fingerprint_hash: cannot allocate %zu MiB\n", mib);
    return 1;
  }
#pragma omp parallel for schedule(static)
  for (std::size_t b = 0; b < pieces; ++b)
    for (std::size_t i = 0; i < piece; ++i) a[b * piece + i] = static_cast<unsigned char>((b * 131 + i * 7) ^ (i >> 9));
  using Fn = std::uint64_t (*)(const unsigned char*, std::size_t, std::uint64_t);
  const Fn fns[3] = {xxh3, chains, read};
  const char* names[3] = {"XXH3-64", "four multiply chains", "plain read"};
  std::vector<std::uint64_t> out(pieces);
  std::vector<double> t[3];
  std::uint64_t keep = 0;
  for (int round = 0; round < 24; ++round)
    for (int j = 0; j < 3; ++j) {
      const int f = (round + j) % 3;
      const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
      for (std::size_t b = 0; b < pieces; ++b) out[b] = fns[f](a + b * piece, piece, b);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      for (const std::uint64_t x : out) keep += x;
      if (round >= 3) t[f].push_back(s);
    }
  double med[3];
  for (int f = 0; f < 3; ++f) {
    std::sort(t[f].begin(), t[f].end());
    med[f] = t[f][t[f].size() / 2];
  }
  std::printf("%zu MiB, %d threads, 21 rounds (medians; min-max in brackets); check %016llx\n", mib,
              omp_get_max_threads(), static_cast<unsigned long long>(keep));
  for (int f = 0; f < 3; ++f)
    std::printf("%-22s %7.1f GB/s  [%.1f-%.1f]  rate / read's %.2f\n", names[f], bytes / med[f] / 1e9,
                bytes / t[f].back() / 1e9, bytes / t[f].front() / 1e9, med[2] / med[f]);
  std::free(a);
  return 0;
}
