// What a plan takes from its input: a host CSR plan on a host space holds the caller's arrays
// (AnalyzeOptions::copy_matrix = false, the default) or its own copy; a host CSR goes to a
// device's memory chunk by chunk through two staging buffers (tested here with host memory
// standing in for the device's); and a CSR already in the space's memory is analyzed there,
// into the plan analyze() makes of a host copy (same choice, same stored bytes).
#include <cstring>
#include <mutex>
#include <random>

#include "sell_views.hpp"
#include "test_util.hpp"

namespace {

using pspmv_test::same_view;

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
constexpr bool host_plan = std::is_same<Mem, Kokkos::HostSpace>::value;

/// Mostly short rows (0-12 entries, some empty), every 97th row long (200-700); random columns.
template <class Value, class Offset>
pspmv::HostCsr<Value, Offset> irregular(std::int32_t nrows, std::int32_t ncols, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Offset> rp(1, 0);
  std::vector<std::int32_t> ci;
  std::vector<Value> v;
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  for (std::int32_t i = 0; i < nrows; ++i) {
    const std::int32_t len = i % 97 == 5 ? 200 + static_cast<std::int32_t>(rng() % 500) : static_cast<std::int32_t>(rng() % 13);
    std::vector<std::int32_t> c(static_cast<std::size_t>(len));
    for (auto& x : c) x = static_cast<std::int32_t>(rng() % static_cast<unsigned>(ncols));
    std::sort(c.begin(), c.end());
    for (const auto x : c) {
      ci.push_back(x);
      v.push_back(static_cast<Value>(val(rng)));
    }
    rp.push_back(static_cast<Offset>(ci.size()));
  }
  return pspmv::make_csr<Value, Offset, std::int32_t>(nrows, ncols, rp, ci, v);
}

/// Two plans store the same matrix, byte for byte, and made the same choice.
template <class P, class Q>
void expect_same_plan(const P& a, const Q& b, const std::string& where) {
  SCOPED_TRACE(where);
  EXPECT_EQ(a.describe(), b.describe());
  EXPECT_EQ(a.reason(), b.reason());
  EXPECT_EQ(a.format(), b.format());
  EXPECT_TRUE(same_view(a.matrix().row_ptr, b.matrix().row_ptr, "row_ptr"));
  EXPECT_TRUE(same_view(a.matrix().col_idx, b.matrix().col_idx, "col_idx"));
  EXPECT_TRUE(same_view(a.matrix().values, b.matrix().values, "values"));
  pspmv_test::expect_same_sell_views(a.sell(), b.sell(), where + ": SELL");
}

/// y = A x of a plan, on the host.
template <class P>
std::vector<double> product(const P& plan) {
  typename P::vector_type x("x", plan.ncols()), y("y", plan.nrows());
  Kokkos::deep_copy(x, 0.25);
  plan.multiply(1.0, x, 0.0, y);
  Exec().fence();
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

/// A plan of dA, a CSR in the default space's memory: through analyze(space, dA, options) where
/// that memory is a device's, else through the constructor that form calls (a host CSR takes
/// analyze()'s host form).
template <class PlanT, class Csr>
PlanT analyze_resident(const Csr& dA, const pspmv::AnalyzeOptions& o) {
  if constexpr (host_plan)
    return PlanT(pspmv::ResidentInput{}, Exec(), dA, pspmv::detail::model_options(o));
  else
    return pspmv::analyze(Exec(), dA, o);
}

/// The options of the plans compared: CSR, and SELL with long rows kept and split.
std::vector<std::pair<std::string, pspmv::AnalyzeOptions>> variants() {
  std::vector<std::pair<std::string, pspmv::AnalyzeOptions>> v;
  v.emplace_back("auto", pspmv::AnalyzeOptions{});
  pspmv::AnalyzeOptions o;
  o.format = pspmv::Format::csr;
  v.emplace_back("csr", o);
  o.schedule = pspmv::Schedule::nnz_balanced;
  v.emplace_back("csr nnz_balanced", o);
  pspmv::AnalyzeOptions t;
  t.format = pspmv::Format::csr;
  t.mapping = pspmv::Mapping::team_per_row;
  v.emplace_back("csr team_per_row", t);
  for (const bool split : {false, true}) {
    pspmv::AnalyzeOptions s;
    s.format = pspmv::Format::sell;
    s.slice_height = 8;
    s.sigma = 64;
    s.sell_long_row = 64;
    s.sell_long_split = split;
    v.emplace_back(split ? "sell split" : "sell long rows apart", s);
  }
  pspmv::AnalyzeOptions d;  // the SELL parameters of a deterministic plan (long rows kept)
  d.deterministic = true;
  v.emplace_back("deterministic", d);
  pspmv::AnalyzeOptions k;
  k.keep_permuted = true;
  v.emplace_back("keep_permuted", k);
  pspmv::AnalyzeOptions c;
  c.compress = true;
  v.emplace_back("compress", c);
  return v;
}

}  // namespace

// A host CSR plan holds the caller's arrays unless copy_matrix (or the caller's Views are
// unmanaged); either way it multiplies alike, and like-reuse and built_from still hold.
TEST(PlanInput, HostCsrPlanSharesTheCallersArrays) {
  const auto A = irregular<double, std::int64_t>(70001, 5000, 3);
  pspmv::AnalyzeOptions o;
  o.format = pspmv::Format::csr;
  const auto shared = pspmv::analyze<Exec>(A, o);
  o.copy_matrix = true;
  const auto copied = pspmv::analyze<Exec>(A, o);
  EXPECT_FALSE(copied.analysis().shares_input);
  EXPECT_NE(static_cast<const void*>(copied.matrix().values.data()), static_cast<const void*>(A.values.data()));
  if (host_plan) {
    EXPECT_TRUE(shared.analysis().shares_input);
    EXPECT_EQ(static_cast<const void*>(shared.matrix().values.data()), static_cast<const void*>(A.values.data()));
    EXPECT_EQ(static_cast<const void*>(shared.matrix().col_idx.data()), static_cast<const void*>(A.col_idx.data()));
  } else {
    EXPECT_FALSE(shared.analysis().shares_input) << "a device plan cannot hold host arrays";
  }
  expect_same_plan(copied, shared, "shared against copied");
  EXPECT_EQ(product(copied), product(shared));
  EXPECT_TRUE(shared.built_from(A));
  EXPECT_TRUE(shared.matches(A));

  // Plans of the same matrix reusing the shared one share it too.
  pspmv::AnalyzeOptions t;
  t.format = pspmv::Format::csr;
  t.schedule = pspmv::Schedule::nnz_balanced;
  const auto again = pspmv::analyze(Exec(), A, t, shared);
  EXPECT_TRUE(again.analysis().shares_storage);
  EXPECT_EQ(again.analysis().shares_input, host_plan);
  EXPECT_EQ(product(again), product(copied));
  // ...unless the new plan asks for its own copy.
  t.copy_matrix = true;
  const auto own = pspmv::analyze(Exec(), A, t, shared);
  EXPECT_FALSE(own.analysis().shares_input);
  EXPECT_NE(static_cast<const void*>(own.matrix().values.data()), static_cast<const void*>(A.values.data()));
  EXPECT_EQ(product(own), product(copied));

  // The plan keeps the arrays alive after the caller's matrix is gone.
  std::vector<double> want = product(copied);
  auto plan = [&] {
    auto B = irregular<double, std::int64_t>(70001, 5000, 3);
    pspmv::AnalyzeOptions f;
    f.format = pspmv::Format::csr;
    return pspmv::analyze<Exec>(B, f);
  }();
  EXPECT_EQ(product(plan), want);

  // Unmanaged Views (the caller's own memory, which Kokkos cannot keep alive) are copied.
  o.copy_matrix = false;
  pspmv::HostCsr<double, std::int64_t> U;
  U.nrows = A.nrows;
  U.ncols = A.ncols;
  U.row_ptr = Kokkos::View<std::int64_t*, Kokkos::HostSpace>(A.row_ptr.data(), A.row_ptr.extent(0));
  U.col_idx = Kokkos::View<std::int32_t*, Kokkos::HostSpace>(A.col_idx.data(), A.col_idx.extent(0));
  U.values = Kokkos::View<double*, Kokkos::HostSpace>(A.values.data(), A.values.extent(0));
  const auto unmanaged = pspmv::analyze<Exec>(U, o);
  EXPECT_FALSE(unmanaged.analysis().shares_input);
  EXPECT_NE(static_cast<const void*>(unmanaged.matrix().values.data()), static_cast<const void*>(A.values.data()));
  EXPECT_EQ(product(unmanaged), want);
}

// The staged upload and download, with host memory standing in for the device's and for the
// pinned buffers: chunks smaller than each array, an array shorter than a chunk, an empty one
// and a chunk smaller than one entry; the copy is the source, byte for byte.
TEST(PlanInput, StagedCopyIsTheSource) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  using Stager = pspmv::detail::Stager<Host, Kokkos::HostSpace>;
  const std::pair<std::int32_t, std::size_t> cases[] = {
      {301, 8}, {3001, 1000}, {30011, 4096 + 12}, {30011, 1 << 20}, {200003, std::size_t{2} << 20}};
  for (const auto& [rows, chunk] : cases) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    const auto A = irregular<float, std::int64_t>(rows, 2000, 9);
    Stager::buffer_type buffers[2] = {Stager::buffer_type("a", chunk), Stager::buffer_type("b", chunk)};
    Kokkos::View<std::int64_t*, Kokkos::HostSpace> rp("rp", A.row_ptr.extent(0));
    Kokkos::View<std::int32_t*, Kokkos::HostSpace> ci("ci", A.col_idx.extent(0)), none("none", 0);
    Kokkos::View<float*, Kokkos::HostSpace> v("v", A.values.extent(0)), head("head", 7);
    Kokkos::View<std::int32_t*, Kokkos::HostSpace> empty_src("empty", 0);
    std::vector<std::uint64_t> hashes[3], empty_hashes(1, 1);
    {
      Stager s(Host(), buffers, chunk);
      // Chunks of whole 1 MiB pieces hash in the fill; other sizes in a pass of their own.
      const bool whole = chunk % pspmv::detail::fingerprint_piece == 0;
      EXPECT_EQ(s.copy(rp, A.row_ptr.data(), &hashes[0]), whole);
      s.copy(none, empty_src.data(), &empty_hashes);
      EXPECT_TRUE(empty_hashes.empty()) << "an empty array has no pieces";
      EXPECT_EQ(s.copy(ci, A.col_idx.data(), &hashes[1]), whole);
      EXPECT_EQ(s.copy(v, A.values.data(), &hashes[2]), whole);
      s.copy(head, A.values.data() + 100);
      s.finish();
      const std::size_t bytes = A.bytes() + 7 * sizeof(float);
      EXPECT_GE(s.chunks(), bytes / chunk / 2) << "copied chunk by chunk";
    }
    // The fingerprint's piece hashes, taken in the fill (chunks of whole 1 MiB pieces) or in a
    // pass of their own: the standalone pass's, piece for piece.
    EXPECT_EQ(hashes[0], pspmv::detail::piece_hashes(A.row_ptr.data(), A.row_ptr.extent(0) * sizeof(std::int64_t)));
    EXPECT_EQ(hashes[1], pspmv::detail::piece_hashes(A.col_idx.data(), A.col_idx.extent(0) * sizeof(std::int32_t)));
    EXPECT_EQ(hashes[2], pspmv::detail::piece_hashes(A.values.data(), A.values.extent(0) * sizeof(float)));
    if (chunk == (std::size_t{2} << 20)) EXPECT_GT(hashes[1].size(), 2u) << "several pieces hashed in the fill";
    if (chunk == 8) {  // a buffer narrower than an entry is refused
      Stager narrow(Host(), buffers, 4);
      EXPECT_THROW(narrow.copy(rp, A.row_ptr.data()), pspmv::InvalidArgument);
    }
    EXPECT_TRUE(same_view(A.row_ptr, rp, "row_ptr"));
    EXPECT_TRUE(same_view(A.col_idx, ci, "col_idx"));
    EXPECT_TRUE(same_view(A.values, v, "values"));
    EXPECT_EQ(0, std::memcmp(head.data(), A.values.data() + 100, 7 * sizeof(float)));
    // The other way (copy_back), after copies in the same stager and with nothing before it.
    std::vector<std::int64_t> rp_back(rp.extent(0), -1);
    std::vector<float> v_back(v.extent(0), -1.0f);
    std::vector<std::int32_t> nothing_back(1, 42);
    {
      Stager s(Host(), buffers, chunk);
      s.copy(ci, A.col_idx.data());
      s.copy_back(rp_back.data(), rp);
      s.copy_back(nothing_back.data(), none);
      s.copy_back(v_back.data(), v);
      EXPECT_GE(s.chunks(), (rp.extent(0) * 8 + v.extent(0) * 4) / chunk) << "copied back chunk by chunk";
    }
    EXPECT_EQ(0, std::memcmp(rp_back.data(), A.row_ptr.data(), rp_back.size() * sizeof(std::int64_t)));
    EXPECT_EQ(0, std::memcmp(v_back.data(), A.values.data(), v_back.size() * sizeof(float)));
    EXPECT_EQ(nothing_back[0], 42) << "an empty array writes nothing";
    if (chunk == 8) {
      Stager narrow(Host(), buffers, 4);
      EXPECT_THROW(narrow.copy_back(rp_back.data(), rp), pspmv::InvalidArgument);
    }
  }
  // upload() into the default space's memory (on a GPU: through the pinned buffers).
  const auto A = irregular<float, std::int64_t>(30011, 2000, 9);
  pspmv::detail::StagedFingerprint fp;
  const auto B = pspmv::detail::upload(Exec(), A, &fp);
  // A staged upload (a device's memory) takes A's fingerprint; a plain copy leaves it.
  constexpr bool staged = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
  EXPECT_EQ(fp.taken, staged);
  if (fp.taken) EXPECT_EQ(fp.value, pspmv::fingerprint(A));
  EXPECT_TRUE(same_view(A.row_ptr, B.row_ptr, "uploaded row_ptr"));
  EXPECT_TRUE(same_view(A.col_idx, B.col_idx, "uploaded col_idx"));
  EXPECT_TRUE(same_view(A.values, B.values, "uploaded values"));
}

