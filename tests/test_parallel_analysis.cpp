// analyze()'s host work runs in parallel over pieces of rows: validation, row statistics,
// column spread, lane-slots, the nnz partition and CSR -> SELL-C-sigma (positions, sorted
// windows, slice widths and offsets, scatter, long rows). Each is compared here with a plain
// serial computation of the same definition, bit for bit, on irregular matrices that span
// several pieces. ctest runs this suite again at 1 and 3 threads (tests/CMakeLists.txt).
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "sell_views.hpp"
#include "test_util.hpp"

using namespace pspmv_test;

namespace {

/// Random rows: row i holds len_of(i, rng) entries at columns col_of(i, rng), sorted, with
/// values random in [-1, 1).
template <class Value, class Offset, class LenFn, class ColFn>
pspmv::HostCsr<Value, Offset> random_rows(std::int32_t nrows, std::int32_t ncols, unsigned seed, LenFn len_of,
                                          ColFn col_of) {
  std::mt19937 rng(seed);
  std::vector<Offset> rp(1, 0);
  std::vector<std::int32_t> ci;
  std::vector<Value> v;
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  for (std::int32_t i = 0; i < nrows; ++i) {
    std::vector<std::int32_t> c(static_cast<std::size_t>(len_of(i, rng)));
    for (auto& x : c) x = col_of(i, rng);
    std::sort(c.begin(), c.end());
    for (const auto x : c) {
      ci.push_back(x);
      v.push_back(static_cast<Value>(val(rng)));
    }
    rp.push_back(static_cast<Offset>(ci.size()));
  }
  return pspmv::make_csr<Value, Offset, std::int32_t>(nrows, ncols, rp, ci, v);
}

/// Irregular rows: mostly short (0-12 entries, some empty), every 97th row long (200-700),
/// columns random and sorted, values random. nrows spans several pieces of host work.
template <class Value, class Offset>
pspmv::HostCsr<Value, Offset> irregular(std::int32_t nrows, std::int32_t ncols, unsigned seed) {
  return random_rows<Value, Offset>(
      nrows, ncols, seed,
      [](std::int32_t i, std::mt19937& rng) {
        return i % 97 == 5 ? 200 + static_cast<std::int32_t>(rng() % 500) : static_cast<std::int32_t>(rng() % 13);
      },
      [ncols](std::int32_t, std::mt19937& rng) { return static_cast<std::int32_t>(rng() % static_cast<unsigned>(ncols)); });
}

// ---- serial references: the definitions, one row at a time ----

struct RefStats {
  std::int64_t min_len = INT64_MAX, max_len = 0, empty = 0;
  long double sum = 0, sum2 = 0;
  std::vector<std::int64_t> histogram;
  long double spread = 0;
};

template <class Offset>
RefStats serial_stats(const Offset* rp, const std::int32_t* ci, std::int64_t n, std::int64_t ncols) {
  RefStats s;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t len = rp[i + 1] - rp[i];
    s.min_len = std::min(s.min_len, len);
    s.max_len = std::max(s.max_len, len);
    s.sum += len;
    s.sum2 += static_cast<long double>(len) * len;
    std::size_t b = 0;
    if (len == 0) ++s.empty;
    else while ((std::int64_t{1} << b) <= len) ++b;
    if (s.histogram.size() <= b) s.histogram.resize(b + 1, 0);
    ++s.histogram[b];
    double row_sum = 0;
    for (Offset k = rp[i]; k < rp[i + 1]; ++k)
      row_sum += std::fabs(static_cast<double>(ci[k]) / static_cast<double>(ncols) - static_cast<double>(i) / n);
    s.spread += row_sum;
  }
  return s;
}

/// RowStats::col_spread by its definition, serially: each row's terms in order (8 partial sums
/// over whole groups of 8 on rows of 16 or more entries, added pairwise, then the rest), the
/// rows of each block of 1,024 in a double, the blocks of each piece of 65,536 rows in a long
/// double, the pieces in order.
template <class Offset>
double serial_spread(const Offset* rp, const std::int32_t* ci, std::int64_t n, std::int64_t ncols) {
  const double rn = 1.0 / static_cast<double>(n), cn = 1.0 / static_cast<double>(ncols);
  long double total = 0;
  for (std::int64_t piece = 0; piece < n; piece += 65536) {
    long double piece_sum = 0;
    for (std::int64_t g = piece; g < std::min(n, piece + 65536); g += 1024) {
      double block = 0;
      for (std::int64_t i = g; i < std::min(n, g + 1024); ++i) {
        const double r = static_cast<double>(i) * rn;
        const std::int64_t b = rp[i], e = rp[i + 1];
        const auto term = [&](std::int64_t k) { return std::fabs(static_cast<double>(ci[k]) * cn - r); };
        double row = 0;
        if (e - b < 16) {
          for (std::int64_t k = b; k < e; ++k) row += term(k);
        } else {
          double p[8] = {0, 0, 0, 0, 0, 0, 0, 0};
          std::int64_t k = b;
          for (; k + 8 <= e; k += 8)
            for (int u = 0; u < 8; ++u) p[u] += term(k + u);
          double tail = 0;
          for (; k < e; ++k) tail += term(k);
          row = (((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]))) + tail;
        }
        block += row;
      }
      piece_sum += block;
    }
    total += piece_sum;
  }
  return static_cast<double>(total / static_cast<long double>(rp[n]));
}

