#pragma once
/// @file profile_json.hpp
/// A MachineProfile (profile.hpp) as a JSON file, through nlohmann/json (Debian's
/// nlohmann-json3-dev): what `pspmv calibrate --out FILE` writes and `--profile FILE` reads.
/// Not included by pspmv.hpp: an application that reads profiles includes it and links
/// nlohmann_json::nlohmann_json.

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "pspmv/errors.hpp"
#include "pspmv/profile.hpp"

namespace pspmv {

inline void to_json(nlohmann::json& j, const ProfileProbe& p) {
  j = {{"name", p.name}, {"value_bytes", p.value_bytes}, {"nrows", p.nrows}, {"nnz", p.nnz}, {"csr_bytes", p.csr_bytes},
       {"mean", p.mean}, {"cv", p.cv}, {"col_spread", p.col_spread}, {"team_gain", p.team_gain},
       {"sell_gain", p.sell_gain}, {"sell_bytes_ratio", p.sell_bytes_ratio},
       {"csr_thread_seconds", p.csr_thread_seconds}, {"csr_team_seconds", p.csr_team_seconds},
       {"sell_seconds", p.sell_seconds}};
}

inline void from_json(const nlohmann::json& j, ProfileProbe& p) {
  j.at("name").get_to(p.name);
  j.at("value_bytes").get_to(p.value_bytes);
  j.at("nrows").get_to(p.nrows);
  j.at("nnz").get_to(p.nnz);
  p.csr_bytes = j.value("csr_bytes", std::int64_t{0});
  j.at("mean").get_to(p.mean);
  j.at("cv").get_to(p.cv);
  j.at("col_spread").get_to(p.col_spread);
  j.at("team_gain").get_to(p.team_gain);
  j.at("sell_gain").get_to(p.sell_gain);
  p.sell_bytes_ratio = j.value("sell_bytes_ratio", 0.0);
  p.csr_thread_seconds = j.value("csr_thread_seconds", 0.0);
  p.csr_team_seconds = j.value("csr_team_seconds", 0.0);
  p.sell_seconds = j.value("sell_seconds", 0.0);
}

inline void to_json(nlohmann::json& j, const MachineProfile& m) {
  j = {{"format", "pspmv machine profile 1"}, {"machine", m.machine}, {"space", m.space},
       {"concurrency", m.concurrency}, {"created", m.created}, {"min_csr_bytes", m.min_csr_bytes},
       {"min_gain", m.min_gain}, {"max_distance", m.max_distance}, {"bandwidth", m.bandwidth}, {"prior_weight", m.prior_weight}, {"size_weight", m.size_weight}, {"sell_memory_limit", m.sell_memory_limit},
       {"scattered_spread", m.scattered_spread}, {"scattered_min_x_bytes", m.scattered_min_x_bytes}, {"probes", m.probes}};
}

inline void from_json(const nlohmann::json& j, MachineProfile& m) {
  if (j.value("format", std::string()) != "pspmv machine profile 1")
    throw InvalidArgument("not a pspmv machine profile: \"format\" is not \"pspmv machine profile 1\"");
  m.machine = j.value("machine", std::string());
  j.at("space").get_to(m.space);
  j.at("concurrency").get_to(m.concurrency);
  m.created = j.value("created", std::string());
  j.at("min_csr_bytes").get_to(m.min_csr_bytes);
  j.at("min_gain").get_to(m.min_gain);
  j.at("max_distance").get_to(m.max_distance);
  m.bandwidth = j.value("bandwidth", 0.5);
  m.prior_weight = j.value("prior_weight", 0.0);
  m.size_weight = j.value("size_weight", 0.0);  // profiles of one probe size: none  // profiles written before the prior: none
  m.sell_memory_limit = j.value("sell_memory_limit", 1.25);
  j.at("scattered_spread").get_to(m.scattered_spread);
  m.scattered_min_x_bytes = j.value("scattered_min_x_bytes", std::int64_t{0});
  j.at("probes").get_to(m.probes);
}

/// Reads a profile written by write_profile() (`pspmv calibrate --out`).
/// @throws ParseError naming the file (line 0: the whole file) if it cannot be opened, is not
///         JSON (the parser's message gives the byte position), or lacks or mistypes a key.
inline std::shared_ptr<const MachineProfile> read_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ParseError(path, 0, "cannot open machine profile");
  try {
    const auto j = nlohmann::json::parse(in);
    auto m = std::make_shared<MachineProfile>(j.get<MachineProfile>());
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw ParseError(path, 0, std::string("machine profile: ") + e.what());
  } catch (const InvalidArgument& e) {
    throw ParseError(path, 0, e.what());
  }
}

/// Writes a profile as JSON, to a temporary file renamed over `path` when complete (nothing
/// half-written).
/// @throws Error naming the file if it cannot be written.
inline void write_profile(const std::string& path, const MachineProfile& m) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) throw Error("cannot write machine profile '" + tmp + "'");
    out << nlohmann::json(m).dump(2) << "\n";
    if (!out) throw Error("cannot write machine profile '" + tmp + "'");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw Error("cannot rename '" + tmp + "' to '" + path + "'");
}

}  // namespace pspmv
