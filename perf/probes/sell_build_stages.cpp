// The SELL build in the default execution space's memory (on a GPU: on the device), from the
// CSR already there, stage by stage: sell_order_on() (the sorted order), sell_shape_on() (the
// shape that the choice reads) and csr_to_sell_on() (widths, slice offsets, the scatter), each
// fenced and timed alone, and the allocation alone of the conversion's two largest arrays
// (columns and values); then analyze() of a CSR, a SELL and the automatic plan from the same
// device CSR, each plan's multiply, and the automatic plan's break-even against plain CSR in
// calls ("even": (its analysis - CSR's) / (CSR's multiply - its multiply), where it is faster).
// On a host build the stages run on the host space, and analyze() of the host CSR takes the
// host's conversion, not csr_to_sell_on().
// Results are released outside the timing. Each input's C, sigma and long-row handling are its
// SELL plan's. Before the timing, the conversion is compared with the host's csr_to_sell(),
// array for array (exit 1 on a difference). Printed per input: medians of ROUNDS timed rounds
// after one untimed (ms), and the min of the conversion.
// Built on request (any preset): cmake --build --preset cuda-hopper --target pspmv_probe_sell_build_stages
//   build/cuda-hopper/perf/pspmv_probe_sell_build_stages MATRICES_DIR [ROUNDS] [f32|f64]
// MATRICES_DIR holds bayer10.mtx, hep-th.mtx and rajat01.mtx (the shared matrices); inputs are
// three of the tiles of perf/sets/analysis.txt and skewed:4194304 (on a host space, 1/8 of
// the copies and rows).
#include <pspmv/analyze.hpp>
#include <pspmv/io/generators.hpp>
#include <pspmv/io/matrix_market.hpp>
#include <pspmv/matrix/sell_build.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

template <class H, class D>
bool same(const H& h, const D& d, const char* what, const std::string& input) {
  const auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  if (h.extent(0) == m.extent(0) && (h.extent(0) == 0 || std::memcmp(h.data(), m.data(), h.extent(0) * sizeof(h(0))) == 0))
    return true;
  std::fprintf(stderr, "%s: %s differs (%zu and %zu entries)\n", input.c_str(), what, static_cast<std::size_t>(h.extent(0)),
               static_cast<std::size_t>(m.extent(0)));
  return false;
}

