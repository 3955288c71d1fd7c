#pragma once
/// @file csr.hpp
/// CsrMatrix: compressed sparse row storage in Kokkos views, its validation, and
/// COO -> CSR conversion (count, prefix sum, scatter; columns sorted within each
/// row; duplicate entries summed).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "pspmv/matrix/coo.hpp"
#include "pspmv/matrix/host_parallel.hpp"
#include "pspmv/errors.hpp"

namespace pspmv {

/// A sparse matrix in CSR form.
///
/// Shapes: row_ptr has nrows + 1 entries, starting at 0, non-decreasing, ending at nnz;
/// col_idx and values have nnz entries; col_idx(k) is in [0, ncols).
/// @tparam Value   float or double
/// @tparam Offset  int32_t or int64_t: type of row_ptr (must hold nnz)
/// @tparam Ordinal int32_t: type of col_idx and of the dimensions
/// @tparam MemorySpace a Kokkos memory space (HostSpace for host matrices)
template <class Value, class Offset = std::int64_t, class Ordinal = std::int32_t,
          class MemorySpace = Kokkos::HostSpace>
struct CsrMatrix {
  static_assert(std::is_floating_point<Value>::value, "Value must be float or double");
  static_assert(std::is_integral<Offset>::value && std::is_signed<Offset>::value,
                "Offset must be a signed integer type");
  static_assert(std::is_integral<Ordinal>::value && std::is_signed<Ordinal>::value,
                "Ordinal must be a signed integer type");

  using value_type = Value;
  using offset_type = Offset;
  using ordinal_type = Ordinal;
  using memory_space = MemorySpace;

  Ordinal nrows = 0;
  Ordinal ncols = 0;
  Kokkos::View<Offset*, MemorySpace> row_ptr;
  Kokkos::View<Ordinal*, MemorySpace> col_idx;
  Kokkos::View<Value*, MemorySpace> values;

  /// Number of stored entries (explicit zeros included).
  Offset nnz() const { return static_cast<Offset>(col_idx.extent(0)); }

