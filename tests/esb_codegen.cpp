// The ESB slice loop (detail::SellSliceColumns::slice_sum_of) at each fixed slice height, one
// function per value type and height, compiled with the library's flags and read back with
// objdump by the test sell_fixed_heights_codegen (tests/CMakeLists.txt). The library inlines
// these loops into its launches, where no symbol names the height; here each has its own.
// A function's name says which form the build takes (ExecTraits::row_gathers): esb_gathers_*
// (the loop over a column's C rows vectorized, x gathered with vector gathers) or esb_scalar_*
// (a build tuned for AMD Zen: C scalar sums).
#include <pspmv/detail/sell_kernels.hpp>

// ExecTraits' choice (host_row_gathers) as a macro, to name the functions; checked below.
#if defined(PSPMV_HOST_GATHERS)
#define PSPMV_ESB_GATHERS (PSPMV_HOST_GATHERS != 0)
#elif defined(__tune_znver1__) || defined(__tune_znver2__) || defined(__tune_znver3__) || defined(__tune_znver4__)
#define PSPMV_ESB_GATHERS 0
#else
#define PSPMV_ESB_GATHERS 1
#endif
static_assert(PSPMV_ESB_GATHERS == (pspmv::host_row_gathers ? 1 : 0), "esb_codegen.cpp: out of step with host_row_gathers");

namespace {
template <class Value>
using Slices = pspmv::detail::SellSliceColumns<Kokkos::OpenMP, Value, true, false, Value>;
template <class Value, int C>
void slice(const Slices<Value>& f, const std::int32_t s) {
  f.template slice_sum_of<C>(s, f.col_idx.data() + f.slice_ptr(s), f.x.data());
}
}  // namespace

#define PSPMV_ESB_FORM(value, c, name)                                                               \
  extern "C" __attribute__((noinline)) void name(const Slices<value>& f, const std::int32_t s) { \
    slice<value, c>(f, s);                                                                       \
  }
#define PSPMV_ESB(form)                           \
  PSPMV_ESB_FORM(double, 4, esb_##form##_f64_c4)  \
  PSPMV_ESB_FORM(double, 8, esb_##form##_f64_c8)  \
  PSPMV_ESB_FORM(double, 16, esb_##form##_f64_c16) \
  PSPMV_ESB_FORM(float, 4, esb_##form##_f32_c4)   \
  PSPMV_ESB_FORM(float, 8, esb_##form##_f32_c8)   \
  PSPMV_ESB_FORM(float, 16, esb_##form##_f32_c16)

#if !defined(__FMA__)
// Without FMA (below AVX2) no vector gathers exist to look for: nothing to read back.
#elif PSPMV_ESB_GATHERS
PSPMV_ESB(gathers)
#else
PSPMV_ESB(scalar)
#endif