// A CSR already in the space's memory is analyzed there: the same plan as analyze() of the
// host matrix (choice, reason, stored bytes, product), for CSR and SELL (long rows kept apart
// and split), f64 and f32; a CSR plan holds the resident arrays unless copy_matrix.
TEST(PlanInput, ResidentCsrGivesTheHostPlan) {
  const auto A64 = irregular<double, std::int64_t>(70001, 5000, 5);
  const auto A32 = pspmv::convert<float, std::int32_t>(A64);
  const auto run = [](const auto& A) {
    using Value = typename std::decay_t<decltype(A)>::value_type;
    using Offset = typename std::decay_t<decltype(A)>::offset_type;
    using PlanT = pspmv::Plan<Exec, Value, Offset>;
    const auto dA = pspmv::copy_to<Mem>(A);
    for (const auto& [name, o] : variants()) {
      const auto from_host = pspmv::analyze<Exec>(A, o);
      const auto resident = analyze_resident<PlanT>(dA, o);
      expect_same_plan(from_host, resident, name);
      EXPECT_EQ(product(from_host), product(resident)) << name;
      EXPECT_EQ(resident.analysis().device_input, !host_plan);
      // On a GPU a SELL plan's order and shape were computed there (the host sorted nothing).
      EXPECT_EQ(resident.analysis().device_order, !host_plan && resident.format() == pspmv::Format::sell) << name;
      // row_ptr came to the host only for a CSR plan's nnz-balanced blocks.
      EXPECT_EQ(resident.analysis().row_ptr_read_back,
                !host_plan && resident.format() == pspmv::Format::csr &&
                    resident.schedule() == pspmv::Schedule::nnz_balanced)
          << name;
      if (resident.format() == pspmv::Format::csr) {
        EXPECT_TRUE(resident.analysis().shares_input) << name;
        EXPECT_EQ(static_cast<const void*>(resident.matrix().values.data()), static_cast<const void*>(dA.values.data()));
      }
    }
    pspmv::AnalyzeOptions c;
    c.format = pspmv::Format::csr;
    c.copy_matrix = true;
    const auto copied = analyze_resident<PlanT>(dA, c);
    EXPECT_FALSE(copied.analysis().shares_input);
    EXPECT_NE(static_cast<const void*>(copied.matrix().values.data()), static_cast<const void*>(dA.values.data()));
    EXPECT_EQ(product(copied), product(pspmv::analyze<Exec>(A, c)));
  };
  run(A64);
  run(A32);
  // Rows of 0 to 8 entries (mean 4): on a GPU the short-row rule keeps the automatic plan CSR, its
  // facts taken in device memory as from the host.
  const auto short_rows = pspmv::generate_random<double, std::int32_t>(70001, 5000, 4.0, 5);
  run(short_rows);
  if (!host_plan) EXPECT_EQ(pspmv::analyze<Exec>(short_rows).format(), pspmv::Format::csr);
}

