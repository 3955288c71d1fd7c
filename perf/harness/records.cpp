#include "harness/records.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>
#include <sstream>

namespace pspmv_cli {

namespace {

/// The q-quantile (0..1) of sorted samples, linear between order statistics.
double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

Timing timing_of(std::vector<double> samples) {
  Timing t;
  if (samples.empty()) return t;
  std::sort(samples.begin(), samples.end());
  const double n = static_cast<double>(samples.size());
  t.min_s = samples.front();
  t.median_s = quantile(samples, 0.5);
  t.iqr_s = quantile(samples, 0.75) - quantile(samples, 0.25);
  const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
  double ss = 0;
  for (const double x : samples) ss += (x - mean) * (x - mean);
  t.cv = mean > 0 ? std::sqrt(ss / n) / mean : 0;
  return t;
}

void mark_noise(Record& r, double load, double load_limit) {
  if (r.skipped) return;
  std::vector<std::string> why;
  if (r.min_s > 0 && r.median_s / r.min_s > noisy_median_over_min)
    why.push_back(fmt::format("median/min {:.2f} > {}", r.median_s / r.min_s, noisy_median_over_min));
  // The floor is a streamed read of the same bytes: it bounds a multiply whose bytes come from
  // memory, not one of a small input that the caches hold (8 MiB, as docs/benchmarking.md says).
  // A plan of known bytes is bounded by the lower of CSR's floor and the floor of the bytes it
  // stores (compressed columns store fewer than CSR; a padded SELL plan stores more than it
  // reads): below both, the timing cannot be a memory-bound multiply.
  const bool moved = r.ratio_to_moved_floor > 0;
  const double ratio = moved ? std::max(r.ratio_to_floor, r.ratio_to_moved_floor) : r.ratio_to_floor;
  if (ratio > 0 && ratio < 1 && r.bytes >= floor_bound_bytes)
    // Three decimals: a ratio just below 1 would read 1.00 at two.
    why.push_back(moved ? fmt::format("below the floor ({:.3f}x; {:.3f}x of the floor of the plan's bytes)",
                                      r.ratio_to_floor, r.ratio_to_moved_floor)
                        : fmt::format("below the floor ({:.3f}x)", r.ratio_to_floor));
  if (load >= 0 && load > load_limit)
    why.push_back(fmt::format("load average {:.2f} above {:.0f}", load, load_limit));
  for (const auto& w : why) {
    if (!r.noise.empty()) r.noise += "; ";
    r.noise += w;
  }
  r.noisy = r.noisy || !why.empty();
}

std::string noise_warning(const Record& r) {
  // The load alone is the run's warning (context.hpp run_warnings), not one line per timing.
  if (!r.noisy || (r.noise.find("median/min") == std::string::npos && r.noise.find("below the floor") == std::string::npos))
    return "";
  return fmt::format("pspmv: warning: {} {} {} {}: noisy timing ({})\n", r.matrix, r.precision, r.impl, r.variant,
                     r.noise);
}

std::string csv_field(const std::string& s) {
  const bool quote = s.find_first_of(",\"\r\n") != std::string::npos ||
                     (!s.empty() && (std::isspace(static_cast<unsigned char>(s.front())) ||
                                     std::isspace(static_cast<unsigned char>(s.back()))));
  if (!quote) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

Record complete(Record r, const std::string& impl, const std::string& variant, const std::string& plan,
                const std::string& reason, double analyze_s, const Timing& t, const std::string& unplanned) {
  r.impl = impl;
  r.variant = variant;
  r.plan = plan;
  r.reason = reason;
  r.unplanned = unplanned;
  r.analyze_s = analyze_s;
  r.median_s = t.median_s;
  r.min_s = t.min_s;
  r.iqr_s = t.iqr_s;
  r.time_cv = t.cv;
  r.sample_calls = t.calls;
  r.gflops = t.median_s > 0 ? 2.0 * static_cast<double>(r.nnz) * r.vectors / t.median_s * 1e-9 : 0;
  r.gbs = t.median_s > 0 ? r.bytes / t.median_s * 1e-9 : 0;
  r.floor_gbs = r.floor_s > 0 ? r.bytes / r.floor_s * 1e-9 : 0;
  r.ratio_to_floor = r.floor_s > 0 ? t.median_s / r.floor_s : 0;
  r.max_rel_err = t.max_rel_err;
  r.verified = t.verified;
  return r;
}

void set_plan_bytes(Record& r, double plan_bytes, double csr_bytes, double vector_bytes) {
  r.plan_bytes = plan_bytes;
  r.compression_ratio = plan_bytes > 0 ? csr_bytes / plan_bytes : 0;
  r.moved_bytes = plan_bytes + vector_bytes;
  r.moved_floor_s = r.floor_gbs > 0 ? r.moved_bytes / (r.floor_gbs * 1e9) : 0;
  r.ratio_to_moved_floor = r.moved_floor_s > 0 ? r.median_s / r.moved_floor_s : 0;
}

void set_pair(Record& r, const std::string& with, const Timing& own, const Timing& other) {
  r.paired_with = with;
  r.paired_s = own.median_s;
  r.paired_min_s = own.min_s;
  r.paired_iqr_s = own.iqr_s;
  r.paired_cv = own.cv;
  r.paired_other_s = other.median_s;
  r.paired_other_min_s = other.min_s;
  r.paired_other_iqr_s = other.iqr_s;
  r.paired_other_cv = other.cv;
  r.paired_calls = own.calls;
  r.paired_other_calls = other.calls;
  // The ratios read from the pair are only as good as its two sides' timings.
  for (const auto& [side, t] : {std::pair<std::string, Timing>{r.variant, own}, std::pair<std::string, Timing>{with, other}})
    if (t.min_s > 0 && t.median_s / t.min_s > noisy_median_over_min) {
      if (!r.noise.empty()) r.noise += "; ";
      r.noise += fmt::format("interleaved pair, {}: median/min {:.2f} > {}", side, t.median_s / t.min_s,
                             noisy_median_over_min);
      r.noisy = true;
    }
}

void set_pair_auto(Record& r, const Timing& automatic) {
  r.paired_auto_s = automatic.median_s;
  r.paired_auto_calls = automatic.calls;
  r.paired_auto_min_s = automatic.min_s;
  if (automatic.min_s > 0 && automatic.median_s / automatic.min_s > noisy_median_over_min) {
    if (!r.noise.empty()) r.noise += "; ";
    r.noise += fmt::format("interleaved rounds, pspmv auto: median/min {:.2f} > {}",
                           automatic.median_s / automatic.min_s, noisy_median_over_min);
    r.noisy = true;
  }
}

Record skipped(Record base, const std::string& impl, const std::string& variant, const std::string& why) {
  Record r = complete(std::move(base), impl, variant, why, "", 0.0, Timing{}, "");
  r.skipped = true;
  return r;
}

std::string mismatch(const std::string& command, const Record& r) {
  std::ostringstream os;
  os << "pspmv " << command << ": " << r.matrix << " " << r.precision << " " << r.impl << " " << r.variant
     << " did not match the reference (max rel err " << r.max_rel_err << ")\n";
  return os.str();
}

nlohmann::json to_json(const Record& r) {
  nlohmann::json j = {{"matrix", r.matrix},       {"space", r.space},         {"precision", r.precision},
          {"impl", r.impl},           {"variant", r.variant},     {"plan", r.plan},
          {"reason", r.reason},       {"rows", r.rows},           {"cols", r.cols},
          {"nnz", r.nnz},             {"mean_row", r.mean_len},   {"max_row", r.max_len},
          {"cv_row", r.cv},           {"offset_bits", r.offset_bits},
          {"analyze_s", r.analyze_s}, {"warmups", r.warmups},     {"reps", r.reps},
          {"median_s", r.median_s},   {"min_s", r.min_s},         {"iqr_s", r.iqr_s},
          {"cv", r.time_cv},          {"min_sample_s", r.min_sample_s}, {"sample_calls", r.sample_calls},
          {"noisy", r.noisy},         {"noise", r.noise},
          {"gflops", r.gflops},       {"vectors", r.vectors},
          {"min_bytes", r.bytes},     {"gbs", r.gbs},             {"floor_s", r.floor_s},
          {"floor_gbs", r.floor_gbs}, {"floor_method", r.floor_method},
          {"ratio_to_floor", r.ratio_to_floor}, {"max_rel_err", r.max_rel_err}, {"verified", r.verified},
          {"plan_bytes", r.plan_bytes}, {"compression_ratio", r.compression_ratio},
          {"moved_bytes", r.moved_bytes}, {"moved_floor_s", r.moved_floor_s},
          {"ratio_to_moved_floor", r.ratio_to_moved_floor},
          {"skipped", r.skipped},     {"unplanned", r.unplanned},
          {"interleaved", r.paired_with.empty() ? nlohmann::json(nullptr)
                                                : nlohmann::json{{"with", r.paired_with},
                                                                 {"median_s", r.paired_s},
                                                                 {"min_s", r.paired_min_s},
                                                                 {"iqr_s", r.paired_iqr_s},
                                                                 {"cv", r.paired_cv},
                                                                 {"other_median_s", r.paired_other_s},
                                                                 {"other_min_s", r.paired_other_min_s},
                                                                 {"other_iqr_s", r.paired_other_iqr_s},
                                                                 {"other_cv", r.paired_other_cv},
                                                                 {"calls", r.paired_calls},
                                                                 {"other_calls", r.paired_other_calls},
                                                                 {"auto_median_s", r.paired_auto_s},
                                                                 {"auto_calls", r.paired_auto_calls},
                                                                 {"auto_min_s", r.paired_auto_min_s}}}};
  if (!r.analysis_phases.empty()) {
    nlohmann::json phases = nlohmann::json::object();
    for (const auto& [name, seconds] : r.analysis_phases) phases[name] = seconds;
    j["analysis_phases_s"] = phases;
    if (r.median_s > 0) j["analyze_over_multiply"] = r.analyze_s / r.median_s;
  }
  return j;
}

std::string csv_header() {
  return "matrix,space,precision,impl,variant,rows,cols,nnz,offset_bits,analyze_s,warmups,reps,median_s,min_s,"
         "iqr_s,cv,gflops,min_bytes,gbs,floor_s,floor_gbs,ratio_to_floor,max_rel_err,verified,noisy,noise,plan_bytes,"
         "compression_ratio,moved_bytes,moved_floor_s,ratio_to_moved_floor,min_sample_s,sample_calls\n";
}

std::string to_csv(const Record& r) {
  return fmt::format(
      "{},{},{},{},{},{},{},{},{},{:.6e},{},{},{:.6e},{:.6e},{:.6e},{:.4f},{:.4f},{:.0f},{:.4f},{:.6e},{:.4f},{:.4f},{:.3e},{},{},{},{:.0f},{:.4f},{:.0f},{:.6e},{:.4f},{:.6e},{}\n",
      csv_field(r.matrix), csv_field(r.space), csv_field(r.precision), csv_field(r.impl), csv_field(r.variant), r.rows,
      r.cols, r.nnz, r.offset_bits, r.analyze_s, r.warmups, r.reps, r.median_s, r.min_s, r.iqr_s, r.time_cv, r.gflops,
      r.bytes, r.gbs, r.floor_s, r.floor_gbs, r.ratio_to_floor, r.max_rel_err, r.verified ? "true" : "false",
      r.noisy ? "true" : "false", csv_field(r.noise), r.plan_bytes, r.compression_ratio, r.moved_bytes, r.moved_floor_s,
      r.ratio_to_moved_floor, r.min_sample_s, r.sample_calls);
}

}  // namespace pspmv_cli
