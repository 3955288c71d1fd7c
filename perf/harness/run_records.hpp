#pragma once
// The JSON records of a finished run (`pspmv bench --json`, `compare`'s compare.json, `tune
// --json`), read back for `pspmv report`: per matrix and precision, pspmv's fastest plan and
// the fastest peer, with the run's context block (docs/benchmarking.md, "Records").
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pspmv_cli {

/// The context schema this version reads; records without a context block are read as well.
inline constexpr int context_schema = 1;

/// The fastest verified run of one side (pspmv, or the peers) on one matrix.
struct Fastest {
  std::string impl;     ///< "pspmv", or the peer's name ("mkl", "cusparse", ...)
  std::string variant;  ///< the variant's label; for pspmv's automatic plan "auto: " and the plan
  double median_s = 0;
  double gbs = 0;             ///< minimum bytes / median; 0 when the record cannot say
  double ratio_to_floor = 0;  ///< median / floor time; 0 when the run measured no floor
  bool noisy = false;         ///< the record's own "noisy" flag
};

/// What one run measured of one matrix at one precision.
struct Measure {
  std::string matrix, precision, space;
  std::int64_t rows = 0, nnz = 0;
  double floor_s = 0, floor_gbs = 0;  ///< 0: no floor in the record (tune)
  Fastest pspmv;
  bool has_peer = false;
  Fastest peer;  ///< the fastest peer, when has_peer
};

/// One run's record file.
struct Run {
  std::string file;   ///< as named on the command line
  std::string label;  ///< the machine and space its measurements belong to
  std::string kind;   ///< bench, compare or tune
  std::string command, commit, machine, host_isa;
  nlohmann::json context;             ///< the context block, or null for an older record ("no context")
  std::vector<std::string> warnings;  ///< the context's run-level noise warnings
  std::vector<Measure> measures;      ///< in the record's order
};

/// Reads `file`. `label` names the machine (empty: default_label()).
/// @throws pspmv::ParseError when the file is no JSON (with its line), pspmv::Error naming the
/// file when it is no record of bench, compare or tune, when its context schema is not
/// context_schema, when a record lacks a field (naming the record), or when it holds no
/// verified measurement.
Run load_run(const std::string& file, const std::string& label);

/// The same from a parsed document (file only names it in errors).
Run parse_run(const nlohmann::json& doc, const std::string& file, const std::string& label);

/// The machine a record's measurements belong to: the GPU's name for a device space, else the
/// CPU model and threads, and the execution space ("NVIDIA H200 (Cuda)", "AMD EPYC, 2 threads
/// (OpenMP)"); from the context block where there is one, else from the older `machine` and
/// `kokkos_configuration` fields.
std::string default_label(const nlohmann::json& doc, const std::string& space);

}  // namespace pspmv_cli
