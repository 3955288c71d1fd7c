// `pspmv bench`: every requested variant (format x mapping x schedule) of each input and the
// peers, verified and timed against a bandwidth floor (harness/runner.hpp); a table, JSON and
// CSV records.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "command.hpp"
#include "distributed_bench.hpp"
#include "harness/context.hpp"
#include "harness/files.hpp"
#include "harness/report.hpp"
#include "harness/runner.hpp"
#include "peers/kokkos_kernels.hpp"

namespace pspmv_cli {

namespace {

struct BenchCmdOptions {
  InputOptions inputs;
  BenchOptions bench;
  std::vector<std::string> formats, mappings, schedules;
  bool no_peers = false, no_auto = false;
  bool precision_given = false;  ///< --precision on the command line
  bool min_sample_given = false;  ///< --min-sample-ms on the command line
  std::string json, csv;
  DistributedBenchOptions distributed;
};

/// The enum values of words, or `all` when none are given.
template <class Enum, class Parse>
std::vector<Enum> parsed(const std::vector<std::string>& words, std::vector<Enum> all, Parse parse) {
  if (words.empty()) return all;
  std::vector<Enum> out;
  for (const auto& w : words) out.push_back(parse(w));
  return out;
}

int run(BenchCmdOptions o, const RunInfo& info) {
  if (o.bench.interleave_best) {
    // --interleave pairs pspmv's fastest plan with each peer's fastest: refuse what has no pair.
    const char* why = o.distributed.enabled ? "--distributed has no peers"
                      : o.no_peers          ? "--no-peers leaves no peer"
                      : o.bench.precisions == std::vector<std::string>{"f32-f64"}
                          ? "--precision f32-f64 has no peer"
                      : std::find(o.bench.vectors.begin(), o.bench.vectors.end(), 1) == o.bench.vectors.end()
                          ? "--vectors without 1 has no single-vector pair"
                          : nullptr;
    if (why) throw pspmv::InvalidArgument(std::string("bench --interleave times pspmv beside a peer, but ") + why);
  }
  if (o.distributed.enabled) {
    // DistributedPlan runs double: any other precision asked for is refused, not replaced.
    if (o.precision_given && o.bench.precisions != std::vector<std::string>{"f64"})
      throw pspmv::InvalidArgument("bench --distributed measures f64 only; drop --precision or give --precision f64");
    if (o.min_sample_given)
      throw pspmv::InvalidArgument("bench --distributed times one call a sample (every rank fenced at a barrier); "
                                   "drop --min-sample-ms");
    return run_distributed(o.inputs, o.bench, o.formats, o.mappings, o.schedules, o.json, o.distributed, info);
  }
  const auto inputs = gather_inputs(o.inputs, "bench: give FILEs or --gen SPEC");
  BenchOptions& bo = o.bench;
  bo.formats = parsed(o.formats, bo.formats, pspmv::parse_format);  // comma lists are split by CLI11
  bo.mappings = parsed(o.mappings, bo.mappings, pspmv::parse_mapping);
  bo.schedules = parsed(o.schedules, bo.schedules, pspmv::parse_schedule);
  bo.peers = !o.no_peers;
  bo.include_auto = !o.no_auto;
  std::cerr << fmt::format("pspmv bench: {} input(s) on {}, {} warm-ups, {} reps (samples of at least {} ms)\n",
                           inputs.size(),
                           bo.space == "host" ? Kokkos::DefaultHostExecutionSpace().name()
                                              : Kokkos::DefaultExecutionSpace().name(),
                           bo.warmups, bo.reps, bo.min_sample_s * 1e3);
  print_warnings(run_warnings(info, {}, false));
  // The records so far as JSON and CSV; files are rewritten after every input (a run cut short
  // keeps what it measured), standard output gets them once at the end.
  const auto write = [&](const std::vector<Record>& records, bool last) {
    if (!o.json.empty() && (last || o.json != "-")) {
      nlohmann::json j = run_json(info, true);
      j["context"] = context_json(info, run_warnings(info, records));
      j["kokkos_kernels_peer"] = pspmv_peers::kokkos_kernels_available();
      j["records"] = nlohmann::json::array();
      for (const auto& r : records) j["records"].push_back(to_json(r));
      write_output(o.json, j.dump(2) + "\n");
    }
    if (!o.csv.empty() && (last || o.csv != "-")) {
      std::string text = csv_header();
      for (const auto& r : records) text += to_csv(r);
      write_output(o.csv, text);
    }
  };
  const auto records = run_bench(inputs, bo, nullptr, [&](const std::vector<Record>& so_far) { write(so_far, false); });
  const std::string summary = lesson_pair_summary(inputs, records);
  if (o.json != "-" && o.csv != "-") std::cout << table(records) << summary;
  write(records, true);
  print_warnings(run_warnings(info, records));
  for (const auto& r : records)
    if (wrong(r)) {
      std::cerr << mismatch("bench", r);
      return 3;
    }
  return 0;
}

}  // namespace

Command add_bench(CLI::App& app) {
  auto o = std::make_shared<BenchCmdOptions>();
  BenchOptions& bo = o->bench;
  auto* sub = app.add_subcommand("bench", "Measure every variant (mapping x schedule) of each input against a bandwidth floor");
  add_inputs(sub, o->inputs);
  add_list(sub, "--format", o->formats, "csr | sell (default: both)", parses_as(pspmv::parse_format, "FORMAT"));
  sub->add_option("--slice", bo.base.slice_height, "SELL slice height C (0: 32 on a GPU, SIMD lanes on a CPU)");
  sub->add_option("--sigma", bo.base.sigma, "SELL sorting window in rows (0: 32 C)");
  sub->add_option("--long-row", bo.base.sell_long_row,
                  "SELL: rows longer than this leave the slices: split into pieces of at most this many entries "
                  "inside the slices, or to a lane-shared kernel (--long-mode) (0: the space's default, 64 on a "
                  "GPU, none on a host; -1: never)");
  add_list(sub, "--mapping", o->mappings, "thread_per_row | team_per_row (default: both)",
           parses_as(pspmv::parse_mapping, "MAPPING"));
  add_list(sub, "--schedule", o->schedules, "static_chunks | dynamic_chunks | nnz_balanced | work_stealing | serial (default: all; serial on a host, thread_per_row only)",
           parses_as(pspmv::parse_schedule, "SCHEDULE"));
  add_list(sub, "--precision", bo.precisions,
           "f64 | f32 | f32-f64 (a float matrix under double vectors and sums: pspmv::MixedPlan; no peer "
           "offers it) (default: f64,f32; --distributed: f64 only)",
           CLI::IsMember({"f64", "f32", "f32-f64"}))
      ->each([o](const std::string&) { o->precision_given = true; });
  add_space(sub, bo.space);
  add_reps(sub, bo.reps, bo.warmups, "timed samples (median and min reported)");
  add_min_sample(sub, bo.min_sample_s)->each([o](const std::string&) { o->min_sample_given = true; });
  sub->add_option("--chunk-size", bo.base.chunk_size, "rows per chunk for static/dynamic (0: rows/2000)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--team-size", bo.base.team_size, "threads per team (0: chosen)")->check(CLI::NonNegativeNumber);
  sub->add_option("--vector-length", bo.base.vector_length, "vector lanes per thread (0: chosen)")
      ->check(CLI::NonNegativeNumber);
  sub->add_flag("--no-peers", o->no_peers, "skip every peer library (pspmv's variants only)");
  sub->add_flag("--no-auto", o->no_auto, "skip the plan analyze() picks by itself");
  sub->add_flag("--interleave", bo.interleave_best,
                "time pspmv's fastest variant again beside each peer's fastest, sample by sample (as compare does; "
                "the pair's medians go to the peer's record, field interleaved)");
  add_expected_calls(sub, bo.expected_calls);
  sub->add_option("--long-mode", bo.long_modes,
                  "SELL long rows: split (pieces inside the slices) | warp (lane-shared CSR part); several: "
                  "each SELL variant once per mode (default: the space's choice)")
      ->delimiter(',')
      ->check(CLI::IsMember({"split", "warp"}));
  sub->add_option("--compress", bo.compress_modes,
                  "SELL columns: on (per slice: diagonal, no column per entry; 16-bit offsets from a base where it "
                  "spans < 65,536 columns; else 32-bit) | "
                  "off (32-bit); several: each SELL variant (and auto) once per mode (default: the plan's choice)")
      ->delimiter(',')
      ->check(CLI::IsMember({"on", "off"}));
  sub->add_option("--blocks", bo.block_costs,
                  "CSR thread_per_row nnz_balanced blocks: groups (nearly equal masked row groups; a host build "
                  "with masked rows) | entries (nearly equal entries, + --row-weight x rows); several: each such "
                  "variant once per cost (default: the plan's, groups where rows go in masked groups)")
      ->delimiter(',')
      ->check(CLI::IsMember({"groups", "entries"}));
  sub->add_option("--row-weight", bo.row_weights,
                  "CSR nnz_balanced blocks: entries a row weighs in them (0: entries alone; 1: the merge path); "
                  "a weight means blocks of entries, not of masked groups; several: each such variant once per "
                  "weight (default: none, the plan's blocks)")
      ->delimiter(',')
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 20));
  sub->add_option("--unroll-sweep", bo.unroll_sweep,
                  "also run every variant with each of these gather unroll factors (entries a thread loads "
                  "before it gathers x; 1, 2, 4, 8 or 16)")
      ->delimiter(',')
      ->check(CLI::IsMember({1, 2, 4, 8, 16}));
  sub->add_option("--threads", bo.thread_counts,
                  "host: run every variant once per thread count (1 to the space's concurrency; serial and "
                  "team_per_row variants that cannot take a count are skipped); default: chosen")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  sub->add_option("--vectors", bo.vectors,
                  "vectors per multiply: 1 is y = A x; K > 1 is Y = A X with X and Y of K columns (LayoutRight), "
                  "each verified, with the peers that offer it (MKL mkl_sparse_?_mm, cuSPARSE SpMM); several: "
                  "each variant once per K (default: 1)")
      ->delimiter(',')
      ->check(CLI::Range(1, 4096));
  sub->add_flag_function(
      "--transpose",
      [&bo](std::int64_t n) { bo.base.operation = n > 0 ? pspmv::Operation::transpose : pspmv::Operation::plain; },
      "measure y = A^T x: pspmv's plans with AnalyzeOptions::operation = transpose (A^T stored at analyze time), "
      "verified against the reference of A^T; the matrix is named NAME^T and the peers multiply A^T stored "
      "explicitly");
  add_rows(sub, o->inputs, "even");
  sub->add_option("--json", o->json, "write JSON records to this file ('-' for standard output)");
  sub->add_option("--csv", o->csv, "write CSV records to this file ('-' for standard output)");
  add_distributed_options(sub, o->distributed);
  return {sub, [o](const RunInfo& info) { return run(*o, info); }};
}

}  // namespace pspmv_cli
