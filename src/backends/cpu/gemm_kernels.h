#pragma once
// The GEMM block routine and its micro-kernels, written once against
// simd::Vec. Included only by gemm_kernels_<isa>.cpp, each after its own
// target pragma and with its tile shape defined:
//   GLINT_GEMM_MR (rows of the register tile), GLINT_GEMM_NV (vectors across).
// Everything is in an anonymous namespace: one private copy per ISA.
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#include "src/backends/cpu/gemm.h"
#include "src/backends/cpu/simd.h"

namespace glint::cpu::gemm_detail {
namespace {

using simd::kWidth;
using simd::Vec;

constexpr int kMR = GLINT_GEMM_MR;
constexpr int kNV = GLINT_GEMM_NV;
constexpr int kNR = kNV * kWidth;
// The packed A sliver (MR x KC) stays in L1 while it sweeps the packed B
// block (KC x NC, 512 KiB: half of Zen 4's L2) panel by panel.
constexpr int64_t kKC = 256;
constexpr int64_t kNC = 512;
static_assert(kNC % kNR == 0);

inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/// C[0:MR, 0:nr] = alpha * A * Bpanel + beta * C, where Bpanel is kc x NV
/// vectors and A is kc x MR: packed (element (r, p) at a[p * MR + r]) or,
/// when Direct, A's own rows (at a[r * lda + p]).
template <int MR, int NV, bool Direct>
void microKernel(int64_t kc, const float* __restrict a, int64_t lda, const float* __restrict b,
                 float* c, int64_t ldc, int64_t nr, float alpha, float beta) {
  Vec acc[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = Vec{};
  auto step = [&](int64_t p) __attribute__((always_inline)) {
    Vec bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = simd::load(b + v * kWidth);
    for (int r = 0; r < MR; ++r) {
      Vec av = simd::broadcast(Direct ? a[r * lda + p] : a[p * MR + r]);
      for (int v = 0; v < NV; ++v) acc[r][v] = simd::madd(av, bv[v], acc[r][v]);
    }
    b += NV * kWidth;
  };
  int64_t p = 0;
#if defined(GLINT_UNROLL)
  for (; p + GLINT_UNROLL <= kc; p += GLINT_UNROLL) {
    for (int u = 0; u < GLINT_UNROLL; ++u) {
      step(p + u);
      __asm__ volatile("" ::: "memory");
    }
  }
#endif
  for (; p < kc; ++p) step(p);
  Vec va = simd::broadcast(alpha), vb = simd::broadcast(beta);
  if (nr == NV * kWidth) {
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        float* cp = c + r * ldc + v * kWidth;
        Vec x = acc[r][v] * va;
        simd::store(cp, beta == 0.0f ? x : simd::madd(vb, simd::load(cp), x));
      }
    return;
  }
  // A partial last panel: go through a tile so no store runs past column nr.
  float tile[MR][NV * kWidth];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) simd::store(tile[r] + v * kWidth, acc[r][v] * va);
  for (int r = 0; r < MR; ++r)
    for (int64_t j = 0; j < nr; ++j)
      c[r * ldc + j] = beta == 0.0f ? tile[r][j] : tile[r][j] + beta * c[r * ldc + j];
}

using Kernel = void (*)(int64_t, const float*, int64_t, const float*, float*, int64_t, int64_t,
                        float, float);

template <bool Direct, int MR, int... V>
constexpr std::array<Kernel, kNV> kernelRow(std::integer_sequence<int, V...>) {
  return {&microKernel<MR, V + 1, Direct>...};
}

template <bool Direct, int... R>
constexpr std::array<std::array<Kernel, kNV>, kMR> kernelTable(std::integer_sequence<int, R...>) {
  return {kernelRow<Direct, R + 1>(std::make_integer_sequence<int, kNV>())...};
}

/// kernels[direct][mr - 1][nv - 1]: a tile of mr rows and nv vectors.
constexpr std::array<std::array<std::array<Kernel, kNV>, kMR>, 2> kernels = {
    kernelTable<false>(std::make_integer_sequence<int, kMR>()),
    kernelTable<true>(std::make_integer_sequence<int, kMR>())};

#if defined(__wasm_simd128__)
/// panel[p * width + j] = src[j * ld + p] for j < nr (a multiple of 4) and p
/// below kc rounded down to 4, in 4 x 4 blocks transposed in registers;
/// returns how many p it did. V8 runs the element-by-element copy at about
/// 1 ns an element: for a 64-row product with B^T (the lstm's dz W_r^T) that
/// was 12% of the product.
int64_t packTransposed4(const float* src, int64_t ld, int64_t kc, int64_t nr, float* panel,
                        int64_t width) {
  const int64_t k4 = kc / 4 * 4;
  for (int64_t j = 0; j < nr; j += 4) {
    const float* s = src + j * ld;
    for (int64_t p = 0; p < k4; p += 4) {
      Vec r0 = simd::load(s + p), r1 = simd::load(s + ld + p);
      Vec r2 = simd::load(s + 2 * ld + p), r3 = simd::load(s + 3 * ld + p);
      Vec t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5);
      Vec t1 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
      Vec t2 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5);
      Vec t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
      float* d = panel + p * width + j;
      simd::store(d, __builtin_shufflevector(t0, t2, 0, 1, 4, 5));
      simd::store(d + width, __builtin_shufflevector(t0, t2, 2, 3, 6, 7));
      simd::store(d + 2 * width, __builtin_shufflevector(t1, t3, 0, 1, 4, 5));
      simd::store(d + 3 * width, __builtin_shufflevector(t1, t3, 2, 3, 6, 7));
    }
  }
  return k4;
}
#endif

