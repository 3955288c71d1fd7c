// The inner loop of a several-vector CSR multiply (K = 8 columns of X in f64, LayoutRight) in
// three forms, timed interleaved (docs/selection.md, "Several vectors per pass"):
//   select      the general form of detail::MultiBase::add: a partial block repeats its last
//               column in the spare sums, so each column's index is a select;
//   contiguous  a full block (nk == K) loads X's K values at the entry's column as one run
//               (MultiBase::x_full), tested per entry on a flag as the kernel does;
//   two sums    contiguous, the row's entries alternating between two sets of K sums (not
//               adopted: docs/selection.md).
// Built on request (target pspmv_probe_multi_columns_loop, not in `all`), or alone:
//   g++ -O3 -march=x86-64-v4 -fopenmp perf/probes/multi_columns_loop.cpp -o /tmp/multi_columns_loop
//   OMP_NUM_THREADS=2 /tmp/multi_columns_loop [rows] [random|banded]
// Rows of 16 entries (random columns, or columns i + 37 k: X stays in cache); 3 warm-up
// rounds, then 15 rounds of the three forms in turn; medians in ms and the ratios.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

constexpr int K = 8;
struct Sums {
  double v[K];
};

struct Block {
  const double* X;
  std::int64_t ldx;
  double* Y;
  int col0, nk;
  bool full;  // nk == K and X's columns adjacent

  void add_select(Sums& s, double v, std::int32_t c) const {
    const int last = nk - 1;
    const double* xr = X + static_cast<std::int64_t>(c) * ldx + col0;
    for (int q = 0; q < K; ++q) s.v[q] += v * xr[q < nk ? q : last];
  }
  void add(Sums& s, double v, std::int32_t c) const {
    if (full) {
      const double* xr = X + static_cast<std::int64_t>(c) * ldx + col0;
      for (int q = 0; q < K; ++q) s.v[q] += v * xr[q];
      return;
    }
    add_select(s, v, c);
  }
  void store(std::int32_t i, const Sums& s) const {
    for (int q = 0; q < K; ++q) Y[static_cast<std::int64_t>(i) * K + q] = s.v[q];
  }
};

struct Csr {
  std::vector<std::int64_t> row_ptr;
  std::vector<std::int32_t> col;
  std::vector<double> val;
  std::int32_t n = 0;
};

// One set of sums per row, each entry added by the general form (Select) or by add().
template <bool Select>
__attribute__((noinline)) void one_sum_form(const Block& b, const Csr& A) {
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < A.n; ++i) {
    Sums s{};
    for (std::int64_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      if constexpr (Select)
        b.add_select(s, A.val[k], A.col[k]);
      else
        b.add(s, A.val[k], A.col[k]);
    }
    b.store(i, s);
  }
}

__attribute__((noinline)) void two_sums_form(const Block& b, const Csr& A) {
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < A.n; ++i) {
    Sums s{}, t{};
    std::int64_t k = A.row_ptr[i];
    const std::int64_t end = A.row_ptr[i + 1];
    for (; k + 1 < end; k += 2) {
      b.add(s, A.val[k], A.col[k]);
      b.add(t, A.val[k + 1], A.col[k + 1]);
    }
    if (k < end) b.add(s, A.val[k], A.col[k]);
    for (int q = 0; q < K; ++q) s.v[q] += t.v[q];
    b.store(i, s);
  }
}

double ms(void (*form)(const Block&, const Csr&), const Block& b, const Csr& A) {
  const auto t0 = std::chrono::steady_clock::now();
  form(b, A);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  Csr A;
  A.n = argc > 1 ? std::atoi(argv[1]) : 1000000;
  const bool banded = argc > 2 && std::strcmp(argv[2], "banded") == 0;
  constexpr int per_row = 16;
  A.row_ptr.resize(A.n + 1);
  for (std::int32_t i = 0; i <= A.n; ++i) A.row_ptr[i] = static_cast<std::int64_t>(i) * per_row;
  A.col.resize(static_cast<std::size_t>(A.n) * per_row);
  A.val.assign(A.col.size(), 1.0);
  std::mt19937 rng(1);
  for (std::int32_t i = 0; i < A.n; ++i)
    for (int k = 0; k < per_row; ++k)
      A.col[static_cast<std::size_t>(i) * per_row + k] =
          banded ? static_cast<std::int32_t>((i + 37 * k) % A.n) : static_cast<std::int32_t>(rng() % A.n);
  std::vector<double> X(static_cast<std::size_t>(A.n) * K, 1.0), Y(X.size(), 0.0);
  const Block b{X.data(), K, Y.data(), 0, K, true};
  void (*forms[3])(const Block&, const Csr&) = {one_sum_form<true>, one_sum_form<false>, two_sums_form};
  for (int r = 0; r < 3; ++r)
    for (auto* f : forms) f(b, A);
  std::vector<double> t[3];
  for (int r = 0; r < 15; ++r)
    for (int f = 0; f < 3; ++f) t[f].push_back(ms(forms[f], b, A));
  const double m0 = median(t[0]), m1 = median(t[1]), m2 = median(t[2]);
  std::printf("%d rows, %s columns, %d threads: select %.3f ms, contiguous %.3f ms (%.2fx), two sums %.3f ms (%.2fx)\n",
              A.n, banded ? "banded" : "random", omp_get_max_threads(), m0, m1, m0 / m1, m2, m1 / m2);
  return 0;
}