/// RowStats::narrow_share by its definition: blocks of 1,024 rows whose columns span < 65,536.
template <class Offset>
double serial_narrow_share(const Offset* rp, const std::int32_t* ci, std::int64_t n) {
  std::int64_t narrow = 0;
  for (std::int64_t g = 0; g < n; g += 1024) {
    const std::int64_t e = std::min(n, g + 1024);
    std::int32_t lo = INT32_MAX, hi = -1;
    for (std::int64_t k = rp[g]; k < rp[e]; ++k) {
      lo = std::min(lo, ci[k]);
      hi = std::max(hi, ci[k]);
    }
    if (hi < 0 || std::int64_t{hi} - lo < 65536) narrow += rp[e] - rp[g];
  }
  return rp[n] > 0 ? static_cast<double>(narrow) / static_cast<double>(rp[n]) : 1.0;
}

/// Rows of 14-24 entries (both sides of the spread's 16-entry form), columns in a band around
/// the diagonal: 30,000 wide in even blocks of 1,024 rows (narrow), 120,000 in odd ones (not).
template <class Value, class Offset>
pspmv::HostCsr<Value, Offset> mid_rows(std::int32_t nrows, std::int32_t ncols, unsigned seed) {
  return random_rows<Value, Offset>(
      nrows, ncols, seed, [](std::int32_t, std::mt19937& rng) { return 14 + static_cast<std::int32_t>(rng() % 11); },
      [ncols](std::int32_t i, std::mt19937& rng) {
        const std::int64_t band = (i / 1024) % 2 ? 120000 : 30000;
        const std::int64_t base = std::max<std::int64_t>(0, std::min<std::int64_t>(ncols - band, std::int64_t{i} - band / 2));
        return static_cast<std::int32_t>(base + static_cast<std::int64_t>(rng() % static_cast<unsigned>(band)));
      });
}

template <class Offset>
std::int64_t serial_team_slots(const Offset* rp, std::int64_t n, std::int64_t V, std::int64_t W) {
  const std::int64_t per = std::max<std::int64_t>(1, W / V);
  std::int64_t slots = 0;
  for (std::int64_t g = 0; g < n; g += per) {
    std::int64_t it = 0;
    for (std::int64_t i = g; i < std::min(n, g + per); ++i) it = std::max<std::int64_t>(it, (rp[i + 1] - rp[i] + V - 1) / V);
    slots += W * it;
  }
  return slots;
}

/// SELL-C-sigma by its definition (sell.hpp's file comment), one position at a time.
template <class Value>
struct RefSell {
  std::vector<std::int32_t> perm, row_len, slice_width, long_rows, long_pos, col_idx, long_col_idx;
  std::vector<std::int64_t> slice_ptr{0}, piece_ptr, long_row_ptr{0};
  std::vector<Value> values, long_values;
};

