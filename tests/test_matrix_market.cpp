// Matrix Market reader and writer: the dialect, symmetric expansion, and every error
// naming the file and line.
#include <cstdio>
#include <filesystem>

#include "test_util.hpp"

namespace {

/// The file holding `text`, removed when the returned guard goes (at the end of the statement
/// for a temporary).
pspmv_test::TempPath write_tmp(const std::string& name, const std::string& text) {
  pspmv_test::TempPath path(name + ".mtx");
  std::FILE* f = std::fopen(path.str().c_str(), "wb");
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  return path;
}

std::vector<std::tuple<int, int, double>> entries(const pspmv::HostCsr<double>& A) {
  std::vector<std::tuple<int, int, double>> e;
  for (int i = 0; i < A.nrows; ++i)
    for (auto k = A.row_ptr(i); k < A.row_ptr(i + 1); ++k) e.emplace_back(i, A.col_idx(k), A.values(k));
  return e;
}

/// Expects a ParseError whose message names `path:line`.
void expect_parse_error(const std::string& name, const std::string& text, std::int64_t line,
                        const std::string& fragment = "") {
  const pspmv_test::TempPath file = write_tmp(name, text);
  const std::string& path = file.str();
  try {
    pspmv::read_matrix_market<double>(path);
    ADD_FAILURE() << name << ": no error";
  } catch (const pspmv::ParseError& e) {
    EXPECT_EQ(e.line(), line) << name << ": " << e.what();
    EXPECT_EQ(e.file(), path);
    const std::string w = e.what();
    EXPECT_NE(w.find(path + (line > 0 ? ":" + std::to_string(line) : "")), std::string::npos) << w;
    if (!fragment.empty()) EXPECT_NE(w.find(fragment), std::string::npos) << w;
  }
}

}  // namespace

TEST(MatrixMarket, GeneralRealWithCommentsBlankLinesAndCrlf) {
  auto p = write_tmp("general",
                     "%%MatrixMarket matrix coordinate real general\r\n% a comment\r\n\r\n3 4 4\r\n"
                     "% comment between entries\n1 1 1.5\n\n3 4 -2e-1\n2 2 .5\n1 3 1.5D+03");  // no final newline
  pspmv::MatrixMarketHeader h;
  auto A = pspmv::read_matrix_market<double>(p, &h);
  EXPECT_EQ(h.field, "real");
  EXPECT_EQ(A.nrows, 3);
  EXPECT_EQ(A.ncols, 4);
  EXPECT_EQ(entries(A), (std::vector<std::tuple<int, int, double>>{
                            {0, 0, 1.5}, {0, 2, 1500.0}, {1, 1, 0.5}, {2, 3, -0.2}}));
}

