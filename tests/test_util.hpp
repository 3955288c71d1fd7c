#pragma once
// Shared helpers of the test suite: the check against the long-double reference that the
// tool shares (perf/harness/reference.hpp), the list of execution spaces x value x offset
// types this build enables, matrices given row by row, and the shared matrices' manifest.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <vector>

#include "harness/reference.hpp"
#include "pspmv/pspmv.hpp"

namespace pspmv_test {

/// A file or folder in the test's temporary folder, removed with everything under it when the
/// guard goes out of scope: a failed ASSERT returns from the test early, and the guard still
/// cleans up. The name gets the process id, so that tests run in parallel do not share a path.
class TempPath {
 public:
  explicit TempPath(const std::string& name)
      : path_(::testing::TempDir() + "pspmv_" + std::to_string(static_cast<long>(::getpid())) + "_" + name) {}
  TempPath(TempPath&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TempPath(const TempPath&) = delete;
  TempPath& operator=(const TempPath&) = delete;
  TempPath& operator=(TempPath&&) = delete;
  ~TempPath() {
    std::error_code ignored;  // a destructor must not throw; nothing left to remove is fine
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& str() const { return path_; }
  operator const std::string&() const { return path_; }

 private:
  std::string path_;
};

/// Folder of the shared SuiteSparse matrices ("" if absent). PSPMV_MATRICES overrides.
inline std::string shared_matrices_dir() {
  if (const char* env = std::getenv("PSPMV_MATRICES")) return env;
#ifdef PSPMV_SHARED_MATRICES
  std::ifstream probe(std::string(PSPMV_SHARED_MATRICES) + "/MANIFEST.tsv");
  if (probe) return PSPMV_SHARED_MATRICES;
#endif
  return "";
}

struct ManifestRow {
  std::string file;
  std::int64_t rows, cols, stored, expanded_nnz, min_row, max_row, empty_rows;
};

/// Parses MANIFEST.tsv of the shared matrices (header line first).
inline std::vector<ManifestRow> read_manifest(const std::string& dir) {
  std::vector<ManifestRow> out;
  std::ifstream in(dir + "/MANIFEST.tsv");
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) f.push_back(cell);
    if (f.size() < 12) continue;
    out.push_back({f[0], std::stoll(f[4]), std::stoll(f[5]), std::stoll(f[6]), std::stoll(f[7]),
                   std::stoll(f[8]), std::stoll(f[9]), std::stoll(f[11])});
  }
  return out;
}

/// Checks y against the long-double reference (pspmv::reference::compare: a tolerance of
/// 4 eps(Vector) (len_i + 2) scale_i, Vector the type y was summed in: A's value type unless
/// given, double for a mixed-precision plan). On failure reports the first bad row, the value
/// got, the value wanted and the row's length.
template <class Vector = void, class Value, class Offset>
::testing::AssertionResult matches_reference(const pspmv::HostCsr<Value, Offset>& A,
                                             const std::vector<double>& got,
                                             const pspmv::reference::Result& ref) {
  if (got.size() != ref.y.size())
    return ::testing::AssertionFailure() << "length " << got.size() << " != " << ref.y.size();
  const auto m = pspmv::reference::compare<Vector>(A, got, ref);
  if (m.count == 0) return ::testing::AssertionSuccess();
  const std::size_t i = static_cast<std::size_t>(m.first);
  return ::testing::AssertionFailure()
         << m.count << " of " << got.size() << " rows wrong; first bad row " << i << ": got " << got[i]
         << ", wanted " << ref.y[i] << ", row length " << (A.row_ptr(i + 1) - A.row_ptr(i));
}

/// The plan PlanT of A: analyze(), or analyze_mixed() for a mixed-precision PlanT.
template <class PlanT, class MValue, class Offset>
PlanT analyze_for(const pspmv::HostCsr<MValue, Offset>& A, const pspmv::AnalyzeOptions& opt = {}) {
  using Exec = typename PlanT::execution_space;
  if constexpr (std::is_same<typename PlanT::value_type, MValue>::value) return pspmv::analyze<Exec>(A, opt);
  else return pspmv::analyze_mixed(Exec(), A, opt);
}

/// Runs y = alpha A x + beta y0 on a plan made by analyze(A, opt) (x and y of Vector: A's value
/// type unless given; double under a float A is a mixed-precision plan) and checks it against
/// the reference; y0 is NaN and +-Inf when beta == 0 (BLAS semantics: y must be overwritten,
/// never read). `what` names the case in a failure.
template <class Exec, class Vector = void, class MValue, class Offset>
void check_multiply(const pspmv::HostCsr<MValue, Offset>& A, const pspmv::AnalyzeOptions& opt, double alpha,
                    double beta, const std::string& what, std::uint64_t seed = 7) {
  using Value = std::conditional_t<std::is_void<Vector>::value, MValue, Vector>;
  using PlanT = pspmv::Plan<Exec, Value, Offset, MValue>;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> x(A.ncols), y0(A.nrows);
  for (auto& v : x) v = static_cast<double>(static_cast<Value>(dist(rng)));
  // beta == 0: y starts as NaN and +-Inf, which must not survive (BLAS semantics).
  for (std::size_t i = 0; i < y0.size(); ++i)
    y0[i] = beta == 0.0 ? (i % 3 == 0 ? std::numeric_limits<double>::quiet_NaN()
                                      : (i % 3 == 1 ? 1.0 : -1.0) * std::numeric_limits<double>::infinity())
                        : static_cast<double>(static_cast<Value>(dist(rng)));
  PlanT plan = analyze_for<PlanT>(A, opt);
  typename PlanT::vector_type dx("x", A.ncols), dy("y", A.nrows);
  auto hx = Kokkos::create_mirror_view(dx);
  auto hy = Kokkos::create_mirror_view(dy);
  for (std::size_t j = 0; j < x.size(); ++j) hx(j) = static_cast<Value>(x[j]);
  for (std::size_t i = 0; i < y0.size(); ++i) hy(i) = static_cast<Value>(y0[i]);
  Kokkos::deep_copy(dx, hx);
  Kokkos::deep_copy(dy, hy);
  plan.multiply(static_cast<Value>(alpha), dx, static_cast<Value>(beta), dy);
  Kokkos::fence();
  Kokkos::deep_copy(hy, dy);
  std::vector<double> got(A.nrows);
  for (std::size_t i = 0; i < got.size(); ++i) got[i] = static_cast<double>(hy(i));
  const auto ref = pspmv::reference::spmv(A, alpha, x, beta, y0);
  EXPECT_TRUE(matches_reference<Value>(A, got, ref))
      << what << " [" << plan.describe() << "] alpha=" << alpha << " beta=" << beta;
}

/// A matrix given row by row: cols_of(i) lists row i's (sorted) columns; values from
/// pspmv::generated_value.
template <class Value, class Offset>
pspmv::HostCsr<Value, Offset> from_rows(std::int32_t nrows, std::int32_t ncols,
                                        const std::function<std::vector<std::int32_t>(std::int32_t)>& cols_of) {
  std::vector<Offset> rp(1, 0);
  std::vector<std::int32_t> ci;
  std::vector<Value> v;
  for (std::int32_t i = 0; i < nrows; ++i) {
    for (std::int32_t c : cols_of(i)) {
      ci.push_back(c);
      v.push_back(static_cast<Value>(pspmv::generated_value(i, c) - 1.3));
    }
    rp.push_back(static_cast<Offset>(ci.size()));
  }
  return pspmv::make_csr<Value, Offset, std::int32_t>(nrows, ncols, rp, ci, v);
}

/// A test configuration: execution space, value type (x, y and the sums), offset type, and the
/// matrix's value type (float under double values: a mixed-precision plan, MixedPlan).
template <class ExecSpace, class Value, class Offset, class MatrixValue = Value>
struct Config {
  using exec = ExecSpace;
  using value = Value;
  using offset = Offset;
  using matrix_value = MatrixValue;
};

/// A list of typed-test configurations; Join<L...>::type is gtest's Types of them all, so that a
/// space's list can be left out where Kokkos does not enable it (end the lists with TypeList<>).
template <class... T>
struct TypeList {};
template <class... L>
struct Join;
template <class... A>
struct Join<TypeList<A...>> {
  using type = ::testing::Types<A...>;
};
template <class... A, class... B, class... R>
struct Join<TypeList<A...>, TypeList<B...>, R...> : Join<TypeList<A..., B...>, R...> {};

/// Every enabled execution space, each with both value and offset widths (typed tests).
using Configs = Join<
#if defined(KOKKOS_ENABLE_CUDA)
    TypeList<Config<Kokkos::Cuda, double, std::int64_t>, Config<Kokkos::Cuda, float, std::int32_t>,
             Config<Kokkos::Cuda, double, std::int32_t>, Config<Kokkos::Cuda, float, std::int64_t>>,
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    TypeList<Config<Kokkos::OpenMP, double, std::int64_t>, Config<Kokkos::OpenMP, float, std::int32_t>,
             Config<Kokkos::OpenMP, double, std::int32_t>, Config<Kokkos::OpenMP, float, std::int64_t>>,
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
    TypeList<Config<Kokkos::Serial, double, std::int32_t>, Config<Kokkos::Serial, float, std::int64_t>>,
#endif
    TypeList<>>::type;

/// Typed-test names: Space_f64_i32 and so on (Space_f32f64_i64: a float matrix, double vectors).
class ConfigNames {
 public:
  template <class Cfg>
  static std::string GetName(int) {
    std::string s = Cfg::exec::name();
    s += !std::is_same<typename Cfg::value, typename Cfg::matrix_value>::value ? "_f32f64"
         : sizeof(typename Cfg::value) == 4                                   ? "_f32"
                                                                              : "_f64";
    s += sizeof(typename Cfg::offset) == 4 ? "_i32" : "_i64";
    return s;
  }
};

/// The fixture of the typed suites: the configuration's types.
template <class Cfg>
class ConfigTest : public ::testing::Test {
 public:
  using Exec = typename Cfg::exec;
  using Value = typename Cfg::value;
  using Offset = typename Cfg::offset;
  using MValue = typename Cfg::matrix_value;
  using Host = pspmv::HostCsr<MValue, Offset>;
  using PlanT = pspmv::Plan<Exec, Value, Offset, MValue>;

  static void check(const Host& A, const pspmv::AnalyzeOptions& opt, double alpha, double beta,
                    const std::string& what, std::uint64_t seed = 7) {
    check_multiply<Exec, Value>(A, opt, alpha, beta, what, seed);
  }
};

}  // namespace pspmv_test
