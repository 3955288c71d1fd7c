// The pages of the host arrays pspmv allocates: every array of detail::huge_page_min_bytes or
// more asks for transparent huge pages before its first touch (detail::advise_huge_pages). The
// kernel marks a mapping so advised with "hg" among its VmFlags in /proc/self/smaps, whatever
// its transparent_hugepage mode, so the advice is checked there, array by array, at its first,
// middle and last entries (host_array starts a large array on a 2 MiB boundary and advises every
// page it touches).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "test_util.hpp"

namespace {

/// The VmFlags of the mapping of /proc/self/smaps that holds `p` ("" where none does).
std::string vm_flags_of(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    const auto dash = line.find('-');
    const auto space = line.find(' ');
    if (dash != std::string::npos && space != std::string::npos && dash < space &&
        line.find_first_not_of("0123456789abcdef") == dash) {  // a mapping's first line: start-end perms ...
      const std::uintptr_t begin = std::stoull(line.substr(0, dash), nullptr, 16);
      const std::uintptr_t end = std::stoull(line.substr(dash + 1, space - dash - 1), nullptr, 16);
      inside = begin <= a && a < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.substr(8) + " ";
    }
  }
  return "";
}

/// Whether the mapping that holds `p` is advised for huge pages.
bool advised_at(const void* p) { return vm_flags_of(p).find(" hg ") != std::string::npos; }

/// Whether the mappings that hold entries 0, n / 2 and n - 1 of `v` are advised for huge pages:
/// host_array's arrays lie on whole huge pages, their ends too.
template <class View>
bool advised(const View& v) {
  const std::size_t n = v.extent(0);
  return n > 0 && advised_at(v.data()) && advised_at(v.data() + n / 2) && advised_at(v.data() + n - 1);
}

bool has_transparent_huge_pages() {
#if defined(__linux__)
  return static_cast<bool>(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"));
#else
  return false;
#endif
}

/// Why the advice cannot be checked here ("" where it can).
std::string why_untestable() {
  if (!has_transparent_huge_pages()) return "this kernel has no transparent huge pages";
  if (!pspmv::detail::huge_pages_enabled()) return "PSPMV_HUGE_PAGES turns the advice off";
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables && std::string(tunables).find("hugetlb") != std::string::npos)
    return "GLIBC_TUNABLES advises every allocation (" + std::string(tunables) + "): pspmv's advice cannot be told apart";
  return "";
}

}  // namespace

TEST(HostPages, LargeArraysThatPspmvAllocatesAreAdvised) {
  const std::string untestable = why_untestable();
  if (!untestable.empty()) GTEST_SKIP() << untestable;
  ASSERT_FALSE(vm_flags_of(&untestable).empty()) << "/proc/self/smaps gives no VmFlags for the stack";
  // The control: a fresh mapping nobody advised (40 MiB: beyond glibc's largest mmap threshold, so
  // never memory of the heap) lacks the flag.
  const std::vector<char> unadvised(std::size_t{40} << 20, 1);
  ASSERT_FALSE(advised_at(unadvised.data() + unadvised.size() / 2)) << "VmFlags:" << vm_flags_of(unadvised.data());
  constexpr std::size_t min_bytes = pspmv::detail::huge_page_min_bytes;
  // A 27-point stencil on 48^3 points: 2.9M entries, 10.9 MiB of columns, 21.8 MiB of values.
  const auto A = pspmv::generate_stencil<double, std::int64_t>(48, 48, 48, 27);
  ASSERT_GE(A.col_idx.extent(0) * sizeof(std::int32_t), min_bytes);
  EXPECT_TRUE(advised(A.col_idx)) << "generate_stencil's columns";
  EXPECT_TRUE(advised(A.values)) << "generate_stencil's values";
  const auto F = pspmv::convert<float, std::int64_t>(A);
  EXPECT_TRUE(advised(F.values)) << "convert's float values";
  const auto B = pspmv::copy_to<Kokkos::HostSpace>(A);
  EXPECT_TRUE(advised(B.col_idx)) << "copy_to's columns";
  EXPECT_TRUE(advised(B.values)) << "copy_to's values";
  const auto S = pspmv::csr_to_sell(A, 8, 256, 0, false);
  EXPECT_TRUE(advised(S.values)) << "csr_to_sell's values";

  // Rows of 8 entries within 1,000 columns of the diagonal at random: no slice is diagonal and
  // every one spans fewer than 65,536 columns, so compress_columns stores 16-bit offsets, 9 MiB.
  const std::int32_t n = 600000;
  std::vector<std::int64_t> rp(1, 0);
  std::vector<std::int32_t> ci;
  std::vector<double> v;
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::int32_t> near(-1000, 1000);
  for (std::int32_t i = 0; i < n; ++i) {
    std::vector<std::int32_t> row;
    while (row.size() < 8) {
      const std::int32_t c = std::min(n - 1, std::max(0, i + near(rng)));
      if (std::find(row.begin(), row.end(), c) == row.end()) row.push_back(c);
    }
    std::sort(row.begin(), row.end());
    for (const std::int32_t c : row) {
      ci.push_back(c);
      v.push_back(1.0);
    }
    rp.push_back(static_cast<std::int64_t>(ci.size()));
  }
  const auto N = pspmv::make_csr<double, std::int64_t>(n, n, rp, ci, v);
  EXPECT_TRUE(advised(N.col_idx)) << "make_csr's columns";
  EXPECT_TRUE(advised(N.values)) << "make_csr's values";
  auto C = pspmv::csr_to_sell(N, 8, 256, 0, false);
  pspmv::compress_columns(Kokkos::DefaultHostExecutionSpace(), C);
  ASSERT_TRUE(C.compressed);
  ASSERT_GE(C.col_off.extent(0) * sizeof(std::uint16_t), min_bytes);
  EXPECT_TRUE(advised(C.col_off)) << "compress_columns' 16-bit offsets";
}

