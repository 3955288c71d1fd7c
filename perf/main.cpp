// pspmv: the command-line tool. `pspmv info | gen | bench | tune | compare | report`; see `pspmv --help`.
// Each subcommand lives in its own file (command.hpp); the measuring harness in harness/, the
// peer libraries in peers/.
#include <iostream>

#include "command.hpp"

int main(int argc, char** argv) {
  CLI::App app{"pspmv: portable SpMV (CSR, SELL-C-sigma) on Kokkos -- inspect, generate and benchmark sparse matrices"};
  app.require_subcommand(1);
  app.set_version_flag("--version", pspmv_cli::version_line());
  const pspmv_cli::Command commands[] = {pspmv_cli::add_info(app), pspmv_cli::add_gen(app), pspmv_cli::add_bench(app),
                                         pspmv_cli::add_tune(app), pspmv_cli::add_compare(app),
                                         pspmv_cli::add_report(app)};

  // Bad command lines exit 2 with "pspmv: error:", like every other bad input; --help exits 0.
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "pspmv: error: " << e.what() << "\n(run with --help for the options)\n";
    return 2;
  }

  Kokkos::ScopeGuard guard(argc, argv);
  try {
    for (const auto& c : commands)
      if (*c.app) return c.run(pspmv_cli::run_info(argc, argv));
  } catch (const pspmv::Error& e) {
    std::cerr << "pspmv: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "pspmv: unexpected error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
