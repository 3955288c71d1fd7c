// Compressed SELL-C-sigma columns (SellMatrix::compressed): the layout against the
// uncompressed SELL it came from, multiplies against the long-double reference (every C,
// sigma, mapping, schedule, long-row handling, precision and offset width), padding never
// read, the bytes, the narrow-span statistic and the compression rule.
#include <tuple>
#include <utility>

#include "sell_views.hpp"
#include "test_util.hpp"

using namespace pspmv_test;

namespace {

template <class Cfg>
class CompressedTest : public ConfigTest<Cfg> {};

TYPED_TEST_SUITE(CompressedTest, Configs, ConfigNames);

constexpr std::int32_t wide_cols = 200000;

/// Rows that make mixed slices: most rows hold a band around a moving centre (narrow), every
/// 97th row also holds column ncols - 1 (its slice's span passes 65,536 when the band lies
/// low), rows 5 and 6 of every 16 are empty, every 41st row is long (300 entries across 70,000
/// columns: wider than a slice may be), row 0 holds column 0. nrows is no multiple of any C.
template <class V, class O>
pspmv::HostCsr<V, O> mixed(std::int32_t nrows = 1003, std::int32_t ncols = wide_cols) {
  return from_rows<V, O>(nrows, ncols, [=](std::int32_t i) {
    std::vector<std::int32_t> c;
    if (i % 16 == 5 || i % 16 == 6) return c;
    const std::int32_t centre = static_cast<std::int32_t>((static_cast<std::int64_t>(i) * 97) % (ncols - 2000)) + 1000;
    if (i % 41 == 40) {
      for (std::int32_t k = 0; k < 300; ++k) c.push_back(centre - 1000 + k * 233);
    } else {
      for (std::int32_t k = 0; k < 1 + i % 9; ++k) c.push_back(centre - 4 * k);
    }
    if (i == 0) c.push_back(0);
    if (i % 97 == 0) c.push_back(ncols - 1);
    for (auto& v : c) v = std::min(std::max(v, 0), ncols - 1);
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  });
}

/// A 5-point stencil on an nx x ny grid (row and column x + nx y) with its rows disturbed here
/// and there: row 301 holds an extra column beyond the grid (ncols = wide_cols: its slice spans
/// more than 65,536 columns), row 650 one entry fewer, rows 900-903 another column each.
/// Interior rows make diagonal slices (sell.hpp), boundary and disturbed rows do not.
template <class V, class O>
pspmv::HostCsr<V, O> grid(std::int32_t nx = 150, std::int32_t ny = 9) {
  return from_rows<V, O>(nx * ny, wide_cols + 1, [=](std::int32_t i) {
    const std::int32_t x = i % nx, y = i / nx;
    std::vector<std::int32_t> c;
    if (y > 0) c.push_back(i - nx);
    if (x > 0) c.push_back(i - 1);
    c.push_back(i);
    if (x < nx - 1) c.push_back(i + 1);
    if (y < ny - 1) c.push_back(i + nx);
    if (i == 301) c.push_back(wide_cols);
    if (i == 650) c.erase(c.begin());
    if (i >= 900 && i < 904) c.push_back(7 * (i - 899));
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  });
}

struct SliceKinds {
  std::int64_t narrow = 0, wide = 0, diagonal = 0;
};

/// Compresses the SELL of A (C, sigma, long rows above T split off or split) and checks every
/// slice against the uncompressed one: its kind is the one the layout rules give (diagonal: C
/// real rows of consecutive caller rows, all of the slice's width, entry j of row r at column
/// col(j, 0) + r; narrow: real entries spanning < 65,536; else wide), every real entry's
/// column rebuilt from its form is the uncompressed column, a diagonal slice's pattern is
/// shared with the previous slice exactly when both are diagonal with the same width and
/// relative columns, and the bytes are the uncompressed ones less the columns saved.
template <class Host>
SliceKinds check_layout(const Host& A, int C, std::int64_t sigma, std::int64_t T) {
  const auto U = pspmv::csr_to_sell(A, C, sigma, T, T > 0);
  auto S = pspmv::csr_to_sell(A, C, sigma, T, T > 0);
  pspmv::compress_columns(Kokkos::DefaultHostExecutionSpace(), S);
  SliceKinds kinds;
  EXPECT_TRUE(S.compressed);
  const std::int64_t ns = S.nslices();
  EXPECT_EQ(static_cast<std::int64_t>(S.col_base.extent(0)), ns);
  EXPECT_EQ(static_cast<std::int64_t>(S.off_ptr.extent(0)), ns);
  std::int64_t int32_columns = 0, offsets = 0;
  std::vector<std::int64_t> prev_pattern;
  bool prev_diagonal = false;
  for (std::int64_t s = 0; s < ns; ++s) {
    const std::int64_t first = s * C, width = U.slice_width(s);
    bool diagonal = first + C <= U.npos && width > 0;
    for (std::int64_t r = 0; diagonal && r < C; ++r)
      diagonal = U.perm(first + r) < A.nrows && U.perm(first + r) == U.perm(first) + r && U.row_len(first + r) == width;
    for (std::int64_t j = 0; diagonal && j < width; ++j)
      for (std::int64_t r = 0; diagonal && r < C; ++r)
        diagonal = U.col_idx(U.slice_ptr(s) + j * C + r) == U.col_idx(U.slice_ptr(s) + j * C) + r;
    std::int64_t lo = INT32_MAX, hi = -1;
    for (std::int64_t r = 0; r < C && first + r < S.npos; ++r)
      for (std::int64_t j = 0; j < U.row_len(first + r); ++j) {
        const std::int64_t c = U.col_idx(U.slice_ptr(s) + j * C + r);
        lo = std::min(lo, c);
        hi = std::max(hi, c);
      }
    const bool narrow = !diagonal && (hi < 0 || hi - lo < 65536);
    std::vector<std::int64_t> pattern;
    if (diagonal) {
      EXPECT_EQ(S.col_base(s), pspmv::sell_diagonal_slice) << "slice " << s;
      for (std::int64_t j = 0; j < width; ++j) pattern.push_back(U.col_idx(U.slice_ptr(s) + j * C) - U.perm(first));
      if (prev_diagonal && pattern == prev_pattern) {
        EXPECT_EQ(S.off_ptr(s), S.off_ptr(s - 1)) << "slice " << s << " shares the previous pattern";
      } else {
        EXPECT_EQ(S.off_ptr(s), int32_columns) << "slice " << s;
        int32_columns += width;
      }
      ++kinds.diagonal;
    } else if (narrow) {
      EXPECT_EQ(S.col_base(s), hi < 0 ? 0 : lo) << "slice " << s << " spans " << hi - lo;
      EXPECT_EQ(S.off_ptr(s), offsets) << "slice " << s;
      offsets += C * width;
      ++kinds.narrow;
    } else {
      EXPECT_EQ(S.col_base(s), pspmv::sell_wide_slice) << "slice " << s << " spans " << hi - lo;
      EXPECT_EQ(S.off_ptr(s), int32_columns) << "slice " << s;
      int32_columns += C * width;
      ++kinds.wide;
    }
    prev_diagonal = diagonal;
    prev_pattern = pattern;
    // A slice of the wrong kind, or placed wrongly, would read outside the arrays below.
    if (S.col_base(s) != (diagonal ? pspmv::sell_diagonal_slice : narrow ? (hi < 0 ? 0 : lo) : pspmv::sell_wide_slice))
      return kinds;
    for (std::int64_t r = 0; r < C && first + r < S.npos; ++r)
      for (std::int64_t j = 0; j < U.row_len(first + r); ++j) {
        const std::int64_t k = j * C + r;
        const std::int64_t got = diagonal ? S.perm(first + r) + S.col_idx(S.off_ptr(s) + j)
                                 : narrow ? S.col_base(s) + S.col_off(S.off_ptr(s) + k)
                                          : S.col_idx(S.off_ptr(s) + k);
        if (got != U.col_idx(U.slice_ptr(s) + k)) {
          ADD_FAILURE() << "slice " << s << " row " << r << " entry " << j << ": column " << got << ", expected "
                        << U.col_idx(U.slice_ptr(s) + k);
          return kinds;
        }
      }
  }
  EXPECT_EQ(S.wide_slices, kinds.wide);
  EXPECT_EQ(S.diagonal_slices, kinds.diagonal);
  EXPECT_EQ(static_cast<std::int64_t>(S.col_idx.extent(0)), int32_columns);
  EXPECT_EQ(S.compressed_entries(), offsets);
  EXPECT_EQ(S.bytes() + 4 * static_cast<std::size_t>(U.col_idx.extent(0)),
            U.bytes() + 4 * static_cast<std::size_t>(int32_columns) + 2 * static_cast<std::size_t>(offsets) +
                12 * static_cast<std::size_t>(ns));
  EXPECT_EQ(S.uncompressed_bytes(), U.bytes());
  // The values, lengths and permutation are the uncompressed plan's.
  for (std::size_t k = 0; k < U.values.extent(0); ++k) EXPECT_EQ(S.values(k), U.values(k));
  for (std::int64_t p = 0; p < S.npos; ++p) EXPECT_EQ(S.perm(p), U.perm(p));
  // The compressed build straight from the CSR (the host analysis's) is this one, array for array.
  expect_same_sell_views(S, pspmv::csr_to_compressed_sell(A, C, sigma, T, T > 0), "built from the CSR");
  return kinds;
}

}  // namespace

