// Explicit instantiations of the mixed-precision Plan<Cuda, double, ..., float> (a float matrix
// under double vectors: MixedPlan), beside instantiate_double.cpp and instantiate_float.cpp.
#define PSPMV_INSTANTIATING
#include "pspmv/extern_plans.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
PSPMV_PLAN_TYPES_MIXED(, Kokkos::Cuda)
#endif