  /// Bytes held by the three arrays.
  std::size_t bytes() const {
    return row_ptr.extent(0) * sizeof(Offset) + col_idx.extent(0) * sizeof(Ordinal) +
           values.extent(0) * sizeof(Value);
  }
};

/// Width in bits of the row_ptr offsets a matrix with `stored_entries` entries needs:
/// 32 while every offset fits int32 (nnz, or the padded entries of a SELL copy, below
/// 2^31), 64 beyond. pspmv's tool reads and benchmarks with this width.
inline int offset_bits_for(std::int64_t stored_entries) {
  return stored_entries > static_cast<std::int64_t>(std::numeric_limits<std::int32_t>::max()) ? 64 : 32;
}

/// Checks that `count` entries (nnz, or stored SELL entries) can be addressed by Offset.
/// @throws InvalidArgument naming what was counted, the count and the offset width, e.g.
///         "nnz = 2147483648 does not fit a 32-bit row_ptr offset (use int64_t offsets)".
template <class Offset>
void check_offset_fits(std::int64_t count, const std::string& what = "nnz") {
  if (count > static_cast<std::int64_t>(std::numeric_limits<Offset>::max()))
    throw InvalidArgument(what + " = " + std::to_string(count) + " does not fit a " +
                          std::to_string(8 * sizeof(Offset)) + "-bit row_ptr offset (use int64_t offsets)");
}

/// A host CSR matrix: what readers, generators and analyze() exchange.
template <class Value, class Offset = std::int64_t>
using HostCsr = CsrMatrix<Value, Offset, std::int32_t, Kokkos::HostSpace>;

namespace detail {
/// The checks of validate_row_ptr() that need no row_ptr: dimensions and array lengths.
inline void validate_sizes(std::int64_t nrows, std::int64_t ncols, std::int64_t row_ptr_len, std::int64_t col_len,
                           std::int64_t val_len) {
  if (nrows < 0 || ncols < 0)
    throw InvalidMatrix("negative dimensions " + std::to_string(nrows) + " x " + std::to_string(ncols));
  if (row_ptr_len != nrows + 1) throw DimensionError("row_ptr length (nrows + 1)", nrows + 1, row_ptr_len);
  if (val_len != col_len) throw DimensionError("values length (= col_idx length)", col_len, val_len);
}

/// The error validate() throws where row_ptr[0] is not 0.
inline InvalidMatrix row_ptr_start_error(std::int64_t first) {
  return InvalidMatrix("row_ptr[0] is " + std::to_string(first) + ", must be 0");
}

/// The error validate() throws where row_ptr decreases at row i (row_ptr[i] = a > row_ptr[i + 1] = b).
inline InvalidMatrix row_ptr_decrease_error(std::int64_t i, std::int64_t a, std::int64_t b) {
  return InvalidMatrix("row_ptr decreases at row " + std::to_string(i) + ": row_ptr[" + std::to_string(i) + "] = " +
                       std::to_string(a) + " > row_ptr[" + std::to_string(i + 1) + "] = " + std::to_string(b));
}

/// The error validate() throws where row_ptr[nrows] is not the length of col_idx.
inline DimensionError row_ptr_end_error(std::int64_t col_len, std::int64_t last) {
  return DimensionError("row_ptr[nrows] (= nnz = col_idx length)", col_len, last);
}

/// validate()'s checks of the sizes and of row_ptr (on the host: `rp` has row_ptr_len entries
/// in host memory); col_len and val_len are the lengths of col_idx and values.
template <class Offset>
void validate_row_ptr(std::int64_t nrows, std::int64_t ncols, const Offset* rp, std::int64_t row_ptr_len,
                      std::int64_t col_len, std::int64_t val_len) {
  validate_sizes(nrows, ncols, row_ptr_len, col_len, val_len);
  if (rp[0] != 0) throw row_ptr_start_error(static_cast<std::int64_t>(rp[0]));
  // In parallel over pieces of rows (matrix/host_parallel.hpp); the first offence is reported.
  const std::int64_t n = nrows;
  const std::int64_t dec = detail::first_index("pspmv::validate_row_ptr", n, [&](std::int64_t i) { return rp[i + 1] < rp[i]; });
  if (dec < n)
    throw row_ptr_decrease_error(dec, static_cast<std::int64_t>(rp[dec]), static_cast<std::int64_t>(rp[dec + 1]));
  if (static_cast<std::int64_t>(rp[n]) != col_len) throw row_ptr_end_error(col_len, static_cast<std::int64_t>(rp[n]));
}

/// The error validate() throws for entry k of row i, column c.
inline InvalidMatrix column_error(std::int64_t i, std::int64_t k, std::int64_t c, std::int64_t ncols) {
  return InvalidMatrix("column index " + std::to_string(c) + " of row " + std::to_string(i) + " (entry " +
                       std::to_string(k) + ") is outside [0, " + std::to_string(ncols) + ")");
}

/// The value of one entry of a View in any memory space, on the host (a fence on `space`).
template <class ExecSpace, class V>
typename V::non_const_value_type read_back(const ExecSpace& space, const V& v, std::int64_t i) {
  typename V::non_const_value_type x{};
  Kokkos::View<typename V::non_const_value_type, Kokkos::HostSpace> h(&x);
  Kokkos::deep_copy(space, h, Kokkos::subview(v, i));
  space.fence();
  return x;
}
}  // namespace detail

/// Checks the CSR invariants of a host matrix.
/// @throws InvalidMatrix naming the first offending row or entry and the sizes involved.
template <class Value, class Offset, class Ordinal>
void validate(const CsrMatrix<Value, Offset, Ordinal, Kokkos::HostSpace>& A) {
  detail::validate_row_ptr(A.nrows, A.ncols, A.row_ptr.data(), static_cast<std::int64_t>(A.row_ptr.extent(0)),
                           static_cast<std::int64_t>(A.col_idx.extent(0)), static_cast<std::int64_t>(A.values.extent(0)));
  const std::int64_t n = A.nrows;
  const Offset* rp = A.row_ptr.data();
  const Ordinal* ci = A.col_idx.data();
  const Ordinal ncols = A.ncols;
  // Per piece of rows, the largest of its columns taken as unsigned (a negative column wraps
  // above every valid one): one loop over the piece's entries with no per-row exit; only a
  // piece whose largest reaches ncols is searched for its first offending row. Testing each row
  // took about 2x the time on one core of the 2-core EPYC (a standalone loop over rows of 16);
  // on the Xeon host of the H200 machine (16 threads) the old test took 1.9-4.3x this one
  // (perf/results/h200.md, "Analysis in multiplies").
  using Unsigned = std::make_unsigned_t<Ordinal>;
  std::vector<std::int64_t> first(static_cast<std::size_t>(detail::pieces_of(n)), n);
  detail::for_pieces("pspmv::validate_col_idx", n, detail::host_piece,
                     [&](std::int64_t b, std::int64_t begin, std::int64_t end) {
                       const std::int64_t kb = static_cast<std::int64_t>(rp[begin]), ke = static_cast<std::int64_t>(rp[end]);
                       Unsigned largest = 0;
                       for (std::int64_t k = kb; k < ke; ++k) {
                         const auto c = static_cast<Unsigned>(ci[k]);
                         largest = c > largest ? c : largest;
                       }
                       if (largest < static_cast<Unsigned>(ncols)) return;
                       for (std::int64_t i = begin; i < end; ++i)
                         for (Offset k = rp[i]; k < rp[i + 1]; ++k)
                           if (ci[k] < 0 || ci[k] >= ncols) {
                             first[static_cast<std::size_t>(b)] = i;
                             return;
                           }
                     });
  std::int64_t bad_row = n;
  for (const std::int64_t f : first)
    if (f < n) {
      bad_row = f;
      break;
    }
  if (bad_row < n) {
    for (Offset k = rp[bad_row]; k < rp[bad_row + 1]; ++k)
      if (ci[k] < 0 || ci[k] >= ncols) throw detail::column_error(bad_row, k, ci[k], ncols);
  }
}

/// Checks the CSR invariants of A, a matrix in the memory of `space`, there: the sizes on the
/// host, row_ptr and the column indices on `space` (parallel reductions to the first offending
/// row and entry; the values a message names are read back). Throws what validate() throws for
/// the same matrix.
template <class ExecSpace, class Value, class Offset, class Ordinal, class Mem>
void validate_on(const ExecSpace& space, const CsrMatrix<Value, Offset, Ordinal, Mem>& A) {
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  const std::int64_t n = A.nrows, nnz = static_cast<std::int64_t>(A.col_idx.extent(0));
  detail::validate_sizes(A.nrows, A.ncols, static_cast<std::int64_t>(A.row_ptr.extent(0)), nnz,
                         static_cast<std::int64_t>(A.values.extent(0)));
  const auto rp = A.row_ptr;
  const auto ci = A.col_idx;
  const Ordinal ncols = A.ncols;
  const auto start = static_cast<std::int64_t>(detail::read_back(space, rp, 0));
  if (start != 0) throw detail::row_ptr_start_error(start);
  std::int64_t dec = n;
  Kokkos::parallel_reduce(
      "pspmv::validate_row_ptr_on", Range(space, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& f) {
        if (rp(i + 1) < rp(i) && i < f) f = i;
      },
      Kokkos::Min<std::int64_t>(dec));
  space.fence();
  if (dec < n)
    throw detail::row_ptr_decrease_error(dec, static_cast<std::int64_t>(detail::read_back(space, rp, dec)),
                                         static_cast<std::int64_t>(detail::read_back(space, rp, dec + 1)));
  const auto last = static_cast<std::int64_t>(detail::read_back(space, rp, n));
  if (last != nnz) throw detail::row_ptr_end_error(nnz, last);
  std::int64_t first = nnz;
  Kokkos::parallel_reduce(
      "pspmv::validate_col_idx_on", Range(space, 0, nnz),
      KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& f) {
        if ((ci(k) < 0 || ci(k) >= ncols) && k < f) f = k;
      },
      Kokkos::Min<std::int64_t>(first));
  space.fence();
  if (first < nnz) {
    // The row holding entry `first`: the last row that starts at or before it (rows are in order).
    std::int64_t row = 0;
    Kokkos::parallel_reduce(
        "pspmv::validate_col_idx_row_on", Range(space, 0, n),
        KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& r) {
          if (static_cast<std::int64_t>(rp(i)) <= first && first < static_cast<std::int64_t>(rp(i + 1)) && i > r) r = i;
        },
        Kokkos::Max<std::int64_t>(row));
    space.fence();
    throw detail::column_error(row, first, detail::read_back(space, ci, first), ncols);
  }
}

