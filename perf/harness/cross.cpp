#include "harness/cross.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "pspmv/errors.hpp"

namespace pspmv_cli {

double geometric_mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}

double speedup_over_reference(const CrossReport& r, const MatrixRow& row, std::size_t machine) {
  const Cell& ref = row.cells[r.reference];
  const Cell& c = row.cells[machine];
  if (!ref.present || !c.present) return 0;
  return ref.m.pspmv.median_s / c.m.pspmv.median_s;
}

double pspmv_over_peer(const Cell& c) {
  return c.present && c.m.has_peer ? c.m.peer.median_s / c.m.pspmv.median_s : 0;
}

double floor_reached(const Cell& c) { return c.present && c.m.floor_s > 0 ? c.m.floor_s / c.m.pspmv.median_s : 0; }

namespace {

PrecisionSummary summarize_precision(const CrossReport& r, const std::string& precision) {
  PrecisionSummary p;
  p.precision = precision;
  const std::size_t n = r.machines.size();
  p.machines.resize(n);
  std::vector<std::vector<double>> peer(n), ref(n), floor(n);
  std::vector<std::vector<std::vector<double>>> pair(n, std::vector<std::vector<double>>(n));
  for (const auto& row : r.rows) {
    if (!row.shared || row.precision != precision) continue;
    ++p.shared;
    for (std::size_t i = 0; i < n; ++i) {
      const Cell& c = row.cells[i];
      auto& s = p.machines[i];
      ++s.matrices;
      if (c.noisy) ++s.noisy;
      if (const double v = pspmv_over_peer(c); v > 0) {
        peer[i].push_back(v);
        if (v > 1) ++s.peer_wins;
      }
      ref[i].push_back(speedup_over_reference(r, row, i));
      if (const double f = floor_reached(c); f > 0) floor[i].push_back(f);
      for (std::size_t j = 0; j < n; ++j) pair[i][j].push_back(row.cells[j].m.pspmv.median_s / c.m.pspmv.median_s);
    }
  }
  p.pairwise.assign(n, std::vector<double>(n, 0));
  for (std::size_t i = 0; i < n; ++i) {
    auto& s = p.machines[i];
    s.over_peer = geometric_mean(peer[i]);
    s.peer_matrices = static_cast<int>(peer[i].size());
    s.over_reference = geometric_mean(ref[i]);
    s.floor_reached = geometric_mean(floor[i]);
    s.floor_matrices = static_cast<int>(floor[i].size());
    for (std::size_t j = 0; j < n; ++j) p.pairwise[i][j] = geometric_mean(pair[i][j]);
  }
  return p;
}

}  // namespace

CrossReport cross_report(std::vector<Run> runs, const std::string& reference) {
  CrossReport r;
  r.runs = std::move(runs);
  std::map<std::string, std::size_t> machine_of;  // label -> index
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    const Run& run = r.runs[k];
    auto it = machine_of.find(run.label);
    if (it == machine_of.end()) {
      it = machine_of.emplace(run.label, r.machines.size()).first;
      r.machines.push_back({run.label, run.measures.front().space, {}});
    } else if (r.machines[it->second].space != run.measures.front().space) {
      throw pspmv::InvalidArgument(run.file + ": labelled \"" + run.label + "\" like " +
                                   r.runs[r.machines[it->second].runs.front()].file + ", but measures " +
                                   run.measures.front().space + " where that one measures " +
                                   r.machines[it->second].space + "; give each machine and space its own label");
    }
    r.machines[it->second].runs.push_back(k);
  }
  if (r.machines.empty()) throw pspmv::InvalidArgument("report: no run records given");
  if (reference.empty()) {
    r.reference = 0;
  } else {
    const auto it = machine_of.find(reference);
    if (it == machine_of.end()) {
      std::string known;
      for (const auto& m : r.machines) known += (known.empty() ? "\"" : ", \"") + m.label + "\"";
      throw pspmv::InvalidArgument("--reference \"" + reference + "\" names no machine of these runs (they are " + known + ")");
    }
    r.reference = it->second;
  }

  // Rows keyed by name, precision, rows and nnz; the first run of a machine to measure one wins.
  const std::size_t n = r.machines.size();
  std::map<std::string, std::size_t> row_of;
  std::map<std::string, std::set<std::string>> sizes_of;  // name + precision -> distinct size keys
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    const Run& run = r.runs[k];
    const std::size_t mi = machine_of.at(run.label);
    for (const auto& m : run.measures) {
      const std::string name_key = m.matrix + '\x1f' + m.precision;
      const std::string key = name_key + '\x1f' + std::to_string(m.rows) + '\x1f' + std::to_string(m.nnz);
      sizes_of[name_key].insert(key);
      auto it = row_of.find(key);
      if (it == row_of.end()) {
        it = row_of.emplace(key, r.rows.size()).first;
        MatrixRow row;
        row.matrix = m.matrix;
        row.precision = m.precision;
        row.rows = m.rows;
        row.nnz = m.nnz;
        row.cells.resize(n);
        r.rows.push_back(std::move(row));
      }
      Cell& c = r.rows[it->second].cells[mi];
      if (c.present) {
        r.duplicates.push_back(m.matrix + " " + m.precision + " on " + run.label + " in " + run.file + " (kept: " +
                               r.runs[c.run].file + ")");
        continue;
      }
      c.present = true;
      c.run = k;
      c.m = m;
      c.noisy = m.pspmv.noisy || (m.has_peer && m.peer.noisy) || !run.warnings.empty();
    }
  }
  for (auto& row : r.rows) {
    row.shared = true;
    for (const auto& c : row.cells) row.shared = row.shared && c.present;
  }
  for (const auto& [name_key, keys] : sizes_of) {
    if (keys.size() < 2) continue;
    Mismatch mm;
    for (const auto& row : r.rows) {
      if (row.matrix + '\x1f' + row.precision != name_key) continue;
      mm.matrix = row.matrix;
      mm.precision = row.precision;
      for (std::size_t i = 0; i < n; ++i)
        if (row.cells[i].present)
          mm.sizes.push_back(r.machines[i].label + ": " + std::to_string(row.rows) + " rows, " +
                             std::to_string(row.nnz) + " nnz");
    }
    r.mismatches.push_back(mm);
  }

  std::vector<std::string> precisions;
  for (const auto& row : r.rows)
    if (row.shared && std::find(precisions.begin(), precisions.end(), row.precision) == precisions.end())
      precisions.push_back(row.precision);
  if (precisions.empty()) {
    std::string what = "report: no matrix (name, precision, rows and nnz alike) is in every run:";
    for (const auto& run : r.runs) {
      what += "\n  " + run.file + " (" + run.label + "): ";
      for (std::size_t i = 0; i < run.measures.size() && i < 4; ++i)
        what += (i ? ", " : "") + run.measures[i].matrix + " " + run.measures[i].precision + " (" +
                std::to_string(run.measures[i].rows) + " rows, " + std::to_string(run.measures[i].nnz) + " nnz)";
      if (run.measures.size() > 4) what += ", ... (" + std::to_string(run.measures.size()) + " in all)";
    }
    throw pspmv::Error(what);
  }
  for (const auto& p : precisions) r.summaries.push_back(summarize_precision(r, p));
  return r;
}

}  // namespace pspmv_cli
