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

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

#include "exec_traits.hpp"
#include "pspmv/csr_matrix.hpp"
#include "pspmv/detail/csr_kernels.hpp"
#include "pspmv/detail/launch_params.hpp"
#include "pspmv/detail/schedules.hpp"
#include "pspmv/detail/sell_kernels.hpp"
#include "pspmv/errors.hpp"
#include "pspmv/options.hpp"
#include "pspmv/row_stats.hpp"
#include "pspmv/sell_matrix.hpp"
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
  using sell_type = SellMatrix<Value, memory_space>;
  using vector_type = Kokkos::View<Value*, memory_space>;
  using const_vector_type = Kokkos::View<const Value*, memory_space>;

  /// Analyzes A (validated first) and copies it into ExecSpace's memory. Prefer analyze().
  /// @throws InvalidMatrix / DimensionError if A is not valid CSR; InvalidArgument for
  ///         options out of range (SELL: C not in {4, 8, 16, 32, 64}, sigma < 1).
  explicit Plan(const HostCsr<Value, Offset>& A, const AnalyzeOptions& options = {});

  /// y = alpha * A * x + beta * y, with BLAS semantics: beta == 0 overwrites y without
  /// reading it (NaN or Inf in y do not survive); alpha == 0 only scales y.
  /// Shapes: x has ncols() entries, y has nrows() entries, both in memory_space; x and y
  /// must not overlap. Only launches: no allocation, no host loop over the matrix.
  /// Asynchronous with respect to the host, like any Kokkos launch: fence before reading y.
  /// @throws DimensionError naming both sizes; InvalidArgument if x and y overlap.
  /// A SELL plan with split long rows writes its pieces' sums to a scratch array of the plan,
  /// and a dynamic_chunks or work_stealing plan counts its chunks in cursors of the plan (both shared by
  /// copies of the plan): run one multiply() of a plan at a time. Kernels go to
  /// ExecSpace's default instance (no stream argument).
  void multiply(Value alpha, const const_vector_type& x, Value beta, const vector_type& y) const;

  /// multiply() with the kernels' gather unroll factor (entries a thread loads before it
  /// gathers x; see detail::gather_dot) set to Unroll instead of ExecTraits::gather_unroll,
  /// and LongUnroll for the long-row kernel of a SELL plan instead of
  /// ExecTraits::long_row_unroll. For experiments (`pspmv bench --unroll-sweep`): kernels
  /// run at a non-default factor carry "::U=<factor>" in their Kokkos Tools label. Same
  /// results up to rounding order only where lanes share a row.
  template <int Unroll, int LongUnroll = Unroll>
  void multiply_unrolled(Value alpha, const const_vector_type& x, Value beta, const vector_type& y) const;

  std::int32_t nrows() const { return nrows_; }
  std::int32_t ncols() const { return ncols_; }
  std::int64_t nnz() const { return nnz_; }
  Format format() const { return format_; }
  Mapping mapping() const { return choice_.mapping; }
  Schedule schedule() const { return choice_.schedule; }
  const LaunchParams& launch() const { return choice_.launch; }
  /// Why analyze() chose this mapping and schedule (the statistic that decided).
  const std::string& reason() const { return choice_.reason; }
  const RowStats& row_stats() const { return stats_; }
  const LaneSlots& lane_slots() const { return lane_slots_; }
  /// Wall time of the analysis (validation, statistics, partition, device copy), seconds.
  double analyze_seconds() const { return analyze_seconds_; }
  /// The plan's own CSR copy of the matrix, in memory_space (empty when format() is sell).
  const matrix_type& matrix() const { return A_; }
  /// The plan's own SELL-C-sigma copy (empty when format() is csr).
  const sell_type& sell() const { return S_; }
  /// SELL: perm(p) = caller's row held at the plan's row position p (empty for CSR). With
  /// keep_permuted, y(p) holds row perm(p) of A x. With split long rows (never together with
  /// keep_permuted) it is the table of the plan's positions, not a row permutation: it has
  /// nrows() + pieces entries, and perm(p) >= nrows() names piece perm(p) - nrows() of a
  /// long row (launch().long_split, launch().long_pieces).
  Kokkos::View<const std::int32_t*, memory_space> permutation() const { return S_.perm; }
  /// Stored entries over nnz: the SELL padding ratio (1 for CSR).
  double padding_ratio() const { return format_ == Format::sell ? S_.padding_ratio() : 1.0; }
  /// Bytes of the CSR the plan was built from (row_ptr, col_idx, values).
  std::size_t csr_bytes() const { return csr_bytes_; }
  /// Device bytes the plan holds (matrix copy, partition, the piece sums of split long rows,
  /// the cursors of a run-time schedule).
  std::size_t bytes() const {
    return A_.bytes() + S_.bytes() + partition_.extent(0) * sizeof(std::int32_t) + partial_.extent(0) * sizeof(Value) +
           chunk_cursors_.extent(0) * sizeof(std::int64_t);
  }
  /// Whether this plan was built from A's storage: same dimensions, nnz and row_ptr array.
  /// Cheap; says nothing about A's entries (see matches()).
  bool built_from(const HostCsr<Value, Offset>& A) const {
    return A.nrows == nrows_ && A.ncols == ncols_ && static_cast<std::int64_t>(A.nnz()) == nnz_ &&
           A.row_ptr.data() == source_row_ptr_;
  }
  /// Content fingerprint (pspmv::fingerprint) of the matrix at analyze time; 0 when
  /// AnalyzeOptions::fingerprint was false.
  std::uint64_t fingerprint() const { return fingerprint_; }
  /// Whether A still holds what this plan was built from: same dimensions and nnz, and
  /// the same fingerprint of row_ptr, col_idx and values (one pass over A). A plan keeps
  /// its own copy, so a changed A does not change what multiply() computes: this is how a
  /// caller detects that the plan is stale and must be analyzed again.
  /// @throws InvalidArgument if the plan was analyzed with fingerprint = false.
  bool matches(const HostCsr<Value, Offset>& A) const {
    if (!has_fingerprint_)
      throw InvalidArgument("Plan::matches: this plan was analyzed with AnalyzeOptions::fingerprint = false");
    return A.nrows == nrows_ && A.ncols == ncols_ && static_cast<std::int64_t>(A.nnz()) == nnz_ &&
           pspmv::fingerprint(A) == fingerprint_;
  }
  /// One line: format, mapping, schedule and launch sizes.
  std::string describe() const;

 private:
  matrix_type A_;
  sell_type S_;
  Format format_ = Format::csr;
  std::int32_t nrows_ = 0, ncols_ = 0;
  std::int64_t nnz_ = 0;
  std::size_t csr_bytes_ = 0;
  bool keep_permuted_ = false;
  std::string label_;  ///< Kokkos Tools name of the kernel, e.g. "pspmv::csr_thread_per_row::static_chunks"
  std::string long_label_;  ///< the long-row kernel's: sell_long_rows or sell_combine_pieces (built once)
  int log2_c_ = 0;  ///< SELL: log2 of the slice height
  Kokkos::View<std::int32_t*, memory_space> partition_;
  /// SELL with split long rows: one sum per piece, written and read inside each multiply()
  /// (so one plan must not run two multiply() calls at the same time).
  Kokkos::View<Value*, memory_space> partial_;
  /// dynamic_chunks and work_stealing: the cursors of the chunk queues (detail::ChunkQueues),
  /// set to 0 and counted up inside each multiply() (so, as with split long rows, one plan
  /// must not run two multiply() calls at the same time).
  Kokkos::View<std::int64_t*, memory_space> chunk_cursors_;
  detail::LaunchChoice choice_;
  RowStats stats_;
  LaneSlots lane_slots_;
  double analyze_seconds_ = 0;
  const void* source_row_ptr_ = nullptr;
  std::uint64_t fingerprint_ = 0;
  bool has_fingerprint_ = false;
};