/// Builds a host CSR matrix from caller arrays (copied) and validates it.
/// @throws InvalidMatrix, DimensionError as validate().
template <class Value, class Offset = std::int64_t, class Ordinal = std::int32_t>
CsrMatrix<Value, Offset, Ordinal, Kokkos::HostSpace> make_csr(
    Ordinal nrows, Ordinal ncols, const std::vector<Offset>& row_ptr,
    const std::vector<Ordinal>& col_idx, const std::vector<Value>& values) {
  CsrMatrix<Value, Offset, Ordinal, Kokkos::HostSpace> A;
  A.nrows = nrows;
  A.ncols = ncols;
  A.row_ptr = detail::host_array<Offset>("pspmv::row_ptr", static_cast<std::int64_t>(row_ptr.size()));
  A.col_idx = detail::host_array<Ordinal>("pspmv::col_idx", static_cast<std::int64_t>(col_idx.size()));
  A.values = detail::host_array<Value>("pspmv::values", static_cast<std::int64_t>(values.size()));
  // Copied by the host threads in pieces, so that each page is first touched by one of them
  // (spread over the threads, as on a host of several NUMA nodes a plan's threads read it).
  detail::parallel_copy("pspmv::make_csr_row_ptr", row_ptr.data(), static_cast<std::int64_t>(row_ptr.size()),
                        A.row_ptr.data());
  detail::parallel_copy("pspmv::make_csr_col_idx", col_idx.data(), static_cast<std::int64_t>(col_idx.size()),
                        A.col_idx.data());
  detail::parallel_copy("pspmv::make_csr_values", values.data(), static_cast<std::int64_t>(values.size()),
                        A.values.data());
  if (row_ptr.empty()) throw DimensionError("row_ptr length (nrows + 1)", nrows + 1, 0);
  validate(A);
  return A;
}

