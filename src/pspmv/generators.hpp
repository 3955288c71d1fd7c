#pragma once
/// @file generators.hpp
/// Synthetic matrices. All are square unless stated; columns within a row are sorted.
///
/// The lesson's pair (same nnz, same value rule, different row-length distribution):
///  - even:   16 nonzeros in every row.
///  - skewed: in each aligned group of 32 rows, the first row holds 32*16 - 31*3 = 419
///            nonzeros and the other 31 rows hold 3; so nnz = 16 * rows, as for even.
/// In both, row i holds columns i, i+1, ... (mod ncols): consecutive from the diagonal,
/// wrapping. Value rule: a(i, j) = 1 + ((i + 2 j) mod 13) / 8 (exact in float).

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "pspmv/csr_matrix.hpp"
#include "pspmv/errors.hpp"

namespace pspmv {

/// The value rule shared by the generated matrices.
inline double generated_value(std::int64_t i, std::int64_t j) {
  return 1.0 + static_cast<double>((i + 2 * j) % 13) / 8.0;
}

namespace detail {
template <class Value, class Offset, class LenFn>
HostCsr<Value, Offset> generate_banded(std::int32_t rows, LenFn len_of_row) {
  HostCsr<Value, Offset> A;
  A.nrows = A.ncols = rows;
  std::int64_t nnz = 0;
  for (std::int32_t i = 0; i < rows; ++i) nnz += len_of_row(i);
  if (nnz > static_cast<std::int64_t>(std::numeric_limits<Offset>::max()))
    throw InvalidArgument("generated matrix: nnz = " + std::to_string(nnz) + " does not fit a " +
                          std::to_string(8 * sizeof(Offset)) + "-bit row_ptr offset");
  A.row_ptr = Kokkos::View<Offset*, Kokkos::HostSpace>("pspmv::row_ptr", static_cast<std::size_t>(rows) + 1);
  nnz = 0;
  for (std::int32_t i = 0; i < rows; ++i) {
    nnz += len_of_row(i);
    A.row_ptr(i + 1) = static_cast<Offset>(nnz);
  }
  A.col_idx = Kokkos::View<std::int32_t*, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "pspmv::col_idx"), nnz);
  A.values = Kokkos::View<Value*, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "pspmv::values"), nnz);
  Kokkos::parallel_for(
      "pspmv::generate_banded", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, rows),
      [&](const std::int32_t i) {
        const Offset b = A.row_ptr(i), e = A.row_ptr(i + 1);
        const std::int64_t len = e - b;
        // Columns i .. i+len-1 (mod rows), stored sorted: the wrapped part first.
        const std::int64_t wrap = std::max<std::int64_t>(0, i + len - rows);
        Offset k = b;
        for (std::int64_t c = 0; c < wrap; ++c, ++k) {
          A.col_idx(k) = static_cast<std::int32_t>(c);
          A.values(k) = static_cast<Value>(generated_value(i, c));
        }
        for (std::int64_t c = i; c < i + len - wrap; ++c, ++k) {
          A.col_idx(k) = static_cast<std::int32_t>(c);
          A.values(k) = static_cast<Value>(generated_value(i, c));
        }
      });
  Kokkos::fence();
  return A;
}
}  // namespace detail

/// The lesson's even matrix: `rows` x `rows`, `per_row` nonzeros in every row.
/// @throws InvalidArgument if rows < per_row (columns would repeat) or per_row < 0.
template <class Value, class Offset = std::int64_t>
HostCsr<Value, Offset> generate_even(std::int32_t rows, std::int32_t per_row = 16) {
  if (per_row < 0 || rows < per_row)
    throw InvalidArgument("even: needs rows >= nonzeros per row (" + std::to_string(per_row) +
                          "), got rows = " + std::to_string(rows));
  return detail::generate_banded<Value, Offset>(rows, [=](std::int32_t) { return per_row; });
}

/// The lesson's skewed matrix: per aligned group of 32 rows, one row of 419 nonzeros
/// then 31 rows of 3; same nnz as generate_even(rows, 16).
/// @throws InvalidArgument unless rows is a positive multiple of 32 and at least 448.
template <class Value, class Offset = std::int64_t>
HostCsr<Value, Offset> generate_skewed(std::int32_t rows) {
  if (rows <= 0 || rows % 32 != 0 || rows < 448)
    throw InvalidArgument("skewed: rows must be a multiple of 32 and at least 448 (so the 419-long "
                          "rows do not wrap onto themselves), got " + std::to_string(rows));
  return detail::generate_banded<Value, Offset>(
      rows, [](std::int32_t i) { return i % 32 == 0 ? 32 * 16 - 31 * 3 : 3; });
}

