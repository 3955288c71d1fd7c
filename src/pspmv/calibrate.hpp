#pragma once
/// @file calibrate.hpp
/// pspmv::calibrate: the offline benchmark of a machine that a MachineProfile (profile.hpp)
/// records, in the manner of OSKI (Vuduc, Demmel, Yelick 2005): run once per machine and
/// thread count, on synthetic matrices only, then read by analyze() through
/// AnalyzeOptions::profile.
///
/// @code
///   pspmv::CalibrateOptions c;                     // 14 probes each of 256 MiB, 1 MiB and 256 KiB of CSR
///   auto profile = std::make_shared<const pspmv::MachineProfile>(
///       pspmv::calibrate<Kokkos::DefaultHostExecutionSpace, double>(c));
///   pspmv::AnalyzeOptions o;
///   o.profile = profile;                           // large matrices take the probes' choices
///   auto plan = pspmv::analyze<Kokkos::DefaultHostExecutionSpace>(A, o);
/// @endcode

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "pspmv/generators.hpp"
#include "pspmv/profile.hpp"
#include "pspmv/tune.hpp"

namespace pspmv {

/// Options of calibrate().
struct CalibrateOptions {
  /// CSR bytes of each probe (row_ptr, col_idx, values), about; far beyond the caches of the
  /// CPUs in view (the H200 host's Xeon and the development EPYC have at most a few tens of MiB
  /// of L3). Each probe is then analyzed into three plans, so memory peaks near 4x this.
  std::int64_t probe_bytes = std::int64_t{256} << 20;
  /// CSR bytes of a second set of the same probes within the caches (0: none): 256 KiB, the
  /// size of a typical SuiteSparse matrix of the shared set (1 KB to 1 MB), where a launch takes
  /// microseconds and fork/join and the row loop's overhead count, not bandwidth.
  std::int64_t small_probe_bytes = std::int64_t{256} << 10;
  /// CSR bytes of a third set between the two (0: none): 1 MiB, within the L2 (1-2 MiB per core
  /// on the CPUs in view) and the L3, the size of the largest shared matrices (bcsstk13, bayer10:
  /// 1.0-1.2 MB). On the H200's Xeon host CSR team_per_row beat thread_per_row on bcsstk13 and
  /// bayer10 by 1.10-1.39x in three runs of eight (2026-11-30 run 2, 2026-12-01 runs 1 and 2),
  /// where the probes of 256 KiB had measured team_per_row at 0.71-1.10x
  /// (perf/results/2026-12-01-h200-r7/README.md).
  std::int64_t medium_probe_bytes = std::int64_t{1} << 20;
  int reps = 7;       ///< timed samples per plan and round (median)
  int rounds = 5;     ///< interleaved rounds (median of the round medians)
  double min_sample_seconds = TuneOptions{}.min_sample_seconds;  ///< see TuneOptions
  std::uint64_t seed = 101;  ///< seed of the first random probe (the others take seed + 1, ...)
  std::string machine;       ///< description stored in the profile (the CPU, how it was run)
  /// Called with one line per probe measured (progress), when set.
  std::function<void(const std::string&)> progress;
};

namespace detail {
/// One probe: its name and matrix.
template <class Value>
struct CalibrationProbe {
  std::string name;
  HostCsr<Value, std::int64_t> A;
};

inline std::int64_t bytes_per_row(double mean, int value_bytes) {
  return static_cast<std::int64_t>(mean * (value_bytes + 4)) + 8;
}

/// A probe's recipe. kind: "stencil" (points 7 or 27; planar: a 2D grid, so 5 or 9 points),
/// "random" (scattered columns, `mean` per row), "rmat" (a scattered power-law graph, Graph500
/// parameters, edge factor ef), "tile" (block-diagonal copies of an R-MAT graph of 2^scale
/// vertices with probabilities a, b, c: short irregular rows with local columns, as tiled real
/// graphs have).
struct ProbeRecipe {
  const char* kind;
  int points_or_scale;
  double mean_or_ef;
  bool planar;
  double a, b, c;
};

/// The probes: fourteen synthetic matrices spanning the row-length statistics and the x reach
/// (MachineProfile::reach()) the host rules depend on: local columns with regular rows (means
/// about 5, 7, 9 and 26, cv below 0.2), with irregular rows (means about 4, 11 and 27 at cv near
/// 1, blocks of 256-2,048 rows, x reach 1-6 KB; 4 and 12 at cv 2-3), irregular rows in blocks
/// of 8,192 rows whose 64 KiB of x exceed a 48 KiB L1 (means about 4 and 7, reach about 21 KB), and
/// scattered columns (random rows of mean 4 and 12, cv 0.6; an R-MAT graph, cv about 5). No
/// matrix of the evaluation set or its holdouts is among them (their generators are, at other
/// sizes and seeds).
inline const std::vector<ProbeRecipe>& probe_recipes() {
  static const std::vector<ProbeRecipe> r = {
      {"stencil", 7, 0, true, 0, 0, 0},          {"stencil", 7, 0, false, 0, 0, 0},
      {"stencil", 27, 0, true, 0, 0, 0},         {"stencil", 27, 0, false, 0, 0, 0},
      {"tile", 11, 4, false, 0.48, 0.16, 0.16},  {"tile", 10, 12, false, 0.48, 0.16, 0.16},
      {"tile", 8, 40, false, 0.5, 0.2, 0.2},     {"tile", 11, 4, false, 0.57, 0.19, 0.19},
      {"tile", 10, 16, false, 0.57, 0.19, 0.19}, {"tile", 13, 4, false, 0.48, 0.16, 0.16},
      {"tile", 13, 8, false, 0.48, 0.16, 0.16},  {"random", 0, 4, false, 0, 0, 0},
      {"random", 0, 12, false, 0, 0, 0},         {"rmat", 0, 16, false, 0.57, 0.19, 0.19}};
  return r;
}

template <class Value>
CalibrationProbe<Value> make_probe(std::size_t which, std::int64_t bytes, std::uint64_t seed) {
  const int vb = static_cast<int>(sizeof(Value));
  const ProbeRecipe& r = probe_recipes().at(which);
  const std::string kind = r.kind;
  const std::uint64_t s = seed + which;
  CalibrationProbe<Value> p;
  if (kind == "stencil") {
    const double per_row = r.planar ? (r.points_or_scale == 7 ? 5 : 9) : r.points_or_scale;
    const double rows = static_cast<double>(bytes) / static_cast<double>(bytes_per_row(per_row, vb));
    const auto n = static_cast<std::int32_t>(std::max(4.0, r.planar ? std::sqrt(rows) : std::cbrt(rows)));
    const std::int32_t nz = r.planar ? 1 : n;
    p.name = "stencil" + std::to_string(r.points_or_scale) + ":" + std::to_string(n) + ":" + std::to_string(n) + ":" +
             std::to_string(nz);
    p.A = generate_stencil<Value, std::int64_t>(n, n, nz, r.points_or_scale);
  } else if (kind == "random") {
    const auto rows = static_cast<std::int32_t>(
        std::max<std::int64_t>(64, std::min<std::int64_t>(bytes / bytes_per_row(r.mean_or_ef, vb), INT32_MAX / 2)));
    p.name = "random:" + std::to_string(rows) + ":" + std::to_string(static_cast<int>(r.mean_or_ef)) + ":" +
             std::to_string(s);
    p.A = generate_random<Value, std::int64_t>(rows, rows, r.mean_or_ef, s);
  } else if (kind == "rmat") {
    // About 0.9 x edge factor stored entries per row after duplicates are summed.
    const double rows = static_cast<double>(bytes) / static_cast<double>(bytes_per_row(0.9 * r.mean_or_ef, vb));
    const int scale = std::max(6, std::min(28, static_cast<int>(std::lround(std::log2(std::max(rows, 64.0))))));
    p.name = "rmat:" + std::to_string(scale) + ":" + std::to_string(static_cast<int>(r.mean_or_ef)) + ":" +
             std::to_string(s);
    p.A = generate_rmat<Value, std::int64_t>(scale, static_cast<std::int64_t>(r.mean_or_ef), s, r.a, r.b, r.c);
  } else {
    const auto base = generate_rmat<Value, std::int64_t>(r.points_or_scale, static_cast<std::int64_t>(r.mean_or_ef),
                                                         s, r.a, r.b, r.c);
    const std::int64_t copies =
        std::max<std::int64_t>(1, bytes / std::max<std::int64_t>(1, static_cast<std::int64_t>(base.bytes())));
    auto fmt2 = [](double v) { return std::to_string(v).substr(0, 4); };
    p.name = "tile:rmat:" + std::to_string(r.points_or_scale) + ":" + std::to_string(static_cast<int>(r.mean_or_ef)) +
             ":" + fmt2(r.a) + "," + fmt2(r.b) + "," + fmt2(r.c) + ":" + std::to_string(s) + ":" + std::to_string(copies);
    p.A = generate_tiled<Value, std::int64_t>(base, copies);
  }
  return p;
}
}  // namespace detail

/// Probe matrices per size of a calibration (14): a profile holds this many per size (up to
/// three) and precision.
inline std::size_t calibration_probe_count() { return detail::probe_recipes().size(); }

/// Measures a machine profile on ExecSpace (a host space) in precision Value: for each probe
/// (detail::probe_recipes), CSR thread_per_row, CSR team_per_row and SELL (when its bytes stay
/// within MachineProfile::sell_memory_limit of the CSR bytes) are analyzed with the
/// model's schedule and timed in `rounds` interleaved rounds (time_interleaved); the probe
/// records the ratios (ProfileProbe::team_gain, sell_gain) and its row statistics.
/// Cost: fourteen probes of about probe_bytes each, fourteen of medium_probe_bytes and fourteen
/// of small_probe_bytes (a tile probe's one block when that is larger: up to about 800 KB; a
/// probe that comes out the same at two sizes is measured once: 41 at the defaults), three
/// plans each; on the H200's 16-core host about 30 s at the defaults (29-34 s before eb1441e's
/// sample-by-sample interleaving, 32 s after).
/// @throws Error if a plan measured a time that is not positive and finite;
///         InvalidArgument on a GPU space (its choices are ExecTraits<Cuda>'s, measured on the
///         H200), for probe sizes below 64 KiB, reps or rounds < 1, or a negative or infinite
///         min_sample_seconds.
template <class ExecSpace, class Value>
MachineProfile calibrate(const CalibrateOptions& o = {}) {
  using Traits = ExecTraits<ExecSpace>;
  using PlanT = Plan<ExecSpace, Value, std::int64_t>;
  if (Traits::is_gpu)
    throw InvalidArgument(std::string("calibrate: measures host execution spaces; ") + ExecSpace().name() +
                          " keeps its compile-time ExecTraits");
  const std::int64_t min_bytes = std::int64_t{64} << 10;
  if (o.probe_bytes < min_bytes || (o.small_probe_bytes != 0 && o.small_probe_bytes < min_bytes) ||
      (o.medium_probe_bytes != 0 && o.medium_probe_bytes < min_bytes) || o.reps < 1 || o.rounds < 1 ||
      !(o.min_sample_seconds >= 0) || !std::isfinite(o.min_sample_seconds))
    throw InvalidArgument("CalibrateOptions: probe_bytes, and medium_probe_bytes and small_probe_bytes unless 0, "
                          "must be >= 64 KiB (got " +
                          std::to_string(o.probe_bytes) + ", " + std::to_string(o.medium_probe_bytes) + " and " +
                          std::to_string(o.small_probe_bytes) +
                          "), reps and rounds >= 1, min_sample_seconds >= 0 and finite");
  MachineProfile prof;
  prof.machine = o.machine;
  prof.space = ExecSpace().name();
  prof.concurrency = ExecSpace().concurrency();
  prof.scattered_spread = Traits::scattered_sell_spread > 0 ? Traits::scattered_sell_spread : 0.1;
  {
    const std::time_t now = std::time(nullptr);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    prof.created = std::string(buf) + " by pspmv::calibrate, probes of " + std::to_string(o.probe_bytes >> 10) +
                   " KiB, " + std::to_string(o.medium_probe_bytes >> 10) + " KiB and " +
                   std::to_string(o.small_probe_bytes >> 10) + " KiB, " + std::to_string(o.reps) +
                   " reps x " + std::to_string(o.rounds) + " rounds";
  }
  const std::size_t nprobes = detail::probe_recipes().size();
  std::vector<std::int64_t> sizes{o.probe_bytes};
  if (o.medium_probe_bytes > 0) sizes.push_back(o.medium_probe_bytes);
  if (o.small_probe_bytes > 0) sizes.push_back(o.small_probe_bytes);
  for (std::size_t k = 0; k < nprobes * sizes.size(); ++k) {
    const auto probe = detail::make_probe<Value>(k % nprobes, sizes[k / nprobes], o.seed);
    // A tile probe of one copy at two sizes (its block exceeds the smaller one, so the larger
    // one also gets one copy) is the same matrix at both: measured once, in the larger set.
    bool seen = false;
    for (const auto& q : prof.probes) seen = seen || q.name == probe.name;
    if (seen) continue;
    const auto& A = probe.A;
    ProfileProbe r;
    r.name = probe.name;
    r.value_bytes = static_cast<int>(sizeof(Value));
    r.nrows = A.nrows;
    r.nnz = static_cast<std::int64_t>(A.nnz());
    r.csr_bytes = static_cast<std::int64_t>(A.bytes());
    const RowStats s = compute_row_stats(A.row_ptr.data(), A.nrows, A.ncols);
    r.mean = s.mean;
    r.cv = s.cv;
    r.col_spread = column_spread(A.row_ptr.data(), A.col_idx.data(), A.nrows, A.ncols);
    // The model's schedule (no profile): every plan below uses it, so only the format and the
    // mapping differ.
    const PlanT model(A, {});
    AnalyzeOptions base;
    base.schedule = model.schedule();
    base.format = Format::csr;
    AnalyzeOptions thread = base, team = base, sell = base;
    thread.mapping = Mapping::thread_per_row;
    team.mapping = Mapping::team_per_row;
    r.schedule = model.schedule();
    r.size_set_bytes = sizes[k / nprobes];
    std::vector<PlanT> plans{PlanT(A, thread), PlanT(A, team)};
    const SellShape shape = sell_shape(A.row_ptr.data(), A.nrows, Traits::template sell_slice_height<Value>(),
                                       std::min<std::int64_t>(std::int64_t{Traits::sell_sigma_slices} *
                                                                  Traits::template sell_slice_height<Value>(),
                                                              std::max<std::int32_t>(1, A.nrows)),
                                       0, false);
    r.sell_bytes_ratio = static_cast<double>(shape.bytes(sizeof(Value), A.nrows)) / static_cast<double>(A.bytes());
    const bool time_sell = r.sell_bytes_ratio <= prof.sell_memory_limit;
    if (time_sell) {
      sell.format = Format::sell;
      sell.mapping = Mapping::thread_per_row;
      plans.emplace_back(A, sell);
    }
    std::vector<const PlanT*> ptrs;
    for (const auto& p : plans) ptrs.push_back(&p);
    const auto t = time_interleaved<ExecSpace, Value, std::int64_t>(ptrs, o.reps, o.rounds, o.min_sample_seconds);
    for (std::size_t i = 0; i < t.size(); ++i)
      if (!(t[i] > 0) || !std::isfinite(t[i]))
        throw Error("calibrate: probe " + r.name + ": plan " + std::to_string(i) + " measured " + std::to_string(t[i]) +
                    " s per multiply; a profile needs positive finite times (a timer too coarse?)");
    r.csr_thread_seconds = t[0];
    r.csr_team_seconds = t[1];
    r.team_gain = t[0] / t[1];
    if (time_sell) {
      r.sell_seconds = t[2];
      r.sell_gain = std::min(t[0], t[1]) / t[2];
    }
    prof.probes.push_back(r);
    if (o.progress)
      o.progress(r.name + " (" + std::to_string(r.csr_bytes >> 10) + " KiB): mean " + std::to_string(r.mean).substr(0, 5) + ", cv " + std::to_string(r.cv).substr(0, 4) +
                 ", spread " + std::to_string(r.col_spread).substr(0, 5) + "; thread_per_row/team_per_row " +
                 std::to_string(r.team_gain).substr(0, 5) +
                 (time_sell ? ", best CSR/SELL " + std::to_string(r.sell_gain).substr(0, 5)
                            : ", SELL not timed (" + std::to_string(r.sell_bytes_ratio).substr(0, 4) +
                                  "x the CSR bytes)") +
                 " [" + to_string(model.schedule()) + "]");
  }
  return prof;
}

}  // namespace pspmv
