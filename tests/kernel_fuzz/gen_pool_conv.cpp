// Generators for pooling and convolution: every padding, stride and dilation
// against sizes around the windows (odd edges, windows larger than strides,
// channels around the vector widths). Their gradients reach the backward
// kernels (MaxPoolGrad, AvgPoolGrad, Conv2DBackpropInput/Filter, ...).
#include <algorithm>
#include <cmath>

#include "tests/kernel_fuzz/fuzz_case.h"

namespace glint::kfuzz {

namespace {

double maxAbsFinite(const InputData& d) {
  double m = 0;
  for (float v : d.values)
    if (std::isfinite(v)) m = std::max(m, static_cast<double>(std::abs(v)));
  return std::min(m, 2.0);  // specials' 1e30 are kept out of accumulating ops
}

/// Accumulating ops draw no large finite values: 1e30 beside 1 cancels
/// differently in another summation order, which is rounding, not a bug.
int64_t accumulatingClass(int64_t c) { return c == kSpecials ? kSpecialsBounded : c; }

InputData accumulatingFloats(const Shape& shape, int64_t valueClass, uint64_t seed) {
  if (valueClass != kSpecialsBounded) return floats(shape, valueClass, seed);
  InputData d = floats(shape, kSpecials, seed);
  for (float& v : d.values)
    if (std::isfinite(v) && std::abs(v) > 2.0f) v = std::copysign(2.0f, v);
  return d;
}

std::vector<std::string> geometryTags(int64_t h, int64_t w, int64_t fh, int64_t fw, int64_t sh,
                                      int64_t sw, bool same) {
  std::vector<std::string> t = {same ? "same" : "valid"};
  if (h % 2 || w % 2) t.push_back("odd");
  if (sh > 1 || sw > 1) t.push_back("strided");
  if (sh < fh || sw < fw) t.push_back("overlapping");
  if (sh > fh || sw > fw) t.push_back("gaps");
  if (fh != fw || h != w) t.push_back("nonsquare");
  return t;
}

// knobs: kind(0 max, 1 avg), n, h, w, c, fh, fw, sh, sw, same, valueClass, seed
const Register pool({
    "pool",
    {"MaxPool", "MaxPoolGrad", "AvgPool", "AvgPoolGrad"},
    [](Rng& r) {
      return Knobs{drawInt(r, 0, 1), drawInt(r, 1, 3), drawSize(r, 33),
                   drawSize(r, 33),  drawSize(r, 40),  drawInt(r, 1, 4),
                   drawInt(r, 1, 4), drawInt(r, 1, 4), drawInt(r, 1, 4),
                   drawInt(r, 0, 1), drawInt(r, 0, 2), static_cast<int64_t>(r() >> 1)};
    },
    [](const Knobs& k) -> std::optional<Call> {
      int64_t kind = k[0], n = k[1], h = k[2], w = k[3], c = k[4], fh = k[5], fw = k[6], sh = k[7],
              sw = k[8], vc = k[10];
      bool same = k[9] != 0;
      if (std::min({n, h, w, c, fh, fw, sh, sw}) < 1) return std::nullopt;
      if (!same && (fh > h || fw > w)) return std::nullopt;
      Call call;
      call.inputs = {floats({n, h, w, c}, vc, static_cast<uint64_t>(k[11]))};
      Pair f{fh, fw}, s{sh, sw};
      Padding p = same ? Padding::same : Padding::valid;
      call.fn = [=](const std::vector<Tensor>& x) {
        return kind == 0 ? maxPool(x[0], f, s, p) : avgPool(x[0], f, s, p);
      };
      call.describe = std::string(kind == 0 ? "maxPool" : "avgPool") + " x " +
                      shapeText({n, h, w, c}) + " filter " + shapeText({fh, fw}) + " strides " +
                      shapeText({sh, sw}) + (same ? " same" : " valid");
      call.spec = {
          {"op", kind == 0 ? "maxPool" : "avgPool"},
          {"attrs",
           {{"filterSize", {fh, fw}}, {"strides", {sh, sw}}, {"pad", same ? "same" : "valid"}}}};
      call.tags = geometryTags(h, w, fh, fw, sh, sw, same);
      if (c % 4) call.tags.push_back("channels%4");
      if (vc == kSpecials) call.tags.push_back("specials");
      if (vc == kQuarters) call.tags.push_back("ties");
      call.checkGrad = vc != kSpecials;
      return call;
    },
    2,
});

// knobs: kind(0 conv2d, 1 depthwise, 2 transpose), n, h, w, inC, outC, fh, fw,
//        sh, sw, dh, dw, same, valueClass, seed
const Register conv({
    "conv",
    {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2D",
     "DepthwiseConv2DBackpropInput", "DepthwiseConv2DBackpropFilter"},
    [](Rng& r) {
      bool dilate = coin(r, 0.25);
      return Knobs{drawInt(r, 0, 2),
                   drawInt(r, 1, 2),
                   drawSize(r, 17),
                   drawSize(r, 17),
                   drawSize(r, 17),
                   drawSize(r, 17),
                   drawInt(r, 1, 5),
                   drawInt(r, 1, 5),
                   dilate ? 1 : drawInt(r, 1, 3),
                   dilate ? 1 : drawInt(r, 1, 3),
                   dilate ? drawInt(r, 1, 3) : 1,
                   dilate ? drawInt(r, 1, 3) : 1,
                   drawInt(r, 0, 1),
                   drawInt(r, 0, 2),
                   static_cast<int64_t>(r() >> 1)};
    },
    [](const Knobs& k) -> std::optional<Call> {
      int64_t kind = k[0], n = k[1], h = k[2], w = k[3], ci = k[4], co = k[5], fh = k[6], fw = k[7],
              sh = k[8], sw = k[9], dh = k[10], dw = k[11], vc = accumulatingClass(k[13]);
      bool same = k[12] != 0;
      if (std::min({n, h, w, ci, co, fh, fw, sh, sw, dh, dw}) < 1) return std::nullopt;
      if ((dh > 1 || dw > 1) && (sh > 1 || sw > 1)) return std::nullopt;
      if (kind == 1 && co > 4) return std::nullopt;  // depthwise multiplier
      int64_t efh = (fh - 1) * dh + 1, efw = (fw - 1) * dw + 1;
      if (!same && (efh > h || efw > w)) return std::nullopt;
      if (kind == 2 && (dh > 1 || dw > 1)) return std::nullopt;
      uint64_t seed = static_cast<uint64_t>(k[14]);
      Pair s{sh, sw}, d{dh, dw};
      Padding p = same ? Padding::same : Padding::valid;
      Call call;
      Shape xs{n, h, w, ci}, fs{fh, fw, ci, co};
      std::string name = "conv2d";
      Shape outShape;
      if (kind == 2) {
        name = "conv2dTranspose";
        fs = {fh, fw, co, ci};
        int64_t oh = same ? h * sh : (h - 1) * sh + fh, ow = same ? w * sw : (w - 1) * sw + fw;
        outShape = {n, oh, ow, co};
      } else if (kind == 1) {
        name = "depthwiseConv2d";
      }
      // Specials in x only. Intended difference: reference skips the taps
      // that fall on padding, cpu and gl multiply the zero padding, so a
      // NaN or infinite filter value there gives NaN on them alone; models'
      // non-finite weights are refused at load.
      call.inputs = {accumulatingFloats(xs, vc, seed),
                     accumulatingFloats(fs, vc == k[13] ? vc : kUniform, seed + 1)};
      call.fn = [=](const std::vector<Tensor>& x) {
        if (kind == 0) return conv2d(x[0], x[1], s, p, d);
        if (kind == 1) return depthwiseConv2d(x[0], x[1], s, p, d);
        return conv2dTranspose(x[0], x[1], outShape, s, p);
      };
      double taps = static_cast<double>(fh * fw * (kind == 1 ? 1 : ci) * (kind == 2 ? co : 1));
      call.atol = 1e-6 + 2e-7 * taps * maxAbsFinite(call.inputs[0]) * maxAbsFinite(call.inputs[1]) *
                             std::max<double>(1, sh * sw);
      call.describe = name + " x " + shapeText(xs) + " filter " + shapeText(fs) + " strides " +
                      shapeText({sh, sw}) + " dilations " + shapeText({dh, dw}) +
                      (same ? " same" : " valid") +
                      (kind == 2 ? " outputShape " + shapeText(outShape) : "");
      Json attrs = {{"strides", {sh, sw}}, {"pad", same ? "same" : "valid"}};
      if (kind == 2) attrs["outputShape"] = outShape;
      else attrs["dilations"] = {dh, dw};
      call.spec = {{"op", name}, {"attrs", attrs}};
      call.tags = geometryTags(h, w, fh, fw, sh, sw, same);
      call.tags.push_back(name);
      if (dh > 1 || dw > 1) call.tags.push_back("dilated");
      if (vc != k[13]) call.tags.push_back("specials");
      call.checkGrad = vc == k[13];
      return call;
    },
    3,
});

}  // namespace
}  // namespace glint::kfuzz