/// check_layout of A at every C in {4, 8, 16, 32}, sigma in {1, C, all rows} and long rows
/// above T (none and `long_rows`), each slice-kind count passed to `expect`.
template <class Host, class Expect>
void each_layout(const Host& A, std::int64_t long_rows, const Expect& expect) {
  for (const int C : {4, 8, 16, 32})
    for (const std::int64_t sigma : {std::int64_t{1}, std::int64_t{C}, std::int64_t{A.nrows}})
      for (const std::int64_t T : {std::int64_t{0}, long_rows}) {
        SCOPED_TRACE("C=" + std::to_string(C) + " sigma=" + std::to_string(sigma) + " long=" + std::to_string(T));
        expect(C, check_layout(A, C, sigma, T));
      }
}

// Each stored entry's column, rebuilt from its slice's form, is the uncompressed SELL's; each
// slice takes the form the layout rules give; the bytes shrink by what the columns save.
TEST(CompressedLayout, ColumnsRebuildTheUncompressedSell) {
  each_layout(mixed<double, std::int64_t>(), 64, [](int C, const SliceKinds& k) {
    EXPECT_GT(k.narrow, 0);
    if (C >= 8) EXPECT_GT(k.wide, 0) << "the matrix should hold slices beyond the 16-bit span";
  });
}

