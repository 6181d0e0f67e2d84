// Pooling layers over one and three spatial dimensions: MaxPooling1D,
// AveragePooling1D, GlobalMaxPooling1D, GlobalAveragePooling1D (NWC),
// MaxPooling3D, AveragePooling3D (NDHWC), and Cropping2D, ZeroPadding2D's
// inverse (NHWC). Configs follow TF.js 4.22.
#include "glint/error.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "src/core/kernel_selection.h"
#include "src/layers/families.h"
#include "src/layers/layer_args.h"
#include "src/layers/spatial.h"

namespace glint {

namespace {

/// MaxPooling1D / AveragePooling1D (rank 1) and MaxPooling3D /
/// AveragePooling3D (rank 3).
class PoolingND : public spatial::Layer4D {
 public:
  PoolingND(const Json& args, const std::string& prefix, std::string cls, size_t rank, bool isMax)
      : Layer4D(args, prefix), cls_(std::move(cls)), rank_(rank), max_(isMax) {
    ArgReader r(this->args(), cls_ + " '" + name() + "'");
    r.allowOnly({"pool_size", "strides", "padding", "data_format"});
    poolSize_ = spatial::positiveTuple(r, "pool_size", rank, std::vector<int64_t>(rank, 2));
    // Keras writes strides null for "the pool size".
    bool stridesGiven = r.has("strides") && !this->args().at("strides").is_null();
    strides_ = stridesGiven ? spatial::positiveTuple(r, "strides", rank, {}) : poolSize_;
    padding_ = spatial::padding(r);
    spatial::dataFormat(r);
  }
  std::string className() const override { return cls_; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    Shape out = oneInputOfRank(in, rank_ + 2);
    bool fits = true;
    for (size_t i = 0; i < rank_; ++i) {
      int64_t len = out[1 + i];
      out[1 + i] = spatial::convOutputLength(len, poolSize_[i], padding_, strides_[i]);
      fits &= len < 0 || out[1 + i] > 0;
    }
    if (!fits)
      error("pool_size " + shapeToString(poolSize_) + " does not fit in input of shape " +
            shapeToString(in[0]) + " with padding 'valid'; use a smaller pool or padding 'same'");
    return {out};
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    Shape out = computeOutputShape({in[0].shape()})[0];
    const Tensor& x = in[0];
    if (rank_ == 3) {
      Triple p = spatial::triple(poolSize_), s = spatial::triple(strides_);
      return {max_ ? maxPool3d(x, p, s, padding_) : avgPool3d(x, p, s, padding_)};
    }
    // A 1-D pool is a 2-D one over images one column wide.
    const Shape& xs = x.shape();
    Tensor cols = reshape(x, {xs[0], xs[1], 1, xs[2]});
    Pair p{poolSize_[0], 1}, s{strides_[0], 1};
    return {reshape(max_ ? maxPool(cols, p, s, padding_) : avgPool(cols, p, s, padding_), out)};
  }
  /// TF.js Pooling1D writes no data_format; Pooling3D does.
  Json getConfig() const override {
    Json c = {{"pool_size", spatial::intsJson(poolSize_)},
              {"padding", spatial::paddingName(padding_)},
              {"strides", spatial::intsJson(strides_)}};
    if (rank_ == 3) c["data_format"] = "channels_last";
    return config(c);
  }

 private:
  std::string cls_;
  size_t rank_;
  bool max_;
  std::vector<int64_t> poolSize_, strides_;
  Padding padding_ = Padding::valid;
};

class GlobalPooling1D : public spatial::Layer4D {
 public:
  GlobalPooling1D(const Json& args, const std::string& prefix, std::string cls, bool isMax)
      : Layer4D(args, prefix), cls_(std::move(cls)), max_(isMax) {
    ArgReader r(this->args(), cls_ + " '" + name() + "'");
    r.allowOnly({"data_format", "keepdims"});
    spatial::dataFormat(r);
    keepDims_ = r.boolean("keepdims", false);  // Keras (Python) only; TF.js never writes it
  }
  std::string className() const override { return cls_; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    const Shape& s = oneInputOfRank(in, 3);
    return {keepDims_ ? Shape{s[0], 1, s[2]} : Shape{s[0], s[2]}};
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    computeOutputShape({in[0].shape()});
    return {max_ ? max(in[0], {1}, keepDims_) : mean(in[0], {1}, keepDims_)};
  }
  /// TF.js's GlobalPooling1D has no keys of its own.
  Json getConfig() const override {
    Json c = config(Json::object());
    if (keepDims_) c["keepdims"] = true;
    return c;
  }

