#pragma once
/// @file sell_build.hpp
/// CSR -> SELL-C-sigma in the memory of an execution space, from a CSR matrix already there
/// (on a GPU: from the device copy of the matrix, copied once), written once as Kokkos
/// parallel patterns: scans place the long rows and their pieces, a team per sigma window
/// sorts its positions by length (stably; sell_order_on), vector lanes reduce each slice's width,
/// a scan gives the slice offsets and a thread per position moves its row and its padding into
/// the slice. The result is csr_to_sell()'s, bit for bit (tests/test_parallel_analysis.cpp).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

#include "pspmv/errors.hpp"
#include "pspmv/matrix/csr.hpp"
#include "pspmv/matrix/host_parallel.hpp"
#include "pspmv/matrix/sell.hpp"

namespace pspmv {

/// The widest sorting window that sell_order_on() sorts in a team's scratch memory (8 bytes
/// per row; a rank costs sigma comparisons per row); wider windows are sorted on the host.
constexpr std::int64_t sell_team_sort_max_sigma = 4096;
/// The widest span of lengths (from the shortest up) a team's window is sorted by counting in:
/// two counts per length in scratch memory; positions longer than that are ranked.
constexpr std::int64_t sell_team_count_max = 1024;
/// The widest window sorted by counting: its keys and counts take 24 KiB of a team's scratch
/// memory, which leaves room for the launch's own on a GPU of 48 KiB per block (a T4 or a V100
/// runs teams of 1,024 threads); wider windows are ranked whole.
constexpr std::int64_t sell_team_count_max_sigma = 2048;
/// Entries of a row that csr_to_sell_on()'s scatter loads into registers before it stores them:
/// a GPU thread's loads in flight.
constexpr int sell_scatter_run = 8;
/// Threads of a GPU block in which csr_to_sell_on() reduces slice widths, a slice to each team
/// thread's vector lanes (C lanes, at most a warp).
constexpr int sell_width_block = 256;


/// The sorted order of SELL-C-sigma's positions (SellRows and the permutation of
/// detail::sell_order), computed in the memory of an execution space from a CSR there, so that a
/// plan of a matrix already in device memory needs no host pass for its shape or its order.
template <class Mem>
struct SellOrderOn {
  Kokkos::View<std::int32_t*, Mem> len;          ///< npos: entries of each position (-1: a long row)
  Kokkos::View<std::int32_t*, Mem> long_rows;    ///< the long rows, increasing
  Kokkos::View<std::int64_t*, Mem> piece_begin;  ///< npieces: first entry of each piece in the CSR arrays
  Kokkos::View<std::int64_t*, Mem> piece_ptr;    ///< split: nlong + 1 offsets into the pieces
  Kokkos::View<std::int32_t*, Mem> perm;         ///< npos: position held at sorted place p
  std::int64_t nrows = 0, nlong = 0, npieces = 0;
  std::int64_t sigma = 0, long_row_threshold = 0;
  bool split = false;  ///< long rows split into pieces (only with a threshold > 0)
  std::int64_t npos() const { return nrows + npieces; }
  /// Whether this order is the one of these parameters (split as the plan states it).
  bool is(std::int64_t sigma_, std::int64_t threshold, bool split_) const {
    return sigma > 0 && sigma == sigma_ && long_row_threshold == threshold && split == (split_ && threshold > 0);
  }
};

/// The positions of A (validated CSR in ExecSpace's memory) and their order, computed there:
/// scans place the long rows and their pieces, and a team per sigma window sorts its positions
/// by length, stably: a window already in order is kept as it is; in a window of at most
/// sell_team_count_max_sigma rows the positions within sell_team_count_max lengths of the
/// shortest are sorted by counting and the longer ones, if any, ranked (rank = longer positions
/// + equal ones before); wider windows are ranked whole. `host_perm`, when given, is that order
/// computed on the host: it is copied instead. Equal to detail::sell_order's, bit for bit.
/// @throws InvalidArgument as csr_to_sell().
template <class ExecSpace, class Value, class Offset, class Mem>
SellOrderOn<Mem> sell_order_on(const ExecSpace& space, const CsrMatrix<Value, Offset, std::int32_t, Mem>& A,
                               std::int64_t sigma, std::int64_t long_row_threshold, bool split,
                               const Kokkos::View<std::int32_t*, Kokkos::HostSpace>* host_perm = nullptr) {
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  using I32 = Kokkos::View<std::int32_t*, Mem>;
  using I64 = Kokkos::View<std::int64_t*, Mem>;
  const auto uninit = [](const char* label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)); };
  if (sigma < 1) throw InvalidArgument("SELL sorting window sigma must be >= 1, got " + std::to_string(sigma));
  const std::int64_t T = long_row_threshold;
  split = split && T > 0;
  const std::int64_t n = A.nrows;
  const auto rp = A.row_ptr;

  // The long rows (none where the threshold is 0), counted in the low 31 bits, and the rows too
  // long for a slice above them (fewer than 2^32: each holds 2^31 entries or more); the first of
  // those is searched only where there is one.
  std::int64_t counts = 0, too_long = n;
  constexpr std::int64_t too_long_unit = std::int64_t{1} << 31;
  Kokkos::parallel_reduce(
      "pspmv::sell_build_check", Range(space, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& c) {
        const std::int64_t len = static_cast<std::int64_t>(rp(i + 1) - rp(i));
        c += T > 0 && len > T ? 1 : (len > INT32_MAX ? (std::int64_t{1} << 31) : 0);  // too_long_unit
      },
      counts);
  const std::int64_t nlong = counts & (too_long_unit - 1);
  if (counts >= too_long_unit)
    Kokkos::parallel_reduce(
        "pspmv::sell_build_too_long", Range(space, 0, n),
        KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& first) {
          const std::int64_t len = static_cast<std::int64_t>(rp(i + 1) - rp(i));
          if (!(T > 0 && len > T) && len > INT32_MAX && i < first) first = i;
        },
        Kokkos::Min<std::int64_t>(too_long));
  space.fence();
  if (too_long < n) {
    const std::int64_t len = detail::read_back(space, rp, too_long + 1) - detail::read_back(space, rp, too_long);
    throw InvalidArgument("SELL: row " + std::to_string(too_long) + " holds " + std::to_string(len) +
                          " entries, beyond a slice's 32-bit row length; set sell_long_row (rows beyond it "
                          "leave the slices)");
  }
  // Positions: how many long rows and pieces come before each row (exclusive scans), read only
  // at long rows: not computed where there are none.
  I64 long_before, piece_before;
  if (nlong > 0) {
    long_before = I64(uninit("pspmv::sell_long_before"), n + 1);
    piece_before = I64(uninit("pspmv::sell_piece_before"), n + 1);
    Kokkos::parallel_scan(
        "pspmv::sell_build_count", Range(space, 0, n),
        KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& acc, const bool final) {
          const std::int64_t len = static_cast<std::int64_t>(rp(i + 1) - rp(i));
          const bool is_long = T > 0 && len > T;
          if (final) long_before(i) = acc;
          acc += is_long ? 1 : 0;
          if (final && i == n - 1) long_before(n) = acc;
        });
    Kokkos::parallel_scan(
        "pspmv::sell_build_count_pieces", Range(space, 0, n),
        KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& acc, const bool final) {
          const std::int64_t len = static_cast<std::int64_t>(rp(i + 1) - rp(i));
          const bool is_long = T > 0 && len > T;
          if (final) piece_before(i) = acc;
          acc += is_long && split ? (len + T - 1) / T : 0;
          if (final && i == n - 1) piece_before(n) = acc;
        });
  }
  SellOrderOn<Mem> o;
  o.nrows = n;
  o.sigma = sigma;
  o.long_row_threshold = T;
  o.split = split;
  o.nlong = nlong;
  o.npieces = nlong > 0 ? detail::read_back(space, piece_before, n) : 0;
  if (n + o.npieces > INT32_MAX)
    throw InvalidArgument("SELL: " + std::to_string(n) + " rows plus " + std::to_string(o.npieces) +
                          " pieces of split long rows exceed 2^31 - 1 positions; raise sell_long_row or "
                          "set sell_long_split = false");
  const std::int64_t npos = o.npos();
  const I32 len(uninit("pspmv::sell_rows_len"), npos), long_rows(uninit("pspmv::sell_long_rows"), nlong);
  const I64 piece_begin(uninit("pspmv::sell_piece_begin"), o.npieces);
  const I64 piece_ptr = split ? I64("pspmv::sell_piece_ptr", nlong + 1) : I64();  // zero: piece_ptr(0)
  Kokkos::parallel_for(
      "pspmv::sell_build_rows", Range(space, 0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        const std::int64_t l = static_cast<std::int64_t>(rp(i + 1) - rp(i));
        if (!(T > 0 && l > T)) {
          len(i) = static_cast<std::int32_t>(l);
          return;
        }
        len(i) = -1;
        const std::int64_t li = long_before(i);
        long_rows(li) = static_cast<std::int32_t>(i);
        if (!split) return;
        std::int64_t q = piece_before(i);
        for (std::int64_t k = 0; k < l; k += T, ++q) {
          piece_begin(q) = static_cast<std::int64_t>(rp(i)) + k;
          len(n + q) = static_cast<std::int32_t>(l - k < T ? l - k : T);
        }
        piece_ptr(li + 1) = q;
      });
  o.len = len;
  o.long_rows = long_rows;
  o.piece_begin = piece_begin;
  o.piece_ptr = piece_ptr;

  // The order: positions sorted by descending length within windows of sigma, stably; a long
  // row sorts by its full length.
  const auto key_of = KOKKOS_LAMBDA(const std::int64_t v)->std::int64_t {
    return len(v) >= 0 ? static_cast<std::int64_t>(len(v)) : static_cast<std::int64_t>(rp(v + 1) - rp(v));
  };
  const I32 perm(uninit("pspmv::sell_perm"), npos);
  o.perm = perm;
  if (host_perm && static_cast<std::int64_t>(host_perm->extent(0)) == npos) {
    Kokkos::deep_copy(space, perm, *host_perm);
  } else if (sigma <= 1 || npos <= 1) {
    Kokkos::parallel_for(
        "pspmv::sell_build_identity", Range(space, 0, npos),
        KOKKOS_LAMBDA(const std::int64_t p) { perm(p) = static_cast<std::int32_t>(p); });
  } else if (sigma <= sell_team_sort_max_sigma) {
    using Team = Kokkos::TeamPolicy<ExecSpace>;
    using Scratch = Kokkos::View<std::int64_t*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
    using Counts = Kokkos::View<std::int32_t*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
    const bool counting = sigma <= sell_team_count_max_sigma;
    const std::int64_t H = counting ? sell_team_count_max : 0;
    const std::int64_t nwin = (npos + sigma - 1) / sigma;
    const std::size_t scratch = Scratch::shmem_size(sigma) + (counting ? 2 * Counts::shmem_size(H) : 0);
    // A host team of two threads where the space has them (only the tests sort on a host), so
    // that a chunk of the counting sort holds more than one position there too.
    constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
    const auto policy = [&] {
      if constexpr (host)
        return Team(space, static_cast<int>(nwin), static_cast<int>(std::min<std::int64_t>(2, space.concurrency())));
      else
        return Team(space, static_cast<int>(nwin), Kokkos::AUTO);
    }();
    Kokkos::parallel_for(
        "pspmv::sell_build_rank", Team(policy).set_scratch_size(0, Kokkos::PerTeam(scratch)),
        KOKKOS_LAMBDA(const typename Team::member_type& team) {
          const std::int64_t w0 = static_cast<std::int64_t>(team.league_rank()) * sigma;
          const std::int64_t m = npos - w0 < sigma ? npos - w0 : sigma;
          Scratch k(team.team_scratch(0), m);
          Counts start(team.team_scratch(0), H), seen(team.team_scratch(0), H);  // empty unless counting
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const std::int64_t i) { k(i) = key_of(w0 + i); });
          team.team_barrier();
          // A window already in descending order (equal lengths: stencils, banded and FEM
          // matrices) is its own stable sort: one comparison per position.
          std::int64_t rises = 0, lo = 0, hi = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, std::int64_t{1}, m),
              [&](const std::int64_t i, std::int64_t& r) { r += k(i - 1) < k(i) ? 1 : 0; }, rises);
          if (rises == 0) {
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m),
                                 [&](const std::int64_t i) { perm(w0 + i) = static_cast<std::int32_t>(w0 + i); });
            return;
          }
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, m), [&](const std::int64_t i, std::int64_t& l) { l = k(i) < l ? k(i) : l; },
              Kokkos::Min<std::int64_t>(lo));
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, m), [&](const std::int64_t i, std::int64_t& h) { h = k(i) > h ? k(i) : h; },
              Kokkos::Max<std::int64_t>(hi));
          // Lengths lo .. top (at most H of them) are counted; the longer ones, the tail (none
          // where the window's lengths lie within H of each other; all of them where the window
          // is too wide to count), are ranked: rank = longer positions + equal ones before. The
          // tail, the few long rows of a skewed matrix, comes before every counted position.
          const std::int64_t top = counting ? (hi - lo < H ? hi : lo + H - 1) : lo - 1;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const std::int64_t i) {
            const std::int64_t ki = k(i);
            if (ki <= top) return;
            std::int64_t rank = 0;
            for (std::int64_t j = 0; j < m; ++j) rank += (k(j) > ki || (k(j) == ki && j < i)) ? 1 : 0;
            perm(w0 + rank) = static_cast<std::int32_t>(w0 + i);
          });
          if (top < lo) return;
          // Bucket top - length (the longest counted first) starts after the longer ones and the
          // tail; a position's place in its bucket counts the positions of its length before it:
          // those of earlier chunks of the team's width (seen) and those before it in its chunk.
          const std::int64_t span = top - lo + 1;
          std::int64_t tail = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, m), [&](const std::int64_t i, std::int64_t& t) { t += k(i) > top ? 1 : 0; },
              tail);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, span), [&](const std::int64_t b) {
            start(b) = 0;
            seen(b) = 0;
          });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const std::int64_t i) {
            if (k(i) <= top) Kokkos::atomic_add(&start(top - k(i)), std::int32_t{1});
          });
          team.team_barrier();
          Kokkos::single(Kokkos::PerTeam(team), [&]() {
            std::int32_t acc = static_cast<std::int32_t>(tail);
            for (std::int64_t b = 0; b < span; ++b) {
              const std::int32_t c = start(b);
              start(b) = acc;
              acc += c;
            }
          });
          team.team_barrier();
          const std::int64_t width = team.team_size();
          for (std::int64_t c0 = 0; c0 < m; c0 += width) {
            const std::int64_t ce = c0 + width < m ? c0 + width : m;
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, c0, ce), [&](const std::int64_t i) {
              const std::int64_t ki = k(i);
              if (ki > top) return;
              std::int64_t before = 0;
              for (std::int64_t j = c0; j < i; ++j) before += k(j) == ki ? 1 : 0;
              perm(w0 + start(top - ki) + seen(top - ki) + before) = static_cast<std::int32_t>(w0 + i);
            });
            team.team_barrier();
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, c0, ce), [&](const std::int64_t i) {
              if (k(i) <= top) Kokkos::atomic_add(&seen(top - k(i)), std::int32_t{1});
            });
            team.team_barrier();
          }
        });
  } else {  // wide windows: sorted on the host, a window per thread
    const I64 key(uninit("pspmv::sell_key"), npos);
    Kokkos::parallel_for(
        "pspmv::sell_build_keys", Range(space, 0, npos), KOKKOS_LAMBDA(const std::int64_t v) { key(v) = key_of(v); });
    const auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), key);
    auto hp = Kokkos::create_mirror_view(perm);
    std::int32_t* pp = hp.data();
    const std::int64_t* kk = hk.data();
    detail::for_pieces("pspmv::sell_permutation", npos, sigma, [&](std::int64_t, std::int64_t w, std::int64_t e) {
      for (std::int64_t p = w; p < e; ++p) pp[p] = static_cast<std::int32_t>(p);
      std::stable_sort(pp + w, pp + e, [&](std::int32_t a, std::int32_t b) { return kk[a] > kk[b]; });
    });
    Kokkos::deep_copy(space, perm, hp);
  }
  space.fence();
  return o;
}

