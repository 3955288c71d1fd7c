#pragma once
// From the command line's words to types: the execution space and the precision of a run.
#include <string>

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
/// float>) for "f32-f64" (a float matrix under double vectors: pspmv::MixedPlan) where `mixed`.
/// @throws pspmv::InvalidArgument for any other word.
template <class F>
void with_precision(const std::string& precision, F&& f, bool mixed = false) {
  if (precision == "f64") f(Type<double>{});
  else if (precision == "f32") f(Type<float>{});
  else if (precision == "f32-f64" && mixed) f(Type<double, float>{});
  else throw pspmv::InvalidArgument("unknown precision '" + precision + "' (expected f32 or f64" +
                                    (mixed ? ", or f32-f64)" : ")"));
}

}  // namespace pspmv_cli
