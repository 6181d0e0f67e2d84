// Convolution layers (NHWC): Conv2D, DepthwiseConv2D, SeparableConv2D,
// Conv2DTranspose. Configs follow what TF.js 4.22 writes for each class.
#include "glint/activations.h"
#include "glint/error.h"
#include "glint/initializers.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "glint/regularizers.h"
#include "src/core/kernel_selection.h"
#include "src/layers/families.h"
#include "src/layers/layer_args.h"
#include "src/layers/spatial.h"

namespace glint {

namespace {

using spatial::pairJson;

/// TF.js BaseConv: kernel size, strides, padding, dilation, activation, bias.
class BaseConv : public spatial::Layer4D {
 public:
  BaseConv(const Json& args, const std::string& prefix, const std::string& cls)
      : Layer4D(args, prefix) {
    ArgReader r(this->args(), cls + " '" + name() + "'");
    if (!r.has("kernel_size")) r.fail("kernel_size", "is required (an int or [height, width])");
    kernelSize_ = spatial::positivePair(r, "kernel_size", {});
    strides_ = spatial::positivePair(r, "strides", {1, 1});
    padding_ = spatial::padding(r);
    spatial::dataFormat(r);
    dilation_ = spatial::positivePair(r, "dilation_rate", {1, 1});
    if ((strides_[0] > 1 || strides_[1] > 1) && (dilation_[0] > 1 || dilation_[1] > 1))
      r.fail("dilation_rate", "cannot be > 1 together with strides > 1, got strides " +
                                  shapeToString(Shape{strides_[0], strides_[1]}) +
                                  " and dilation_rate " +
                                  shapeToString(Shape{dilation_[0], dilation_[1]}));
    activation_ = r.activation("activation");
    useBias_ = r.boolean("use_bias", true);
    biasInit_ = r.initializer("bias_initializer", "zeros");
    biasReg_ = r.regularizer("bias_regularizer");
    activityReg_ = r.regularizer("activity_regularizer");
    biasConstraint_ = r.constraint("bias_constraint");
  }

 protected:
  /// Checks the input (rank 4, known channels matching the built ones) and
  /// returns it.
  const Shape& checkedInput(const std::vector<Shape>& in) const {
    const Shape& s = oneRank4Input(in);
    if (s[3] < 0)
      error("the channel dimension (last) of the input must be known, got " + shapeToString(s));
    if (inChannels_ >= 0 && s[3] != inChannels_)
      error("was built for inputs with " + std::to_string(inChannels_) +
            " channels, got input of shape " + shapeToString(s));
    return s;
  }

  /// Output height and width of the forward convolution window.
  std::pair<int64_t, int64_t> windowOutput(const Shape& s) const {
    int64_t oh =
        spatial::convOutputLength(s[1], kernelSize_[0], padding_, strides_[0], dilation_[0]);
    int64_t ow =
        spatial::convOutputLength(s[2], kernelSize_[1], padding_, strides_[1], dilation_[1]);
    if ((s[1] >= 0 && oh <= 0) || (s[2] >= 0 && ow <= 0))
      error("kernel " + shapeToString(Shape{kernelSize_[0], kernelSize_[1]}) +
            " with dilation_rate " + shapeToString(Shape{dilation_[0], dilation_[1]}) +
            " does not fit in input of shape " + shapeToString(s) +
            " with padding 'valid'; use a smaller kernel or padding 'same'");
    return {oh, ow};
  }

  Tensor finish(Tensor y) const {
    if (useBias_) y = add(y, bias_);
    return activations::apply(activation_, y);
  }

  /// BaseConv.getConfig's own keys, in TF.js order.
  Json baseConvConfig(bool withDilation = true) const {
    Json c = Json::object();
    c["kernel_size"] = pairJson(kernelSize_);
    c["strides"] = pairJson(strides_);
    c["padding"] = spatial::paddingName(padding_);
    c["data_format"] = "channels_last";
    if (withDilation) c["dilation_rate"] = pairJson(dilation_);
    c["activation"] = activations::serializedName(activation_);
    c["use_bias"] = useBias_;
    c["bias_initializer"] = serializeObject(biasInit_);
    c["bias_regularizer"] = serializeObject(biasReg_);
    c["activity_regularizer"] = serializeObject(activityReg_);
    c["bias_constraint"] = serializeObject(biasConstraint_);
    return c;
  }