 private:
  std::string cls_;
  bool max_, keepDims_ = false;
};

class Cropping2D : public spatial::Layer4D {
 public:
  explicit Cropping2D(const Json& args) : Layer4D(args, "cropping2d") {
    ArgReader r(this->args(), "Cropping2D '" + name() + "'");
    r.allowOnly({"cropping", "data_format"});
    spatial::dataFormat(r);
    crops_ = {{{0, 0}, {0, 0}}};
    if (r.has("cropping"))
      crops_ = spatial::heightWidthAmounts(r, "cropping", this->args().at("cropping"));
  }
  std::string className() const override { return "Cropping2D"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    Shape s = oneRank4Input(in);
    for (int d = 0; d < 2; ++d) {
      if (s[1 + d] < 0) continue;
      s[1 + d] -= crops_[d][0] + crops_[d][1];
      if (s[1 + d] <= 0)
        error("cropping " + spatial::heightWidthJson(crops_).dump() + " removes all of the " +
              (d == 0 ? "height" : "width") + " of input of shape " + shapeToString(in[0]));
    }
    return {s};
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    Shape out = computeOutputShape({in[0].shape()})[0];
    return {slice(in[0], {0, crops_[0][0], crops_[1][0], 0}, out)};
  }
  Json getConfig() const override {
    return config(
        {{"cropping", spatial::heightWidthJson(crops_)}, {"data_format", "channels_last"}});
  }

 private:
  std::array<Pair, 2> crops_{};
};

}  // namespace

namespace layers {

LayerPtr maxPooling1d(const Config& args) {
  return std::make_shared<PoolingND>(args, "max_pooling1d", "MaxPooling1D", 1, true);
}
LayerPtr averagePooling1d(const Config& args) {
  return std::make_shared<PoolingND>(args, "average_pooling1d", "AveragePooling1D", 1, false);
}
LayerPtr maxPooling3d(const Config& args) {
  return std::make_shared<PoolingND>(args, "max_pooling3d", "MaxPooling3D", 3, true);
}
LayerPtr averagePooling3d(const Config& args) {
  return std::make_shared<PoolingND>(args, "average_pooling3d", "AveragePooling3D", 3, false);
}
LayerPtr globalMaxPooling1d(const Config& args) {
  return std::make_shared<GlobalPooling1D>(args, "global_max_pooling1d", "GlobalMaxPooling1D",
                                           true);
}
LayerPtr globalAveragePooling1d(const Config& args) {
  return std::make_shared<GlobalPooling1D>(args, "global_average_pooling1d",
                                           "GlobalAveragePooling1D", false);
}
LayerPtr cropping2d(const Config& args) { return std::make_shared<Cropping2D>(args); }

void registerPoolingNDLayers() {
  GLINT_REGISTER_LAYER(registerLayerClass, "MaxPooling1D", maxPooling1d);
  GLINT_REGISTER_LAYER(registerLayerClass, "AveragePooling1D", averagePooling1d);
  GLINT_REGISTER_LAYER(registerLayerClass, "MaxPooling3D", maxPooling3d);
  GLINT_REGISTER_LAYER(registerLayerClass, "AveragePooling3D", averagePooling3d);
  GLINT_REGISTER_LAYER(registerLayerClass, "GlobalMaxPooling1D", globalMaxPooling1d);
  GLINT_REGISTER_LAYER(registerLayerClass, "GlobalAveragePooling1D", globalAveragePooling1d);
  GLINT_REGISTER_LAYER(registerLayerClass, "Cropping2D", cropping2d);
}

}  // namespace layers
}  // namespace glint
