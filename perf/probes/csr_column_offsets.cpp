// A CSR row loop with 32-bit columns against the same loop with 16-bit column offsets from a
// base per block of 32 rows (CSR row blocks in the manner of SELL's compressed columns,
// docs/selection.md: a block whose columns span fewer than 65,536 keeps 2 bytes per entry
// instead of 4): whether moving 10 bytes per f64 entry instead of 12 makes the multiply faster
// on this machine, before any kernel is built for it. Built on request (target
// pspmv_probe_csr_column_offsets, not in `all`), or alone:
//   g++ -O3 -march=native -fopenmp perf/probes/csr_column_offsets.cpp -o /tmp/csr_column_offsets
//   OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=threads /tmp/csr_column_offsets [ROWS]
// Inputs of ROWS rows (default 4,000,000): rows of 16, 8 and 27 entries whose columns lie within
// a band of 2,000, 60,000 and 200 around the diagonal (every block fits the 16-bit span), f64.
// 3 untimed rounds, then 21 rounds of the two loops in turn (the first one alternating); the
// medians, the bytes each reads, and the ratio (above 1: the offsets are faster). Each result is
// checked against the other.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

constexpr int block_rows = 32;

struct Input {
  std::int32_t n = 0;
  std::vector<std::int64_t> row_ptr;
  std::vector<std::int32_t> col;
  std::vector<double> val;
  std::vector<std::int32_t> base;   // per block of block_rows rows: its smallest column
  std::vector<std::uint16_t> off;   // column - base of the entry's block
};

Input make(std::int32_t n, int per_row, std::int32_t band) {
  Input in;
  in.n = n;
  in.row_ptr.resize(static_cast<std::size_t>(n) + 1);
  in.col.resize(static_cast<std::size_t>(n) * per_row);
  in.val.resize(in.col.size());
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < n; ++i) {
    std::mt19937 rng(static_cast<unsigned>(i));
    const std::int32_t lo = std::max(0, i - band / 2), hi = std::min(n - 1, i + band / 2);
    const std::size_t k0 = static_cast<std::size_t>(i) * per_row;
    in.row_ptr[i] = static_cast<std::int64_t>(k0);
    for (int k = 0; k < per_row; ++k) {
      in.col[k0 + k] = lo + static_cast<std::int32_t>(rng() % static_cast<unsigned>(hi - lo + 1));
      in.val[k0 + k] = 1.0 + 0.001 * static_cast<double>(rng() % 1000);
    }
    const auto row = in.col.begin() + static_cast<std::ptrdiff_t>(k0);
    std::sort(row, row + per_row);
  }
  in.row_ptr[n] = static_cast<std::int64_t>(in.col.size());
  const std::int32_t nblocks = (n + block_rows - 1) / block_rows;
  in.base.resize(static_cast<std::size_t>(nblocks));
  in.off.resize(in.col.size());
#pragma omp parallel for schedule(static)
  for (std::int32_t b = 0; b < nblocks; ++b) {
    const std::int64_t kb = in.row_ptr[b * block_rows], ke = in.row_ptr[std::min(n, (b + 1) * block_rows)];
    std::int32_t lo = n;
    for (std::int64_t k = kb; k < ke; ++k) lo = std::min(lo, in.col[k]);
    in.base[b] = lo;
    for (std::int64_t k = kb; k < ke; ++k) {
      if (in.col[k] - lo > 65535) std::abort();  // every band here keeps a block's span below 65,536
      in.off[k] = static_cast<std::uint16_t>(in.col[k] - lo);
    }
  }
  return in;
}

void columns32(const Input& in, const double* x, double* y) {
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < in.n; ++i) {
    double s = 0;
    for (std::int64_t k = in.row_ptr[i]; k < in.row_ptr[i + 1]; ++k) s += in.val[k] * x[in.col[k]];
    y[i] = s;
  }
}

void offsets16(const Input& in, const double* x, double* y) {
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < in.n; ++i) {
    const double* xb = x + in.base[i / block_rows];
    double s = 0;
    for (std::int64_t k = in.row_ptr[i]; k < in.row_ptr[i + 1]; ++k) s += in.val[k] * xb[in.off[k]];
    y[i] = s;
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::int32_t n = argc > 1 ? std::max(64, std::atoi(argv[1])) : 4000000;
  std::printf("%d threads, %d rows, f64; medians of 21 rounds in ms\n", omp_get_max_threads(), n);
  std::printf("%-22s %10s %10s %10s %10s %8s\n", "rows", "MB 32-bit", "MB 16-bit", "32-bit", "16-bit", "32 / 16");
  const struct {
    int per_row;
    std::int32_t band;
  } shapes[] = {{16, 2000}, {8, 60000}, {27, 200}};
  for (const auto& shape : shapes) {
    const Input in = make(n, shape.per_row, shape.band);
    std::vector<double> x(static_cast<std::size_t>(n)), y32(x.size()), y16(x.size());
    for (std::int32_t i = 0; i < n; ++i) x[i] = 1.0 + 0.25 * (i % 7);
    std::vector<double> t32, t16;
    for (int round = 0; round < 24; ++round)
      for (int q = 0; q < 2; ++q) {
        const bool first32 = (round + q) % 2 == 0;
        const auto t0 = std::chrono::steady_clock::now();
        if (first32) columns32(in, x.data(), y32.data());
        else offsets16(in, x.data(), y16.data());
        const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (round >= 3) (first32 ? t32 : t16).push_back(dt);
      }
    for (std::int32_t i = 0; i < n; ++i)
      if (y32[i] != y16[i]) {
        std::printf("WRONG: row %d: %.17g against %.17g\n", i, y32[i], y16[i]);
        return 1;
      }
    const double nnz = static_cast<double>(in.col.size()), rows = static_cast<double>(n) + 1;
    const double mb32 = (nnz * 12 + rows * 8 + 2 * n * 8.0) / 1e6;
    const double mb16 = (nnz * 10 + rows * 8 + static_cast<double>(in.base.size()) * 4 + 2 * n * 8.0) / 1e6;
    char label[64];
    std::snprintf(label, sizeof label, "%d entries, band %d", shape.per_row, shape.band);
    const double a = median(t32) * 1e3, b = median(t16) * 1e3;
    std::printf("%-22s %10.0f %10.0f %10.3f %10.3f %8.3f\n", label, mb32, mb16, a, b, a / b);
  }
  return 0;
}
