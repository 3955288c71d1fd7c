#pragma once
/// @file profile.hpp
/// A machine profile: what `pspmv calibrate` (pspmv::calibrate, calibrate.hpp) measured on one
/// machine, which analyze() reads (AnalyzeOptions::profile) for the choices that a host's
/// compile-time ExecTraits cannot make, because CPUs disagree on them.
///
/// The method is OSKI's (R. Vuduc, J. Demmel, K. Yelick, "OSKI: A library of automatically tuned
/// sparse matrix kernels", SciDAC 2005; R. Vuduc's thesis, UC Berkeley 2003, section 3): an
/// offline benchmark of the machine on synthetic matrices, done once, combined at analysis time
/// with the statistics of the user's matrix. Here the benchmark times, on synthetic probe
/// matrices of three sizes, CSR thread_per_row, CSR team_per_row (a row's entries as a host team's
/// vector lanes: independent partial sums) and SELL-C-sigma; analyze() gives a matrix the
/// choices that the probes near it in row statistics and size measured faster (estimate():
/// a kernel-weighted mean of their gains, E. A. Nadaraya, "On estimating regression", Theory
/// Probab. Appl. 9, 1964; G. S. Watson, "Smooth regression analysis", Sankhya A 26, 1964, shrunk
/// toward the machine-wide gain, W. James, C. Stein, "Estimation with quadratic loss", Proc.
/// 4th Berkeley Symp., 1961). Host execution spaces only.
///
/// Why: on the H200's 16-core Xeon host SELL ran tiled hep-th (mean 3.8, cv 1.14) at 0.72-0.95x
/// the best CSR plan's time and CSR team_per_row beat thread_per_row on R-MAT graphs by
/// 1.11-1.20x; on the 2-core EPYC development VM SELL ran the same matrix at 1.27-1.65x and
/// team_per_row gained nothing (perf/results/2026-11-30-h200-r5/README.md, section 2).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pspmv/errors.hpp"
#include "pspmv/types.hpp"
#include "pspmv/row_stats.hpp"

