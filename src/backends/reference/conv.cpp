// Convolutions as plain loops. One walk over every (output, filter tap, channel
// pair) term serves the forward kernel and both backprops, which are its adjoints.
#include <vector>

#include "src/backends/reference/kernels.h"
#include "src/backends/reference/loops.h"
#include "src/core/kernel_selection.h"
#include "src/geometry/conv_geometry.h"

namespace glint::reference {

void registerPoolKernels(const std::string& backend);  // pool.cpp

namespace {

/// Calls term(xIndex, filterIndex, yIndex) for every product x * filter that
/// contributes to y. Conv2D pairs every input channel with every output
/// channel; depthwise pairs channel c with outputs c*multiplier + q.
template <class Term>
void forEachTerm(const conv::Geometry& g, int64_t filterLast, bool depthwise, Term term) {
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oh = 0; oh < g.outH; ++oh)
      for (int64_t ow = 0; ow < g.outW; ++ow)
        for (int64_t kh = 0; kh < g.fh; ++kh)
          for (int64_t kw = 0; kw < g.fw; ++kw) {
            int64_t ih = g.inRow(oh, kh), iw = g.inCol(ow, kw);
            if (ih < 0 || ih >= g.inH || iw < 0 || iw >= g.inW) continue;  // padding
            for (int64_t ic = 0; ic < g.inC; ++ic)
              for (int64_t j = 0; j < filterLast; ++j) {
                int64_t oc = depthwise ? ic * filterLast + j : j;
                term(((n * g.inH + ih) * g.inW + iw) * g.inC + ic,
                     ((kh * g.fw + kw) * g.inC + ic) * filterLast + j,
                     ((n * g.outH + oh) * g.outW + ow) * g.outC + oc);
              }
          }
}

/// Accumulates in double (the oracle is more exact than what it checks).
void store(const std::vector<double>& acc, Tensor& out) {
  float* p = hostData<float>(out);
  for (size_t i = 0; i < acc.size(); ++i) p[i] = static_cast<float>(acc[i]);
}

void forward(KernelArgs& a, bool depthwise) {
  const Tensor& x = a.inputs[0];
  const Tensor& f = a.inputs[1];
  conv::Geometry g(x.shape(), a.outputs[0].shape(), a.attrs);
  const float* px = hostData<float>(x);
  const float* pf = hostData<float>(f);
  std::vector<double> y(static_cast<size_t>(a.outputs[0].size()), 0.0);
  forEachTerm(g, f.shape()[3], depthwise,
              [&](int64_t xi, int64_t fi, int64_t yi) { y[yi] += double(px[xi]) * pf[fi]; });
  store(y, a.outputs[0]);
}

/// inputs (dy, filter) -> dx.
void backpropInput(KernelArgs& a, bool depthwise) {
  const Tensor& dy = a.inputs[0];
  const Tensor& f = a.inputs[1];
  conv::Geometry g(a.outputs[0].shape(), dy.shape(), a.attrs);
  const float* pdy = hostData<float>(dy);
  const float* pf = hostData<float>(f);
  std::vector<double> dx(static_cast<size_t>(a.outputs[0].size()), 0.0);
  forEachTerm(g, f.shape()[3], depthwise,
              [&](int64_t xi, int64_t fi, int64_t yi) { dx[xi] += double(pdy[yi]) * pf[fi]; });
  store(dx, a.outputs[0]);
}

/// inputs (x, dy) -> dfilter.
void backpropFilter(KernelArgs& a, bool depthwise) {
  const Tensor& x = a.inputs[0];
  const Tensor& dy = a.inputs[1];
  conv::Geometry g(x.shape(), dy.shape(), a.attrs);
  const float* px = hostData<float>(x);
  const float* pdy = hostData<float>(dy);
  std::vector<double> df(static_cast<size_t>(a.outputs[0].size()), 0.0);
  forEachTerm(g, a.outputs[0].shape()[3], depthwise,
              [&](int64_t xi, int64_t fi, int64_t yi) { df[fi] += double(px[xi]) * pdy[yi]; });
  store(df, a.outputs[0]);
}

}  // namespace

void registerConvKernels(const std::string& backend) {
  GLINT_REGISTER(registerKernel, "Conv2D", backend, [](KernelArgs& a) { forward(a, false); });
  GLINT_REGISTER(registerKernel, "Conv2DBackpropInput", backend,
                 [](KernelArgs& a) { backpropInput(a, false); });
  GLINT_REGISTER(registerKernel, "Conv2DBackpropFilter", backend,
                 [](KernelArgs& a) { backpropFilter(a, false); });
  GLINT_REGISTER(registerKernel, "DepthwiseConv2dNative", backend,
                 [](KernelArgs& a) { forward(a, true); });
  GLINT_REGISTER(registerKernel, "DepthwiseConv2dNativeBackpropInput", backend,
                 [](KernelArgs& a) { backpropInput(a, true); });
  GLINT_REGISTER(registerKernel, "DepthwiseConv2dNativeBackpropFilter", backend,
                 [](KernelArgs& a) { backpropFilter(a, true); });
  registerPoolKernels(backend);
}

}  // namespace glint::reference
