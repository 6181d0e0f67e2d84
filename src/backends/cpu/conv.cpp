// Conv2D and its backprops. Few output channels (conv_direct.h): direct
// kernels, images spread over the thread pool. Otherwise im2col + the packed
// GEMM (gemm.h), block by block of output pixels, the blocks spread over the
// thread pool.
#include <algorithm>
#include <cstring>
#include <vector>

#include "glint/backend.h"
#include "src/backends/cpu/conv_direct.h"
#include "src/backends/cpu/gemm.h"
#include "src/backends/cpu/kernels.h"
#include "src/backends/cpu/thread_pool.h"
#include "src/core/kernel_selection.h"
#include "src/geometry/conv_geometry.h"

namespace glint::cpu {

namespace {

/// Patch matrix geometry: row r = output pixel (n, oh, ow); column
/// (kh*fw + kw)*inC + ic = the input element that tap sees (0 in padding).
/// Rows are taken in blocks of whole images, so blocks never share input
/// pixels (backprop-input scatters in parallel) and each block's patches stay
/// cache-sized whatever the image size.
struct Im2Col {
  const conv::Geometry& g;
  int64_t rows, cols, imageRows, blockRows, blocks;

  explicit Im2Col(const conv::Geometry& geom)
      : g(geom),
        rows(geom.batch * geom.outH * geom.outW),
        cols(geom.fh * geom.fw * geom.inC),
        imageRows(geom.outH * geom.outW) {
    // About 32K floats (128 KiB) of patches per block, at least one image.
    int64_t images = std::max<int64_t>(1, 32768 / std::max<int64_t>(imageRows * cols, 1));
    blockRows = std::max<int64_t>(1, std::min(rows, images * imageRows));
    blocks = rows == 0 ? 0 : (rows + blockRows - 1) / blockRows;
  }

  /// Calls run(row - r0, column, x offset, length) for the contiguous runs of
  /// patch row entries of rows [r0, r1); x offset -1 means padding (zeros).
  /// With dilW == 1 one filter row's in-bounds taps are one run of x.
  template <class Run>
  void forEachRun(int64_t r0, int64_t r1, Run run) const {
    const int64_t C = g.inC, rowLen = g.fw * C;
    for (int64_t r = r0; r < r1; ++r) {
      int64_t ow = r % g.outW, oh = (r / g.outW) % g.outH, n = r / (g.outW * g.outH);
      // In-bounds filter columns [kw0, kw1).
      int64_t kw0 = 0, kw1 = g.fw;
      while (kw0 < g.fw && g.inCol(ow, kw0) < 0) ++kw0;
      while (kw1 > kw0 && g.inCol(ow, kw1 - 1) >= g.inW) --kw1;
      for (int64_t kh = 0; kh < g.fh; ++kh) {
        int64_t ih = g.inRow(oh, kh), c0 = kh * rowLen;
        if (ih < 0 || ih >= g.inH || kw0 == kw1) {
          run(r - r0, c0, int64_t{-1}, rowLen);
          continue;
        }
        if (kw0 > 0) run(r - r0, c0, int64_t{-1}, kw0 * C);
        int64_t base = ((n * g.inH + ih) * g.inW) * C;
        if (g.dilW == 1) {
          run(r - r0, c0 + kw0 * C, base + g.inCol(ow, kw0) * C, (kw1 - kw0) * C);
        } else {
          for (int64_t kw = kw0; kw < kw1; ++kw)
            run(r - r0, c0 + kw * C, base + g.inCol(ow, kw) * C, C);
        }
        if (kw1 < g.fw) run(r - r0, c0 + kw1 * C, int64_t{-1}, (g.fw - kw1) * C);
      }
    }
  }

  void gather(const float* x, int64_t r0, int64_t r1, float* col) const {
    if (g.inC == 0) return;
    forEachRun(r0, r1, [&](int64_t row, int64_t c, int64_t xo, int64_t len) {
      float* dst = col + row * cols + c;
      if (xo < 0) std::fill(dst, dst + len, 0.0f);
      else std::copy(x + xo, x + xo + len, dst);
    });
  }

  void scatterAdd(const float* col, int64_t r0, int64_t r1, float* x) const {
    if (g.inC == 0) return;
    forEachRun(r0, r1, [&](int64_t row, int64_t c, int64_t xo, int64_t len) {
      if (xo < 0) return;
      const float* src = col + row * cols + c;
      float* dst = x + xo;
      for (int64_t i = 0; i < len; ++i) dst[i] += src[i];
    });
  }

