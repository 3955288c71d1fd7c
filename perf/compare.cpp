// `pspmv compare`: pspmv's variants and every available peer library on the same inputs, the
// same threads or device, each result verified; a table, JSON, CSV and gnuplot PNG plots of
// GB/s, the ratio to the floor, the speedup of pspmv over each peer, and the analysis time
// and break-even number of calls of every plan (harness/summary.hpp, harness/plots.hpp).
#include <iostream>
#include <memory>

#include "command.hpp"
#include "harness/context.hpp"
#include "harness/files.hpp"
#include "harness/plots.hpp"
#include "harness/runner.hpp"
#include "harness/summary.hpp"

namespace pspmv_cli {

namespace {

struct CompareOptions {
  InputOptions inputs;
  BenchOptions bench;                   ///< variants, precisions, reps; peers always on
  std::string out_dir = "compare-out";  ///< created if missing; files are replaced atomically
  bool no_plots = false;                ///< write the .dat and .gp files but do not run gnuplot
};

/// Writes out_dir/{compare.json, records.csv, summary.csv, summary.txt} and the plots.
/// @return 0 when every measured result matched the reference, 3 otherwise (files written).
int run(const CompareOptions& o, const RunInfo& info) {
  const auto inputs = gather_inputs(o.inputs, "compare: give FILEs or --gen SPEC", "pspmv compare");
  make_dirs(o.out_dir);
  print_warnings(run_warnings(info, {}, false));
  const std::string dir = o.out_dir + "/";
  // compare.json and the CSVs are rewritten after every input, so that a run cut short keeps
  // what it measured; the plots and summary.txt come at the end.
  const auto write = [&](const std::vector<Record>& records, const std::vector<CompareSummary>& summaries) {
    nlohmann::json doc = run_json(info, true);
    doc["context"] = context_json(info, run_warnings(info, records));
    doc["records"] = records_json(records);
    doc["summary"] = summary_json(summaries);
    write_file_atomically(dir + "compare.json", doc.dump(2) + "\n");
    write_file_atomically(dir + "records.csv", records_csv(records));
    write_file_atomically(dir + "summary.csv", summary_csv(summaries));
  };
  const auto records = run_bench(inputs, o.bench, "pspmv compare",
                                 [&](const std::vector<Record>& so_far) { write(so_far, summarize(so_far)); });
  const auto summaries = summarize(records);
  const std::string text = compare_table(summaries);
  std::cout << text;
  write(records, summaries);
  write_file_atomically(dir + "summary.txt",
                        "# " + info.command + "\n# commit " + info.commit + ", " + info.machine + ", " + info.date +
                            "\n\n" + text);
  const auto pngs = write_plots(summaries, o.out_dir, !o.no_plots, plot_subtitle(info));
  std::cerr << "pspmv compare: wrote " << dir << "{compare.json, records.csv, summary.csv, summary.txt}";
  for (const auto& p : pngs) std::cerr << ", " << p;
  std::cerr << "\n";
  print_warnings(run_warnings(info, records));
  int rc = 0;
  for (const auto& r : records)
    if (wrong(r)) {
      std::cerr << mismatch("compare", r);
      rc = 3;
    }
  return rc;
}

}  // namespace

Command add_compare(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  BenchOptions& bo = o->bench;
  bo.precisions = {"f64"};
  bo.interleave_best = true;
  auto* sub = app.add_subcommand(
      "compare", "pspmv's variants beside every available peer library (Kokkos Kernels, cuSPARSE, MKL, librsb, Eigen, "
                 "plain OpenMP): table, JSON, CSV and PNG plots of GB/s, x floor, speedups and break-even calls");
  add_inputs(sub, o->inputs);
  add_rows(sub, o->inputs, "even");
  add_list(sub, "--precision", bo.precisions, "f64 | f32 (default: f64)", CLI::IsMember({"f64", "f32"}));
  add_space(sub, bo.space);
  add_reps(sub, bo.reps, bo.warmups, "timed samples (median reported)");
  add_min_sample(sub, bo.min_sample_s);
  add_expected_calls(sub, bo.expected_calls);
  sub->add_option("--compress", bo.compress_modes,
                  "SELL columns: on | off; several: each SELL variant (and auto) once per mode (default: the "
                  "plan's choice)")
      ->delimiter(',')
      ->check(CLI::IsMember({"on", "off"}));
  sub->add_option("-o,--out", o->out_dir, "output directory (created; files in it are replaced)");
  sub->add_flag("--no-plots", o->no_plots, "write the .dat and .gp files but do not run gnuplot");
  return {sub, [o](const RunInfo& info) { return run(*o, info); }};
}

}  // namespace pspmv_cli
