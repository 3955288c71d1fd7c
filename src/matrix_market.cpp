// Matrix Market reader and writer: see pspmv/matrix_market.hpp for the accepted dialect.
#include "pspmv/io/matrix_market_coo.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace pspmv {

namespace {

std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return std::tolower(c); });
  return r;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

/// Splits a line into whitespace-separated tokens (at most `max` + 1, to detect extras).
std::size_t tokenize(std::string_view line, std::string_view* tok, std::size_t max) {
  std::size_t n = 0, i = 0;
  while (i < line.size() && n <= max) {
    while (i < line.size() && is_space(line[i])) ++i;
    if (i >= line.size()) break;
    std::size_t j = i;
    while (j < line.size() && !is_space(line[j])) ++j;
    if (n < max + 1) tok[n] = line.substr(i, j - i);
    ++n;
    i = j;
  }
  return n;
}

/// What read_int made of a token.
enum class IntToken { ok, not_integer, out_of_range };

IntToken read_int(std::string_view t, std::int64_t& out) {
  // One optional sign: from_chars takes '-' only, so a '+' is dropped first ("+-3" is no number).
  if (!t.empty() && t[0] == '+') {
    t.remove_prefix(1);
    if (!t.empty() && (t[0] == '-' || t[0] == '+')) return IntToken::not_integer;
  }
  if (t.empty()) return IntToken::not_integer;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  if (p != t.data() + t.size()) return IntToken::not_integer;
  if (ec == std::errc::result_out_of_range) return IntToken::out_of_range;
  return ec == std::errc() ? IntToken::ok : IntToken::not_integer;
}

/// The message for a token that read_int() did not accept as an integer field `what`.
std::string int_problem(std::string_view t, IntToken r, const std::string& what) {
  if (r == IntToken::out_of_range)
    return what + " '" + std::string(t) + "' is out of range: integers here must lie within [-9223372036854775808, " +
           "9223372036854775807]";
  return what + " holds '" + std::string(t) + "', not an integer";
}

bool parse_real(std::string_view t, double& out) {
  if (!t.empty() && t[0] == '+') {
    t.remove_prefix(1);
    if (!t.empty() && (t[0] == '-' || t[0] == '+')) return false;  // "+-1", "++1"
  }
  if (t.empty()) return false;
  char buf[128];
  if (t.size() >= sizeof(buf)) return false;
  // Fortran double-precision exponent: 1.5D+03 == 1.5E+03.
  std::size_t n = 0;
  for (char c : t) buf[n++] = (c == 'd' || c == 'D') ? 'e' : c;
  // from_chars has no hex prefix or leading '+'; it reads inf/nan tokens.
  auto [p, ec] = std::from_chars(buf, buf + n, out, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) return false;
  return ec == std::errc() && p == buf + n;
}

struct LineReader {
  const std::string& text;
  std::size_t pos = 0;
  std::int64_t line_no = 0;
  /// Next line without its terminator; false at end of text.
  bool next(std::string_view& line) {
    if (pos >= text.size()) return false;
    std::size_t e = text.find('\n', pos);
    if (e == std::string::npos) e = text.size();
    line = std::string_view(text).substr(pos, e - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = e + 1;
    ++line_no;
    return true;
  }
  /// Next line that is neither blank nor a comment.
  bool next_data(std::string_view& line) {
    while (next(line)) {
      std::size_t i = 0;
      while (i < line.size() && is_space(line[i])) ++i;
      if (i == line.size() || line[i] == '%') continue;
      return true;
    }
    return false;
  }
};

}  // namespace

CooMatrix<double> read_matrix_market_coo(const std::string& path, MatrixMarketHeader* header_out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open Matrix Market file");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(path + ": read error");
  return parse_matrix_market(text, path, header_out);
}

