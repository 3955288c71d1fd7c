#pragma once
/// @file plan.hpp
/// Plan: an analyzed matrix, ready to multiply on an execution space: the decisions of choose()
/// (a PlanChoice and its Reason), its own copy of the matrix in the space's memory, and the
/// statistics the decisions came from. Built by analyze() (analyze.hpp).

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "pspmv/detail/launch.hpp"  // storage, kernels, schedules
#include "pspmv/detail/multi_launch.hpp"  // several vectors
#include "pspmv/matrix/fingerprint.hpp"
#include "pspmv/matrix/row_stats_on.hpp"
#include "pspmv/matrix/transpose.hpp"
#include "pspmv/select/choose.hpp"  // options, ExecTraits, matrices, row statistics

namespace pspmv {

/// Tag of the Plan constructor that analyzes a CSR already in the execution space's memory.
struct ResidentInput {};

/// Determinism: two multiplies of one plan on the same inputs give bit-identical y, for every
/// format, mapping and schedule and for several vectors (no atomics; every reduction order is
/// fixed in the plan: docs/design.md, Determinism). Plans analyzed with
/// AnalyzeOptions::deterministic also agree with each other whatever their schedule and launch sizes.
/// @tparam ExecSpace Kokkos::OpenMP, Serial or Cuda; Value float or double (x, y, alpha, beta and
///         the sums); Offset int32_t or int64_t; MatrixValue the stored matrix's values: Value, or
///         float under double vectors (mixed precision: the matrix read in half the bytes, each
///         product formed and summed in double; MixedPlan)
template <class ExecSpace, class Value, class Offset = std::int64_t, class MatrixValue = Value>
class Plan {
  static_assert(std::is_same<MatrixValue, Value>::value ||
                    (std::is_same<MatrixValue, float>::value && std::is_same<Value, double>::value),
                "Plan: the matrix holds Value, or float under double vectors");

 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using value_type = Value;
  using matrix_value_type = MatrixValue;
  using offset_type = Offset;
  using matrix_type = CsrMatrix<MatrixValue, Offset, std::int32_t, memory_space>;
  using sell_type = SellMatrix<MatrixValue, memory_space>;
  using vector_type = Kokkos::View<Value*, memory_space>;
  using const_vector_type = Kokkos::View<const Value*, memory_space>;
  using workspace_type = Workspace<ExecSpace, Value>;
  /// k vectors as the columns of a rank-2 View (Kokkos::LayoutRight, the fast layout, or LayoutLeft).
  template <class Layout = Kokkos::LayoutRight>
  using multivector_type = Kokkos::View<Value**, Layout, memory_space>;

  /// Analyzes A (validated first) for the instance `space`: row statistics, choose(), then
  /// the storage it chose, in the space's memory (a host CSR plan holds A's arrays unless
  /// AnalyzeOptions::copy_matrix). Prefer analyze() (analyze.hpp).
  /// @throws InvalidMatrix / DimensionError if A is not valid CSR; InvalidArgument as choose().
  Plan(const ExecSpace& space, const HostCsr<MatrixValue, Offset>& A, const AnalyzeOptions& options = {})
      : Plan(space, A, options.fingerprint, decide(space, A, options)) {}
  /// Analyzes A for `space` with `options`, reusing `like`, a plan of the same matrix
  /// (like.built_from(A)): its validation and statistics, and its stored matrix when the
  /// chosen one is the same (format, C, sigma, long rows): then only the choice and the
  /// partition are computed. The matrix's entries must not have changed since `like` was
  /// built (like.matches(A) checks them). Prefer analyze(space, A, options, like).
  /// @throws InvalidArgument if like was not built from A; as choose().
  Plan(const ExecSpace& space, const HostCsr<MatrixValue, Offset>& A, const AnalyzeOptions& options, const Plan& like)
      : Plan(space, A, options.fingerprint, decide_like(space, A, options, like), &like) {}
  /// Analyzes A, a CSR already in memory_space (on a GPU, the application's device matrix),
  /// for `space`, without copying it through the host: row_ptr and the column indices are
  /// checked on `space` (validate_on), and away from the host's memory the row statistics are
  /// computed there (matrix_facts_on), so that row_ptr comes to the host only for a CSR plan of
  /// nnz-balanced blocks, or a matrix without rows or with a row of 2^31 entries or more
  /// (AnalysisPhases::row_ptr_read_back); SELL is built there, and a CSR plan holds A's arrays
  /// (or a copy made on `space` with AnalyzeOptions::copy_matrix). The result is the plan analyze() makes of
  /// a host copy of A: the same choice and stored matrix. Where memory_space is not the host's
  /// the plan holds no fingerprint (hashing would read the entries back; matches() throws).
  /// Prefer analyze(space, A, options).
  /// @throws as analyze(); InvalidArgument for Selection::tune (it times host-built plans).
  Plan(ResidentInput, const ExecSpace& space, const matrix_type& A, const AnalyzeOptions& options = {});

