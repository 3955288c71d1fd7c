#pragma once
/// @file sell_build.hpp
/// CSR -> SELL-C-sigma in the memory of an execution space, from a CSR matrix already there
/// (on a GPU: from the device copy of the matrix, copied once), written once as Kokkos
/// parallel patterns: scans place the long rows and their pieces, a team per sigma window
/// ranks its positions by length (a stable order: rank = longer positions + equal ones
/// before), a scan gives the slice offsets and one pass per position scatters its entries
/// and its padding. The result is csr_to_sell()'s, bit for bit (tests/test_parallel_analysis.cpp).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

#include "pspmv/errors.hpp"
#include "pspmv/matrix/csr.hpp"
#include "pspmv/matrix/host_parallel.hpp"
#include "pspmv/matrix/sell.hpp"

namespace pspmv {

/// The widest sorting window that csr_to_sell_on() ranks in a team's scratch memory (8 bytes
/// per row; the rank costs sigma comparisons per row); wider windows are sorted on the host.
constexpr std::int64_t sell_team_sort_max_sigma = 4096;


/// Converts A (validated CSR in ExecSpace's memory) to SELL-C-sigma there, on the instance
/// `space`, with the arguments of csr_to_sell(). `host_perm`, when given, is the sorted order
/// of these parameters computed on the host (detail::SellOrder::perm, as choose() leaves it):
/// it is copied instead of sorting again. Returns when the conversion is done.
/// @throws InvalidArgument as csr_to_sell().
template <class ExecSpace, class Value, class Offset, class Mem>
SellMatrix<Value, Mem> csr_to_sell_on(const ExecSpace& space, const CsrMatrix<Value, Offset, std::int32_t, Mem>& A,
                                      int slice_height, std::int64_t sigma, std::int64_t long_row_threshold,
                                      bool split,
                                      const Kokkos::View<std::int32_t*, Kokkos::HostSpace>* host_perm = nullptr) {
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  using I32 = Kokkos::View<std::int32_t*, Mem>;
  using I64 = Kokkos::View<std::int64_t*, Mem>;
  const auto uninit = [](const char* label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)); };
  check_sell_parameters(slice_height, sigma);
  const std::int64_t T = long_row_threshold, C = slice_height;
  split = split && T > 0;
  const std::int64_t n = A.nrows;
  const auto rp = A.row_ptr;
  const auto ci = A.col_idx;
  const auto va = A.values;

  // Positions: how many long rows and pieces come before each row (exclusive scans).
  I64 long_before(uninit("pspmv::sell_long_before"), n + 1), piece_before(uninit("pspmv::sell_piece_before"), n + 1);
  Kokkos::parallel_scan(
      "pspmv::sell_build_count", Range(space, 0, n), KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& acc, const bool final) {
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
  std::int64_t too_long = n;
  Kokkos::parallel_reduce(
      "pspmv::sell_build_check", Range(space, 0, n),
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
  const std::int64_t nlong = n > 0 ? detail::read_back(space, long_before, n) : 0;
  const std::int64_t npieces = n > 0 ? detail::read_back(space, piece_before, n) : 0;
  if (n + npieces > INT32_MAX)
    throw InvalidArgument("SELL: " + std::to_string(n) + " rows plus " + std::to_string(npieces) +
                          " pieces of split long rows exceed 2^31 - 1 positions; raise sell_long_row or "
                          "set sell_long_split = false");
  const std::int64_t npos = n + npieces, nslices = (npos + C - 1) / C;
  I32 len(uninit("pspmv::sell_rows_len"), npos), long_rows(uninit("pspmv::sell_long_rows"), nlong);
  I64 piece_begin(uninit("pspmv::sell_piece_begin"), npieces);
  I64 piece_ptr = split ? I64("pspmv::sell_piece_ptr", nlong + 1) : I64();  // zero: piece_ptr(0)
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

  // The order: positions sorted by descending length within windows of sigma, stably.
  I64 key(uninit("pspmv::sell_key"), npos);
  Kokkos::parallel_for(
      "pspmv::sell_build_keys", Range(space, 0, npos), KOKKOS_LAMBDA(const std::int64_t v) {
        key(v) = len(v) >= 0 ? static_cast<std::int64_t>(len(v)) : static_cast<std::int64_t>(rp(v + 1) - rp(v));
      });
  I32 perm(uninit("pspmv::sell_perm"), npos);
  if (host_perm && static_cast<std::int64_t>(host_perm->extent(0)) == npos) {
    Kokkos::deep_copy(space, perm, *host_perm);
  } else if (sigma <= 1 || npos <= 1) {
    Kokkos::parallel_for(
        "pspmv::sell_build_identity", Range(space, 0, npos),
        KOKKOS_LAMBDA(const std::int64_t p) { perm(p) = static_cast<std::int32_t>(p); });
  } else if (sigma <= sell_team_sort_max_sigma) {
    using Team = Kokkos::TeamPolicy<ExecSpace>;
    using Scratch = Kokkos::View<std::int64_t*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
    const std::int64_t nwin = (npos + sigma - 1) / sigma;
    Kokkos::parallel_for(
        "pspmv::sell_build_rank",
        Team(space, static_cast<int>(nwin), Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(sigma))),
        KOKKOS_LAMBDA(const typename Team::member_type& team) {
          const std::int64_t w0 = static_cast<std::int64_t>(team.league_rank()) * sigma;
          const std::int64_t m = npos - w0 < sigma ? npos - w0 : sigma;
          Scratch k(team.team_scratch(0), m);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const std::int64_t i) { k(i) = key(w0 + i); });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const std::int64_t i) {
            const std::int64_t ki = k(i);
            std::int64_t rank = 0;
            for (std::int64_t j = 0; j < m; ++j) rank += (k(j) > ki || (k(j) == ki && j < i)) ? 1 : 0;
            perm(w0 + rank) = static_cast<std::int32_t>(w0 + i);
          });
        });
  } else {  // wide windows: sorted on the host, a window per thread
    const auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), key);
    auto hp = Kokkos::create_mirror_view(perm);
    std::int32_t* pp = hp.data();
    const std::int64_t* kk = hk.data();
    detail::for_pieces("pspmv::sell_permutation", npos, sigma, [&](std::int64_t, std::int64_t w, std::int64_t e) {
      for (std::int64_t p = w; p < e; ++p) pp[p] = static_cast<std::int32_t>(p);
      std::stable_sort(pp + w, pp + e, [&](std::int32_t a, std::int32_t b) { return kk[a] > kk[b]; });
    });
    Kokkos::deep_copy(space, perm, hp);
    space.fence();
  }

  SellMatrix<Value, Mem> S;
  S.nrows = A.nrows;
  S.ncols = A.ncols;
  S.npos = static_cast<std::int32_t>(npos);
  S.slice_height = slice_height;
  S.sigma = static_cast<std::int32_t>(std::min<std::int64_t>(sigma, std::max<std::int64_t>(1, npos)));
  S.nnz = static_cast<std::int64_t>(A.nnz());
  S.long_split = split;
  S.long_row_threshold = long_row_threshold;
  S.perm = perm;
  S.long_rows = long_rows;
  S.row_len = I32(uninit("pspmv::sell_row_len"), npos);
  const I32 row_len = S.row_len;
  Kokkos::parallel_for(
      "pspmv::sell_build_row_len", Range(space, 0, npos), KOKKOS_LAMBDA(const std::int64_t p) { row_len(p) = len(perm(p)); });
  S.slice_width = I32(uninit("pspmv::sell_slice_width"), nslices);
  S.slice_ptr = I64(uninit("pspmv::sell_slice_ptr"), nslices + 1);
  const I32 width = S.slice_width;
  const I64 sptr = S.slice_ptr;
  Kokkos::parallel_scan(
      "pspmv::sell_build_slice_ptr", Range(space, 0, nslices),
      KOKKOS_LAMBDA(const std::int64_t s, std::int64_t& acc, const bool final) {
        std::int32_t w = 0;
        for (std::int64_t p = s * C; p < (s + 1) * C && p < npos; ++p) w = row_len(p) > w ? row_len(p) : w;
        if (final) {
          width(s) = w;
          sptr(s) = acc;
        }
        acc += C * w;
        if (final && s == nslices - 1) sptr(nslices) = acc;
      });
  if (nslices == 0) Kokkos::deep_copy(space, S.slice_ptr, std::int64_t(0));
  const std::int64_t stored = detail::read_back(space, S.slice_ptr, nslices);
  S.col_idx = I32(uninit("pspmv::sell_col_idx"), stored);
  S.values = Kokkos::View<Value*, Mem>(uninit("pspmv::sell_values"), stored);
  const I32 col = S.col_idx;
  const Kokkos::View<Value*, Mem> val = S.values;
  Kokkos::parallel_for(
      "pspmv::sell_build_scatter", Range(space, 0, nslices * C), KOKKOS_LAMBDA(const std::int64_t p) {
        const std::int64_t s = p / C, r = p - s * C, base = sptr(s), w = width(s);
        std::int64_t have = 0;
        if (p < npos && row_len(p) > 0) {
          have = row_len(p);
          const std::int64_t v = perm(p);
          const std::int64_t b = v < n ? static_cast<std::int64_t>(rp(v)) : piece_begin(v - n);
          for (std::int64_t j = 0; j < have; ++j) {
            col(base + j * C + r) = ci(b + j);
            val(base + j * C + r) = va(b + j);
          }
        }
        for (std::int64_t j = have; j < w; ++j) {
          col(base + j * C + r) = 0;
          val(base + j * C + r) = Value(0);
        }
      });

  if (split) {
    S.piece_ptr = piece_ptr;
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

}  // namespace pspmv
