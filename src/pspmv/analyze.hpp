#pragma once
/// @file analyze.hpp
/// analyze(), the first stage of the two-stage API: a validated host CSR matrix in, a Plan
/// for an execution space out (all host-side work, once); then plan.multiply() many times.
///
/// @code
///   #include <pspmv/pspmv.hpp>
///   Kokkos::ScopeGuard guard(argc, argv);
///   auto A = pspmv::read_matrix_market<double>("matrix.mtx");      // host CSR, validated
///   auto plan = pspmv::analyze<Kokkos::DefaultExecutionSpace>(A);   // all host work, once
///   using Plan = decltype(plan);
///   Plan::vector_type x("x", A.ncols), y("y", A.nrows);
///   Kokkos::deep_copy(x, 1.0);
///   for (int it = 0; it < 100; ++it) plan.multiply(1.0, x, 0.0, y);  // y = A x
/// @endcode

#include <Kokkos_Core.hpp>

#include "pspmv/matrix/csr.hpp"
#include "pspmv/options.hpp"
#include "pspmv/extern_plans.hpp"  // Plan, and its instantiations in the library
#include "pspmv/tune.hpp"

namespace pspmv {

namespace detail {
/// The options a Plan is built from: Selection::model, and under Selection::fixed what the
/// caller left unset is CSR, thread_per_row, static_chunks.
inline AnalyzeOptions model_options(const AnalyzeOptions& options) {
  AnalyzeOptions o = options;
  o.selection = Selection::model;
  if (options.selection == Selection::fixed) {
    if (!o.format) o.format = Format::csr;
    if (!o.mapping) o.mapping = Mapping::thread_per_row;
    if (!o.schedule) o.schedule = Schedule::static_chunks;
  }
  return o;
}
}  // namespace detail

/// Analyzes A for the execution-space instance `space` (conversion and copies are ordered on
/// it; the plan is ready when analyze() returns). A CSR plan on a host space holds A's arrays
/// (Views count references): the caller must not change them while the plan lives, unless
/// options.copy_matrix gives the plan its own copy (unmanaged Views are always copied). On a
/// GPU the arrays are uploaded through pinned staging buffers (detail/staging.hpp). options.selection: model (default; every
/// decision in Plan::reason()), tune (the fastest of tune()'s candidates, default budget) or
/// fixed (what the options leave unset is CSR, thread_per_row, static_chunks).
/// @throws InvalidMatrix / DimensionError if A is not valid CSR; InvalidArgument for options
///         out of range (see choose()).
template <class ExecSpace, class Value, class Offset>
Plan<ExecSpace, Value, Offset> analyze(const ExecSpace& space, const HostCsr<Value, Offset>& A,
                                       const AnalyzeOptions& options = {}) {
  const AnalyzeOptions o = detail::model_options(options);
  if (options.selection == Selection::tune) return tune(space, A, o).plan;
  return Plan<ExecSpace, Value, Offset>(space, A, o);
}

/// analyze() reusing `like`, a plan of the same matrix A (like.built_from(A); its entries
/// unchanged since): its validation and statistics, and its stored matrix where the new plan
/// stores the same one (format, C, sigma, long-row handling; the Views are shared), so that
/// plans differing only in mapping, schedule or launch sizes cost a choice and a partition.
/// Plan::analysis() says what was reused. Selection::tune analyzes anew (tune()).
/// @throws InvalidArgument if like was not built from A; as analyze().
/// A mixed-precision `like` (MixedPlan) gives a mixed-precision plan.
template <class ExecSpace, class Vector, class Value, class Offset>
Plan<ExecSpace, Vector, Offset, Value> analyze(const ExecSpace& space, const HostCsr<Value, Offset>& A,
                                               const AnalyzeOptions& options,
                                               const Plan<ExecSpace, Vector, Offset, Value>& like) {
  const AnalyzeOptions o = detail::model_options(options);
  if (options.selection == Selection::tune) return tune<ExecSpace, Value, Offset, Vector>(space, A, o).plan;
  return Plan<ExecSpace, Vector, Offset, Value>(space, A, o, like);
}

/// analyze() of a float matrix into a mixed-precision plan (MixedPlan): the values stay float
/// in the plan (CSR or SELL; half the value bytes a double matrix moves), x, y, alpha, beta
/// and every sum are double. Options and choices as analyze(); SIMD widths and the vectors'
/// bytes count double. Accuracy: each row's sum carries double rounding of the float values'
/// exact products, so y differs from a double matrix's only by the values' rounding to float.
/// @throws as analyze().
template <class ExecSpace, class Offset>
MixedPlan<ExecSpace, Offset> analyze_mixed(const ExecSpace& space, const HostCsr<float, Offset>& A,
                                           const AnalyzeOptions& options = {}) {
  const AnalyzeOptions o = detail::model_options(options);
  if (options.selection == Selection::tune) return tune_mixed(space, A, o).plan;
  return MixedPlan<ExecSpace, Offset>(space, A, o);
}

/// analyze_mixed() on the default instance of ExecSpace.
template <class ExecSpace, class Offset>
MixedPlan<ExecSpace, Offset> analyze_mixed(const HostCsr<float, Offset>& A, const AnalyzeOptions& options = {}) {
  return analyze_mixed(ExecSpace(), A, options);
}

/// analyze_mixed() of a float CSR already in the memory of ExecSpace (as analyze(space, dA)):
/// nothing is uploaded; the plan is the one analyze_mixed() makes of a host copy.
/// @throws as analyze(space, dA).
template <class ExecSpace, class Offset, class Mem,
          std::enable_if_t<!std::is_same<Mem, Kokkos::HostSpace>::value &&
                               std::is_same<Mem, typename ExecSpace::memory_space>::value,
                           int> = 0>
MixedPlan<ExecSpace, Offset> analyze_mixed(const ExecSpace& space, const CsrMatrix<float, Offset, std::int32_t, Mem>& A,
                                           const AnalyzeOptions& options = {}) {
  if (options.selection == Selection::tune)
    throw InvalidArgument("analyze_mixed() of a CSR in the execution space's memory: Selection::tune is not offered "
                          "(tune() times plans of a host CSR)");
  return MixedPlan<ExecSpace, Offset>(ResidentInput{}, space, A, detail::model_options(options));
}

/// analyze() of A, a CSR already in the memory of ExecSpace (a device matrix; a host CSR takes
/// the form above): nothing is uploaded. Validation, the row statistics and the SELL conversion
/// run on `space`; row_ptr is copied to the host only for a CSR plan of nnz-balanced blocks
/// (their bounds are searched there) or a matrix without rows. The
/// choice and the stored matrix are those analyze() makes of a host copy of A; a CSR plan holds
/// A's arrays unless options.copy_matrix (the caller then must not change them while the plan
/// lives). The plan holds no fingerprint (Plan::matches() throws). Selection::tune is refused.
/// @throws InvalidMatrix / DimensionError if A is not valid CSR; InvalidArgument as choose().
template <class ExecSpace, class Value, class Offset, class Mem,
          std::enable_if_t<!std::is_same<Mem, Kokkos::HostSpace>::value &&
                               std::is_same<Mem, typename ExecSpace::memory_space>::value,
                           int> = 0>
Plan<ExecSpace, Value, Offset> analyze(const ExecSpace& space, const CsrMatrix<Value, Offset, std::int32_t, Mem>& A,
                                       const AnalyzeOptions& options = {}) {
  if (options.selection == Selection::tune)
    throw InvalidArgument("analyze() of a CSR in the execution space's memory: Selection::tune is not offered "
                          "(tune() times plans of a host CSR)");
  return Plan<ExecSpace, Value, Offset>(ResidentInput{}, space, A, detail::model_options(options));
}

/// analyze() on the default instance of ExecSpace.
template <class ExecSpace, class Value, class Offset>
Plan<ExecSpace, Value, Offset> analyze(const HostCsr<Value, Offset>& A, const AnalyzeOptions& options = {}) {
  return analyze(ExecSpace(), A, options);
}

}  // namespace pspmv