template <class Value, class Offset>
RefSell<Value> serial_sell(const pspmv::HostCsr<Value, Offset>& A, std::int64_t C, std::int64_t sigma, std::int64_t T,
                           bool split) {
  RefSell<Value> R;
  const std::int32_t n = A.nrows;
  std::vector<std::int32_t> len;
  std::vector<std::int64_t> begin, full;
  if (split) R.piece_ptr.push_back(0);
  std::vector<std::int32_t> plen;
  std::vector<std::int64_t> pbegin;
  for (std::int32_t i = 0; i < n; ++i) {
    const std::int64_t l = A.row_ptr(i + 1) - A.row_ptr(i);
    begin.push_back(A.row_ptr(i));
    full.push_back(l);
    if (T > 0 && l > T) {
      len.push_back(-1);
      R.long_rows.push_back(i);
      if (split) {
        for (std::int64_t k = 0; k < l; k += T) {
          pbegin.push_back(A.row_ptr(i) + k);
          plen.push_back(static_cast<std::int32_t>(std::min(T, l - k)));
        }
        R.piece_ptr.push_back(static_cast<std::int64_t>(plen.size()));
      } else {
        R.long_row_ptr.push_back(R.long_row_ptr.back() + l);
        for (std::int64_t k = 0; k < l; ++k) {
          R.long_col_idx.push_back(A.col_idx(A.row_ptr(i) + k));
          R.long_values.push_back(A.values(A.row_ptr(i) + k));
        }
      }
    } else {
      len.push_back(static_cast<std::int32_t>(l));
    }
  }
  for (std::size_t q = 0; q < plen.size(); ++q) {
    len.push_back(plen[q]);
    begin.push_back(pbegin[q]);
    full.push_back(plen[q]);
  }
  const std::int64_t npos = static_cast<std::int64_t>(len.size());
  R.perm.resize(static_cast<std::size_t>(npos));
  std::iota(R.perm.begin(), R.perm.end(), 0);
  if (sigma > 1)
    for (std::int64_t w = 0; w < npos; w += sigma)
      std::stable_sort(R.perm.begin() + w, R.perm.begin() + std::min(npos, w + sigma),
                       [&](std::int32_t a, std::int32_t b) { return full[a] > full[b]; });
  for (const auto v : R.perm) R.row_len.push_back(len[v]);
  if (!split)
    for (const auto r : R.long_rows)
      R.long_pos.push_back(static_cast<std::int32_t>(std::find(R.perm.begin(), R.perm.end(), r) - R.perm.begin()));
  for (std::int64_t s = 0; s * C < npos; ++s) {
    std::int32_t w = 0;
    for (std::int64_t p = s * C; p < std::min(npos, (s + 1) * C); ++p) w = std::max(w, R.row_len[p]);
    R.slice_width.push_back(w);
    R.slice_ptr.push_back(R.slice_ptr.back() + C * w);
    R.col_idx.resize(static_cast<std::size_t>(R.slice_ptr.back()), 0);
    R.values.resize(static_cast<std::size_t>(R.slice_ptr.back()), Value(0));
    for (std::int64_t p = s * C; p < std::min(npos, (s + 1) * C); ++p)
      for (std::int32_t j = 0; j < R.row_len[p]; ++j) {
        R.col_idx[R.slice_ptr[s] + j * C + (p - s * C)] = A.col_idx(begin[R.perm[p]] + j);
        R.values[R.slice_ptr[s] + j * C + (p - s * C)] = A.values(begin[R.perm[p]] + j);
      }
  }
  return R;
}

/// Equal bit for bit: same length and the same bytes.
template <class T, class View>
::testing::AssertionResult same_bits(const std::vector<T>& want, const View& got, const char* what) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got);
  if (h.extent(0) != want.size())
    return ::testing::AssertionFailure() << what << ": " << h.extent(0) << " entries, want " << want.size();
  if (!want.empty() && std::memcmp(h.data(), want.data(), want.size() * sizeof(T)) != 0) {
    std::size_t k = 0;
    while (std::memcmp(&h(k), &want[k], sizeof(T)) == 0) ++k;
    return ::testing::AssertionFailure() << what << " differs first at " << k << ": " << h(k) << ", want " << want[k];
  }
  return ::testing::AssertionSuccess();
}

template <class Value, class Sell>
void expect_same_sell(const RefSell<Value>& R, const Sell& S, bool split, const std::string& where) {
  SCOPED_TRACE(where);
  EXPECT_TRUE(same_bits(R.perm, S.perm, "perm"));
  EXPECT_TRUE(same_bits(R.row_len, S.row_len, "row_len"));
  EXPECT_TRUE(same_bits(R.slice_width, S.slice_width, "slice_width"));
  EXPECT_TRUE(same_bits(R.slice_ptr, S.slice_ptr, "slice_ptr"));
  EXPECT_TRUE(same_bits(R.col_idx, S.col_idx, "col_idx"));
  EXPECT_TRUE(same_bits(R.values, S.values, "values"));
  EXPECT_TRUE(same_bits(R.long_rows, S.long_rows, "long_rows"));
  if (split) {
    if (!R.long_rows.empty() || S.piece_ptr.extent(0) > 0) EXPECT_TRUE(same_bits(R.piece_ptr, S.piece_ptr, "piece_ptr"));
  } else {
    EXPECT_TRUE(same_bits(R.long_pos, S.long_pos, "long_pos"));
    EXPECT_TRUE(same_bits(R.long_row_ptr, S.long_row_ptr, "long_row_ptr"));
    EXPECT_TRUE(same_bits(R.long_col_idx, S.long_col_idx, "long_col_idx"));
    EXPECT_TRUE(same_bits(R.long_values, S.long_values, "long_values"));
  }
}

}  // namespace