  /// y = alpha * op(A) * x + beta * y on the instance `space` (op(A) = A, or A^T for a plan of
  /// Operation::transpose: x then has nrows() entries and y ncols()), with BLAS semantics: beta == 0
  /// overwrites y without reading it (NaN or Inf in y do not survive); alpha == 0 only scales
  /// y. x has ncols() entries, y nrows(), both in memory_space, not overlapping. Only launches
  /// (no allocation; a host plan of the serial schedule runs its rows on the calling thread),
  /// asynchronous like any Kokkos launch:
  /// fence `space` before reading y. Scratch goes to `workspace` (make_workspace()): two
  /// multiplies of one plan may run at once on two instances with one workspace each.
  /// @throws DimensionError naming both sizes; InvalidArgument if x and y overlap.
  void multiply(const ExecSpace& space, Value alpha, const const_vector_type& x, Value beta, const vector_type& y,
                const workspace_type& workspace) const;
  /// multiply() with the plan's own workspace (shared by copies of the plan): calls on one
  /// instance are ordered; calls that may overlap need their own when needs_workspace().
  void multiply(const ExecSpace& space, Value alpha, const const_vector_type& x, Value beta,
                const vector_type& y) const {
    multiply(space, alpha, x, beta, y, workspace_);
  }
  /// multiply() on the default instance of ExecSpace, with the plan's own workspace.
  void multiply(Value alpha, const const_vector_type& x, Value beta, const vector_type& y) const {
    multiply(ExecSpace(), alpha, x, beta, y, workspace_);
  }
  /// The three multiply()s above for x and y of any other rank-1 View type of Value in
  /// memory_space with a contiguous layout (`Kokkos::View<double*>`, non-const x, unmanaged
  /// Views, ...): they reach the kernels as they are, without the vector_type and
  /// const_vector_type a conversion would make (managed copies: an atomic increment and
  /// decrement of each View's count on every call, a measurable part of a multiply of a few
  /// hundred entries on a host).
  template <class XV, class YV, std::enable_if_t<detail::plain_vectors<XV, YV, Value, memory_space>, int> = 0>
  void multiply(const ExecSpace& space, Value alpha, const XV& x, Value beta, const YV& y,
                const workspace_type& workspace) const {
    multiply_x(space, alpha, x.data(), x.extent(0), beta, y.data(), y.extent(0), workspace);
  }
  template <class XV, class YV, std::enable_if_t<detail::plain_vectors<XV, YV, Value, memory_space>, int> = 0>
  void multiply(const ExecSpace& space, Value alpha, const XV& x, Value beta, const YV& y) const {
    multiply(space, alpha, x, beta, y, workspace_);
  }
  template <class XV, class YV, std::enable_if_t<detail::plain_vectors<XV, YV, Value, memory_space>, int> = 0>
  void multiply(Value alpha, const XV& x, Value beta, const YV& y) const {
    multiply(ExecSpace(), alpha, x, beta, y, workspace_);
  }

  /// Y = alpha * op(A) * X + beta * Y for k vectors at once (SpMM): X of x_length() x k and Y of
  /// y_length() x k, rank-2 Views of Value in memory_space with LayoutRight or LayoutLeft (the two
  /// may differ), k >= 0. The plan's format, mapping and schedule, with each matrix entry read
  /// once for up to ExecTraits::multi_columns columns (16 on a host, 8 on a GPU; more take one
  /// pass per that many; detail/multi_kernels.hpp). The fast
  /// layout is LayoutRight on both backends: an entry's k values of X are contiguous. BLAS
  /// semantics and ordering as the one-vector multiply(); k == 1 with contiguous columns runs
  /// the one-vector kernel, so it gives that multiply's y bit for bit.
  /// @throws DimensionError naming both sizes (rows of X, rows of Y, columns of X and Y);
  ///         InvalidArgument if X and Y overlap or the workspace is too small.
  template <class XView, class YView, std::enable_if_t<(Kokkos::is_view<XView>::value && XView::rank == 2), int> = 0>
  void multiply(const ExecSpace& space, Value alpha, const XView& X, Value beta, const YView& Y,
                const workspace_type& workspace) const;
  /// multiply() of k vectors with the plan's own workspace.
  template <class XView, class YView, std::enable_if_t<(Kokkos::is_view<XView>::value && XView::rank == 2), int> = 0>
  void multiply(const ExecSpace& space, Value alpha, const XView& X, Value beta, const YView& Y) const {
    multiply(space, alpha, X, beta, Y, workspace_);
  }
  /// multiply() of k vectors on the default instance, with the plan's own workspace.
  template <class XView, class YView, std::enable_if_t<(Kokkos::is_view<XView>::value && XView::rank == 2), int> = 0>
  void multiply(Value alpha, const XView& X, Value beta, const YView& Y) const {
    multiply(ExecSpace(), alpha, X, beta, Y, workspace_);
  }
  /// multiply() with Unroll gathers in flight per thread (detail::gather_dot; LongUnroll in a
  /// SELL plan's long-row kernel) instead of ExecTraits'. For experiments (`pspmv bench
  /// --unroll-sweep`): such kernels carry "::U=<factor>" in their Kokkos Tools label.
  template <int Unroll, int LongUnroll = Unroll>
  void multiply_unrolled(Value alpha, const const_vector_type& x, Value beta, const vector_type& y) const {
    check_lengths(x.data(), x.extent(0), y.data(), y.extent(0), workspace_);
    run<Unroll, LongUnroll>(ExecSpace(), alpha, kernel_x_type(x), beta, kernel_y_type(y), workspace_);
  }
  /// A workspace of the size this plan's multiplies need (empty Views when it needs none).
  workspace_type make_workspace() const { return detail::make_workspace<ExecSpace, Value>(choice_); }
  /// Whether multiply() writes scratch (split long rows, a run-time schedule).
  bool needs_workspace() const { return workspace_.bytes() > 0; }