/// Deep copy of a CSR matrix into another memory space (same types), ordered on the
/// execution-space instance `space` (asynchronous: fence `space` before using the copy or
/// releasing A).
template <class DstSpace, class ExecSpace, class Value, class Offset, class Ordinal, class SrcSpace>
CsrMatrix<Value, Offset, Ordinal, DstSpace> copy_to(const ExecSpace& space,
                                                    const CsrMatrix<Value, Offset, Ordinal, SrcSpace>& A) {
  CsrMatrix<Value, Offset, Ordinal, DstSpace> B;
  B.nrows = A.nrows;
  B.ncols = A.ncols;
  const auto array = [](auto* type, const char* label, std::size_t n) {
    using T = std::remove_pointer_t<decltype(type)>;
    if constexpr (std::is_same<DstSpace, Kokkos::HostSpace>::value)
      return detail::host_array<T>(label, static_cast<std::int64_t>(n));  // huge pages advised
    else
      return Kokkos::View<T*, DstSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
  };
  B.row_ptr = array(static_cast<Offset*>(nullptr), "pspmv::row_ptr", A.row_ptr.extent(0));
  B.col_idx = array(static_cast<Ordinal*>(nullptr), "pspmv::col_idx", A.col_idx.extent(0));
  B.values = array(static_cast<Value*>(nullptr), "pspmv::values", A.values.extent(0));
  Kokkos::deep_copy(space, B.row_ptr, A.row_ptr);
  Kokkos::deep_copy(space, B.col_idx, A.col_idx);
  Kokkos::deep_copy(space, B.values, A.values);
  return B;
}