// host_array's large arrays start on a 2 MiB boundary, whatever their entry size (1-16 bytes)
// and length (a whole number of huge pages or not), the pages of both ends are advised, and the
// advised range, every huge page the array touches, lies inside the array's own allocation.
TEST(HostPages, LargeHostArraysLieOnWholeHugePages) {
  const std::string untestable = why_untestable();
  if (!untestable.empty()) GTEST_SKIP() << untestable;
#if defined(__GLIBC__)
  // Fresh mappings, as in the tool (perf/main.cpp): not heap memory an earlier test advised.
  (void)mallopt(M_MMAP_THRESHOLD, static_cast<int>(pspmv::detail::huge_page_min_bytes));
#endif
  constexpr std::uintptr_t huge = pspmv::detail::huge_page_bytes;
  const auto check = [&](const auto& v, std::size_t n) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    const std::string what = std::to_string(sizeof(T)) + "-byte entries, " + std::to_string(n);
    ASSERT_EQ(v.extent(0), n) << what;
    const auto first = reinterpret_cast<std::uintptr_t>(v.data());
    EXPECT_EQ(first % huge, 0u) << what;
    EXPECT_TRUE(advised(v)) << what << "; VmFlags at the first entry:" << vm_flags_of(v.data());
    const auto* record = v.impl_track().template get_record<Kokkos::HostSpace>();
    ASSERT_NE(record, nullptr) << what;
    const auto alloc = reinterpret_cast<std::uintptr_t>(record->data());
    const std::uintptr_t end = (first + n * sizeof(T) + huge - 1) & ~(huge - 1);  // the last advised byte + 1
    EXPECT_GE(first & ~(huge - 1), alloc) << what;
    EXPECT_LE(end, alloc + record->size()) << what;
  };
  struct Pair {
    double a, b;
  };
  constexpr std::size_t min_bytes = pspmv::detail::huge_page_min_bytes;
  for (const std::size_t bytes : {min_bytes + 12345 * 16, 5 * huge}) {
    check(pspmv::detail::host_array<std::uint8_t>("test::host_array_u8", static_cast<std::int64_t>(bytes)), bytes);
    check(pspmv::detail::host_array<std::uint16_t>("test::host_array_u16", static_cast<std::int64_t>(bytes / 2 + 1)),
          bytes / 2 + 1);
    check(pspmv::detail::host_array<std::int32_t>("test::host_array_i32", static_cast<std::int64_t>(bytes / 4)),
          bytes / 4);
    check(pspmv::detail::host_array<double>("test::host_array_f64", static_cast<std::int64_t>(bytes / 8 + 3)),
          bytes / 8 + 3);
    check(pspmv::detail::host_array<Pair>("test::host_array_pair", static_cast<std::int64_t>(bytes / 16)), bytes / 16);
  }
}
