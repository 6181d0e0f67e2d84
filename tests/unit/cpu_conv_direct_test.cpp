// The cpu backend's direct convolution kernels (conv_direct.h) against a
// double-precision loop, for every kernel set this CPU runs: each vector
// count of output channels, 1 to 3 input channels and more than a vector,
// rows longer than a register block (a short last block), edge pixels of
// same padding, strides and dilations, and the channel counts with their
// own compiled blocks. The op tests compare the whole
// kernels (direct and im2col paths, the dx transformation) with reference.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "glint/attrs.h"
#include "src/backends/cpu/conv_direct.h"

namespace glint::cpu {
namespace {

struct Case {
  Shape x;  // [n, h, w, inC]
  int64_t fh, fw, outC, stride, dilation;
  bool same;
};

std::vector<float> values(int64_t count, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(count));
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>((seed >> 8) % 2001) / 1000.0f - 1.0f;
  }
  return v;
}

conv::Geometry geometry(const Case& c) {
  conv::Dim h = conv::windowDim(c.x[1], c.fh, c.stride, c.dilation, c.same);
  conv::Dim w = conv::windowDim(c.x[2], c.fw, c.stride, c.dilation, c.same);
  std::vector<int64_t> pads{h.padBefore, h.padAfter, w.padBefore, w.padAfter};
  Attrs attrs = Attrs()
                    .set("strides", std::vector<int64_t>{c.stride, c.stride})
                    .set("pads", pads)
                    .set("dilations", std::vector<int64_t>{c.dilation, c.dilation})
                    .set("filterSize", std::vector<int64_t>{c.fh, c.fw});
  return conv::Geometry(c.x, {c.x[0], h.out, w.out, c.outC}, attrs);
}

/// Calls fn(y index, x index, filter index) for every product of the convolution.
template <class Fn>
void forEachProduct(const conv::Geometry& g, Fn fn) {
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oh = 0; oh < g.outH; ++oh)
      for (int64_t ow = 0; ow < g.outW; ++ow)
        for (int64_t kh = 0; kh < g.fh; ++kh)
          for (int64_t kw = 0; kw < g.fw; ++kw) {
            int64_t ih = g.inRow(oh, kh), iw = g.inCol(ow, kw);
            if (ih < 0 || ih >= g.inH || iw < 0 || iw >= g.inW) continue;
            for (int64_t ic = 0; ic < g.inC; ++ic)
              for (int64_t oc = 0; oc < g.outC; ++oc)
                fn(((n * g.outH + oh) * g.outW + ow) * g.outC + oc,
                   ((n * g.inH + ih) * g.inW + iw) * g.inC + ic,
                   ((kh * g.fw + kw) * g.inC + ic) * g.outC + oc);
          }
}

void checkCase(const conv_direct::KernelSet& set, const Case& c) {
  conv::Geometry g = geometry(c);
  SCOPED_TRACE(std::string(set.isa) + " x " + shapeToString(c.x) + " filter " +
               std::to_string(c.fh) + "x" + std::to_string(c.fw) + " outC " +
               std::to_string(c.outC) + " stride " + std::to_string(c.stride) + " dilation " +
               std::to_string(c.dilation) + (c.same ? " same" : " valid"));
  std::vector<float> x = values(shapeSize(c.x), 1), f = values(c.fh * c.fw * g.inC * c.outC, 2);
  std::vector<float> dy = values(g.batch * g.outH * g.outW * c.outC, 3);
  std::vector<double> y(dy.size()), df(f.size());
  forEachProduct(g, [&](int64_t yi, int64_t xi, int64_t fi) {
    y[yi] += static_cast<double>(x[xi]) * f[fi];
    df[fi] += static_cast<double>(x[xi]) * dy[yi];
  });
  // Two calls over image ranges, as the thread pool splits them.
  std::vector<float> got(y.size(), -7.0f), gotDf(df.size(), 0.0f);
  int64_t half = g.batch / 2;
  set.forward(g, x.data(), f.data(), got.data(), 0, half);
  set.forward(g, x.data(), f.data(), got.data(), half, g.batch);
  set.filterGrad(g, x.data(), dy.data(), gotDf.data(), 0, half);
  set.filterGrad(g, x.data(), dy.data(), gotDf.data(), half, g.batch);
  for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(got[i], y[i], 1e-4) << "y[" << i << "]";
  for (size_t i = 0; i < df.size(); ++i) ASSERT_NEAR(gotDf[i], df[i], 1e-3) << "df[" << i << "]";
}

TEST(CpuConvDirect, MatchesADoubleLoopOnEveryKernelSet) {
  int sets = 0;
  for (const char* isa : {"avx512", "avx512-ymm", "avx2", "generic"}) {
    // The set's width: the smallest outC it takes.
    const conv_direct::KernelSet* set = nullptr;
    for (int64_t outC : {4, 8, 16})
      if (!set) set = conv_direct::pick(1, outC, isa);
    if (!set) continue;
    ++sets;
    const int64_t w = set->width;
    for (int64_t vectors = 1; vectors <= conv_direct::kMaxVectors; ++vectors)
      ASSERT_EQ(conv_direct::pick(3, vectors * w, isa), set);
    EXPECT_EQ(conv_direct::pick(3, (conv_direct::kMaxVectors + 1) * w, isa), nullptr);
    EXPECT_EQ(conv_direct::pick(conv_direct::kMaxInChannels + 1, w, isa), nullptr);
    std::vector<Case> cases = {
        {{2, 28, 28, 1}, 3, 3, w, 1, 1, false},      // the cnn's first layer
        {{3, 13, 13, 8}, 3, 3, 2 * w, 1, 1, false},  // its second
        {{2, 9, 31, 3}, 3, 3, w, 1, 1, true},        // edges, rows over a block
        {{1, 7, 6, 2}, 3, 2, 3 * w, 1, 1, true},
        {{2, 8, 9, 5}, 3, 3, 4 * w, 2, 1, true},    // stride 2
        {{1, 9, 11, 2}, 2, 3, w, 1, 2, true},       // dilation 2
        {{1, 9, 10, 2}, 3, 3, 2 * w, 3, 1, false},  // stride 3
        {{1, 4, 40, 17}, 1, 5, w, 1, 1, true},      // 1 x 5, many channels
        {{1, 2, 2, 1}, 3, 3, w, 1, 1, true},        // window wider than the image
        // Input channels the kernels know at compile time (1, 8, 16), in
        // interior and edge blocks.
        {{2, 9, 31, 8}, 3, 3, w, 1, 1, true},
        {{1, 7, 12, 16}, 3, 3, 2 * w, 1, 1, true},
        {{1, 6, 30, 16}, 3, 3, w, 1, 1, false},
        {{1, 8, 8, 1}, 3, 3, 3 * w, 1, 1, true},
        {{1, 9, 9, 8}, 3, 3, w, 2, 1, true},  // stride 2: not compile-time
    };
    for (const Case& c : cases) checkCase(*set, c);
  }
  EXPECT_GT(sets, 0);  // generic runs everywhere
}

}  // namespace
}  // namespace glint::cpu
