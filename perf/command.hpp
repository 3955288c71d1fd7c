#pragma once
// The subcommands of the tool (one file each: info.cpp, gen.cpp, bench.cpp, tune.cpp,
// compare.cpp, report.cpp) and the options they share.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/inputs.hpp"
#include "harness/run_info.hpp"

namespace pspmv_cli {

/// A subcommand: its CLI11 app, and what runs it once the command line is parsed and Kokkos is
/// initialized. `run` returns the exit status and throws pspmv::Error for bad input.
struct Command {
  CLI::App* app = nullptr;
  std::function<int(const RunInfo&)> run;
};

Command add_info(CLI::App& app);
Command add_gen(CLI::App& app);
Command add_bench(CLI::App& app);
Command add_tune(CLI::App& app);
Command add_compare(CLI::App& app);
Command add_report(CLI::App& app);

/// The inputs of a subcommand: Matrix Market files, --gen specs and --rows for specs without.
struct InputOptions {
  std::vector<std::string> files, gens;
  std::int64_t rows = 0;
};

/// Adds the positional FILEs and --gen (one spec per occurrence).
void add_inputs(CLI::App* sub, InputOptions& in);

/// Adds an option taking one or more words that `check` accepts, as a comma list ("f64,f32")
/// or the option repeated.
CLI::Option* add_list(CLI::App* sub, const std::string& name, std::vector<std::string>& values, const std::string& help,
                      const CLI::Validator& check);

/// A validator that accepts the words `parse` (pspmv::parse_format, parse_mapping,
/// parse_schedule) accepts, and reports its pspmv::Error message otherwise.
template <class Parse>
CLI::Validator parses_as(Parse parse, const std::string& name) {
  return CLI::Validator(
      [parse](std::string& word) {
        try {
          parse(word);
          return std::string();
        } catch (const std::exception& e) {
          return std::string(e.what());
        }
      },
      name);
}

/// Adds --rows; `example` is the spec of the help's example ("--gen even --rows 524288").
void add_rows(CLI::App* sub, InputOptions& in, const std::string& example);

/// Adds --space (default | host).
void add_space(CLI::App* sub, std::string& space);

/// Adds --reps (described by reps_help) and --warmups.
void add_reps(CLI::App* sub, int& reps, int& warmups, const std::string& reps_help);

/// Adds --min-sample-ms, stored in `seconds` (its current value the default shown): each timed
/// sample a batch of back-to-back runs calibrated to last at least that long (0: one run per sample).
CLI::Option* add_min_sample(CLI::App* sub, double& seconds);

/// Adds --expected-calls, the calls hint of peers that take one.
void add_expected_calls(CLI::App* sub, std::int64_t& calls);

/// The inputs, files first (harness/inputs.hpp gather; `progress` as there).
/// @throws pspmv::InvalidArgument with `missing` when there are none.
std::vector<Input> gather_inputs(InputOptions in, const std::string& missing, const char* progress = nullptr);

}  // namespace pspmv_cli
