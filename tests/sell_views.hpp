#pragma once
// Comparing two SELL matrices array for array, bit for bit, in any memory spaces: the host's
// conversions against each other and against a build in the default space's memory.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstring>
#include <string>

namespace pspmv_test {

/// Two Views (any memory spaces) hold the same bytes.
template <class A, class B>
::testing::AssertionResult same_view(const A& a, const B& b, const char* what) {
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  if (ha.extent(0) != hb.extent(0))
    return ::testing::AssertionFailure() << what << ": " << hb.extent(0) << " entries, want " << ha.extent(0);
  for (std::size_t k = 0; k < ha.extent(0); ++k)
    if (std::memcmp(&ha(k), &hb(k), sizeof(ha(k))) != 0)
      return ::testing::AssertionFailure() << what << " differs first at " << k << ": " << hb(k) << ", want " << ha(k);
  return ::testing::AssertionSuccess();
}

/// Two SELL matrices (any memory spaces) hold the same sizes, counts and arrays.
template <class H, class D>
void expect_same_sell_views(const H& h, const D& d, const std::string& where) {
  SCOPED_TRACE(where);
  EXPECT_EQ(h.npos, d.npos);
  EXPECT_EQ(h.sigma, d.sigma);
  EXPECT_EQ(h.nnz, d.nnz);
  EXPECT_EQ(h.long_split, d.long_split);
  EXPECT_TRUE(same_view(h.slice_ptr, d.slice_ptr, "slice_ptr"));
  EXPECT_TRUE(same_view(h.slice_width, d.slice_width, "slice_width"));
  EXPECT_TRUE(same_view(h.row_len, d.row_len, "row_len"));
  EXPECT_TRUE(same_view(h.perm, d.perm, "perm"));
  EXPECT_TRUE(same_view(h.col_idx, d.col_idx, "col_idx"));
  EXPECT_TRUE(same_view(h.values, d.values, "values"));
  EXPECT_TRUE(same_view(h.long_rows, d.long_rows, "long_rows"));
  EXPECT_TRUE(same_view(h.long_pos, d.long_pos, "long_pos"));
  EXPECT_TRUE(same_view(h.long_row_ptr, d.long_row_ptr, "long_row_ptr"));
  EXPECT_TRUE(same_view(h.long_col_idx, d.long_col_idx, "long_col_idx"));
  EXPECT_TRUE(same_view(h.long_values, d.long_values, "long_values"));
  EXPECT_TRUE(same_view(h.piece_ptr, d.piece_ptr, "piece_ptr"));
  EXPECT_EQ(h.compressed, d.compressed);
  EXPECT_EQ(h.wide_slices, d.wide_slices);
  EXPECT_EQ(h.diagonal_slices, d.diagonal_slices);
  EXPECT_TRUE(same_view(h.col_base, d.col_base, "col_base"));
  EXPECT_TRUE(same_view(h.off_ptr, d.off_ptr, "off_ptr"));
  EXPECT_TRUE(same_view(h.col_off, d.col_off, "col_off"));
}

}  // namespace pspmv_test