template <class F>
double fenced_ms(F&& f) {
  Exec().fence();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  Exec().fence();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

template <class Value>
int probe(const std::string& name, const pspmv::HostCsr<Value, std::int64_t>& A, int rounds) {
  const auto dA = pspmv::copy_to<Mem>(A);
  pspmv::AnalyzeOptions so;
  so.format = pspmv::Format::sell;
  pspmv::AnalyzeOptions co;
  co.format = pspmv::Format::csr;
  const auto sell_plan = pspmv::analyze(Exec(), dA, so);
  const auto csr_plan = pspmv::analyze(Exec(), dA, co);
  const auto auto_plan = pspmv::analyze(Exec(), dA, pspmv::AnalyzeOptions{});
  const auto& p = sell_plan.launch();
  const int C = p.slice_height;
  const bool split = p.long_split && p.long_row_threshold > 0;
  {
    const auto H = pspmv::csr_to_sell(A, C, p.sigma, p.long_row_threshold, split);
    const auto D = pspmv::csr_to_sell_on(Exec(), dA, C, p.sigma, p.long_row_threshold, split);
    if (!(same(H.slice_ptr, D.slice_ptr, "slice_ptr", name) && same(H.slice_width, D.slice_width, "slice_width", name) &&
          same(H.row_len, D.row_len, "row_len", name) && same(H.perm, D.perm, "perm", name) &&
          same(H.col_idx, D.col_idx, "col_idx", name) && same(H.values, D.values, "values", name) &&
          same(H.long_col_idx, D.long_col_idx, "long_col_idx", name) && same(H.long_values, D.long_values, "long_values", name)))
      return 1;
  }
  Kokkos::View<Value*, Mem> x("x", A.ncols), y("y", A.nrows);
  Kokkos::deep_copy(x, Value(0.5));
  // Results are kept past their timing (an analysis keeps them) and released before the next.
  using Plan = std::decay_t<decltype(sell_plan)>;
  std::optional<Plan> held;
  pspmv::SellMatrix<Value, Mem> S;
  Kokkos::View<std::int32_t*, Mem> ac;
  Kokkos::View<Value*, Mem> av;
  std::vector<double> order, shape, conv, alloc, csr, sell, automatic, mult, mult_csr, mult_auto;
  for (int r = 0; r <= rounds; ++r) {
    pspmv::SellOrderOn<Mem> o;
    const double to = fenced_ms([&] { o = pspmv::sell_order_on(Exec(), dA, p.sigma, p.long_row_threshold, split); });
    const double ts = fenced_ms([&] { (void)pspmv::sell_shape_on(Exec(), o, dA, C); });
    S = {};
    const double tc = fenced_ms([&] { S = pspmv::csr_to_sell_on(Exec(), dA, C, o); });
    // The conversion's two largest allocations alone (columns and values, uninitialized).
    const auto stored = static_cast<std::size_t>(S.values.extent(0));
    S = {};
    const double tl = fenced_ms([&] {
      ac = Kokkos::View<std::int32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "c"), stored);
      av = Kokkos::View<Value*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "v"), stored);
    });
    ac = {};
    av = {};
    double ta = 0, tb = 0, tu = 0;
    held.reset();
    ta = fenced_ms([&] { held.emplace(pspmv::analyze(Exec(), dA, co)); });
    held.reset();
    tb = fenced_ms([&] { held.emplace(pspmv::analyze(Exec(), dA, so)); });
    held.reset();
    tu = fenced_ms([&] { held.emplace(pspmv::analyze(Exec(), dA, pspmv::AnalyzeOptions{})); });
    held.reset();
    const double tm = fenced_ms([&] { sell_plan.multiply(Value(1), x, Value(0), y); });
    const double tmc = fenced_ms([&] { csr_plan.multiply(Value(1), x, Value(0), y); });
    const double tma = fenced_ms([&] { auto_plan.multiply(Value(1), x, Value(0), y); });
    if (r == 0) continue;
    order.push_back(to);
    shape.push_back(ts);
    conv.push_back(tc);
    alloc.push_back(tl);
    csr.push_back(ta);
    sell.push_back(tb);
    automatic.push_back(tu);
    mult.push_back(tm);
    mult_csr.push_back(tmc);
    mult_auto.push_back(tma);
  }
  // Break-even of the automatic plan against plain CSR: calls that repay its extra analysis.
  const double gain = median(mult_csr) - median(mult_auto);
  char even[32] = "-";
  if (gain > 0) std::snprintf(even, sizeof even, "%.0f", (median(automatic) - median(csr)) / gain);
  std::printf("%-22s C=%-2d sigma=%-5lld %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.4f %8.4f %8.4f %6s\n",
              name.c_str(), C, static_cast<long long>(p.sigma), median(order), median(shape), median(conv),
              *std::min_element(conv.begin(), conv.end()), median(alloc), median(csr), median(sell), median(automatic),
              median(mult), median(mult_csr), median(mult_auto), even);
  return 0;
}

template <class Value>
int run(const std::string& dir, int rounds) {
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
  const int d = host ? 8 : 1;
  std::printf("%s, %s, %d rounds (medians, ms; conversion also its min)\n", Exec::name(),
              sizeof(Value) == 4 ? "f32" : "f64", rounds);
  std::printf("%-22s %-16s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %6s\n", "input", "plan", "order", "shape",
              "convert", "min", "alloc", "an.csr", "an.sell", "an.auto", "m.sell", "m.csr", "m.auto", "even");
  int rc = 0;
  const struct {
    const char* file;
    int copies;
  } tiles[] = {{"bayer10.mtx", 300}, {"hep-th.mtx", 1000}, {"rajat01.mtx", 700}};
  for (const auto& t : tiles) {
    const auto base = pspmv::read_matrix_market<Value, std::int64_t>(dir + "/" + t.file);
    const int copies = t.copies / d;
    rc |= probe<Value>(std::string("tile:") + t.file + ":" + std::to_string(copies),
                       pspmv::generate_tiled<Value, std::int64_t>(base, copies), rounds);
  }
  rc |= probe<Value>("skewed:" + std::to_string(4194304 / d), pspmv::generate_skewed<Value, std::int64_t>(4194304 / d),
                     rounds);
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MATRICES_DIR [ROUNDS] [f32|f64]\n", argv[0]);
    return 2;
  }
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 10;
  const bool f64 = argc > 3 && std::string(argv[3]) == "f64";
  return f64 ? run<double>(argv[1], rounds) : run<float>(argv[1], rounds);
}
