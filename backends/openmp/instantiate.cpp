// Explicit instantiations of Plan for the host execution spaces (Serial, OpenMP) this Kokkos build enables.
#define PSPMV_INSTANTIATING
#include "pspmv/extern_plans.hpp"

#if defined(KOKKOS_ENABLE_SERIAL)
PSPMV_PLAN_TYPES(, Kokkos::Serial)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
PSPMV_PLAN_TYPES(, Kokkos::OpenMP)
#endif
