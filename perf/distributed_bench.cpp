// `pspmv bench --distributed`: each input spread over the MPI ranks by rows (a generator runs on
// every rank, a file is read on rank 0 and its rows sent out), a DistributedPlan built, its result
// gathered and verified against the long-double reference, then timed: per rank the median
// multiply and its phases (pack, diagonal block, wait, off-diagonal block), the halo exchange
// alone, halo bytes; in total the median of the slowest rank per repetition, the communication
// share, the overlap, and the speedup against a 1-rank run's JSON (--baseline).
#include "distributed_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include "harness/files.hpp"
#include "harness/reference.hpp"

#ifdef PSPMV_HAVE_MPI
#include "pspmv/distributed.hpp"
#endif

namespace pspmv_cli {

void add_distributed_options(CLI::App* sub, DistributedBenchOptions& d) {
  sub->add_flag("--distributed", d.enabled,
                "run the distributed plan under mpirun (mpirun -np N pspmv bench --distributed FILE | --gen SPEC): "
                "rows spread over the ranks, halo exchange overlapped with the diagonal block");
  sub->add_option("--partition", d.partition, "--distributed: rows split by nnz balance (nnz) or in equal counts (rows)")
      ->check(CLI::IsMember({"nnz", "rows"}));
  sub->add_option("--baseline", d.baseline,
                  "--distributed: JSON of a 1-rank run (--json): strong-scaling speedup of each input against it")
      ->check(CLI::ExistingFile);
}

#ifndef PSPMV_HAVE_MPI

int run_distributed(const InputOptions&, const BenchOptions&, const std::vector<std::string>&,
                    const std::vector<std::string>&, const std::vector<std::string>&, const std::string&,
                    const DistributedBenchOptions&, const RunInfo&) {
  throw pspmv::Unsupported("bench --distributed: this pspmv was built without MPI (install libopenmpi-dev and "
                           "openmpi-bin and configure with PSPMV_ENABLE_MPI=ON)");
}

#else

namespace {

/// MPI for the length of the run: initialized here unless the caller did, finalized likewise.
struct MpiRuntime {
  bool owner = false;
  MpiRuntime() {
    int done = 0;
    MPI_Initialized(&done);
    if (!done) {
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
      owner = true;
    }
  }
  ~MpiRuntime() {
    if (owner) MPI_Finalize();
  }
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// x_j of every run: exact in float and double.
double x_value(std::int64_t j) { return 1.0 + static_cast<double>((j * 7) % 11) / 16.0; }

std::string bcast_string(std::string s, int root) {
  int n = static_cast<int>(s.size());
  MPI_Bcast(&n, 1, MPI_INT, root, MPI_COMM_WORLD);
  s.resize(static_cast<std::size_t>(n));
  MPI_Bcast(s.data(), n, MPI_CHAR, root, MPI_COMM_WORLD);
  return s;
}

/// Per-rank figures gathered on rank 0, in this order.
enum Field { f_rows, f_nnz, f_offd_nnz, f_recv_from, f_send_to, f_bytes_in, f_bytes_out, f_total, f_pack, f_diag,
             f_wait, f_offd, f_exchange, f_analyze, f_count };

struct Outcome {
  nlohmann::json record;
  bool verified = false;
};

double baseline_ms(const std::string& file, const std::string& name) {
  if (file.empty()) return 0;
  std::ifstream in(file);
  nlohmann::json j;
  try {
    in >> j;
  } catch (const std::exception& e) {
    throw pspmv::ParseError(file, 0, std::string("not a JSON file of pspmv bench --distributed: ") + e.what());
  }
  for (const auto& r : j.value("records", nlohmann::json::array()))
    if (r.value("matrix", "") == name && r.contains("total")) return r["total"].value("median_ms", 0.0);
  return 0;
}

template <class Exec>
Outcome run_one(const std::string& spec, bool is_file, const BenchOptions& bo, const pspmv::AnalyzeOptions& analyze,
                const DistributedBenchOptions& d) {
  using Plan = pspmv::DistributedPlan<Exec, double, std::int64_t>;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // The global matrix: generated on every rank (deterministic), or read on rank 0.
  Input in;
  pspmv::collectively(MPI_COMM_WORLD, [&] {
    if (!is_file)
      in = generate(spec);
    else if (rank == 0)
      in = load_file(spec);
  });
  const std::string name = bcast_string(in.name, 0);
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(size) + 1);
  if (rank == 0) {
    std::vector<std::int64_t> rp(in.A.row_ptr.data(), in.A.row_ptr.data() + in.A.nrows + 1);
    offsets = d.partition == "rows" ? pspmv::partition_even(in.A.nrows, size)
                                    : pspmv::partition_by_nnz(rp.data(), in.A.nrows, size);
  }
  MPI_Bcast(offsets.data(), size + 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  const auto rows = is_file ? pspmv::scatter_rows(MPI_COMM_WORLD, in.A, 0, offsets)
                            : pspmv::local_rows(in.A, offsets, rank);
  if (rank != 0) in.A = {};  // only rank 0 keeps the whole matrix, for the reference

  pspmv::DistributedOptions o;
  o.diagonal = o.off_diagonal = analyze;
  Exec space;
  const auto t_analyze = std::chrono::steady_clock::now();
  const Plan plan(space, MPI_COMM_WORLD, rows, o);
  const double analyze_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_analyze).count();

