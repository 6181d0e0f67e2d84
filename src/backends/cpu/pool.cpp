// Pooling on NHWC tensors: for each output position the in-bounds window is
// worked out once, then every tap is a contiguous run of channels, so the
// inner loops run along c without index arithmetic. Semantics match the
// reference kernels: padding never takes part, the first maximal tap wins
// (a NaN tap never replaces the first one), averages divide by the in-bounds
// count. Batches are split over the thread pool when there is enough work.
// Max pooling goes a vector of channels at a time.
#include <algorithm>
#include <cstring>
#include <vector>

#include "glint/backend.h"
#include "src/backends/cpu/kernels.h"
#include "src/backends/cpu/simd.h"
#include "src/backends/cpu/thread_pool.h"
#include "src/core/kernel_selection.h"
#include "src/geometry/conv_geometry.h"

namespace glint::cpu {

namespace {

/// Below this many tap reads a pooling kernel runs on one thread (a task costs
/// tens of microseconds to hand over; one thread reads ~1 tap-channel per ns).
constexpr int64_t kParallelTaps = 1 << 17;

/// The in-bounds filter rows [kh0, kh1) and columns [kw0, kw1) of one output.
struct Window {
  int64_t kh0, kh1, kw0, kw1;
};

Window windowAt(const conv::Geometry& g, int64_t oh, int64_t ow) {
  auto range = [](int64_t origin, int64_t dil, int64_t size, int64_t taps, int64_t& lo,
                  int64_t& hi) {
    lo = 0;
    while (lo < taps && origin + lo * dil < 0) ++lo;
    hi = taps;
    while (hi > lo && origin + (hi - 1) * dil >= size) --hi;
  };
  Window w;
  range(g.inRow(oh, 0), g.dilH, g.inH, g.fh, w.kh0, w.kh1);
  range(g.inCol(ow, 0), g.dilW, g.inW, g.fw, w.kw0, w.kw1);
  return w;
}

/// Runs body(n) for every batch element, split over the pool when it pays.
template <class Body>
void forEachImage(const conv::Geometry& g, Body body) {
  int64_t work = g.batch * g.outH * g.outW * g.inC * g.fh * g.fw;
  ThreadPool& pool = ThreadPool::shared();
  int64_t tasks = work < kParallelTaps ? 1 : std::min<int64_t>(pool.threads(), g.batch);
  if (tasks <= 1) {
    for (int64_t n = 0; n < g.batch; ++n) body(n);
    return;
  }
  pool.parallelFor(tasks, [&](int64_t t) {
    for (int64_t n = g.batch * t / tasks; n < g.batch * (t + 1) / tasks; ++n) body(n);
  });
}

/// Flat offset of x[n, ih, iw, 0].
inline int64_t pixel(const conv::Geometry& g, int64_t n, int64_t ih, int64_t iw) {
  return ((n * g.inH + ih) * g.inW + iw) * g.inC;
}

/// Calls tap(offset of the tap's channel run) for the window's taps in
/// row-major order; returns how many there were.
template <class Tap>
int64_t forEachTap(const conv::Geometry& g, int64_t n, int64_t oh, int64_t ow, Tap tap) {
  Window w = windowAt(g, oh, ow);
  for (int64_t kh = w.kh0; kh < w.kh1; ++kh)
    for (int64_t kw = w.kw0; kw < w.kw1; ++kw) tap(pixel(g, n, g.inRow(oh, kh), g.inCol(ow, kw)));
  return (w.kh1 - w.kh0) * (w.kw1 - w.kw0);
}

using simd::kWidth;
using simd::Vec;
typedef int32_t Lanes __attribute__((vector_size(sizeof(Vec))));  // a compare's result

/// The in-bounds windows of every output column, worked out once per call.
std::vector<Window> columnWindows(const conv::Geometry& g) {
  std::vector<Window> cols(static_cast<size_t>(g.outW));
  for (int64_t ow = 0; ow < g.outW; ++ow) cols[static_cast<size_t>(ow)] = windowAt(g, 0, ow);
  return cols;
}

/// Calls tap(t, offset of x[n, ih, iw, 0]) for the taps of output (oh, ow)
/// in row-major order; returns how many there were.
template <class Tap>
inline int64_t forEachTapOf(const conv::Geometry& g, const Window& rows, const Window& cols,
                            int64_t n, int64_t oh, int64_t ow, Tap tap) {
  int64_t t = 0;
  for (int64_t kh = rows.kh0; kh < rows.kh1; ++kh)
    for (int64_t kw = cols.kw0; kw < cols.kw1; ++kw)
      tap(t++, pixel(g, n, g.inRow(oh, kh), g.inCol(ow, kw)));
  return t;
}

/// Windows that tile the input (stride >= window, no padding: the usual
/// pooling) never overlap and never leave it: each x pixel belongs to at
/// most one window, whose taps sit at fixed offsets from its corner.
struct Tiling {
  bool tiles;
  std::vector<int64_t> taps;      // offsets of the taps' channel runs from the corner
  std::vector<int64_t> bareCols;  // input columns no window reaches