TEST(ParallelAnalysis, RowStatisticsMatchTheSerialDefinition) {
  for (const std::int32_t n : {1000, 65536, 200003}) {
    const auto A = irregular<double, std::int64_t>(n, 5000, 7 + n);
    const auto ref = serial_stats(A.row_ptr.data(), A.col_idx.data(), n, A.ncols);
    const auto s = pspmv::compute_row_stats(A.row_ptr.data(), n, A.ncols);
    EXPECT_EQ(s.min_len, ref.min_len);
    EXPECT_EQ(s.max_len, ref.max_len);
    EXPECT_EQ(s.empty_rows, ref.empty);
    EXPECT_EQ(s.histogram, ref.histogram);
    EXPECT_EQ(s.mean, static_cast<double>(ref.sum / n));  // integer sums: exact in any order
    const long double var = ref.sum2 / n - (ref.sum / n) * (ref.sum / n);
    EXPECT_EQ(s.stddev, std::sqrt(static_cast<double>(var)));
    // Column spread and narrow share, bit for bit against the definition (ctest runs this suite
    // again at 1 and 3 threads), through both entry points.
    const double spread = pspmv::column_spread(A.row_ptr.data(), A.col_idx.data(), n, A.ncols);
    EXPECT_EQ(spread, serial_spread(A.row_ptr.data(), A.col_idx.data(), n, A.ncols)) << n;
    const double chain = static_cast<double>(ref.spread / static_cast<long double>(A.nnz()));
    EXPECT_NEAR(spread, chain, 1e-12 * chain) << n;  // and the one-chain sum within rounding
    const auto facts = pspmv::matrix_facts(A, 32, true, true);
    EXPECT_EQ(facts.stats.col_spread, spread) << n;
    EXPECT_EQ(facts.stats.narrow_share, serial_narrow_share(A.row_ptr.data(), A.col_idx.data(), n)) << n;
    EXPECT_EQ(facts.stats.histogram, ref.histogram) << n;
    EXPECT_EQ(facts.stats.stddev, std::sqrt(static_cast<double>(var))) << n;
    const auto ls = pspmv::compute_lane_slots(A.row_ptr.data(), n, 32);
    EXPECT_EQ(ls.thread_per_row, serial_team_slots(A.row_ptr.data(), n, 1, 32));
    EXPECT_EQ(facts.lane_slots.thread_per_row, ls.thread_per_row) << n;
    EXPECT_EQ(facts.lane_slots.team_per_row, ls.team_per_row) << n;
    EXPECT_EQ(pspmv::matrix_facts(A, 7, false).lane_slots.thread_per_row,
              serial_team_slots(A.row_ptr.data(), n, 1, 7)) << n;
    EXPECT_THROW(pspmv::matrix_facts(A, 0, false), pspmv::InvalidArgument);
    const auto M = mid_rows<double, std::int64_t>(n, 200000, 3 + n);
    EXPECT_EQ(pspmv::column_spread(M.row_ptr.data(), M.col_idx.data(), n, M.ncols),
              serial_spread(M.row_ptr.data(), M.col_idx.data(), n, M.ncols)) << n;
    const double mid_narrow = pspmv::matrix_facts(M, 32, false, true).stats.narrow_share;
    EXPECT_EQ(mid_narrow, serial_narrow_share(M.row_ptr.data(), M.col_idx.data(), n)) << n;
    if (n > 2048) EXPECT_TRUE(mid_narrow > 0.3 && mid_narrow < 0.7) << "narrow and wide blocks: " << mid_narrow;
    for (const int v : {1, 2, 8, 32})
      EXPECT_EQ(pspmv::team_lane_slots(A.row_ptr.data(), n, v, 32), serial_team_slots(A.row_ptr.data(), n, v, 32)) << v;
    const auto ls7 = pspmv::compute_lane_slots(A.row_ptr.data(), n, 7);  // groups across piece ends
    EXPECT_EQ(ls7.thread_per_row, serial_team_slots(A.row_ptr.data(), n, 1, 7));
  }
}

TEST(ParallelAnalysis, ValidationReportsTheFirstOffence) {
  auto A = irregular<float, std::int64_t>(200003, 1000, 3);
  // Two bad columns in different pieces: the first one is named.
  const std::int64_t k1 = A.row_ptr(150001), k2 = A.row_ptr(70001);
  const auto c1 = A.col_idx(k1), c2 = A.col_idx(k2);
  A.col_idx(k1) = 1000;
  A.col_idx(k2) = -3;
  try {
    pspmv::validate(A);
    ADD_FAILURE() << "a column out of range was accepted";
  } catch (const pspmv::InvalidMatrix& e) {
    EXPECT_NE(std::string(e.what()).find("column index -3 of row 70001 (entry " + std::to_string(k2) + ")"),
              std::string::npos)
        << e.what();
  }
  A.col_idx(k1) = c1;
  A.col_idx(k2) = c2;
  EXPECT_NO_THROW(pspmv::validate(A));
  // row_ptr decreasing at two rows: the first one is named.
  const auto r1 = A.row_ptr(190000), r2 = A.row_ptr(100000);
  A.row_ptr(190000) = A.row_ptr(190001) + 1;
  A.row_ptr(100000) = A.row_ptr(100001) + 1;
  try {
    pspmv::validate(A);
    ADD_FAILURE() << "a decreasing row_ptr was accepted";
  } catch (const pspmv::InvalidMatrix& e) {
    EXPECT_NE(std::string(e.what()).find("row_ptr decreases at row 100000"), std::string::npos) << e.what();
  }
  A.row_ptr(190000) = r1;
  A.row_ptr(100000) = r2;
  EXPECT_NO_THROW(pspmv::validate(A));
}

