// Image preprocessing layers that resize (NHWC): Resizing and RandomWidth.
#include <cmath>

#include "glint/engine.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "src/core/kernel_selection.h"
#include "src/layers/families.h"
#include "src/layers/layer_args.h"
#include "src/layers/spatial.h"

namespace glint {

namespace {

std::string interpolation(const ArgReader& r) {
  std::string m = r.string("interpolation", "bilinear");
  if (m != "bilinear" && m != "nearest")
    r.fail("interpolation", "must be 'bilinear' or 'nearest', got '" + m + "'");
  return m;
}

Tensor resize(const Tensor& x, const std::string& method, Pair size, bool alignCorners,
              bool halfPixelCenters) {
  return method == "nearest" ? resizeNearestNeighbor(x, size, alignCorners, halfPixelCenters)
                             : resizeBilinear(x, size, alignCorners, halfPixelCenters);
}

/// Resizing. TF.js 4.22 and Keras resize differently: TF.js aligns corners
/// unless cropToAspectRatio (and never crops); Keras samples pixel centres
/// and, with crop_to_aspect_ratio, first crops the largest centred region of
/// the target's aspect ratio. A config that carries Keras's own keys
/// (data_format, pad_to_aspect_ratio, fill_mode, ...) was written by Keras and
/// gets Keras's resizing; any other gets TF.js's, so each file predicts as
/// where it came from.
class Resizing : public spatial::Layer4D {
 public:
  explicit Resizing(const Json& args) : Layer4D(args, "resizing") {
    ArgReader r(this->args(), "Resizing '" + name() + "'");
    r.allowOnly({"height", "width", "interpolation", "crop_to_aspect_ratio", "pad_to_aspect_ratio",
                 "fill_mode", "fill_value", "data_format", "antialias"});
    height_ = r.integer("height");
    width_ = r.integer("width");
    if (height_ < 1 || width_ < 1)
      r.fail(height_ < 1 ? "height" : "width",
             "must be a positive integer, got " + std::to_string(height_ < 1 ? height_ : width_));
    method_ = interpolation(r);
    crop_ = r.boolean("crop_to_aspect_ratio", false);
    for (const char* k :
         {"data_format", "pad_to_aspect_ratio", "fill_mode", "fill_value", "antialias"})
      keras_ = keras_ || this->args().contains(k);
    if (keras_) {
      spatial::dataFormat(r);
      if (r.boolean("pad_to_aspect_ratio", false))
        r.fail("pad_to_aspect_ratio", "true is not supported (only crop_to_aspect_ratio)");
      if (r.boolean("antialias", false)) r.fail("antialias", "true is not supported");
    }
  }
  std::string className() const override { return "Resizing"; }
  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    const Shape& s = oneRank4Input(in);
    return {Shape{s[0], height_, width_, s[3]}};
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    computeOutputShape({in[0].shape()});
    Tensor x = in[0];
    if (!keras_) return {resize(x, method_, {height_, width_}, !crop_, false)};
    if (crop_) {
      const int64_t h = x.shape()[1], w = x.shape()[2];
      // The largest centred region with the target's aspect ratio.
      int64_t ch =
          std::min<int64_t>(h, static_cast<int64_t>(std::floor(double(w) * height_ / width_)));
      int64_t cw =
          std::min<int64_t>(w, static_cast<int64_t>(std::floor(double(h) * width_ / height_)));
      ch = std::max<int64_t>(ch, 1);
      cw = std::max<int64_t>(cw, 1);
      x = slice(x, {0, (h - ch) / 2, (w - cw) / 2, 0}, {-1, ch, cw, -1});
    }
    return {resize(x, method_, {height_, width_}, false, true)};
  }
  Json getConfig() const override {
    Json own = {{"height", height_},
                {"width", width_},
                {"interpolation", method_},
                {"crop_to_aspect_ratio", crop_}};
    if (keras_) {  // Keras's keys keep a Keras file Keras's on the way back
      own["pad_to_aspect_ratio"] = false;
      own["data_format"] = "channels_last";
    }
    return config(own);
  }

 private:
  int64_t height_ = 0, width_ = 0;
  std::string method_;
  bool crop_ = false, keras_ = false;
};

/// RandomWidth: in training, resizes to the width times a factor drawn from
/// [1 + lower, 1 + upper] (the engine's seeded generator); at inference the
/// identity, as Keras (TF.js 4.22 resizes at inference too, so its
/// predictions vary from call to call).
class RandomWidth : public spatial::Layer4D {
 public:
  explicit RandomWidth(const Json& args) : Layer4D(args, "random_width") {
    ArgReader r(this->args(), "RandomWidth '" + name() + "'");
    r.allowOnly({"factor", "interpolation", "seed", "data_format"});
    if (!r.has("factor")) r.fail("factor", "is required");
    const Json& f = this->args().at("factor");
    if (f.is_number()) {
      double v = f.get<double>();
      if (!(v > 0))
        r.fail("factor", "must be a positive number or [lower, upper], got " + f.dump());
      lower_ = -v;
      upper_ = v;
    } else if (f.is_array() && f.size() == 2 && f[0].is_number() && f[1].is_number()) {
      lower_ = f[0].get<double>();
      upper_ = f[1].get<double>();
    } else {
      r.fail("factor", "must be a positive number or [lower, upper], got " + f.dump());
    }
    if (lower_ < -1 || upper_ < -1) r.fail("factor", "must not go below -1, got " + f.dump());
    if (upper_ < lower_)
      r.fail("factor", "upper bound must not be below the lower, got " + f.dump());
    factor_ = f;
    method_ = interpolation(r);
    spatial::dataFormat(r);
  }
  std::string className() const override { return "RandomWidth"; }
  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    const Shape& s = oneRank4Input(in);
    return {Shape{s[0], s[1], -1, s[3]}};  // the width changes from call to call
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    computeOutputShape({in[0].shape()});
    if (!args.training) return {in[0]};
    const int64_t w = in[0].shape()[2];
    double factor = 1.0 + lower_ + (upper_ - lower_) * randomUniform01();
    int64_t width = std::max<int64_t>(1, static_cast<int64_t>(std::lround(factor * w)));
    return {resize(in[0], method_, {in[0].shape()[1], width}, false, false)};
  }
  Json getConfig() const override {
    return config({{"factor", factor_}, {"interpolation", method_}});
  }

 private:
  double lower_ = 0, upper_ = 0;
  Json factor_;
  std::string method_;
};

}  // namespace

namespace layers {

LayerPtr resizing(const Config& args) { return std::make_shared<Resizing>(args); }
LayerPtr randomWidth(const Config& args) { return std::make_shared<RandomWidth>(args); }

void registerImageLayers() {
  GLINT_REGISTER_LAYER(registerLayerClass, "Resizing", resizing);
  GLINT_REGISTER_LAYER(registerLayerClass, "RandomWidth", randomWidth);
}

}  // namespace layers
}  // namespace glint
