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
/// Beyond the pair: random rows, 3D 7- and 27-point stencils, R-MAT power-law graphs
/// (Graph500 parameters) and block-diagonal tiles of real matrices.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "pspmv/matrix/csr.hpp"
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
  A.row_ptr = detail::host_array<Offset>("pspmv::row_ptr", std::int64_t{rows} + 1);
  A.row_ptr(0) = 0;
  nnz = 0;
  for (std::int32_t i = 0; i < rows; ++i) {
    nnz += len_of_row(i);
    A.row_ptr(i + 1) = static_cast<Offset>(nnz);
  }
  A.col_idx = detail::host_array<std::int32_t>("pspmv::col_idx", nnz);
  A.values = detail::host_array<Value>("pspmv::values", nnz);
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

/// A 3D stencil on an nx x ny x nz grid (row and column = x + nx (y + ny z)): the 7-point
/// (faces) or 27-point (faces, edges, corners) Laplacian, diagonal points - 1 and -1 for each
/// neighbour inside the grid (boundary rows are shorter). Columns sorted.
/// Shapes: nx ny nz rows and columns; about 7 or 27 nonzeros per row.
/// @throws InvalidArgument unless points is 7 or 27 and the grid has 1 to 2^31 - 1 points.
template <class Value, class Offset = std::int64_t>
HostCsr<Value, Offset> generate_stencil(std::int64_t nx, std::int64_t ny, std::int64_t nz, int points) {
  if (points != 7 && points != 27)
    throw InvalidArgument("stencil: points must be 7 or 27, got " + std::to_string(points));
  if (nx < 1 || ny < 1 || nz < 1 || nx * ny * nz > INT32_MAX)
    throw InvalidArgument("stencil: grid " + std::to_string(nx) + " x " + std::to_string(ny) + " x " +
                          std::to_string(nz) + " must hold 1 to 2^31 - 1 points");
  const std::int64_t n = nx * ny * nz;
  // A neighbour offset (dx, dy, dz) belongs to the stencil if it is a face (7) or any (27).
  auto in_stencil = [points](int dx, int dy, int dz) {
    const int m = (dx != 0) + (dy != 0) + (dz != 0);
    return points == 27 || m <= 1;
  };
  auto for_row = [&](std::int64_t r, auto&& emit) {
    const std::int64_t x = r % nx, y = (r / nx) % ny, z = r / (nx * ny);
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {  // increasing column order
          if (!in_stencil(dx, dy, dz)) continue;
          const std::int64_t X = x + dx, Y = y + dy, Z = z + dz;
          if (X < 0 || X >= nx || Y < 0 || Y >= ny || Z < 0 || Z >= nz) continue;
          emit(X + nx * (Y + ny * Z), dx == 0 && dy == 0 && dz == 0);
        }
  };
  HostCsr<Value, Offset> A;
  A.nrows = A.ncols = static_cast<std::int32_t>(n);
  A.row_ptr = detail::host_array<Offset>("pspmv::row_ptr", n + 1);
  A.row_ptr(0) = 0;
  Kokkos::parallel_for(
      "pspmv::generate_stencil_count", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
      [&](const std::int64_t r) {
        Offset c = 0;
        for_row(r, [&](std::int64_t, bool) { ++c; });
        A.row_ptr(r + 1) = c;
      });
  Kokkos::fence();
  for (std::int64_t r = 0; r < n; ++r) A.row_ptr(r + 1) += A.row_ptr(r);
  const std::int64_t nnz = static_cast<std::int64_t>(A.row_ptr(n));
  A.col_idx = detail::host_array<std::int32_t>("pspmv::col_idx", nnz);
  A.values = detail::host_array<Value>("pspmv::values", nnz);
  Kokkos::parallel_for(
      "pspmv::generate_stencil", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
      [&](const std::int64_t r) {
        Offset k = A.row_ptr(r);
        for_row(r, [&](std::int64_t c, bool diag) {
          A.col_idx(k) = static_cast<std::int32_t>(c);
          A.values(k) = static_cast<Value>(diag ? points - 1 : -1);
          ++k;
        });
      });
  Kokkos::fence();
  return A;
}

