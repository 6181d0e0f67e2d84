// Direct convolution kernels for AVX-512VL on 8-float vectors: the
// outC = 8 layers fill no 16-float vector, but AVX-512 doubles the registers
// to 32, so a block keeps twice the pixels (a 28-wide row in one).
#include "src/backends/cpu/conv_direct.h"

#if (defined(__x86_64__) || defined(__i386__)) && !defined(__EMSCRIPTEN__)
// Standard headers first, so none of their inline code is built for AVX-512.
#include <immintrin.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512vl,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,fma")
#endif
#define GLINT_SIMD_AVX2 1
#define GLINT_CONV_REGISTERS 32
#include "src/backends/cpu/conv_direct_kernels.h"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace glint::cpu::conv_direct {
KernelSet kernelsAvx512Ymm() {
  return {"avx512-ymm", kWidth, &forwardDispatch, &filterGradDispatch};
}
}  // namespace glint::cpu::conv_direct

#else
namespace glint::cpu::conv_direct {
KernelSet kernelsAvx512Ymm() { return {"avx512-ymm", 0, nullptr, nullptr}; }
}  // namespace glint::cpu::conv_direct
#endif
