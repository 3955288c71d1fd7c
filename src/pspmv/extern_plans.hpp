#pragma once
/// @file extern_plans.hpp
/// The Plan instantiations compiled once into libpspmv (backends/*/instantiate_*.cpp, a file
/// per value type so that a parallel build compiles them side by side), declared
/// extern so that clients do not compile analysis and kernels again (analyze.hpp and tune.hpp
/// include this). Other execution spaces or types still work: they are instantiated where used.
/// Mixed precision (MixedPlan: float matrix, double vectors) is compiled for each of them too.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "pspmv/plan.hpp"

#define PSPMV_PLAN_TYPES_OF(PREFIX, SPACE, VALUE)              \
  PREFIX template class pspmv::Plan<SPACE, VALUE, std::int32_t>; \
  PREFIX template class pspmv::Plan<SPACE, VALUE, std::int64_t>;
#define PSPMV_PLAN_TYPES(PREFIX, SPACE)        \
  PSPMV_PLAN_TYPES_OF(PREFIX, SPACE, float) \
  PSPMV_PLAN_TYPES_OF(PREFIX, SPACE, double)
#define PSPMV_PLAN_TYPES_MIXED(PREFIX, SPACE)                           \
  PREFIX template class pspmv::Plan<SPACE, double, std::int32_t, float>; \
  PREFIX template class pspmv::Plan<SPACE, double, std::int64_t, float>;

#ifndef PSPMV_INSTANTIATING
#if defined(KOKKOS_ENABLE_SERIAL)
PSPMV_PLAN_TYPES(extern, Kokkos::Serial)
PSPMV_PLAN_TYPES_MIXED(extern, Kokkos::Serial)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
PSPMV_PLAN_TYPES(extern, Kokkos::OpenMP)
PSPMV_PLAN_TYPES_MIXED(extern, Kokkos::OpenMP)
#endif
#if defined(KOKKOS_ENABLE_CUDA)
PSPMV_PLAN_TYPES(extern, Kokkos::Cuda)
PSPMV_PLAN_TYPES_MIXED(extern, Kokkos::Cuda)
#endif
#endif