  static void append(Json& to, const Json& from) {
    for (auto it = from.begin(); it != from.end(); ++it) to[it.key()] = it.value();
  }

  Pair kernelSize_{}, strides_{}, dilation_{};
  Padding padding_ = Padding::valid;
  std::string activation_;
  bool useBias_ = true;
  int64_t inChannels_ = -1;
  std::shared_ptr<Initializer> biasInit_;
  std::shared_ptr<Regularizer> biasReg_, activityReg_;
  std::shared_ptr<Constraint> biasConstraint_;
  Variable bias_;
};

/// Conv2D and Conv2DTranspose: a full kernel and `filters` outputs.
class Conv : public BaseConv {
 public:
  Conv(const Json& args, const std::string& prefix, const std::string& cls)
      : BaseConv(args, prefix, cls) {
    ArgReader r(this->args(), cls + " '" + name() + "'");
    r.allowOnly({"filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
                 "activation", "use_bias", "kernel_initializer", "bias_initializer",
                 "kernel_regularizer", "bias_regularizer", "activity_regularizer",
                 "kernel_constraint", "bias_constraint", "groups", "output_padding"});
    // Keys Keras (Python) writes; accepted only with the values TF.js implies.
    if (r.integer("groups", 1) != 1)
      r.fail("groups", "must be 1: grouped convolution is not supported");
    if (r.has("output_padding") && cls != "Conv2DTranspose")
      r.fail("output_padding", "is an argument of Conv2DTranspose only");
    if (r.has("output_padding")) r.fail("output_padding", "is not supported (it must be null)");
    filters_ = r.integer("filters");
    if (filters_ <= 0) r.fail("filters", "must be positive, got " + std::to_string(filters_));
    kernelInit_ = r.initializer("kernel_initializer", "glorotNormal");
    kernelReg_ = r.regularizer("kernel_regularizer");
    kernelConstraint_ = r.constraint("kernel_constraint");
  }

  Json getConfig() const override {
    Json c = Json::object();
    c["filters"] = filters_;
    c["kernel_initializer"] = serializeObject(kernelInit_);
    c["kernel_regularizer"] = serializeObject(kernelReg_);
    c["kernel_constraint"] = serializeObject(kernelConstraint_);
    append(c, baseConvConfig(className() != "Conv2DTranspose"));
    return config(c);
  }

