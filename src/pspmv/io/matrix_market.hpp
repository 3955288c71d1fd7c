#pragma once
/// @file matrix_market.hpp
/// Matrix Market reader and writer (NIST, "The Matrix Market Exchange Formats:
/// Initial Design", Boisvert, Pozo, Remington, 1996).
///
/// Read: `matrix coordinate` and `matrix array`; fields real, double, integer and
/// pattern (every stored entry 1); storage general, symmetric and skew-symmetric
/// (off-diagonal entries mirrored, the diagonal never doubled, the skew mirror
/// negated). Banner words are matched in any letter case; comment lines may stand
/// anywhere after the banner and blank lines anywhere; CRLF line endings are
/// accepted. Numbers: anything std::from_chars reads as a decimal floating-point
/// number, an optional leading '+', and Fortran exponents ('1.5D+03'); 'inf' and
/// 'nan' are read as such. Complex and hermitian files are rejected (Unsupported).
/// Write: `matrix coordinate real general`, values printed with 17 significant
/// digits so that doubles round-trip; the file appears whole or not at all.

#include <cstdint>
#include <string>

#include "pspmv/matrix/csr.hpp"
#include "pspmv/io/matrix_market_coo.hpp"

namespace pspmv {

/// Reads a Matrix Market file into a validated host CSR matrix.
/// @throws as read_matrix_market_coo(), and InvalidArgument from coo_to_csr() (a value
///         beyond Value's range, nnz beyond Offset).
template <class Value, class Offset = std::int64_t>
HostCsr<Value, Offset> read_matrix_market(const std::string& path,
                                          MatrixMarketHeader* header = nullptr) {
  return coo_to_csr<Value, Offset, std::int32_t>(read_matrix_market_coo(path, header));
}

/// Writes A as `matrix coordinate real general` (1-based indices), through a temporary
/// file renamed into place, so no half-written file is ever left at `path`.
/// @throws Error if the file cannot be written.
template <class Value, class Offset>
void write_matrix_market(const std::string& path, const HostCsr<Value, Offset>& A);

template <class Value, class Offset>
void write_matrix_market(const std::string& path, const HostCsr<Value, Offset>& A) {
  std::vector<std::int64_t> rp(A.row_ptr.extent(0));
  for (std::size_t i = 0; i < rp.size(); ++i) rp[i] = static_cast<std::int64_t>(A.row_ptr(i));
  std::vector<double> v(A.values.extent(0));
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>(A.values(k));
  detail::write_matrix_market_arrays(path, A.nrows, A.ncols, static_cast<std::int64_t>(A.nnz()),
                                     rp.data(), A.col_idx.data(), v.data());
}

}  // namespace pspmv
