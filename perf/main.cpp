// pspmv: the command-line tool. `pspmv info | gen | bench | tune | compare | calibrate`; see `pspmv --help`.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

#include "bench.hpp"
#include "compare.hpp"
#include "tune_cmd.hpp"
#include "inputs.hpp"
#include "pspmv/profile_json.hpp"
#include "peers/kokkos_kernels.hpp"

#include "pspmv_build_commit.hpp"  // PSPMV_BUILD_COMMIT, written at build time

namespace {

using pspmv_cli::Input;

std::string machine_description() {
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  std::string cpu;
  std::ifstream ci("/proc/cpuinfo");
  for (std::string line; std::getline(ci, line);)
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  return std::string(host) + " | " + cpu + " | " + std::to_string(Kokkos::DefaultHostExecutionSpace().concurrency()) +
         " host threads";
}

std::string kokkos_configuration() {
  std::ostringstream os;
  Kokkos::DefaultExecutionSpace().print_configuration(os, false);
  return os.str();
}

nlohmann::json info_json(const Input& in, int lane_width) {
  const auto& A = in.A;
  const auto s = pspmv::compute_row_stats(A.row_ptr.data(), A.nrows, A.ncols);
  const double spread = pspmv::column_spread(A.row_ptr.data(), A.col_idx.data(), A.nrows, A.ncols);
  const auto ls = pspmv::compute_lane_slots(A.row_ptr.data(), A.nrows, lane_width);
  nlohmann::json hist = nlohmann::json::array();
  for (std::size_t b = 0; b < s.histogram.size(); ++b)
    hist.push_back({{"lengths", pspmv::RowStats::bucket_label(b)}, {"rows", s.histogram[b]}});
  return {{"matrix", in.name},
          {"source", in.source},
          {"rows", s.nrows},
          {"cols", s.ncols},
          {"nnz", s.nnz},
          {"row_length", {{"min", s.min_len}, {"max", s.max_len}, {"mean", s.mean}, {"stddev", s.stddev}, {"cv", s.cv}}},
          {"empty_rows", s.empty_rows},
          {"column_spread", spread},
          {"histogram", hist},
          {"lane_slots",
           {{"lane_width", ls.lane_width},
            {"thread_per_row", ls.thread_per_row},
            {"thread_per_row_useful", ls.useful_thread_per_row},
            {"team_per_row", ls.team_per_row},
            {"team_per_row_useful", ls.useful_team_per_row}}}};
}

void print_info(const nlohmann::json& j) {
  const auto& rl = j["row_length"];
  std::cout << fmt::format("{} ({})\n  rows {}  cols {}  nnz {}\n", j["matrix"].get<std::string>(),
                           j["source"].get<std::string>(), j["rows"].get<long long>(), j["cols"].get<long long>(),
                           j["nnz"].get<long long>());
  std::cout << fmt::format("  row length: min {}  max {}  mean {:.3f}  stddev {:.3f}  cv {:.3f}  empty rows {}\n",
                           rl["min"].get<long long>(), rl["max"].get<long long>(), rl["mean"].get<double>(),
                           rl["stddev"].get<double>(), rl["cv"].get<double>(), j["empty_rows"].get<long long>());
  std::cout << fmt::format("  column spread (mean |col/ncols - row/nrows| over the nonzeros): {:.4f}\n",
                           j["column_spread"].get<double>());
  std::cout << "  histogram of row lengths:\n";
  long long most = 1;
  for (const auto& h : j["histogram"]) most = std::max(most, h["rows"].get<long long>());
  for (const auto& h : j["histogram"]) {
    const long long n = h["rows"].get<long long>();
    std::cout << fmt::format("    {:>13} {:>12} {}\n", h["lengths"].get<std::string>(), n,
                             std::string(static_cast<std::size_t>(40.0 * n / most + 0.5), '#'));
  }
  const auto& ls = j["lane_slots"];
  std::cout << fmt::format("  lane-slots at lane width {} (one lane of one {}-wide group on one iteration):\n",
                           ls["lane_width"].get<int>(), ls["lane_width"].get<int>());
  std::cout << fmt::format("    {:<16} {:>14} {:>8}\n", "mapping", "lane-slots", "useful");
  std::cout << fmt::format("    {:<16} {:>14} {:>7.1f}%\n", "thread_per_row", ls["thread_per_row"].get<long long>(),
                           100 * ls["thread_per_row_useful"].get<double>());
  std::cout << fmt::format("    {:<16} {:>14} {:>7.1f}%\n", "team_per_row", ls["team_per_row"].get<long long>(),
                           100 * ls["team_per_row_useful"].get<double>());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pspmv: portable SpMV (CSR, SELL-C-sigma) on Kokkos -- inspect, generate and benchmark sparse matrices"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("pspmv 0.1.0 (") + PSPMV_BUILD_COMMIT + ")");

  // info
  auto* info = app.add_subcommand("info", "Row statistics, histogram and the lane-slot table, computed on the host");
  std::vector<std::string> info_files, info_gens;
  int lane_width = 32;
  bool info_as_json = false;
  info->add_option("files", info_files, "Matrix Market files")->check(CLI::ExistingFile);
  info->add_option("--gen", info_gens, std::string("generated input: ") + pspmv_cli::gen_spec_help);
  info->add_option("--lane-width", lane_width, "lanes per group for the lane-slot model")->check(CLI::Range(1, 1024));
  info->add_flag("--json", info_as_json, "print JSON instead of text");
  std::int64_t info_rows = 0;
  info->add_option("--rows", info_rows, "rows for --gen specs that give none (e.g. --gen skewed --rows 524288)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{INT32_MAX}));
  std::string info_format = "csr";
  int info_slice = 32;
  std::int64_t info_sigma = 1;
  info->add_option("--format", info_format, "csr | sell: sell adds the SELL-C-sigma lane-slots and padding report")
      ->check(CLI::IsMember({"csr", "sell"}));
  info->add_option("--slice", info_slice, "SELL slice height C (4, 8, 16, 32, 64)");
  info->add_option("--sigma", info_sigma, "SELL sorting window in rows (1: no sorting)");

  // gen
  auto* gen = app.add_subcommand("gen", "Generate a matrix and write it as Matrix Market");
  std::string gen_kind, gen_out;
  std::int64_t gen_rows = 524288;
  gen->add_option("spec", gen_kind, std::string("what to generate: ") + pspmv_cli::gen_spec_help)->required();
  gen->add_option("--rows", gen_rows, "rows for even, skewed and random when the spec gives none")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{INT32_MAX}));
  gen->add_option("-o,--output", gen_out, "output file (default: standard output)");

