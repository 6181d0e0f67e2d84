// Conv2D and its backprops as im2col + the packed GEMM (gemm.h). Output pixels are taken
// in row blocks so the patch matrix stays cache-sized whatever the image size.
#include <algorithm>
#include <cstring>
#include <vector>

#include "glint/backend.h"
#include "src/backends/cpu/gemm.h"
#include "src/backends/cpu/kernels.h"
#include "src/ops/conv_util.h"

namespace glint::cpu {

namespace {

/// C[m,n] += A[m,k] * B[k,n]; A(i,p) = a[i*rowA + p*colA] with one of the
/// two strides 1 (A or a transposed view), B and C row-major.
void gemmAccumulate(int64_t m, int64_t n, int64_t k, const float* a, int64_t rowA,
                    int64_t colA, const float* b, int64_t ldb, float* c, int64_t ldc) {
  bool transA = colA != 1;
  gemm(transA, false, m, n, k, 1.0f, a, transA ? colA : rowA, b, ldb, 1.0f, c, ldc);
}

/// Patch matrix geometry: row r = output pixel (n, oh, ow); column
/// (kh*fw + kw)*inC + ic = the input element that tap sees (0 in padding).
struct Im2Col {
  const conv::Geometry& g;
  int64_t rows, cols, blockRows;

  explicit Im2Col(const conv::Geometry& geom)
      : g(geom), rows(geom.batch * geom.outH * geom.outW), cols(geom.fh * geom.fw * geom.inC) {
    // About 32K floats (128 KiB) of patches per block.
    blockRows = std::max<int64_t>(1, std::min<int64_t>(rows, 32768 / std::max<int64_t>(cols, 1)));
  }

  /// Calls tap(row, column offset, x offset or -1) for each filter tap of rows [r0, r1).
  template <class Tap>
  void forEachTap(int64_t r0, int64_t r1, Tap tap) const {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t ow = r % g.outW, oh = (r / g.outW) % g.outH, n = r / (g.outW * g.outH);
      for (int64_t kh = 0; kh < g.fh; ++kh) {
        int64_t ih = g.inRow(oh, kh);
        for (int64_t kw = 0; kw < g.fw; ++kw) {
          int64_t iw = g.inCol(ow, kw);
          bool inside = ih >= 0 && ih < g.inH && iw >= 0 && iw < g.inW;
          int64_t xo = inside ? ((n * g.inH + ih) * g.inW + iw) * g.inC : -1;
          tap(r - r0, (kh * g.fw + kw) * g.inC, xo);
        }
      }
    }
  }

  void gather(const float* x, int64_t r0, int64_t r1, float* col) const {
    if (g.inC == 0) return;
    forEachTap(r0, r1, [&](int64_t row, int64_t c, int64_t xo) {
      float* dst = col + row * cols + c;
      if (xo < 0) std::fill(dst, dst + g.inC, 0.0f);
      else std::memcpy(dst, x + xo, sizeof(float) * g.inC);
    });
  }

  void scatterAdd(const float* col, int64_t r0, int64_t r1, float* x) const {
    if (g.inC == 0) return;
    forEachTap(r0, r1, [&](int64_t row, int64_t c, int64_t xo) {
      if (xo < 0) return;
      const float* src = col + row * cols + c;
      float* dst = x + xo;
      for (int64_t i = 0; i < g.inC; ++i) dst[i] += src[i];
    });
  }
};

/// y[rows, outC] = patches(x) * filter[cols, outC].
void conv2d(KernelArgs& a) {
  Tensor& y = a.outputs[0];
  conv::Geometry g(a.inputs[0].shape(), y.shape(), a.attrs);
  Im2Col im(g);
  const float* x = hostData<float>(a.inputs[0]);
  const float* f = hostData<float>(a.inputs[1]);
  float* py = hostData<float>(y);
  std::fill(py, py + y.size(), 0.0f);
  std::vector<float> col(static_cast<size_t>(im.blockRows * im.cols));
  for (int64_t r0 = 0; r0 < im.rows; r0 += im.blockRows) {
    int64_t r1 = std::min(im.rows, r0 + im.blockRows);
    im.gather(x, r0, r1, col.data());
    gemmAccumulate(r1 - r0, g.outC, im.cols, col.data(), im.cols, 1, f, g.outC,
                   py + r0 * g.outC, g.outC);
  }
}

/// dx = col2im(dy[rows, outC] * filter^T[outC, cols]).
void conv2dBackpropInput(KernelArgs& a) {
  const Tensor& dy = a.inputs[0];
  Tensor& dx = a.outputs[0];
  conv::Geometry g(dx.shape(), dy.shape(), a.attrs);
  Im2Col im(g);
  const float* f = hostData<float>(a.inputs[1]);
  float* pdx = hostData<float>(dx);
  std::fill(pdx, pdx + dx.size(), 0.0f);
  std::vector<float> dcol(static_cast<size_t>(im.blockRows * im.cols));
  for (int64_t r0 = 0; r0 < im.rows; r0 += im.blockRows) {
    int64_t r1 = std::min(im.rows, r0 + im.blockRows);
    // filter^T is read through the GEMM's packing, never materialised.
    gemm(false, true, r1 - r0, im.cols, g.outC, 1.0f, hostData<float>(dy) + r0 * g.outC, g.outC,
         f, g.outC, 0.0f, dcol.data(), im.cols);
    im.scatterAdd(dcol.data(), r0, r1, pdx);
  }
}

/// dfilter[cols, outC] = sum over row blocks of patches(x)^T * dy.
void conv2dBackpropFilter(KernelArgs& a) {
  const Tensor& dy = a.inputs[1];
  Tensor& df = a.outputs[0];
  conv::Geometry g(a.inputs[0].shape(), dy.shape(), a.attrs);
  Im2Col im(g);
  const float* x = hostData<float>(a.inputs[0]);
  float* pdf = hostData<float>(df);
  std::fill(pdf, pdf + df.size(), 0.0f);
  std::vector<float> col(static_cast<size_t>(im.blockRows * im.cols));
  for (int64_t r0 = 0; r0 < im.rows; r0 += im.blockRows) {
    int64_t r1 = std::min(im.rows, r0 + im.blockRows);
    im.gather(x, r0, r1, col.data());
    // A = col^T: A(p, row) = col[row*cols + p].
    gemmAccumulate(im.cols, g.outC, r1 - r0, col.data(), 1, im.cols,
                   hostData<float>(dy) + r0 * g.outC, g.outC, pdf, g.outC);
  }
}

}  // namespace

void registerConvKernels(const std::string& backend) {
  registerKernel("Conv2D", backend, conv2d);
  registerKernel("Conv2DBackpropInput", backend, conv2dBackpropInput);
  registerKernel("Conv2DBackpropFilter", backend, conv2dBackpropFilter);
}

}  // namespace glint::cpu