// multiply() takes x and y as any contiguous rank-1 View of the plan's type in its memory space
// (the plan's own vector types, Kokkos::View<double*>, a non-const x, LayoutLeft, unmanaged
// Views) and gives the same y, bit for bit, as with the plan's vector types.
TEST(PlanInput, MultiplyTakesContiguousViewsOfAnyType) {
  const auto A = irregular<double, std::int32_t>(3001, 2500, 21);
  const auto plan = pspmv::analyze<Exec>(A);
  using PlanT = std::decay_t<decltype(plan)>;
  typename PlanT::vector_type x("x", A.ncols), want("want", A.nrows);
  {
    auto hx = Kokkos::create_mirror_view(x);
    for (std::int32_t j = 0; j < A.ncols; ++j) hx(j) = 0.25 * (j % 17) - 1.0;
    Kokkos::deep_copy(x, hx);
  }
  plan.multiply(Exec(), 2.0, typename PlanT::const_vector_type(x), 0.0, want);
  const auto same = [&](const auto& y, const char* what) {
    Exec().fence();
    EXPECT_TRUE(same_view(want, y, what));
  };
  Kokkos::View<double*> y1("y1", A.nrows);
  plan.multiply(2.0, x, 0.0, y1);  // non-const x, a View with Kokkos' default arguments for y
  same(y1, "non-const x");
  Kokkos::View<double*, Kokkos::LayoutLeft, Mem> xl("xl", A.ncols), yl("yl", A.nrows);
  Kokkos::deep_copy(xl, x);
  plan.multiply(Exec(), 2.0, xl, 0.0, yl);
  same(yl, "LayoutLeft");
  Kokkos::View<const double*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> xu(x.data(), x.extent(0));
  Kokkos::View<double*, Mem> yu_owner("yu", A.nrows);
  Kokkos::View<double*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> yu(yu_owner.data(), yu_owner.extent(0));
  Kokkos::deep_copy(yu, 1.0);
  plan.multiply(Exec(), 2.0, xu, 0.0, yu, plan.make_workspace());  // beta 0: y's 1.0 must not survive
  same(yu, "unmanaged");
  Kokkos::View<double*> short_y("short", A.nrows - 1);
  EXPECT_THROW(plan.multiply(2.0, x, 0.0, short_y), pspmv::DimensionError);
  EXPECT_THROW(plan.multiply(2.0, Kokkos::subview(y1, std::make_pair(0, A.ncols)), 0.0, y1), pspmv::InvalidArgument);
}