CooMatrix<double> parse_matrix_market(const std::string& text, const std::string& path, MatrixMarketHeader* header_out) {
  LineReader lr{text};
  std::string_view line;
  if (!lr.next(line)) throw ParseError(path, 1, "empty file: expected a '%%MatrixMarket' banner");
  std::string_view tok[8];
  std::size_t nt = tokenize(line, tok, 6);
  if (nt == 0 || lower(tok[0]) != "%%matrixmarket")
    throw ParseError(path, 1, "first line must be the banner '%%MatrixMarket matrix <format> <field> <symmetry>'");
  if (nt != 5)
    throw ParseError(path, 1, "banner must have 5 words ('%%MatrixMarket matrix <format> <field> <symmetry>'), found " + std::to_string(nt));
  MatrixMarketHeader h;
  const std::string object = lower(tok[1]);
  h.format = lower(tok[2]);
  h.field = lower(tok[3]);
  h.symmetry = lower(tok[4]);
  if (object != "matrix")
    throw Unsupported(path + ":1: object '" + std::string(tok[1]) + "' is not supported (only 'matrix')");
  if (h.format != "coordinate" && h.format != "array")
    throw ParseError(path, 1, "unknown format '" + std::string(tok[2]) + "' (expected coordinate or array)");
  if (h.field == "complex")
    throw Unsupported(path + ":1: complex matrices are not supported (pspmv computes in real float or double)");
  if (h.field != "real" && h.field != "double" && h.field != "integer" && h.field != "pattern")
    throw ParseError(path, 1, "unknown field '" + std::string(tok[3]) + "' (expected real, double, integer, pattern or complex)");
  if (h.symmetry == "hermitian")
    throw Unsupported(path + ":1: hermitian storage implies complex values, which are not supported");
  if (h.symmetry != "general" && h.symmetry != "symmetric" && h.symmetry != "skew-symmetric")
    throw ParseError(path, 1, "unknown symmetry '" + std::string(tok[4]) + "' (expected general, symmetric or skew-symmetric)");
  const bool coordinate = h.format == "coordinate";
  const bool pattern = h.field == "pattern";
  const bool integer = h.field == "integer";
  const bool symmetric = h.symmetry == "symmetric";
  const bool skew = h.symmetry == "skew-symmetric";
  if (!coordinate && pattern)
    throw ParseError(path, 1, "the array format cannot have the pattern field");

  // Size line.
  if (!lr.next_data(line)) throw ParseError(path, lr.line_no, "missing size line");
  const std::int64_t size_line = lr.line_no;
  nt = tokenize(line, tok, 3);
  const std::size_t want = coordinate ? 3 : 2;
  if (nt != want)
    throw ParseError(path, size_line, std::string("size line must hold ") +
                                          (coordinate ? "3 integers: rows cols entries" : "2 integers: rows cols") +
                                          ", found " + std::to_string(nt) + " tokens");
  std::int64_t declared = 0;
  {
    std::int64_t* const fields[3] = {&h.nrows, &h.ncols, &declared};
    const char* const names[3] = {"rows", "cols", "entries"};
    for (std::size_t k = 0; k < want; ++k) {
      const IntToken r = read_int(tok[k], *fields[k]);
      if (r == IntToken::out_of_range)
        throw ParseError(path, size_line, std::string("size line: ") + int_problem(tok[k], r, names[k]));
      if (r != IntToken::ok)
        throw ParseError(path, size_line, "size line holds a token that is not an integer: '" + std::string(line) + "'");
    }
  }
  if (h.nrows < 0 || h.ncols < 0 || declared < 0)
    throw ParseError(path, size_line, "negative size on the size line");
  if (h.nrows > INT32_MAX || h.ncols > INT32_MAX)
    throw ParseError(path, size_line, "matrix size " + std::to_string(h.nrows) + " x " + std::to_string(h.ncols) +
                                          " exceeds pspmv's 32-bit row and column indices (at most 2147483647)");
  if ((symmetric || skew) && h.nrows != h.ncols)
    throw ParseError(path, size_line, h.symmetry + " storage needs a square matrix, declared " +
                                          std::to_string(h.nrows) + " x " + std::to_string(h.ncols));
  const long double positions = static_cast<long double>(h.nrows) * static_cast<long double>(h.ncols);
  if (coordinate) {
    if (static_cast<long double>(declared) > positions)
      throw ParseError(path, size_line, "declares " + std::to_string(declared) +
                                            " entries, more than the " + std::to_string(h.nrows) + " x " +
                                            std::to_string(h.ncols) + " matrix has positions");
  } else {
    if (skew) declared = h.nrows * (h.nrows - 1) / 2;
    else if (symmetric) declared = h.nrows * (h.nrows + 1) / 2;
    else declared = h.nrows * h.ncols;
  }
  h.stored_entries = declared;

  CooMatrix<double> coo;
  coo.nrows = h.nrows;
  coo.ncols = h.ncols;
  // No blind allocation from a declared count: each entry needs at least 4 bytes of text.
  const std::size_t cap = static_cast<std::size_t>(
      std::min<long double>(static_cast<long double>(declared) * ((symmetric || skew) ? 2 : 1),
                            static_cast<long double>(text.size() / 2 + 1)));
  coo.row.reserve(cap);
  coo.col.reserve(cap);
  coo.values.reserve(cap);

  auto add = [&](std::int64_t i, std::int64_t j, double v) {
    coo.row.push_back(i);
    coo.col.push_back(j);
    coo.values.push_back(v);
    if (i != j && (symmetric || skew)) {
      coo.row.push_back(j);
      coo.col.push_back(i);
      coo.values.push_back(skew ? -v : v);
    }
  };

  auto read_value = [&](std::string_view t, double& v) {
    if (integer) {
      std::int64_t iv = 0;
      const IntToken r = read_int(t, iv);
      if (r != IntToken::ok) throw ParseError(path, lr.line_no, int_problem(t, r, "integer field"));
      v = static_cast<double>(iv);
    } else if (!parse_real(t, v)) {
      throw ParseError(path, lr.line_no, "cannot read '" + std::string(t) + "' as a real number" +
                                             " (or it is beyond double's range)");
    }
  };

  std::int64_t seen = 0;
  if (coordinate) {
    const std::size_t per = pattern ? 2 : 3;
    while (lr.next_data(line)) {
      if (seen == declared)
        throw ParseError(path, lr.line_no, "extra entry: the size line declared " + std::to_string(declared) + " entries");
      nt = tokenize(line, tok, per);
      if (nt != per)
        throw ParseError(path, lr.line_no, "entry must hold " + std::to_string(per) + " tokens (" +
                                               (pattern ? "row col" : "row col value") + "), found " + std::to_string(nt));
      std::int64_t i = 0, j = 0;
      const IntToken ri = read_int(tok[0], i), rj = read_int(tok[1], j);
      if (ri == IntToken::out_of_range || rj == IntToken::out_of_range)
        throw ParseError(path, lr.line_no, int_problem(ri == IntToken::out_of_range ? tok[0] : tok[1],
                                                       IntToken::out_of_range, "index"));
      if (ri != IntToken::ok || rj != IntToken::ok)
        throw ParseError(path, lr.line_no, "row and column must be integers, found '" + std::string(tok[0]) + "' '" + std::string(tok[1]) + "'");
      if (i < 1 || i > h.nrows || j < 1 || j > h.ncols)
        throw ParseError(path, lr.line_no, "index (" + std::to_string(i) + ", " + std::to_string(j) +
                                               ") outside the declared " + std::to_string(h.nrows) + " x " +
                                               std::to_string(h.ncols) + " matrix (indices are 1-based)");
      if ((symmetric || skew) && j > i)
        throw ParseError(path, lr.line_no, "entry (" + std::to_string(i) + ", " + std::to_string(j) +
                                               ") lies above the diagonal; " + h.symmetry +
                                               " files store the lower triangle only");
      if (skew && i == j)
        throw ParseError(path, lr.line_no, "skew-symmetric files cannot store a diagonal entry");
      double v = 1.0;
      if (!pattern) read_value(tok[2], v);
      add(i - 1, j - 1, v);
      ++seen;
    }
  } else {
    // Array: column-major; symmetric keeps the lower triangle with the diagonal,
    // skew-symmetric the strict lower triangle.
    std::int64_t col = 0, row = skew ? 1 : 0;
    while (lr.next_data(line)) {
      if (seen == declared)
        throw ParseError(path, lr.line_no, "extra value: the array holds " + std::to_string(declared) + " values");
      nt = tokenize(line, tok, 1);
      if (nt != 1) throw ParseError(path, lr.line_no, "array files hold one value per line, found " + std::to_string(nt) + " tokens");
      double v = 0;
      read_value(tok[0], v);
      if (v != 0.0) add(row, col, v);
      ++seen;
      if (++row == h.nrows) {
        ++col;
        row = symmetric ? col : (skew ? col + 1 : 0);
      }
    }
  }
  if (seen != declared)
    throw ParseError(path, lr.line_no, "truncated: the size line declared " + std::to_string(declared) +
                                           (coordinate ? " entries" : " values") + ", found " + std::to_string(seen));
  if (header_out) *header_out = h;
  return coo;
}

namespace detail {

void write_matrix_market_arrays(const std::string& path, std::int64_t nrows, std::int64_t ncols,
                                std::int64_t nnz, const std::int64_t* row_ptr,
                                const std::int32_t* col_idx, const double* values) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw Error(path + ": cannot write (opening " + tmp + " failed)");
    bool ok = std::fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n",
                           static_cast<long long>(nrows), static_cast<long long>(ncols),
                           static_cast<long long>(nnz)) > 0;
    for (std::int64_t i = 0; ok && i < nrows; ++i)
      for (std::int64_t k = row_ptr[i]; ok && k < row_ptr[i + 1]; ++k)
        ok = std::fprintf(f, "%lld %d %.17g\n", static_cast<long long>(i + 1), col_idx[k] + 1, values[k]) > 0;
    ok = (std::fclose(f) == 0) && ok;
    if (!ok) {
      std::remove(tmp.c_str());
      throw Error(path + ": write failed (disk full?); no file was left behind");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error(path + ": cannot move the finished file into place");
  }
}

}  // namespace detail
}  // namespace pspmv