  explicit Tiling(const conv::Geometry& g)
      : tiles(g.strideH >= g.fh && g.strideW >= g.fw && g.padTop == 0 && g.padLeft == 0 &&
              g.dilH == 1 && g.dilW == 1 && g.inC % kWidth == 0 &&
              // 'same' padding on an odd size puts the last window partly
              // past the bottom or right edge: not a tiling, it needs clipping.
              (g.outH - 1) * g.strideH + g.fh <= g.inH &&
              (g.outW - 1) * g.strideW + g.fw <= g.inW) {
    if (!tiles) return;
    for (int64_t kh = 0; kh < g.fh; ++kh)
      for (int64_t kw = 0; kw < g.fw; ++kw) taps.push_back((kh * g.inW + kw) * g.inC);
    for (int64_t iw = 0; iw < g.inW; ++iw)
      if (!(iw < g.outW * g.strideW && iw % g.strideW < g.fw)) bareCols.push_back(iw);
  }
  const float* corner(const conv::Geometry& g, const float* x, int64_t n, int64_t oh,
                      int64_t ow) const {
    return x + pixel(g, n, oh * g.strideH, ow * g.strideW);
  }
};

/// Max pooling over tiling windows: a vector of channels at a time.
void maxPoolTiled(const conv::Geometry& g, const Tiling& t, const float* x, float* y, int64_t n) {
  const int64_t C = g.inC, taps = static_cast<int64_t>(t.taps.size());
  const int64_t* off = t.taps.data();
  for (int64_t oh = 0; oh < g.outH; ++oh)
    for (int64_t ow = 0; ow < g.outW; ++ow) {
      const float* in = t.corner(g, x, n, oh, ow);
      float* out = y + ((n * g.outH + oh) * g.outW + ow) * C;
      for (int64_t c = 0; c < C; c += kWidth) {
        Vec best = simd::load(in + off[0] + c);
        for (int64_t k = 1; k < taps; ++k) {
          Vec v = simd::load(in + off[k] + c);
          best = v > best ? v : best;
        }
        simd::store(out + c, best);
      }
    }
}

/// Its gradient: every x pixel is written once (the windows' taps, or zero
/// where no window reaches), so dx needs no clearing pass.
void maxPoolGradTiled(const conv::Geometry& g, const Tiling& t, const float* dy, const float* x,
                      float* dx, int64_t n) {
  const int64_t C = g.inC, taps = static_cast<int64_t>(t.taps.size());
  const int64_t* off = t.taps.data();
  for (int64_t ih = 0; ih < g.inH; ++ih) {
    if (!(ih < g.outH * g.strideH && ih % g.strideH < g.fh)) {
      std::fill(dx + pixel(g, n, ih, 0), dx + pixel(g, n, ih + 1, 0), 0.0f);
      continue;
    }
    for (int64_t iw : t.bareCols)
      std::fill(dx + pixel(g, n, ih, iw), dx + pixel(g, n, ih, iw) + C, 0.0f);
  }
  for (int64_t oh = 0; oh < g.outH; ++oh)
    for (int64_t ow = 0; ow < g.outW; ++ow) {
      const float* in = t.corner(g, x, n, oh, ow);
      float* out = dx + (in - x);
      const float* g0 = dy + ((n * g.outH + oh) * g.outW + ow) * C;
      for (int64_t c = 0; c < C; c += kWidth) {
        Vec best = simd::load(in + off[0] + c);
        Lanes which{};
        for (int64_t k = 1; k < taps; ++k) {
          Vec v = simd::load(in + off[k] + c);
          Lanes better = v > best;
          best = better ? v : best;
          which = better ? static_cast<int32_t>(k) - Lanes{} : which;
        }
        Vec grad = simd::load(g0 + c);
        for (int64_t k = 0; k < taps; ++k)
          simd::store(out + off[k] + c, which == static_cast<int32_t>(k) - Lanes{} ? grad : Vec{});
      }
    }
}

void maxPool(KernelArgs& a) {
  const float* x = hostData<float>(a.inputs[0]);
  float* y = hostData<float>(a.outputs[0]);
  conv::Geometry g(a.inputs[0].shape(), a.outputs[0].shape(), a.attrs);
  const int64_t C = g.inC, vecC = C - C % kWidth;
  const Tiling tiling(g);
  if (tiling.tiles) return forEachImage(g, [&](int64_t n) { maxPoolTiled(g, tiling, x, y, n); });
  const std::vector<Window> cols = columnWindows(g);
  forEachImage(g, [&](int64_t n) {
    for (int64_t oh = 0; oh < g.outH; ++oh) {
      Window rows = windowAt(g, oh, 0);
      for (int64_t ow = 0; ow < g.outW; ++ow) {
        float* out = y + ((n * g.outH + oh) * g.outW + ow) * C;
        const Window& cw = cols[static_cast<size_t>(ow)];
        for (int64_t c = 0; c < vecC; c += kWidth) {
          Vec best{};
          forEachTapOf(g, rows, cw, n, oh, ow, [&](int64_t t, int64_t at) {
            Vec v = simd::load(x + at + c);
            best = t == 0 ? v : (v > best ? v : best);
          });
          simd::store(out + c, best);
        }
        for (int64_t c = vecC; c < C; ++c) {
          float best = 0.0f;
          forEachTapOf(g, rows, cw, n, oh, ow, [&](int64_t t, int64_t at) {
            float v = x[at + c];
            best = t == 0 ? v : (v > best ? v : best);
          });
          out[c] = best;
        }
      }
    }
  });
}

/// inputs (dy, x) -> dx: each output's gradient goes to its first maximal
/// tap, found again in x with the forward's comparisons; vectors of
/// channels track which tap holds each lane's maximum.
void maxPoolGrad(KernelArgs& a) {
  const float* dy = hostData<float>(a.inputs[0]);
  const float* x = hostData<float>(a.inputs[1]);
  float* dx = hostData<float>(a.outputs[0]);
  conv::Geometry g(a.inputs[1].shape(), a.inputs[0].shape(), a.attrs);
  const int64_t C = g.inC, vecC = C - C % kWidth;
  const Tiling tiling(g);
  if (tiling.tiles)
    return forEachImage(g, [&](int64_t n) { maxPoolGradTiled(g, tiling, dy, x, dx, n); });
  const std::vector<Window> cols = columnWindows(g);
  forEachImage(g, [&](int64_t n) {
    std::fill(dx + pixel(g, n, 0, 0), dx + pixel(g, n + 1, 0, 0), 0.0f);
    for (int64_t oh = 0; oh < g.outH; ++oh) {
      Window rows = windowAt(g, oh, 0);
      for (int64_t ow = 0; ow < g.outW; ++ow) {
        const float* g0 = dy + ((n * g.outH + oh) * g.outW + ow) * C;
        const Window& cw = cols[static_cast<size_t>(ow)];
        for (int64_t c = 0; c < vecC; c += kWidth) {
          Vec best{};
          Lanes which{};
          forEachTapOf(g, rows, cw, n, oh, ow, [&](int64_t t, int64_t at) {
            Vec v = simd::load(x + at + c);
            Lanes better = t == 0 ? ~Lanes{} : Lanes(v > best);
            best = better ? v : best;
            which = better ? static_cast<int32_t>(t) - Lanes{} : which;
          });
          Vec grad = simd::load(g0 + c);
          forEachTapOf(g, rows, cw, n, oh, ow, [&](int64_t t, int64_t at) {
            Vec mine = which == static_cast<int32_t>(t) - Lanes{} ? grad : Vec{};
            simd::store(dx + at + c, simd::load(dx + at + c) + mine);
          });
        }
        for (int64_t c = vecC; c < C; ++c) {
          int64_t best = -1;
          forEachTapOf(g, rows, cw, n, oh, ow, [&](int64_t t, int64_t at) {
            if (t == 0 || x[at + c] > x[best]) best = at + c;
          });
          if (best >= 0) dx[best] += g0[c];
        }
      }
    }
  });
}

void avgPool(KernelArgs& a) {
  const float* x = hostData<float>(a.inputs[0]);
  float* y = hostData<float>(a.outputs[0]);
  conv::Geometry g(a.inputs[0].shape(), a.outputs[0].shape(), a.attrs);
  const int64_t C = g.inC;
  forEachImage(g, [&](int64_t n) {
    std::vector<double> acc(static_cast<size_t>(C));
    for (int64_t oh = 0; oh < g.outH; ++oh)
      for (int64_t ow = 0; ow < g.outW; ++ow) {
        std::fill(acc.begin(), acc.end(), 0.0);
        int64_t taps = forEachTap(g, n, oh, ow, [&](int64_t at) {
          for (int64_t c = 0; c < C; ++c) acc[c] += x[at + c];
        });
        float* out = y + ((n * g.outH + oh) * g.outW + ow) * C;
        for (int64_t c = 0; c < C; ++c)
          out[c] = taps ? static_cast<float>(acc[c] / static_cast<double>(taps)) : 0.0f;
      }
  });
}

/// inputs (dy) -> dx shaped like attr inputShape: each tap gets dy / taps.
void avgPoolGrad(KernelArgs& a) {
  const float* dy = hostData<float>(a.inputs[0]);
  float* dx = hostData<float>(a.outputs[0]);
  conv::Geometry g(a.outputs[0].shape(), a.inputs[0].shape(), a.attrs);
  const int64_t C = g.inC;
  forEachImage(g, [&](int64_t n) {
    std::fill(dx + pixel(g, n, 0, 0), dx + pixel(g, n + 1, 0, 0), 0.0f);
    for (int64_t oh = 0; oh < g.outH; ++oh)
      for (int64_t ow = 0; ow < g.outW; ++ow) {
        Window w = windowAt(g, oh, ow);
        int64_t taps = (w.kh1 - w.kh0) * (w.kw1 - w.kw0);
        if (taps == 0) continue;
        const float* g0 = dy + ((n * g.outH + oh) * g.outW + ow) * C;
        float share = 1.0f / static_cast<float>(taps);
        forEachTap(g, n, oh, ow, [&](int64_t at) {
          for (int64_t c = 0; c < C; ++c) dx[at + c] += g0[c] * share;
        });
      }
  });
}

}  // namespace

void registerPoolKernels(const std::string& backend) {
  GLINT_REGISTER(registerKernel, "MaxPool", backend, maxPool);
  GLINT_REGISTER(registerKernel, "MaxPoolGrad", backend, maxPoolGrad);
  GLINT_REGISTER(registerKernel, "AvgPool", backend, avgPool);
  GLINT_REGISTER(registerKernel, "AvgPoolGrad", backend, avgPoolGrad);
}

}  // namespace glint::cpu