 protected:
  int64_t filters_ = 0;
  std::shared_ptr<Initializer> kernelInit_;
  std::shared_ptr<Regularizer> kernelReg_;
  std::shared_ptr<Constraint> kernelConstraint_;
  Variable kernel_;
};

class Conv2D : public Conv {
 public:
  explicit Conv2D(const Json& args) : Conv(args, "conv2d", "Conv2D") {}
  std::string className() const override { return "Conv2D"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    const Shape& s = checkedInput(in);
    auto [oh, ow] = windowOutput(s);
    return {Shape{s[0], oh, ow, filters_}};
  }
  void build(const std::vector<Shape>& in) override {
    inChannels_ = in[0][3];
    kernel_ = addWeight("kernel", {kernelSize_[0], kernelSize_[1], inChannels_, filters_},
                        kernelInit_, kernelReg_, true, kernelConstraint_);
    if (useBias_) bias_ = addWeight("bias", {filters_}, biasInit_, biasReg_, true, biasConstraint_);
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    computeOutputShape({in[0].shape()});
    return {finish(conv2d(in[0], kernel_, strides_, padding_, dilation_))};
  }
};

class Conv2DTranspose : public Conv {
 public:
  explicit Conv2DTranspose(const Json& args) : Conv(args, "conv2d_transpose", "Conv2DTranspose") {
    if (dilation_[0] != 1 || dilation_[1] != 1)
      error(
          "argument 'dilation_rate' must be 1: dilated transposed convolution is not supported, "
          "got " +
          shapeToString(Shape{dilation_[0], dilation_[1]}));
  }
  std::string className() const override { return "Conv2DTranspose"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    const Shape& s = checkedInput(in);
    return {Shape{s[0], spatial::deconvOutputLength(s[1], kernelSize_[0], padding_, strides_[0]),
                  spatial::deconvOutputLength(s[2], kernelSize_[1], padding_, strides_[1]),
                  filters_}};
  }
  void build(const std::vector<Shape>& in) override {
    inChannels_ = in[0][3];
    kernel_ = addWeight("kernel", {kernelSize_[0], kernelSize_[1], filters_, inChannels_},
                        kernelInit_, kernelReg_, true, kernelConstraint_);
    if (useBias_) bias_ = addWeight("bias", {filters_}, biasInit_, biasReg_, true, biasConstraint_);
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    Shape out = computeOutputShape({in[0].shape()})[0];
    return {finish(conv2dTranspose(in[0], kernel_, out, strides_, padding_))};
  }
};

class DepthwiseConv2D : public BaseConv {
 public:
  explicit DepthwiseConv2D(const Json& args)
      : BaseConv(args, "depthwise_conv2d", "DepthwiseConv2D") {
    ArgReader r(this->args(), "DepthwiseConv2D '" + name() + "'");
    r.allowOnly({"kernel_size", "strides", "padding", "data_format", "dilation_rate", "activation",
                 "use_bias", "depth_multiplier", "depthwise_initializer", "bias_initializer",
                 "depthwise_regularizer", "bias_regularizer", "activity_regularizer",
                 "depthwise_constraint", "bias_constraint"});
    multiplier_ = r.integer("depth_multiplier", 1);
    if (multiplier_ <= 0)
      r.fail("depth_multiplier", "must be positive, got " + std::to_string(multiplier_));
    depthwiseInit_ = r.initializer("depthwise_initializer", "glorotNormal");
    depthwiseReg_ = r.regularizer("depthwise_regularizer");
    depthwiseConstraint_ = r.constraint("depthwise_constraint");
  }
  std::string className() const override { return "DepthwiseConv2D"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    const Shape& s = checkedInput(in);
    auto [oh, ow] = windowOutput(s);
    return {Shape{s[0], oh, ow, s[3] * multiplier_}};
  }
  void build(const std::vector<Shape>& in) override {
    inChannels_ = in[0][3];
    kernel_ =
        addWeight("depthwise_kernel", {kernelSize_[0], kernelSize_[1], inChannels_, multiplier_},
                  depthwiseInit_, depthwiseReg_, true, depthwiseConstraint_);
    if (useBias_)
      bias_ = addWeight("bias", {inChannels_ * multiplier_}, biasInit_, biasReg_, true,
                        biasConstraint_);
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    computeOutputShape({in[0].shape()});
    return {finish(depthwiseConv2d(in[0], kernel_, strides_, padding_, dilation_))};
  }
  Json getConfig() const override {
    Json c = config(baseConvConfig());
    c["depth_multiplier"] = multiplier_;
    c["depthwise_initializer"] = serializeObject(depthwiseInit_);
    c["depthwise_regularizer"] = serializeObject(depthwiseReg_);
    c["depthwise_constraint"] = serializeObject(depthwiseConstraint_);
    return c;
  }

