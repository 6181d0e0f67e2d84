#pragma once
// Helpers shared by the 2-D spatial layers (convolution, pooling, padding,
// upsampling): argument parsing, output lengths and config assembly.
#include <algorithm>
#include <string>
#include <vector>

#include "glint/json.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "glint/shape.h"
#include "src/layers/layer_args.h"

namespace glint::spatial {

/// Only channelsLast (NHWC) is supported; channelsFirst is a named error.
/// Returns the TF.js identifier, "channelsLast".
inline std::string dataFormat(const ArgReader& r) {
  std::string f = r.string("data_format", "channelsLast");
  if (f == "channelsLast" || f == "channels_last") return "channelsLast";
  if (f == "channelsFirst" || f == "channels_first")
    r.fail("data_format", "'" + f + "' is not supported: Glint layers are channelsLast (NHWC) only");
  r.fail("data_format", "must be 'channelsLast' or 'channelsFirst', got '" + f + "'");
}

inline Padding padding(const ArgReader& r) {
  std::string p = r.string("padding", "valid");
  if (p == "valid") return Padding::valid;
  if (p == "same") return Padding::same;
  r.fail("padding", "must be 'valid' or 'same', got '" + p + "'");
}

inline const char* paddingName(Padding p) { return p == Padding::same ? "same" : "valid"; }

/// An int or a list of two ints, each >= 1.
inline Pair positivePair(const ArgReader& r, const std::string& key, std::vector<int64_t> fallback) {
  std::vector<int64_t> v = r.pair(key, fallback);
  if (v[0] < 1 || v[1] < 1) r.fail(key, "must be positive, got " + shapeToString(v));
  return {v[0], v[1]};
}

/// Keras conv_output_length; -1 (unknown) stays -1.
inline int64_t convOutputLength(int64_t in, int64_t filter, Padding p, int64_t stride,
                                int64_t dilation = 1) {
  if (in < 0) return -1;
  int64_t dilated = filter + (filter - 1) * (dilation - 1);
  int64_t out = p == Padding::same ? in : in - dilated + 1;
  return out <= 0 ? out : (out + stride - 1) / stride;
}

/// Keras / TF.js deconv_output_length (no output padding, no dilation).
inline int64_t deconvOutputLength(int64_t in, int64_t filter, Padding p, int64_t stride) {
  if (in < 0) return -1;
  return p == Padding::same ? in * stride : in * stride + std::max<int64_t>(filter - stride, 0);
}

inline Json pairJson(Pair p) { return Json::array({p[0], p[1]}); }

/// TF.js builds a config as the class's own keys followed by the base Layer
/// keys (name, trainable, batch_input_shape, dtype); keep that order.
inline Json withBase(Json own, const Json& base) {
  for (auto it = base.begin(); it != base.end(); ++it) own[it.key()] = it.value();
  return own;
}

/// A layer taking one NHWC input: the rank-4 check every spatial layer needs.
class Layer4D : public Layer {
 public:
  using Layer::Layer;

 protected:
  const Shape& oneRank4Input(const std::vector<Shape>& in) const {
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    if (in[0].size() != 4)
      error("expects inputs of rank 4 [batch, height, width, channels], got " +
            shapeToString(in[0]));
    return in[0];
  }
  /// Keras class config: own keys first, then the base Layer keys.
  Json config(Json own) const { return withBase(std::move(own), Layer::getConfig()); }
};

}  // namespace glint::spatial