// A stencil's interior slices are diagonal (no column per entry), its boundary and disturbed
// slices narrow, and a wide column (row 301) makes its slice wide; the same for every C and
// sigma, with long rows split off or split.
TEST(CompressedLayout, StencilSlicesAreDiagonal) {
  each_layout(grid<double, std::int32_t>(), 5, [](int, const SliceKinds& k) {
    EXPECT_GT(k.diagonal, 0);
    EXPECT_GT(k.narrow, 0);
    EXPECT_GT(k.wide, 0) << "row 301 (or its piece) makes its slice wide";
  });
}

// Neighbouring diagonal slices of one width share a stored pattern only where their columns
// relative to their rows agree: a band whose offsets change every 64 rows ({-1, 0, 1}, then
// {-2, 0, 2}: the same width, another pattern) and a 27-point stencil on a 13 x 11 x 9 grid,
// whose rows of 27 entries change pattern at each grid line (no row is long: 100 > 27).
TEST(CompressedLayout, DiagonalSlicesShareOnlyTheSamePattern) {
  const std::int32_t n = 64 * 7 + 3;
  const auto band = from_rows<double, std::int64_t>(n, n, [=](std::int32_t i) {
    const std::int32_t step = (i / 64) % 2 == 0 ? 1 : 2;
    std::vector<std::int32_t> c;
    for (const std::int32_t col : {i - step, i, i + step})
      if (col >= 0 && col < n) c.push_back(col);
    return c;
  });
  each_layout(band, 0, [](int, const SliceKinds& k) { EXPECT_GT(k.diagonal, 0); });
  each_layout(pspmv::generate_stencil<double, std::int64_t>(13, 11, 9, 27), 100,
              [](int C, const SliceKinds& k) {
                if (C <= 8) EXPECT_GT(k.diagonal, 0);
              });
}

