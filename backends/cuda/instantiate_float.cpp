// Explicit instantiations of Plan<Space, float, ...> for the device execution spaces this
// Kokkos build enables; instantiate_double.cpp holds the double ones.
#define PSPMV_INSTANTIATING
#include "pspmv/extern_plans.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
PSPMV_PLAN_TYPES_OF(, Kokkos::Cuda, float)
#endif