namespace detail {
/// splitmix64: a counter-based generator, so that edge e of an R-MAT graph is the same
/// whatever thread draws it.
inline std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
inline double unit_double(std::uint64_t z) { return static_cast<double>(z >> 11) * 0x1.0p-53; }
}  // namespace detail

/// An R-MAT / Kronecker power-law graph's adjacency matrix (D. Chakrabarti, Y. Zhan,
/// C. Faloutsos, "R-MAT: A Recursive Model for Graph Mining", SDM 2004), with the Graph500
/// parameters by default (a = 0.57, b = c = 0.19, d = 0.05, edge factor 16; Graph500
/// specification 3.0, section 3.3): 2^scale vertices, edge_factor * 2^scale directed edges,
/// each placed by choosing a quadrant per bit; vertex labels are then permuted at random, as
/// Graph500 does, so that high-degree vertices are not clustered at low indices. Duplicate
/// edges are summed; values follow generated_value(i, j). Deterministic for a given seed.
/// Shapes: 2^scale x 2^scale; nnz <= edge_factor * 2^scale.
/// @throws InvalidArgument unless 1 <= scale <= 30, edge_factor >= 1 and the probabilities
///         are in [0, 1] with a + b + c <= 1.
template <class Value, class Offset = std::int64_t>
HostCsr<Value, Offset> generate_rmat(int scale, std::int64_t edge_factor = 16, std::uint64_t seed = 1,
                                     double a = 0.57, double b = 0.19, double c = 0.19) {
  if (scale < 1 || scale > 30 || edge_factor < 1 || a < 0 || b < 0 || c < 0 || a + b + c > 1.0)
    throw InvalidArgument("rmat: needs 1 <= scale <= 30, edge_factor >= 1, a, b, c >= 0 and a + b + c <= 1; got scale " +
                          std::to_string(scale) + ", edge factor " + std::to_string(edge_factor));
  const std::int64_t n = std::int64_t{1} << scale;
  const std::int64_t m = edge_factor * n;
  // Random vertex permutation (Fisher-Yates with the counter-based generator).
  std::vector<std::int64_t> label(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) label[v] = v;
  for (std::int64_t v = n - 1; v > 0; --v) {
    const std::uint64_t r = detail::splitmix64(seed ^ (0xA5A5A5A5ull + static_cast<std::uint64_t>(v)));
    std::swap(label[v], label[static_cast<std::int64_t>(r % static_cast<std::uint64_t>(v + 1))]);
  }
  CooMatrix<double> coo;
  coo.nrows = coo.ncols = n;
  coo.row.resize(static_cast<std::size_t>(m));
  coo.col.resize(static_cast<std::size_t>(m));
  coo.values.resize(static_cast<std::size_t>(m));
  Kokkos::parallel_for(
      "pspmv::generate_rmat", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, m),
      [&](const std::int64_t e) {
        std::uint64_t state = detail::splitmix64(seed * 0x100000001B3ull + static_cast<std::uint64_t>(e));
        std::int64_t i = 0, j = 0;
        for (int bit = scale - 1; bit >= 0; --bit) {
          state = detail::splitmix64(state);
          const double u = detail::unit_double(state);
          const int q = u < a ? 0 : (u < a + b ? 1 : (u < a + b + c ? 2 : 3));
          i |= static_cast<std::int64_t>(q >> 1) << bit;
          j |= static_cast<std::int64_t>(q & 1) << bit;
        }
        const std::int64_t r = label[i], s = label[j];
        coo.row[e] = r;
        coo.col[e] = s;
        coo.values[e] = generated_value(r, s);
      });
  Kokkos::fence();
  return coo_to_csr<Value, Offset, std::int32_t>(coo);
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
  A.row_ptr = detail::host_array<Offset>("pspmv::row_ptr", rows + 1);
  A.row_ptr(0) = 0;
  A.col_idx = detail::host_array<std::int32_t>("pspmv::col_idx", nnz);
  A.values = detail::host_array<Value>("pspmv::values", nnz);
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