TEST(ParallelAnalysis, NnzPartitionMatchesBinarySearch) {
  const auto A = irregular<double, std::int32_t>(100000, 3000, 11);
  for (const std::int64_t nb : {1, 2, 3, 16, 1000}) {
    std::vector<std::int32_t> part(static_cast<std::size_t>(nb) + 1);
    pspmv::nnz_partition(A.row_ptr.data(), A.nrows, nb, part.data());
    for (std::int64_t b = 1; b < nb; ++b) {
      const std::int32_t target = static_cast<std::int32_t>((static_cast<long double>(A.nnz()) * b) / nb);
      std::int32_t i = 0;
      while (i < A.nrows && A.row_ptr(i) < target) ++i;  // the first row_ptr reaching the target
      EXPECT_EQ(part[b], i) << nb << " blocks, block " << b;
    }
    EXPECT_EQ(part[0], 0);
    EXPECT_EQ(part[nb], A.nrows);
  }
}

// Blocks of masked groups over several pieces of rows (the scan's pieces combined), 32- and 64-bit
// offsets, more blocks than rows: each boundary the first row whose serial cost prefix (a row
// ceil(len / 8) + 1) reaches b x total / blocks.
template <class Offset>
void expect_group_blocks(const pspmv::HostCsr<double, Offset>& A, const std::int64_t nb) {
  std::vector<std::int64_t> cost(static_cast<std::size_t>(A.nrows) + 1, 0);
  for (std::int32_t i = 0; i < A.nrows; ++i)
    cost[i + 1] = cost[i] + (static_cast<std::int64_t>(A.row_ptr(i + 1) - A.row_ptr(i)) + 7) / 8 + 1;
  std::vector<std::int32_t> part(static_cast<std::size_t>(nb) + 1);
  pspmv::group_partition(A.row_ptr.data(), A.nrows, nb, part.data(), 8);
  EXPECT_EQ(part[0], 0);
  EXPECT_EQ(part[nb], A.nrows);
  for (std::int64_t b = 1; b < nb; ++b) {
    const auto target = static_cast<std::int64_t>(static_cast<long double>(cost.back()) * b / nb);
    const auto first = std::lower_bound(cost.begin(), cost.end() - 1, target) - cost.begin();
    EXPECT_EQ(part[b], first) << A.nrows << " rows, " << nb << " blocks, block " << b;
  }
}

TEST(ParallelAnalysis, GroupPartitionMatchesTheSerialPrefix) {
  const auto A = irregular<double, std::int32_t>(200001, 3000, 13);
  const auto B = irregular<double, std::int64_t>(140000, 500, 17);
  for (const std::int64_t nb : {1, 2, 3, 16, 1000}) {
    expect_group_blocks(A, nb);
    expect_group_blocks(B, nb);
  }
  const auto few = irregular<double, std::int64_t>(10, 40, 3);
  expect_group_blocks(few, 64);  // more blocks than rows: empty blocks
}

TEST(ParallelAnalysis, SellMatchesTheSerialDefinitionBitForBit) {
  const auto A = irregular<double, std::int64_t>(70001, 4000, 5);
  for (const int C : {4, 8, 16, 32, 64})
    for (const std::int64_t sigma : {std::int64_t{1}, std::int64_t{3}, std::int64_t{C} * 32, std::int64_t{70001}})
      for (const std::int64_t T : {0, 64})
        for (const bool split : {false, true}) {
          if (T == 0 && split) continue;
          const auto S = pspmv::csr_to_sell(A, C, sigma, T, split);
          expect_same_sell(serial_sell(A, C, sigma, T, split), S, split,
                           "C=" + std::to_string(C) + " sigma=" + std::to_string(sigma) + " long=" + std::to_string(T) +
                               (split ? " split" : ""));
          const auto shape = pspmv::sell_shape(A.row_ptr.data(), A.nrows, C, sigma, T, split);
          EXPECT_EQ(shape.stored, S.stored());
          EXPECT_EQ(shape.pieces, S.npieces());
        }
}

TEST(ParallelAnalysis, PlanStoresTheSellOfTheSerialDefinition) {
  // analyze() converts from the order choose() sorted for the shape; the plan's SELL is the
  // definition's, bit for bit, and its phases add up to no more than the total.
  using Exec = Kokkos::DefaultHostExecutionSpace;
  const auto A = irregular<float, std::int32_t>(70001, 4000, 9);
  for (const bool split : {false, true}) {
    pspmv::AnalyzeOptions o;
    o.format = pspmv::Format::sell;
    o.slice_height = 8;
    o.sigma = 256;
    o.sell_long_row = 64;
    o.sell_long_split = split;
    const auto plan = pspmv::analyze<Exec>(A, o);
    expect_same_sell(serial_sell(A, 8, 256, 64, split), plan.sell(), split, split ? "split" : "warp");
    const auto& ph = plan.analysis();
    EXPECT_EQ(ph.total, plan.analyze_seconds());
    EXPECT_GT(ph.conversion, 0.0);
    EXPECT_GT(ph.validation + ph.statistics + ph.choice, 0.0);
    EXPECT_LE(ph.validation + ph.statistics + ph.choice + ph.conversion + ph.partition + ph.copy + ph.fingerprint,
              ph.total * (1 + 1e-9));
  }
}

