#pragma once
// Inputs of the pspmv tool: Matrix Market files and generator specs.
#include <string>
#include <vector>

#include "pspmv/pspmv.hpp"

namespace pspmv_cli {

/// One matrix of a run, kept on the host in double precision with 64-bit offsets;
/// each measurement converts it to the precision and offset width it needs.
struct Input {
  std::string name;    ///< file stem or generator spec
  std::string source;  ///< path, or "generated"
  pspmv::HostCsr<double, std::int64_t> A;
};

/// Generator specs: even[:ROWS], skewed[:ROWS] (the lesson's pair, default 524288 rows),
/// random:ROWS[:MEAN[:SEED]], tile:FILE:COPIES (block-diagonal copies of a file).
/// @throws pspmv::InvalidArgument for an unknown or malformed spec.
Input generate(const std::string& spec);

/// Reads a Matrix Market file. @throws pspmv::ParseError, pspmv::Unsupported, pspmv::Error.
Input load_file(const std::string& path);

/// Files first, then specs, in the order given; with `progress` given, each spec is announced
/// on stderr as "<progress>: generating <spec>" before it is generated.
std::vector<Input> gather(const std::vector<std::string>& files, const std::vector<std::string>& specs,
                          const char* progress = nullptr);

/// `--gen even --rows N` is `--gen even:N` (likewise skewed and random); rows <= 0: no change.
void apply_rows(std::vector<std::string>& specs, std::int64_t rows);

/// Whether `word` has the form of a generator spec (even:4096, random:1000:8, tile:A.mtx:4, ...):
/// a missing FILE of this form was most likely meant for --gen.
bool looks_like_gen_spec(const std::string& word);

/// Text of the help for generator specs.
extern const char* const gen_spec_help;

}  // namespace pspmv_cli
