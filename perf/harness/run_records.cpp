#include "harness/run_records.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "pspmv/errors.hpp"

namespace pspmv_cli {

namespace {

using nlohmann::json;

/// Says what is wrong with record `where` of `file`.
[[noreturn]] void bad(const std::string& file, const std::string& where, const std::string& what) {
  throw pspmv::Error(file + ": " + where + ": " + what);
}

std::string text_field(const json& o, const char* key, const std::string& file, const std::string& where) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_string()) bad(file, where, std::string("no \"") + key + "\" string");
  return it->get<std::string>();
}

double number_field(const json& o, const char* key, const std::string& file, const std::string& where) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number()) bad(file, where, std::string("no \"") + key + "\" number");
  return it->get<double>();
}

std::int64_t count_field(const json& o, const char* key, const std::string& file, const std::string& where) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number_integer() || it->get<std::int64_t>() < 0)
    bad(file, where, std::string("no \"") + key + "\" count (a whole number, at least 0)");
  return it->get<std::int64_t>();
}

/// An optional number: 0 when absent or not a number.
double optional_number(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : 0.0;
}

bool optional_flag(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_boolean() && it->get<bool>();
}

std::string optional_text(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// The subcommand of a record's command line ("build/openmp/perf/pspmv compare ..."), if it is
/// one that writes records.
std::string subcommand_of(const std::string& command) {
  std::istringstream is(command);
  std::string program, sub;
  is >> program >> sub;
  return sub == "bench" || sub == "compare" || sub == "tune" ? sub : std::string();
}

/// Reads the context block: null when absent; throws when present and not of context_schema.
json read_context(const json& doc, const std::string& file, std::vector<std::string>& warnings) {
  const auto it = doc.find("context");
  if (it == doc.end() || it->is_null()) return nullptr;
  if (!it->is_object()) throw pspmv::Error(file + ": \"context\" is not an object");
  const auto s = it->find("schema");
  if (s == it->end() || !s->is_number_integer())
    throw pspmv::Error(file + ": the context block has no integer \"schema\"; this pspmv reads context schema " +
                       std::to_string(context_schema) + " and records without a context block");
  if (s->get<std::int64_t>() != context_schema)
    throw pspmv::Error(file + ": context schema " + std::to_string(s->get<std::int64_t>()) +
                       " is not compatible with this pspmv, which reads context schema " +
                       std::to_string(context_schema) + " and records without a context block");
  const auto w = it->find("warnings");
  if (w != it->end() && w->is_array())
    for (const auto& x : *w) warnings.push_back(x.is_string() ? x.get<std::string>() : x.dump());
  return *it;
}

/// bench and compare: one record per variant; per matrix and precision the fastest verified
/// pspmv variant and the fastest verified peer.
std::vector<Measure> measures_of_records(const json& records, const std::string& file) {
  std::vector<Measure> out;
  std::map<std::string, std::size_t> at;  // matrix + precision -> index in out
  for (std::size_t i = 0; i < records.size(); ++i) {
    const json& r = records[i];
    const std::string where = "records[" + std::to_string(i) + "]";
    if (!r.is_object()) bad(file, where, "not an object");
    if (optional_flag(r, "skipped")) continue;
    Measure m;
    m.matrix = text_field(r, "matrix", file, where);
    m.precision = text_field(r, "precision", file, where);
    m.space = text_field(r, "space", file, where);
    m.rows = count_field(r, "rows", file, where);
    m.nnz = count_field(r, "nnz", file, where);
    Fastest f;
    f.impl = text_field(r, "impl", file, where);
    f.variant = text_field(r, "variant", file, where);
    if (f.variant.rfind("auto", 0) == 0 && !optional_text(r, "plan").empty()) f.variant = "auto: " + optional_text(r, "plan");
    f.median_s = number_field(r, "median_s", file, where);
    f.gbs = optional_number(r, "gbs");
    f.ratio_to_floor = optional_number(r, "ratio_to_floor");
    f.noisy = optional_flag(r, "noisy");
    // A wrong or unmeasured variant is never a fastest.
    if (!optional_flag(r, "verified") || !(f.median_s > 0)) continue;
    const std::string key = m.matrix + '\x1f' + m.precision;
    auto it = at.find(key);
    if (it == at.end()) {
      m.floor_s = optional_number(r, "floor_s");
      m.floor_gbs = optional_number(r, "floor_gbs");
      it = at.emplace(key, out.size()).first;
      out.push_back(m);
    }
    Measure& into = out[it->second];
    if (into.rows != m.rows || into.nnz != m.nnz)
      bad(file, where, m.matrix + " has " + std::to_string(m.rows) + " rows and " + std::to_string(m.nnz) +
                           " nonzeros here and " + std::to_string(into.rows) + " rows and " +
                           std::to_string(into.nnz) + " nonzeros in an earlier record of the same file");
    if (f.impl == "pspmv") {
      if (into.pspmv.impl.empty() || f.median_s < into.pspmv.median_s) into.pspmv = f;
    } else if (!into.has_peer || f.median_s < into.peer.median_s) {
      into.peer = f;
      into.has_peer = true;
    }
  }
  // A matrix with only peers verified has no pspmv line to compare.
  out.erase(std::remove_if(out.begin(), out.end(), [](const Measure& m) { return m.pspmv.impl.empty(); }), out.end());
  return out;
}

/// tune: per input and precision the fastest of the plans timed together (no peers, no floor).
std::vector<Measure> measures_of_results(const json& results, const std::string& file) {
  std::vector<Measure> out;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const json& r = results[i];
    const std::string where = "results[" + std::to_string(i) + "]";
    if (!r.is_object()) bad(file, where, "not an object");
    Measure m;
    m.matrix = text_field(r, "matrix", file, where);
    m.precision = text_field(r, "precision", file, where);
    m.space = text_field(r, "space", file, where);
    m.rows = count_field(r, "rows", file, where);
    m.nnz = count_field(r, "nnz", file, where);
    m.pspmv.impl = "pspmv";
    m.pspmv.variant = text_field(r, "fastest_plan", file, where);
    m.pspmv.median_s = number_field(r, "fastest_measured_s", file, where);
    if (!(m.pspmv.median_s > 0)) continue;
    // The minimum bytes, as bench counts them: the CSR arrays, x read once, y written once.
    const auto st = r.find("stats");
    if (st != r.end() && st->is_object()) {
      const double csr = optional_number(*st, "csr_bytes"), cols = optional_number(*st, "cols");
      const double value_bytes = m.precision == "f32" ? 4.0 : m.precision == "f64" ? 8.0 : 0.0;
      if (csr > 0 && cols > 0 && value_bytes > 0)
        m.pspmv.gbs = (csr + (cols + static_cast<double>(m.rows)) * value_bytes) / m.pspmv.median_s * 1e-9;
    }
    m.pspmv.noisy = optional_flag(r, "noisy");
    for (const char* k : {"model", "tuned", "best"}) {
      const auto e = r.find(k);
      if (e != r.end() && e->is_object() && optional_flag(*e, "noisy")) m.pspmv.noisy = true;
    }
    out.push_back(m);
  }
  return out;
}

}  // namespace