  typename Plan::vector_type x("x", plan.local_cols()), y("y", plan.local_rows());
  {
    auto hx = Kokkos::create_mirror_view(x);
    const std::int64_t cb = plan.col_offsets()[rank];
    for (std::int32_t j = 0; j < plan.local_cols(); ++j) hx(j) = x_value(cb + j);
    Kokkos::deep_copy(x, hx);
  }
  // Verify: y starts as NaN (beta = 0 must overwrite it), gathered on rank 0 against the reference.
  Kokkos::deep_copy(y, std::numeric_limits<double>::quiet_NaN());
  plan.multiply(space, 1.0, x, 0.0, y);
  space.fence();
  auto hy = Kokkos::create_mirror_view(y);
  Kokkos::deep_copy(hy, y);
  std::vector<int> counts(size), displs(size);
  for (int p = 0; p < size; ++p) {
    counts[p] = static_cast<int>(offsets[p + 1] - offsets[p]);
    displs[p] = static_cast<int>(offsets[p]);
  }
  std::vector<double> yg(rank == 0 ? static_cast<std::size_t>(rows.global_rows) : 0);
  MPI_Gatherv(hy.data(), plan.local_rows(), MPI_DOUBLE, yg.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
              MPI_COMM_WORLD);
  std::int64_t wrong[2] = {0, -1};
  if (rank == 0) {
    std::vector<double> xg(static_cast<std::size_t>(in.A.ncols));
    for (std::int64_t j = 0; j < in.A.ncols; ++j) xg[j] = x_value(j);
    const auto ref = pspmv::reference::spmv(in.A, 1.0, xg);
    const auto m = pspmv::reference::compare(in.A, yg, ref);
    wrong[0] = m.count;
    wrong[1] = m.first;
  }
  MPI_Bcast(wrong, 2, MPI_INT64_T, 0, MPI_COMM_WORLD);