/// @throws InvalidArgument unless `o` is an order computed by sell_order_on() for a matrix of
/// A's rows (its sizes, not its contents, are checked).
template <class Mem, class Csr>
void check_order_of(const SellOrderOn<Mem>& o, const Csr& A) {
  if (o.nrows != A.nrows || static_cast<std::int64_t>(o.perm.extent(0)) != o.npos() ||
      static_cast<std::int64_t>(o.len.extent(0)) != o.npos())
    throw InvalidArgument("SELL order: made for " + std::to_string(o.nrows) + " rows and " +
                          std::to_string(o.perm.extent(0)) + " positions, the matrix has " +
                          std::to_string(A.nrows) + " rows (compute it with sell_order_on for this matrix)");
}

/// SellShape of an order at slice height C, computed where the order is (as
/// detail::sell_shape_of on the host).
/// @throws InvalidArgument as check_sell_parameters() and check_order_of().
template <class ExecSpace, class Value, class Offset, class Mem>
SellShape sell_shape_on(const ExecSpace& space, const SellOrderOn<Mem>& o,
                        const CsrMatrix<Value, Offset, std::int32_t, Mem>& A, int slice_height) {
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  check_sell_parameters(slice_height, o.sigma);
  check_order_of(o, A);
  const std::int64_t npos = o.npos(), C = slice_height;
  SellShape s;
  s.nslices = (npos + C - 1) / C;
  s.long_rows = o.nlong;
  s.pieces = o.npieces;
  const auto len = o.len;
  const auto perm = o.perm;
  std::int64_t stored = 0, long_stored = 0;
  Kokkos::parallel_reduce(
      "pspmv::sell_shape", Range(space, 0, s.nslices),
      KOKKOS_LAMBDA(const std::int64_t sl, std::int64_t& sum) {
        std::int32_t w = 0;
        for (std::int64_t p = sl * C; p < (sl + 1) * C && p < npos; ++p) w = len(perm(p)) > w ? len(perm(p)) : w;
        sum += C * w;
      },
      stored);
  if (!o.split && o.nlong > 0) {
    const auto rp = A.row_ptr;
    const auto lr = o.long_rows;
    Kokkos::parallel_reduce(
        "pspmv::sell_shape_long", Range(space, 0, o.nlong),
        KOKKOS_LAMBDA(const std::int64_t l, std::int64_t& sum) {
          sum += static_cast<std::int64_t>(rp(lr(l) + 1) - rp(lr(l)));
        },
        long_stored);
  }
  space.fence();
  s.stored = stored + long_stored;
  const auto nnz = static_cast<std::int64_t>(A.nnz());
  s.padding = nnz > 0 ? static_cast<double>(s.stored) / static_cast<double>(nnz) : 1.0;
  return s;
}

