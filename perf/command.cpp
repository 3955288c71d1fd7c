#include "command.hpp"

#include <fmt/format.h>

namespace pspmv_cli {

void add_inputs(CLI::App* sub, InputOptions& in) {
  // A missing FILE that reads as a generator spec was most likely a second spec after one
  // --gen (`--gen even:4096 skewed:4096`): the error says how to write it.
  const CLI::Validator existing_file(
      [](std::string& word) {
        std::string why = CLI::ExistingFile(word);
        if (!why.empty() && looks_like_gen_spec(word))
          why += " (a generator spec? one spec per --gen: --gen SPEC --gen " + word + ")";
        return why;
      },
      "FILE");
  sub->add_option("files", in.files, "Matrix Market files")->check(existing_file);
  // One spec per occurrence: the word after it is a FILE again (--gen even A.mtx reads A.mtx).
  sub->add_option("--gen", in.gens, std::string("generated input, one spec per --gen (repeat it): ") + gen_spec_help)
      ->allow_extra_args(false)
      ->type_name("SPEC");
}

CLI::Option* add_list(CLI::App* sub, const std::string& name, std::vector<std::string>& values, const std::string& help,
                      const CLI::Validator& check) {
  return sub->add_option(name, values, help + " (a comma list or the option repeated)")->delimiter(',')->check(check);
}

void add_rows(CLI::App* sub, InputOptions& in, const std::string& example) {
  sub->add_option("--rows", in.rows, "rows for --gen specs that give none (e.g. --gen " + example + " --rows 524288)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{INT32_MAX}));
}

void add_space(CLI::App* sub, std::string& space) {
  sub->add_option("--space", space, "default (the GPU in a CUDA build) | host")->check(CLI::IsMember({"default", "host"}));
}

void add_reps(CLI::App* sub, int& reps, int& warmups, const std::string& reps_help) {
  sub->add_option("--reps", reps, reps_help)->check(CLI::Range(1, 100000));
  sub->add_option("--warmups", warmups, "untimed warm-up runs")->check(CLI::Range(0, 100000));
}

CLI::Option* add_min_sample(CLI::App* sub, double& seconds) {
  return sub->add_option_function<double>(
         "--min-sample-ms", [&seconds](const double& ms) { seconds = ms * 1e-3; },
         "each timed sample a batch of back-to-back runs calibrated to last at least this many milliseconds, one "
         "fence at its end, divided by its size (0: one run per sample)")
      ->check(CLI::Range(0.0, 10000.0))
      ->default_str(fmt::format("{}", seconds * 1e3));
}

void add_expected_calls(CLI::App* sub, std::int64_t& calls) {
  sub->add_option("--expected-calls", calls, "calls hint for peers that take one (MKL's mkl_sparse_set_mv_hint)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
}

std::vector<Input> gather_inputs(InputOptions in, const std::string& missing, const char* progress) {
  if (in.files.empty() && in.gens.empty()) throw pspmv::InvalidArgument(missing);
  apply_rows(in.gens, in.rows);
  return gather(in.files, in.gens, progress);
}

}  // namespace pspmv_cli
