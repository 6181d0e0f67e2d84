#pragma once
// Window geometry shared by the convolution/pooling ops and their kernels:
// src/geometry sits below both ops and backends (scripts/check_layers.mjs).
// Ops compute explicit pads once (TF.js arithmetic); kernels only read them.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "glint/attrs.h"
#include "glint/shape.h"

namespace glint::conv {

/// One spatial dimension of a window op: output size and padding.
struct Dim {
  int64_t out;
  int64_t padBefore;
  int64_t padAfter;
};

/// TF.js: valid -> ceil((in - effK + 1) / s); same -> ceil(in / s) with
/// pad_total = max((out-1)*s + effK - in, 0), pad_before = pad_total / 2.
/// `out` may come back <= 0 (window larger than a valid input): callers check.
inline Dim windowDim(int64_t in, int64_t k, int64_t stride, int64_t dilation, bool same) {
  int64_t effK = (k - 1) * dilation + 1;
  if (!same) {
    int64_t span = in - effK + 1;
    // ceil(span / stride), as TF.js sizes a 'valid' output; 0 or less: no window fits.
    int64_t out = span > 0 ? (span + stride - 1) / stride : -((-span) / stride);
    return {out, 0, 0};
  }
  int64_t out = (in + stride - 1) / stride;
  int64_t total = std::max<int64_t>((out - 1) * stride + effK - in, 0);
  return {out, total / 2, total - total / 2};
}

/// Kernel-side view of the attrs: x [batch,inH,inW,inC] -> y [batch,outH,outW,outC].
/// Attrs: strides [sh,sw], pads [top,bottom,left,right], dilations [dh,dw],
/// filterSize [fh,fw].
struct Geometry {
  int64_t batch, inH, inW, inC;
  int64_t outH, outW, outC;
  int64_t fh, fw;
  int64_t strideH, strideW, dilH, dilW;
  int64_t padTop, padLeft;

  Geometry(const Shape& x, const Shape& y, const Attrs& attrs)
      : batch(x[0]), inH(x[1]), inW(x[2]), inC(x[3]), outH(y[1]), outW(y[2]), outC(y[3]) {
    const auto& f = attrs.ints("filterSize");
    const auto& s = attrs.ints("strides");
    const auto& d = attrs.ints("dilations");
    const auto& p = attrs.ints("pads");
    fh = f[0], fw = f[1];
    strideH = s[0], strideW = s[1];
    dilH = d[0], dilW = d[1];
    padTop = p[0], padLeft = p[2];
  }
  /// Input row of output row `oh` at filter row `kh` (may be out of bounds).
  int64_t inRow(int64_t oh, int64_t kh) const { return oh * strideH + kh * dilH - padTop; }
  int64_t inCol(int64_t ow, int64_t kw) const { return ow * strideW + kw * dilW - padLeft; }
};

/// Op-side: validates strides/dilations, computes the output size and pads of
/// a window over x [n,h,w,c] and returns the kernel attrs. `window` describes
/// the filter for messages. Defined in src/ops/conv.cpp.
/// A description for an error message, built only when one is thrown.
using Describe = std::function<std::string()>;

/// emptyOk: a 'valid' window exactly one larger than the input gives an
/// output size 0 (TF.js's pools return that empty tensor); larger still fails.
Attrs windowAttrs(const std::string& op, const Describe& xDesc, const Shape& x,
                  const Describe& window, int64_t fh, int64_t fw,
                  const std::vector<int64_t>& strides, bool same,
                  const std::vector<int64_t>& dilations, int64_t& outH, int64_t& outW,
                  bool emptyOk = false);

}  // namespace glint::conv