// The host's compressed build from the CSR (csr_to_compressed_sell, what analyze() runs for a
// compressed host plan) is the uncompressed build followed by compress_columns, array for array:
// float and double values, 32- and 64-bit offsets, every C, sorted and unsorted, long rows kept
// as CSR and split, on mixed slices, a disturbed stencil, matrices of empty rows and no rows.
template <class V, class O>
void expect_direct_build_is_two_step(const pspmv::HostCsr<V, O>& A, const std::string& name) {
  for (const int C : {4, 8, 16, 32, 64})
    for (const std::int64_t sigma : {std::int64_t{1}, std::int64_t{C} * 4})
      for (const std::int64_t T : {std::int64_t{0}, std::int64_t{5}})
        for (const bool split : {false, true}) {
          if (T == 0 && split) continue;
          SCOPED_TRACE(name + " C=" + std::to_string(C) + " sigma=" + std::to_string(sigma) + " long=" + std::to_string(T) +
                       (split ? " split" : ""));
          auto S = pspmv::csr_to_sell(A, C, sigma, T, split);
          pspmv::compress_columns(Kokkos::DefaultHostExecutionSpace(), S);
          expect_same_sell_views(S, pspmv::csr_to_compressed_sell(A, C, sigma, T, split), "built from the CSR");
        }
}

TEST(CompressedLayout, BuiltFromTheCsrIsTheTwoStepBuild) {
  expect_direct_build_is_two_step(mixed<float, std::int32_t>(), "mixed f32");
  expect_direct_build_is_two_step(mixed<double, std::int64_t>(), "mixed f64");
  expect_direct_build_is_two_step(grid<float, std::int64_t>(), "grid f32");
  expect_direct_build_is_two_step(grid<double, std::int32_t>(), "grid f64");
  expect_direct_build_is_two_step(pspmv::generate_stencil<double, std::int64_t>(13, 11, 9, 27), "stencil27");
  expect_direct_build_is_two_step(from_rows<double, std::int64_t>(37, 50, [](std::int32_t) { return std::vector<std::int32_t>{}; }),
                                  "empty rows");
  expect_direct_build_is_two_step(from_rows<float, std::int32_t>(0, 0, [](std::int32_t) { return std::vector<std::int32_t>{}; }),
                                  "no rows");
}

// Compressed plans against the long-double reference: every C, sigma in {1, C, all rows},
// both mappings and every schedule they run, long rows split and kept as CSR, keep_permuted.
TYPED_TEST(CompressedTest, MultipliesMatchTheReference) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  const bool gpu = pspmv::ExecTraits<Exec>::is_gpu;
  for (const auto& A : {mixed<V, O>(), grid<V, O>()})
  for (const int C : {4, 8, 16, 32})
    for (const std::int64_t sigma : {std::int64_t{1}, std::int64_t{C}, std::int64_t{A.nrows}}) {
      pspmv::AnalyzeOptions opt;
      opt.format = pspmv::Format::sell;
      opt.compress = true;
      opt.slice_height = C;
      opt.sigma = sigma;
      opt.sell_long_row = -1;
      const std::string where = std::string(A.ncols == wide_cols ? "mixed" : "grid") + " C=" + std::to_string(C) +
                                " sigma=" + std::to_string(sigma);
      for (const auto m : pspmv::all_mappings)
        for (const auto sch : pspmv::all_schedules) {
          if (!pspmv::schedule_runs(sch, m, gpu)) continue;
          opt.mapping = m;
          opt.schedule = sch;
          this->check(A, opt, 1.5, 0.0, where + " " + pspmv::to_string(m) + " " + pspmv::to_string(sch));
        }
      opt.mapping.reset();
      opt.schedule.reset();
      for (const bool split : {false, true}) {
        opt.sell_long_row = A.ncols == wide_cols ? 64 : 5;  // the grid's disturbed rows: beside diagonal slices
        opt.sell_long_split = split;
        for (const auto m : pspmv::all_mappings) {
          opt.mapping = m;
          this->check(A, opt, -0.5, 2.0, where + (split ? " split" : " long-row CSR") + " " + pspmv::to_string(m));
        }
      }
      opt.sell_long_split = false;
      opt.keep_permuted = true;
      opt.mapping.reset();
      const auto plan = pspmv::analyze<Exec>(A, opt);
      EXPECT_TRUE(plan.compressed()) << where;
      if (A.ncols != wide_cols) EXPECT_GT(plan.sell().diagonal_slices, 0) << where;
      EXPECT_NE(plan.reason().find("compression forced"), std::string::npos) << plan.reason();
    }
}

