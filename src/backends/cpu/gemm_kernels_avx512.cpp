// GEMM kernels for AVX-512 (16-float vectors, 32 registers: a 6 x 64 tile
// keeps 24 accumulators, 4 B vectors and a broadcast in registers).
#include "src/backends/cpu/gemm.h"

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
#define GLINT_SIMD_AVX512 1
#define GLINT_GEMM_MR 6
#define GLINT_GEMM_NV 4
#include "src/backends/cpu/gemm_kernels.h"
#include "src/backends/cpu/gemm_small.h"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace glint::cpu::gemm_detail {
KernelSet kernelsAvx512() { return {"avx512", kMR, kNR, &block, &smallBlock}; }
}  // namespace glint::cpu::gemm_detail

#else
namespace glint::cpu::gemm_detail {
KernelSet kernelsAvx512() { return {"avx512", 0, 0, nullptr, nullptr}; }
}  // namespace glint::cpu::gemm_detail
#endif