/// A random matrix: row lengths uniform in [0, 2 * mean_per_row], distinct columns drawn
/// uniformly from [0, ncols), values uniform in [-1, 1). Deterministic for a given seed.
template <class Value, class Offset = std::int64_t>
HostCsr<Value, Offset> generate_random(std::int32_t nrows, std::int32_t ncols, double mean_per_row,
                                       std::uint64_t seed = 1) {
  if (nrows < 0 || ncols < 0 || mean_per_row < 0)
    throw InvalidArgument("random: negative size or mean");
  std::mt19937_64 rng(seed);
  const std::int64_t maxlen = std::min<std::int64_t>(ncols, static_cast<std::int64_t>(2 * mean_per_row));
  std::uniform_int_distribution<std::int64_t> len_dist(0, std::max<std::int64_t>(0, maxlen));
  std::uniform_int_distribution<std::int32_t> col_dist(0, std::max(0, ncols - 1));
  std::uniform_real_distribution<double> val_dist(-1.0, 1.0);
  std::vector<Offset> row_ptr(static_cast<std::size_t>(nrows) + 1, 0);
  std::vector<std::int32_t> cols;
  std::vector<Value> vals;
  std::vector<std::int32_t> row;
  for (std::int32_t i = 0; i < nrows; ++i) {
    const std::int64_t len = ncols > 0 ? len_dist(rng) : 0;
    row.clear();
    while (static_cast<std::int64_t>(row.size()) < len) {
      row.push_back(col_dist(rng));
      if (static_cast<std::int64_t>(row.size()) == len) {
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end()), row.end());
      }
    }
    for (std::int32_t c : row) {
      cols.push_back(c);
      vals.push_back(static_cast<Value>(val_dist(rng)));
    }
    row_ptr[static_cast<std::size_t>(i) + 1] = static_cast<Offset>(cols.size());
  }
  return make_csr<Value, Offset, std::int32_t>(nrows, ncols, row_ptr, cols, vals);
}

/// Block-diagonal tiling of a real matrix: `copies` copies of `base` along the diagonal,
/// so real row-length distributions can be measured at sizes far beyond the caches.
/// @throws InvalidArgument if the result does not fit 32-bit dimensions or Offset.
template <class Value, class Offset = std::int64_t, class BaseOffset>
HostCsr<Value, Offset> generate_tiled(const HostCsr<Value, BaseOffset>& base, std::int64_t copies) {
  const std::int64_t rows = static_cast<std::int64_t>(base.nrows) * copies;
  const std::int64_t cols = static_cast<std::int64_t>(base.ncols) * copies;
  const std::int64_t nnz = static_cast<std::int64_t>(base.nnz()) * copies;
  if (copies < 1 || rows > INT32_MAX || cols > INT32_MAX ||
      nnz > static_cast<std::int64_t>(std::numeric_limits<Offset>::max()))
    throw InvalidArgument("tile: " + std::to_string(copies) + " copies of a " +
                          std::to_string(base.nrows) + " x " + std::to_string(base.ncols) +
                          " matrix with " + std::to_string(base.nnz()) +
                          " nonzeros do not fit 32-bit dimensions / the offset type");
  HostCsr<Value, Offset> A;
  A.nrows = static_cast<std::int32_t>(rows);
  A.ncols = static_cast<std::int32_t>(cols);
  A.row_ptr = Kokkos::View<Offset*, Kokkos::HostSpace>("pspmv::row_ptr", rows + 1);
  A.col_idx = Kokkos::View<std::int32_t*, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "pspmv::col_idx"), nnz);
  A.values = Kokkos::View<Value*, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "pspmv::values"), nnz);
  const std::int64_t bn = base.nnz();
  Kokkos::parallel_for(
      "pspmv::generate_tiled", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, copies),
      [&](const std::int64_t t) {
        for (std::int32_t i = 0; i < base.nrows; ++i)
          A.row_ptr(t * base.nrows + i + 1) = static_cast<Offset>(t * bn + base.row_ptr(i + 1));
        for (std::int64_t k = 0; k < bn; ++k) {
          A.col_idx(t * bn + k) = static_cast<std::int32_t>(t * base.ncols + base.col_idx(k));
          A.values(t * bn + k) = base.values(k);
        }
      });
  Kokkos::fence();
  return A;
}

}  // namespace pspmv