// Compressed and uncompressed plans give the same y bit for bit (the same entries in the same
// order; diagonal slices of the grid among them), also in the permuted order, and the compressed
// plan is the smaller one.
TYPED_TEST(CompressedTest, SameResultAsUncompressed) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  using PlanT = typename TestFixture::PlanT;
  // y of the uncompressed and the compressed plan of A under `opt`, compared entry by entry
  // (in the caller's order, or both in the permuted order under keep_permuted).
  const auto same = [](const pspmv::HostCsr<V, O>& A, pspmv::AnalyzeOptions opt, const std::string& where) {
    typename PlanT::vector_type x("x", A.ncols), y0("y0", A.nrows), y1("y1", A.nrows);
    auto hx = Kokkos::create_mirror_view(x);
    for (std::int32_t j = 0; j < A.ncols; ++j) hx(j) = static_cast<V>(std::sin(0.001 * j));
    Kokkos::deep_copy(x, hx);
    opt.compress = false;
    const auto off = pspmv::analyze<Exec>(A, opt);
    opt.compress = true;
    const auto on = pspmv::analyze<Exec>(A, opt);
    EXPECT_FALSE(off.compressed());
    EXPECT_TRUE(on.compressed());
    EXPECT_LT(on.matrix_bytes(), off.matrix_bytes());
    EXPECT_GT(on.compression_ratio(), off.compression_ratio());
    EXPECT_NE(on.describe().find("compressed"), std::string::npos) << on.describe();
    off.multiply(V(1), x, V(0), y0);
    on.multiply(V(1), x, V(0), y1);
    Kokkos::fence();
    auto h0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
    auto h1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y1);
    for (std::int32_t i = 0; i < A.nrows; ++i) ASSERT_EQ(h0(i), h1(i)) << "row " << i << " " << where;
  };
  for (const auto& A : {mixed<V, O>(777), grid<V, O>()})
    // The host slice kernel's constant heights (4, 8, 16) and one read at run time (32); sigma
    // 1 and the default; the caller's order and the permuted one.
    for (const int C : {4, 8, 16, 32})
      for (const std::int64_t sigma : {std::int64_t{1}, std::int64_t{0}})
        for (const auto m : pspmv::all_mappings)
          for (const bool permuted : {false, true}) {
            pspmv::AnalyzeOptions opt;
            opt.format = pspmv::Format::sell;
            opt.slice_height = C;
            if (sigma > 0) opt.sigma = sigma;
            opt.mapping = m;
            opt.keep_permuted = permuted;
            if (permuted) opt.sell_long_split = false;  // keep_permuted keeps long rows whole
            same(A, opt, "C=" + std::to_string(C) + " sigma=" + std::to_string(sigma) + " " + pspmv::to_string(m) +
                             (permuted ? " keep_permuted" : "") + " ncols=" + std::to_string(A.ncols));
          }
}

// Padding in a compressed slice holds offset 0, the slice's base column, a column that other
// rows of the slice use; with Inf there, a kernel that read padding would give NaN in the
// short rows. Wide slices' padding holds column 0, Inf too.
TYPED_TEST(CompressedTest, PaddingIsNeverRead) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  using PlanT = typename TestFixture::PlanT;
  const std::int32_t n = 515, ncols = 100000;
  const auto A = from_rows<V, O>(n, ncols, [&](std::int32_t i) {
    const std::int32_t b = 10 * (i / 32) + 10;
    std::vector<std::int32_t> c;
    if (i % 2 == 0) c = {b, b + 1, b + 2, b + 3};
    else c = {b + 1};
    if (i % 64 == 2) c.push_back(ncols - 1);  // some slices wide
    return c;
  });
  typename PlanT::vector_type x("x", ncols), y("y", n);
  auto hx = Kokkos::create_mirror_view(x);
  for (std::int32_t j = 0; j < ncols; ++j) hx(j) = j % 10 == 0 ? std::numeric_limits<V>::infinity() : V(1);
  Kokkos::deep_copy(x, hx);
  for (const int C : {4, 8, 16, 32})
    for (const auto m : pspmv::all_mappings) {
      pspmv::AnalyzeOptions opt;
      opt.format = pspmv::Format::sell;
      opt.compress = true;
      opt.slice_height = C;
      opt.sigma = 1;
      opt.mapping = m;
      const auto plan = pspmv::analyze<Exec>(A, opt);
      ASSERT_GT(plan.padding_ratio(), 1.0);
      ASSERT_GT(plan.sell().wide_slices, 0);
      plan.multiply(V(1), x, V(0), y);
      Kokkos::fence();
      auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
      for (std::int32_t i = 1; i < n; i += 2)
        ASSERT_EQ(hy(i), A.values(A.row_ptr(i))) << "row " << i << " C=" << C << " " << pspmv::to_string(m);
    }
}