  /// Rows and columns of A (the matrix given to analyze(), also for a transpose plan).
  std::int32_t nrows() const { return nrows_; }
  std::int32_t ncols() const { return ncols_; }
  std::int64_t nnz() const { return nnz_; }
  /// plain (y = A x) or transpose (y = A^T x; the plan stores A^T, built in parallel at analyze time).
  Operation operation() const { return operation_; }
  /// Entries of x and of y a multiply takes: ncols() and nrows(), swapped for a transpose plan.
  std::int32_t x_length() const { return op_cols_; }
  std::int32_t y_length() const { return op_rows_; }
  const PlanChoice& choice() const { return choice_; }
  Format format() const { return choice_.format; }
  Mapping mapping() const { return choice_.mapping; }
  Schedule schedule() const { return choice_.schedule; }
  const LaunchParams& launch() const { return choice_.launch; }
  /// Why analyze() chose this plan: choice().reason's clauses, joined.
  const std::string& reason() const { return reason_; }
  const RowStats& row_stats() const { return facts_.stats; }
  const LaneSlots& lane_slots() const { return facts_.lane_slots; }
  /// Wall time of the analysis (validation, statistics, choice, conversion, copy), seconds.
  double analyze_seconds() const { return phases_.total; }
  /// The analysis phase by phase (seconds each; total = analyze_seconds()).
  const AnalysisPhases& analysis() const { return phases_; }
  /// The plan's CSR of the matrix (of A^T for a transpose plan), in memory_space: the caller's
  /// arrays when analysis().shares_input, else its own copy (empty when format() is sell).
  const matrix_type& matrix() const { return storage_.csr; }
  /// The plan's own SELL-C-sigma copy (empty when format() is csr).
  const sell_type& sell() const { return storage_.sell; }
  /// SELL: perm(p) = caller's row held at the plan's position p (empty for CSR). With
  /// keep_permuted, y(p) holds row perm(p) of A x. With split long rows it has nrows() +
  /// pieces entries: perm(p) >= nrows() names piece perm(p) - nrows() of a long row.
  Kokkos::View<const std::int32_t*, memory_space> permutation() const { return storage_.sell.perm; }
  /// nnz_balanced: the blocks, launch().num_blocks + 1 boundaries (row indices of a CSR plan,
  /// slice indices of a SELL plan); empty under the other schedules.
  Kokkos::View<const std::int32_t*, memory_space> blocks() const { return storage_.partition; }
  /// Stored entries over nnz: the SELL padding ratio (1 for CSR).
  double padding_ratio() const { return format() == Format::sell ? storage_.sell.padding_ratio() : 1.0; }
  /// Bytes of the CSR the plan was built from (row_ptr, col_idx, values).
  std::size_t csr_bytes() const { return csr_bytes_; }
  /// Bytes the plan holds in memory_space: its matrix, partition and own workspace.
  std::size_t bytes() const { return storage_.bytes() + workspace_.bytes(); }
  /// Bytes of the plan's stored matrix (CSR or SELL arrays, partition excluded): what a
  /// multiply reads besides x and y.
  std::size_t matrix_bytes() const { return storage_.csr.bytes() + storage_.sell.bytes(); }
  /// CSR bytes over the plan's stored-matrix bytes: above 1 when the plan is smaller than the
  /// CSR it came from (compressed columns), below 1 for SELL padding.
  double compression_ratio() const {
    return matrix_bytes() > 0 ? static_cast<double>(csr_bytes_) / static_cast<double>(matrix_bytes()) : 1.0;
  }
  /// SELL: whether the columns are compressed (per slice diagonal, 16-bit offsets or 32-bit; SellMatrix).
  bool compressed() const { return storage_.sell.compressed; }
  /// Whether this plan was built from A's storage (same sizes and row_ptr array); cheap, and
  /// says nothing about A's entries (see matches()).
  bool built_from(const HostCsr<MatrixValue, Offset>& A) const {
    return same_shape(A) && A.row_ptr.data() == source_row_ptr_;
  }
  /// Content fingerprint (pspmv::fingerprint) of the matrix at analyze time; 0 when
  /// AnalyzeOptions::fingerprint was false.
  std::uint64_t fingerprint() const { return fingerprint_; }
  /// Whether A still holds what this plan was built from (same sizes and fingerprint: one
  /// pass over A). A changed A means the plan is stale: a plan that keeps its own copy
  /// multiplies the old entries; a CSR plan that holds A's arrays (AnalyzeOptions::copy_matrix
  /// false, analysis().shares_input) must not see them changed at all.
  /// @throws InvalidArgument if the plan was analyzed with fingerprint = false.
  bool matches(const HostCsr<MatrixValue, Offset>& A) const {
    if (!has_fingerprint_)
      throw InvalidArgument(phases_.device_input
                                ? "Plan::matches: this plan was analyzed from a CSR in the execution space's memory "
                                  "and holds no fingerprint"
                                : "Plan::matches: this plan was analyzed with AnalyzeOptions::fingerprint = false");
    return same_shape(A) && pspmv::fingerprint(A) == fingerprint_;
  }
  /// One line: format, mapping, schedule and launch sizes (pspmv::describe).
  std::string describe() const { return pspmv::describe(choice_, padding_ratio()); }