// The row statistics and lane slots of a CSR in the space's memory, computed there, are the
// host pass's field for field: empty rows, rows longer than a lane group, nrows not a multiple
// of the lane width, 32- and 64-bit offsets, and the shared matrices where present.
TEST(PlanInput, ResidentRowStatisticsAreTheHostOnes) {
  const auto expect_same = [](const auto& A, const std::string& name) {
    SCOPED_TRACE(name);
    for (const int W : {32, 7}) {
      const pspmv::MatrixFacts host = pspmv::matrix_facts(A, W, false, false, 0, true);
      const auto on = pspmv::detail::matrix_facts_on(Exec(), pspmv::copy_to<Mem>(A), W);
      ASSERT_TRUE(on.has_value());
      const pspmv::RowStats &h = host.stats, &d = on->stats;
      EXPECT_EQ(d.nrows, h.nrows);
      EXPECT_EQ(d.ncols, h.ncols);
      EXPECT_EQ(d.nnz, h.nnz);
      EXPECT_EQ(d.min_len, h.min_len);
      EXPECT_EQ(d.max_len, h.max_len);
      EXPECT_EQ(d.empty_rows, h.empty_rows);
      EXPECT_EQ(d.histogram, h.histogram);
      EXPECT_EQ(d.mean, h.mean);
      EXPECT_EQ(d.stddev, h.stddev);
      EXPECT_EQ(d.cv, h.cv);
      EXPECT_EQ(on->lane_slots.lane_width, host.lane_slots.lane_width);
      EXPECT_EQ(on->lane_slots.thread_per_row, host.lane_slots.thread_per_row);
      EXPECT_EQ(on->lane_slots.team_per_row, host.lane_slots.team_per_row);
      EXPECT_EQ(on->lane_slots.useful_thread_per_row, host.lane_slots.useful_thread_per_row);
      EXPECT_EQ(on->lane_slots.useful_team_per_row, host.lane_slots.useful_team_per_row);
      EXPECT_EQ(on->lane_slots.vector_slots, W == 32);  // a lane width that is a power of two
      EXPECT_EQ(host.lane_slots.vector_slots, W == 32);
      for (int e = 0; e < 5; ++e) EXPECT_EQ(on->lane_slots.team_at_vector[e], host.lane_slots.team_at_vector[e]);
    }
  };
  expect_same(irregular<double, std::int32_t>(100003, 5000, 11), "irregular, 32-bit offsets");
  expect_same(irregular<float, std::int64_t>(1000, 70000, 12), "irregular, 64-bit offsets");
  expect_same(pspmv::generate_skewed<double, std::int32_t>(20000), "skewed");
  expect_same(pspmv::make_csr<double, std::int32_t, std::int32_t>(3, 3, {0, 0, 0, 0}, {}, {}), "no entries");
  const std::string dir = pspmv_test::shared_matrices_dir();
  for (const char* name : {"bcsstk13", "Erdos971", "rajat01", "west0067_jumbled"})
    if (!dir.empty()) expect_same(pspmv::read_matrix_market<double, std::int32_t>(dir + "/" + name + ".mtx"), name);
  EXPECT_FALSE(pspmv::detail::matrix_facts_on(Exec(), pspmv::copy_to<Mem>(pspmv::make_csr<double, std::int32_t, std::int32_t>(
                                                          0, 4, {0}, {}, {})),
                                              32)
                   .has_value());
}