// compress = true needs SELL: an automatic format becomes SELL, a forced CSR is an error.
TYPED_TEST(CompressedTest, CompressNeedsSell) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  const auto A = pspmv::generate_random<V, O>(300, 300, 5.0, 4);
  pspmv::AnalyzeOptions opt;
  opt.compress = true;
  const auto plan = pspmv::analyze<Exec>(A, opt);
  EXPECT_EQ(plan.format(), pspmv::Format::sell);
  EXPECT_TRUE(plan.compressed());
  opt.format = pspmv::Format::csr;
  EXPECT_THROW(pspmv::analyze<Exec>(A, opt), pspmv::InvalidArgument);
  // A small matrix: no compression by default, and reason() says why.
  opt.format = pspmv::Format::sell;
  opt.compress.reset();
  const auto small = pspmv::analyze<Exec>(A, opt);
  EXPECT_FALSE(small.compressed());
  EXPECT_NE(small.reason().find("compress_min_bytes"), std::string::npos) << small.reason();
}

/// A band of 5 diagonals (rows i - 2 to i + 2), n x n.
static pspmv::HostCsr<double, std::int64_t> band5(std::int32_t n) {
  return from_rows<double, std::int64_t>(n, n, [n](std::int32_t i) {
    std::vector<std::int32_t> c;
    for (std::int32_t k = std::max(0, i - 2); k <= std::min(n - 1, i + 2); ++k) c.push_back(k);
    return c;
  });
}

// RowStats::narrow_share: banded rows are all narrow, scattered ones not, and the statistic
// is absent unless the columns are given.
TEST(CompressedStats, NarrowShare) {
  const std::int32_t n = 5000;
  const auto band = band5(n);
  EXPECT_EQ(pspmv::compute_row_stats(band.row_ptr.data(), n, n).narrow_share, -1.0);
  EXPECT_EQ(pspmv::compute_row_stats(band.row_ptr.data(), n, n, band.col_idx.data()).narrow_share, 1.0);
  const std::int32_t wide = 1 << 20;
  const auto scattered = from_rows<double, std::int64_t>(n, wide, [&](std::int32_t i) {
    return std::vector<std::int32_t>{i, wide - 1 - i};
  });
  EXPECT_EQ(pspmv::compute_row_stats(scattered.row_ptr.data(), n, wide, scattered.col_idx.data()).narrow_share, 0.0);
  // Half the blocks narrow: rows below 2048 stay near the diagonal, the others reach the end.
  const auto half = from_rows<double, std::int64_t>(4096, wide, [&](std::int32_t i) {
    return i < 2048 ? std::vector<std::int32_t>{i} : std::vector<std::int32_t>{i, wide - 1};
  });
  const double share = pspmv::compute_row_stats(half.row_ptr.data(), 4096, wide, half.col_idx.data()).narrow_share;
  EXPECT_NEAR(share, 2048.0 / (2048 + 2 * 2048), 1e-12);
}

/// Statistics and a SELL shape of a large matrix (4M rows of 27 entries, SELL-8 without
/// padding) for the compression rules; decide() runs choose_compress under Traits.
struct RuleCase {
  pspmv::RowStats s;
  pspmv::SellShape shape;
  double csr = 0;
  RuleCase() {
    s.nrows = 1 << 22;
    s.nnz = std::int64_t{27} << 22;
    shape.nslices = s.nrows / 8;
    shape.stored = s.nnz;
    csr = static_cast<double>((s.nrows + 1) * 8 + s.nnz * 12);
  }
  /// The decision and reason() under options o, for a CSR of `bytes` (0: csr).
  template <class Traits>
  std::pair<bool, std::string> decide(const pspmv::AnalyzeOptions& o, double bytes = 0) const {
    pspmv::Reason r;
    const bool on = pspmv::detail::choose_compress<Traits, double>(s, o, shape, static_cast<std::int32_t>(s.nrows),
                                                                   bytes > 0 ? bytes : csr, r);
    return {on, r.str()};
  }
};

