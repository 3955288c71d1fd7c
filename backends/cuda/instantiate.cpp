// Explicit instantiations of Plan for the device execution spaces this Kokkos build enables.
#define PSPMV_INSTANTIATING
#include "pspmv/extern_plans.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
PSPMV_PLAN_TYPES(, Kokkos::Cuda)
#endif