namespace pspmv {

/// One probe matrix of a calibration and what was measured on it.
struct ProfileProbe {
  std::string name;         ///< e.g. "tile:rmat:12:4" (how calibrate() generated it)
  int value_bytes = 8;      ///< sizeof(Value) it was timed with: 8 (double) or 4 (float)
  std::int64_t nrows = 0;       ///< rows (= columns: the probes are square)
  std::int64_t nnz = 0;         ///< stored entries
  std::int64_t csr_bytes = 0;  ///< CSR bytes (row_ptr, col_idx, values); 0: unknown (size not a feature)
  double mean = 0;          ///< RowStats::mean (nonzeros per row)
  double cv = 0;            ///< RowStats::cv (row-length coefficient of variation)
  double col_spread = 0;    ///< RowStats::col_spread (0: diagonal, ~1/3: uniformly random columns)
  /// The schedule all three plans were timed under (the model's for the probe); empty: unknown,
  /// pooled for every schedule. A gain holds for its schedule only: in one calibration of the
  /// H200's Xeon host team_per_row ran the 1 MiB probes at 0.57-0.78x thread_per_row's speed
  /// under static_chunks (a league of thousands of one-thread teams) and at 0.85-1.10x under
  /// nnz_balanced (16 teams); two later ones measured 0.79-1.01x and 0.76-0.89x
  /// (perf/results/2026-12-01-h200-r7/README.md).
  std::optional<Schedule> schedule;
  /// The CSR bytes calibrate() asked for, which names the probe's size set (CalibrateOptions::
  /// probe_bytes, medium_probe_bytes or small_probe_bytes); 0: unknown. A tile probe's own
  /// csr_bytes may lie far from it (whole blocks), so the sets are told apart by this.
  std::int64_t size_set_bytes = 0;
  /// Measured time ratios (medians of interleaved rounds; > 1: the second plan is faster):
  double team_gain = 0;     ///< CSR thread_per_row time / CSR team_per_row time
  double sell_gain = 0;     ///< best CSR time / SELL time (0: SELL exceeded the memory limit, not timed)
  double sell_bytes_ratio = 0;  ///< SELL bytes / CSR bytes of the probe
  double csr_thread_seconds = 0, csr_team_seconds = 0, sell_seconds = 0;  ///< per multiply, seconds
};

/// A machine profile: the probes of one calibration and the rules that apply them.
/// @see calibrate() (calibrate.hpp), read_profile()/write_profile() (profile_json.hpp)
struct MachineProfile {
  std::string machine;       ///< free text: the CPU and how it was run (calibrate() fills in what it knows)
  std::string space;         ///< ExecSpace().name() it was measured on, e.g. "OpenMP"
  int concurrency = 0;       ///< ExecSpace().concurrency() it was measured at (threads)
  std::string created;       ///< when and by what (free text)
  /// Matrices with fewer CSR bytes keep the compile-time model (0: every size; the probes of
  /// three sizes and size_weight decide how far a matrix's size lies from theirs).
  std::int64_t min_csr_bytes = 0;
  /// The pooled gain (estimate()) must reach this factor for analyze() to take the choice it
  /// favours (team_per_row over thread_per_row, SELL over CSR); below it the compile-time
  /// model's choice stands. 1.05: one probe's gain moved by up to 0.21 between calibrations of
  /// the H200's Xeon host, and on large local matrices the order of thread_per_row and
  /// team_per_row flipped between two machine sessions (team_per_row 0.75-1.29x as fast on the
  /// same tiles), so a pooled gain of 2-5% is no evidence. Replayed over the third run's
  /// timings, 1.05 in place of 1.02 turned 6 and 5 of 12 holdout matrices within 10% into 10 and
  /// 10 (perf/results/2026-12-01-h200-r7/README.md).
  double min_gain = 1.05;
  /// Probes within this feature distance (see distance()) take part in a matrix's estimate;
  /// a matrix with none keeps the compile-time model.
  double max_distance = 1.5;
  /// Width h of the kernel that pools the probes' gains: a probe at distance d weighs
  /// exp(-(d / h)^2), so one at distance 0.5 counts e^-1 of one at distance 0.
  double bandwidth = 0.5;
  /// Weight of the machine-wide gain (the geometric mean over the probes of the nearest probe's
  /// size set and schedule) in every estimate, in units of one probe at distance 0: the estimate
  /// shrinks toward what the whole machine does
  /// (empirical Bayes shrinkage, as in James-Stein estimation). One large probe's team_per_row
  /// gain varied by up to 0.21 between four calibrations of the H200's Xeon host and 0.15
  /// between six of the 2-core EPYC VM, more than neighbouring probes differ
  /// (perf/results/2026-11-30-h200-r6/, -cpu2-r6/).
  double prior_weight = 1.0;
  /// Where SELL ran the nearest probe faster, SELL may take up to this factor of the CSR bytes
  /// (unless the caller set AnalyzeOptions::sell_memory_limit), as the GPU's irregular rows may
  /// (ExecTraits<Cuda>::sell_memory_limit_irregular): SELL-8 of tiled hep-th needs 1.103x.
  /// calibrate() times SELL on the probes whose SELL fits within it.
  double sell_memory_limit = 1.25;
  /// Column spread from which a matrix counts as scattered (ExecTraits' scattered_sell_spread)...
  double scattered_spread = 0.1;
  /// ... if its x also exceeds this many bytes: an x within the caches costs the same wherever
  /// the columns point (4 MiB: beyond the private L2 of the cores in view).
  std::int64_t scattered_min_x_bytes = std::int64_t{4} << 20;

  /// Whether a matrix counts as scattered: col_spread (RowStats::col_spread, dimensionless) at
  /// least scattered_spread and x (ncols x value_bytes bytes) at least scattered_min_x_bytes.
  bool scattered(double col_spread, std::int64_t ncols, int value_bytes) const {
    return col_spread >= scattered_spread && ncols * value_bytes >= scattered_min_x_bytes;
  }
  std::vector<ProfileProbe> probes;