// analyze(), the first stage of the two-stage API, is in pspmv/tune.hpp (included below):
// with AnalyzeOptions::selection = tune it times candidate plans.

// ---------------------------------------------------------------------------------------

template <class ExecSpace, class Value, class Offset>
Plan<ExecSpace, Value, Offset>::Plan(const HostCsr<Value, Offset>& A, const AnalyzeOptions& options) {
  using Traits = ExecTraits<ExecSpace>;
  const auto t0 = std::chrono::steady_clock::now();
  validate(A);
  nrows_ = A.nrows;
  ncols_ = A.ncols;
  nnz_ = static_cast<std::int64_t>(A.nnz());
  csr_bytes_ = A.bytes();
  keep_permuted_ = options.keep_permuted;
  if (options.fingerprint) {
    fingerprint_ = pspmv::fingerprint(A);
    has_fingerprint_ = true;
  }
  stats_ = compute_row_stats(A.row_ptr.data(), A.nrows, A.ncols);
  if (Traits::scattered_sell_spread > 0)  // only a rule that uses it pays for the pass over col_idx
    stats_.col_spread = column_spread(A.row_ptr.data(), A.col_idx.data(), A.nrows, A.ncols);
  lane_slots_ = compute_lane_slots(A.row_ptr.data(), A.nrows, Traits::model_lane_width);
  // Machine profile (pspmv calibrate, profile.hpp): the gains its probes predict for this matrix.
  MachineProfile::Estimate profile_est;
  std::string profile_reason;
  std::string profile_miss;  // a profile was given, but no probe of this schedule lies in reach
  if (options.profile) {
    if (Traits::is_gpu)
      throw InvalidArgument(std::string("machine profiles apply to host execution spaces; ") + ExecSpace().name() +
                            " keeps its compile-time ExecTraits (leave AnalyzeOptions::profile empty there)");
    options.profile->check(ExecSpace().name(), ExecSpace().concurrency());
    if (stats_.col_spread < 0)
      stats_.col_spread = column_spread(A.row_ptr.data(), A.col_idx.data(), A.nrows, A.ncols);
    // The probes' gains hold under the schedule they were timed with: the model's CSR schedule
    // for them, so the one this matrix's CSR plan would take (or the caller's).
    const Schedule csr_schedule =
        detail::choose_launch<ExecSpace, Value>(stats_, lane_slots_, A.row_ptr.data(), options, Format::csr, 0)
            .schedule;
    profile_est = options.profile->estimate(stats_, static_cast<int>(sizeof(Value)),
                                            static_cast<std::int64_t>(csr_bytes_), csr_schedule);
    if (!profile_est.nearest && static_cast<std::int64_t>(csr_bytes_) >= options.profile->min_csr_bytes)
      profile_miss = "; machine profile (" + options.profile->machine + "): no probe timed under " +
                     to_string(csr_schedule) + " within distance " +
                     std::to_string(options.profile->max_distance).substr(0, 4) + " (compile-time model)";
    if (profile_est.nearest)
      profile_reason = "machine profile (" + options.profile->machine + "): " + std::to_string(profile_est.probes) +
                       " probe(s) timed under " + to_string(csr_schedule) + " within distance " +
                       std::to_string(options.profile->max_distance).substr(0, 4) +
                       ", nearest " + profile_est.nearest->name + " (mean " +
                       std::to_string(profile_est.nearest->mean).substr(0, 5) + ", cv " +
                       std::to_string(profile_est.nearest->cv).substr(0, 4) + ", x reach " +
                       std::to_string(std::lround(options.profile->reach(profile_est.nearest->col_spread,
                                                                         profile_est.nearest->nrows,
                                                                         profile_est.nearest->value_bytes))) +
                       " B against this matrix's " +
                       std::to_string(std::lround(options.profile->reach(stats_.col_spread, stats_.ncols,
                                                                         static_cast<int>(sizeof(Value))))) +
                       " B; distance " + std::to_string(profile_est.distance).substr(0, 4) + ")";
  }
  const bool profiled = profile_est.nearest != nullptr;

  // Format: forced, or SELL where this space prefers it and it fits the memory limit.
  if (options.sigma < 0 || options.slice_height < 0)
    throw InvalidArgument("AnalyzeOptions: SELL sigma and slice_height must be >= 0 (0 = choose), got sigma = " +
                          std::to_string(options.sigma) + ", slice_height = " + std::to_string(options.slice_height));
  const int C = options.slice_height > 0 ? options.slice_height : Traits::template sell_slice_height<Value>();
  const std::int64_t sigma = std::max<std::int64_t>(
      1, std::min<std::int64_t>(options.sigma > 0 ? options.sigma : std::int64_t{Traits::sell_sigma_slices} * C,
                                std::max<std::int32_t>(1, A.nrows)));
  const std::int64_t long_row = options.sell_long_row != 0 ? options.sell_long_row : Traits::sell_long_row;
  const std::int64_t long_threshold = long_row > 0 ? long_row : 0;
  if (options.keep_permuted && long_threshold > 0 && options.sell_long_split.value_or(false))
    throw InvalidArgument("keep_permuted needs sell_long_split = false: a piece of a split long row has no "
                          "position of its own in y");
  const bool long_split =
      long_threshold > 0 && !options.keep_permuted && options.sell_long_split.value_or(Traits::sell_long_split);
  std::string format_reason;
  const bool caller_limit = options.sell_memory_limit > 0;
  const double limit = caller_limit ? options.sell_memory_limit : Traits::sell_memory_limit;
  // SELL if its bytes stay within `allowed` times the CSR bytes, else CSR; returns the reason.
  auto sell_within = [&](const double allowed, const std::string& why) {
    const SellShape shape = sell_shape(A.row_ptr.data(), A.nrows, C, sigma, long_threshold, long_split);
    const double ratio = static_cast<double>(shape.bytes(sizeof(Value), A.nrows)) / static_cast<double>(csr_bytes_);
    format_ = ratio <= allowed ? Format::sell : Format::csr;
    return "SELL-" + std::to_string(C) + "-" + std::to_string(sigma) + " would take " +
           std::to_string(ratio).substr(0, 5) + "x the CSR bytes (padding " + std::to_string(shape.padding).substr(0, 5) +
           ") " + (ratio <= allowed ? "<= " : "> ") + std::to_string(allowed).substr(0, 4) + why +
           (ratio <= allowed ? ": SELL" : ": keeping CSR");
  };
  if (options.format) {
    format_ = *options.format;
    format_reason = "format forced";
    if (options.keep_permuted && format_ != Format::sell)
      throw InvalidArgument("keep_permuted needs a SELL plan (a CSR plan keeps the caller's row order); "
                            "set format = sell or leave it to analyze()");
  } else if (options.keep_permuted) {
    format_ = Format::sell;
    format_reason = "keep_permuted: SELL";
  } else if (profiled && profile_est.sell_gain >= options.profile->min_gain) {
    format_reason = profile_reason + ": SELL ran them " + std::to_string(profile_est.sell_gain).substr(0, 5) +
                    "x faster than CSR; " +
                    sell_within(caller_limit ? limit : std::max(limit, options.profile->sell_memory_limit),
                                " (the profile's limit)");
  } else if (profiled) {
    format_ = Format::csr;
    format_reason = profile_reason + ": CSR (" +
                    (profile_est.sell_gain > 0 ? "SELL's gain " + std::to_string(profile_est.sell_gain).substr(0, 5) +
                                                     " < " + std::to_string(options.profile->min_gain).substr(0, 4)
                                               : std::string("SELL exceeded the memory limit there")) +
                    ")";
  } else if (Traits::prefer_sell && !options.mapping &&
             detail::small_matrix_warp_per_row<Traits>(stats_, ExecSpace().concurrency())) {
    format_ = Format::csr;
    format_reason = "small matrix (ExecTraits::small_team_min_row): CSR";
  } else if (Traits::prefer_sell) {
    // Irregular rows: thread-per-row CSR would idle most lanes, so SELL may take more memory.
    const bool irregular = !caller_limit && lane_slots_.useful_thread_per_row < Traits::irregular_useful_share;
    format_reason = sell_within(irregular ? std::max(limit, Traits::sell_memory_limit_irregular) : limit,
                                irregular ? " (irregular rows: thread-per-row CSR " +
                                                std::to_string(static_cast<int>(
                                                    100 * lane_slots_.useful_thread_per_row + 0.5)) +
                                                "% useful lane-slots)"
                                          : std::string());
  } else if (Traits::scattered_sell_spread > 0 && stats_.col_spread >= Traits::scattered_sell_spread &&
             static_cast<std::int64_t>(csr_bytes_) >=
                 Traits::scattered_sell_bytes_per_thread * ExecSpace().concurrency()) {
    // Scattered columns on a matrix far beyond the caches: SELL's C rows side by side in SIMD
    // lanes gather C independent x entries per column step (see ExecTraits::scattered_sell_spread).
    format_reason = "scattered columns (spread " + std::to_string(stats_.col_spread).substr(0, 5) + " >= " +
                    std::to_string(Traits::scattered_sell_spread).substr(0, 4) + "): " +
                    sell_within(limit, std::string());
  } else {
    format_ = Format::csr;
    format_reason = "host default: CSR";
  }
  if (format_ == Format::sell) check_sell_parameters(C, sigma);
  // The profile's mapping: team_per_row where it beat thread_per_row on the probes near this matrix.
  const bool profile_team = profiled && format_ == Format::csr && !options.mapping &&
                            profile_est.team_gain >= options.profile->min_gain;
  AnalyzeOptions launch_options = options;
  if (profile_team) launch_options.mapping = Mapping::team_per_row;
  choice_ = detail::choose_launch<ExecSpace, Value>(stats_, lane_slots_, A.row_ptr.data(), launch_options, format_,
                                                    format_ == Format::sell ? C : 0);
  if (profile_team) {
    const std::string forced = "mapping forced";
    choice_.reason = "team_per_row (the profile's probes ran it " +
                     std::to_string(profile_est.team_gain).substr(0, 5) + "x faster than thread_per_row)" +
                     choice_.reason.substr(forced.size());
  } else if (profiled && format_ == Format::csr && !options.mapping) {
    // The note belongs to the mapping, the first clause of the reason (before the schedule's).
    const std::string note = " (the profile's probes: team_per_row's gain " +
                             std::to_string(profile_est.team_gain).substr(0, 5) + " < " +
                             std::to_string(options.profile->min_gain).substr(0, 4) + ")";
    // The first "; " outside parentheses ends the mapping's clause.
    std::size_t end = std::string::npos;
    int depth = 0;
    for (std::size_t i = 0; i + 1 < choice_.reason.size() && end == std::string::npos; ++i) {
      const char ch = choice_.reason[i];
      depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
      if (depth == 0 && ch == ';' && choice_.reason[i + 1] == ' ') end = i;
    }
    choice_.reason.insert(end == std::string::npos ? choice_.reason.size() : end, note);
  }
  choice_.reason = format_reason + "; " + choice_.reason + profile_miss;
  if (choice_.mapping == Mapping::team_per_row) {
    // Ask Kokkos for the largest team it can launch, so that a bad request is an
    // exception here rather than a Kokkos::abort inside multiply().
    const int max_team =
        format_ == Format::sell
            ? Kokkos::TeamPolicy<ExecSpace, detail::RowsTag>(1, 1, choice_.launch.vector_length)
                  .team_size_max(detail::SellSlicePerTeam<ExecSpace, Value>{}, Kokkos::ParallelForTag())
            : Kokkos::TeamPolicy<ExecSpace, detail::RowsTag>(1, 1, choice_.launch.vector_length)
                  .team_size_max(detail::CsrTeamPerRow<ExecSpace, Value, Offset>{}, Kokkos::ParallelForTag());
    if (choice_.launch.team_size > max_team) {
      if (options.team_size > 0)
        throw InvalidArgument("team_size " + std::to_string(choice_.launch.team_size) + " exceeds the maximum " +
                              std::to_string(max_team) + " of " + ExecSpace().name() + " at vector_length " +
                              std::to_string(choice_.launch.vector_length));
      choice_.launch.team_size = max_team;
    }
  }
  if (format_ == Format::sell) {
    const auto h = csr_to_sell(A, C, sigma, long_threshold, long_split);
    choice_.launch.sigma = h.sigma;
    choice_.launch.long_row_threshold = long_threshold;
    choice_.launch.long_rows = h.nlong();
    choice_.launch.long_split = h.long_split;
    choice_.launch.long_pieces = h.npieces();
    if (choice_.mapping == Mapping::team_per_row && choice_.schedule != Schedule::nnz_balanced)
      // Slices of the plan's positions (the pieces of split long rows included).
      choice_.launch.league_size = (h.nslices() + choice_.launch.slices_per_team - 1) / choice_.launch.slices_per_team;
    if (h.long_split && h.npieces() > 0)
      partial_ = Kokkos::View<Value*, memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "pspmv::sell_partial"),
                                                     static_cast<std::size_t>(h.npieces()));
    if (h.nlong() > 0 && !h.long_split) {
      // One long row per team thread, its lanes sharing the row: warp-per-row on a GPU.
      choice_.launch.long_vector_length = Traits::is_gpu ? 32 : Traits::template simd_lanes<Value>();
      choice_.launch.long_team_size = Traits::long_row_warps;
      const int max_team = Kokkos::TeamPolicy<ExecSpace>(1, 1, choice_.launch.long_vector_length)
                               .team_size_max(detail::SellLongRows<ExecSpace, Value>{}, Kokkos::ParallelForTag());
      choice_.launch.long_team_size = std::max(1, std::min(choice_.launch.long_team_size, max_team));
    }
    if (choice_.schedule == Schedule::nnz_balanced) {
      // Blocks of whole slices with nearly equal stored entries.
      const std::int64_t nslices = h.nslices();
      choice_.launch.num_blocks = std::max<std::int64_t>(1, std::min<std::int64_t>(choice_.launch.num_blocks, nslices));
      if (choice_.mapping == Mapping::team_per_row) choice_.launch.league_size = choice_.launch.num_blocks;
      auto h_part = Kokkos::View<std::int32_t*, Kokkos::HostSpace>(
          "pspmv::partition", static_cast<std::size_t>(choice_.launch.num_blocks) + 1);
      detail::nnz_partition(h.slice_ptr.data(), static_cast<std::int32_t>(nslices), choice_.launch.num_blocks,
                            h_part.data());
      partition_ = Kokkos::View<std::int32_t*, memory_space>("pspmv::partition", h_part.extent(0));
      Kokkos::deep_copy(partition_, h_part);
    }
    S_ = copy_to<memory_space>(h);
    while ((1 << log2_c_) < C) ++log2_c_;
  } else {
    if (choice_.schedule == Schedule::nnz_balanced) {
      auto h_part = Kokkos::View<std::int32_t*, Kokkos::HostSpace>(
          "pspmv::partition", static_cast<std::size_t>(choice_.launch.num_blocks) + 1);
      detail::nnz_partition(A.row_ptr.data(), A.nrows, choice_.launch.num_blocks, h_part.data());
      partition_ = Kokkos::View<std::int32_t*, memory_space>("pspmv::partition", h_part.extent(0));
      Kokkos::deep_copy(partition_, h_part);
    }
    A_ = copy_to<memory_space>(A);
  }
  if (choice_.schedule == Schedule::dynamic_chunks || choice_.schedule == Schedule::work_stealing)
    chunk_cursors_ = Kokkos::View<std::int64_t*, memory_space>(
        "pspmv::chunk_cursors",
        static_cast<std::size_t>(std::min<std::int64_t>(ExecSpace().concurrency(), Traits::max_chunk_queues) *
                                 Traits::chunk_queue_stride));
  label_ = std::string("pspmv::") +
           (format_ == Format::sell
                ? (choice_.mapping == Mapping::thread_per_row ? "sell_row_per_thread" : "sell_slice_per_team")
                : (choice_.mapping == Mapping::thread_per_row ? "csr_thread_per_row" : "csr_team_per_row")) +
           "::" + to_string(choice_.schedule);
  long_label_ = choice_.launch.long_split ? "pspmv::sell_combine_pieces" : "pspmv::sell_long_rows";
  source_row_ptr_ = A.row_ptr.data();
  ExecSpace().fence();
  analyze_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class ExecSpace, class Value, class Offset>