// The automatic rule: compression for a large SELL plan with narrow spans, not for a small
// one, nor for wide spans, nor when the estimate would pass the CSR bytes; reason() names the
// statistic.
TEST(CompressedStats, RuleNamesTheStatistic) {
  using Traits = pspmv::ExecTraits<Kokkos::DefaultHostExecutionSpace>;
  RuleCase c;
  c.s.narrow_share = 0.9;
  pspmv::AnalyzeOptions o;
  auto [on, why] = c.decide<Traits>(o);
  EXPECT_TRUE(on);
  EXPECT_NE(why.find("narrow column span share 0.900"), std::string::npos) << why;
  c.s.narrow_share = 0.1;
  std::tie(on, why) = c.decide<Traits>(o);
  EXPECT_FALSE(on);
  EXPECT_NE(why.find("0.100 <"), std::string::npos) << why;
  c.s.narrow_share = 0.9;
  EXPECT_FALSE(c.decide<Traits>(o, 1e6).first);
  c.shape.stored = 2 * c.s.nnz;  // padding 2: even compressed, more than the CSR
  std::tie(on, why) = c.decide<Traits>(o);
  EXPECT_FALSE(on);
  EXPECT_NE(why.find("> 1: 32-bit columns"), std::string::npos) << why;
  o.compress = false;
  c.shape.stored = c.s.nnz;
  EXPECT_FALSE(c.decide<Traits>(o).first);
}

/// RowStats::diagonal_share by its definition, serially: the nonzeros of the aligned blocks of
/// D rows whose rows after the first each repeat the previous row's columns shifted by one.
static double serial_diagonal_share(const pspmv::HostCsr<double, std::int64_t>& A, std::int64_t D) {
  std::int64_t diagonal = 0;
  for (std::int64_t b = 0; b + D <= A.nrows; b += D) {
    bool all = true;
    for (std::int64_t i = b + 1; all && i < b + D; ++i) {
      const std::int64_t len = A.row_ptr(i + 1) - A.row_ptr(i);
      all = len > 0 && len == A.row_ptr(i) - A.row_ptr(i - 1);
      for (std::int64_t k = 0; all && k < len; ++k) all = A.col_idx(A.row_ptr(i) + k) == A.col_idx(A.row_ptr(i - 1) + k) + 1;
    }
    if (all) diagonal += A.row_ptr(b + D) - A.row_ptr(b);
  }
  return A.nnz() > 0 ? static_cast<double>(diagonal) / static_cast<double>(A.nnz()) : 0.0;
}

// RowStats::diagonal_share: a band's blocks are diagonal except at its edges, a stencil's away
// from its boundary, scattered rows' never; a grid whose lines are shorter than the block has no
// diagonal block; the pass over pieces of rows (a stencil of 98,000 rows: two pieces) gives the
// serial definition's value at each block height; absent unless columns and a block are given.
TEST(CompressedStats, DiagonalShare) {
  const std::int32_t n = 5000;
  const auto band = band5(n);
  EXPECT_EQ(pspmv::compute_row_stats(band.row_ptr.data(), n, n).diagonal_share, -1.0);
  EXPECT_EQ(pspmv::compute_row_stats(band.row_ptr.data(), n, n, band.col_idx.data()).diagonal_share, -1.0);
  EXPECT_EQ(pspmv::compute_row_stats(band.row_ptr.data(), n, n, nullptr, 8).diagonal_share, -1.0);
  // Blocks of 8: rows 3 to n - 3 repeat their predecessor, so every block but the first and
  // the last (rows 0-7 and 4992-4999) is diagonal: 623 blocks of 40 entries over 5 n - 6.
  const auto s8 = pspmv::compute_row_stats(band.row_ptr.data(), n, n, band.col_idx.data(), 8);
  EXPECT_EQ(s8.diagonal_block, 8);
  EXPECT_NEAR(s8.diagonal_share, 623.0 * 40 / (5.0 * n - 6), 1e-12);
  EXPECT_EQ(s8.diagonal_share, serial_diagonal_share(band, 8));
  const auto scattered = from_rows<double, std::int64_t>(n, n, [&](std::int32_t i) {
    return std::vector<std::int32_t>{static_cast<std::int32_t>((i * 7919LL) % n)};
  });
  EXPECT_EQ(pspmv::compute_row_stats(scattered.row_ptr.data(), n, n, scattered.col_idx.data(), 8).diagonal_share, 0.0);
  // A 5-point stencil on a 6 x 200 grid: each line's interior is 4 rows, fewer than a block.
  const auto narrow_grid = from_rows<double, std::int64_t>(1200, 1200, [&](std::int32_t i) {
    const std::int32_t x = i % 6, y = i / 6;
    std::vector<std::int32_t> c;
    if (y > 0) c.push_back(i - 6);
    if (x > 0) c.push_back(i - 1);
    c.push_back(i);
    if (x < 5) c.push_back(i + 1);
    if (y < 199) c.push_back(i + 6);
    return c;
  });
  EXPECT_EQ(pspmv::compute_row_stats(narrow_grid.row_ptr.data(), 1200, 1200, narrow_grid.col_idx.data(), 4).diagonal_share,
            0.0);
  const auto st = pspmv::generate_stencil<double, std::int64_t>(70, 70, 20, 7);
  for (const int D : {4, 8, 16, 32, 64}) {
    const double share = pspmv::compute_row_stats(st.row_ptr.data(), st.nrows, st.ncols, st.col_idx.data(), D).diagonal_share;
    EXPECT_EQ(share, serial_diagonal_share(st, D)) << "D=" << D;
    EXPECT_GT(share, D <= 8 ? 0.5 : 0.0) << "D=" << D;  // lines of 70 rows hold few aligned 64-row runs
    EXPECT_LT(share, 1.0) << "D=" << D;
  }
  EXPECT_THROW(pspmv::compute_row_stats(st.row_ptr.data(), st.nrows, st.ncols, st.col_idx.data(), 5), pspmv::InvalidArgument);
}

