// BatchMatMul for the cpu backend. Blocked over k and n so a block of B stays
// in cache while the rows of A stream past it; four rows of C are updated per
// pass over the block so each load of B feeds four multiply-adds. The inner
// loops run over contiguous memory, which the compiler vectorizes.
#include <algorithm>
#include <vector>

#include "src/backends/cpu/kernels.h"
#include "src/backends/reference/loops.h"

namespace glint::cpu {

namespace {

constexpr int64_t kBlockK = 128;
constexpr int64_t kBlockN = 256;  // a k x n block of B: 128 KiB of float

/// An operand read through strides: element (r, c) is data[r * row + c * col].
struct Strided {
  const float* data;
  int64_t row, col;
  float at(int64_t r, int64_t c) const { return data[r * row + c * col]; }
};

/// acc[r][0, nc) += sum over p of a(r, p) * block[p][0, nc) for R rows of A,
/// with the accumulators local so the compiler sees they alias nothing.
template <int R>
void rowsTimesBlock(const Strided& a, int64_t i, int64_t p0, int64_t kc, const float* block,
                    int64_t ldb, int64_t nc, float* c, int64_t ldc) {
  float acc[R][kBlockN];
  for (int r = 0; r < R; ++r) std::fill(acc[r], acc[r] + nc, 0.0f);
  for (int64_t p = 0; p < kc; ++p) {
    const float* bRow = block + p * ldb;
    float av[R];
    for (int r = 0; r < R; ++r) av[r] = a.at(i + r, p0 + p);
    for (int64_t j = 0; j < nc; ++j) {
      float bv = bRow[j];
      for (int r = 0; r < R; ++r) acc[r][j] += av[r] * bv;
    }
  }
  for (int r = 0; r < R; ++r) {
    float* cRow = c + (i + r) * ldc;
    for (int64_t j = 0; j < nc; ++j) cRow[j] += acc[r][j];
  }
}

/// c[m, n] (zeroed, row-major) += a[m, k] b[k, n], operands through strides.
void gemm(const Strided& a, const Strided& b, float* c, int64_t m, int64_t n, int64_t k,
          std::vector<float>& packed) {
  for (int64_t p0 = 0; p0 < k; p0 += kBlockK) {
    int64_t kc = std::min(kBlockK, k - p0);
    for (int64_t j0 = 0; j0 < n; j0 += kBlockN) {
      int64_t nc = std::min(kBlockN, n - j0);
      // Rows of B are used in place; a transposed B is copied one block at a
      // time into rows. Sixteen columns at a time: each write fills a cache
      // line, and the reads are sixteen sequential streams.
      const float* block = b.data + p0 * b.row + j0;
      int64_t ldb = b.row;
      if (b.col != 1) {
        for (int64_t jg = 0; jg < nc; jg += 16) {
          int64_t width = std::min<int64_t>(16, nc - jg);
          for (int64_t p = 0; p < kc; ++p)
            for (int64_t j = jg; j < jg + width; ++j) packed[p * nc + j] = b.at(p0 + p, j0 + j);
        }
        block = packed.data();
        ldb = nc;
      }
      int64_t i = 0;
      for (; i + 4 <= m; i += 4) rowsTimesBlock<4>(a, i, p0, kc, block, ldb, nc, c + j0, n);
      for (; i < m; ++i) rowsTimesBlock<1>(a, i, p0, kc, block, ldb, nc, c + j0, n);
    }
  }
}

}  // namespace

void registerMatMulKernels(const std::string& backend) {
  registerKernel("BatchMatMul", backend, [](KernelArgs& args) {
    const Tensor& a = args.inputs[0];
    const Tensor& b = args.inputs[1];
    Tensor& out = args.outputs[0];
    bool tA = args.attrs.b("transposeA"), tB = args.attrs.b("transposeB");
    const Shape& sa = a.shape();
    const Shape& sb = b.shape();
    const Shape& so = out.shape();
    int64_t m = so[so.size() - 2], n = so[so.size() - 1];
    int64_t k = tA ? sa[sa.size() - 2] : sa[sa.size() - 1];
    float* po = hostData<float>(out);
    std::fill(po, po + out.size(), 0.0f);
    if (k == 0) return;

    Shape batch(so.begin(), so.end() - 2);
    std::vector<int64_t> stepA = reference::broadcastStrides(Shape(sa.begin(), sa.end() - 2), batch);
    std::vector<int64_t> stepB = reference::broadcastStrides(Shape(sb.begin(), sb.end() - 2), batch);
    const float* pa = hostData<float>(a);
    const float* pb = hostData<float>(b);
    std::vector<float> packed(tB ? static_cast<size_t>(kBlockK * kBlockN) : 0);
    reference::forEachIndex(batch, [&](const std::vector<int64_t>& index) {
      const float* ma = pa + reference::offsetOf(index, stepA) * m * k;
      const float* mb = pb + reference::offsetOf(index, stepB) * k * n;
      Strided sA = tA ? Strided{ma, 1, m} : Strided{ma, k, 1};
      Strided sB = tB ? Strided{mb, 1, k} : Strided{mb, n, 1};
      gemm(sA, sB, po, m, n, k, packed);
      po += m * n;
    });
  });
}

}  // namespace glint::cpu