std::string default_label(const json& doc, const std::string& space) {
  const bool host = space == "OpenMP" || space == "Serial" || space == "Threads" || space == "OpenMPTarget" || space.empty();
  const auto ctx = doc.find("context");
  if (ctx != doc.end() && ctx->is_object()) {
    const auto gpu = ctx->find("gpu");
    if (!host && gpu != ctx->end() && gpu->is_object() && !optional_text(*gpu, "name").empty())
      return optional_text(*gpu, "name") + " (" + space + ")";
    std::string cpu = optional_text(*ctx, "cpu_model");
    if (cpu.empty()) cpu = optional_text(*ctx, "host");
    const auto th = ctx->find("threads");
    if (th != ctx->end() && th->is_number_integer()) cpu += ", " + std::to_string(th->get<std::int64_t>()) + " threads";
    return (host ? cpu : space + " device of " + cpu) + " (" + space + ")";
  }
  // Older records: machine = "host | CPU model | N host threads".
  std::string cpu, threads;
  {
    const std::string machine = optional_text(doc, "machine");
    std::vector<std::string> parts;
    std::size_t b = 0;
    for (std::size_t e; (e = machine.find(" | ", b)) != std::string::npos; b = e + 3) parts.push_back(machine.substr(b, e - b));
    parts.push_back(machine.substr(b));
    cpu = parts.size() > 1 ? parts[1] : parts[0];
    if (parts.size() > 2) threads = parts[2].substr(0, parts[2].find(' '));
  }
  if (!host) {
    // "Kokkos::Cuda[ 0 ] NVIDIA H200 capability 9.0, ..." in bench and tune records.
    const std::string conf = optional_text(doc, "kokkos_configuration");
    const auto p = conf.find("] ");
    const auto q = conf.find(" capability", p == std::string::npos ? 0 : p);
    if (p != std::string::npos && q != std::string::npos && q > p) return conf.substr(p + 2, q - p - 2) + " (" + space + ")";
    return space + " device of " + cpu + " (" + space + ")";
  }
  return cpu + (threads.empty() ? "" : ", " + threads + " threads") + " (" + space + ")";
}

Run parse_run(const json& doc, const std::string& file, const std::string& label) {
  const std::string not_record = file + ": not a pspmv record (a JSON file of pspmv bench --json, compare or tune --json)";
  if (!doc.is_object()) throw pspmv::Error(not_record + ": the top level is no object");
  if (doc.contains("pspmv_report"))
    throw pspmv::Error(file + ": this is the merged data of pspmv report, not the record of a run; give the runs' records");
  Run run;
  run.file = file;
  const auto records = doc.find("records");
  const auto results = doc.find("results");
  const bool has_records = records != doc.end() && records->is_array();
  const bool has_results = results != doc.end() && results->is_array();
  if (has_records == has_results || !doc.contains("command"))
    throw pspmv::Error(not_record + ": it needs a \"command\" and either a \"records\" or a \"results\" array");
  run.command = optional_text(doc, "command");
  run.commit = optional_text(doc, "commit");
  run.machine = optional_text(doc, "machine");
  run.host_isa = optional_text(doc, "host_isa");
  run.kind = subcommand_of(run.command);
  if (run.kind.empty()) run.kind = has_results ? "tune" : doc.contains("summary") ? "compare" : "bench";
  run.context = read_context(doc, file, run.warnings);
  run.measures = has_records ? measures_of_records(*records, file) : measures_of_results(*results, file);
  if (run.measures.empty())
    throw pspmv::Error(file + ": holds no verified pspmv measurement (every record skipped, wrong or without a time)");
  const std::string space = run.measures.front().space;
  for (const auto& m : run.measures)
    if (m.space != space)
      throw pspmv::Error(file + ": measures two execution spaces (" + space + " and " + m.space +
                         "); a run record holds one");
  run.label = label.empty() ? default_label(doc, space) : label;
  return run;
}

Run load_run(const std::string& file, const std::string& label) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw pspmv::Error(file + ": cannot open");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    const std::size_t upto = std::min<std::size_t>(e.byte, text.size());
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(upto), '\n');
    throw pspmv::ParseError(file, line, "not a pspmv record: not valid JSON (" + std::string(e.what()) + ")");
  }
  return parse_run(doc, file, label);
}

}  // namespace pspmv_cli
