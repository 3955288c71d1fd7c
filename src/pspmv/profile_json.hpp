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
       {"mean", p.mean}, {"cv", p.cv}, {"col_spread", p.col_spread},
       {"schedule", p.schedule ? to_string(*p.schedule) : std::string()}, {"size_set_bytes", p.size_set_bytes},
       {"team_gain", p.team_gain},
       {"sell_gain", p.sell_gain}, {"sell_bytes_ratio", p.sell_bytes_ratio},
       {"csr_thread_seconds", p.csr_thread_seconds}, {"csr_team_seconds", p.csr_team_seconds},
       {"sell_seconds", p.sell_seconds}};
}

inline void from_json(const nlohmann::json& j, ProfileProbe& p) {
  j.at("name").get_to(p.name);
  j.at("value_bytes").get_to(p.value_bytes);
  j.at("nrows").get_to(p.nrows);
  j.at("nnz").get_to(p.nnz);
  j.at("csr_bytes").get_to(p.csr_bytes);
  j.at("mean").get_to(p.mean);
  j.at("cv").get_to(p.cv);
  j.at("col_spread").get_to(p.col_spread);
  const std::string schedule = j.at("schedule").get<std::string>();
  try {
    p.schedule = schedule.empty() ? std::nullopt : std::optional<Schedule>(parse_schedule(schedule));
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("probe " + p.name + ": " + e.what());
  }
  j.at("size_set_bytes").get_to(p.size_set_bytes);
  j.at("team_gain").get_to(p.team_gain);
  j.at("sell_gain").get_to(p.sell_gain);
  j.at("sell_bytes_ratio").get_to(p.sell_bytes_ratio);
  j.at("csr_thread_seconds").get_to(p.csr_thread_seconds);
  j.at("csr_team_seconds").get_to(p.csr_team_seconds);
  j.at("sell_seconds").get_to(p.sell_seconds);
}

/// The format string of the file: version 4 (pooled estimates; each probe with its size set
/// and the schedule it was timed under, "" for unknown; the x reach a feature). Versions 1-3
/// (nearest-probe rules; no size set, no schedule or no reach) are refused: calibrate again.
inline const char* profile_format() { return "pspmv machine profile 4"; }

inline void to_json(nlohmann::json& j, const MachineProfile& m) {
  j = {{"format", profile_format()},
       {"machine", m.machine},
       {"space", m.space},
       {"concurrency", m.concurrency},
       {"created", m.created},
       {"min_csr_bytes", m.min_csr_bytes},
       {"min_gain", m.min_gain},
       {"max_distance", m.max_distance},
       {"bandwidth", m.bandwidth},
       {"prior_weight", m.prior_weight},
       {"size_weight", m.size_weight},
       {"reach_weight", m.reach_weight},
       {"max_reach_bytes", m.max_reach_bytes},
       {"sell_memory_limit", m.sell_memory_limit},
       {"scattered_spread", m.scattered_spread},
       {"scattered_min_x_bytes", m.scattered_min_x_bytes},
       {"probes", m.probes}};
}

inline void from_json(const nlohmann::json& j, MachineProfile& m) {
  const std::string format = j.value("format", std::string());
  if (format != profile_format())
    throw InvalidArgument("not a pspmv machine profile of this version: \"format\" is \"" + format +
                          "\", expected \"" + profile_format() + "\" (run `pspmv calibrate` again)");
  // Every key is required: a missing one is an error, never a silent default.
  j.at("machine").get_to(m.machine);
  j.at("space").get_to(m.space);
  j.at("concurrency").get_to(m.concurrency);
  j.at("created").get_to(m.created);
  j.at("min_csr_bytes").get_to(m.min_csr_bytes);
  j.at("min_gain").get_to(m.min_gain);
  j.at("max_distance").get_to(m.max_distance);
  j.at("bandwidth").get_to(m.bandwidth);
  j.at("prior_weight").get_to(m.prior_weight);
  j.at("size_weight").get_to(m.size_weight);
  j.at("reach_weight").get_to(m.reach_weight);
  j.at("max_reach_bytes").get_to(m.max_reach_bytes);
  j.at("sell_memory_limit").get_to(m.sell_memory_limit);
  j.at("scattered_spread").get_to(m.scattered_spread);
  j.at("scattered_min_x_bytes").get_to(m.scattered_min_x_bytes);
  j.at("probes").get_to(m.probes);
}

/// Reads a profile written by write_profile() (`pspmv calibrate --out`).
/// @throws ParseError naming the file (line 0: the whole file) if it cannot be opened, is not
///         JSON (the parser's message gives the byte position), is of another format version,
///         lacks or mistypes a key, or holds a parameter or probe out of range
///         (MachineProfile::validate()).
inline std::shared_ptr<const MachineProfile> read_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ParseError(path, 0, "cannot open machine profile");
  try {
    const auto j = nlohmann::json::parse(in);
    auto m = std::make_shared<MachineProfile>(j.get<MachineProfile>());
    m->validate();
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw ParseError(path, 0, std::string("machine profile: ") + e.what());
  } catch (const InvalidArgument& e) {
    throw ParseError(path, 0, e.what());
  }
}

/// Writes a profile as JSON, to `path`.tmp renamed over `path` when complete (nothing
/// half-written; the temporary file is removed on failure).
/// @throws Error naming `path` if it cannot be written.
inline void write_profile(const std::string& path, const MachineProfile& m) {
  const std::string tmp = path + ".tmp";
  bool ok = false;
  {
    std::ofstream out(tmp);
    if (out) {
      out << nlohmann::json(m).dump(2) << "\n";
      out.flush();
      ok = static_cast<bool>(out);
    }
  }
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error("cannot write machine profile '" + path + "'");
  }
}

}  // namespace pspmv
