#include "harness/records.hpp"

#include <fmt/format.h>

#include <sstream>

namespace pspmv_cli {

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
  r.gflops = t.median_s > 0 ? 2.0 * static_cast<double>(r.nnz) / t.median_s * 1e-9 : 0;
  r.gbs = t.median_s > 0 ? r.bytes / t.median_s * 1e-9 : 0;
  r.floor_gbs = r.floor_s > 0 ? r.bytes / r.floor_s * 1e-9 : 0;
  r.ratio_to_floor = r.floor_s > 0 ? t.median_s / r.floor_s : 0;
  r.max_rel_err = t.max_rel_err;
  r.verified = t.verified;
  return r;
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
          {"median_s", r.median_s},   {"min_s", r.min_s},         {"gflops", r.gflops},
          {"min_bytes", r.bytes},     {"gbs", r.gbs},             {"floor_s", r.floor_s},
          {"floor_gbs", r.floor_gbs}, {"floor_method", r.floor_method},
          {"ratio_to_floor", r.ratio_to_floor}, {"max_rel_err", r.max_rel_err}, {"verified", r.verified},
          {"skipped", r.skipped},     {"unplanned", r.unplanned}};
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
         "gflops,min_bytes,gbs,floor_s,floor_gbs,ratio_to_floor,max_rel_err,verified\n";
}

std::string to_csv(const Record& r) {
  return fmt::format("{},{},{},{},{},{},{},{},{},{:.6e},{},{},{:.6e},{:.6e},{:.4f},{:.0f},{:.4f},{:.6e},{:.4f},{:.4f},{:.3e},{}\n",
                     r.matrix, r.space, r.precision, r.impl, r.variant, r.rows, r.cols, r.nnz, r.offset_bits,
                     r.analyze_s, r.warmups, r.reps, r.median_s, r.min_s, r.gflops, r.bytes, r.gbs, r.floor_s,
                     r.floor_gbs, r.ratio_to_floor, r.max_rel_err, r.verified ? "true" : "false");
}

}  // namespace pspmv_cli