TEST(MatrixMarket, SymmetricNeverDoublesTheDiagonal) {
  auto A = pspmv::read_matrix_market<double>(
      write_tmp("sym", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n3 1 2\n2 2 5\n"));
  EXPECT_EQ(entries(A), (std::vector<std::tuple<int, int, double>>{{0, 0, 4}, {0, 2, 2}, {1, 1, 5}, {2, 0, 2}}));
}

TEST(MatrixMarket, SkewSymmetricNegatesTheMirror) {
  auto A = pspmv::read_matrix_market<double>(
      write_tmp("skew", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 2 -1\n"));
  EXPECT_EQ(entries(A), (std::vector<std::tuple<int, int, double>>{{0, 1, -3}, {1, 0, 3}, {1, 2, 1}, {2, 1, -1}}));
  expect_parse_error("skewdiag", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 3\n", 3, "diagonal");
}

TEST(MatrixMarket, PatternIntegerAndBannerCase) {
  auto P = pspmv::read_matrix_market<double>(
      write_tmp("pattern", "%%matrixmarket MATRIX Coordinate PATTERN Symmetric\n2 2 2\n1 1\n2 1\n"));
  EXPECT_EQ(entries(P), (std::vector<std::tuple<int, int, double>>{{0, 0, 1}, {0, 1, 1}, {1, 0, 1}}));
  auto I = pspmv::read_matrix_market<double>(
      write_tmp("integer", "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 -7\n2 1 +3\n"));
  EXPECT_EQ(entries(I), (std::vector<std::tuple<int, int, double>>{{0, 1, -7}, {1, 0, 3}}));
  expect_parse_error("intfrac", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 1.5\n", 3, "integer");
}

TEST(MatrixMarket, DuplicatesAreSummed) {
  auto A = pspmv::read_matrix_market<double>(
      write_tmp("dups", "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 2 1\n1 2 2.5\n2 1 1\n"));
  EXPECT_EQ(entries(A), (std::vector<std::tuple<int, int, double>>{{0, 1, 3.5}, {1, 0, 1}}));
}

TEST(MatrixMarket, ArrayFormat) {
  auto A = pspmv::read_matrix_market<double>(
      write_tmp("array", "%%MatrixMarket matrix array real general\n2 3\n1\n0\n0\n4\n5\n6\n"));
  EXPECT_EQ(entries(A), (std::vector<std::tuple<int, int, double>>{{0, 0, 1}, {0, 2, 5}, {1, 1, 4}, {1, 2, 6}}));
  auto S = pspmv::read_matrix_market<double>(
      write_tmp("arraysym", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n"));
  EXPECT_EQ(entries(S), (std::vector<std::tuple<int, int, double>>{{0, 0, 1}, {0, 1, 2}, {1, 0, 2}, {1, 1, 3}}));
  expect_parse_error("arrayshort", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 5, "truncated");
}

TEST(MatrixMarket, MalformedInputNamesFileAndLine) {
  expect_parse_error("nobanner", "3 3 1\n1 1 1\n", 1, "banner");
  expect_parse_error("shortbanner", "%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", 1, "5 words");
  expect_parse_error("badfield", "%%MatrixMarket matrix coordinate quaternion general\n1 1 1\n1 1 1\n", 1, "field");
  expect_parse_error("badsize", "%%MatrixMarket matrix coordinate real general\n% c\n3 x 1\n1 1 1\n", 3, "integer");
  expect_parse_error("sizecount", "%%MatrixMarket matrix coordinate real general\n3 3\n", 2, "3 integers");
  expect_parse_error("nosize", "%%MatrixMarket matrix coordinate real general\n% only comments\n", 2, "size line");
  expect_parse_error("index0", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n0 2 1\n", 4, "1-based");
  expect_parse_error("beyond", "%%MatrixMarket matrix coordinate real general\n3 3 1\n4 1 1\n", 3, "outside");
  expect_parse_error("truncated", "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 2\n", 4, "truncated");
  expect_parse_error("extra", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n2 2 2\n", 4, "extra");
  expect_parse_error("badvalue", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1.2.3\n", 3, "1.2.3");
  expect_parse_error("toomany", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1 7\n", 3, "3 tokens");
  expect_parse_error("missingvalue", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1\n", 3, "3 tokens");
  expect_parse_error("upper", "%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n1 2 1\n", 3, "above the diagonal");
  expect_parse_error("absurd", "%%MatrixMarket matrix coordinate real general\n3 3 1000000000000\n1 1 1\n", 2, "positions");
  expect_parse_error("overflow", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1e999\n", 3, "range");
  expect_parse_error("huge", "%%MatrixMarket matrix coordinate real general\n3000000000 3 1\n1 1 1\n", 2, "32-bit");
  expect_parse_error("hugearray", "%%MatrixMarket matrix array real general\n4000000000 4000000000\n1\n", 2, "32-bit");
}

TEST(MatrixMarket, UnsupportedKindsAreRejectedClearly) {
  EXPECT_THROW(pspmv::read_matrix_market<double>(write_tmp(
                   "complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n")),
               pspmv::Unsupported);
  EXPECT_THROW(pspmv::read_matrix_market<double>(write_tmp(
                   "herm", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n")),
               pspmv::Unsupported);
  EXPECT_THROW(pspmv::read_matrix_market<double>("/nonexistent/dir/file.mtx"), pspmv::Error);
  // A value that fits double but not float is an error when reading into float.
  EXPECT_THROW(pspmv::read_matrix_market<float>(write_tmp(
                   "bigfloat", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e300\n")),
               pspmv::InvalidArgument);
}

TEST(MatrixMarket, WriterRoundTripsExactly) {
  auto A = pspmv::generate_random<double, std::int64_t>(123, 77, 5.0, 9);
  const pspmv_test::TempPath path("roundtrip.mtx");
  pspmv::write_matrix_market(path, A);
  auto B = pspmv::read_matrix_market<double>(path);
  ASSERT_EQ(B.nrows, A.nrows);
  ASSERT_EQ(B.ncols, A.ncols);
  ASSERT_EQ(B.nnz(), A.nnz());
  for (std::int64_t k = 0; k < A.nnz(); ++k) {
    EXPECT_EQ(B.col_idx(k), A.col_idx(k));
    EXPECT_EQ(B.values(k), A.values(k));  // 17 significant digits round-trip doubles
  }
  // A failed write leaves nothing behind: the target is a directory, so the finished
  // temporary file cannot be renamed onto it and must be removed.
  const pspmv_test::TempPath dir("target_is_a_dir");
  std::filesystem::create_directories(dir.str() + "/inside");
  EXPECT_THROW(pspmv::write_matrix_market(dir, A), pspmv::Error);
  EXPECT_TRUE(std::filesystem::is_directory(dir.str()));
  for (const auto& e : std::filesystem::directory_iterator(::testing::TempDir()))
    EXPECT_NE(e.path().string().rfind(dir.str() + ".tmp.", 0), 0u) << e.path();
  EXPECT_THROW(pspmv::write_matrix_market("/nonexistent/dir/out.mtx", A), pspmv::Error);
}

TEST(MatrixMarket, SharedMatricesMatchTheManifest) {
  const std::string dir = pspmv_test::shared_matrices_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/matrices not found (set PSPMV_MATRICES to its path)";
  const auto manifest = pspmv_test::read_manifest(dir);
  ASSERT_GE(manifest.size(), 16u);
  for (const auto& m : manifest) {
    SCOPED_TRACE(m.file);
    pspmv::MatrixMarketHeader h;
    auto A = pspmv::read_matrix_market<double>(dir + "/" + m.file, &h);
    EXPECT_EQ(h.stored_entries, m.stored);
    EXPECT_EQ(A.nrows, m.rows);
    EXPECT_EQ(A.ncols, m.cols);
    EXPECT_EQ(static_cast<std::int64_t>(A.nnz()), m.expanded_nnz);
    auto s = pspmv::compute_row_stats(A.row_ptr.data(), A.nrows, A.ncols);
    EXPECT_EQ(s.min_len, m.min_row);
    EXPECT_EQ(s.max_len, m.max_row);
    EXPECT_EQ(s.empty_rows, m.empty_rows);
  }
}

// Every number form a Matrix Market file can hold: accepted and read exactly, or rejected
// with the token in the message; never misread.
TEST(MatrixMarket, NumberFormsAreReadExactlyOrRejected) {
  const std::vector<std::pair<std::string, double>> accepted = {
      {"1", 1.0},          {"+1", 1.0},           {"-1", -1.0},         {".5", 0.5},
      {"-.5", -0.5},       {"+.5e-2", 0.005},     {"5.", 5.0},          {"1.5e+03", 1500.0},
      {"1.5E+03", 1500.0}, {"1.5e3", 1500.0},     {"1.5D+03", 1500.0},  {"1.5d-3", 0.0015},
      {"-0", -0.0},        {"1e-320", 1e-320},    {"0.1", 0.1},         {"123456789012345678", 123456789012345678.0},
      {"2.2250738585072014e-308", 2.2250738585072014e-308}, {"1.7976931348623157e308", 1.7976931348623157e308}};
  for (const auto& [token, want] : accepted) {
    auto A = pspmv::read_matrix_market<double>(
        write_tmp("num", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 " + token + "\n"));
    ASSERT_EQ(A.nnz(), 1) << token;
    EXPECT_EQ(A.values(0), want) << token;
    EXPECT_EQ(std::signbit(A.values(0)), std::signbit(want)) << token;
  }
  for (const std::string token : {"inf", "-inf", "+inf", "Inf", "INFINITY", "nan", "NaN", "-nan"}) {
    auto A = pspmv::read_matrix_market<double>(
        write_tmp("infnan", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 " + token + "\n"));
    ASSERT_EQ(A.nnz(), 1) << token;
    const bool want_nan = token.find("nan") != std::string::npos || token.find("NaN") != std::string::npos;
    EXPECT_EQ(std::isnan(A.values(0)), want_nan) << token;
    EXPECT_EQ(std::isinf(A.values(0)), !want_nan) << token;
    if (!want_nan) EXPECT_EQ(A.values(0) < 0, token[0] == '-') << token;
  }
  for (const std::string token : {"1.2.3", "0x10", "1,5", "--1", "++1", "+-1", "1e", "e5", "1e+", ".", "-",
                                  "1.5Q3", "1..5", "one", "1e999", "-1e999", "1f", "nanx"}) {
    expect_parse_error("badnum " + token, "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 " + token + "\n", 3,
                       "'" + token + "'");
  }
  // Integer fields take integers only, with the same sign rules.
  for (const std::string token : {"1.0", "1e3", "0x1", "12a", "--3", "+-3", "-+3", "9223372036854775808"})
    expect_parse_error("badint " + token, "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 " + token + "\n", 3,
                       "'" + token + "'");
  // Values beyond float's range are an error when reading into float; tiny ones round.
  EXPECT_THROW(pspmv::read_matrix_market<float>(write_tmp(
                   "bigfloat2", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 -3.5e38\n")),
               pspmv::InvalidArgument);
  auto F = pspmv::read_matrix_market<float>(
      write_tmp("infloat", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 inf\n2 2 3.4e38\n"));
  EXPECT_TRUE(std::isinf(F.values(0))) << "an Inf in the file stays Inf, not an overflow error";
  EXPECT_EQ(F.values(1), 3.4e38f);
}

// Layout: tabs, several spaces, trailing blanks, CRLF, a missing final newline, blank and
// comment lines anywhere after the banner, banner words in any case and spacing.
TEST(MatrixMarket, WhitespaceAndLayoutVariants) {
  const std::vector<std::string> texts = {
      "%%MatrixMarket\tmatrix  coordinate\treal general  \n2\t2\t2 \n1\t2\t+.5 \n2 1 -1\n",
      "%%MatrixMarket matrix coordinate real general\r\n% c\r\n\r\n  2 2 2\r\n  1 2 .5  \r\n2 1 -1",
      "%%MATRIXMARKET Matrix COORDINATE Real GENERAL\n\n\n% comment\n2 2 2\n% between\n\n1 2 0.5\n   \n2 1 -1\n\n",
      "%%MatrixMarket matrix coordinate real general\n2 2 2\n\t1 2 5e-1\t\n2 1 -1e0\t"};
  for (const auto& t : texts) {
    auto A = pspmv::read_matrix_market<double>(write_tmp("layout", t));
    EXPECT_EQ(entries(A), (std::vector<std::tuple<int, int, double>>{{0, 1, 0.5}, {1, 0, -1.0}})) << t;
  }
  expect_parse_error("empty", "", 1, "empty file");
  expect_parse_error("bannerlate", "\n%%MatrixMarket matrix coordinate real general\n1 1 0\n", 1, "banner");
  expect_parse_error("banneronly", "%%MatrixMarket matrix coordinate real general", 1, "missing size line");
  expect_parse_error("bannerextra", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1, "5 words");
  EXPECT_THROW(pspmv::read_matrix_market<double>(
                   write_tmp("vector", "%%MatrixMarket vector coordinate real general\n1 1 0\n")),
               pspmv::Unsupported);
  expect_parse_error("sizeneg", "%%MatrixMarket matrix coordinate real general\n-1 2 0\n", 2, "negative");
  expect_parse_error("sizefloat", "%%MatrixMarket matrix coordinate real general\n2.0 2 0\n", 2, "not an integer");
  // An integer beyond int64 is out of range, not "not an integer" (19 and 20 digits).
  expect_parse_error("sizehuge", "%%MatrixMarket matrix coordinate real general\n2 2 9999999999999999999\n", 2,
                     "entries '9999999999999999999' is out of range");
  expect_parse_error("rowshuge", "%%MatrixMarket matrix coordinate real general\n-99999999999999999999 2 0\n", 2,
                     "rows '-99999999999999999999' is out of range");
  expect_parse_error("indexhuge", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 9223372036854775808 1\n", 3,
                     "index '9223372036854775808' is out of range");
  expect_parse_error("inthuge", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 9223372036854775808\n", 3,
                     "integer field '9223372036854775808' is out of range");
  // The largest int64 itself is in range (then too many entries for a 2 x 2 matrix).
  expect_parse_error("sizemax", "%%MatrixMarket matrix coordinate real general\n2 2 9223372036854775807\n", 2,
                     "more than the 2 x 2 matrix has positions");
  expect_parse_error("sizefour", "%%MatrixMarket matrix coordinate real general\n2 2 0 0\n", 2, "3 integers");
  expect_parse_error("arraysize", "%%MatrixMarket matrix array real general\n2 2 4\n", 2, "2 integers");
  expect_parse_error("symrect", "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", 2, "square");
  expect_parse_error("arraypattern", "%%MatrixMarket matrix array pattern general\n2 2\n", 1, "pattern");
  expect_parse_error("colzero", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 0 1\n", 3, "1-based");
  expect_parse_error("negindex", "%%MatrixMarket matrix coordinate real general\n2 2 1\n-1 1 1\n", 3, "outside");
  expect_parse_error("colbeyond", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1\n", 3, "outside");
  expect_parse_error("floatindex", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1.0 1 1\n", 3, "integers");
  expect_parse_error("patternvalue", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n", 3, "2 tokens");
  expect_parse_error("arraytwo", "%%MatrixMarket matrix array real general\n1 2\n1 2\n", 3, "one value per line");
  expect_parse_error("arrayextra", "%%MatrixMarket matrix array real general\n1 1\n1\n2\n", 4, "extra value");
}

// An absurd declared entry count is no allocation request: with 10^10 entries declared and
// one present, the reader must fail on the count, quickly and without exhausting memory.
TEST(MatrixMarket, AbsurdCountsAllocateNothingBlindly) {
  expect_parse_error("absurd2", "%%MatrixMarket matrix coordinate real general\n100000 100000 10000000000\n1 1 1\n",
                     3, "truncated");
  expect_parse_error("absurdsym", "%%MatrixMarket matrix coordinate real symmetric\n2000000000 2000000000 1999999999999999999\n1 1 1\n",
                     3, "truncated");
  expect_parse_error("absurdarray", "%%MatrixMarket matrix array real general\n2000000000 2000000000\n1\n", 3,
                     "truncated");
  expect_parse_error("toolong", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 " + std::string(200, '1') + "\n",
                     3, "cannot read");
}

// Symmetric, skew-symmetric and pattern storage with duplicates: mirrored entries sum too.
TEST(MatrixMarket, DuplicatesInSymmetricStorageSumOnBothSides) {
  auto A = pspmv::read_matrix_market<double>(write_tmp(
      "symdup", "%%MatrixMarket matrix coordinate real symmetric\n2 2 4\n2 1 1\n2 1 2\n1 1 1\n1 1 0.5\n"));
  EXPECT_EQ(entries(A), (std::vector<std::tuple<int, int, double>>{{0, 0, 1.5}, {0, 1, 3}, {1, 0, 3}}));
  auto P = pspmv::read_matrix_market<double>(
      write_tmp("patdup", "%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 2\n1 2\n2 2\n"));
  EXPECT_EQ(entries(P), (std::vector<std::tuple<int, int, double>>{{0, 1, 2}, {1, 1, 1}}));
  auto K = pspmv::read_matrix_market<double>(
      write_tmp("arrayskew", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n"));
  EXPECT_EQ(entries(K), (std::vector<std::tuple<int, int, double>>{
                            {0, 1, -1}, {0, 2, -2}, {1, 0, 1}, {1, 2, -3}, {2, 0, 2}, {2, 1, 3}}));
}

// The fuzz target's seed corpus and every input the fuzzer ever failed on (tests/fuzz):
// each parses, or raises a pspmv::Error that names the input; nothing else.
TEST(MatrixMarket, FuzzCorpusAndRegressions) {
  std::size_t files = 0;
  for (const char* sub : {"corpus", "regressions"}) {
    const std::filesystem::path dir = std::filesystem::path(PSPMV_FUZZ_DIR) / sub;
    ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (!e.is_regular_file() || e.path().filename().string()[0] == '.') continue;
      ++files;
      std::ifstream in(e.path(), std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      try {
        auto coo = pspmv::parse_matrix_market(text, e.path().string());
        for (std::size_t k = 0; k < coo.row.size(); ++k) {
          ASSERT_TRUE(coo.row[k] >= 0 && coo.row[k] < coo.nrows && coo.col[k] >= 0 && coo.col[k] < coo.ncols)
              << e.path() << " entry " << k;
        }
      } catch (const pspmv::Error& err) {
        EXPECT_NE(std::string(err.what()).find(e.path().string()), std::string::npos) << err.what();
      } catch (const std::exception& err) {
        ADD_FAILURE() << e.path() << ": not a pspmv::Error: " << err.what();
      }
    }
  }
  EXPECT_GE(files, 14u);
  // The seeds' outcomes are pinned: these parse, these fail.
  const std::string dir = std::string(PSPMV_FUZZ_DIR) + "/corpus/";
  // (Seeds end in .seed: hand-written fuzz inputs, not matrices of the collection.)
  for (const char* ok : {"general.seed", "symmetric.seed", "skew.seed", "pattern.seed", "integer.seed", "array.seed",
                         "array_sym.seed", "array_skew.seed", "crlf_inf_nan.seed", "tabs.seed", "duplicates.seed",
                         "empty.seed"})
    EXPECT_NO_THROW(pspmv::read_matrix_market<double>(dir + ok)) << ok;
  EXPECT_THROW(pspmv::read_matrix_market<double>(dir + "complex.seed"), pspmv::Unsupported);
  EXPECT_THROW(pspmv::read_matrix_market<double>(dir + "truncated.seed"), pspmv::ParseError);
}