  // Time: every repetition starts together; the slowest rank of each sets the total.
  for (int w = 0; w < bo.warmups; ++w) plan.multiply(space, 1.0, x, 0.0, y);
  space.fence();
  std::vector<double> total(bo.reps), pack(bo.reps), diag(bo.reps), wait(bo.reps), offd(bo.reps), exch(bo.reps);
  for (int r = 0; r < bo.reps; ++r) {
    pspmv::PhaseTimes t;
    MPI_Barrier(MPI_COMM_WORLD);
    plan.multiply(space, 1.0, x, 0.0, y, &t);
    total[r] = t.total;
    pack[r] = t.pack;
    diag[r] = t.diagonal;
    wait[r] = t.wait;
    offd[r] = t.off_diagonal;
  }
  for (int r = 0; r < bo.reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    exch[r] = plan.exchange(space, x);
  }
  std::vector<double> slowest(bo.reps);
  MPI_Allreduce(total.data(), slowest.data(), bo.reps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double mine[f_count];
  mine[f_rows] = plan.local_rows();
  mine[f_nnz] = static_cast<double>(rows.rows.nnz());
  mine[f_offd_nnz] = static_cast<double>(plan.off_diagonal_nnz());
  mine[f_recv_from] = static_cast<double>(plan.pattern().recv_ranks.size());
  mine[f_send_to] = static_cast<double>(plan.pattern().send_ranks.size());
  mine[f_bytes_in] = static_cast<double>(plan.halo_bytes_received());
  mine[f_bytes_out] = static_cast<double>(plan.halo_bytes_sent());
  mine[f_total] = median(total);
  mine[f_pack] = median(pack);
  mine[f_diag] = median(diag);
  mine[f_wait] = median(wait);
  mine[f_offd] = median(offd);
  mine[f_exchange] = median(exch);
  mine[f_analyze] = analyze_s;
  std::vector<double> all(static_cast<std::size_t>(f_count) * size);
  MPI_Gather(mine, f_count, MPI_DOUBLE, all.data(), f_count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  const std::string diag_plan = bcast_string(plan.diagonal() ? plan.diagonal()->describe() : "none", 0);
  const std::string offd_plan = bcast_string(plan.off_diagonal() ? plan.off_diagonal()->describe() : "none", 0);

  Outcome out;
  out.verified = wrong[0] == 0;
  if (rank != 0) return out;
  const std::int64_t nnz = static_cast<std::int64_t>(in.A.nnz());
  const double total_ms = 1e3 * median(slowest);
  const int threads = Exec().concurrency();
  std::cout << fmt::format("\n{} ({} x {}, nnz {}) on {} ranks x {} threads ({}), f64, rows split by {}{}\n", name,
                           in.A.nrows, in.A.ncols, nnz, size, threads, Exec::name(),
                           d.partition == "rows" ? "equal counts" : "nnz balance",
                           plan.staged_through_host() ? ", halo staged through host memory" : "");
  std::cout << fmt::format("  plans of rank 0: diagonal {}; off-diagonal {}\n", diag_plan, offd_plan);
  std::cout << fmt::format("{:>6} {:>10} {:>11} {:>10} {:>7} {:>10} {:>10} {:>9} {:>8} {:>8} {:>8} {:>8} {:>9} {:>6} {:>8}\n",
                           "rank", "rows", "nnz", "offd nnz", "nbrs", "halo in B", "halo out B", "median ms", "pack",
                           "diag", "wait", "offd", "exch ms", "comm%", "overlap%");
  double sum_total = 0, sum_comm = 0, sum_wait = 0, sum_exch = 0, bytes = 0;
  nlohmann::json per_rank = nlohmann::json::array();
  auto pct = [](double v) { return fmt::format("{:.1f}", 100.0 * v); };
  for (int p = 0; p < size; ++p) {
    const double* f = &all[static_cast<std::size_t>(f_count) * p];
    const double comm = f[f_total] > 0 ? (f[f_pack] + f[f_wait]) / f[f_total] : 0;
    const bool has_halo = f[f_bytes_in] + f[f_bytes_out] > 0;
    const double overlap = has_halo && f[f_exchange] > 0 ? std::clamp(1.0 - f[f_wait] / f[f_exchange], 0.0, 1.0) : 0;
    sum_total += f[f_total];
    sum_comm += f[f_pack] + f[f_wait];
    if (has_halo) {
      sum_wait += f[f_wait];
      sum_exch += f[f_exchange];
    }
    bytes += f[f_bytes_in];
    std::cout << fmt::format(
        "{:>6} {:>10} {:>11} {:>10} {:>7} {:>10} {:>10} {:>9.4f} {:>8.4f} {:>8.4f} {:>8.4f} {:>8.4f} {:>9.4f} {:>6} {:>8}\n", p,
        f[f_rows], f[f_nnz], f[f_offd_nnz], fmt::format("{}/{}", f[f_recv_from], f[f_send_to]), f[f_bytes_in],
        f[f_bytes_out], 1e3 * f[f_total], 1e3 * f[f_pack], 1e3 * f[f_diag], 1e3 * f[f_wait], 1e3 * f[f_offd],
        1e3 * f[f_exchange], pct(comm), has_halo ? pct(overlap) : "-");
    per_rank.push_back({{"rank", p}, {"rows", f[f_rows]}, {"nnz", f[f_nnz]}, {"off_diagonal_nnz", f[f_offd_nnz]},
                        {"receives_from", f[f_recv_from]}, {"sends_to", f[f_send_to]},
                        {"halo_bytes_in", f[f_bytes_in]}, {"halo_bytes_out", f[f_bytes_out]},
                        {"median_ms", 1e3 * f[f_total]}, {"pack_ms", 1e3 * f[f_pack]},
                        {"diagonal_ms", 1e3 * f[f_diag]}, {"wait_ms", 1e3 * f[f_wait]},
                        {"off_diagonal_ms", 1e3 * f[f_offd]}, {"exchange_alone_ms", 1e3 * f[f_exchange]},
                        {"communication_share", comm}, {"overlap", has_halo ? nlohmann::json(overlap) : nlohmann::json()},
                        {"analyze_ms", 1e3 * f[f_analyze]}});
  }
  const double comm_share = sum_total > 0 ? sum_comm / sum_total : 0;
  const double overlap = sum_exch > 0 ? std::clamp(1.0 - sum_wait / sum_exch, 0.0, 1.0) : 0;
  const double base = baseline_ms(d.baseline, name);
  std::cout << fmt::format("  total: median {:.4f} ms (slowest rank per rep, {} reps), {:.2f} GFLOP/s, halo {} B per "
                           "multiply, communication {}% of rank time, overlap {}{}\n",
                           total_ms, bo.reps, 2.0 * nnz / (total_ms * 1e6), bytes, pct(comm_share),
                           sum_exch > 0 ? pct(overlap) + "%" : "- (no halo)",
                           base > 0 ? fmt::format(", speedup {:.2f}x over the 1-rank run ({:.4f} ms)", base / total_ms, base)
                                    : "");
  if (out.verified)
    std::cout << "  result: verified against the long-double reference\n";
  else
    std::cout << fmt::format("  result: WRONG in {} rows (first row {})\n", wrong[0], wrong[1]);
  out.record = {{"matrix", name},
                {"rows", in.A.nrows},
                {"cols", in.A.ncols},
                {"nnz", nnz},
                {"ranks", size},
                {"threads_per_rank", threads},
                {"space", Exec::name()},
                {"partition", d.partition},
                {"staged_through_host", plan.staged_through_host()},
                {"diagonal_plan_rank0", diag_plan},
                {"off_diagonal_plan_rank0", offd_plan},
                {"warmups", bo.warmups},
                {"reps", bo.reps},
                {"verified", out.verified},
                {"wrong_rows", wrong[0]},
                {"total",
                 {{"median_ms", total_ms},
                  {"halo_bytes", bytes},
                  {"communication_share", comm_share},
                  {"overlap", sum_exch > 0 ? nlohmann::json(overlap) : nlohmann::json()},
                  {"speedup_vs_baseline", base > 0 ? nlohmann::json(base / total_ms) : nlohmann::json()}}},
                {"per_rank", per_rank}};
  return out;
}

}  // namespace

int run_distributed(const InputOptions& inputs, const BenchOptions& bo, const std::vector<std::string>& formats,
                    const std::vector<std::string>& mappings, const std::vector<std::string>& schedules,
                    const std::string& json, const DistributedBenchOptions& d, const RunInfo& info) {
  MpiRuntime mpi;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (inputs.files.empty() && inputs.gens.empty())
    throw pspmv::InvalidArgument("bench --distributed: give FILEs or --gen SPEC");
  auto one = [](const std::vector<std::string>& v, const char* what) {
    if (v.size() > 1)
      throw pspmv::InvalidArgument(std::string("bench --distributed: give at most one ") + what + " (none: chosen per block)");
    return v.empty() ? std::string() : v.front();
  };
  pspmv::AnalyzeOptions a = bo.base;
  if (const auto f = one(formats, "--format"); !f.empty()) a.format = pspmv::parse_format(f);
  if (const auto m = one(mappings, "--mapping"); !m.empty()) a.mapping = pspmv::parse_mapping(m);
  if (const auto s = one(schedules, "--schedule"); !s.empty()) a.schedule = pspmv::parse_schedule(s);
  std::vector<std::string> gens = inputs.gens;
  apply_rows(gens, inputs.rows);
  if (rank == 0)
    std::cerr << fmt::format("pspmv bench --distributed: {} input(s) on {} ranks, {} warm-ups, {} reps\n",
                             inputs.files.size() + gens.size(), size, bo.warmups, bo.reps);
  std::vector<Outcome> outcomes;
  auto run = [&](const std::string& spec, bool is_file) {
    outcomes.push_back(bo.space == "host" ? run_one<Kokkos::DefaultHostExecutionSpace>(spec, is_file, bo, a, d)
                                          : run_one<Kokkos::DefaultExecutionSpace>(spec, is_file, bo, a, d));
  };
  for (const auto& f : inputs.files) run(f, true);
  for (const auto& g : gens) run(g, false);
  if (rank == 0 && !json.empty()) {
    nlohmann::json j = run_json(info, false);
    j["ranks"] = size;
    j["records"] = nlohmann::json::array();
    for (const auto& o : outcomes) j["records"].push_back(o.record);
    write_output(json, j.dump(2) + "\n");
  }
  for (const auto& o : outcomes)
    if (!o.verified) return 3;
  return 0;
}

#endif

}  // namespace pspmv_cli