/// Deep copy of a CSR matrix into another memory space (same types); returns when done.
template <class DstSpace, class Value, class Offset, class Ordinal, class SrcSpace>
CsrMatrix<Value, Offset, Ordinal, DstSpace> copy_to(const CsrMatrix<Value, Offset, Ordinal, SrcSpace>& A) {
  using Exec = typename DstSpace::execution_space;
  auto B = copy_to<DstSpace>(Exec(), A);
  Exec().fence();
  return B;
}

/// Host conversion between value and offset types, in parallel on the host threads.
/// col_idx is shared with A (same type, read-only use), and so are the values when Value2 is
/// Value and row_ptr when Offset2 is Offset: changing the result's arrays changes A's.
/// @throws InvalidArgument if nnz does not fit Offset2, or a finite value overflows Value2.
template <class Value2, class Offset2, class Value, class Offset, class Ordinal>
CsrMatrix<Value2, Offset2, Ordinal, Kokkos::HostSpace> convert(
    const CsrMatrix<Value, Offset, Ordinal, Kokkos::HostSpace>& A) {
  check_offset_fits<Offset2>(static_cast<std::int64_t>(A.nnz()));
  CsrMatrix<Value2, Offset2, Ordinal, Kokkos::HostSpace> B;
  B.nrows = A.nrows;
  B.ncols = A.ncols;
  if constexpr (std::is_same<Offset, Offset2>::value) {
    B.row_ptr = A.row_ptr;
  } else {
    B.row_ptr = detail::host_array<Offset2>("pspmv::row_ptr", static_cast<std::int64_t>(A.row_ptr.extent(0)));
    const Offset* from = A.row_ptr.data();
    Offset2* to = B.row_ptr.data();
    detail::for_pieces("pspmv::convert_row_ptr", static_cast<std::int64_t>(A.row_ptr.extent(0)), detail::host_piece,
                       [&](std::int64_t, std::int64_t b, std::int64_t e) {
                         for (std::int64_t i = b; i < e; ++i) to[i] = static_cast<Offset2>(from[i]);
                       });
  }
  B.col_idx = A.col_idx;  // shared: same type, host, read-only use
  if constexpr (std::is_same<Value, Value2>::value) {
    B.values = A.values;
  } else {
    B.values = detail::host_array<Value2>("pspmv::values", static_cast<std::int64_t>(A.values.extent(0)));
    const Value* from = A.values.data();
    Value2* to = B.values.data();
    const std::int64_t n = static_cast<std::int64_t>(A.values.extent(0));
    const long double limit = static_cast<long double>(std::numeric_limits<Value2>::max());
    const std::int64_t bad = detail::first_index("pspmv::convert_values", n, [&](std::int64_t k) {
      const Value v = from[k];
      if (std::isfinite(v) && std::fabs(static_cast<long double>(v)) > limit) return true;
      to[k] = static_cast<Value2>(v);
      return false;
    });
    if (bad < n)
      throw InvalidArgument("value " + std::to_string(from[bad]) + " of entry " + std::to_string(bad) +
                            " overflows " + (sizeof(Value2) == 4 ? "float" : "double"));
  }
  return B;
}