  /// Distance per doubling of the CSR size between a matrix and a probe: 0.25, so a matrix 16x
  /// larger or smaller than a probe is as far from it as one with twice its mean row length. The
  /// probes come in three sizes (CalibrateOptions): within L2, within L2 and L3, far beyond the caches.
  double size_weight = 0.25;
  /// Distance per doubling of the x reach (reach()) between a matrix and a probe; 0 (the
  /// default): the reach is no feature. Local columns differ in how far they reach: within a
  /// 64 KiB block of x the gathers of a short row hit L2, within 16 KiB L1. On the H200's Xeon
  /// host SELL ran tiled hep-th (8,361-row blocks, reach about 15 KB) 1.05-1.38x faster than
  /// CSR, yet lost on tiles of 2,048-row R-MAT graphs (reach about 5 KB) with the same mean and
  /// cv. At 0.5, measured there (perf/results/2026-12-01-h200-r7/README.md): tiles of
  /// 8,192-row R-MAT graphs (reach about 21 KB) measured SELL at 1.00-1.09x, short of hep-th's
  /// 1.14-1.23x, and 9 large tiled holdout matrices of reach below 4 KB (nearer the diagonal
  /// than any large probe) fell out of every probe's reach into the compile-time model.
  double reach_weight = 0;
  /// reach() is clamped to [64, max_reach_bytes]: beyond 1 MiB (about the private L2 of the
  /// cores in view: 1-2 MiB) a farther reach changes nothing more (scattered matrices are told apart by
  /// scattered()), and below one cache line neither.
  std::int64_t max_reach_bytes = std::int64_t{1} << 20;

  /// The x reach of a matrix, bytes: how far from the diagonal its nonzeros point on average,
  /// col_spread x ncols x value_bytes (the mean |col - row| in bytes of x, for a square matrix),
  /// clamped to [64, max_reach_bytes]. For block-diagonal matrices it is the reach within a block.
  double reach(double col_spread, std::int64_t ncols, int value_bytes) const {
    const double r = std::max(0.0, col_spread) * static_cast<double>(ncols) * value_bytes;
    return std::min(std::max(r, 64.0), static_cast<double>(std::max<std::int64_t>(max_reach_bytes, 64)));
  }

  /// Feature distance between a matrix of `csr_bytes` and a probe: |log2 of the mean-length
  /// ratio| + |log2 of the (1 + cv) ratio| + 2 if one has scattered columns and the other not +
  /// size_weight x |log2 of the size ratio| (when the probe's size is known) + reach_weight x
  /// |log2 of the x-reach ratio| (reach()). 1.0 is, for example, a mean twice the probe's at the
  /// same cv, locality and size.
  double distance(const RowStats& s, std::int64_t csr_bytes, const ProfileProbe& p) const {
    const double m = std::max(s.mean, 1e-3), pm = std::max(p.mean, 1e-3);
    const bool matrix_scattered = scattered(s.col_spread, s.ncols, p.value_bytes);
    const bool probe_scattered = scattered(p.col_spread, p.nrows, p.value_bytes);
    const double size = p.csr_bytes > 0 && csr_bytes > 0
                            ? size_weight * std::fabs(std::log2(static_cast<double>(csr_bytes) /
                                                                static_cast<double>(p.csr_bytes)))
                            : 0.0;
    const double reach_term =
        reach_weight * std::fabs(std::log2(reach(s.col_spread, s.ncols, p.value_bytes) /
                                           reach(p.col_spread, p.nrows, p.value_bytes)));
    return std::fabs(std::log2(m / pm)) + std::fabs(std::log2((1 + s.cv) / (1 + p.cv))) +
           (matrix_scattered != probe_scattered ? 2.0 : 0.0) + size + reach_term;
  }

  /// Whether a probe's gains hold for a plan of `schedule` (empty: any): the probe was timed
  /// under it, or its schedule is unknown.
  static bool same_schedule(const ProfileProbe& p, const std::optional<Schedule>& schedule) {
    return !schedule || !p.schedule || *p.schedule == *schedule;
  }