// SELL built in the default execution space's memory from its copy of the CSR (on a GPU: on
// the device) is the host conversion's, bit for bit: every C, sigma (team-ranked windows, and
// wider ones sorted on the host) and long-row handling.
TEST(ParallelAnalysis, SellBuiltInTheSpaceMatchesTheHostBitForBit) {
  using Exec = Kokkos::DefaultExecutionSpace;
  using Mem = Exec::memory_space;
  const auto A = irregular<float, std::int64_t>(20011, 3000, 13);
  const auto dA = pspmv::copy_to<Mem>(A);
  for (const int C : {4, 8, 16, 32, 64})
    for (const std::int64_t sigma : {std::int64_t{1}, std::int64_t{3}, std::int64_t{C} * 32, std::int64_t{6000}})
      for (const std::int64_t T : {0, 64})
        for (const bool split : {false, true}) {
          if (T == 0 && split) continue;
          const std::string where = "C=" + std::to_string(C) + " sigma=" + std::to_string(sigma) +
                                    " long=" + std::to_string(T) + (split ? " split" : "");
          const auto H = pspmv::csr_to_sell(A, C, sigma, T, split);
          expect_same_sell_views(H, pspmv::csr_to_sell_on(Exec(), dA, C, sigma, T, split), where);
          if (C == 8) {  // with the host's sorted order handed over
            const auto order = pspmv::detail::sell_order(A.row_ptr.data(), A.nrows, sigma, T, split);
            expect_same_sell_views(H, pspmv::csr_to_sell_on(Exec(), dA, C, sigma, T, split, &order.perm),
                                   where + " host order");
          }
        }
  // The order and its shape computed in the space (what a plan of a matrix in device memory
  // takes) are the host's: windows in order (rows of descending length, the first ones long:
  // kept as they are), out of order with lengths within sell_team_count_max of each other
  // (A: sorted by counting) and further apart (rows of 1,500 among short ones: the short ones
  // counted, the rows of 1,500 ranked), at the counting's bound (lengths 0 and 1,023: all
  // counted; 0 and 1,024: the rows of 1,024 ranked), with a counted row at exactly the bound
  // beside ranked tails of distinct lengths (G: 0, 1,023, 1,024, 1,500, 1,024, 5 repeating) and
  // in windows of 4,096 rows (ranked whole: beyond sell_team_count_max_sigma).
  {
    const auto D = random_rows<double, std::int32_t>(
        9001, 4000, 3, [](std::int32_t i, std::mt19937&) { return (9001 - i) * 300 / 9001; },
        [](std::int32_t, std::mt19937& rng) { return static_cast<std::int32_t>(rng() % 4000u); });
    const auto dD = pspmv::copy_to<Mem>(D);
    const auto check = [&](const auto& H, const auto& dH, const std::string& name) {
      for (const int C : {4, 32})
        for (const std::int64_t sigma : {std::int64_t{1}, std::int64_t{C}, std::int64_t{C} * 32, std::int64_t{4096}})
          for (const std::int64_t T : {0, 64})
            for (const bool split : {false, true}) {
              if (T == 0 && split) continue;
              const std::string where = name + " C=" + std::to_string(C) + " sigma=" + std::to_string(sigma) +
                                        " long=" + std::to_string(T) + (split ? " split" : "");
              SCOPED_TRACE(where);
              const auto ho = pspmv::detail::sell_order(H.row_ptr.data(), H.nrows, sigma, T, split);
              const auto hs = pspmv::detail::sell_shape_of(ho, H.row_ptr.data(), H.nrows, C);
              const auto order = pspmv::sell_order_on(Exec(), dH, sigma, T, split);
              const auto ds = pspmv::sell_shape_on(Exec(), order, dH, C);
              EXPECT_TRUE(order.is(sigma, T, split));
              EXPECT_EQ(hs.nslices, ds.nslices);
              EXPECT_EQ(hs.stored, ds.stored);
              EXPECT_EQ(hs.long_rows, ds.long_rows);
              EXPECT_EQ(hs.pieces, ds.pieces);
              EXPECT_EQ(hs.padding, ds.padding);
              EXPECT_TRUE(same_view(ho.perm, order.perm, "perm"));
              EXPECT_TRUE(same_view(ho.rows.len, order.len, "len"));
              EXPECT_TRUE(same_view(ho.rows.long_rows, order.long_rows, "long_rows"));
              expect_same_sell_views(pspmv::csr_to_sell(H, C, sigma, T, split),
                                     pspmv::csr_to_sell_on(Exec(), dH, C, order), where + " from the order");
            }
    };
    const auto F = random_rows<double, std::int32_t>(
        7003, 5000, 4, [](std::int32_t i, std::mt19937&) { return i % 50 == 7 ? 1500 : i % 5; },
        [](std::int32_t, std::mt19937& rng) { return static_cast<std::int32_t>(rng() % 5000u); });
    const auto dF = pspmv::copy_to<Mem>(F);
    check(D, dD, "descending");
    check(A, dA, "irregular");
    check(F, dF, "far apart");
    const auto G = random_rows<double, std::int32_t>(
        601, 4000, 6,
        [](std::int32_t i, std::mt19937&) {
          constexpr std::int32_t lengths[] = {0, 1023, 1024, 1500, 1024, 5};
          return lengths[i % 6];
        },
        [](std::int32_t, std::mt19937& rng) { return static_cast<std::int32_t>(rng() % 4000u); });
    const auto dG = pspmv::copy_to<Mem>(G);
    check(G, dG, "bound beside distinct tails");
    // Slices of long rows alone (width 0 from lengths of -1) at the other heights: 4 in 6 of G's
    // rows are long at a threshold of 64, and they sort first in the window.
    for (const int C : {8, 16, 64}) {
      const std::string where = "long rows alone C=" + std::to_string(C);
      const auto H = pspmv::csr_to_sell(G, C, 4096, 64, false);
      ASSERT_EQ(H.slice_width(0), 0) << where;
      ASSERT_EQ(H.row_len(C - 1), -1) << where;
      expect_same_sell_views(H, pspmv::csr_to_sell_on(Exec(), dG, C, 4096, 64, false), where);
    }
    for (const std::int32_t top : {1023, 1024}) {
      const auto B = random_rows<double, std::int32_t>(
          900, 3000, 5, [top](std::int32_t i, std::mt19937&) { return i % 3 == 1 ? top : i % 4 == 0 ? 0 : i % 7; },
          [](std::int32_t, std::mt19937& rng) { return static_cast<std::int32_t>(rng() % 3000u); });
      check(B, pspmv::copy_to<Mem>(B), "lengths 0 to " + std::to_string(top));
    }
  }
  // Compressed columns: the host's and the space's compression of the same SELL agree bit for
  // bit, on a matrix whose slices straddle the 16-bit span (some compressed, some wide), and on
  // a 27-point stencil (diagonal slices, some sharing their pattern, beside narrow ones).
  for (const bool stencil : {false, true}) {
    const auto W = stencil ? pspmv::generate_stencil<double, std::int32_t>(70, 9, 11, 27)
                           : irregular<double, std::int32_t>(6007, 150000, 9);
    const auto dW = pspmv::copy_to<Mem>(W);
    for (const int C : {4, 8, 16, 32, 64})
      for (const std::int64_t sigma : {std::int64_t{1}, std::int64_t{C} * 32})
        for (const std::int64_t T : {0, 16})
          for (const bool split : {false, true}) {
            if (T == 0 && split) continue;
            if (sigma == 1 && C != 4 && C != 32) continue;  // every C sorted; unsorted at 4 and 32
            const std::string where = std::string(stencil ? "stencil " : "") + "compressed C=" + std::to_string(C) + " sigma=" + std::to_string(sigma) +
                                      " long=" + std::to_string(T) + (split ? " split" : "");
            auto H = pspmv::csr_to_sell(W, C, sigma, T, split);
            pspmv::compress_columns(Kokkos::DefaultHostExecutionSpace(), H);
            ASSERT_TRUE(H.compressed);
            if (stencil && C == 4 && T == 0) ASSERT_GT(H.diagonal_slices, 0) << where;
            // The host's compressed build straight from the CSR (the analysis's) gives the same.
            expect_same_sell_views(H, pspmv::csr_to_compressed_sell(W, C, sigma, T, split), where + " from the CSR");
            auto D = pspmv::csr_to_sell_on(Exec(), dW, C, sigma, T, split);
            pspmv::compress_columns(Exec(), D);
            expect_same_sell_views(H, D, where);
          }
  }
  // A SELL plan of the default space holds the host conversion's matrix.
  pspmv::AnalyzeOptions o;
  o.format = pspmv::Format::sell;
  o.slice_height = 32;
  o.sigma = 1024;
  o.sell_long_row = 64;
  for (const bool split : {false, true}) {
    o.sell_long_split = split;
    const auto plan = pspmv::analyze<Exec>(A, o);
    expect_same_sell_views(pspmv::csr_to_sell(A, 32, 1024, 64, split), plan.sell(), split ? "plan split" : "plan warp");
    o.compress = true;
    auto H = pspmv::csr_to_sell(A, 32, 1024, 64, split);
    pspmv::compress_columns(Kokkos::DefaultHostExecutionSpace(), H);
    expect_same_sell_views(H, pspmv::analyze<Exec>(A, o).sell(), split ? "compressed plan split" : "compressed plan warp");
    o.compress.reset();
  }
}

