#pragma once
/// @file matrix_market_coo.hpp
/// The Kokkos-free half of the Matrix Market reader (see matrix_market.hpp for the
/// accepted dialect): text or file -> CooMatrix, and the writer's array form.

#include <cstdint>
#include <string>

#include "pspmv/matrix/coo.hpp"
#include "pspmv/errors.hpp"

namespace pspmv {

/// What the banner of a Matrix Market file declares.
struct MatrixMarketHeader {
  std::string format;    ///< "coordinate" or "array"
  std::string field;     ///< "real", "double", "integer" or "pattern"
  std::string symmetry;  ///< "general", "symmetric" or "skew-symmetric"
  std::int64_t nrows = 0, ncols = 0;
  std::int64_t stored_entries = 0;  ///< entries in the file (coordinate) or stored values (array)
};

/// Reads a Matrix Market file into 0-based COO form with symmetric storage expanded.
/// Duplicates are kept (coo_to_csr sums them). Array-format zeros are dropped.
/// @throws ParseError naming the file and line for anything malformed (bad banner,
///         size line or entry; an index of 0 or beyond the declared size; too few or
///         too many entries); Unsupported for complex, hermitian or non-matrix objects;
///         Error if the file cannot be opened.
CooMatrix<double> read_matrix_market_coo(const std::string& path,
                                         MatrixMarketHeader* header = nullptr);

/// Parses the text of a Matrix Market file held in memory, as read_matrix_market_coo()
/// does; `name` stands for the file in error messages ("name:line: ...").
/// @throws ParseError, Unsupported as read_matrix_market_coo().
CooMatrix<double> parse_matrix_market(const std::string& text, const std::string& name,
                                      MatrixMarketHeader* header = nullptr);

namespace detail {
/// Writes the given arrays (already validated CSR) as described for write_matrix_market.
void write_matrix_market_arrays(const std::string& path, std::int64_t nrows, std::int64_t ncols,
                                std::int64_t nnz, const std::int64_t* row_ptr64,
                                const std::int32_t* col_idx, const double* values);
}  // namespace detail

}  // namespace pspmv