std::string Plan<ExecSpace, Value, Offset>::describe() const {
  const LaunchParams& p = choice_.launch;
  std::string s = format_ == Format::sell
                      ? "sell C=" + std::to_string(p.slice_height) + " sigma=" + std::to_string(p.sigma) +
                            " padding=" + std::to_string(S_.padding_ratio()).substr(0, 5) + " "
                      : std::string("csr ");
  s += to_string(choice_.mapping) + " " + to_string(choice_.schedule);
  if (choice_.mapping == Mapping::team_per_row)
    s += " team_size=" + std::to_string(p.team_size) + " vector_length=" + std::to_string(p.vector_length) +
         " league=" + std::to_string(p.league_size);
  if (format_ == Format::sell && p.long_rows > 0)
    s += " long_rows=" + std::to_string(p.long_rows) + "(>" + std::to_string(p.long_row_threshold) + ")" +
         (p.long_split ? " split=" + std::to_string(p.long_pieces) + "pieces" : " warp");
  if (choice_.schedule == Schedule::nnz_balanced)
    s += " blocks=" + std::to_string(p.num_blocks);
  else
    s += " chunk_rows=" + std::to_string(p.chunk_rows);
  if (choice_.mapping == Mapping::team_per_row && choice_.schedule != Schedule::nnz_balanced)
    s += format_ == Format::sell ? " slices_per_team=" + std::to_string(p.slices_per_team)
                                 : " rows_per_team=" + std::to_string(p.rows_per_team);
  return s;
}