/// COO -> CSR by counting entries per row, a prefix sum and a stable scatter; columns
/// are then sorted within each row and duplicate (row, col) entries summed (so nnz may
/// shrink). Explicit zeros are kept.
/// @throws InvalidArgument if a dimension does not fit Ordinal, nnz does not fit Offset,
///         a finite value overflows Value, or an index is outside the declared size.
template <class Value, class Offset = std::int64_t, class Ordinal = std::int32_t, class InValue>
CsrMatrix<Value, Offset, Ordinal, Kokkos::HostSpace> coo_to_csr(const CooMatrix<InValue>& coo) {
  const std::int64_t omax = std::numeric_limits<Ordinal>::max();
  if (coo.nrows < 0 || coo.ncols < 0 || coo.nrows > omax || coo.ncols > omax)
    throw InvalidArgument("matrix size " + std::to_string(coo.nrows) + " x " +
                          std::to_string(coo.ncols) + " does not fit " +
                          std::to_string(8 * sizeof(Ordinal)) + "-bit indices");
  const std::int64_t n = static_cast<std::int64_t>(coo.row.size());
  if (coo.col.size() != coo.row.size() || coo.values.size() != coo.row.size())
    throw DimensionError("COO array lengths (row, col, values)", n,
                         static_cast<std::int64_t>(std::min(coo.col.size(), coo.values.size())));
  check_offset_fits<Offset>(n, "nnz (entries before duplicates are summed)");
  const Ordinal nrows = static_cast<Ordinal>(coo.nrows);
  std::vector<Offset> count(static_cast<std::size_t>(nrows) + 1, 0);
  for (std::int64_t k = 0; k < n; ++k) {
    if (coo.row[k] < 0 || coo.row[k] >= coo.nrows || coo.col[k] < 0 || coo.col[k] >= coo.ncols)
      throw InvalidArgument("entry " + std::to_string(k) + " at (" + std::to_string(coo.row[k]) +
                            ", " + std::to_string(coo.col[k]) + ") is outside the " +
                            std::to_string(coo.nrows) + " x " + std::to_string(coo.ncols) +
                            " matrix");
    const InValue v = coo.values[k];
    if (std::isfinite(v) && std::fabs(static_cast<long double>(v)) >
                                static_cast<long double>(std::numeric_limits<Value>::max()))
      throw InvalidArgument("value " + std::to_string(static_cast<double>(v)) + " of entry " +
                            std::to_string(k) + " overflows " +
                            (sizeof(Value) == 4 ? "float" : "double"));
    ++count[static_cast<std::size_t>(coo.row[k]) + 1];
  }
  std::partial_sum(count.begin(), count.end(), count.begin());
  std::vector<Ordinal> cols(static_cast<std::size_t>(n));
  std::vector<Value> vals(static_cast<std::size_t>(n));
  {
    std::vector<Offset> next(count.begin(), count.end() - 1);
    for (std::int64_t k = 0; k < n; ++k) {
      const Offset pos = next[static_cast<std::size_t>(coo.row[k])]++;
      cols[pos] = static_cast<Ordinal>(coo.col[k]);
      vals[pos] = static_cast<Value>(coo.values[k]);
    }
  }
  // Sort each row by column and sum duplicates, compacting in place.
  std::vector<Offset> row_ptr(static_cast<std::size_t>(nrows) + 1, 0);
  std::vector<std::pair<Ordinal, Value>> tmp;
  Offset out = 0;
  for (Ordinal i = 0; i < nrows; ++i) {
    const Offset b = count[i], e = count[i + 1];
    tmp.assign(0, {});
    bool sorted = true;
    for (Offset k = b; k < e; ++k) {
      tmp.emplace_back(cols[k], vals[k]);
      if (k > b && cols[k] <= cols[k - 1]) sorted = false;
    }
    if (!sorted)
      std::stable_sort(tmp.begin(), tmp.end(),
                       [](const auto& a, const auto& c) { return a.first < c.first; });
    for (std::size_t t = 0; t < tmp.size(); ++t) {
      if (t > 0 && tmp[t].first == cols[out - 1]) {
        vals[out - 1] += tmp[t].second;
      } else {
        cols[out] = tmp[t].first;
        vals[out] = tmp[t].second;
        ++out;
      }
    }
    row_ptr[static_cast<std::size_t>(i) + 1] = out;
  }
  cols.resize(static_cast<std::size_t>(out));
  vals.resize(static_cast<std::size_t>(out));
  return make_csr<Value, Offset, Ordinal>(nrows, static_cast<Ordinal>(coo.ncols), row_ptr, cols,
                                          vals);
}

}  // namespace pspmv
