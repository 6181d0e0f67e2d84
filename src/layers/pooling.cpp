// Pooling and resizing layers (NHWC): MaxPooling2D, AveragePooling2D,
// GlobalAveragePooling2D, GlobalMaxPooling2D, ZeroPadding2D, UpSampling2D.
#include "glint/error.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "src/core/kernel_selection.h"
#include "src/layers/families.h"
#include "src/layers/layer_args.h"
#include "src/layers/spatial.h"

namespace glint {

namespace {

using spatial::pairJson;

class Pooling2D : public spatial::Layer4D {
 public:
  Pooling2D(const Json& args, const std::string& prefix, const std::string& cls, bool isMax)
      : Layer4D(args, prefix), max_(isMax) {
    ArgReader r(this->args(), cls + " '" + name() + "'");
    r.allowOnly({"pool_size", "strides", "padding", "data_format"});
    poolSize_ = spatial::positivePair(r, "pool_size", {2, 2});
    strides_ = spatial::positivePair(r, "strides", {poolSize_[0], poolSize_[1]});
    padding_ = spatial::padding(r);
    spatial::dataFormat(r);
  }
  std::string className() const override { return max_ ? "MaxPooling2D" : "AveragePooling2D"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    const Shape& s = oneRank4Input(in);
    int64_t oh = spatial::convOutputLength(s[1], poolSize_[0], padding_, strides_[0]);
    int64_t ow = spatial::convOutputLength(s[2], poolSize_[1], padding_, strides_[1]);
    if ((s[1] >= 0 && oh <= 0) || (s[2] >= 0 && ow <= 0))
      error("pool_size " + shapeToString(Shape{poolSize_[0], poolSize_[1]}) +
            " does not fit in input of shape " + shapeToString(s) +
            " with padding 'valid'; use a smaller pool or padding 'same'");
    return {Shape{s[0], oh, ow, s[3]}};
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    computeOutputShape({in[0].shape()});
    return {max_ ? maxPool(in[0], poolSize_, strides_, padding_)
                 : avgPool(in[0], poolSize_, strides_, padding_)};
  }
  Json getConfig() const override {
    return config({{"pool_size", pairJson(poolSize_)},
                   {"padding", spatial::paddingName(padding_)},
                   {"strides", pairJson(strides_)},
                   {"data_format", "channels_last"}});
  }

 private:
  bool max_;
  Pair poolSize_{}, strides_{};
  Padding padding_ = Padding::valid;
};

class GlobalPooling2D : public spatial::Layer4D {
 public:
  GlobalPooling2D(const Json& args, const std::string& prefix, const std::string& cls, bool isMax)
      : Layer4D(args, prefix), max_(isMax) {
    ArgReader r(this->args(), cls + " '" + name() + "'");
    r.allowOnly({"data_format", "keepdims"});
    spatial::dataFormat(r);
    keepDims_ = r.boolean("keepdims", false);  // Keras (Python) only; TF.js never writes it
  }
  std::string className() const override {
    return max_ ? "GlobalMaxPooling2D" : "GlobalAveragePooling2D";
  }
  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    const Shape& s = oneRank4Input(in);
    return {keepDims_ ? Shape{s[0], 1, 1, s[3]} : Shape{s[0], s[3]}};
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    computeOutputShape({in[0].shape()});
    return {max_ ? max(in[0], {1, 2}, keepDims_) : mean(in[0], {1, 2}, keepDims_)};
  }
  Json getConfig() const override {
    Json c = config({{"data_format", "channels_last"}});
    if (keepDims_) c["keepdims"] = true;
    return c;
  }

