// The host's compressed SELL build two ways, in one process, interleaved: `two-step`, the
// uncompressed conversion and then compress_columns() (32-bit columns written, then read and
// written again in their compressed forms), against `direct`, csr_to_compressed_sell() (the
// values scattered alone, the compressed columns written once from the CSR), which analyze()
// runs for a compressed host plan. Each input's C, sigma and long-row handling are those of its
// compressed SELL plan (analyze() with format sell and compression on); both ways start from
// the same sorted order, computed once, as in the analysis. Both results are compared array for
// array before the timing (exit 1 on a difference). Per round the two ways run in turn, the first
// alternating; each allocates its arrays afresh (first touch, page faults), as an analysis does.
// Printed per input: the median and min of each way in ms, the median of the per-round ratios
// two-step / direct, and the plan's median multiply in ms (a multiply's worth of the saving).
// Built on request: cmake --build --preset openmp --target pspmv_probe_sell_conversion
//   OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=threads \
//     build/openmp/perf/pspmv_probe_sell_conversion [ROUNDS] [small]
// ROUNDS (default 15) timed rounds after one untimed; `small`: inputs of 1/8 the size.
#include <pspmv/analyze.hpp>
#include <pspmv/io/generators.hpp>
#include <pspmv/matrix/sell_compress.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

using Exec = Kokkos::DefaultHostExecutionSpace;
using Host = pspmv::HostCsr<double, std::int64_t>;
using Sell = pspmv::SellMatrix<double, Kokkos::HostSpace>;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

template <class V>
bool same(const V& a, const V& b, const char* what, const std::string& input) {
  if (a.extent(0) == b.extent(0) &&
      (a.extent(0) == 0 || std::memcmp(a.data(), b.data(), a.extent(0) * sizeof(a(0))) == 0))
    return true;
  std::fprintf(stderr, "%s: %s differs (%zu and %zu entries)\n", input.c_str(), what, static_cast<std::size_t>(a.extent(0)),
               static_cast<std::size_t>(b.extent(0)));
  return false;
}

bool same_sell(const Sell& a, const Sell& b, const std::string& input) {
  return same(a.slice_ptr, b.slice_ptr, "slice_ptr", input) && same(a.slice_width, b.slice_width, "slice_width", input) &&
         same(a.row_len, b.row_len, "row_len", input) && same(a.perm, b.perm, "perm", input) &&
         same(a.values, b.values, "values", input) && same(a.col_idx, b.col_idx, "col_idx", input) &&
         same(a.col_base, b.col_base, "col_base", input) && same(a.off_ptr, b.off_ptr, "off_ptr", input) &&
         same(a.col_off, b.col_off, "col_off", input) && same(a.long_col_idx, b.long_col_idx, "long_col_idx", input) &&
         same(a.long_values, b.long_values, "long_values", input) && a.wide_slices == b.wide_slices &&
         a.diagonal_slices == b.diagonal_slices;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int probe(const std::string& name, const Host& A, int rounds) {
  pspmv::AnalyzeOptions o;
  o.format = pspmv::Format::sell;
  o.compress = true;
  const auto plan = pspmv::analyze<Exec>(A, o);
  const auto& p = plan.launch();
  const bool split = p.long_split && p.long_row_threshold > 0;
  const auto order = pspmv::detail::sell_order(A.row_ptr.data(), A.nrows, p.sigma, p.long_row_threshold, split);
  auto two_step = [&]() {
    auto S = pspmv::csr_to_sell(A, p.slice_height, order);
    pspmv::compress_columns(Exec(), S);
    return S;
  };
  auto direct = [&]() { return pspmv::csr_to_compressed_sell(A, p.slice_height, order); };
  {
    const Sell a = two_step(), b = direct();
    if (!same_sell(a, b, name)) return 1;
    if (!same_sell(a, plan.sell(), name + " (the plan)")) return 1;
  }
  std::vector<double> t2, td, ratio, mult;
  Kokkos::View<double*, Kokkos::HostSpace> x("x", A.ncols), y("y", A.nrows);
  Kokkos::deep_copy(x, 0.5);
  for (int r = 0; r <= rounds; ++r) {
    double a = 0, b = 0;
    for (int k = 0; k < 2; ++k) {
      const bool first_two_step = (r + k) % 2 == 0;
      const auto t0 = std::chrono::steady_clock::now();
      { const Sell S = first_two_step ? two_step() : direct(); }  // released in the timing, as in both ways
      (first_two_step ? a : b) = ms_since(t0);
    }
    const auto t0 = std::chrono::steady_clock::now();
    plan.multiply(Exec(), 1.0, x, 0.0, y);
    Exec().fence();
    const double m = ms_since(t0);
    if (r == 0) continue;
    t2.push_back(a);
    td.push_back(b);
    ratio.push_back(a / b);
    mult.push_back(m);
  }
  std::printf("%-22s %-28s %9.2f %9.2f %9.2f %9.2f %7.3f %9.3f\n", name.c_str(), plan.describe().substr(0, 28).c_str(),
              median(t2), *std::min_element(t2.begin(), t2.end()), median(td), *std::min_element(td.begin(), td.end()),
              median(ratio), median(mult));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 15;
  const bool small = argc > 2 && std::string(argv[2]) == "small";
  const int d = small ? 2 : 1;  // 1/8 of the entries: half the stencil's edge, 1/8 of the rows
  std::printf("host threads %d, %d rounds (medians; ratio: two-step / direct per round)\n", Exec().concurrency(), rounds);
  std::printf("%-22s %-28s %9s %9s %9s %9s %7s %9s\n", "input", "plan", "2step ms", "min", "direct ms", "min", "ratio",
              "mult ms");
  int rc = 0;
  rc |= probe("stencil27:" + std::to_string(100 / d), pspmv::generate_stencil<double, std::int64_t>(100 / d, 100 / d, 100 / d, 27),
              rounds);
  rc |= probe("even:" + std::to_string(4194304 / (d * d * d)), pspmv::generate_even<double, std::int64_t>(4194304 / (d * d * d)),
              rounds);
  rc |= probe("random:" + std::to_string(4000000 / (d * d * d)) + ":8",
              pspmv::generate_random<double, std::int64_t>(4000000 / (d * d * d), 4000000 / (d * d * d), 8.0), rounds);
  return rc;
}
