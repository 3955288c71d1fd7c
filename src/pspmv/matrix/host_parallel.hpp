#pragma once
/// @file host_parallel.hpp
/// The host-side parallel patterns of analyze(): a range cut into pieces of a fixed size
/// (the cut does not depend on the thread count), each piece handled by one thread, the
/// pieces' results combined in order. What is combined is integers (exact in any order) or
/// sums kept per piece and added in piece order, so results are the same for any thread count.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "pspmv/errors.hpp"

namespace pspmv {
namespace detail {

/// The host execution space of analyze()'s host-side work.
using HostExec = Kokkos::DefaultHostExecutionSpace;

/// Rows per piece of analyze()'s host loops.
constexpr std::int64_t host_piece = std::int64_t{1} << 16;

/// Bytes from which a host array of analyze() asks for huge pages (advise_huge_pages).
constexpr std::size_t huge_page_min_bytes = std::size_t{8} << 20;

/// Whether advise_huge_pages() advises: the environment variable PSPMV_HUGE_PAGES unset, "on" or
/// "1": yes; "off" or "0": no (the arrays stay on the pages the kernel's mode gives unadvised
/// memory: 4 KiB where it is "madvise"; for measuring what the pages change). Read once.
/// @throws InvalidArgument naming the variable for any other value.
inline bool huge_pages_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("PSPMV_HUGE_PAGES");
    if (v == nullptr) return true;
    const std::string s = v;
    if (s == "on" || s == "1") return true;
    if (s == "off" || s == "0") return false;
    throw InvalidArgument("environment variable PSPMV_HUGE_PAGES is '" + s + "': expected on, off, 1 or 0");
  }();
  return on;
}

/// Bytes of a transparent huge page: 2 MiB on x86-64 and on arm64 with 4 KiB pages.
constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

/// Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes) with transparent huge
/// pages (Linux madvise(MADV_HUGEPAGE), which takes effect where THP is "madvise" or
/// "always"), for arrays of at least huge_page_min_bytes, before anything touches them. The
/// first touch of a fresh array otherwise faults once per 4 KiB page, and in a virtual machine
/// a fault costs microseconds: on the H200 machine's host the SELL order and conversion paid
/// for it (perf/results/h200.md, "Analysis in multiplies"). 2 MiB is the huge page of x86-64 and
/// of arm64 with 4 KiB pages; elsewhere, or where the kernel declines, nothing changes (the
/// advice is only advice: no error). It changes only memory not touched yet: a fresh mapping,
/// not glibc heap memory that an earlier array used (docs/design.md). With `whole`, the
/// pages that hold the range's two ends are advised too (for a caller that owns them
/// entirely: host_array). The analysis's arrays, a SELL plan's matrix, a CSR plan's copy and the
/// matrices the readers, generators and conversions return are allocated that way (host_array),
/// so that a plan sharing such a matrix reads it on the same pages as its own.
inline void advise_huge_pages(void* p, std::size_t bytes, bool whole = false) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = huge_page_bytes;
  if (p == nullptr || bytes < huge_page_min_bytes || !huge_pages_enabled()) return;
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t b = whole ? a & ~(huge - 1) : (a + huge - 1) & ~(huge - 1);
  const std::uintptr_t e = whole ? (a + bytes + huge - 1) & ~(huge - 1) : (a + bytes) & ~(huge - 1);
  if (e > b) (void)madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);
#else
  (void)p, (void)bytes, (void)whole;
#endif
}

/// A host array of n entries, not initialized, huge pages advised (advise_huge_pages). One of
/// huge_page_min_bytes or more, of entries whose size divides 2 MiB, starts on a 2 MiB boundary
/// of an allocation 4 MiB longer, and every page it touches is advised, its two ends too (an
/// allocation as it comes is aligned to a few bytes: up to 2 MiB at each end would lie on 4 KiB
/// pages, each faulted alone by the first or the last thread of the pass that writes it;
/// perf/probes/first_touch.cpp). The 4 MiB beyond cost address space, and up to 2 MiB of
/// memory where the last huge page runs past the array's end. Other arrays, and every array
/// where the advice is off or cannot be given, are allocations as they come.
template <class T>
Kokkos::View<T*, Kokkos::HostSpace> host_array(const std::string& label, std::int64_t n) {
  using V = Kokkos::View<T*, Kokkos::HostSpace>;
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= huge_page_min_bytes && huge_page_bytes % sizeof(T) == 0 && huge_pages_enabled()) {
    const std::size_t extra = 2 * huge_page_bytes / sizeof(T);
    const V whole(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), static_cast<std::size_t>(n) + extra);
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(whole.data());
    const std::uintptr_t aligned = (a + huge_page_bytes - 1) & ~(std::uintptr_t{huge_page_bytes} - 1);
    if ((aligned - a) % sizeof(T) == 0) {  // always, for Kokkos' alignment of 64 bytes or more
      const std::size_t first = static_cast<std::size_t>((aligned - a) / sizeof(T));
      const V v = Kokkos::subview(whole, std::make_pair(first, first + static_cast<std::size_t>(n)));
      advise_huge_pages(v.data(), bytes, true);
      return v;
    }
  }
