#pragma once
/// @file host_parallel.hpp
/// The host-side parallel patterns of analyze(): a range cut into pieces of a fixed size
/// (the cut does not depend on the thread count), each piece handled by one thread, the
/// pieces' results combined in order. What is combined is integers (exact in any order) or
/// sums kept per piece and added in piece order, so results are the same for any thread count.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace pspmv {
namespace detail {

/// The host execution space of analyze()'s host-side work.
using HostExec = Kokkos::DefaultHostExecutionSpace;

/// Rows per piece of analyze()'s host loops.
constexpr std::int64_t host_piece = std::int64_t{1} << 16;

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

/// Calls f(i) for every i in [0, n), in parallel on the host; returns when done.
template <class F>
void for_each_index(const char* label, std::int64_t n, const F& f) {
  if (n <= 0) return;
  Kokkos::parallel_for(label, Kokkos::RangePolicy<HostExec>(0, n), [&](const std::int64_t i) { f(i); });
  HostExec().fence();
}

/// dst(i) = src(i) for every entry (views of one extent).
template <class Dst, class Src>
struct CopyEntries {
  Dst dst;
  Src src;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { dst(i) = src(i); }
};

/// Copies src into dst (one extent), ordered on `space`. On a host execution space that
/// reaches both, its threads copy in parallel, so that they also first-touch the destination's
/// pages, as the multiply's threads will (Kokkos 3.4's deep_copy between host views ran a
/// 784 MiB CSR at 18 GB/s on the H200 machine's 16-core host). Elsewhere Kokkos::deep_copy.
template <class ExecSpace, class Dst, class Src>
void copy_view(const ExecSpace& space, const Dst& dst, const Src& src) {
  constexpr bool host = std::is_same<typename ExecSpace::memory_space, Kokkos::HostSpace>::value &&
                        Kokkos::SpaceAccessibility<ExecSpace, typename Dst::memory_space>::accessible &&
                        Kokkos::SpaceAccessibility<ExecSpace, typename Src::memory_space>::accessible;
  if constexpr (host) {
    Kokkos::parallel_for("pspmv::copy", Kokkos::RangePolicy<ExecSpace>(space, 0, static_cast<std::int64_t>(dst.extent(0))),
                         CopyEntries<Dst, Src>{dst, src});
  } else {
    Kokkos::deep_copy(space, dst, src);
  }
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