 private:
  int64_t multiplier_ = 1;
  std::shared_ptr<Initializer> depthwiseInit_;
  std::shared_ptr<Regularizer> depthwiseReg_;
  std::shared_ptr<Constraint> depthwiseConstraint_;
  Variable kernel_;
};

/// A depthwise convolution followed by a pointwise (1x1) one.
class SeparableConv2D : public BaseConv {
 public:
  explicit SeparableConv2D(const Json& args)
      : BaseConv(args, "separable_conv2d", "SeparableConv2D") {
    ArgReader r(this->args(), "SeparableConv2D '" + name() + "'");
    for (const char* k : {"kernel_initializer", "kernel_regularizer", "kernel_constraint"})
      if (r.has(k))
        r.fail(k,
               "is not an argument of SeparableConv2D: use depthwise_* and pointwise_* "
               "(depthwiseInitializer, pointwiseInitializer, ...)");
    r.allowOnly({"filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
                 "activation", "use_bias", "depth_multiplier", "depthwise_initializer",
                 "pointwise_initializer", "bias_initializer", "depthwise_regularizer",
                 "pointwise_regularizer", "bias_regularizer", "activity_regularizer",
                 "depthwise_constraint", "pointwise_constraint", "bias_constraint"});
    filters_ = r.integer("filters");
    if (filters_ <= 0) r.fail("filters", "must be positive, got " + std::to_string(filters_));
    multiplier_ = r.integer("depth_multiplier", 1);
    if (multiplier_ <= 0)
      r.fail("depth_multiplier", "must be positive, got " + std::to_string(multiplier_));
    depthwiseInit_ = r.initializer("depthwise_initializer", "glorotUniform");
    pointwiseInit_ = r.initializer("pointwise_initializer", "glorotUniform");
    depthwiseReg_ = r.regularizer("depthwise_regularizer");
    pointwiseReg_ = r.regularizer("pointwise_regularizer");
    depthwiseConstraint_ = r.constraint("depthwise_constraint");
    pointwiseConstraint_ = r.constraint("pointwise_constraint");
  }
  std::string className() const override { return "SeparableConv2D"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    const Shape& s = checkedInput(in);
    auto [oh, ow] = windowOutput(s);
    return {Shape{s[0], oh, ow, filters_}};
  }
  void build(const std::vector<Shape>& in) override {
    inChannels_ = in[0][3];
    depthwise_ =
        addWeight("depthwise_kernel", {kernelSize_[0], kernelSize_[1], inChannels_, multiplier_},
                  depthwiseInit_, depthwiseReg_, true, depthwiseConstraint_);
    pointwise_ = addWeight("pointwise_kernel", {1, 1, inChannels_ * multiplier_, filters_},
                           pointwiseInit_, pointwiseReg_, true, pointwiseConstraint_);
    if (useBias_) bias_ = addWeight("bias", {filters_}, biasInit_, biasReg_, true, biasConstraint_);
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    computeOutputShape({in[0].shape()});
    Tensor y = depthwiseConv2d(in[0], depthwise_, strides_, padding_, dilation_);
    return {finish(conv2d(y, pointwise_))};
  }
  Json getConfig() const override {
    Json c = Json::object();
    c["filters"] = filters_;
    append(c, baseConvConfig());
    c = config(c);
    c["depthwise_initializer"] = serializeObject(depthwiseInit_);
    c["pointwise_initializer"] = serializeObject(pointwiseInit_);
    c["depthwise_regularizer"] = serializeObject(depthwiseReg_);
    c["pointwise_regularizer"] = serializeObject(pointwiseReg_);
    c["depthwise_constraint"] = serializeObject(depthwiseConstraint_);
    c["pointwise_constraint"] = serializeObject(pointwiseConstraint_);
    // TF.js omits it (and then rebuilds with 1); Keras writes it. Kept so a
    // multiplier > 1 survives a round trip; TF.js reads it fine.
    c["depth_multiplier"] = multiplier_;
    return c;
  }

 private:
  int64_t filters_ = 0, multiplier_ = 1;
  std::shared_ptr<Initializer> depthwiseInit_, pointwiseInit_;
  std::shared_ptr<Regularizer> depthwiseReg_, pointwiseReg_;
  std::shared_ptr<Constraint> depthwiseConstraint_, pointwiseConstraint_;
  Variable depthwise_, pointwise_;
};

}  // namespace

namespace layers {

void registerPoolingLayers();  // pooling.cpp

LayerPtr conv2d(const Config& args) { return std::make_shared<Conv2D>(args); }
LayerPtr depthwiseConv2d(const Config& args) { return std::make_shared<DepthwiseConv2D>(args); }
LayerPtr separableConv2d(const Config& args) { return std::make_shared<SeparableConv2D>(args); }
LayerPtr conv2dTranspose(const Config& args) { return std::make_shared<Conv2DTranspose>(args); }

void registerConvolutionLayers() {
  GLINT_REGISTER_LAYER(registerLayerClass, "Conv2D", conv2d);
  GLINT_REGISTER_LAYER(registerLayerClass, "DepthwiseConv2D", depthwiseConv2d);
  GLINT_REGISTER_LAYER(registerLayerClass, "SeparableConv2D", separableConv2d);
  GLINT_REGISTER_LAYER(registerLayerClass, "Conv2DTranspose", conv2dTranspose);
  registerPoolingLayers();
}

}  // namespace layers
}  // namespace glint
