// Explicit instantiations of Plan<Space, double, ...> for the device execution spaces this
// Kokkos build enables; instantiate_float.cpp holds the float ones.
#define PSPMV_INSTANTIATING
#include "pspmv/extern_plans.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
PSPMV_PLAN_TYPES_OF(, Kokkos::Cuda, double)
#endif
