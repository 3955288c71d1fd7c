// pspmv: the command-line tool. `pspmv info | gen | bench | tune | compare | report`; see `pspmv --help`.
// Each subcommand lives in its own file (command.hpp); the measuring harness in harness/, the
// peer libraries in peers/.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "command.hpp"
#include "pspmv/matrix/host_parallel.hpp"

namespace {

/// OMP_PROC_BIND=spread and OMP_PLACES=threads where the user set neither (each left alone
/// when set; no places when the user turned binding off), so that measurements run on bound
/// threads and Kokkos 3.4 prints no warning about it. The OpenMP runtime reads its variables
/// when it loads, before main(): a process that changed them runs itself again (execv) so
/// that they take effect. Returns normally when nothing changed or the re-run failed.
void bind_threads_by_default(char** argv) {
  if (std::getenv("PSPMV_OMP_DEFAULTS_SET")) return;  // this is the re-run
  bool changed = false;
  const char* bind = std::getenv("OMP_PROC_BIND");
  if (!bind) {
    ::setenv("OMP_PROC_BIND", "spread", 0);
    changed = true;
  }
  const bool unbound = bind && (std::strcmp(bind, "false") == 0 || std::strcmp(bind, "FALSE") == 0);
  if (!std::getenv("OMP_PLACES") && !unbound) {
    ::setenv("OMP_PLACES", "threads", 0);
    changed = true;
  }
  if (!changed) return;
  ::setenv("PSPMV_OMP_DEFAULTS_SET", "1", 1);
  ::execv("/proc/self/exe", argv);
  std::cerr << "pspmv: warning: could not run again with OMP_PROC_BIND/OMP_PLACES set (" << std::strerror(errno)
            << "); threads are not bound\n";
}

}  // namespace

int main(int argc, char** argv) {
  bind_threads_by_default(argv);
#if defined(__GLIBC__)
  // Every allocation of detail::huge_page_min_bytes or more a fresh mapping, never memory of
  // glibc's heap that an earlier array touched: glibc otherwise raises its mmap threshold to
  // the size of a freed mapping (up to 32 MiB), and an array of that size or less then comes
  // from the heap, where the huge-page advice arrives after the first touch and changes
  // nothing. So the tool's x, y and matrices, and every library's large copies, are on the
  // pages their advice (or its absence) gives, in every process alike.
  (void)mallopt(M_MMAP_THRESHOLD, static_cast<int>(pspmv::detail::huge_page_min_bytes));
#endif
  // Kokkos' own flags (--kokkos-threads=N, --kokkos-device-id=N, --kokkos-help, ...) go to
  // Kokkos::initialize; every other word to the tool's parser.
  std::vector<char*> tool_args{argv[0]}, kokkos_args{argv[0]};
  for (int i = 1; i < argc; ++i)
    (std::strncmp(argv[i], "--kokkos-", 9) == 0 ? kokkos_args : tool_args).push_back(argv[i]);

  CLI::App app{"pspmv: portable SpMV (CSR, SELL-C-sigma) on Kokkos -- inspect, generate and benchmark sparse matrices"};
  app.require_subcommand(1);
  app.set_version_flag("--version", pspmv_cli::version_line());
  app.footer(
      "Kokkos' own flags (--kokkos-threads=N, --kokkos-device-id=N, --kokkos-help, ...) are passed to Kokkos.\n"
      "OMP_PROC_BIND=spread and OMP_PLACES=threads are the defaults where unset (the tool runs itself again with them).\n"
      "Tables go to standard output, progress and warnings to standard error.");
  const pspmv_cli::Command commands[] = {pspmv_cli::add_info(app), pspmv_cli::add_gen(app), pspmv_cli::add_bench(app),
                                         pspmv_cli::add_tune(app), pspmv_cli::add_compare(app),
                                         pspmv_cli::add_report(app)};
  // --help shows every option's default: the values the options hold before parsing.
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    for (CLI::Option* opt : sub->get_options([](CLI::Option*) { return true; }))
      if (opt->get_type_size() != 0 && opt->get_default_str().empty()) {
        opt->capture_default_str();
        if (opt->get_default_str() == "[]") opt->default_str("");  // an empty list: the help says what it means
      }

  // Bad command lines exit 2 with "pspmv: error:", like every other bad input; --help exits 0.
  try {
    app.parse(static_cast<int>(tool_args.size()), tool_args.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    // CLI11 checks the values it took before it reports words it did not know, so in
    // `compare --format csr A.mtx` the unknown --format left `csr` to the FILEs, whose check
    // fails first ("File does not exist: csr"). An unknown option is the error to name.
    std::string what = e.what();
    std::vector<CLI::App*> parsed = app.get_subcommands();
    parsed.insert(parsed.begin(), &app);
    for (const CLI::App* sub : parsed) {
      const auto left = sub->remaining();
      if (std::any_of(left.begin(), left.end(), [](const std::string& w) { return w.size() > 1 && w[0] == '-'; })) {
        what = CLI::ExtrasError(left).what();
        break;
      }
    }
    std::cerr << "pspmv: error: " << what << "\n(run with --help for the options)\n";
    return 2;
  }

  int kokkos_argc = static_cast<int>(kokkos_args.size());
  kokkos_args.push_back(nullptr);
  Kokkos::ScopeGuard guard(kokkos_argc, kokkos_args.data());
  try {
    (void)pspmv::detail::huge_pages_enabled();  // a bad PSPMV_HUGE_PAGES is refused before any work
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