  /// Runs block(b, r0, r1, patches) for every block, on the thread pool when
  /// the product is big enough; `patches` is this thread's blockRows x cols
  /// scratch (reused across calls: no allocation per training step).
  template <class Block>
  void forEachBlock(int64_t outC, Block block) const {
    auto one = [&](int64_t b) {
      thread_local std::vector<float> patches;
      size_t need = static_cast<size_t>(blockRows * cols);
      if (patches.size() < need) patches.resize(need);
      int64_t r0 = b * blockRows;
      block(b, r0, std::min(rows, r0 + blockRows), patches.data());
    };
    ThreadPool& pool = ThreadPool::shared();
    if (blocks <= 1 || static_cast<double>(rows) * cols * outC < kParallelMacs ||
        pool.threads() == 1) {
      for (int64_t b = 0; b < blocks; ++b) one(b);
      return;
    }
    pool.parallelFor(blocks, one);
  }

  // Below this many multiply-adds a convolution runs on one thread (the
  // GEMM's own threshold, for the same reason: a hand-over costs ~20 us).
  static constexpr double kParallelMacs = 1 << 21;
};

// Below this many multiply-adds a direct convolution runs on one thread.
// Measured (conv2d at the cnn's shapes, batch 1..64, 1 vs 2 threads, best of
// 9 x 30 calls): 2 threads break even at ~0.56M (6.5 vs 6.6 us), win from
// ~0.8M (20.6 -> 14.0 us at 0.78M, 12.4 -> 9.5 at 1.1M, 101 -> 58 at 8.9M).
constexpr double kDirectParallelMacs = 1 << 19;

/// Runs body(n0, n1) over ranges of images covering [0, g.batch), spread
/// over the pool when the convolution has enough multiply-adds.
template <class Body>
void forImages(const conv::Geometry& g, Body body) {
  double macs = static_cast<double>(g.batch) * g.outH * g.outW * g.outC * g.fh * g.fw * g.inC;
  ThreadPool& pool = ThreadPool::shared();
  int64_t tasks = std::min<int64_t>(pool.threads(), g.batch);
  if (tasks <= 1 || macs < kDirectParallelMacs) {
    body(int64_t{0}, g.batch);
    return;
  }
  pool.parallelFor(tasks, [&](int64_t t) { body(g.batch * t / tasks, g.batch * (t + 1) / tasks); });
}

/// y[rows, outC] = patches(x) * filter[cols, outC].
void conv2d(KernelArgs& a) {
  Tensor& y = a.outputs[0];
  conv::Geometry g(a.inputs[0].shape(), y.shape(), a.attrs);
  const float* x = hostData<float>(a.inputs[0]);
  const float* f = hostData<float>(a.inputs[1]);
  float* py = hostData<float>(y);
  if (const conv_direct::KernelSet* direct = conv_direct::pick(g.inC, g.outC)) {
    forImages(g, [&](int64_t n0, int64_t n1) { direct->forward(g, x, f, py, n0, n1); });
    return;
  }
  Im2Col im(g);
  if (im.cols == 0) std::fill(py, py + y.size(), 0.0f);
  im.forEachBlock(g.outC, [&](int64_t, int64_t r0, int64_t r1, float* col) {
    im.gather(x, r0, r1, col);
    gemm(false, false, r1 - r0, g.outC, im.cols, 1.0f, col, im.cols, f, g.outC, 0.0f,
         py + r0 * g.outC, g.outC);
  });
}

/// With stride 1, dx is the forward convolution of dy with the filter
/// turned around (taps reversed, in and out channels swapped) and the
/// padding that makes every dy pixel reach the inputs it came from: the
/// direct kernel then serves dx too when x has few channels.
bool directBackpropInput(const conv::Geometry& g, const float* dy, const float* f, float* dx) {
  if (g.strideH != 1 || g.strideW != 1) return false;
  const conv_direct::KernelSet* direct = conv_direct::pick(g.outC, g.inC);
  if (!direct) return false;
  conv::Geometry t = g;
  t.inH = g.outH, t.inW = g.outW, t.inC = g.outC;
  t.outH = g.inH, t.outW = g.inW, t.outC = g.inC;
  t.padTop = (g.fh - 1) * g.dilH - g.padTop;
  t.padLeft = (g.fw - 1) * g.dilW - g.padLeft;
  // Reused across calls on the calling thread: no allocation per training step.
  thread_local std::vector<float> turned;
  turned.resize(static_cast<size_t>(g.fh * g.fw * g.inC * g.outC));
  for (int64_t kh = 0; kh < g.fh; ++kh)
    for (int64_t kw = 0; kw < g.fw; ++kw) {
      const float* from = f + ((g.fh - 1 - kh) * g.fw + (g.fw - 1 - kw)) * g.inC * g.outC;
      float* to = turned.data() + (kh * g.fw + kw) * g.outC * g.inC;
      for (int64_t ic = 0; ic < g.inC; ++ic)
        for (int64_t oc = 0; oc < g.outC; ++oc) to[oc * g.inC + ic] = from[ic * g.outC + oc];
    }
  const float* pt = turned.data();  // tasks on other threads see their own thread_local
  forImages(t, [&](int64_t n0, int64_t n1) { direct->forward(t, dy, pt, dx, n0, n1); });
  return true;
}

/// dx = col2im(dy[rows, outC] * filter^T[outC, cols]).
void conv2dBackpropInput(KernelArgs& a) {
  const Tensor& dy = a.inputs[0];
  Tensor& dx = a.outputs[0];
  conv::Geometry g(dx.shape(), dy.shape(), a.attrs);
  const float* f = hostData<float>(a.inputs[1]);
  float* pdx = hostData<float>(dx);
  if (directBackpropInput(g, hostData<float>(dy), f, pdx)) return;
  Im2Col im(g);
  std::fill(pdx, pdx + dx.size(), 0.0f);
  im.forEachBlock(g.outC, [&](int64_t, int64_t r0, int64_t r1, float* dcol) {
    // filter^T is read through the GEMM's packing, never materialised.
    gemm(false, true, r1 - r0, im.cols, g.outC, 1.0f, hostData<float>(dy) + r0 * g.outC, g.outC, f,
         g.outC, 0.0f, dcol, im.cols);
    im.scatterAdd(dcol, r0, r1, pdx);
  });
}

/// Images in kFilterChunks fixed ranges, each with its own partial sum,
/// added in order: the result does not depend on the thread count.
void directBackpropFilter(const conv_direct::KernelSet& direct, const conv::Geometry& g,
                          const float* x, const float* dy, float* df) {
  constexpr int64_t kFilterChunks = 4;
  const int64_t size = g.fh * g.fw * g.inC * g.outC;
  const int64_t chunks = std::min<int64_t>(kFilterChunks, g.batch);
  if (chunks <= 1) {
    direct.filterGrad(g, x, dy, df, 0, g.batch);
    return;
  }
  thread_local std::vector<float> partial;
  partial.assign(static_cast<size_t>(chunks * size), 0.0f);
  float* parts = partial.data();  // tasks on other threads see their own thread_local
  auto chunk = [&](int64_t c) {
    direct.filterGrad(g, x, dy, parts + c * size, g.batch * c / chunks, g.batch * (c + 1) / chunks);
  };
  double macs = static_cast<double>(g.batch) * g.outH * g.outW * g.outC * g.fh * g.fw * g.inC;
  ThreadPool& pool = ThreadPool::shared();
  if (pool.threads() == 1 || macs < kDirectParallelMacs) {
    for (int64_t c = 0; c < chunks; ++c) chunk(c);
  } else {
    pool.parallelFor(chunks, chunk);
  }
  for (int64_t c = 0; c < chunks; ++c)
    for (int64_t i = 0; i < size; ++i) df[i] += parts[c * size + i];
}

/// dfilter[cols, outC] = sum over row blocks of patches(x)^T * dy. Each block
/// has its own partial sum, added in block order: the result does not depend
/// on the thread count.
void conv2dBackpropFilter(KernelArgs& a) {
  const Tensor& dy = a.inputs[1];
  Tensor& df = a.outputs[0];
  conv::Geometry g(a.inputs[0].shape(), dy.shape(), a.attrs);
  const float* x = hostData<float>(a.inputs[0]);
  float* pdf = hostData<float>(df);
  std::fill(pdf, pdf + df.size(), 0.0f);
  const int64_t size = df.size();
  if (const conv_direct::KernelSet* direct = conv_direct::pick(g.inC, g.outC)) {
    directBackpropFilter(*direct, g, x, hostData<float>(dy), pdf);
    return;
  }
  Im2Col im(g);
  // Reused across calls on the calling thread: no allocation per training step.
  thread_local std::vector<float> partial;
  partial.resize(static_cast<size_t>(std::max<int64_t>(im.blocks, 1) * size));
  float* parts = partial.data();  // tasks on other threads see their own thread_local
  im.forEachBlock(g.outC, [&](int64_t b, int64_t r0, int64_t r1, float* col) {
    im.gather(x, r0, r1, col);
    // A = col^T: A(p, row) = col[row*cols + p].
    gemm(true, false, im.cols, g.outC, r1 - r0, 1.0f, col, im.cols,
         hostData<float>(dy) + r0 * g.outC, g.outC, 0.0f, parts + b * size, g.outC);
  });
  for (int64_t b = 0; b < im.blocks; ++b)
    for (int64_t i = 0; i < size; ++i) pdf[i] += parts[b * size + i];
}

}  // namespace

void registerConvKernels(const std::string& backend) {
  GLINT_REGISTER(registerKernel, "Conv2D", backend, conv2d);
  GLINT_REGISTER(registerKernel, "Conv2DBackpropInput", backend, conv2dBackpropInput);
  GLINT_REGISTER(registerKernel, "Conv2DBackpropFilter", backend, conv2dBackpropFilter);
}

}  // namespace glint::cpu
