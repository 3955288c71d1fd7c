#pragma once
/// @file pspmv.hpp
/// Umbrella header of pspmv, a portable SpMV performance layer on Kokkos.
#include "exec_traits.hpp"
#include "pspmv/calibrate.hpp"
#include "pspmv/csr_matrix.hpp"
#include "pspmv/errors.hpp"
#include "pspmv/generators.hpp"
#include "pspmv/matrix_market.hpp"
#include "pspmv/options.hpp"
#include "pspmv/plan.hpp"
#include "pspmv/profile.hpp"
#include "pspmv/row_stats.hpp"
#include "pspmv/sell_matrix.hpp"
#include "pspmv/tune.hpp"
#include "pspmv/types.hpp"
