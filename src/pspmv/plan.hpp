#pragma once
/// @file plan.hpp
/// The two-stage API: analyze a host CSR matrix once into a Plan (internal copy in the
/// execution space's memory, row statistics, chosen mapping, schedule and launch sizes,
/// nnz partition, analyze time), then multiply many times.
///
/// @code
///   #include <pspmv/pspmv.hpp>
///   Kokkos::ScopeGuard guard(argc, argv);
///   auto A = pspmv::read_matrix_market<double>("matrix.mtx");      // host CSR, validated
///   auto plan = pspmv::analyze<Kokkos::DefaultExecutionSpace>(A);   // all host work, once
///   using Plan = decltype(plan);
///   typename Plan::vector_type x("x", A.ncols), y("y", A.nrows);
///   Kokkos::deep_copy(x, 1.0);
///   for (int it = 0; it < 100; ++it) plan.multiply(1.0, x, 0.0, y);  // y = A x
/// @endcode

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdint>
#include <string>

#include "exec_traits.hpp"
#include "pspmv/csr_matrix.hpp"
#include "pspmv/detail/csr_kernels.hpp"
#include "pspmv/detail/launch_params.hpp"
#include "pspmv/errors.hpp"
#include "pspmv/options.hpp"
#include "pspmv/row_stats.hpp"
#include "pspmv/types.hpp"

namespace pspmv {

/// An analyzed matrix, ready to multiply on ExecSpace.
/// @tparam ExecSpace a Kokkos execution space (Kokkos::OpenMP, Kokkos::Serial, Kokkos::Cuda)
/// @tparam Value     float or double
/// @tparam Offset    int32_t or int64_t (type of row_ptr)
template <class ExecSpace, class Value, class Offset = std::int64_t>
class Plan {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using value_type = Value;
  using offset_type = Offset;
  using matrix_type = CsrMatrix<Value, Offset, std::int32_t, memory_space>;
  using vector_type = Kokkos::View<Value*, memory_space>;
  using const_vector_type = Kokkos::View<const Value*, memory_space>;

  /// Analyzes A (validated first) and copies it into ExecSpace's memory. Prefer analyze().
  /// @throws InvalidMatrix / DimensionError if A is not valid CSR; InvalidArgument for
  ///         options out of range; Unsupported for a format this build cannot serve.
  explicit Plan(const HostCsr<Value, Offset>& A, const AnalyzeOptions& options = {});

  /// y = alpha * A * x + beta * y, with BLAS semantics: beta == 0 overwrites y without
  /// reading it (NaN or Inf in y do not survive); alpha == 0 only scales y.
  /// Shapes: x has ncols() entries, y has nrows() entries, both in memory_space; x and y
  /// must not overlap. Only launches: no allocation, no host loop over the matrix.
  /// Asynchronous with respect to the host, like any Kokkos launch: fence before reading y.
  /// @throws DimensionError naming both sizes; InvalidArgument if x and y overlap.
  void multiply(Value alpha, const const_vector_type& x, Value beta, const vector_type& y) const;

  std::int32_t nrows() const { return A_.nrows; }
  std::int32_t ncols() const { return A_.ncols; }
  std::int64_t nnz() const { return static_cast<std::int64_t>(A_.nnz()); }
  Format format() const { return Format::csr; }
  Mapping mapping() const { return choice_.mapping; }
  Schedule schedule() const { return choice_.schedule; }
  const LaunchParams& launch() const { return choice_.launch; }
  /// Why analyze() chose this mapping and schedule (the statistic that decided).
  const std::string& reason() const { return choice_.reason; }
  const RowStats& row_stats() const { return stats_; }
  const LaneSlots& lane_slots() const { return lane_slots_; }
  /// Wall time of the analysis (validation, statistics, partition, device copy), seconds.
  double analyze_seconds() const { return analyze_seconds_; }
  /// The plan's own copy of the matrix, in memory_space.
  const matrix_type& matrix() const { return A_; }
  /// Device bytes the plan holds (matrix copy and partition).
  std::size_t bytes() const { return A_.bytes() + partition_.extent(0) * sizeof(std::int32_t); }
  /// Whether this plan was built from A: same dimensions, nnz and row_ptr storage.
  bool built_from(const HostCsr<Value, Offset>& A) const {
    return A.nrows == A_.nrows && A.ncols == A_.ncols && A.nnz() == A_.nnz() &&
           A.row_ptr.data() == source_row_ptr_;
  }
  /// One line: format, mapping, schedule and launch sizes.
  std::string describe() const;

