#pragma once
/// @file transpose.hpp
/// The transpose of a host CSR matrix, in parallel on the host threads: the plan of
/// y = alpha A^T x + beta y stores A^T and runs the ordinary kernels on it.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "pspmv/matrix/csr.hpp"
#include "pspmv/matrix/host_parallel.hpp"

namespace pspmv {

/// A^T as CSR (ncols x nrows): row j of A^T holds the entries of column j of A, in increasing
/// row of A (entries of one row and column of A in their order in A). Three parallel passes:
/// a count per column (atomic increments), a scan, a scatter of entry numbers through atomic
/// cursors; then each row of A^T sorted by entry number, so that the result does not depend
/// on the thread count or timing. A must be valid (validate()).
template <class Value, class Offset>
HostCsr<Value, Offset> transpose(const HostCsr<Value, Offset>& A) {
  const std::int64_t nrows = A.nrows, ncols = A.ncols, nnz = static_cast<std::int64_t>(A.nnz());
  HostCsr<Value, Offset> T;
  T.nrows = A.ncols;
  T.ncols = A.nrows;
  T.row_ptr = Kokkos::View<Offset*, Kokkos::HostSpace>("pspmv::transpose_row_ptr", static_cast<std::size_t>(ncols) + 1);
  T.col_idx = Kokkos::View<std::int32_t*, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "pspmv::transpose_col_idx"), static_cast<std::size_t>(nnz));
  T.values = Kokkos::View<Value*, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "pspmv::transpose_values"), static_cast<std::size_t>(nnz));
  if (ncols == 0) return T;
  const Offset* rp = A.row_ptr.data();
  const std::int32_t* ci = A.col_idx.data();
  Kokkos::View<Offset*, Kokkos::HostSpace> cursor("pspmv::transpose_count", static_cast<std::size_t>(ncols));
  Offset* cur = cursor.data();
  detail::for_each_index("pspmv::transpose_count", nrows, [&](std::int64_t i) {
    for (Offset k = rp[i]; k < rp[i + 1]; ++k) Kokkos::atomic_add(&cur[ci[k]], Offset(1));  // atomic_increment is deprecated in Kokkos 4
  });
  Offset* trp = T.row_ptr.data();
  detail::exclusive_scan<Offset>("pspmv::transpose_scan", ncols, [&](std::int64_t j) { return cur[j]; }, trp);
  detail::for_each_index("pspmv::transpose_cursors", ncols, [&](std::int64_t j) { cur[j] = trp[j]; });
  // Entry numbers k of A through the cursors, with their row in col_idx of A^T.
  std::vector<std::int64_t> entry(static_cast<std::size_t>(nnz));
  std::int64_t* e = entry.data();
  std::int32_t* tci = T.col_idx.data();
  detail::for_each_index("pspmv::transpose_scatter", nrows, [&](std::int64_t i) {
    for (Offset k = rp[i]; k < rp[i + 1]; ++k) {
      const Offset at = Kokkos::atomic_fetch_add(&cur[ci[k]], Offset(1));
      e[at] = static_cast<std::int64_t>(k);
      tci[at] = static_cast<std::int32_t>(i);
    }
  });
  // Each row of A^T in entry order, its values gathered.
  const Value* val = A.values.data();
  Value* tv = T.values.data();
  detail::for_pieces("pspmv::transpose_sort", ncols, detail::host_piece, [&](std::int64_t, std::int64_t b, std::int64_t end) {
    std::vector<std::pair<std::int64_t, std::int32_t>> row;
    for (std::int64_t j = b; j < end; ++j) {
      const std::int64_t first = trp[j], last = trp[j + 1];
      bool sorted = true;
      for (std::int64_t p = first + 1; p < last && sorted; ++p) sorted = e[p - 1] < e[p];
      if (!sorted) {
        row.clear();
        for (std::int64_t p = first; p < last; ++p) row.emplace_back(e[p], tci[p]);
        std::sort(row.begin(), row.end());
        for (std::int64_t p = first; p < last; ++p) {
          e[p] = row[p - first].first;
          tci[p] = row[p - first].second;
        }
      }
      for (std::int64_t p = first; p < last; ++p) tv[p] = val[e[p]];
    }
  });
  return T;
}

}  // namespace pspmv
