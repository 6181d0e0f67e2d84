// Pooling as plain loops over each window's in-bounds taps (padding never
// takes part: it is neither a maximum nor counted in an average).
#include <vector>

#include "src/backends/reference/kernels.h"
#include "src/backends/reference/loops.h"
#include "src/core/kernel_selection.h"
#include "src/geometry/conv_geometry.h"

namespace glint::reference {

namespace {

/// Calls window(xIndices, yIndex) for every output element: the flat x
/// indices of its in-bounds taps, in row-major window order.
template <class Window>
void forEachWindow(const conv::Geometry& g, Window window) {
  std::vector<int64_t> taps;
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oh = 0; oh < g.outH; ++oh)
      for (int64_t ow = 0; ow < g.outW; ++ow)
        for (int64_t c = 0; c < g.inC; ++c) {
          taps.clear();
          for (int64_t kh = 0; kh < g.fh; ++kh)
            for (int64_t kw = 0; kw < g.fw; ++kw) {
              int64_t ih = g.inRow(oh, kh), iw = g.inCol(ow, kw);
              if (ih >= 0 && ih < g.inH && iw >= 0 && iw < g.inW)
                taps.push_back(((n * g.inH + ih) * g.inW + iw) * g.inC + c);
            }
          window(static_cast<const std::vector<int64_t>&>(taps),
                 ((n * g.outH + oh) * g.outW + ow) * g.outC + c);
        }
}

/// The first tap holding the window's maximum (TF picks the first too); -1 if none.
int64_t argMaxTap(const float* x, const std::vector<int64_t>& taps) {
  int64_t best = -1;
  for (int64_t t : taps)
    if (best < 0 || x[t] > x[best]) best = t;
  return best;
}

void maxPool(KernelArgs& a) {
  const float* px = hostData<float>(a.inputs[0]);
  float* py = hostData<float>(a.outputs[0]);
  conv::Geometry g(a.inputs[0].shape(), a.outputs[0].shape(), a.attrs);
  forEachWindow(g, [&](const std::vector<int64_t>& taps, int64_t yi) {
    int64_t best = argMaxTap(px, taps);
    py[yi] = best < 0 ? 0.0f : px[best];
  });
}

/// inputs (dy, x) -> dx.
void maxPoolGrad(KernelArgs& a) {
  const float* pdy = hostData<float>(a.inputs[0]);
  const float* px = hostData<float>(a.inputs[1]);
  conv::Geometry g(a.inputs[1].shape(), a.inputs[0].shape(), a.attrs);
  std::vector<double> dx(static_cast<size_t>(a.outputs[0].size()), 0.0);
  forEachWindow(g, [&](const std::vector<int64_t>& taps, int64_t yi) {
    int64_t best = argMaxTap(px, taps);
    if (best >= 0) dx[best] += pdy[yi];
  });
  float* pdx = hostData<float>(a.outputs[0]);
  for (size_t i = 0; i < dx.size(); ++i) pdx[i] = static_cast<float>(dx[i]);
}

void avgPool(KernelArgs& a) {
  const float* px = hostData<float>(a.inputs[0]);
  float* py = hostData<float>(a.outputs[0]);
  conv::Geometry g(a.inputs[0].shape(), a.outputs[0].shape(), a.attrs);
  forEachWindow(g, [&](const std::vector<int64_t>& taps, int64_t yi) {
    double acc = 0;
    for (int64_t t : taps) acc += px[t];
    py[yi] = taps.empty() ? 0.0f : static_cast<float>(acc / static_cast<double>(taps.size()));
  });
}

/// inputs (dy) -> dx shaped like attr inputShape: each tap gets dy / taps.
void avgPoolGrad(KernelArgs& a) {
  const float* pdy = hostData<float>(a.inputs[0]);
  conv::Geometry g(a.outputs[0].shape(), a.inputs[0].shape(), a.attrs);
  std::vector<double> dx(static_cast<size_t>(a.outputs[0].size()), 0.0);
  forEachWindow(g, [&](const std::vector<int64_t>& taps, int64_t yi) {
    for (int64_t t : taps) dx[t] += pdy[yi] / static_cast<double>(taps.size());
  });
  float* pdx = hostData<float>(a.outputs[0]);
  for (size_t i = 0; i < dx.size(); ++i) pdx[i] = static_cast<float>(dx[i]);
}

}  // namespace

void registerPoolKernels(const std::string& backend) {
  GLINT_REGISTER(registerKernel, "MaxPool", backend, maxPool);
  GLINT_REGISTER(registerKernel, "MaxPoolGrad", backend, maxPoolGrad);
  GLINT_REGISTER(registerKernel, "AvgPool", backend, avgPool);
  GLINT_REGISTER(registerKernel, "AvgPoolGrad", backend, avgPoolGrad);
}

}  // namespace glint::reference