 private:
  matrix_type A_;
  Kokkos::View<std::int32_t*, memory_space> partition_;
  detail::LaunchChoice choice_;
  RowStats stats_;
  LaneSlots lane_slots_;
  double analyze_seconds_ = 0;
  const void* source_row_ptr_ = nullptr;
};

/// Analyzes A for ExecSpace: the first stage of the two-stage API (see Plan).
template <class ExecSpace, class Value, class Offset>
Plan<ExecSpace, Value, Offset> analyze(const HostCsr<Value, Offset>& A,
                                       const AnalyzeOptions& options = {}) {
  return Plan<ExecSpace, Value, Offset>(A, options);
}

// ---------------------------------------------------------------------------------------

template <class ExecSpace, class Value, class Offset>
Plan<ExecSpace, Value, Offset>::Plan(const HostCsr<Value, Offset>& A, const AnalyzeOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  if (options.format != Format::csr)
    throw Unsupported("format '" + to_string(options.format) + "' is not available in this build yet");
  validate(A);
  stats_ = compute_row_stats(A.row_ptr.data(), A.nrows, A.ncols);
  lane_slots_ = compute_lane_slots(A.row_ptr.data(), A.nrows, ExecTraits<ExecSpace>::model_lane_width);
  choice_ = detail::choose_launch<ExecSpace, Value>(stats_, lane_slots_, options);
  if (choice_.mapping == Mapping::team_per_row) {
    // Ask Kokkos for the largest team it can launch, so that a bad request is an
    // exception here rather than a Kokkos::abort inside multiply().
    const detail::CsrTeamPerRow<ExecSpace, Value, Offset> probe{};
    const int max_team = Kokkos::TeamPolicy<ExecSpace, detail::RowsTag>(1, 1, choice_.launch.vector_length)
                             .team_size_max(probe, Kokkos::ParallelForTag());
    if (choice_.launch.team_size > max_team) {
      if (options.team_size > 0)
        throw InvalidArgument("team_size " + std::to_string(choice_.launch.team_size) + " exceeds the maximum " +
                              std::to_string(max_team) + " of " + ExecSpace().name() + " at vector_length " +
                              std::to_string(choice_.launch.vector_length));
      choice_.launch.team_size = max_team;
    }
  }
  if (choice_.schedule == Schedule::nnz_balanced) {
    auto h_part = Kokkos::View<std::int32_t*, Kokkos::HostSpace>(
        "pspmv::partition", static_cast<std::size_t>(choice_.launch.num_blocks) + 1);
    detail::nnz_partition(A.row_ptr.data(), A.nrows, choice_.launch.num_blocks, h_part.data());
    partition_ = Kokkos::View<std::int32_t*, memory_space>("pspmv::partition", h_part.extent(0));
    Kokkos::deep_copy(partition_, h_part);
  }
  A_ = copy_to<memory_space>(A);
  source_row_ptr_ = A.row_ptr.data();
  ExecSpace().fence();
  analyze_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class ExecSpace, class Value, class Offset>
std::string Plan<ExecSpace, Value, Offset>::describe() const {
  const LaunchParams& p = choice_.launch;
  std::string s = "csr " + to_string(choice_.mapping) + " " + to_string(choice_.schedule);
  if (choice_.mapping == Mapping::team_per_row)
    s += " team_size=" + std::to_string(p.team_size) + " vector_length=" + std::to_string(p.vector_length) +
         " league=" + std::to_string(p.league_size);
  if (choice_.schedule == Schedule::nnz_balanced)
    s += " blocks=" + std::to_string(p.num_blocks);
  else
    s += " chunk_rows=" + std::to_string(p.chunk_rows);
  if (choice_.mapping == Mapping::team_per_row && choice_.schedule != Schedule::nnz_balanced)
    s += " rows_per_team=" + std::to_string(p.rows_per_team);
  return s;
}

template <class ExecSpace, class Value, class Offset>
void Plan<ExecSpace, Value, Offset>::multiply(Value alpha, const const_vector_type& x, Value beta,
                                             const vector_type& y) const {
  if (static_cast<std::int64_t>(x.extent(0)) != A_.ncols)
    throw DimensionError("multiply: length of x (= ncols of A)", A_.ncols, static_cast<std::int64_t>(x.extent(0)));
  if (static_cast<std::int64_t>(y.extent(0)) != A_.nrows)
    throw DimensionError("multiply: length of y (= nrows of A)", A_.nrows, static_cast<std::int64_t>(y.extent(0)));
  if (A_.nrows == 0) return;
  {
    const Value* xb = x.data();
    const Value* yb = y.data();
    if (xb != nullptr && yb != nullptr && xb < yb + y.extent(0) && yb < xb + x.extent(0))
      throw InvalidArgument("multiply: x and y overlap in memory; pass distinct vectors");
  }
  using Static = Kokkos::Schedule<Kokkos::Static>;
  using Dynamic = Kokkos::Schedule<Kokkos::Dynamic>;
  const LaunchParams& p = choice_.launch;

  if (alpha == Value(0) || A_.nnz() == 0) {
    Kokkos::parallel_for("pspmv::scale_y", Kokkos::RangePolicy<ExecSpace>(0, A_.nrows),
                         detail::ScaleY<ExecSpace, Value>{y, beta});
    return;
  }

  auto fill = [&](auto& f) {
    f.row_ptr = A_.row_ptr;
    f.col_idx = A_.col_idx;
    f.values = A_.values;
    f.x = x;
    f.y = y;
    f.partition = partition_;
    f.alpha = alpha;
    f.beta = beta;
  };
  const int chunk = static_cast<int>(p.chunk_size);
  if (choice_.mapping == Mapping::thread_per_row) {
    detail::CsrThreadPerRow<ExecSpace, Value, Offset> f;
    fill(f);
    switch (choice_.schedule) {
      case Schedule::static_chunks: {
        Kokkos::RangePolicy<ExecSpace, Static, detail::RowsTag> policy(0, A_.nrows);
        policy.set_chunk_size(chunk);
        Kokkos::parallel_for("pspmv::csr_thread_per_row::static_chunks", policy, f);
        break;
      }
      case Schedule::dynamic_chunks: {
        Kokkos::RangePolicy<ExecSpace, Dynamic, detail::RowsTag> policy(0, A_.nrows);
        policy.set_chunk_size(chunk);
        Kokkos::parallel_for("pspmv::csr_thread_per_row::dynamic_chunks", policy, f);
        break;
      }
      case Schedule::nnz_balanced: {
        Kokkos::RangePolicy<ExecSpace, Static, detail::BlocksTag> policy(0, p.num_blocks);
        policy.set_chunk_size(1);
        Kokkos::parallel_for("pspmv::csr_thread_per_row::nnz_balanced", policy, f);
        break;
      }
    }
  } else {
    detail::CsrTeamPerRow<ExecSpace, Value, Offset> f;
    fill(f);
    f.nrows = A_.nrows;
    f.rows_per_team = p.rows_per_team;
    switch (choice_.schedule) {
      case Schedule::static_chunks: {
        Kokkos::TeamPolicy<ExecSpace, Static, detail::RowsTag> policy(p.league_size, p.team_size, p.vector_length);
        policy.set_chunk_size(chunk);
        Kokkos::parallel_for("pspmv::csr_team_per_row::static_chunks", policy, f);
        break;
      }
      case Schedule::dynamic_chunks: {
        Kokkos::TeamPolicy<ExecSpace, Dynamic, detail::RowsTag> policy(p.league_size, p.team_size, p.vector_length);
        policy.set_chunk_size(chunk);
        Kokkos::parallel_for("pspmv::csr_team_per_row::dynamic_chunks", policy, f);
        break;
      }
      case Schedule::nnz_balanced: {
        Kokkos::TeamPolicy<ExecSpace, Static, detail::BlocksTag> policy(p.league_size, p.team_size, p.vector_length);
        policy.set_chunk_size(1);
        Kokkos::parallel_for("pspmv::csr_team_per_row::nnz_balanced", policy, f);
        break;
      }
    }
  }
}

}  // namespace pspmv

#include "pspmv/detail/extern_plans.hpp"
