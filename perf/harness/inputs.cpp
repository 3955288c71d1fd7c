#include "harness/inputs.hpp"

#include <filesystem>
#include <iostream>
#include <regex>
#include <sstream>

namespace pspmv_cli {

const char* const gen_spec_help =
    "even[:ROWS] | skewed[:ROWS] (the lesson's pair, 16 nnz/row on average, default 524288 rows) | "
    "random:ROWS[:MEAN[:SEED]] | stencil7:N[:NY:NZ] | stencil27:N[:NY:NZ] (3D Laplacian on an N^3 or "
    "N x NY x NZ grid) | rmat:SCALE[:EDGEFACTOR[:SEED]] (Graph500 R-MAT, 2^SCALE vertices, edge factor 16) | "
    "tile:FILE:COPIES (block-diagonal copies of a Matrix Market file)";

namespace {
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, sep)) out.push_back(part);
  return out;
}

std::int64_t to_int(const std::string& spec, const std::string& field, const std::string& text) {
  try {
    std::size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used != text.size() || v < 0) throw std::invalid_argument(text);
    return v;
  } catch (const std::exception&) {
    throw pspmv::InvalidArgument("--gen '" + spec + "': " + field + " must be a non-negative integer, got '" + text + "'");
  }
}
}  // namespace

Input generate(const std::string& spec) {
  const auto f = split(spec, ':');
  if (f.empty()) throw pspmv::InvalidArgument("empty --gen spec; expected " + std::string(gen_spec_help));
  const std::string& kind = f[0];
  auto rows_at = [&](std::size_t i, std::int64_t def) {
    const std::int64_t r = f.size() > i ? to_int(spec, "ROWS", f[i]) : def;
    if (r > INT32_MAX) throw pspmv::InvalidArgument("--gen '" + spec + "': ROWS must be below 2^31");
    return static_cast<std::int32_t>(r);
  };
  Input in;
  in.source = "generated";
  if (kind == "even" && f.size() <= 2) {
    in.A = pspmv::generate_even<double, std::int64_t>(rows_at(1, 524288));
    in.name = "even:" + std::to_string(in.A.nrows);
  } else if (kind == "skewed" && f.size() <= 2) {
    in.A = pspmv::generate_skewed<double, std::int64_t>(rows_at(1, 524288));
    in.name = "skewed:" + std::to_string(in.A.nrows);
  } else if (kind == "random" && f.size() >= 2 && f.size() <= 4) {
    const std::int32_t rows = rows_at(1, 0);
    const double mean = f.size() > 2 ? static_cast<double>(to_int(spec, "MEAN", f[2])) : 16.0;
    const std::uint64_t seed = f.size() > 3 ? static_cast<std::uint64_t>(to_int(spec, "SEED", f[3])) : 1;
    in.A = pspmv::generate_random<double, std::int64_t>(rows, rows, mean, seed);
    in.name = spec;
  } else if ((kind == "stencil7" || kind == "stencil27") && (f.size() == 2 || f.size() == 4)) {
    const std::int64_t nx = to_int(spec, "N", f[1]);
    const std::int64_t ny = f.size() == 4 ? to_int(spec, "NY", f[2]) : nx;
    const std::int64_t nz = f.size() == 4 ? to_int(spec, "NZ", f[3]) : nx;
    in.A = pspmv::generate_stencil<double, std::int64_t>(nx, ny, nz, kind == "stencil7" ? 7 : 27);
    in.name = spec;
  } else if (kind == "rmat" && f.size() >= 2 && f.size() <= 4) {
    const std::int64_t scale = to_int(spec, "SCALE", f[1]);
    if (scale > 30) throw pspmv::InvalidArgument("--gen '" + spec + "': SCALE must be at most 30");
    const std::int64_t ef = f.size() > 2 ? to_int(spec, "EDGEFACTOR", f[2]) : 16;
    const std::uint64_t seed = f.size() > 3 ? static_cast<std::uint64_t>(to_int(spec, "SEED", f[3])) : 1;
    in.A = pspmv::generate_rmat<double, std::int64_t>(static_cast<int>(scale), ef, seed);
    in.name = spec;
  } else if (kind == "tile" && f.size() == 3) {
    auto base = load_file(f[1]);
    in.A = pspmv::generate_tiled<double, std::int64_t>(base.A, to_int(spec, "COPIES", f[2]));
    in.name = "tile:" + base.name + ":" + f[2];
    in.source = f[1];
  } else {
    throw pspmv::InvalidArgument("unknown --gen spec '" + spec + "'; expected " + gen_spec_help);
  }
  return in;
}

Input load_file(const std::string& path) {
  Input in;
  in.A = pspmv::read_matrix_market<double, std::int64_t>(path);
  in.name = std::filesystem::path(path).stem().string();
  in.source = path;
  return in;
}

std::vector<Input> gather(const std::vector<std::string>& files, const std::vector<std::string>& specs,
                          const char* progress) {
  std::vector<Input> out;
  for (const auto& p : files) out.push_back(load_file(p));
  for (const auto& s : specs) {
    if (progress) std::cerr << progress << ": generating " << s << "\n";
    out.push_back(generate(s));
  }
  return out;
}

bool looks_like_gen_spec(const std::string& word) {
  // The grammar of generate(), numbers unchecked.
  static const std::regex spec(
      "(even|skewed)(:[0-9]+)?|random(:[0-9]+){1,3}|stencil(7|27):[0-9]+(:[0-9]+:[0-9]+)?|rmat(:[0-9]+){1,3}|"
      "tile:.+:[0-9]+");
  return std::regex_match(word, spec);
}

void apply_rows(std::vector<std::string>& specs, std::int64_t rows) {
  if (rows <= 0) return;
  for (auto& spec : specs)
    if (spec == "even" || spec == "skewed" || spec == "random") spec += ":" + std::to_string(rows);
}

}  // namespace pspmv_cli
