#pragma once
// The report of `pspmv bench`: the table of its records and the lesson-pair summary.
#include <string>
#include <vector>

#include "harness/inputs.hpp"
#include "harness/records.hpp"

namespace pspmv_cli {

/// The human-readable table of a set of records.
std::string table(const std::vector<Record>& records);

/// The lesson-pair summary: for even:N and skewed:N (equal nnz, checked: throws
/// pspmv::InvalidArgument otherwise), per variant the skewed/even time ratio beside the
/// lane-slot ratio of the model. Empty when the run holds no such pair.
std::string lesson_pair_summary(const std::vector<Input>& inputs, const std::vector<Record>& records);

}  // namespace pspmv_cli
