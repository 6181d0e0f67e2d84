#pragma once
// GEMM for a few rows of C (one-sample predict, a batch-1 RNN step): packing B
// would cost as much as the product itself, so B is read where it lies. Rows
// of B (B not transposed) feed a register tile of up to kSmallRows x
// kSmallNV vectors; with B transposed each C element is a dot product along k.
// Included by gemm_kernels_<isa>.cpp after gemm_kernels.h (same private
// namespace, same target pragma).

namespace glint::cpu::gemm_detail {
namespace {

// 128 columns per pass with AVX-512 (each row of B is read as one stream);
// 4 vectors with narrower ones, so 4 rows of accumulators stay in registers.
constexpr int kSmallNV = kWidth == 16 ? 8 : 4;
constexpr int kSmallR = kWidth == 16 ? 2 : 4;
// One row alone: 256 columns per pass with AVX-512 (16 accumulators; B's
// loads fold into the multiply-adds), 32 with 4-float vectors. A one-sample
// LSTM step's 128 x 512 product streams its weights from L2, and two passes
// over rows of 1 KiB read them faster than four over rows of 512 bytes (2.5
// vs 2.8 us natively; in wasm 8 vectors against 4: ~6.9 vs ~9.0 us).
constexpr int kSmallNV1 = kWidth == 16 ? 16 : 8;

inline float aAt(const Problem& g, int64_t i, int64_t p) {
  return g.transA ? g.a[p * g.lda + i] : g.a[i * g.lda + p];
}

inline void finish(const Problem& g, float* c, float sum) {
  float v = g.alpha * sum;
  *c = g.beta == 0.0f ? v : v + g.beta * *c;
}

/// C[i0:i0+R, j0:j0+cols] for B stored k x n, NV = ceil(cols / kWidth)
/// <= kSmallNV vectors (only those: a 10-class output is one vector wide).
/// (Splitting k over more accumulator sets measured slower for one row: the
/// loop is bound by reading B, not by the multiply-add latency.)
template <int R, int NV>
void rowsTimesB(const Problem& g, int64_t i0, int64_t j0, int64_t cols) {
  Vec acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = Vec{};
  const int64_t rest = cols - (NV - 1) * int64_t{kWidth};  // columns in the last vector
  // Rows whose partial last vector can be loaded whole: it ends inside B's
  // last row (its lanes past `cols` are never stored). Copying the tail
  // lane by lane instead stalls every row on store forwarding.
  int64_t wholeRows = g.k;
  if (rest < kWidth) {
    int64_t room = (g.k - 1) * g.ldb + cols - NV * int64_t{kWidth};
    wholeRows = room < 0 ? 0 : min64(g.k, room / g.ldb + 1);
  }
  // The last vector read through its own pointer (a zero-padded copy on the
  // tail rows), so that every load can fold into its multiply-add.
  auto step = [&](int64_t p, const float* last) {
    const float* bRow = g.b + p * g.ldb + j0;
    for (int r = 0; r < R; ++r) {
      Vec av = simd::broadcast(aAt(g, i0 + r, p));
      for (int v = 0; v + 1 < NV; ++v)
        acc[r][v] = simd::madd(av, simd::load(bRow + v * kWidth), acc[r][v]);
      acc[r][NV - 1] = simd::madd(av, simd::load(last), acc[r][NV - 1]);
    }
  };
  int64_t p = 0;
  for (; p < wholeRows; ++p) step(p, g.b + p * g.ldb + j0 + (NV - 1) * kWidth);
  for (; p < g.k; ++p) {
    float tail[kWidth];  // the last vector's columns, zero-padded
    const float* src = g.b + p * g.ldb + j0 + (NV - 1) * kWidth;
    for (int l = 0; l < kWidth; ++l) tail[l] = l < rest ? src[l] : 0.f;
    step(p, tail);
  }
  for (int r = 0; r < R; ++r) {
    float* cRow = g.c + (i0 + r) * g.ldc + j0;
    for (int v = 0; v < NV; ++v) {
      float lanes[kWidth];
      simd::store(lanes, acc[r][v]);
      for (int l = 0; l < kWidth && v * kWidth + l < cols; ++l)
        finish(g, cRow + v * kWidth + l, lanes[l]);
    }
  }
}

using RowsFn = void (*)(const Problem&, int64_t, int64_t, int64_t);

/// rowsTimesB<R, v + 1> at index v.
template <int R, int... V>
constexpr std::array<RowsFn, sizeof...(V)> rowsTable(std::integer_sequence<int, V...>) {
  return {&rowsTimesB<R, V + 1>...};
}

template <int R, int MaxNV = kSmallNV>
void rowsTimesBAny(const Problem& g, int64_t i0, int64_t j0, int64_t cols) {
  static constexpr auto table = rowsTable<R>(std::make_integer_sequence<int, MaxNV>());
  table[(cols + kWidth - 1) / kWidth - 1](g, i0, j0, cols);
}

/// C[i, j] = dot(A row i, B row j) for B stored n x k.
void rowDotB(const Problem& g, int64_t i, int64_t j0, int64_t j1) {
  // A's row, contiguous (gathered once if A is transposed).
  const float* aRow = g.a + i * g.lda;
  float* gathered = nullptr;
  if (g.transA) {
    gathered = workspace(static_cast<size_t>(g.k));
    for (int64_t p = 0; p < g.k; ++p) gathered[p] = g.a[p * g.lda + i];
    aRow = gathered;
  }
  int64_t kv = g.k / kWidth * kWidth;
  for (int64_t j = j0; j < j1; ++j) {
    const float* bRow = g.b + j * g.ldb;
    Vec acc0 = Vec{}, acc1 = Vec{};
    int64_t p = 0;
    for (; p + 2 * kWidth <= kv; p += 2 * kWidth) {
      acc0 = simd::madd(simd::load(aRow + p), simd::load(bRow + p), acc0);
      acc1 = simd::madd(simd::load(aRow + p + kWidth), simd::load(bRow + p + kWidth), acc1);
    }
    for (; p < kv; p += kWidth) acc0 = simd::madd(simd::load(aRow + p), simd::load(bRow + p), acc0);
    acc0 += acc1;
    float lanes[kWidth];
    simd::store(lanes, acc0);
    float sum = 0;
    for (int l = 0; l < kWidth; ++l) sum += lanes[l];
    for (; p < g.k; ++p) sum += aRow[p] * bRow[p];
    finish(g, g.c + i * g.ldc + j, sum);
  }
}

void finishBlock(const Problem& g, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  if (g.epilogue.fn)
    g.epilogue.fn(g.epilogue.ctx, g.c + i0 * g.ldc + j0, g.ldc, i0, j0, i1 - i0, j1 - j0);
}

/// The block C[i0:i1, j0:j1] of a product with few rows (see gemm.cpp).
void smallBlock(const Problem& g, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  if (g.transB) {
    for (int64_t i = i0; i < i1; ++i) rowDotB(g, i, j0, j1);
  } else {
    if (i1 - i0 == 1) {
      constexpr int64_t chunk = kSmallNV1 * kWidth;
      for (int64_t j = j0; j < j1; j += chunk)
        rowsTimesBAny<1, kSmallNV1>(g, i0, j, min64(chunk, j1 - j));
      return finishBlock(g, i0, i1, j0, j1);
    }
    constexpr int64_t chunk = kSmallNV * kWidth;
    for (int64_t j = j0; j < j1; j += chunk) {
      int64_t cols = min64(chunk, j1 - j);
      int64_t i = i0;
      if constexpr (kSmallR == 4)
        for (; i + 4 <= i1; i += 4) rowsTimesBAny<4>(g, i, j, cols);
      for (; i + 2 <= i1; i += 2) rowsTimesBAny<2>(g, i, j, cols);
      for (; i < i1; ++i) rowsTimesBAny<1>(g, i, j, cols);
    }
  }
  finishBlock(g, i0, i1, j0, j1);
}

}  // namespace
}  // namespace glint::cpu::gemm_detail