 private:
  bool max_, keepDims_ = false;
};

class ZeroPadding2D : public spatial::Layer4D {
 public:
  explicit ZeroPadding2D(const Json& args) : Layer4D(args, "zero_padding2d") {
    ArgReader r(this->args(), "ZeroPadding2D '" + name() + "'");
    r.allowOnly({"padding", "data_format"});
    spatial::dataFormat(r);
    pads_ = {{{1, 1}, {1, 1}}};
    if (r.has("padding"))
      pads_ = spatial::heightWidthAmounts(r, "padding", this->args().at("padding"));
  }
  std::string className() const override { return "ZeroPadding2D"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    Shape s = oneRank4Input(in);
    for (int d = 0; d < 2; ++d)
      if (s[1 + d] >= 0) s[1 + d] += pads_[d][0] + pads_[d][1];
    return {s};
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    computeOutputShape({in[0].shape()});
    return {pad(in[0], {{0, 0}, {pads_[0][0], pads_[0][1]}, {pads_[1][0], pads_[1][1]}, {0, 0}})};
  }
  Json getConfig() const override {
    return config({{"padding", spatial::heightWidthJson(pads_)}, {"data_format", "channels_last"}});
  }

 private:
  std::array<Pair, 2> pads_{};
};

class UpSampling2D : public spatial::Layer4D {
 public:
  explicit UpSampling2D(const Json& args) : Layer4D(args, "up_sampling2d") {
    ArgReader r(this->args(), "UpSampling2D '" + name() + "'");
    r.allowOnly({"size", "data_format", "interpolation"});
    size_ = spatial::positivePair(r, "size", {2, 2});
    spatial::dataFormat(r);
    std::string interp = r.string("interpolation", "nearest");
    if (interp == "bilinear")
      r.fail("interpolation", "'bilinear' is not supported yet; use 'nearest'");
    if (interp != "nearest")
      r.fail("interpolation", "must be 'nearest' or 'bilinear', got '" + interp + "'");
  }
  std::string className() const override { return "UpSampling2D"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    Shape s = oneRank4Input(in);
    for (int d = 0; d < 2; ++d)
      if (s[1 + d] >= 0) s[1 + d] *= size_[d];
    return {s};
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    Shape out = computeOutputShape({in[0].shape()})[0];
    const Shape& s = in[0].shape();
    // Nearest neighbour with an integer factor repeats each pixel: insert unit
    // axes after height and width and tile them.
    Tensor x = reshape(in[0], {s[0], s[1], 1, s[2], 1, s[3]});
    x = tile(x, {1, 1, size_[0], 1, size_[1], 1});
    return {reshape(x, out)};
  }
  Json getConfig() const override {
    return config({{"size", pairJson(size_)},
                   {"data_format", "channels_last"},
                   {"interpolation", "nearest"}});
  }

 private:
  Pair size_{};
};

}  // namespace

namespace layers {

LayerPtr maxPooling2d(const Config& args) {
  return std::make_shared<Pooling2D>(args, "max_pooling2d", "MaxPooling2D", true);
}
LayerPtr averagePooling2d(const Config& args) {
  return std::make_shared<Pooling2D>(args, "average_pooling2d", "AveragePooling2D", false);
}
LayerPtr globalAveragePooling2d(const Config& args) {
  return std::make_shared<GlobalPooling2D>(args, "global_average_pooling2d",
                                           "GlobalAveragePooling2D", false);
}
LayerPtr globalMaxPooling2d(const Config& args) {
  return std::make_shared<GlobalPooling2D>(args, "global_max_pooling2d", "GlobalMaxPooling2D",
                                           true);
}
LayerPtr zeroPadding2d(const Config& args) { return std::make_shared<ZeroPadding2D>(args); }
LayerPtr upSampling2d(const Config& args) { return std::make_shared<UpSampling2D>(args); }

void registerPoolingLayers() {
  GLINT_REGISTER_LAYER(registerLayerClass, "MaxPooling2D", maxPooling2d);
  GLINT_REGISTER_LAYER(registerLayerClass, "AveragePooling2D", averagePooling2d);
  GLINT_REGISTER_LAYER(registerLayerClass, "GlobalAveragePooling2D", globalAveragePooling2d);
  GLINT_REGISTER_LAYER(registerLayerClass, "GlobalMaxPooling2D", globalMaxPooling2d);
  GLINT_REGISTER_LAYER(registerLayerClass, "ZeroPadding2D", zeroPadding2d);
  GLINT_REGISTER_LAYER(registerLayerClass, "UpSampling2D", upSampling2d);
}

}  // namespace layers
}  // namespace glint