// The diagonal-slice rule: a large matrix whose diagonal share reaches the bar takes
// compressed columns (on each space), whatever its narrow share; a smaller share, a small
// matrix or compress = false does not; reason() names the statistic.
TEST(CompressedStats, DiagonalRuleNamesTheStatistic) {
  const auto check = [](auto traits) {
    using Traits = decltype(traits);
    RuleCase c;
    c.s.narrow_share = 0.0;
    c.s.diagonal_share = 0.9;
    c.s.diagonal_block = 8;
    pspmv::AnalyzeOptions o;
    const auto [on, why] = c.decide<Traits>(o);
    EXPECT_TRUE(on);
    EXPECT_NE(why.find("diagonal share 0.900 (blocks of 8 rows"), std::string::npos) << why;
    c.s.diagonal_share = 0.4;
    EXPECT_FALSE(c.decide<Traits>(o).first);
    c.s.diagonal_share = 0.9;
    EXPECT_FALSE(c.decide<Traits>(o, 1e6).first);
    o.compress = false;
    EXPECT_FALSE(c.decide<Traits>(o).first);
    EXPECT_TRUE((pspmv::detail::diagonal_rows<Traits>(c.s, o, c.csr).empty()));
  };
  check(pspmv::ExecTraits<Kokkos::DefaultHostExecutionSpace>{});
#if defined(KOKKOS_ENABLE_CUDA)
  check(pspmv::ExecTraits<Kokkos::Cuda>{});
#endif
}

// A stencil beyond diagonal_min_bytes: the automatic plan is a compressed SELL plan made mostly
// of diagonal slices, its reason names the diagonal share, and it matches the reference;
// with compress = false it is not compressed.
TYPED_TEST(CompressedTest, LargeStencilTakesDiagonalSlices) {
  using V = typename TestFixture::Value;
  using O = typename TestFixture::Offset;
  using Exec = typename TestFixture::Exec;
  // The rule depends on the value type (its slice height), not on the offset width: one width
  // keeps the suite's time (a 10M-entry matrix per configuration) in bounds under ASan.
  if constexpr (!std::is_same_v<O, std::int64_t>) GTEST_SKIP() << "run at 64-bit offsets";
  // Lines of 256 rows: most aligned blocks of 32 rows (a GPU's slice) lie inside a line's
  // interior. 10M entries: 80 MB in f32.
  const auto A = pspmv::generate_stencil<V, O>(256, 40, 40, 27);
  ASSERT_GE(static_cast<std::int64_t>(A.bytes()), pspmv::ExecTraits<Exec>::diagonal_min_bytes);
  const auto plan = pspmv::analyze<Exec>(A);
  EXPECT_EQ(plan.format(), pspmv::Format::sell) << plan.reason();
  EXPECT_TRUE(plan.compressed()) << plan.reason();
  EXPECT_GT(2 * plan.sell().diagonal_slices, plan.sell().nslices()) << plan.reason();
  EXPECT_NE(plan.reason().find("diagonal share"), std::string::npos) << plan.reason();
  this->check(A, {}, 1.5, 0.0, "stencil27 256x40x40 automatic");
  pspmv::AnalyzeOptions off;
  off.compress = false;
  EXPECT_FALSE(pspmv::analyze<Exec>(A, off).compressed());
}