// A plan built with `like` shares its stored matrix where the representation is the same, and
// multiplies as a plan analyzed on its own.
TEST(ParallelAnalysis, PlanReusesTheStorageOfItsLike) {
  using Exec = Kokkos::DefaultExecutionSpace;
  using PlanT = pspmv::Plan<Exec, double, std::int64_t>;
  const auto A = irregular<double, std::int64_t>(20011, 3000, 17);
  pspmv::AnalyzeOptions o;
  o.format = pspmv::Format::sell;
  o.slice_height = 8;
  o.sell_long_row = 64;
  o.sell_long_split = false;
  o.schedule = pspmv::Schedule::static_chunks;
  const auto first = pspmv::analyze<Exec>(A, o);
  o.schedule = pspmv::Schedule::nnz_balanced;
  const auto again = pspmv::analyze(Exec(), A, o, first);
  const auto alone = pspmv::analyze<Exec>(A, o);
  EXPECT_TRUE(again.analysis().reused);
  EXPECT_TRUE(again.analysis().shares_storage);
  EXPECT_EQ(again.analysis().conversion, 0.0);
  EXPECT_EQ(again.sell().values.data(), first.sell().values.data());
  EXPECT_EQ(again.describe(), alone.describe());
  expect_same_sell_views(alone.sell(), again.sell(), "reused");
  PlanT::vector_type x("x", A.ncols), y1("y1", A.nrows), y2("y2", A.nrows);
  Kokkos::deep_copy(x, 0.5);
  again.multiply(1.0, x, 0.0, y1);
  alone.multiply(1.0, x, 0.0, y2);
  Exec().fence();
  EXPECT_TRUE(same_view(y2, y1, "y"));
  // Another C stores another matrix: analyzed anew, still from the same statistics.
  o.slice_height = 16;
  const auto other = pspmv::analyze(Exec(), A, o, first);
  EXPECT_TRUE(other.analysis().reused);
  EXPECT_FALSE(other.analysis().shares_storage);
  expect_same_sell_views(pspmv::csr_to_sell(A, 16, other.launch().sigma, 64, false), other.sell(), "C=16");
  // A plan of another matrix is refused.
  const auto B = irregular<double, std::int64_t>(20011, 3000, 17);
  EXPECT_THROW(pspmv::analyze(Exec(), B, o, first), pspmv::InvalidArgument);
}

