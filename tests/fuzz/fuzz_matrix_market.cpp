// libFuzzer target for the Matrix Market reader (pspmv::parse_matrix_market).
// Built by tests/fuzz/CMakeLists.txt with clang -fsanitize=fuzzer,address,undefined and run
// by scripts/fuzz (CI: a bounded run). Any input must either parse into a COO matrix whose
// every index lies inside its declared size, or raise a pspmv::Error: any other exception,
// a crash, a sanitizer report or a broken invariant is a defect, and the input that found
// it goes into tests/fuzz/regressions/ (replayed by the test suite: MatrixMarket.FuzzCorpusAndRegressions).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "pspmv/io/matrix_market_coo.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  pspmv::MatrixMarketHeader h;
  pspmv::CooMatrix<double> coo;
  try {
    coo = pspmv::parse_matrix_market(text, "fuzz-input", &h);
  } catch (const pspmv::Error& e) {
    const std::string what = e.what();
    // Every reader error names the input.
    if (what.find("fuzz-input") == std::string::npos) {
      std::fprintf(stderr, "error without the input's name: %s\n", what.c_str());
      std::abort();
    }
    return 0;
  }
  const std::size_t n = coo.row.size();
  if (coo.col.size() != n || coo.values.size() != n || coo.nrows != h.nrows || coo.ncols != h.ncols) std::abort();
  for (std::size_t k = 0; k < n; ++k)
    if (coo.row[k] < 0 || coo.row[k] >= coo.nrows || coo.col[k] < 0 || coo.col[k] >= coo.ncols) {
      std::fprintf(stderr, "entry %zu: (%lld, %lld) outside %lld x %lld\n", k, static_cast<long long>(coo.row[k]),
                   static_cast<long long>(coo.col[k]), static_cast<long long>(coo.nrows),
                   static_cast<long long>(coo.ncols));
      std::abort();
    }
  return 0;
}
