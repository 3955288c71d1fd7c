// Explicit instantiations of Plan<Space, float, ...> for the host execution spaces (Serial,
// OpenMP) this Kokkos build enables; instantiate_double.cpp holds the double ones.
#define PSPMV_INSTANTIATING
#include "pspmv/extern_plans.hpp"

#if defined(KOKKOS_ENABLE_SERIAL)
PSPMV_PLAN_TYPES_OF(, Kokkos::Serial, float)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
PSPMV_PLAN_TYPES_OF(, Kokkos::OpenMP, float)
#endif