  /// The probe nearest to a matrix of these statistics among those timed with value_bytes (and,
  /// when `schedule` is given, under that schedule; see same_schedule()), or nullptr if none
  /// lies within max_distance or the matrix has fewer than min_csr_bytes. `dist`, when given,
  /// receives the distance of the probe returned.
  const ProfileProbe* nearest(const RowStats& s, int value_bytes, std::int64_t csr_bytes,
                              double* dist = nullptr, const std::optional<Schedule>& schedule = std::nullopt) const {
    if (csr_bytes < min_csr_bytes) return nullptr;
    const ProfileProbe* best = nullptr;
    double d_best = 0;
    for (const auto& p : probes) {
      if (p.value_bytes != value_bytes || !same_schedule(p, schedule)) continue;
      const double d = distance(s, csr_bytes, p);
      if (d <= max_distance && (best == nullptr || d < d_best)) {
        best = &p;
        d_best = d;
      }
    }
    if (dist) *dist = d_best;
    return best;
  }

  /// The gains the profile predicts for a matrix (see estimate()).
  struct Estimate {
    const ProfileProbe* nearest = nullptr;  ///< nullptr: no probe within max_distance (or too small a matrix)
    double distance = 0;                    ///< of the nearest probe
    int probes = 0;                         ///< probes within max_distance
    double team_gain = 0;                   ///< pooled thread_per_row time / team_per_row time
    double sell_gain = 0;                   ///< pooled best CSR time / SELL time over the probes that timed SELL (0: none)
  };

  /// Kernel regression of the probes' gains (Nadaraya-Watson): the weighted geometric mean over
  /// the probes timed with value_bytes (under `schedule`, when given: the schedule the matrix's
  /// plan will run, see same_schedule()) within max_distance of the matrix, weight exp(-(d/h)^2),
  /// h = bandwidth, together with the machine-wide geometric mean at weight prior_weight. One
  /// probe's measurement is noisy by several percent; its neighbours' and the machine's agreement
  /// is the signal. Empty (nearest == nullptr) below min_csr_bytes or with no probe in reach.
  Estimate estimate(const RowStats& s, int value_bytes, std::int64_t csr_bytes,
                    const std::optional<Schedule>& schedule = std::nullopt) const {
    Estimate e;
    e.nearest = nearest(s, value_bytes, csr_bytes, &e.distance, schedule);
    if (e.nearest == nullptr) return e;
    const double h = bandwidth > 0 ? bandwidth : 1e-9;
    double wt = 0, lt = 0, ws = 0, ls = 0;  // local weights and weighted log gains
    double gt = 0, gs = 0;                   // machine-wide log gains (sums), the prior
    int nt = 0, ns = 0;
    // The prior is the machine's behaviour at the nearest probe's scale: the probes of its size
    // set (the same size_set_bytes; where that is unknown, within 3x of its CSR bytes), not those
    // of the others (in-cache and out-of-cache gains differ: on the H200's host the small probes'
    // team_per_row gains were 0.73-1.03, the large ones' 0.96-1.11,
    // perf/results/2026-11-30-h200-r6/ run 4).
    auto same_scale = [&](const ProfileProbe& p) {
      if (p.size_set_bytes > 0 && e.nearest->size_set_bytes > 0) return p.size_set_bytes == e.nearest->size_set_bytes;
      if (p.csr_bytes <= 0 || e.nearest->csr_bytes <= 0) return true;
      const double r = static_cast<double>(p.csr_bytes) / static_cast<double>(e.nearest->csr_bytes);
      return r < 3 && r > 1.0 / 3;
    };
    for (const auto& p : probes) {
      if (p.value_bytes != value_bytes || !same_schedule(p, schedule)) continue;
      if (same_scale(p) && p.team_gain > 0) gt += std::log(p.team_gain), ++nt;
      if (same_scale(p) && p.sell_gain > 0) gs += std::log(p.sell_gain), ++ns;
      const double d = distance(s, csr_bytes, p);
      if (d > max_distance) continue;
      const double w = std::exp(-(d / h) * (d / h));
      ++e.probes;
      if (p.team_gain > 0) wt += w, lt += w * std::log(p.team_gain);
      if (p.sell_gain > 0) ws += w, ls += w * std::log(p.sell_gain);
    }
    // The prior joins an estimate that has local evidence (SELL: a probe in reach that timed it).
    // Weights of far probes can underflow to 0: the nearest probe alone then decides.
    const double pt = nt > 0 ? prior_weight : 0, ps = ns > 0 ? prior_weight : 0;
    e.team_gain = wt > 0 ? std::exp((lt + pt * gt / std::max(nt, 1)) / (wt + pt)) : e.nearest->team_gain;
    e.sell_gain = ws > 0 ? std::exp((ls + ps * gs / std::max(ns, 1)) / (ws + ps)) : e.nearest->sell_gain;
    return e;
  }