  // bench
  auto* bench = app.add_subcommand("bench", "Measure every variant (mapping x schedule) of each input against a bandwidth floor");
  std::vector<std::string> bench_files, bench_gens, mappings, schedules, precisions{"f64", "f32"};
  std::string json_out, csv_out;
  pspmv_cli::BenchOptions bo;
  bool no_peers = false, no_auto = false;
  bench->add_option("files", bench_files, "Matrix Market files")->check(CLI::ExistingFile);
  bench->add_option("--gen", bench_gens, std::string("generated input: ") + pspmv_cli::gen_spec_help);
  std::vector<std::string> formats;
  bench->add_option("--format", formats, "csr | sell (default: both)");
  bench->add_option("--slice", bo.base.slice_height, "SELL slice height C (0: 32 on a GPU, SIMD lanes on a CPU)");
  bench->add_option("--sigma", bo.base.sigma, "SELL sorting window in rows (0: 32 C)");
  bench->add_option("--long-row", bo.base.sell_long_row,
                    "SELL: rows longer than this leave the slices: split into pieces of at most this many entries "
                    "inside the slices, or to a lane-shared kernel (--long-mode) (0: the space's default, 64 on a "
                    "GPU, none on a host; -1: never)");
  bench->add_option("--mapping", mappings, "thread_per_row | team_per_row (default: both)");
  bench->add_option("--schedule", schedules, "static_chunks | dynamic_chunks | nnz_balanced | work_stealing (default: all)");
  bench->add_option("--precision", precisions, "f64 | f32 (default: both)");
  bench->add_option("--space", bo.space, "default (the GPU in a CUDA build) | host")->check(CLI::IsMember({"default", "host"}));
  std::string bench_profile;
  bench->add_option("--profile", bench_profile,
                    "machine profile of `pspmv calibrate`, given to every variant (--space host only; it sets the "
                    "format and mapping of the variants that leave them to the model, such as auto)")
      ->check(CLI::ExistingFile);
  bench->add_option("--reps", bo.reps, "timed repetitions (median and min reported)")->check(CLI::Range(1, 100000));
  bench->add_option("--warmups", bo.warmups, "untimed warm-up runs")->check(CLI::Range(0, 100000));
  bench->add_option("--chunk-size", bo.base.chunk_size, "rows per chunk for static/dynamic (0: rows/2000)")->check(CLI::NonNegativeNumber);
  bench->add_option("--team-size", bo.base.team_size, "threads per team (0: chosen)")->check(CLI::NonNegativeNumber);
  bench->add_option("--vector-length", bo.base.vector_length, "vector lanes per thread (0: chosen)")->check(CLI::NonNegativeNumber);
  bench->add_flag("--no-peers", no_peers, "skip the plain-OpenMP and Kokkos Kernels peers");
  bench->add_flag("--no-auto", no_auto, "skip the plan analyze() picks by itself");
  bench->add_option("--expected-calls", bo.expected_calls,
                    "calls hint for peers that take one (MKL's mkl_sparse_set_mv_hint)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  bench->add_option("--long-mode", bo.long_modes,
                    "SELL long rows: split (pieces inside the slices) | warp (lane-shared CSR part); several: "
                    "each SELL variant once per mode (default: the space's choice)")
      ->delimiter(',')
      ->check(CLI::IsMember({"split", "warp"}));
  bench->add_option("--unroll-sweep", bo.unroll_sweep,
                    "also run every variant with each of these gather unroll factors (entries a thread loads "
                    "before it gathers x; 1, 2, 4, 8 or 16)")
      ->delimiter(',')
      ->check(CLI::IsMember({1, 2, 4, 8, 16}));
  std::int64_t bench_rows = 0;
  bench->add_option("--rows", bench_rows, "rows for --gen specs that give none (e.g. --gen even --rows 524288)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{INT32_MAX}));
  bench->add_option("--json", json_out, "write JSON records to this file ('-' for standard output)");
  bench->add_option("--csv", csv_out, "write CSV records to this file ('-' for standard output)");

  // tune
  auto* tune = app.add_subcommand("tune", "The model's plan, the tuned plan and the exhaustive best of each input, "
                                          "with analysis cost and break-even calls");
  std::vector<std::string> tune_files, tune_gens;
  std::string tune_json;
  pspmv_cli::TuneCmdOptions to;
  tune->add_option("files", tune_files, "Matrix Market files")->check(CLI::ExistingFile);
  tune->add_option("--gen", tune_gens, std::string("generated input: ") + pspmv_cli::gen_spec_help);
  tune->add_option("--precision", to.precisions, "f64 | f32 (default: f64)")
      ->delimiter(',')
      ->check(CLI::IsMember({"f64", "f32"}));
  tune->add_option("--space", to.space, "default (the GPU in a CUDA build) | host")->check(CLI::IsMember({"default", "host"}));
  tune->add_option("--budget-calls", to.budget_calls, "tuning budget in multiplies of the model's plan")
      ->check(CLI::PositiveNumber);
  tune->add_option("--min-candidates", to.min_candidates, "candidates the budgeted tune tries whatever the budget")
      ->check(CLI::Range(0, 1000));
  tune->add_option("--reps", to.reps, "timed samples per candidate (median)")->check(CLI::Range(1, 10000));
  tune->add_option("--min-sample-ms", to.min_sample_ms,
                   "each sample a batch of back-to-back multiplies calibrated to last about this many milliseconds, one fence at "
                   "its end, divided by its size (0: one multiply per sample)")
      ->check(CLI::Range(0.0, 10000.0))
      ->capture_default_str();
  tune->add_option("--rounds", to.rounds,
                   "interleaved rounds of the final timing of the model's, the tuned, the best and the plain CSR plan "
                   "(median of round medians)")
      ->check(CLI::Range(1, 1000));
  tune->add_option("--json", tune_json, "write the results as JSON to this file ('-' for standard output)");
  std::string tune_profile;
  tune->add_option("--profile", tune_profile,
                   "machine profile of `pspmv calibrate` given to the model (--space host only; a matrix takes the "
                   "format and mapping its nearby probes measured faster)")
      ->check(CLI::ExistingFile);

  // calibrate
  auto* calib = app.add_subcommand(
      "calibrate", "Measure this machine's host space on synthetic probe matrices and write a machine profile "
                   "(pspmv::calibrate; read back with --profile): CSR thread_per_row vs team_per_row vs SELL per probe");
  pspmv::CalibrateOptions cal;
  std::vector<std::string> cal_precisions{"f64"};
  std::string cal_out;
  std::int64_t cal_probe_mib = cal.probe_bytes >> 20;
  double cal_min_sample_ms = cal.min_sample_seconds * 1e3;
  calib->add_option("-o,--out", cal_out, "profile file to write (JSON)")->required();
  calib->add_option("--precision", cal_precisions, "f64 | f32 (default: f64; both: f64,f32)")
      ->delimiter(',')
      ->check(CLI::IsMember({"f64", "f32"}));
  calib->add_option("--probe-mib", cal_probe_mib, "CSR size of each probe matrix, MiB")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 16))
      ->capture_default_str();
  std::int64_t cal_medium_kib = cal.medium_probe_bytes >> 10;
  calib->add_option("--medium-probe-kib", cal_medium_kib,
                    "CSR size of each probe of the third set, within L2 and L3, KiB (0: none)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 24))
      ->capture_default_str();
  std::int64_t cal_small_kib = cal.small_probe_bytes >> 10;
  calib->add_option("--small-probe-kib", cal_small_kib, "CSR size of each probe of the second set, within the caches, KiB (0: none)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 24))
      ->capture_default_str();
  calib->add_option("--reps", cal.reps, "timed samples per plan and round (median)")->check(CLI::Range(1, 10000));
  calib->add_option("--rounds", cal.rounds, "interleaved rounds (median of round medians)")->check(CLI::Range(1, 1000));
  calib->add_option("--min-sample-ms", cal_min_sample_ms, "each sample a batch of multiplies lasting about this long")
      ->check(CLI::Range(0.0, 10000.0))
      ->capture_default_str();
  calib->add_option("--machine", cal.machine, "description stored in the profile (default: host name, CPU, threads)");

  // compare
  auto* compare = app.add_subcommand(
      "compare", "pspmv's variants beside every available peer library (Kokkos Kernels, cuSPARSE, MKL, librsb, Eigen, "
                 "plain OpenMP): table, JSON, CSV and PNG plots of GB/s, x floor, speedups and break-even calls");
  std::vector<std::string> cmp_files, cmp_gens;
  pspmv_cli::CompareOptions co;
  co.bench.precisions = {"f64"};
  std::int64_t cmp_rows = 0;
  bool cmp_no_plots = false;
  compare->add_option("files", cmp_files, "Matrix Market files")->check(CLI::ExistingFile);
  compare->add_option("--gen", cmp_gens, std::string("generated input: ") + pspmv_cli::gen_spec_help);
  compare->add_option("--rows", cmp_rows, "rows for --gen specs that give none (e.g. --gen even --rows 524288)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{INT32_MAX}));
  compare->add_option("--precision", co.bench.precisions, "f64 | f32 (default: f64)")
      ->delimiter(',')
      ->check(CLI::IsMember({"f64", "f32"}));
  compare->add_option("--space", co.bench.space, "default (the GPU in a CUDA build) | host")
      ->check(CLI::IsMember({"default", "host"}));
  compare->add_option("--reps", co.bench.reps, "timed repetitions (median reported)")->check(CLI::Range(1, 100000));
  compare->add_option("--warmups", co.bench.warmups, "untimed warm-up runs")->check(CLI::Range(0, 100000));
  compare->add_option("--expected-calls", co.bench.expected_calls,
                      "calls hint for peers that take one (MKL's mkl_sparse_set_mv_hint)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  compare->add_option("-o,--out", co.out_dir, "output directory (created; files in it are replaced)");
  compare->add_flag("--no-plots", cmp_no_plots, "write the .dat and .gp files but do not run gnuplot");

  // Bad command lines exit 2 with "pspmv: error:", like every other bad input; --help exits 0.
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "pspmv: error: " << e.what() << "\n(run with --help for the options)\n";
    return 2;
  }

  // `--gen even --rows N` is `--gen even:N`.
  auto apply_rows = [](std::vector<std::string>& specs, std::int64_t rows) {
    if (rows <= 0) return;
    for (auto& spec : specs)
      if ((spec == "even" || spec == "skewed" || spec == "random")) spec += ":" + std::to_string(rows);
  };
  apply_rows(info_gens, info_rows);
  apply_rows(bench_gens, bench_rows);
  apply_rows(cmp_gens, cmp_rows);

  Kokkos::ScopeGuard guard(argc, argv);
  try {
    if (*info) {
      if (info_files.empty() && info_gens.empty()) throw pspmv::InvalidArgument("info: give a FILE or --gen SPEC");
      nlohmann::json all = nlohmann::json::array();
      for (const auto& in : pspmv_cli::gather(info_files, info_gens)) {
        auto j = info_json(in, lane_width);
        if (info_format == "sell") {
          const auto sh = pspmv::sell_shape(in.A.row_ptr.data(), in.A.nrows, info_slice, info_sigma);
          const double csr64 = static_cast<double>(in.A.nrows + 1) * 8 + static_cast<double>(in.A.nnz()) * 12;
          const double csr32 = static_cast<double>(in.A.nrows + 1) * 4 + static_cast<double>(in.A.nnz()) * 8;
          j["sell"] = {{"slice_height", info_slice},
                       {"sigma", info_sigma},
                       {"slices", sh.nslices},
                       {"lane_slots", sh.stored},
                       {"useful", sh.stored > 0 ? static_cast<double>(in.A.nnz()) / static_cast<double>(sh.stored) : 1.0},
                       {"padding", sh.padding},
                       {"bytes_f64", sh.bytes(8, in.A.nrows)},
                       {"bytes_f32", sh.bytes(4, in.A.nrows)},
                       {"bytes_vs_csr_f64", static_cast<double>(sh.bytes(8, in.A.nrows)) / csr64},
                       {"bytes_vs_csr_f32", static_cast<double>(sh.bytes(4, in.A.nrows)) / csr32}};
        }
        if (info_as_json) all.push_back(j);
        else {
          print_info(j);
          if (j.contains("sell")) {
            const auto& sl = j["sell"];
            std::cout << fmt::format(
                "  SELL-{}-{}: {} slices, lane-slots {} ({:.1f}% useful), padding {:.2f}\n"
                "    bytes vs CSR (64-bit row_ptr f64 / 32-bit row_ptr f32): {:.3f} / {:.3f}{}\n",
                sl["slice_height"].get<int>(), sl["sigma"].get<long long>(), sl["slices"].get<long long>(),
                sl["lane_slots"].get<long long>(), 100 * sl["useful"].get<double>(), sl["padding"].get<double>(),
                sl["bytes_vs_csr_f64"].get<double>(), sl["bytes_vs_csr_f32"].get<double>(),
                sl["bytes_vs_csr_f64"].get<double>() > 1.1 ? "  (over the 1.1x limit: an automatic GPU plan keeps CSR)" : "");
          }
        }
      }
      if (info_as_json) std::cout << all.dump(2) << "\n";
    } else if (*gen) {
      const bool sized = gen_kind == "even" || gen_kind == "skewed" || gen_kind == "random";
      Input in = pspmv_cli::generate(sized ? gen_kind + ":" + std::to_string(gen_rows) : gen_kind);
      if (gen_out.empty()) {
        std::cout << "%%MatrixMarket matrix coordinate real general\n"
                  << in.A.nrows << " " << in.A.ncols << " " << in.A.nnz() << "\n";
        for (std::int32_t i = 0; i < in.A.nrows; ++i)
          for (auto k = in.A.row_ptr(i); k < in.A.row_ptr(i + 1); ++k)
            std::cout << i + 1 << " " << in.A.col_idx(k) + 1 << " " << fmt::format("{:.17g}", in.A.values(k)) << "\n";
      } else {
        pspmv::write_matrix_market(gen_out, in.A);
        std::cerr << fmt::format("wrote {} ({} x {}, nnz {})\n", gen_out, in.A.nrows, in.A.ncols, in.A.nnz());
      }
    } else if (*calib) {
      cal.probe_bytes = cal_probe_mib << 20;
      cal.small_probe_bytes = cal_small_kib << 10;
      cal.medium_probe_bytes = cal_medium_kib << 10;
      cal.min_sample_seconds = cal_min_sample_ms * 1e-3;
      if (cal.machine.empty()) cal.machine = machine_description();
      cal.progress = [](const std::string& line) { std::cout << "  " << line << std::endl; };
      using Host = Kokkos::DefaultHostExecutionSpace;
      std::cout << fmt::format("pspmv calibrate: {} probe recipes at about {} MiB, {} KiB and {} KiB of CSR "
                               "(0: that size skipped; a probe that comes out the same at two sizes is measured "
                               "once) on {} ({} threads)\n",
                               pspmv::calibration_probe_count(), cal_probe_mib, cal_medium_kib, cal_small_kib,
                               Host().name(), Host().concurrency());
      pspmv::MachineProfile prof;
      for (const auto& p : cal_precisions) {
        std::cout << p << ":\n";
        auto one = p == "f64" ? pspmv::calibrate<Host, double>(cal) : pspmv::calibrate<Host, float>(cal);
        if (prof.probes.empty()) {
          prof = std::move(one);
        } else {
          prof.probes.insert(prof.probes.end(), one.probes.begin(), one.probes.end());
        }
      }
      pspmv::write_profile(cal_out, prof);
      std::cout << fmt::format("wrote {} ({} probes): a matrix takes team_per_row, or SELL, where the probes of its "
                               "schedule within distance {} of its row statistics and size ran it >= {}x faster "
                               "(weighted geometric mean, with the machine-wide one at weight {})\n",
                               cal_out, prof.probes.size(), prof.max_distance, prof.min_gain, prof.prior_weight);
    } else if (*tune) {
      if (!tune_profile.empty() && to.space != "host" &&
          pspmv::ExecTraits<Kokkos::DefaultExecutionSpace>::is_gpu)
        throw pspmv::InvalidArgument("tune: --profile applies to host spaces; add --space host");
      if (!tune_profile.empty()) to.profile = pspmv::read_profile(tune_profile);
      if (tune_files.empty() && tune_gens.empty()) throw pspmv::InvalidArgument("tune: give FILEs or --gen SPEC");
      const auto inputs = pspmv_cli::gather(tune_files, tune_gens);
      std::string cmd;
      for (int i = 0; i < argc; ++i) cmd += (i ? " " : "") + std::string(argv[i]);
      auto doc = [&](const nlohmann::json& results) {
        return nlohmann::json{{"command", cmd}, {"commit", PSPMV_BUILD_COMMIT}, {"machine", machine_description()},
                              {"kokkos_configuration", kokkos_configuration()}, {"results", results}};
      };
      // A file is rewritten after every matrix, so that a run cut short keeps what it measured.
      const auto results = pspmv_cli::run_tune(inputs, to, [&](const nlohmann::json& so_far) {
        if (!tune_json.empty() && tune_json != "-")
          pspmv_cli::write_file_atomically(tune_json, doc(so_far).dump(2) + "\n");
      });
      if (tune_json == "-") std::cout << doc(results).dump(2) << "\n";
    } else if (*compare) {
      if (cmp_files.empty() && cmp_gens.empty()) throw pspmv::InvalidArgument("compare: give FILEs or --gen SPEC");
      auto inputs = pspmv_cli::gather(cmp_files, {});
      for (const auto& g : cmp_gens) {
        std::cerr << "pspmv compare: generating " << g << "\n";
        inputs.push_back(pspmv_cli::generate(g));
      }
      for (int i = 0; i < argc; ++i) co.command += (i ? " " : "") + std::string(argv[i]);
      co.commit = PSPMV_BUILD_COMMIT;
      co.machine = machine_description();
      co.plots = !cmp_no_plots;
      return pspmv_cli::run_compare(inputs, co);
    } else if (*bench) {
      if (bench_files.empty() && bench_gens.empty()) throw pspmv::InvalidArgument("bench: give FILEs or --gen SPEC");
      if (!bench_profile.empty() && bo.space != "host" && pspmv::ExecTraits<Kokkos::DefaultExecutionSpace>::is_gpu)
        throw pspmv::InvalidArgument("bench: --profile applies to host spaces; add --space host");
      if (!bench_profile.empty()) bo.base.profile = pspmv::read_profile(bench_profile);
      if (!formats.empty()) {
        bo.formats.clear();
        for (const auto& f : formats) bo.formats.push_back(pspmv::parse_format(f));
      }
      if (!mappings.empty()) {
        bo.mappings.clear();
        for (const auto& m : mappings) bo.mappings.push_back(pspmv::parse_mapping(m));
      }
      if (!schedules.empty()) {
        bo.schedules.clear();
        for (const auto& s : schedules) bo.schedules.push_back(pspmv::parse_schedule(s));
      }
      bo.precisions = precisions;
      bo.peers = !no_peers;
      bo.include_auto = !no_auto;
      std::vector<Input> inputs;
      std::vector<pspmv_cli::Record> records;
      const auto files_and_gens = pspmv_cli::gather(bench_files, {});
      inputs = files_and_gens;
      for (const auto& g : bench_gens) inputs.push_back(pspmv_cli::generate(g));
      std::cerr << fmt::format("pspmv bench: {} input(s) on {}, {} warm-ups, {} reps\n", inputs.size(),
                               bo.space == "host" ? Kokkos::DefaultHostExecutionSpace().name()
                                                  : Kokkos::DefaultExecutionSpace().name(),
                               bo.warmups, bo.reps);
      for (const auto& in : inputs) {
        auto r = pspmv_cli::run_bench(in, bo);
        records.insert(records.end(), r.begin(), r.end());
      }
      const std::string summary = pspmv_cli::lesson_pair_summary(inputs, records);
      if (json_out != "-" && csv_out != "-") std::cout << pspmv_cli::table(records) << summary;
      std::string cmd;
      for (int i = 0; i < argc; ++i) cmd += (i ? " " : "") + std::string(argv[i]);
      if (!json_out.empty()) {
        nlohmann::json j;
        j["command"] = cmd;
        j["commit"] = PSPMV_BUILD_COMMIT;
        j["machine"] = machine_description();
        j["kokkos_configuration"] = kokkos_configuration();
        j["kokkos_kernels_peer"] = pspmv_peers::kokkos_kernels_available();
        j["records"] = nlohmann::json::array();
        for (const auto& r : records) j["records"].push_back(pspmv_cli::to_json(r));
        if (json_out == "-") std::cout << j.dump(2) << "\n";
        else pspmv_cli::write_file_atomically(json_out, j.dump(2) + "\n");
      }
      if (!csv_out.empty()) {
        std::string text = pspmv_cli::csv_header();
        for (const auto& r : records) text += pspmv_cli::to_csv(r);
        if (csv_out == "-") std::cout << text;
        else pspmv_cli::write_file_atomically(csv_out, text);
      }
      for (const auto& r : records)
        if (!r.verified && !r.skipped) {
          std::cerr << "pspmv bench: " << r.matrix << " " << r.precision << " " << r.impl << " " << r.variant
                    << " did not match the reference (max rel err " << r.max_rel_err << ")\n";
          return 3;
        }
    }
  } catch (const pspmv::Error& e) {
    std::cerr << "pspmv: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "pspmv: unexpected error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
