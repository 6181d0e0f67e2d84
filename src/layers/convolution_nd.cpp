// Convolution layers over one and three spatial dimensions: Conv1D (NWC),
// Conv3D and Conv3DTranspose (NDHWC). Configs follow what TF.js 4.22 writes.
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

/// TF.js Conv with `rank` spatial dimensions: filters, a full kernel, bias,
/// activation. Sizes are vectors of `rank` values.
class ConvND : public spatial::Layer4D {
 public:
  ConvND(const Json& args, const std::string& prefix, std::string cls, size_t rank, bool transpose)
      : Layer4D(args, prefix), cls_(std::move(cls)), rank_(rank), transpose_(transpose) {
    ArgReader r(this->args(), cls_ + " '" + name() + "'");
    r.allowOnly({"filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
                 "activation", "use_bias", "kernel_initializer", "bias_initializer",
                 "kernel_regularizer", "bias_regularizer", "activity_regularizer",
                 "kernel_constraint", "bias_constraint", "groups", "output_padding"});
    // Keys Keras (Python) writes; accepted only with the values TF.js implies.
    if (r.integer("groups", 1) != 1)
      r.fail("groups", "must be 1: grouped convolution is not supported");
    if (r.has("output_padding") && !transpose_)
      r.fail("output_padding", "is an argument of Conv3DTranspose only");
    if (r.has("output_padding") && !this->args().at("output_padding").is_null())
      r.fail("output_padding", "is not supported (it must be null)");
    filters_ = r.integer("filters");
    if (filters_ <= 0) r.fail("filters", "must be positive, got " + std::to_string(filters_));
    if (!r.has("kernel_size"))
      r.fail("kernel_size", "is required (an int or a list of " + std::to_string(rank) + ")");
    kernelSize_ = spatial::positiveTuple(r, "kernel_size", rank, {});
    strides_ = spatial::positiveTuple(r, "strides", rank, std::vector<int64_t>(rank, 1));
    std::string padding = r.string("padding", "valid");
    if (padding == "causal" && rank == 1) {
      causal_ = true;
    } else if (padding == "valid" || padding == "same") {
      padding_ = padding == "same" ? Padding::same : Padding::valid;
    } else {
      r.fail("padding", "must be 'valid', 'same'" + std::string(rank == 1 ? " or 'causal'" : "") +
                            ", got '" + padding + "'");
    }
    spatial::dataFormat(r);
    dilation_ = spatial::positiveTuple(r, "dilation_rate", rank, std::vector<int64_t>(rank, 1));
    bool strided = false, dilated = false;
    for (size_t i = 0; i < rank; ++i) strided |= strides_[i] > 1, dilated |= dilation_[i] > 1;
    if (strided && dilated)
      r.fail("dilation_rate", "cannot be > 1 together with strides > 1, got strides " +
                                  shapeToString(strides_) + " and dilation_rate " +
                                  shapeToString(dilation_));
    if (transpose_ && dilated)
      r.fail("dilation_rate", "must be 1: dilated transposed convolution is not supported, got " +
                                  shapeToString(dilation_));
    activation_ = r.activation("activation");
    useBias_ = r.boolean("use_bias", true);
    kernelInit_ = r.initializer("kernel_initializer", "glorotNormal");
    biasInit_ = r.initializer("bias_initializer", "zeros");
    kernelReg_ = r.regularizer("kernel_regularizer");
    biasReg_ = r.regularizer("bias_regularizer");
    activityReg_ = r.regularizer("activity_regularizer");
    kernelConstraint_ = r.constraint("kernel_constraint");
    biasConstraint_ = r.constraint("bias_constraint");
  }
  std::string className() const override { return cls_; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    const Shape& s = oneInputOfRank(in, rank_ + 2);
    int64_t channels = s[rank_ + 1];
    if (channels < 0)
      error("the channel dimension (last) of the input must be known, got " + shapeToString(s));
    if (inChannels_ >= 0 && channels != inChannels_)
      error("was built for inputs with " + std::to_string(inChannels_) +
            " channels, got input of shape " + shapeToString(s));
    Shape out = s;
    out[rank_ + 1] = filters_;
    bool fits = true;
    for (size_t i = 0; i < rank_; ++i) {
      int64_t len = s[1 + i];
      if (transpose_) {
        out[1 + i] = spatial::deconvOutputLength(len, kernelSize_[i], padding_, strides_[i]);
      } else if (causal_) {
        // Left padding of (kernel - 1) * dilation keeps every step.
        out[1 + i] = len < 0 ? -1 : (len + strides_[i] - 1) / strides_[i];
      } else {
        out[1 + i] =
            spatial::convOutputLength(len, kernelSize_[i], padding_, strides_[i], dilation_[i]);
        fits &= len < 0 || out[1 + i] > 0;
      }
    }
    if (!fits)
      error("kernel " + shapeToString(kernelSize_) + " with dilation_rate " +
            shapeToString(dilation_) + " does not fit in input of shape " + shapeToString(s) +
            " with padding 'valid'; use a smaller kernel or padding 'same'");
    return {out};
  }

