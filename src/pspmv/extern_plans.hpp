#pragma once
/// @file extern_plans.hpp
/// The Plan instantiations compiled once into libpspmv (backends/*/instantiate.cpp), declared
/// extern so that clients do not compile analysis and kernels again (analyze.hpp and tune.hpp
/// include this). Other execution spaces or types still work: they are instantiated where used.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "pspmv/plan.hpp"

#define PSPMV_PLAN_TYPES(PREFIX, SPACE)                          \
  PREFIX template class pspmv::Plan<SPACE, float, std::int32_t>;  \
  PREFIX template class pspmv::Plan<SPACE, float, std::int64_t>;  \
  PREFIX template class pspmv::Plan<SPACE, double, std::int32_t>; \
  PREFIX template class pspmv::Plan<SPACE, double, std::int64_t>;

#ifndef PSPMV_INSTANTIATING
#if defined(KOKKOS_ENABLE_SERIAL)
PSPMV_PLAN_TYPES(extern, Kokkos::Serial)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
PSPMV_PLAN_TYPES(extern, Kokkos::OpenMP)
#endif
#if defined(KOKKOS_ENABLE_CUDA)
PSPMV_PLAN_TYPES(extern, Kokkos::Cuda)
#endif
#endif