#endif
  V v(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), static_cast<std::size_t>(n));
  advise_huge_pages(v.data(), bytes);
  return v;
}

/// Pieces of [0, n) with `piece` items each (the last one shorter).
inline std::int64_t pieces_of(std::int64_t n, std::int64_t piece = host_piece) {
  return n > 0 ? (n + piece - 1) / piece : 0;
}

/// Calls f(b, begin, end) for every piece b of [0, n), in parallel on the host; returns when
/// all are done (a host fence only: no wait on device work).
template <class F>
void for_pieces(const char* label, std::int64_t n, std::int64_t piece, const F& f) {
  const std::int64_t np = pieces_of(n, piece);
  if (np == 0) return;
  Kokkos::parallel_for(label, Kokkos::RangePolicy<HostExec>(0, np),
                       [&](const std::int64_t b) { f(b, b * piece, std::min(n, (b + 1) * piece)); });
  HostExec().fence();
}

/// to[k] = from[k] for k < n, in pieces on the host threads (each page of `to` first touched by
/// the thread that copies it).
template <class T>
void parallel_copy(const char* label, const T* from, std::int64_t n, T* to) {
  for_pieces(label, n, host_piece, [&](std::int64_t, std::int64_t b, std::int64_t e) {
    for (std::int64_t k = b; k < e; ++k) to[k] = from[k];
  });
}

/// Calls f(i) for every i in [0, n), in parallel on the host; returns when done.
template <class F>
void for_each_index(const char* label, std::int64_t n, const F& f) {
  if (n <= 0) return;
  Kokkos::parallel_for(label, Kokkos::RangePolicy<HostExec>(0, n), [&](const std::int64_t i) { f(i); });
  HostExec().fence();
}

/// The first i in [0, n) with bad(i), or n if none; in parallel over pieces.
template <class Pred>
std::int64_t first_index(const char* label, std::int64_t n, const Pred& bad) {
  std::vector<std::int64_t> first(static_cast<std::size_t>(pieces_of(n)), n);
  for_pieces(label, n, host_piece, [&](std::int64_t b, std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i)
      if (bad(i)) {
        first[b] = i;
        return;
      }
  });
  for (const std::int64_t f : first)
    if (f < n) return f;
  return n;
}

/// Exclusive prefix sum of count(i) over [0, n): out[i] = sum of count(j) for j < i, out[n] =
/// the total (out has n + 1 entries). Two parallel passes over pieces; integers, so exact.
template <class T, class Count>
T exclusive_scan(const char* label, std::int64_t n, const Count& count, T* out) {
  const std::int64_t np = pieces_of(n);
  std::vector<T> piece_sum(static_cast<std::size_t>(np) + 1, T(0));
  for_pieces(label, n, host_piece, [&](std::int64_t b, std::int64_t begin, std::int64_t end) {
    T s = 0;
    for (std::int64_t i = begin; i < end; ++i) s += count(i);
    piece_sum[b + 1] = s;
  });
  for (std::int64_t b = 0; b < np; ++b) piece_sum[b + 1] += piece_sum[b];
  for_pieces(label, n, host_piece, [&](std::int64_t b, std::int64_t begin, std::int64_t end) {
    T s = piece_sum[b];
    for (std::int64_t i = begin; i < end; ++i) {
      out[i] = s;
      s += count(i);
    }
  });
  out[n] = piece_sum[np];
  return piece_sum[np];
}

}  // namespace detail
}  // namespace pspmv
