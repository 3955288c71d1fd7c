// Explicit instantiations of Plan<Space, double, ...> for the host execution spaces (Serial,
// OpenMP) this Kokkos build enables; instantiate_float.cpp holds the float ones.
#define PSPMV_INSTANTIATING
#include "pspmv/extern_plans.hpp"

#if defined(KOKKOS_ENABLE_SERIAL)
PSPMV_PLAN_TYPES_OF(, Kokkos::Serial, double)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
PSPMV_PLAN_TYPES_OF(, Kokkos::OpenMP, double)
#endif