// The analysis's large host arrays ask for transparent huge pages before their first touch
// (detail::advise_huge_pages). Where the kernel's THP mode is "madvise" the advice is what makes a
// mapping eligible, so the mapping that holds the middle of a 16 MiB host_array must say
// "THPeligible: 1" in /proc/self/smaps; without the advice it says 0.
TEST(ParallelAnalysis, LargeHostArraysAskForHugePages) {
#if defined(__linux__)
  std::ifstream mode_file("/sys/kernel/mm/transparent_hugepage/enabled");
  const std::string mode((std::istreambuf_iterator<char>(mode_file)), std::istreambuf_iterator<char>());
  if (mode.find("[madvise]") == std::string::npos)
    GTEST_SKIP() << "transparent huge pages are not in madvise mode here (" << mode << "): the advice cannot be seen";
  if (!pspmv::detail::huge_pages_enabled()) GTEST_SKIP() << "PSPMV_HUGE_PAGES turns the advice off";
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables && std::string(tunables).find("hugetlb") != std::string::npos)
    GTEST_SKIP() << "GLIBC_TUNABLES advises every allocation (" << tunables << "): pspmv's advice cannot be told apart";
  const std::int64_t n = std::int64_t{2} << 20;  // 16 MiB of doubles
  const auto a = pspmv::detail::host_array<double>("pspmv::test_large", n);
  const auto middle = reinterpret_cast<std::uintptr_t>(a.data() + n / 2);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false, found = false;
  int eligible = -1;
  while (std::getline(smaps, line)) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (line.find(':') == std::string::npos || line.find('-') < line.find(':')) {
      if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
        if (found) break;
        inside = lo <= middle && middle < hi;
        continue;
      }
    }
    if (inside && line.rfind("THPeligible:", 0) == 0) {
      eligible = std::stoi(line.substr(12));
      found = true;
    }
  }
  if (!found) GTEST_SKIP() << "this kernel's smaps has no THPeligible field";
  EXPECT_EQ(eligible, 1) << "the mapping holding a 16 MiB host_array is not eligible for huge pages";
#else
  GTEST_SKIP() << "huge pages are advised on Linux only";
#endif
}