 private:
  struct Decided {
    std::chrono::steady_clock::time_point started;
    MatrixFacts facts;
    PlanChoice choice;
    detail::SellOrder order;  ///< the sorted order choose() computed for a SELL plan
    AnalysisPhases phases;
    bool copy_matrix = true;  ///< AnalyzeOptions::copy_matrix
    Operation operation = Operation::plain;
    HostCsr<MatrixValue, Offset> transposed;  ///< A^T for Operation::transpose (else empty)
    detail::StagedFingerprint staged;  ///< A's fingerprint, where an upload to a device took it
    /// The matrix the plan multiplies by: A, or A^T.
    const HostCsr<MatrixValue, Offset>& op(const HostCsr<MatrixValue, Offset>& A) const {
      return operation == Operation::transpose ? transposed : A;
    }
  };
  static Decided decide(const ExecSpace& space, const HostCsr<MatrixValue, Offset>& A, const AnalyzeOptions& o);
  static Decided decide_like(const ExecSpace& space, const HostCsr<MatrixValue, Offset>& A, const AnalyzeOptions& o,
                             const Plan& like);
  Plan(const ExecSpace& space, const HostCsr<MatrixValue, Offset>& A, bool fingerprint, Decided d,
       const Plan* like = nullptr, const matrix_type* resident = nullptr);
  /// x as the kernels take it: unmanaged (copies count no references).
  using kernel_x_type = detail::KernelView<const Value*, memory_space>;
  using kernel_y_type = detail::KernelView<Value*, memory_space>;
  /// multiply() on x's and y's data and lengths; out of line, so that libpspmv's instantiations
  /// hold it. A serial CSR plan runs its rows here on those pointers (no View is made per call).
  void multiply_x(const ExecSpace& space, Value alpha, const Value* x, std::size_t x_length, Value beta, Value* y,
                  std::size_t y_length, const workspace_type& workspace) const;
  /// The launch of a multiply whose arguments passed check_lengths().
  template <int Unroll, int LongUnroll>
  void run(const ExecSpace& space, Value alpha, const kernel_x_type& x, Value beta, const kernel_y_type& y,
           const workspace_type& workspace) const;
  /// The checks of a one-vector multiply's arguments (detail::check_call, for op(A)).
  void check_lengths(const Value* x, std::size_t x_length, const Value* y, std::size_t y_length,
                     const workspace_type& workspace) const {
    check_transpose_lengths(static_cast<std::int64_t>(x_length), static_cast<std::int64_t>(y_length));
    detail::check_call(op_rows_, op_cols_, x, x_length, y, y_length, workspace.covers(workspace_));
  }
  /// The several-vector multiply on X and Y seen as LayoutStride (any supported layout pair):
  /// not a template, so that the explicit instantiations in libpspmv hold its kernels and a
  /// caller's translation unit compiles none.
  using multi_x = detail::MultiXView<Value, memory_space>;
  using multi_y = detail::MultiYView<Value, memory_space>;
  void run_multi(const ExecSpace& space, Value alpha, const multi_x& X, Value beta, const multi_y& Y,
                 const workspace_type& workspace) const;
  bool same_shape(const HostCsr<MatrixValue, Offset>& A) const {
    return A.nrows == nrows_ && A.ncols == ncols_ && static_cast<std::int64_t>(A.nnz()) == nnz_;
  }

  void check_transpose_lengths(std::int64_t x_rows, std::int64_t y_rows) const {
    if (operation_ != Operation::transpose) return;
    if (x_rows != nrows_)
      throw DimensionError("multiply (transpose): length of x (= nrows of A)", nrows_, x_rows);
    if (y_rows != ncols_)
      throw DimensionError("multiply (transpose): length of y (= ncols of A)", ncols_, y_rows);
  }