  /// Throws unless the rule parameters and the probes are in range: min_gain and
  /// sell_memory_limit >= 1, max_distance, size_weight, prior_weight, reach_weight,
  /// scattered_min_x_bytes and min_csr_bytes >= 0, bandwidth > 0, max_reach_bytes >= 64; every
  /// probe of value_bytes 4 or 8 with finite gains >= 0
  /// and mean >= 0.
  /// @throws InvalidArgument naming the parameter or the probe (index and name).
  void validate() const {
    auto finite_at_least = [](double v, double lo) { return std::isfinite(v) && v >= lo; };
    if (!finite_at_least(min_gain, 1) || !finite_at_least(sell_memory_limit, 1) ||
        !finite_at_least(max_distance, 0) || !finite_at_least(size_weight, 0) ||
        !finite_at_least(prior_weight, 0) || !finite_at_least(reach_weight, 0) ||
        !(std::isfinite(bandwidth) && bandwidth > 0) || scattered_min_x_bytes < 0 || min_csr_bytes < 0 ||
        max_reach_bytes < 64)
      throw InvalidArgument("machine profile (" + machine + "): min_gain " + std::to_string(min_gain) +
                            " and sell_memory_limit " + std::to_string(sell_memory_limit) +
                            " must be >= 1; max_distance " + std::to_string(max_distance) + ", size_weight " +
                            std::to_string(size_weight) + ", prior_weight " + std::to_string(prior_weight) +
                            ", reach_weight " + std::to_string(reach_weight) + ", scattered_min_x_bytes " +
                            std::to_string(scattered_min_x_bytes) + " and min_csr_bytes " +
                            std::to_string(min_csr_bytes) + " >= 0; bandwidth " + std::to_string(bandwidth) +
                            " > 0; max_reach_bytes " + std::to_string(max_reach_bytes) + " >= 64");
    for (std::size_t i = 0; i < probes.size(); ++i) {
      const auto& p = probes[i];
      if ((p.value_bytes != 4 && p.value_bytes != 8) || !finite_at_least(p.team_gain, 0) ||
          !finite_at_least(p.sell_gain, 0) || !finite_at_least(p.mean, 0) || !finite_at_least(p.cv, 0))
        throw InvalidArgument("machine profile (" + machine + "): probe " + std::to_string(i) + " (" + p.name +
                              ") needs value_bytes 4 or 8 and finite gains, mean and cv >= 0; got value_bytes " +
                              std::to_string(p.value_bytes) + ", team_gain " + std::to_string(p.team_gain) +
                              ", sell_gain " + std::to_string(p.sell_gain) + ", mean " + std::to_string(p.mean));
    }
  }

  /// Throws unless the profile was measured on this execution space at this concurrency (a
  /// 16-thread profile says nothing about 2 threads) and validate() passes.
  /// @throws InvalidArgument naming both spaces or both thread counts, or what validate() names.
  void check(const std::string& space_name, int threads) const {
    if (space_name != space || threads != concurrency)
      throw InvalidArgument("machine profile (" + machine + ") was calibrated on " + space + " with " +
                            std::to_string(concurrency) + " threads; this plan runs on " + space_name + " with " +
                            std::to_string(threads) + " threads: run `pspmv calibrate` for this configuration");
    validate();
  }
};

}  // namespace pspmv
