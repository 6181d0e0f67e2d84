#pragma once
// Helpers shared by the spatial layers (convolution, pooling, padding,
// cropping, upsampling; 1-D NWC, 2-D NHWC, 3-D NDHWC): argument parsing,
// output lengths and config assembly.
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
    r.fail("data_format",
           "'" + f + "' is not supported: Glint layers are channelsLast (NHWC) only");
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
inline Pair positivePair(const ArgReader& r, const std::string& key,
                         std::vector<int64_t> fallback) {
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

/// An int or a list of `n` ints, each >= 1 (windows of any rank).
inline std::vector<int64_t> positiveTuple(const ArgReader& r, const std::string& key, size_t n,
                                          std::vector<int64_t> fallback) {
  std::vector<int64_t> v = r.tuple(key, n, fallback);
  for (int64_t e : v)
    if (e < 1) r.fail(key, "must be positive, got " + shapeToString(v));
  return v;
}

inline Triple triple(const std::vector<int64_t>& v) { return {v[0], v[1], v[2]}; }
inline Json intsJson(const std::vector<int64_t>& v) { return Json(v); }

/// (before, after) amounts for height and width, as ZeroPadding2D and
/// Cropping2D take them: an int, [height, width], or [[top, bottom], [left,
/// right]], each non-negative. `value` is the raw argument read under `key`.
inline std::array<Pair, 2> heightWidthAmounts(const ArgReader& r, const std::string& key,
                                              const Json& v) {
  auto nonNegative = [&](const Json& e) {
    if (!e.is_number_integer() || e.get<int64_t>() < 0)
      r.fail(key,
             "must be a non-negative int, [height, width] or [[top, bottom], [left, right]], got " +
                 v.dump());
    return e.get<int64_t>();
  };
  if (v.is_number()) {
    int64_t p = nonNegative(v);
    return {{{p, p}, {p, p}}};
  }
  if (!v.is_array() || v.size() != 2) nonNegative(Json(-1));
  std::array<Pair, 2> out{};
  for (int d = 0; d < 2; ++d) {
    const Json& e = v[static_cast<size_t>(d)];
    if (e.is_array()) {
      if (e.size() != 2) nonNegative(Json(-1));
      out[d] = {nonNegative(e[0]), nonNegative(e[1])};
    } else {
      int64_t p = nonNegative(e);
      out[d] = {p, p};
    }
  }
  return out;
}

inline Json heightWidthJson(const std::array<Pair, 2>& a) {
  return Json::array({Json::array({a[0][0], a[0][1]}), Json::array({a[1][0], a[1][1]})});
}

/// TF.js builds a config as the class's own keys followed by the base Layer
/// keys (name, trainable, batch_input_shape, dtype); keep that order.
inline Json withBase(Json own, const Json& base) {
  for (auto it = base.begin(); it != base.end(); ++it) own[it.key()] = it.value();
  return own;
}

/// A layer taking one channels-last input: the rank check every spatial
/// layer needs.
class Layer4D : public Layer {
 public:
  using Layer::Layer;

 protected:
  const Shape& oneRank4Input(const std::vector<Shape>& in) const { return oneInputOfRank(in, 4); }
  /// Rank 3 [batch, steps, channels], 4 (NHWC) or 5 (NDHWC).
  const Shape& oneInputOfRank(const std::vector<Shape>& in, size_t rank) const {
    static const char* layouts[] = {"[batch, steps, channels]", "[batch, height, width, channels]",
                                    "[batch, depth, height, width, channels]"};
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    if (in[0].size() != rank)
      error("expects inputs of rank " + std::to_string(rank) + " " + layouts[rank - 3] + ", got " +
            shapeToString(in[0]));
    return in[0];
  }
  /// Keras class config: own keys first, then the base Layer keys.
  Json config(Json own) const { return withBase(std::move(own), Layer::getConfig()); }
};

}  // namespace glint::spatial
