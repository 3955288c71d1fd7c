// `pspmv gen`: generate a matrix and write it as Matrix Market, to a file or standard output.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <unistd.h>

#include "command.hpp"

namespace pspmv_cli {

namespace {

struct GenOptions {
  std::string spec, out;
  std::int64_t rows = 524288;
};

/// A file removed when this goes out of scope.
struct TemporaryFile {
  std::filesystem::path path;
  ~TemporaryFile() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
};

/// pspmv::write_matrix_market to standard output. The library writes a file only, through a
/// temporary file renamed into place (so not /dev/stdout): it writes one in the temporary
/// folder, which is copied out and removed.
void print_matrix_market(const pspmv::HostCsr<double, std::int64_t>& A) {
  const TemporaryFile file{std::filesystem::temp_directory_path() /
                           ("pspmv-gen-" + std::to_string(::getpid()) + ".mtx")};
  pspmv::write_matrix_market(file.path.string(), A);
  std::ifstream text(file.path, std::ios::binary);
  std::cout << text.rdbuf();
  if (!std::cout) throw pspmv::Error("gen: writing to standard output failed");
}

int run(const GenOptions& o) {
  const bool sized = o.spec == "even" || o.spec == "skewed" || o.spec == "random";
  const Input in = generate(sized ? o.spec + ":" + std::to_string(o.rows) : o.spec);
  if (o.out.empty()) {
    print_matrix_market(in.A);
  } else {
    pspmv::write_matrix_market(o.out, in.A);
    std::cerr << fmt::format("wrote {} ({} x {}, nnz {})\n", o.out, in.A.nrows, in.A.ncols, in.A.nnz());
  }
  return 0;
}

}  // namespace

Command add_gen(CLI::App& app) {
  auto o = std::make_shared<GenOptions>();
  auto* sub = app.add_subcommand("gen", "Generate a matrix and write it as Matrix Market");
  sub->add_option("spec", o->spec, std::string("what to generate: ") + gen_spec_help)->required();
  sub->add_option("--rows", o->rows, "rows for even, skewed and random when the spec gives none")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{INT32_MAX}));
  sub->add_option("-o,--output", o->out, "output file (default: standard output)");
  return {sub, [o](const RunInfo&) { return run(*o); }};
}

}  // namespace pspmv_cli
