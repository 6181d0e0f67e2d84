#pragma once
// The direct convolution kernels (conv_direct.h), written once against
// simd::Vec. Included only by conv_direct_<isa>.cpp, each after its own
// target pragma and with GLINT_CONV_REGISTERS (vector registers) defined.
// Everything is in an anonymous namespace: one private copy per ISA.
#include <array>
#include <cstdint>
#include <utility>

#include "src/backends/cpu/conv_direct.h"
#include "src/backends/cpu/simd.h"

namespace glint::cpu::conv_direct {
namespace {

using simd::kWidth;
using simd::Vec;

// The register blocks only work fully unrolled (accumulators in registers),
// and a 26-pixel block is past GCC's default unrolling limits.
#define GLINT_UNROLL _Pragma("GCC unroll 32")

// Accumulators a register block may hold: the rest hold the filter (or dy)
// vectors and a broadcast.
// A 28-pixel block covers a 28-wide image's whole row.
template <int NV>
constexpr int kBlock = (GLINT_CONV_REGISTERS - NV - 2) / NV > 28
                           ? 28
                           : (GLINT_CONV_REGISTERS - NV - 2) / NV;

// Rows of the filter gradient per pass: each needs its x offset at every
// pixel, and past 12 the offsets no longer stay in registers.
template <int NV>
constexpr int kRows = kBlock<NV> > 12 ? 12 : kBlock<NV>;

/// Output columns [lo, hi) whose filter window lies inside the input.
inline void interiorColumns(const conv::Geometry& g, int64_t& lo, int64_t& hi) {
  lo = 0;
  while (lo < g.outW && g.inCol(lo, 0) < 0) ++lo;
  hi = lo;
  while (hi < g.outW && g.inCol(hi, g.fw - 1) < g.inW) ++hi;
}

/// Read in place of the taps that fall outside the input.
alignas(64) const float kZeros[kMaxInChannels] = {};

/// P adjacent output pixels of row (n, oh) from column ow. Interior blocks
/// (Edge false) have every tap of every pixel inside the input; edge blocks
/// read zeros for the columns outside. Rows outside are skipped for all.
/// CC > 0: inC == CC and strideW == 1, known at compile time, so all P
/// pixels are read off one base register at fixed displacements (else GCC
/// keeps P pointers, spilled) and the channel loop unrolls.
template <int NV, int P, bool Edge, int CC = 0>
void forwardBlock(const conv::Geometry& g, const float* xn, const float* f, float* y, int64_t oh,
                  int64_t ow) {
  constexpr int64_t outC = NV * kWidth;
  const int64_t C = CC > 0 ? CC : g.inC, step = CC > 0 ? CC : g.strideW * C;
  Vec acc[P][NV];
  GLINT_UNROLL
  for (int p = 0; p < P; ++p) GLINT_UNROLL
  for (int v = 0; v < NV; ++v) acc[p][v] = Vec{};
  for (int64_t kh = 0; kh < g.fh; ++kh) {
    int64_t ih = g.inRow(oh, kh);
    if (ih < 0 || ih >= g.inH) continue;
    const float* xrow = xn + ih * g.inW * C;
    for (int64_t kw = 0; kw < g.fw; ++kw) {
      const float* fp = f + (kh * g.fw + kw) * C * outC;
      if constexpr (Edge) {
        const float* src[P];
        GLINT_UNROLL
        for (int p = 0; p < P; ++p) {
          int64_t iw = g.inCol(ow + p, kw);
          src[p] = iw >= 0 && iw < g.inW ? xrow + iw * C : kZeros;
        }
        for (int64_t ic = 0; ic < C; ++ic) {
          Vec fv[NV];
          GLINT_UNROLL
          for (int v = 0; v < NV; ++v) fv[v] = simd::load(fp + ic * outC + v * kWidth);
          GLINT_UNROLL
          for (int p = 0; p < P; ++p) {
            Vec b = simd::broadcast(src[p][ic]);
            GLINT_UNROLL
            for (int v = 0; v < NV; ++v) acc[p][v] = simd::madd(b, fv[v], acc[p][v]);
          }
        }
      } else {
        const float* xp = xrow + g.inCol(ow, kw) * C;
        for (int64_t ic = 0; ic < C; ++ic) {
          Vec fv[NV];
          GLINT_UNROLL
          for (int v = 0; v < NV; ++v) fv[v] = simd::load(fp + ic * outC + v * kWidth);
          GLINT_UNROLL
          for (int p = 0; p < P; ++p) {
            Vec b = simd::broadcast(xp[p * step + ic]);
            GLINT_UNROLL
            for (int v = 0; v < NV; ++v) acc[p][v] = simd::madd(b, fv[v], acc[p][v]);
          }
        }
      }
    }
  }
  GLINT_UNROLL
  for (int p = 0; p < P; ++p) GLINT_UNROLL
  for (int v = 0; v < NV; ++v) simd::store(y + p * outC + v * kWidth, acc[p][v]);
}

using BlockFn = void (*)(const conv::Geometry&, const float*, const float*, float*, int64_t,
                         int64_t);

/// forwardBlock<NV, k + 1, Edge, CC> at index k: a row's last block may be short.
template <int NV, bool Edge, int CC, int... K>
constexpr std::array<BlockFn, sizeof...(K)> blockTable(std::integer_sequence<int, K...>) {
  return {&forwardBlock<NV, K + 1, Edge, CC>...};
}

template <int NV>
void forward(const conv::Geometry& g, const float* x, const float* f, float* y, int64_t n0,
             int64_t n1) {
  constexpr int P = kBlock<NV>;
  constexpr int64_t outC = NV * kWidth;
  using Seq = std::make_integer_sequence<int, P>;
  static constexpr auto inner = blockTable<NV, false, 0>(Seq());
  static constexpr auto edge = blockTable<NV, true, 0>(Seq());
  // The channel counts of small convolutions (and of their dx: the forward
  // conv's outC): 1 (a first layer on grey images), 8 and 16.
  static constexpr auto c1 = blockTable<NV, false, 1>(Seq());
  static constexpr auto c8 = blockTable<NV, false, 8>(Seq());
  static constexpr auto c16 = blockTable<NV, false, 16>(Seq());
  static constexpr auto edge8 = blockTable<NV, true, 8>(Seq());
  static constexpr auto edge16 = blockTable<NV, true, 16>(Seq());
  const bool unit = g.strideW == 1;
  const auto& interiorTable = !unit         ? inner
                              : g.inC == 1  ? c1
                              : g.inC == 8  ? c8
                              : g.inC == 16 ? c16
                                            : inner;
  const auto& edgeTable = !unit ? edge : g.inC == 8 ? edge8 : g.inC == 16 ? edge16 : edge;
  int64_t lo, hi;
  interiorColumns(g, lo, hi);
  // A row in the fewest blocks of at most P pixels, of nearly equal sizes:
  // each block's accumulators then have enough independent FMAs in flight.
  if (g.outW == 0) return;
  const int64_t blocks = (g.outW + P - 1) / P;
  const int64_t base = g.outW / blocks, longer = g.outW % blocks;
  for (int64_t n = n0; n < n1; ++n) {
    const float* xn = x + n * g.inH * g.inW * g.inC;
    for (int64_t oh = 0; oh < g.outH; ++oh) {
      float* row = y + (n * g.outH + oh) * g.outW * outC;
      for (int64_t b = 0, s = 0; b < blocks; ++b) {
        int64_t len = base + (b < longer ? 1 : 0);
        bool interior = s >= lo && s + len <= hi;
        (interior ? interiorTable : edgeTable)[len - 1](g, xn, f, row + s * outC, oh, s);
        s += len;
      }
    }
  }
}

/// Adds, for G rows of the filter gradient (row = (kh, kw, ic), at x offset
/// off[r] from a pixel's window origin), the products over the pixels of
/// output rows [oh0, oh1) and columns [lo, hi) of images [n0, n1), all of
/// whose windows lie inside the input.
template <int NV, int G>
void filterRows(const conv::Geometry& g, const float* x, const float* dy, const int64_t* offsets,
                float* df, int64_t n0, int64_t n1, int64_t oh0, int64_t oh1, int64_t lo,
                int64_t hi) {
  constexpr int64_t outC = NV * kWidth;
  int64_t off[G];
  GLINT_UNROLL
  for (int r = 0; r < G; ++r) off[r] = offsets[r];
  Vec acc[G][NV];
  GLINT_UNROLL
  for (int r = 0; r < G; ++r) GLINT_UNROLL
  for (int v = 0; v < NV; ++v) acc[r][v] = Vec{};
  const int64_t step = g.strideW * g.inC;
  for (int64_t n = n0; n < n1; ++n)
    for (int64_t oh = oh0; oh < oh1; ++oh) {
      const float* xo = x + ((n * g.inH + g.inRow(oh, 0)) * g.inW + g.inCol(lo, 0)) * g.inC;
      const float* d = dy + ((n * g.outH + oh) * g.outW + lo) * outC;
      for (int64_t ow = lo; ow < hi; ++ow, xo += step, d += outC) {
        Vec dv[NV];
        GLINT_UNROLL
        for (int v = 0; v < NV; ++v) dv[v] = simd::load(d + v * kWidth);
        GLINT_UNROLL
        for (int r = 0; r < G; ++r) {
          Vec b = simd::broadcast(xo[off[r]]);
          GLINT_UNROLL
          for (int v = 0; v < NV; ++v) acc[r][v] = simd::madd(b, dv[v], acc[r][v]);
        }
      }
    }
  GLINT_UNROLL
  for (int r = 0; r < G; ++r) GLINT_UNROLL
  for (int v = 0; v < NV; ++v) {
    float* p = df + r * outC + v * kWidth;
    simd::store(p, simd::load(p) + acc[r][v]);
  }
}

using RowsFn = void (*)(const conv::Geometry&, const float*, const float*, const int64_t*, float*,
                        int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);

/// filterRows<NV, k + 1> at index k: the last group of rows may be short.
template <int NV, int... K>
constexpr std::array<RowsFn, sizeof...(K)> rowsTable(std::integer_sequence<int, K...>) {
  return {&filterRows<NV, K + 1>...};
}

/// The pixels of images [n0, n1) whose windows cross the input's edge: one
/// at a time, only their in-bounds taps.
template <int NV>
void filterEdges(const conv::Geometry& g, const float* x, const float* dy, float* df, int64_t n0,
                 int64_t n1, int64_t oh0, int64_t oh1, int64_t lo, int64_t hi) {
  constexpr int64_t outC = NV * kWidth;
  const int64_t C = g.inC;
  auto pixel = [&](int64_t n, int64_t oh, int64_t ow) {
    Vec dv[NV];
    const float* d = dy + ((n * g.outH + oh) * g.outW + ow) * outC;
    GLINT_UNROLL
    for (int v = 0; v < NV; ++v) dv[v] = simd::load(d + v * kWidth);
    for (int64_t kh = 0; kh < g.fh; ++kh) {
      int64_t ih = g.inRow(oh, kh);
      if (ih < 0 || ih >= g.inH) continue;
      for (int64_t kw = 0; kw < g.fw; ++kw) {
        int64_t iw = g.inCol(ow, kw);
        if (iw < 0 || iw >= g.inW) continue;
        const float* xp = x + ((n * g.inH + ih) * g.inW + iw) * C;
        float* dp = df + (kh * g.fw + kw) * C * outC;
        for (int64_t ic = 0; ic < C; ++ic) {
          Vec b = simd::broadcast(xp[ic]);
          GLINT_UNROLL
          for (int v = 0; v < NV; ++v) {
            float* p = dp + ic * outC + v * kWidth;
            simd::store(p, simd::madd(b, dv[v], simd::load(p)));
          }
        }
      }
    }
  };
  for (int64_t n = n0; n < n1; ++n)
    for (int64_t oh = 0; oh < g.outH; ++oh) {
      bool inside = oh >= oh0 && oh < oh1 && lo < hi;
      for (int64_t ow = 0; ow < (inside ? lo : g.outW); ++ow) pixel(n, oh, ow);
      if (inside)
        for (int64_t ow = hi; ow < g.outW; ++ow) pixel(n, oh, ow);
    }
}

/// Adds the gradient of images [n0, n1) to df (the caller zeroes it).
template <int NV>
void filterGrad(const conv::Geometry& g, const float* x, const float* dy, float* df, int64_t n0,
                int64_t n1) {
  constexpr int G = kRows<NV>;
  static constexpr auto table = rowsTable<NV>(std::make_integer_sequence<int, G>());
  constexpr int64_t outC = NV * kWidth;
  int64_t lo, hi, oh0 = 0, oh1;
  interiorColumns(g, lo, hi);
  while (oh0 < g.outH && g.inRow(oh0, 0) < 0) ++oh0;
  oh1 = oh0;
  while (oh1 < g.outH && g.inRow(oh1, g.fh - 1) < g.inH) ++oh1;
  const int64_t rows = g.fh * g.fw * g.inC;
  int64_t offsets[G];
  if (oh0 < oh1 && lo < hi) {
    for (int64_t r0 = 0; r0 < rows; r0 += G) {
      int count = static_cast<int>(rows - r0 < G ? rows - r0 : G);
      for (int r = 0; r < count; ++r) {
        int64_t row = r0 + r, ic = row % g.inC, tap = row / g.inC;
        int64_t kh = tap / g.fw, kw = tap % g.fw;
        offsets[r] = (kh * g.dilH * g.inW + kw * g.dilW) * g.inC + ic;
      }
      table[count - 1](g, x, dy, offsets, df + r0 * outC, n0, n1, oh0, oh1, lo, hi);
    }
  }
  filterEdges<NV>(g, x, dy, df, n0, n1, oh0, oh1, lo, hi);
}

/// By outC / kWidth (1..kMaxVectors).
void forwardDispatch(const conv::Geometry& g, const float* x, const float* f, float* y, int64_t n0,
                     int64_t n1) {
  switch (g.outC / kWidth) {
    case 1:
      return forward<1>(g, x, f, y, n0, n1);
    case 2:
      return forward<2>(g, x, f, y, n0, n1);
    case 3:
      return forward<3>(g, x, f, y, n0, n1);
    default:
      return forward<4>(g, x, f, y, n0, n1);
  }
}

void filterGradDispatch(const conv::Geometry& g, const float* x, const float* dy, float* df,
                        int64_t n0, int64_t n1) {
  switch (g.outC / kWidth) {
    case 1:
      return filterGrad<1>(g, x, dy, df, n0, n1);
    case 2:
      return filterGrad<2>(g, x, dy, df, n0, n1);
    case 3:
      return filterGrad<3>(g, x, dy, df, n0, n1);
    default:
      return filterGrad<4>(g, x, dy, df, n0, n1);
  }
}

static_assert(kMaxVectors == 4, "the dispatch switches cover 1..4 vectors");

}  // namespace
}  // namespace glint::cpu::conv_direct
