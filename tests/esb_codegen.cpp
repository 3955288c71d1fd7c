// The ESB slice loop (detail::SellSliceColumns::slice_sum_of) at each fixed slice height, with
// 32-bit columns, 16-bit column offsets and a float matrix under double vectors, one function
// each, compiled with the library's flags and read back with objdump by the test
// sell_fixed_heights_codegen (tests/CMakeLists.txt). In the library these loops are inlined into
// its launches, several heights to a function; here each has its own. A function's name says
// the form the build takes (ExecTraits::row_gathers): esb_gathers_* (the loop over a column's C
// rows vectorized, x gathered by vector gathers where the compiler's tuning favours them),
// esb_registers_* (a build with AVX-512 gathers, PSPMV_HOST_MASKED_ROWS, at the heights of one
// register, detail::register_slices: the loop in intrinsics, a vector gather per column) or
// esb_scalar_* (a build tuned for AMD Zen: C scalar sums, nothing packed).
#include <pspmv/detail/sell_kernels.hpp>

#include <cstdint>

static_assert(PSPMV_HOST_ROW_GATHERS == (pspmv::ExecTraits<Kokkos::OpenMP>::row_gathers ? 1 : 0),
              "the macro and the OpenMP space's row_gathers disagree");

namespace {
template <class Value, bool Compressed = false, class MValue = Value>
using Slices = pspmv::detail::SellSliceColumns<Kokkos::OpenMP, Value, true, Compressed, MValue>;
}  // namespace

#define PSPMV_ESB_PLAIN(value, c, name)                                                            \
  extern "C" __attribute__((noinline, flatten)) void name(const Slices<value>& f, const std::int32_t s) { \
    f.template slice_sum_of<c>(s, f.col_idx.data() + f.slice_ptr(s), f.x.data());                  \
  }
// form: the name of the other heights' form; reg: that of the heights of one register (8 doubles,
// 16 floats).
#define PSPMV_ESB(form, reg)                                                                         \
  PSPMV_ESB_PLAIN(double, 4, esb_##form##_f64_c4)                                                    \
  PSPMV_ESB_PLAIN(double, 8, esb_##reg##_f64_c8)                                                     \
  PSPMV_ESB_PLAIN(double, 16, esb_##form##_f64_c16)                                                  \
  PSPMV_ESB_PLAIN(float, 4, esb_##form##_f32_c4)                                                     \
  PSPMV_ESB_PLAIN(float, 8, esb_##form##_f32_c8)                                                     \
  PSPMV_ESB_PLAIN(float, 16, esb_##reg##_f32_c16)                                                    \
  extern "C" __attribute__((noinline, flatten)) void esb_##reg##_f64_offsets_c8(                     \
      const Slices<double, true>& f, const std::int32_t s) {                                         \
    f.template slice_sum_of<8>(s, f.col_off.data() + f.off_ptr(s), f.x.data() + f.col_base(s));      \
  }                                                                                                  \
  extern "C" __attribute__((noinline, flatten)) void esb_##reg##_mixed_c8(                           \
      const Slices<double, false, float>& f, const std::int32_t s) {                                 \
    f.template slice_sum_of<8>(s, f.col_idx.data() + f.slice_ptr(s), f.x.data());                   \
  }

// The names say what register_slices says of the build.
static_assert(pspmv::detail::register_slices<double, double, 8> == (PSPMV_HOST_MASKED_ROWS == 1) &&
                  pspmv::detail::register_slices<float, float, 16> == (PSPMV_HOST_MASKED_ROWS == 1) &&
                  pspmv::detail::register_slices<double, float, 8> == (PSPMV_HOST_MASKED_ROWS == 1) &&
                  !pspmv::detail::register_slices<double, double, 16> &&
                  !pspmv::detail::register_slices<float, float, 8>,
              "register_slices and the functions' names disagree");

#if PSPMV_HOST_MASKED_ROWS
PSPMV_ESB(gathers, registers)
#elif PSPMV_HOST_ROW_GATHERS
PSPMV_ESB(gathers, gathers)
#else
PSPMV_ESB(scalar, scalar)
#endif
