#pragma once
// A portable float vector on GCC/Clang vector extensions. Its width follows the
// instruction set of the including file: 16 floats for AVX-512, 8 for AVX2+FMA,
// 4 otherwise (SSE2, WebAssembly SIMD128, NEON). Kernel files built for a
// wider set than the compiler flags (a target pragma) say so by defining
// GLINT_SIMD_AVX512 or GLINT_SIMD_AVX2 first: C++ front ends do not update
// __AVX512F__ & co. after a pragma. Everything here has internal linkage, so
// each translation unit keeps its own copy and no wide-ISA code can end up
// in a symbol shared with baseline code.
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace glint::cpu::simd {
namespace {

#if !defined(GLINT_SIMD_AVX512) && defined(__AVX512F__)
#define GLINT_SIMD_AVX512 1
#elif !defined(GLINT_SIMD_AVX2) && defined(__AVX2__) && defined(__FMA__)
#define GLINT_SIMD_AVX2 1
#endif

#if defined(GLINT_SIMD_AVX512)
constexpr int kWidth = 16;
#elif defined(GLINT_SIMD_AVX2)
constexpr int kWidth = 8;
#else
constexpr int kWidth = 4;
#endif

/// kWidth floats, in one register.
typedef float Vec __attribute__((vector_size(kWidth * sizeof(float))));

#define GLINT_SIMD_INLINE inline __attribute__((always_inline))

GLINT_SIMD_INLINE Vec load(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof(Vec));  // an unaligned vector load
  return v;
}

GLINT_SIMD_INLINE void store(float* p, Vec v) { std::memcpy(p, &v, sizeof(Vec)); }

/// x in every lane. (x - 0 is x for every x, -0 included, so this folds to a
/// plain broadcast; 0 + x would not, without fast-math.)
GLINT_SIMD_INLINE Vec broadcast(float x) { return x - Vec{}; }

/// a * b + c, fused (one rounding) where the target has FMA.
GLINT_SIMD_INLINE Vec madd(Vec a, Vec b, Vec c) {
#if defined(GLINT_SIMD_AVX512)
  return _mm512_fmadd_ps(a, b, c);
#elif defined(GLINT_SIMD_AVX2)
  return _mm256_fmadd_ps(a, b, c);
#elif defined(__wasm_relaxed_simd__)
  // Relaxed SIMD's multiply-add: fused where the CPU has FMA, else two
  // roundings. clang 14 knows only the prototype's f32x4.fma (a + b * c);
  // scripts/wasm_relaxed_simd.mjs rewrites it to the standard's relaxed_madd,
  // a * b + c, so the operands here are in the standard's order.
  return __builtin_wasm_fma_f32x4(a, b, c);
#else
  return a * b + c;  // SSE2, SIMD128 (no FMA): two roundings, like scalar code
#endif
}

}  // namespace
}  // namespace glint::cpu::simd
