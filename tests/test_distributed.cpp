// DistributedPlan on MPI (run by ctest under mpirun with 1, 2, 3 and 4 ranks): results against
// the single-process plan (bit for bit where the sums are exact or there is one rank) and the
// long-double reference, empty ranks, a rank without off-diagonal part, rows that need every
// rank, formats x mappings x schedules, and errors that every rank throws alike.
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "pspmv/distributed.hpp"
#include "test_util.hpp"

namespace {

using Exec = Kokkos::DefaultHostExecutionSpace;
using Host = pspmv::HostCsr<double, std::int64_t>;
using DPlan = pspmv::DistributedPlan<Exec, double, std::int64_t>;

int rank_of() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int ranks() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/// x_j with few significant bits, so that sums of generated (dyadic) values are exact.
double dyadic_x(std::int64_t j) { return 1.0 + static_cast<double>(j % 5) / 4.0 - (j % 3 == 0 ? 2.0 : 0.0); }

/// y = alpha A x + beta y0 on the distributed plan, gathered on every rank (global rows).
std::vector<double> distributed_result(const DPlan& plan, const std::vector<double>& x, double alpha, double beta,
                                       const std::vector<double>& y0) {
  const std::int64_t cb = plan.col_offsets()[plan.rank()], rb = plan.row_offsets()[plan.rank()];
  DPlan::vector_type dx("x", plan.local_cols()), dy("y", plan.local_rows());
  for (std::int32_t j = 0; j < plan.local_cols(); ++j) dx(j) = x[cb + j];
  for (std::int32_t i = 0; i < plan.local_rows(); ++i) dy(i) = y0[rb + i];
  plan.multiply(Exec(), alpha, dx, beta, dy);
  Exec().fence();
  std::vector<int> counts(plan.ranks()), displs(plan.ranks());
  for (int p = 0; p < plan.ranks(); ++p) {
    counts[p] = static_cast<int>(plan.row_offsets()[p + 1] - plan.row_offsets()[p]);
    displs[p] = static_cast<int>(plan.row_offsets()[p]);
  }
  std::vector<double> y(static_cast<std::size_t>(plan.global_rows()));
  MPI_Allgatherv(dy.data(), plan.local_rows(), MPI_DOUBLE, y.data(), counts.data(), displs.data(), MPI_DOUBLE,
                 MPI_COMM_WORLD);
  return y;
}

/// The single-process plan's result (CSR, thread per row, static chunks: a fixed summation order).
std::vector<double> single_result(const Host& A, const std::vector<double>& x, double alpha, double beta,
                                  const std::vector<double>& y0) {
  pspmv::AnalyzeOptions o;
  o.selection = pspmv::Selection::fixed;
  auto plan = pspmv::analyze<Exec>(A, o);
  decltype(plan)::vector_type dx("x", A.ncols), dy("y", A.nrows);
  for (std::int32_t j = 0; j < A.ncols; ++j) dx(j) = x[j];
  for (std::int32_t i = 0; i < A.nrows; ++i) dy(i) = y0[i];
  plan.multiply(alpha, dx, beta, dy);
  Exec().fence();
  return std::vector<double>(dy.data(), dy.data() + A.nrows);
}

std::vector<double> beta_start(std::int64_t n, double beta) {
  std::vector<double> y0(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    y0[i] = beta == 0.0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(i % 7) / 2.0;
  return y0;
}

/// A matrix given row by row, with values of few significant bits (pspmv::generated_value),
/// so that every summation order gives the same result.
Host exact_rows(std::int32_t nrows, std::int32_t ncols, const std::function<std::vector<std::int32_t>(std::int32_t)>& cols_of) {
  std::vector<std::int64_t> rp(1, 0);
  std::vector<std::int32_t> ci;
  std::vector<double> v;
  for (std::int32_t i = 0; i < nrows; ++i) {
    for (std::int32_t c : cols_of(i)) {
      ci.push_back(c);
      v.push_back(pspmv::generated_value(i, c) - 2.0);
    }
    rp.push_back(static_cast<std::int64_t>(ci.size()));
  }
  return pspmv::make_csr<double, std::int64_t, std::int32_t>(nrows, ncols, rp, ci, v);
}

pspmv::DistributedOptions fixed_csr() {
  pspmv::DistributedOptions o;
  o.diagonal.selection = o.off_diagonal.selection = pspmv::Selection::fixed;
  return o;
}

/// Builds the plan from A (every rank holds it whole) with the partition `offsets`, and checks
/// the result: equal to the single-process plan bit for bit when `exact`, and always within
/// the reference tolerance; for beta = 0 (NaN in y) and beta != 0.
void check_against_single(const Host& A, const std::vector<std::int64_t>& offsets, const pspmv::DistributedOptions& o,
                          bool exact, const std::string& what) {
  const DPlan plan(Exec(), MPI_COMM_WORLD, pspmv::local_rows(A, offsets, rank_of()), o);
  std::vector<double> x(static_cast<std::size_t>(A.ncols));
  for (std::int64_t j = 0; j < A.ncols; ++j) x[j] = dyadic_x(j);
  for (const auto& [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{0.5, 2.0}}) {
    const auto y0 = beta_start(A.nrows, beta);
    const auto got = distributed_result(plan, x, alpha, beta, y0);
    const auto ref = pspmv::reference::spmv(A, alpha, x, beta, y0);
    EXPECT_TRUE(pspmv_test::matches_reference(A, got, ref))
        << what << " on " << ranks() << " ranks, alpha " << alpha << " beta " << beta;
    if (exact) {
      const auto want = single_result(A, x, alpha, beta, y0);
      std::int64_t differ = 0, first = -1;
      for (std::size_t i = 0; i < want.size(); ++i)
        if (std::memcmp(&got[i], &want[i], sizeof(double)) != 0) {
          if (first < 0) first = static_cast<std::int64_t>(i);
          ++differ;
        }
      EXPECT_EQ(differ, 0) << what << " on " << ranks() << " ranks: " << differ << " rows differ bit-wise from the "
                           << "single-process plan, first row " << first;
    }
  }
}

TEST(Distributed, PartitionByNnzBalancesAndCovers) {
  const Host A = pspmv::generate_skewed<double, std::int64_t>(1024);
  std::vector<std::int64_t> rp(A.row_ptr.data(), A.row_ptr.data() + A.nrows + 1);
  for (int parts : {1, 2, 3, 4, 7}) {
    const auto off = pspmv::partition_by_nnz(rp.data(), A.nrows, parts);
    ASSERT_EQ(off.size(), static_cast<std::size_t>(parts) + 1);
    EXPECT_NO_THROW(pspmv::check_partition(off, parts, A.nrows, "test"));
    for (int p = 0; p < parts; ++p) {
      const std::int64_t nnz = rp[off[p + 1]] - rp[off[p]];
      // A part misses its share by at most one row (419 entries at most).
      EXPECT_LE(std::abs(nnz - static_cast<std::int64_t>(A.nnz()) / parts), 419 + parts) << parts << " parts, part " << p;
    }
  }
  const auto even = pspmv::partition_even(10, 4);
  EXPECT_EQ(even, (std::vector<std::int64_t>{0, 3, 6, 8, 10}));
  const auto many = pspmv::partition_even(2, 4);
  EXPECT_EQ(many, (std::vector<std::int64_t>{0, 1, 2, 2, 2}));
}

TEST(Distributed, GeneratedMatricesEqualTheSingleProcessPlanBitForBit) {
  const int n = ranks();
  const Host stencil = pspmv::generate_stencil<double, std::int64_t>(8, 7, 6, 27);
  const Host even = pspmv::generate_even<double, std::int64_t>(999);
  const Host skewed = pspmv::generate_skewed<double, std::int64_t>(448);
  for (const auto* A : {&stencil, &even, &skewed}) {
    std::vector<std::int64_t> rp(A->row_ptr.data(), A->row_ptr.data() + A->nrows + 1);
    check_against_single(*A, pspmv::partition_by_nnz(rp.data(), A->nrows, n), fixed_csr(), true,
                         "nnz partition, " + std::to_string(A->nrows) + " rows");
    check_against_single(*A, pspmv::partition_even(A->nrows, n), fixed_csr(), true,
                         "even partition, " + std::to_string(A->nrows) + " rows");
  }
}

TEST(Distributed, EveryFormatMappingAndScheduleWithinTheReferenceTolerance) {
  const Host A = pspmv::generate_random<double, std::int64_t>(700, 700, 9.0, 3);
  const auto off = pspmv::partition_even(A.nrows, ranks());
  for (auto f : {pspmv::Format::csr, pspmv::Format::sell})
    for (auto m : {pspmv::Mapping::thread_per_row, pspmv::Mapping::team_per_row})
      for (auto s : {pspmv::Schedule::static_chunks, pspmv::Schedule::dynamic_chunks, pspmv::Schedule::nnz_balanced,
                     pspmv::Schedule::work_stealing}) {
        pspmv::DistributedOptions o;
        o.diagonal.format = o.off_diagonal.format = f;
        o.diagonal.mapping = o.off_diagonal.mapping = m;
        o.diagonal.schedule = o.off_diagonal.schedule = s;
        check_against_single(A, off, o, ranks() == 1 && f == pspmv::Format::csr && m == pspmv::Mapping::thread_per_row,
                             std::string(pspmv::to_string(f)) + " " + std::string(pspmv::to_string(m)) + " " +
                                 std::string(pspmv::to_string(s)));
      }
  // The automatic plans of both blocks.
  check_against_single(A, off, {}, false, "automatic plans");
}

TEST(Distributed, MoreRanksThanRowsLeavesRanksEmpty) {
  // 2 rows: with 3 or 4 ranks some own nothing and still take part in every collective.
  const Host A = exact_rows(2, 2, [](std::int32_t i) {
    return i == 0 ? std::vector<std::int32_t>{0, 1} : std::vector<std::int32_t>{1};
  });
  check_against_single(A, pspmv::partition_even(2, ranks()), fixed_csr(), true, "2 x 2");
  const Host E = exact_rows(0, 0, [](std::int32_t) { return std::vector<std::int32_t>{}; });
  const DPlan empty(Exec(), MPI_COMM_WORLD, pspmv::local_rows(E, pspmv::partition_even(0, ranks()), rank_of()));
  DPlan::vector_type x("x", 0), y("y", 0);
  EXPECT_NO_THROW(empty.multiply(Exec(), 1.0, x, 0.0, y));
  EXPECT_EQ(empty.halo_size(), 0);
}

TEST(Distributed, ARankWithoutOffDiagonalPart) {
  // Upper bidiagonal: row i holds columns i and i + 1; the last rank's rows need nothing from others.
  const std::int32_t n = 40;
  const Host A = exact_rows(n, n, [&](std::int32_t i) {
    return i + 1 < n ? std::vector<std::int32_t>{i, i + 1} : std::vector<std::int32_t>{i};
  });
  const auto off = pspmv::partition_even(n, ranks());
  const DPlan plan(Exec(), MPI_COMM_WORLD, pspmv::local_rows(A, off, rank_of()), fixed_csr());
  if (rank_of() == ranks() - 1) {
    EXPECT_EQ(plan.off_diagonal_nnz(), 0);
    EXPECT_FALSE(plan.off_diagonal().has_value());
    EXPECT_EQ(plan.halo_size(), 0);
  } else {
    EXPECT_EQ(plan.off_diagonal_nnz(), 1);
    EXPECT_EQ(plan.halo_size(), 1);
    // One row of several needs the halo: the off-diagonal plan keeps that row alone.
    EXPECT_EQ(plan.off_diagonal_rows(), 1);
    EXPECT_EQ(plan.off_diagonal_compressed(), plan.local_rows() >= 2);
  }
  EXPECT_EQ(plan.diagonal_nnz() + plan.off_diagonal_nnz(), static_cast<std::int64_t>(A.row_ptr(off[rank_of() + 1]) -
                                                                                      A.row_ptr(off[rank_of()])));
  check_against_single(A, off, fixed_csr(), true, "upper bidiagonal");
}

TEST(Distributed, RowsThatNeedEveryRank) {
  // Dense: every row reads every x entry, so every rank receives from every other.
  const std::int32_t n = 13;
  const Host A = exact_rows(n, n, [&](std::int32_t) {
    std::vector<std::int32_t> c(n);
    for (std::int32_t j = 0; j < n; ++j) c[j] = j;
    return c;
  });
  const auto off = pspmv::partition_even(n, ranks());
  const DPlan plan(Exec(), MPI_COMM_WORLD, pspmv::local_rows(A, off, rank_of()), fixed_csr());
  EXPECT_EQ(plan.halo_size(), n - plan.local_cols());
  EXPECT_EQ(static_cast<int>(plan.pattern().recv_ranks.size()), ranks() - 1);
  EXPECT_EQ(static_cast<int>(plan.pattern().send_ranks.size()), ranks() - 1);
  EXPECT_EQ(plan.send_size(), static_cast<std::int64_t>(ranks() - 1) * plan.local_cols());
  EXPECT_FALSE(plan.off_diagonal_compressed());  // every row needs the halo
  EXPECT_EQ(plan.off_diagonal_rows(), ranks() > 1 ? plan.local_rows() : 0);
  check_against_single(A, off, fixed_csr(), true, "dense 13 x 13");
}

TEST(Distributed, ScatterFromOneRankEqualsLocalRows) {
  const Host A = pspmv::generate_stencil<double, std::int64_t>(5, 5, 5, 7);
  const Host none;
  const auto d = pspmv::scatter_rows(MPI_COMM_WORLD, rank_of() == 0 ? A : none, 0);
  std::vector<std::int64_t> rp(A.row_ptr.data(), A.row_ptr.data() + A.nrows + 1);
  const auto want = pspmv::local_rows(A, pspmv::partition_by_nnz(rp.data(), A.nrows, ranks()), rank_of());
  EXPECT_EQ(d.first_row, want.first_row);
  EXPECT_EQ(d.global_rows, A.nrows);
  ASSERT_EQ(d.rows.nrows, want.rows.nrows);
  ASSERT_EQ(d.rows.nnz(), want.rows.nnz());
  for (std::int32_t i = 0; i <= d.rows.nrows; ++i) EXPECT_EQ(d.rows.row_ptr(i), want.rows.row_ptr(i));
  for (std::int64_t k = 0; k < d.rows.nnz(); ++k) {
    EXPECT_EQ(d.rows.col_idx(k), want.rows.col_idx(k));
    EXPECT_EQ(d.rows.values(k), want.rows.values(k));
  }
}

TEST(Distributed, SharedMatricesWithinTheReferenceTolerance) {
  const std::string dir = pspmv_test::shared_matrices_dir();
  if (dir.empty()) GTEST_SKIP() << "no shared matrices (set PSPMV_MATRICES)";
  for (const char* name : {"rajat01.mtx", "bcsstk13.mtx", "west0067_jumbled.mtx", "lp_e226.mtx"}) {
    const std::string path = dir + "/" + name;
    if (!std::ifstream(path)) continue;
    const Host A = pspmv::read_matrix_market<double>(path);
    std::vector<std::int64_t> rp(A.row_ptr.data(), A.row_ptr.data() + A.nrows + 1);
    check_against_single(A, pspmv::partition_by_nnz(rp.data(), A.nrows, ranks()), fixed_csr(), ranks() == 1, name);
    check_against_single(A, pspmv::partition_even(A.nrows, ranks()), {}, false, std::string(name) + ", automatic");
  }
}

/// Every rank's message of the error thrown, and whether all ranks saw the same one.
bool same_on_every_rank(const std::string& message) {
  int len = static_cast<int>(message.size()), lo = 0, hi = 0;
  MPI_Allreduce(&len, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&len, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (lo != hi) return false;
  std::string root = message;
  MPI_Bcast(root.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  const int same = root == message ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

TEST(Distributed, InconsistentRowsMakeEveryRankThrowTheSameError) {
  const Host A = pspmv::generate_stencil<double, std::int64_t>(4, 4, 4, 7);
  const auto off = pspmv::partition_even(A.nrows, ranks());
  const int last = ranks() - 1;
  {  // the last rank's rows start one row late
    auto d = pspmv::local_rows(A, off, rank_of());
    if (rank_of() == last) d.first_row += 1;
    std::string message;
    try {
      DPlan plan(Exec(), MPI_COMM_WORLD, d);
      ADD_FAILURE() << "no error on rank " << rank_of();
    } catch (const pspmv::InvalidMatrix& e) {
      message = e.what();
    }
    EXPECT_NE(message.find("rank " + std::to_string(last) + "'s rows start at global row"), std::string::npos) << message;
    EXPECT_TRUE(same_on_every_rank(message)) << message;
  }
  {  // the last rank sees a different global matrix
    auto d = pspmv::local_rows(A, off, rank_of());
    if (rank_of() == last) d.global_cols += 1;
    std::string message;
    try {
      DPlan plan(Exec(), MPI_COMM_WORLD, d);
      ADD_FAILURE() << "no error on rank " << rank_of();
    } catch (const pspmv::Error& e) {
      message = e.what();
    }
    EXPECT_NE(message.find("rank " + std::to_string(last)), std::string::npos) << message;
    EXPECT_TRUE(same_on_every_rank(message)) << message;
  }
  {  // the last rank's CSR is broken: a column outside the matrix
    auto d = pspmv::local_rows(A, off, rank_of());
    if (rank_of() == last && d.rows.nnz() > 0) d.rows.col_idx(0) = A.ncols + 5;
    std::string message;
    try {
      DPlan plan(Exec(), MPI_COMM_WORLD, d);
      ADD_FAILURE() << "no error on rank " << rank_of();
    } catch (const pspmv::InvalidMatrix& e) {
      message = e.what();
    }
    EXPECT_EQ(message.rfind("rank " + std::to_string(last) + ": column index", 0), 0u) << message;
    EXPECT_TRUE(same_on_every_rank(message)) << message;
  }
}

TEST(Distributed, AWrongVectorLengthIsNamedWithItsRank) {
  const Host A = pspmv::generate_stencil<double, std::int64_t>(4, 4, 4, 7);
  const DPlan plan(Exec(), MPI_COMM_WORLD, pspmv::local_rows(A, pspmv::partition_even(A.nrows, ranks()), rank_of()));
  const int last = ranks() - 1;
  DPlan::vector_type x("x", plan.local_cols() + (rank_of() == last ? 1 : 0)), y("y", plan.local_rows());
  std::string message;
  try {
    plan.multiply(Exec(), 1.0, x, 0.0, y);
    ADD_FAILURE() << "no error on rank " << rank_of();
  } catch (const pspmv::DimensionError& e) {
    message = e.what();
    EXPECT_EQ(e.expected() + 1, e.got());
  }
  EXPECT_NE(message.find("on rank " + std::to_string(last) + ": length of x"), std::string::npos) << message;
  EXPECT_TRUE(same_on_every_rank(message)) << message;
  // The plan still works after the agreed error.
  DPlan::vector_type good("x", plan.local_cols());
  EXPECT_NO_THROW(plan.multiply(Exec(), 1.0, good, 0.0, y));
}

TEST(Distributed, PhaseTimesAndTheExchangeAlone) {
  const Host A = pspmv::generate_stencil<double, std::int64_t>(6, 6, 6, 27);
  const DPlan plan(Exec(), MPI_COMM_WORLD, pspmv::local_rows(A, pspmv::partition_even(A.nrows, ranks()), rank_of()));
  DPlan::vector_type x("x", plan.local_cols()), y("y", plan.local_rows());
  pspmv::PhaseTimes t;
  t.total = -1;
  plan.multiply(Exec(), 1.0, x, 0.0, y, &t);
  EXPECT_GE(t.total, 0.0);
  EXPECT_GE(t.total + 1e-12, t.pack + t.diagonal + t.wait + t.off_diagonal);
  EXPECT_GE(plan.exchange(Exec(), x), 0.0);
  EXPECT_EQ(plan.halo_bytes_received(), plan.halo_size() * 8);
  EXPECT_FALSE(plan.staged_through_host());  // host memory goes to MPI directly
  // Sent and received entries balance over all ranks.
  std::int64_t mine[2] = {plan.halo_size(), plan.send_size()}, sum[2] = {0, 0};
  MPI_Allreduce(mine, sum, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(sum[0], sum[1]);
  if (ranks() > 1) {
    EXPECT_GT(sum[0], 0);
  }
}

}  // namespace
