#pragma once
// From the command line's words to types: the execution space and the precision of a run.
#include <string>

#include "pspmv/pspmv.hpp"

namespace pspmv_cli {

/// A type passed as a value to a generic lambda: `using T = typename decltype(tag)::type;`.
template <class T>
struct Type {
  using type = T;
};

/// Calls f(Type<Exec>) for --space "default" (the GPU in a CUDA build) or "host".
/// @throws pspmv::InvalidArgument for any other word.
template <class F>
void with_space(const std::string& space, F&& f) {
  if (space == "host") f(Type<Kokkos::DefaultHostExecutionSpace>{});
  else if (space == "default") f(Type<Kokkos::DefaultExecutionSpace>{});
  else throw pspmv::InvalidArgument("unknown --space '" + space + "' (expected default or host)");
}

/// Calls f(Type<Value>) for --precision "f64" (double) or "f32" (float).
/// @throws pspmv::InvalidArgument for any other word.
template <class F>
void with_precision(const std::string& precision, F&& f) {
  if (precision == "f64") f(Type<double>{});
  else if (precision == "f32") f(Type<float>{});
  else throw pspmv::InvalidArgument("unknown precision '" + precision + "' (expected f32 or f64)");
}

}  // namespace pspmv_cli
