#include "pspmv/matrix/row_stats.hpp"

namespace pspmv {

std::string RowStats::bucket_label(std::size_t b) {
  if (b == 0) return "0";
  if (b == 1) return "1";
  const std::int64_t lo = std::int64_t{1} << (b - 1), hi = (std::int64_t{1} << b) - 1;
  return std::to_string(lo) + "-" + std::to_string(hi);
}

}  // namespace pspmv