/// Converts A (validated CSR in ExecSpace's memory) to SELL-C-sigma there, on the instance
/// `space`, in the order `o` computed there by sell_order_on() for A: vector lanes reduce the
/// slice widths, a scan gives the slice offsets and a thread per position moves its row and its
/// padding. Returns when the conversion is done. The result is csr_to_sell()'s, bit for bit.
/// @throws InvalidArgument for a slice height C other than 4, 8, 16, 32 or 64.
template <class ExecSpace, class Value, class Offset, class Mem>
SellMatrix<Value, Mem> csr_to_sell_on(const ExecSpace& space, const CsrMatrix<Value, Offset, std::int32_t, Mem>& A,
                                      int slice_height, const SellOrderOn<Mem>& o) {
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  using I32 = Kokkos::View<std::int32_t*, Mem>;
  using I64 = Kokkos::View<std::int64_t*, Mem>;
  const auto uninit = [](const char* label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)); };
  check_sell_parameters(slice_height, o.sigma);
  check_order_of(o, A);
  const std::int64_t C = slice_height, n = A.nrows, npos = o.npos(), nslices = (npos + C - 1) / C, nlong = o.nlong;
  const bool split = o.split;
  const auto rp = A.row_ptr;
  const auto ci = A.col_idx;
  const auto va = A.values;
  const I32 len = o.len, long_rows = o.long_rows, perm = o.perm;
  const I64 piece_begin = o.piece_begin;

  SellMatrix<Value, Mem> S;
  S.nrows = A.nrows;
  S.ncols = A.ncols;
  S.npos = static_cast<std::int32_t>(npos);
  S.slice_height = slice_height;
  S.sigma = static_cast<std::int32_t>(std::min<std::int64_t>(o.sigma, std::max<std::int64_t>(1, npos)));
  S.nnz = static_cast<std::int64_t>(A.nnz());
  S.long_split = split;
  S.long_row_threshold = o.long_row_threshold;
  S.perm = perm;
  S.long_rows = long_rows;
  S.row_len = I32(uninit("pspmv::sell_row_len"), npos);
  S.slice_width = I32(uninit("pspmv::sell_slice_width"), nslices);
  S.slice_ptr = I64(uninit("pspmv::sell_slice_ptr"), nslices + 1);
  const I32 row_len = S.row_len, width = S.slice_width;
  const I64 sptr = S.slice_ptr;
  // Each slice's width, reduced over its positions by a team thread's vector lanes, which also
  // write the positions' lengths (on a GPU the reads of the order and the writes of the lengths
  // are coalesced, the reads of the lengths by row are not); the scan then reads one width a
  // slice.
  {
    using Team = Kokkos::TeamPolicy<ExecSpace>;
    constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
    const int lanes = host ? 1 : static_cast<int>(C < 32 ? C : 32);
    const std::int64_t per_team = host ? 1 : sell_width_block / lanes;
    Kokkos::parallel_for(
        "pspmv::sell_build_widths",
        Team(space, static_cast<int>((nslices + per_team - 1) / per_team), static_cast<int>(per_team), lanes),
        KOKKOS_LAMBDA(const typename Team::member_type& team) {
          const std::int64_t s = team.league_rank() * per_team + team.team_rank();
          if (s >= nslices) return;
          std::int32_t w = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, C),
              [&](const std::int64_t r, std::int32_t& m) {
                const std::int64_t p = s * C + r;
                if (p >= npos) return;
                const std::int32_t l = len(perm(p));  // -1: a long row, which the slice does not hold
                row_len(p) = l;
                m = l > m ? l : m;
              },
              Kokkos::Max<std::int32_t>(w));
          Kokkos::single(Kokkos::PerThread(team), [&]() { width(s) = w > 0 ? w : 0; });
        });
  }
  Kokkos::parallel_scan(
      "pspmv::sell_build_slice_ptr", Range(space, 0, nslices),
      KOKKOS_LAMBDA(const std::int64_t s, std::int64_t& acc, const bool final) {
        if (final) sptr(s) = acc;
        acc += C * width(s);
        if (final && s == nslices - 1) sptr(nslices) = acc;
      });
  if (nslices == 0) Kokkos::deep_copy(space, S.slice_ptr, std::int64_t(0));
  const std::int64_t stored = detail::read_back(space, S.slice_ptr, nslices);
  S.col_idx = I32(uninit("pspmv::sell_col_idx"), stored);
  S.values = Kokkos::View<Value*, Mem>(uninit("pspmv::sell_values"), stored);
  const I32 col = S.col_idx;
  const Kokkos::View<Value*, Mem> val = S.values;
  // A thread per position walks its row (or piece) out to the slice's width, a run of
  // sell_scatter_run entries at a time, the run's loads all issued before its stores: on a GPU a
  // thread keeps that many loads in flight, a lane's run takes a sector or two of the CSR, and a
  // warp's stores of one column are contiguous (consecutive positions of a slice). On a host a
  // thread's positions are one contiguous run, whole slices but at its ends.
  {
    constexpr int U = sell_scatter_run;
    const int log2_c = detail::log2_slice_height(C);
    Kokkos::parallel_for(
        "pspmv::sell_build_scatter", Range(space, 0, nslices * C), KOKKOS_LAMBDA(const std::int64_t q) {
          const std::int64_t s = q >> log2_c, w = width(s), at = sptr(s) + (q - (s << log2_c));
          std::int64_t h = 0, b = 0;
          if (q < npos && row_len(q) > 0) {
            h = row_len(q);
            const std::int64_t v = perm(q);
            b = v < n ? static_cast<std::int64_t>(rp(v)) : piece_begin(v - n);
          }
          for (std::int64_t j0 = 0; j0 < w; j0 += U) {
            std::int32_t c[U];
            Value x[U];
            for (int u = 0; u < U; ++u) {
              const bool real = j0 + u < h;  // else padding: column 0, value 0
              c[u] = real ? ci(b + j0 + u) : 0;
              x[u] = real ? va(b + j0 + u) : Value(0);
            }
            for (int u = 0; u < U; ++u) {
              if (j0 + u >= w) break;
              col(at + (j0 + u) * C) = c[u];
              val(at + (j0 + u) * C) = x[u];
            }
          }
        });
  }

  if (split) {
    S.piece_ptr = o.piece_ptr;
  } else {  // the long rows' own CSR, and each one's sorted position
    S.long_row_ptr = I64(uninit("pspmv::sell_long_row_ptr"), nlong + 1);
    S.long_pos = I32(uninit("pspmv::sell_long_pos"), nlong);
    const I64 lptr = S.long_row_ptr;
    const I32 lpos = S.long_pos;
    Kokkos::parallel_scan(
        "pspmv::sell_build_long_ptr", Range(space, 0, nlong),
        KOKKOS_LAMBDA(const std::int64_t l, std::int64_t& acc, const bool final) {
          if (final) lptr(l) = acc;
          acc += static_cast<std::int64_t>(rp(long_rows(l) + 1) - rp(long_rows(l)));
          if (final && l == nlong - 1) lptr(nlong) = acc;
        });
    if (nlong == 0) Kokkos::deep_copy(space, S.long_row_ptr, std::int64_t(0));
    const std::int64_t long_nnz = detail::read_back(space, S.long_row_ptr, nlong);
    S.long_col_idx = I32(uninit("pspmv::sell_long_col_idx"), long_nnz);
    S.long_values = Kokkos::View<Value*, Mem>(uninit("pspmv::sell_long_values"), long_nnz);
    const I32 lcol = S.long_col_idx;
    const Kokkos::View<Value*, Mem> lval = S.long_values;
    if (nlong > 0)
      Kokkos::parallel_for(
          "pspmv::sell_build_long_pos", Range(space, 0, npos), KOKKOS_LAMBDA(const std::int64_t p) {
            const std::int32_t v = perm(p);
            if (len(v) >= 0) return;
            std::int64_t lo = 0, hi = nlong;  // long_rows is increasing: the first >= v
            while (lo < hi) {
              const std::int64_t mid = (lo + hi) / 2;
              if (long_rows(mid) < v) lo = mid + 1;
              else hi = mid;
            }
            lpos(lo) = static_cast<std::int32_t>(p);
          });
    Kokkos::parallel_for(
        "pspmv::sell_build_long_rows", Range(space, 0, nlong), KOKKOS_LAMBDA(const std::int64_t l) {
          const std::int64_t b = static_cast<std::int64_t>(rp(long_rows(l))), d = lptr(l), e = lptr(l + 1);
          for (std::int64_t k = 0; k < e - d; ++k) {
            lcol(d + k) = ci(b + k);
            lval(d + k) = va(b + k);
          }
        });
  }
  space.fence();
  return S;
}

/// csr_to_sell_on() with the order computed first (sell_order_on(); `host_perm`, when given,
/// is the order of these parameters computed on the host, detail::SellOrder::perm, copied
/// instead of sorting again), with the arguments of csr_to_sell().
/// @throws InvalidArgument as csr_to_sell().
template <class ExecSpace, class Value, class Offset, class Mem>
SellMatrix<Value, Mem> csr_to_sell_on(const ExecSpace& space, const CsrMatrix<Value, Offset, std::int32_t, Mem>& A,
                                      int slice_height, std::int64_t sigma, std::int64_t long_row_threshold,
                                      bool split,
                                      const Kokkos::View<std::int32_t*, Kokkos::HostSpace>* host_perm = nullptr) {
  check_sell_parameters(slice_height, sigma);
  return csr_to_sell_on(space, A, slice_height, sell_order_on(space, A, sigma, long_row_threshold, split, host_perm));
}

}  // namespace pspmv