// The narrow-column and shifted-row shares that decide compression, computed in the space's
// memory for a resident CSR, equal the host pass's, on blocks of narrow, wide and mixed column spans; a
// transpose of a resident CSR is refused.
TEST(PlanInput, ResidentColumnSharesAreTheHostOnes) {
  const std::int32_t n = 5000, ncols = 300000;
  const auto A = [&] {
    std::vector<std::int64_t> rp(1, 0);
    std::vector<std::int32_t> ci;
    std::vector<double> v;
    for (std::int32_t i = 0; i < n; ++i) {
      // rows 0-1023 narrow, 1024-2047 wide (one far column), then every 300th row reaches far
      ci.push_back(i % 1000);
      if ((i >= 1024 && i < 2048 && i % 500 == 7) || (i >= 2048 && i % 300 == 0)) ci.push_back(ncols - 1 - i);
      while (v.size() < ci.size()) v.push_back(1.0);
      rp.push_back(static_cast<std::int64_t>(ci.size()));
    }
    return pspmv::make_csr<double, std::int64_t, std::int32_t>(n, ncols, rp, ci, v);
  }();
  // Rows of one entry at column i % 1000 repeat the previous row shifted by one, except at
  // i % 1000 == 0 and beside the rows with a far column: most blocks are diagonal.
  for (const int D : {4, 8, 32}) {
    const pspmv::RowStats host = pspmv::matrix_facts(A, 32, false, true, D).stats;
    pspmv::RowStats resident;
    pspmv::detail::column_shares_on(Exec(), pspmv::copy_to<Mem>(A), resident, true, D);
    EXPECT_GT(host.narrow_share, 0.0);
    EXPECT_LT(host.narrow_share, 1.0);
    EXPECT_EQ(resident.narrow_share, host.narrow_share);
    EXPECT_GT(host.diagonal_share, 0.8) << "D=" << D;
    EXPECT_LT(host.diagonal_share, 1.0) << "D=" << D;
    EXPECT_EQ(resident.diagonal_share, host.diagonal_share) << "D=" << D;
    EXPECT_EQ(resident.diagonal_block, D);
  }
  pspmv::AnalyzeOptions t;
  t.operation = pspmv::Operation::transpose;
  using PlanT = pspmv::Plan<Exec, double, std::int64_t>;
  const auto dA = pspmv::copy_to<Mem>(A);
  EXPECT_THROW(analyze_resident<PlanT>(dA, t), pspmv::InvalidArgument);
}

