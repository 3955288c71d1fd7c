// Are per-instance speeds of one plan configuration persistent? N instances of the same
// plan, timed in interleaved rounds; prints each instance's per-round times.
#include <pspmv/pspmv.hpp>
#include <pspmv/tune.hpp>
#include <pspmv/matrix_market.hpp>
#include <cstdio>
#include <algorithm>
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    using Exec = Kokkos::DefaultHostExecutionSpace;
    auto A = pspmv::read_matrix_market<double, std::int64_t>(argv[1]);
    const int n = argc > 2 ? std::atoi(argv[2]) : 6;
    const int rounds = argc > 3 ? std::atoi(argv[3]) : 8;
    std::vector<pspmv::Plan<Exec, double, std::int64_t>> plans;
    for (int i = 0; i < n; ++i) plans.emplace_back(A, pspmv::AnalyzeOptions{});
    std::printf("%s: %s\n", argv[1], plans[0].describe().c_str());
    std::vector<std::vector<double>> t(n);
    for (int r = 0; r < rounds; ++r)
      for (int i = 0; i < n; ++i) t[i].push_back(pspmv::detail::time_multiply(plans[i], 7, 5e-4));
    for (int i = 0; i < n; ++i) {
      std::printf("inst %d:", i);
      for (double v : t[i]) std::printf(" %6.3f", v * 1e6);
      auto s = t[i]; std::sort(s.begin(), s.end());
      std::printf("  | median %6.3f us\n", s[s.size() / 2] * 1e6);
    }
  }
  Kokkos::finalize();
}
