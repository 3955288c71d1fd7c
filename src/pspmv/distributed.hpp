#pragma once
/// @file distributed.hpp
/// The distributed SpMV on MPI (library pspmv::mpi; find_package(pspmv COMPONENTS mpi)):
/// DistributedPlan, the row partitions, and the helpers that put each rank's rows in place.
/// Not included by pspmv.hpp, so that an application without MPI never sees mpi.h.
#include "pspmv/distributed/comm.hpp"
#include "pspmv/distributed/distributed_plan.hpp"