// Invalid resident matrices throw what validate() throws for the host copy.
TEST(PlanInput, ResidentCsrIsValidatedLikeTheHostOne) {
  using PlanT = pspmv::Plan<Exec, double, std::int64_t>;
  const auto message = [](const auto& f) -> std::string {
    try {
      f();
    } catch (const pspmv::Error& e) {
      return e.what();
    }
    return "no error";
  };
  auto A = irregular<double, std::int64_t>(3001, 500, 11);
  // A column out of range in row 1234 (and a later one), a decreasing row_ptr, row_ptr[0] not
  // 0, row_ptr[nrows] beyond the entries, and a column out of range in the row after ten empty
  // ones (the entry's row is searched on the device).
  const std::int64_t k = A.row_ptr(1234) + 1 < A.row_ptr(1235) ? A.row_ptr(1234) + 1 : A.row_ptr(1234);
  ASSERT_LT(k, A.row_ptr(1235)) << "row 1234 needs an entry";
  for (int c = 0; c < 5; ++c) {
    auto B = pspmv::copy_to<Kokkos::HostSpace>(A);
    if (c == 0) {
      B.col_idx(k) = 500;
      B.col_idx(B.nnz() - 1) = -1;
    } else if (c == 1) {
      B.row_ptr(77) = B.row_ptr(78) + 1;
    } else if (c == 2) {
      B.row_ptr(0) = 1;
    } else if (c == 3) {
      B.row_ptr(B.nrows) = B.nnz() + 5;
    } else {
      for (std::int64_t i = 101; i <= 110; ++i) B.row_ptr(i) = B.row_ptr(100);  // rows 100-109 empty
      ASSERT_LT(B.row_ptr(110), B.row_ptr(111));
      B.col_idx(B.row_ptr(110)) = 500;
    }
    const auto dB = pspmv::copy_to<Mem>(B);
    const std::string want = message([&] { pspmv::validate(B); });
    ASSERT_NE(want, "no error");
    if (c == 4) EXPECT_NE(want.find("of row 110 "), std::string::npos) << want;
    EXPECT_EQ(message([&] { analyze_resident<PlanT>(dB, {}); }), want);
  }
  const auto dA = pspmv::copy_to<Mem>(A);
  pspmv::AnalyzeOptions t;
  t.selection = pspmv::Selection::tune;
  EXPECT_NE(message([&] { PlanT(pspmv::ResidentInput{}, Exec(), dA, t); }), "no error");
  if constexpr (!host_plan) EXPECT_NE(message([&] { pspmv::analyze(Exec(), dA, t); }), "no error");
}