  void build(const std::vector<Shape>& in) override {
    inChannels_ = in[0][rank_ + 1];
    Shape kernelShape(kernelSize_.begin(), kernelSize_.end());
    kernelShape.push_back(transpose_ ? filters_ : inChannels_);
    kernelShape.push_back(transpose_ ? inChannels_ : filters_);
    kernel_ = addWeight("kernel", kernelShape, kernelInit_, kernelReg_, true, kernelConstraint_);
    if (useBias_) bias_ = addWeight("bias", {filters_}, biasInit_, biasReg_, true, biasConstraint_);
  }

  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    Shape out = computeOutputShape({in[0].shape()})[0];
    using spatial::triple;
    Tensor y = rank_ == 1   ? conv1d(in[0], out)
               : transpose_ ? conv3dTranspose(in[0], kernel_, out, triple(strides_), padding_)
                            : conv3d(in[0], kernel_, triple(strides_), padding_, triple(dilation_));
    if (useBias_) y = add(y, bias_);
    return {activations::apply(activation_, y)};
  }

  /// TF.js Conv.getConfig then BaseConv.getConfig, then the base Layer keys.
  /// Conv1D drops data_format, Conv3DTranspose dilation_rate, as TF.js does.
  Json getConfig() const override {
    Json c = Json::object();
    c["filters"] = filters_;
    c["kernel_initializer"] = serializeObject(kernelInit_);
    c["kernel_regularizer"] = serializeObject(kernelReg_);
    c["kernel_constraint"] = serializeObject(kernelConstraint_);
    c["kernel_size"] = spatial::intsJson(kernelSize_);
    c["strides"] = spatial::intsJson(strides_);
    c["padding"] = causal_ ? "causal" : spatial::paddingName(padding_);
    if (rank_ != 1) c["data_format"] = "channels_last";
    if (!transpose_) c["dilation_rate"] = spatial::intsJson(dilation_);
    c["activation"] = activations::serializedName(activation_);
    c["use_bias"] = useBias_;
    c["bias_initializer"] = serializeObject(biasInit_);
    c["bias_regularizer"] = serializeObject(biasReg_);
    c["activity_regularizer"] = serializeObject(activityReg_);
    c["bias_constraint"] = serializeObject(biasConstraint_);
    return config(c);
  }

 private:
  /// A 1-D convolution is a 2-D one over images one row high.
  Tensor conv1d(const Tensor& x, const Shape& out) const {
    const Shape& s = x.shape();
    Tensor rows = x;
    if (causal_) rows = pad(x, {{0, 0}, {(kernelSize_[0] - 1) * dilation_[0], 0}, {0, 0}});
    int64_t steps = rows.shape()[1];
    rows = reshape(rows, {s[0], 1, steps, s[2]});
    const Shape& k = kernel_.shape();
    Tensor y = conv2d(rows, reshape(kernel_, {1, k[0], k[1], k[2]}), {1, strides_[0]},
                      causal_ ? Padding::valid : padding_, {1, dilation_[0]});
    return reshape(y, out);
  }

  std::string cls_;
  size_t rank_;
  bool transpose_, causal_ = false;
  std::vector<int64_t> kernelSize_, strides_, dilation_;
  Padding padding_ = Padding::valid;
  int64_t filters_ = 0, inChannels_ = -1;
  std::string activation_;
  bool useBias_ = true;
  std::shared_ptr<Initializer> kernelInit_, biasInit_;
  std::shared_ptr<Regularizer> kernelReg_, biasReg_, activityReg_;
  std::shared_ptr<Constraint> kernelConstraint_, biasConstraint_;
  Variable kernel_, bias_;
};

}  // namespace

namespace layers {

LayerPtr conv1d(const Config& args) {
  return std::make_shared<ConvND>(args, "conv1d", "Conv1D", 1, false);
}
LayerPtr conv3d(const Config& args) {
  return std::make_shared<ConvND>(args, "conv3d", "Conv3D", 3, false);
}
LayerPtr conv3dTranspose(const Config& args) {
  return std::make_shared<ConvND>(args, "conv3d_transpose", "Conv3DTranspose", 3, true);
}

void registerConvolutionNDLayers() {
  GLINT_REGISTER_LAYER(registerLayerClass, "Conv1D", conv1d);
  GLINT_REGISTER_LAYER(registerLayerClass, "Conv3D", conv3d);
  GLINT_REGISTER_LAYER(registerLayerClass, "Conv3DTranspose", conv3dTranspose);
}

}  // namespace layers
}  // namespace glint
