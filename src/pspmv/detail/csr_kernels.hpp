#pragma once
/// @file csr_kernels.hpp
/// CSR SpMV kernels, written once as functors templated on the execution space
/// (the shape of Kokkos Kernels' SPMV_Functor). No backend #ifdefs: the execution
/// space's own Kokkos dispatch does the rest.
///
/// Every kernel computes y(i) = alpha * sum_k values(k) * x(col_idx(k)) + beta * y(i)
/// with BLAS semantics: when beta == 0, y is written without being read.

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pspmv {
namespace detail {

/// Work tags: iterate over rows (or over teams of consecutive rows), or over the
/// nnz-balanced blocks of a row partition.
struct RowsTag {};
struct BlocksTag {};

template <class ExecSpace, class Value, class Offset>
struct CsrViews {
  using memory_space = typename ExecSpace::memory_space;
  Kokkos::View<const Offset*, memory_space> row_ptr;
  Kokkos::View<const std::int32_t*, memory_space> col_idx;
  Kokkos::View<const Value*, memory_space> values;
  /// x is only gathered: RandomAccess lets CUDA use the read-only data cache.
  Kokkos::View<const Value*, memory_space, Kokkos::MemoryTraits<Kokkos::RandomAccess>> x;
  Kokkos::View<Value*, memory_space> y;
  /// nnz-balanced partition: block b holds rows [partition(b), partition(b + 1)).
  Kokkos::View<const std::int32_t*, memory_space> partition;
  Value alpha;
  Value beta;

  KOKKOS_INLINE_FUNCTION void store(const std::int32_t i, const Value sum) const {
    y(i) = beta == Value(0) ? alpha * sum : alpha * sum + beta * y(i);
  }
};

/// Work items [first, last) of team `rank` when each team takes `per_team` of `n` items;
/// computed in 64 bits so that no sum wraps near 2^31.
KOKKOS_INLINE_FUNCTION void team_share(const std::int64_t rank, const std::int32_t per_team, const std::int32_t n,
                                       std::int32_t& first, std::int32_t& last) {
  const std::int64_t begin = rank * per_team, end = begin + per_team;
  first = begin < n ? static_cast<std::int32_t>(begin) : n;
  last = end < n ? static_cast<std::int32_t>(end) : n;
}

/// Thread-per-row: one thread (one GPU lane) computes a whole row.
/// RowsTag: one work item per row. BlocksTag: one work item per nnz-balanced block.
template <class ExecSpace, class Value, class Offset>
struct CsrThreadPerRow : CsrViews<ExecSpace, Value, Offset> {
  KOKKOS_INLINE_FUNCTION void row(const std::int32_t i) const {
    Value sum = 0;
    const Offset end = this->row_ptr(i + 1);
    for (Offset k = this->row_ptr(i); k < end; ++k) sum += this->values(k) * this->x(this->col_idx(k));
    this->store(i, sum);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const RowsTag, const std::int32_t i) const { row(i); }
  KOKKOS_INLINE_FUNCTION void operator()(const BlocksTag, const std::int32_t b) const {
    const std::int32_t end = this->partition(b + 1);
    for (std::int32_t i = this->partition(b); i < end; ++i) row(i);
  }
};

/// Team-per-row: the threads of a team take consecutive rows (TeamThreadRange), the
/// vector lanes of a thread share one row (ThreadVectorRange reduction). With vector
/// length 32 on CUDA this is warp-per-row. RowsTag: team t takes rows
/// [t * rows_per_team, (t + 1) * rows_per_team). BlocksTag: team t takes block t.
template <class ExecSpace, class Value, class Offset>
struct CsrTeamPerRow : CsrViews<ExecSpace, Value, Offset> {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  std::int32_t nrows = 0;
  std::int32_t rows_per_team = 1;

  KOKKOS_INLINE_FUNCTION void row(const member_type& team, const std::int32_t i) const {
    const Offset begin = this->row_ptr(i), end = this->row_ptr(i + 1);
    Value sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, begin, end),
        [&](const Offset k, Value& partial) { partial += this->values(k) * this->x(this->col_idx(k)); },
        sum);
    Kokkos::single(Kokkos::PerThread(team), [&]() { this->store(i, sum); });
  }
  KOKKOS_INLINE_FUNCTION void operator()(const RowsTag, const member_type& team) const {
    std::int32_t first = 0, last = 0;
    team_share(team.league_rank(), rows_per_team, nrows, first, last);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last),
                         [&](const std::int32_t i) { row(team, i); });
  }
  KOKKOS_INLINE_FUNCTION void operator()(const BlocksTag, const member_type& team) const {
    const std::int32_t first = this->partition(team.league_rank());
    const std::int32_t last = this->partition(team.league_rank() + 1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last),
                         [&](const std::int32_t i) { row(team, i); });
  }
};

/// y = beta * y (y = 0 when beta == 0, without reading y): the alpha == 0 / nnz == 0 path.
template <class ExecSpace, class Value>
struct ScaleY {
  Kokkos::View<Value*, typename ExecSpace::memory_space> y;
  Value beta;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int32_t i) const {
    y(i) = beta == Value(0) ? Value(0) : beta * y(i);
  }
};

}  // namespace detail
}  // namespace pspmv