  PlanChoice choice_;
  Operation operation_ = Operation::plain;
  std::int32_t op_rows_ = 0, op_cols_ = 0;  ///< shape of op(A): y and x lengths
  detail::Storage<ExecSpace, MatrixValue, Offset> storage_;
  workspace_type workspace_;
  detail::Labels labels_;
  detail::Labels multi_labels_;
  std::string reason_;
  MatrixFacts facts_;
  std::int32_t nrows_ = 0, ncols_ = 0;
  std::int64_t nnz_ = 0;
  std::size_t csr_bytes_ = 0;
  const void* source_row_ptr_ = nullptr;
  std::uint64_t fingerprint_ = 0;
  bool has_fingerprint_ = false;
  AnalysisPhases phases_;
};

/// A mixed-precision plan: the matrix stored in float (half the value bytes of double), x, y,
/// alpha, beta and every sum in double (each product formed in double from the float value).
/// Made by analyze_mixed() (analyze.hpp); compiled into libpspmv for Serial, OpenMP and Cuda.
template <class ExecSpace, class Offset = std::int64_t>
using MixedPlan = Plan<ExecSpace, double, Offset, float>;

// Out of the class, not inline: the explicit instantiations of backends/*/instantiate_*.cpp cover
// them, and extern_plans.hpp keeps an application from compiling them again.
template <class ExecSpace, class Value, class Offset, class MatrixValue>
typename Plan<ExecSpace, Value, Offset, MatrixValue>::Decided Plan<ExecSpace, Value, Offset, MatrixValue>::decide(
    const ExecSpace& space, const HostCsr<MatrixValue, Offset>& A, const AnalyzeOptions& o) {
  using clock = std::chrono::steady_clock;
  const auto started = clock::now();
  const auto seconds = [](clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); };
  Decided d;
  d.started = started;
  d.copy_matrix = o.copy_matrix;
  validate(A);
  auto t = clock::now();
  d.phases.validation = std::chrono::duration<double>(t - started).count();
  d.operation = o.operation;
  if (o.operation == Operation::transpose) {
    t = clock::now();
    d.transposed = transpose(A);
    d.phases.conversion += seconds(t);
  }
  const HostCsr<MatrixValue, Offset>& M = d.op(A);
  t = clock::now();
  const detail::FactsRequest want = detail::column_facts_needed<ExecTraits<ExecSpace>, Value>(
      o, M.nrows, static_cast<std::int64_t>(M.nnz()), static_cast<std::int64_t>(M.bytes()), space.concurrency());
  d.facts = matrix_facts(M, ExecTraits<ExecSpace>::model_lane_width, false, want.span, want.diagonal_block,
                           ExecTraits<ExecSpace>::is_gpu);
  d.phases.statistics = seconds(t);
  t = clock::now();
  d.choice = choose<ExecSpace, MatrixValue, Offset, Value>(space, M, d.facts, o, &d.order);
  if (o.operation == Operation::transpose)
    d.choice.reason.add(Decision::format, "operation transpose: A^T stored (built in parallel at analyze time), "
                                          "multiplied by the ordinary kernels without atomics");
  d.phases.choice = seconds(t);
  return d;
}

template <class ExecSpace, class Value, class Offset, class MatrixValue>
typename Plan<ExecSpace, Value, Offset, MatrixValue>::Decided Plan<ExecSpace, Value, Offset, MatrixValue>::decide_like(
    const ExecSpace& space, const HostCsr<MatrixValue, Offset>& A, const AnalyzeOptions& o, const Plan& like) {
  const auto started = std::chrono::steady_clock::now();
  if (!like.built_from(A))
    throw InvalidArgument("analyze(space, A, options, like): `like` was not built from this matrix (" +
                          std::to_string(A.nrows) + " x " + std::to_string(A.ncols) + ", nnz " +
                          std::to_string(A.nnz()) + "; Plan::built_from is false)");
  if (o.operation != like.operation_)
    throw InvalidArgument("analyze(space, A, options, like): `like` multiplies by " + to_string(like.operation_) +
                          ", the options ask for " + to_string(o.operation));
  Decided d;
  d.started = started;
  d.copy_matrix = o.copy_matrix;
  d.facts = like.facts_;
  d.phases.reused = true;
  d.operation = o.operation;
  if (o.operation == Operation::transpose) d.transposed = transpose(A);
  // `like` read the columns only for what its own options could use: another choice may want more.
  const auto& M = d.op(A);
  const detail::FactsRequest want = detail::column_facts_needed<ExecTraits<ExecSpace>, Value>(
      o, M.nrows, static_cast<std::int64_t>(M.nnz()), static_cast<std::int64_t>(M.bytes()), space.concurrency());
  const RowStats& had = like.facts_.stats;
  if ((want.span && had.narrow_share < 0) || (want.diagonal_block > 0 && had.diagonal_block != want.diagonal_block)) {
    const auto t = std::chrono::steady_clock::now();
    d.facts = matrix_facts(M, ExecTraits<ExecSpace>::model_lane_width, false, want.span, want.diagonal_block,
                           ExecTraits<ExecSpace>::is_gpu);
    d.phases.statistics = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }
  detail::KnownSell known;
  const bool sell = like.format() == Format::sell;
  if (sell) {
    const LaunchParams& p = like.choice_.launch;
    known.params = {p.slice_height, p.sigma, p.long_row_threshold, p.long_split};
    const auto& S = like.storage_.sell;
    known.shape.nslices = S.nslices();
    known.shape.stored = S.stored();
    known.shape.long_rows = S.nlong();
    known.shape.pieces = S.npieces();
    known.shape.padding = S.padding_ratio();
  }
  d.choice = choose<ExecSpace, MatrixValue, Offset, Value>(space, d.op(A), d.facts, o, &d.order,
                                                           sell ? &known : nullptr);
  if (o.operation == Operation::transpose)
    d.choice.reason.add(Decision::format, "operation transpose: A^T stored (built in parallel at analyze time), "
                                          "multiplied by the ordinary kernels without atomics");
  d.phases.choice =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() - d.phases.statistics;
  return d;
}

