// GEMM kernels for AVX2 + FMA (8-float vectors, 16 registers: a 6 x 16 tile
// keeps 12 accumulators, 2 B vectors and a broadcast in registers).
#include "src/backends/cpu/gemm.h"

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
#define GLINT_GEMM_MR 6
#define GLINT_GEMM_NV 2
#include "src/backends/cpu/gemm_kernels.h"
#include "src/backends/cpu/gemm_small.h"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace glint::cpu::gemm_detail {
KernelSet kernelsAvx2() { return {"avx2", kMR, kNR, &block, &smallBlock}; }
}  // namespace glint::cpu::gemm_detail

#else
namespace glint::cpu::gemm_detail {
KernelSet kernelsAvx2() { return {"avx2", 0, 0, nullptr, nullptr}; }
}  // namespace glint::cpu::gemm_detail
#endif