// Defined out of the class so that the explicit instantiations in backends/*/instantiate.cpp
// (and `extern template` in detail/extern_plans.hpp) cover it: an application does not
// compile the kernels again.
template <class ExecSpace, class Value, class Offset>
void Plan<ExecSpace, Value, Offset>::multiply(Value alpha, const const_vector_type& x, Value beta,
                                             const vector_type& y) const {
  multiply_unrolled<ExecTraits<ExecSpace>::gather_unroll, ExecTraits<ExecSpace>::long_row_unroll>(alpha, x, beta, y);
}

template <class ExecSpace, class Value, class Offset>
template <int Unroll, int LongUnroll>
void Plan<ExecSpace, Value, Offset>::multiply_unrolled(Value alpha, const const_vector_type& x, Value beta,
                                                      const vector_type& y) const {
  if (static_cast<std::int64_t>(x.extent(0)) != ncols_)
    throw DimensionError("multiply: length of x (= ncols of A)", ncols_, static_cast<std::int64_t>(x.extent(0)));
  if (static_cast<std::int64_t>(y.extent(0)) != nrows_)
    throw DimensionError("multiply: length of y (= nrows of A)", nrows_, static_cast<std::int64_t>(y.extent(0)));
  if (nrows_ == 0) return;
  {
    const Value* xb = x.data();
    const Value* yb = y.data();
    if (xb != nullptr && yb != nullptr && xb < yb + y.extent(0) && yb < xb + x.extent(0))
      throw InvalidArgument("multiply: x and y overlap in memory; pass distinct vectors");
  }
  const LaunchParams& p = choice_.launch;
  // Experiments only (multiply() itself builds no string): a non-default unroll factor is
  // named in the label, at the cost of one string per call of the sweep.
  constexpr bool default_unroll = Unroll == ExecTraits<ExecSpace>::gather_unroll;
  constexpr bool default_long = LongUnroll == ExecTraits<ExecSpace>::long_row_unroll;
  const std::string unrolled = default_unroll ? std::string() : label_ + "::U=" + std::to_string(Unroll);
  const std::string& label = default_unroll ? label_ : unrolled;
  if (alpha == Value(0) || nnz_ == 0) {
    Kokkos::parallel_for("pspmv::scale_y", Kokkos::RangePolicy<ExecSpace>(0, nrows_),
                         detail::ScaleY<ExecSpace, Value>{y, beta});
    return;
  }
  const int chunk = static_cast<int>(p.chunk_size);
  if (format_ == Format::sell) {
    auto fill_sell = [&](auto& f) {
      f.slice_ptr = S_.slice_ptr;
      f.row_len = S_.row_len;
      f.perm = S_.perm;
      f.col_idx = S_.col_idx;
      f.values = S_.values;
      f.x = x;
      f.y = y;
      f.partition = partition_;
      f.alpha = alpha;
      f.beta = beta;
      f.partial = partial_;
      f.nrows = nrows_;
      f.npos = S_.npos;
      f.nslices = static_cast<std::int32_t>(S_.nslices());
      f.log2_c = log2_c_;
      f.permuted_output = keep_permuted_;
    };
    if (choice_.mapping == Mapping::thread_per_row) {
      detail::SellRowPerThread<ExecSpace, Value, Unroll> f;
      fill_sell(f);
      detail::launch_range<ExecSpace>(label, choice_.schedule, S_.npos, p.num_blocks, chunk, f, chunk_cursors_);
    } else {
      detail::SellSlicePerTeam<ExecSpace, Value, Unroll> f;
      fill_sell(f);
      f.slices_per_team = p.slices_per_team;
      detail::launch_teams<ExecSpace>(label, choice_.schedule, p, f, chunk_cursors_);
    }
    if (p.long_rows > 0 && p.long_split) {
      detail::SellCombinePieces<ExecSpace, Value> g{S_.long_rows, S_.piece_ptr, partial_, y, alpha, beta};
      Kokkos::parallel_for(long_label_, Kokkos::RangePolicy<ExecSpace>(0, p.long_rows), g);
    } else if (p.long_rows > 0) {
      detail::SellLongRows<ExecSpace, Value, LongUnroll> g;
      g.long_rows = S_.long_rows;
      g.long_pos = S_.long_pos;
      g.long_row_ptr = S_.long_row_ptr;
      g.col_idx = S_.long_col_idx;
      g.values = S_.long_values;
      g.x = x;
      g.y = y;
      g.alpha = alpha;
      g.beta = beta;
      g.nlong = static_cast<std::int32_t>(p.long_rows);
      g.rows_per_team = p.long_team_size;
      g.vector_length = p.long_vector_length;
      g.permuted_output = keep_permuted_;
      const std::int64_t league = (p.long_rows + p.long_team_size - 1) / p.long_team_size;
      const std::string long_unrolled =
          default_long ? std::string() : long_label_ + "::U=" + std::to_string(LongUnroll);
      Kokkos::parallel_for(default_long ? long_label_ : long_unrolled,
                           Kokkos::TeamPolicy<ExecSpace>(league, p.long_team_size, p.long_vector_length), g);
    }
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
  if (choice_.mapping == Mapping::thread_per_row) {
    detail::CsrThreadPerRow<ExecSpace, Value, Offset, Unroll> f;
    fill(f);
    detail::launch_range<ExecSpace>(label, choice_.schedule, nrows_, p.num_blocks, chunk, f, chunk_cursors_);
  } else {
    detail::CsrTeamPerRow<ExecSpace, Value, Offset, Unroll> f;
    fill(f);
    f.nrows = nrows_;
    f.rows_per_team = p.rows_per_team;
    f.vector_length = p.vector_length;
    detail::launch_teams<ExecSpace>(label, choice_.schedule, p, f, chunk_cursors_);
  }
}

}  // namespace pspmv

#include "pspmv/detail/extern_plans.hpp"
#include "pspmv/tune.hpp"