template <class ExecSpace, class Value, class Offset, class MatrixValue>
Plan<ExecSpace, Value, Offset, MatrixValue>::Plan(const ExecSpace& space, const HostCsr<MatrixValue, Offset>& A, bool fingerprint,
                                     Decided d, const Plan* like, const matrix_type* resident)
    : choice_(std::move(d.choice)),
      operation_(d.operation),
      op_rows_(d.op(A).nrows),
      op_cols_(d.op(A).ncols),
      storage_(detail::build_storage(
          space, d.op(A), choice_, &d.order, &d.phases, like ? &like->storage_ : nullptr, like ? &like->choice_ : nullptr,
          d.operation == Operation::transpose ? false : d.copy_matrix, resident,
          // An upload of A itself takes its fingerprint in the same pass over the arrays.
          fingerprint && d.operation == Operation::plain && !(like && like->has_fingerprint_) ? &d.staged : nullptr)),
      workspace_(detail::make_workspace<ExecSpace, Value>(choice_)),
      labels_(detail::labels_of(choice_)),
      multi_labels_(detail::multi_labels_of(choice_)),
      reason_(choice_.reason.str()),
      facts_(std::move(d.facts)),
      nrows_(A.nrows),
      ncols_(A.ncols),
      nnz_(static_cast<std::int64_t>(A.nnz())),
      csr_bytes_(A.bytes()),
      source_row_ptr_(resident ? static_cast<const void*>(resident->row_ptr.data()) : A.row_ptr.data()),
      has_fingerprint_(fingerprint) {
  d.order = detail::SellOrder{};  // released before the fingerprint pass
  if (d.operation == Operation::transpose) d.phases.shares_input = false;  // A^T is the plan's own
  d.transposed = HostCsr<MatrixValue, Offset>{};
  const auto t = std::chrono::steady_clock::now();
  if (fingerprint)
    fingerprint_ = like && like->has_fingerprint_ ? like->fingerprint_
                   : d.staged.taken                ? d.staged.value
                                                   : pspmv::fingerprint(A);
  phases_ = d.phases;
  phases_.fingerprint = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  space.fence();
  phases_.total = std::chrono::duration<double>(std::chrono::steady_clock::now() - d.started).count();
}

namespace detail {
/// What the host needs of a CSR in `space`'s memory to analyze it: its sizes, and row_ptr where
/// the host reads that memory (A's own Views, nothing copied). Elsewhere row_ptr, col_idx and
/// values are unmanaged Views of A's lengths without data: choose() reads only their lengths
/// (the statistics and a SELL plan's order and shape are computed on `space`), and
/// read_row_ptr_back() fills row_ptr where a step needs it on the host.
template <class Value, class Offset, class Mem>
HostCsr<Value, Offset> host_view_of(const CsrMatrix<Value, Offset, std::int32_t, Mem>& A) {
  HostCsr<Value, Offset> h;
  h.nrows = A.nrows;
  h.ncols = A.ncols;
  if constexpr (std::is_same<Mem, Kokkos::HostSpace>::value) {
    h.row_ptr = A.row_ptr;
    h.col_idx = A.col_idx;
    h.values = A.values;
  } else {
    h.row_ptr = Kokkos::View<Offset*, Kokkos::HostSpace>(static_cast<Offset*>(nullptr), A.row_ptr.extent(0));
    h.col_idx = Kokkos::View<std::int32_t*, Kokkos::HostSpace>(static_cast<std::int32_t*>(nullptr), A.col_idx.extent(0));
    h.values = Kokkos::View<Value*, Kokkos::HostSpace>(static_cast<Value*>(nullptr), A.values.extent(0));
  }
  return h;
}

/// Fills h.row_ptr (host_view_of's) with a host copy of A's row_ptr, once; true where it copied.
template <class ExecSpace, class Value, class Offset, class Mem>
bool read_row_ptr_back(const ExecSpace& space, const CsrMatrix<Value, Offset, std::int32_t, Mem>& A,
                       HostCsr<Value, Offset>& h) {
  if constexpr (!std::is_same<Mem, Kokkos::HostSpace>::value) {
    if (h.row_ptr.data() != nullptr || A.row_ptr.extent(0) == 0) return false;
    // Through the pinned staging buffers: a copy into pageable memory runs at a fraction of the
    // link's speed (perf/results/h200.md, "Analysis in multiplies").
    std::unique_lock<std::mutex> lock;
    Stager<ExecSpace> stager(space, staging_buffers<ExecSpace>(lock), staging_chunk_bytes);
    h.row_ptr = host_array<Offset>("pspmv::row_ptr_host", static_cast<std::int64_t>(A.row_ptr.extent(0)));
    stager.copy_back(h.row_ptr.data(), A.row_ptr);
    space.fence();
    return true;
  } else {
    (void)space, (void)A, (void)h;
    return false;
  }
}
}  // namespace detail

