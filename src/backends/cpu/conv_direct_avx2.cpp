// Direct convolution kernels for AVX2 (8-float vectors, 16 registers).
#include "src/backends/cpu/conv_direct.h"

#if (defined(__x86_64__) || defined(__i386__)) && !defined(__EMSCRIPTEN__)
// Standard headers first, so none of their inline code is built for AVX2.
#include <immintrin.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
#define GLINT_SIMD_AVX2 1
#define GLINT_CONV_REGISTERS 16
#include "src/backends/cpu/conv_direct_kernels.h"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace glint::cpu::conv_direct {
KernelSet kernelsAvx2() { return {"avx2", kWidth, &forwardDispatch, &filterGradDispatch}; }
}  // namespace glint::cpu::conv_direct

#else
namespace glint::cpu::conv_direct {
KernelSet kernelsAvx2() { return {"avx2", 0, nullptr, nullptr}; }
}  // namespace glint::cpu::conv_direct
#endif