/// B(p0 + p, j0 + j) for p < kc, j < nc into panels of NR columns (the last
/// one rounded up to whole vectors and zero-padded), each kc x width.
void packB(const Problem& g, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* dst) {
  for (int64_t jp = 0; jp < nc; jp += kNR) {
    int64_t nr = min64(kNR, nc - jp);
    int64_t width = (nr + kWidth - 1) / kWidth * kWidth;
    float* panel = dst + jp * kc;
    if (!g.transB) {
      const float* src = g.b + p0 * g.ldb + j0 + jp;
      if (nr == kNR) {
        for (int64_t p = 0; p < kc; ++p)
          for (int v = 0; v < kNV; ++v)
            simd::store(panel + p * kNR + v * kWidth, simd::load(src + p * g.ldb + v * kWidth));
      } else {
        for (int64_t p = 0; p < kc; ++p) {
          std::memcpy(panel + p * width, src + p * g.ldb, sizeof(float) * nr);
          for (int64_t j = nr; j < width; ++j) panel[p * width + j] = 0.0f;
        }
      }
    } else {
      // B^T rows are contiguous along p: copy 16 of p from each row at a time
      // so reads are whole cache lines and writes stay in a 16-row window.
      const float* src = g.b + (j0 + jp) * g.ldb + p0;
      int64_t pDone = 0;
#if defined(__wasm_simd128__)
      if (nr % 4 == 0) pDone = packTransposed4(src, g.ldb, kc, nr, panel, width);
#endif
      for (int64_t pb = pDone; pb < kc; pb += 16) {
        int64_t pe = min64(kc, pb + 16);
        for (int64_t j = 0; j < nr; ++j)
          for (int64_t p = pb; p < pe; ++p) panel[p * width + j] = src[j * g.ldb + p];
        for (int64_t p = pb; p < pe; ++p)
          for (int64_t j = nr; j < width; ++j) panel[p * width + j] = 0.0f;
      }
    }
  }
}

/// A(i0 + r, p0 + p) for r < mr, p < kc into dst[p * mr + r], A transposed
/// (stored k x m; an A stored m x k is read in place).
void packA(const Problem& g, int64_t i0, int64_t mr, int64_t p0, int64_t kc, float* dst) {
  const float* src = g.a + p0 * g.lda + i0;
  if (mr == kMR) {  // a fixed-size copy per p: V8 runs the loop below element by element
    for (int64_t p = 0; p < kc; ++p)
      std::memcpy(dst + p * kMR, src + p * g.lda, sizeof(float) * kMR);
    return;
  }
  for (int64_t p = 0; p < kc; ++p)
    for (int64_t r = 0; r < mr; ++r) dst[p * mr + r] = src[p * g.lda + r];
}

void block(const Problem& g, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  int64_t kcMax = min64(kKC, g.k);
  int64_t ncMax = (min64(kNC, j1 - j0) + kNR - 1) / kNR * kNR;
  float* bPack = workspace(static_cast<size_t>(kcMax * ncMax + kcMax * kMR));
  float* aPack = bPack + kcMax * ncMax;
  for (int64_t jc = j0; jc < j1; jc += kNC) {
    int64_t nc = min64(kNC, j1 - jc);
    for (int64_t pc = 0; pc < g.k; pc += kKC) {
      int64_t kc = min64(kKC, g.k - pc);
      float beta = pc == 0 ? g.beta : 1.0f;  // later k blocks accumulate
      bool last = pc + kc == g.k;
      packB(g, pc, kc, jc, nc, bPack);
      for (int64_t ir = i0; ir < i1; ir += kMR) {
        int64_t mr = min64(kMR, i1 - ir);
        // A's rows are read where they lie when it is not transposed: its
        // sliver (MR rows of kc) stays in L1 across the panels either way,
        // and packing it cost more than the strided reads (each thread of a
        // column split packs all of A).
        const bool direct = !g.transA;
        const float* aSliver = g.a + ir * g.lda + pc;
        if (!direct) {
          packA(g, ir, mr, pc, kc, aPack);
          aSliver = aPack;
        }
        float* cRow = g.c + ir * g.ldc + jc;
        for (int64_t jr = 0; jr < nc; jr += kNR) {
          int64_t nr = min64(kNR, nc - jr);
          kernels[direct][mr - 1][(nr + kWidth - 1) / kWidth - 1](
              kc, aSliver, g.lda, bPack + jr * kc, cRow + jr, g.ldc, nr, g.alpha, beta);
          if (last && g.epilogue.fn)  // the tile is final and still in L1
            g.epilogue.fn(g.epilogue.ctx, cRow + jr, g.ldc, ir, jc + jr, mr, nr);
        }
      }
    }
  }
}

}  // namespace
}  // namespace glint::cpu::gemm_detail