template <class ExecSpace, class Value, class Offset, class MatrixValue>
Plan<ExecSpace, Value, Offset, MatrixValue>::Plan(ResidentInput, const ExecSpace& space, const matrix_type& A,
                                     const AnalyzeOptions& o) {
  using clock = std::chrono::steady_clock;
  const auto seconds = [](clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); };
  if (o.selection == Selection::tune)
    throw InvalidArgument("analyze() of a CSR in the execution space's memory: Selection::tune is not offered "
                          "(tune() analyzes a host CSR)");
  if (o.operation != Operation::plain)
    throw InvalidArgument("analyze() of a CSR in the execution space's memory: operation " + to_string(o.operation) +
                          " is not offered (it stores A^T built on the host; analyze a host CSR)");
  const auto started = clock::now();
  constexpr bool host_memory = std::is_same<memory_space, Kokkos::HostSpace>::value;
  if (A.row_ptr.extent(0) == 0)
    throw DimensionError("row_ptr length (nrows + 1)", static_cast<std::int64_t>(A.nrows) + 1, 0);
  const detail::FactsRequest want = detail::column_facts_needed<ExecTraits<ExecSpace>, Value>(
      o, A.nrows, static_cast<std::int64_t>(A.nnz()), static_cast<std::int64_t>(A.bytes()), space.concurrency());
  validate_on(space, A);
  HostCsr<MatrixValue, Offset> h = detail::host_view_of(A);
  AnalysisPhases ph;
  auto t = clock::now();
  ph.validation = std::chrono::duration<double>(t - started).count();
  const bool span = want.span;
  // Away from the host's memory the statistics are computed on `space` (with the lane slots of
  // every team-per-row vector length: choose() reads no row_ptr), except where matrix_facts_on
  // leaves them to the host pass (a matrix without rows, a row of 2^31 entries or more), which reads
  // row_ptr back and only row_ptr.
  std::optional<MatrixFacts> on_space;
  if constexpr (!host_memory) on_space = detail::matrix_facts_on(space, A, ExecTraits<ExecSpace>::model_lane_width);
  bool read_back = !on_space && detail::read_row_ptr_back(space, A, h);
  facts_ = on_space ? *std::move(on_space)
                    : matrix_facts(h, ExecTraits<ExecSpace>::model_lane_width, false, span && host_memory,
                                   host_memory ? want.diagonal_block : 0, ExecTraits<ExecSpace>::is_gpu);
  if (!host_memory && (span || want.diagonal_block > 0))
    detail::column_shares_on(space, A, facts_.stats, span, want.diagonal_block);
  ph.statistics = seconds(t);
  t = clock::now();
  detail::SellOrder order;
  // A GPU: wherever choose() will need a SELL shape (detail::needs_sell_shape), the order of
  // the SELL parameters it will take, and that shape, computed in device memory: choose()
  // takes the shape as known, the conversion the order. The host would otherwise sort the
  // read-back row lengths and copy the order to the device.
  std::optional<SellOrderOn<memory_space>> device_order;
  detail::KnownSell known;
  if constexpr (!host_memory) {
    using Traits = ExecTraits<ExecSpace>;
    const AnalyzeOptions d = detail::deterministic_options(o);
    if (detail::needs_sell_shape<Traits>(h.row_ptr.data(), d, facts_, space.concurrency(),
                                          static_cast<double>(A.bytes()))) {
      known.params = detail::sell_params<Traits, Value>(d, A.nrows);
      check_sell_parameters(known.params.C, known.params.sigma);
      device_order = sell_order_on(space, A, known.params.sigma, known.params.long_threshold, known.params.long_split);
      known.shape = sell_shape_on(space, *device_order, A, known.params.C);
    }
  }
  choice_ = choose<ExecSpace, MatrixValue, Offset, Value>(space, h, facts_, o, &order, device_order ? &known : nullptr);
  if (choice_.format != Format::sell) device_order.reset();
  ph.choice = seconds(t);
  // A CSR plan's nnz-balanced blocks are searched on the host's copy of row_ptr (counted in
  // the partition phase).
  t = clock::now();
  if (choice_.format == Format::csr && choice_.schedule == Schedule::nnz_balanced)
    read_back = detail::read_row_ptr_back(space, A, h) || read_back;
  const double read_back_seconds = seconds(t);
  storage_ = detail::build_storage<ExecSpace, MatrixValue, Offset>(space, h, choice_, &order, &ph, nullptr, nullptr,
                                                                   o.copy_matrix, &A, nullptr,
                                                                   device_order ? &*device_order : nullptr);
  ph.partition += read_back_seconds;
  order = detail::SellOrder{};
  device_order.reset();
  workspace_ = detail::make_workspace<ExecSpace, Value>(choice_);
  labels_ = detail::labels_of(choice_);
  multi_labels_ = detail::multi_labels_of(choice_);
  reason_ = choice_.reason.str();
  operation_ = Operation::plain;
  op_rows_ = A.nrows;
  op_cols_ = A.ncols;
  nrows_ = A.nrows;
  ncols_ = A.ncols;
  nnz_ = static_cast<std::int64_t>(A.nnz());
  csr_bytes_ = A.bytes();
  source_row_ptr_ = A.row_ptr.data();
  has_fingerprint_ = o.fingerprint && host_memory;
  t = clock::now();
  if (has_fingerprint_) fingerprint_ = pspmv::fingerprint(h);
  ph.fingerprint = seconds(t);
  ph.device_input = !host_memory;
  ph.row_ptr_read_back = read_back;
  space.fence();
  ph.total = seconds(started);
  phases_ = ph;
}

template <class ExecSpace, class Value, class Offset, class MatrixValue>
void Plan<ExecSpace, Value, Offset, MatrixValue>::multiply(const ExecSpace& space, Value alpha, const const_vector_type& x,
                                             Value beta, const vector_type& y, const workspace_type& workspace) const {
  multiply_x(space, alpha, x.data(), x.extent(0), beta, y.data(), y.extent(0), workspace);
}

