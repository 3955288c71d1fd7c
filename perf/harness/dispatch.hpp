#pragma once
// From the command line's words to types: the execution space and the precision of a run.
#include <string>
#include <type_traits>

#include "pspmv/pspmv.hpp"

namespace pspmv_cli {

/// A type passed as a value to a generic lambda: `using T = typename decltype(tag)::type;`.
/// For a precision, `matrix` is the matrix's value type (float under double vectors: f32-f64).
template <class T, class M = T>
struct Type {
  using type = T;
  using matrix = M;
};

/// Calls f(Type<Exec>) for --space "default" (the GPU in a CUDA build) or "host".
/// @throws pspmv::InvalidArgument for any other word.
template <class F>
void with_space(const std::string& space, F&& f) {
  if (space == "host") f(Type<Kokkos::DefaultHostExecutionSpace>{});
  else if (space == "default") f(Type<Kokkos::DefaultExecutionSpace>{});
  else throw pspmv::InvalidArgument("unknown --space '" + space + "' (expected default or host)");
}

/// Calls f(Type<Value>) for --precision "f64" (double) or "f32" (float), and f(Type<double,
/// float>) for "f32-f64" (a float matrix under double vectors: pspmv::MixedPlan): a caller that
/// reads only `type` must refuse `type != matrix` (unsupported_mixed).
/// @throws pspmv::InvalidArgument for any other word.
template <class F>
void with_precision(const std::string& precision, F&& f) {
  if (precision == "f64") f(Type<double>{});
  else if (precision == "f32") f(Type<float>{});
  else if (precision == "f32-f64") f(Type<double, float>{});
  else throw pspmv::InvalidArgument("unknown precision '" + precision + "' (expected f64, f32 or f32-f64)");
}

/// Throws pspmv::Unsupported naming `what` when the precision tag is mixed (f32-f64).
template <class Tag>
void unsupported_mixed(Tag, const std::string& what) {
  if constexpr (!std::is_same<typename Tag::type, typename Tag::matrix>::value)
    throw pspmv::Unsupported(what + " --precision f32-f64: not offered (pspmv bench measures mixed precision)");
}

}  // namespace pspmv_cli
