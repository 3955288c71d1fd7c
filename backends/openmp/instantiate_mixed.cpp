// Explicit instantiations of the mixed-precision Plan<Space, double, ..., float> (a float matrix
// under double vectors: MixedPlan) for the host execution spaces (Serial, OpenMP) this Kokkos build
// enables, beside instantiate_double.cpp and instantiate_float.cpp.
#define PSPMV_INSTANTIATING
#include "pspmv/extern_plans.hpp"

#if defined(KOKKOS_ENABLE_SERIAL)
PSPMV_PLAN_TYPES_MIXED(, Kokkos::Serial)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
PSPMV_PLAN_TYPES_MIXED(, Kokkos::OpenMP)
#endif