template <class ExecSpace, class Value, class Offset, class MatrixValue>
void Plan<ExecSpace, Value, Offset, MatrixValue>::multiply_x(const ExecSpace& space, Value alpha, const Value* x,
                                                             std::size_t x_length, Value beta, Value* y,
                                                             std::size_t y_length,
                                                             const workspace_type& workspace) const {
  using Traits = ExecTraits<ExecSpace>;
  check_lengths(x, x_length, y, y_length, workspace);
  if constexpr (!Traits::is_gpu && Traits::gather_unroll == 1) {
    // A serial CSR plan: the calling thread runs the launch's rows (CsrThreadPerRow of this
    // build, row for row the functor's code) on the pointers, under a Kokkos Tools region of the
    // kernel's label when a tool is loaded.
    if (choice_.schedule == Schedule::serial && choice_.format == Format::csr &&
        choice_.mapping == Mapping::thread_per_row && alpha != Value(0) && nnz_ > 0) {
      const auto& A = storage_.csr;
      const bool tools = Kokkos::Tools::profileLibraryLoaded();
      if (tools) Kokkos::Profiling::pushRegion(labels_.kernel);
      if (beta == Value(0))
        detail::CsrThreadPerRow<ExecSpace, Value, Offset, 1, true, MatrixValue, Traits::masked_rows>::rows_on_caller(
            A.row_ptr.data(), A.col_idx.data(), A.values.data(), x, y, alpha, beta, op_rows_);
      else
        detail::CsrThreadPerRow<ExecSpace, Value, Offset, 1, false, MatrixValue, Traits::masked_rows>::rows_on_caller(
            A.row_ptr.data(), A.col_idx.data(), A.values.data(), x, y, alpha, beta, op_rows_);
      if (tools) Kokkos::Profiling::popRegion();
      return;
    }
  }
  run<Traits::gather_unroll, Traits::long_row_unroll>(space, alpha, kernel_x_type(x, x_length), beta,
                                                      kernel_y_type(y, y_length), workspace);
}

template <class ExecSpace, class Value, class Offset, class MatrixValue>
template <int Unroll, int LongUnroll>
void Plan<ExecSpace, Value, Offset, MatrixValue>::run(const ExecSpace& space, Value alpha, const kernel_x_type& x, Value beta,
                                         const kernel_y_type& y, const workspace_type& workspace) const {
  if (op_rows_ == 0) return;
  const detail::Call<ExecSpace, Value> call{x, y, alpha, beta, &workspace};
  const bool empty = alpha == Value(0) || nnz_ == 0;
  if (beta == Value(0))
    detail::launch_multiply<Unroll, LongUnroll, true>(space, storage_, choice_, labels_, op_rows_, empty, call);
  else
    detail::launch_multiply<Unroll, LongUnroll, false>(space, storage_, choice_, labels_, op_rows_, empty, call);
}

template <class ExecSpace, class Value, class Offset, class MatrixValue>
template <class XView, class YView, std::enable_if_t<(Kokkos::is_view<XView>::value && XView::rank == 2), int>>
void Plan<ExecSpace, Value, Offset, MatrixValue>::multiply(const ExecSpace& space, Value alpha, const XView& X, Value beta,
                                             const YView& Y, const workspace_type& workspace) const {
  using XL = typename XView::array_layout;
  using YL = typename YView::array_layout;
  static_assert(Kokkos::is_view<YView>::value && YView::rank == 2, "multiply: Y must be a rank-2 Kokkos::View");
  static_assert(std::is_same<typename XView::non_const_value_type, Value>::value &&
                    std::is_same<typename YView::value_type, Value>::value,
                "multiply: X and Y hold the plan's Value (Y not const)");
  static_assert((std::is_same<XL, Kokkos::LayoutRight>::value || std::is_same<XL, Kokkos::LayoutLeft>::value) &&
                    (std::is_same<YL, Kokkos::LayoutRight>::value || std::is_same<YL, Kokkos::LayoutLeft>::value),
                "multiply: X and Y use Kokkos::LayoutRight or LayoutLeft");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename XView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename YView::memory_space>::accessible,
                "multiply: X and Y live in memory the execution space reads");
  check_transpose_lengths(static_cast<std::int64_t>(X.extent(0)), static_cast<std::int64_t>(Y.extent(0)));
  detail::check_multi_call(op_rows_, op_cols_, X, Y, workspace.covers(workspace_));
  const int k = static_cast<int>(X.extent(1));
  if (op_rows_ == 0 || k == 0) return;
  if (k == 1 && (std::is_same<XL, Kokkos::LayoutLeft>::value || X.stride(0) == 1) &&
      (std::is_same<YL, Kokkos::LayoutLeft>::value || Y.stride(0) == 1)) {
    // One vector with contiguous columns: the one-vector kernel (unmanaged views of the columns).
    multiply(space, alpha, const_vector_type(X.data(), X.extent(0)), beta, vector_type(Y.data(), Y.extent(0)),
             workspace);
    return;
  }
  run_multi(space, alpha, multi_x(X), beta, multi_y(Y), workspace);
}

template <class ExecSpace, class Value, class Offset, class MatrixValue>
void Plan<ExecSpace, Value, Offset, MatrixValue>::run_multi(const ExecSpace& space, Value alpha, const multi_x& X, Value beta,
                                               const multi_y& Y, const workspace_type& workspace) const {
  detail::launch_multi(space, storage_, choice_, multi_labels_, op_rows_, alpha == Value(0) || nnz_ == 0, X, Y, alpha,
                       beta, workspace);
}

}  // namespace pspmv
