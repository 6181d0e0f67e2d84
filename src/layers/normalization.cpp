// Normalization layers: BatchNormalization and LayerNormalization, with the
// configs and weight order TF.js 4.22 writes.
#include <algorithm>
#include <functional>

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

/// Non-negative axis of a rank-`rank` input, or an error naming the layer.
int64_t resolveAxis(int64_t axis, const Shape& shape,
                    const std::function<void(const std::string&)>& error) {
  int64_t r = static_cast<int64_t>(shape.size());
  if (axis < -r || axis >= r)
    error("axis " + std::to_string(axis) + " is out of range for input of shape " +
          shapeToString(shape));
  return axis < 0 ? axis + r : axis;
}

class BatchNormalization : public Layer {
 public:
  explicit BatchNormalization(const Json& args) : Layer(args, "batch_normalization") {
    ArgReader r(this->args(), "BatchNormalization '" + name() + "'");
    r.allowOnly({"axis", "momentum", "epsilon", "center", "scale", "beta_initializer",
                 "gamma_initializer", "moving_mean_initializer", "moving_variance_initializer",
                 "beta_regularizer", "gamma_regularizer", "beta_constraint", "gamma_constraint"});
    // Keras writes the axis as a list of one int.
    if (r.has("axis") && this->args().at("axis").is_array()) {
      std::vector<int64_t> axes = r.ints("axis");
      if (axes.size() != 1) r.fail("axis", "must be one axis, got " + shapeToString(axes));
      axis_ = axes[0];
    } else {
      axis_ = r.integer("axis", -1);
    }
    momentum_ = r.number("momentum", 0.99);
    if (!(momentum_ >= 0 && momentum_ <= 1))
      r.fail("momentum", "must be in [0, 1], got " + std::to_string(momentum_));
    epsilon_ = r.number("epsilon", 1e-3);
    if (!(epsilon_ > 0)) r.fail("epsilon", "must be positive, got " + std::to_string(epsilon_));
    center_ = r.boolean("center", true);
    scale_ = r.boolean("scale", true);
    betaInit_ = r.initializer("beta_initializer", "zeros");
    gammaInit_ = r.initializer("gamma_initializer", "ones");
    movingMeanInit_ = r.initializer("moving_mean_initializer", "zeros");
    movingVarianceInit_ = r.initializer("moving_variance_initializer", "ones");
    betaReg_ = r.regularizer("beta_regularizer");
    gammaReg_ = r.regularizer("gamma_regularizer");
    betaConstraint_ = r.constraint("beta_constraint");
    gammaConstraint_ = r.constraint("gamma_constraint");
  }
  std::string className() const override { return "BatchNormalization"; }
  bool supportsMasking() const override { return true; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    if (in[0].size() < 2)
      error("needs inputs of rank >= 2 ([batch, ...]), got " + shapeToString(in[0]));
    int64_t a = axisOf(in[0]);
    if (in[0][a] < 0)
      error("axis " + std::to_string(a) + " of the input must be known, got " +
            shapeToString(in[0]));
    if (dim_ >= 0 && in[0][a] != dim_)
      error("was built for " + std::to_string(dim_) + " features on axis " + std::to_string(a) +
            ", got input of shape " + shapeToString(in[0]));
    return in;
  }

  void build(const std::vector<Shape>& in) override {
    dim_ = in[0][axisOf(in[0])];
    Shape shape{dim_};
    if (scale_) gamma_ = addWeight("gamma", shape, gammaInit_, gammaReg_, true, gammaConstraint_);
    if (center_) beta_ = addWeight("beta", shape, betaInit_, betaReg_, true, betaConstraint_);
    movingMean_ = addWeight("moving_mean", shape, movingMeanInit_, nullptr, false);
    movingVariance_ = addWeight("moving_variance", shape, movingVarianceInit_, nullptr, false);
  }

  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    const Tensor& x = in[0];
    computeOutputShape({x.shape()});
    int64_t a = axisOf(x.shape());
    Shape bshape(x.shape().size(), 1);
    bshape[static_cast<size_t>(a)] = dim_;
    auto b = [&](const Tensor& t) { return t.defined() ? reshape(t, bshape) : Tensor(); };
    if (!args.training)
      return {batchNorm(x, b(movingMean_), b(movingVariance_), b(beta_), b(gamma_),
                        static_cast<float>(epsilon_))};

    std::vector<int64_t> reduce;
    for (int64_t i = 0; i < x.rank(); ++i)
      if (i != a) reduce.push_back(i);
    Moments m = moments(x, reduce);
    Tensor y =
        batchNorm(x, b(m.mean), b(m.variance), b(beta_), b(gamma_), static_cast<float>(epsilon_));
    // moving = moving - (moving - batch) * (1 - momentum), as TF.js.
    float decay = static_cast<float>(1 - momentum_);
    movingMean_.assign(sub(movingMean_, sub(movingMean_, m.mean) * decay));
    movingVariance_.assign(sub(movingVariance_, sub(movingVariance_, m.variance) * decay));
    return {y};
  }

  Json getConfig() const override {
    Json c = Json::object();
    c["axis"] = axis_;
    c["momentum"] = momentum_;
    c["epsilon"] = epsilon_;
    c["center"] = center_;
    c["scale"] = scale_;
    c["beta_initializer"] = serializeObject(betaInit_);
    c["gamma_initializer"] = serializeObject(gammaInit_);
    c["moving_mean_initializer"] = serializeObject(movingMeanInit_);
    c["moving_variance_initializer"] = serializeObject(movingVarianceInit_);
    c["beta_regularizer"] = serializeObject(betaReg_);
    c["gamma_regularizer"] = serializeObject(gammaReg_);
    c["beta_constraint"] = serializeObject(betaConstraint_);
    c["gamma_constraint"] = serializeObject(gammaConstraint_);
    return spatial::withBase(c, Layer::getConfig());
  }

 private:
  int64_t axisOf(const Shape& s) const {
    return resolveAxis(axis_, s, [this](const std::string& m) { error(m); });
  }

  int64_t axis_ = -1, dim_ = -1;
  double momentum_ = 0.99, epsilon_ = 1e-3;
  bool center_ = true, scale_ = true;
  std::shared_ptr<Initializer> betaInit_, gammaInit_, movingMeanInit_, movingVarianceInit_;
  std::shared_ptr<Regularizer> betaReg_, gammaReg_;
  std::shared_ptr<Constraint> betaConstraint_, gammaConstraint_;
  Variable gamma_, beta_, movingMean_, movingVariance_;
};

class LayerNormalization : public Layer {
 public:
  explicit LayerNormalization(const Json& args) : Layer(args, "layer_normalization") {
    ArgReader r(this->args(), "LayerNormalization '" + name() + "'");
    r.allowOnly({"axis", "epsilon", "center", "scale", "beta_initializer", "gamma_initializer",
                 "beta_regularizer", "gamma_regularizer"});
    if (r.has("axis") && this->args().at("axis").is_array()) {
      axes_ = r.ints("axis");
      if (axes_.empty()) r.fail("axis", "must name at least one axis");
      axisIsList_ = true;
    } else {
      axes_ = {r.integer("axis", -1)};
    }
    epsilon_ = r.number("epsilon", 1e-3);
    if (!(epsilon_ > 0)) r.fail("epsilon", "must be positive, got " + std::to_string(epsilon_));
    center_ = r.boolean("center", true);
    scale_ = r.boolean("scale", true);
    betaInit_ = r.initializer("beta_initializer", "zeros");
    gammaInit_ = r.initializer("gamma_initializer", "ones");
    betaReg_ = r.regularizer("beta_regularizer");
    gammaReg_ = r.regularizer("gamma_regularizer");
  }
  std::string className() const override { return "LayerNormalization"; }
  bool supportsMasking() const override { return true; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    std::vector<int64_t> axes = resolved(in[0]);
    for (size_t i = 0; i < axes.size(); ++i) {
      if (in[0][axes[i]] < 0)
        error("axis " + std::to_string(axes[i]) + " of the input must be known, got " +
              shapeToString(in[0]));
      if (!paramShape_.empty() && in[0][axes[i]] != paramShape_[i])
        error("was built for inputs with shape " + shapeToString(paramShape_) + " on axes " +
              shapeToString(axes) + ", got input of shape " + shapeToString(in[0]));
    }
    return in;
  }

  void build(const std::vector<Shape>& in) override {
    // As TF.js: after building, the axes are stored non-negative (and sorted here).
    axes_ = resolved(in[0]);
    axisIsList_ = true;
    for (int64_t a : axes_) paramShape_.push_back(in[0][a]);
    if (scale_) gamma_ = addWeight("gamma", paramShape_, gammaInit_, gammaReg_, true);
    if (center_) beta_ = addWeight("beta", paramShape_, betaInit_, betaReg_, true);
  }

  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    const Tensor& x = in[0];
    computeOutputShape({x.shape()});
    Moments m = moments(x, axes_, true);
    Shape bshape(x.shape().size(), 1);
    for (int64_t a : axes_) bshape[static_cast<size_t>(a)] = x.shape()[static_cast<size_t>(a)];
    auto b = [&](const Tensor& t) { return t.defined() ? reshape(t, bshape) : Tensor(); };
    return {batchNorm(x, m.mean, m.variance, b(beta_), b(gamma_), static_cast<float>(epsilon_))};
  }

  Json getConfig() const override {
    Json c = Json::object();
    c["axis"] = axisIsList_ ? Json(axes_) : Json(axes_[0]);
    c["epsilon"] = epsilon_;
    c["center"] = center_;
    c["scale"] = scale_;
    c["beta_initializer"] = serializeObject(betaInit_);
    c["gamma_initializer"] = serializeObject(gammaInit_);
    c["beta_regularizer"] = serializeObject(betaReg_);
    c["gamma_regularizer"] = serializeObject(gammaReg_);
    return spatial::withBase(c, Layer::getConfig());
  }

 private:
  std::vector<int64_t> resolved(const Shape& s) const {
    std::vector<int64_t> out;
    for (int64_t a : axes_)
      out.push_back(resolveAxis(a, s, [this](const std::string& m) { error(m); }));
    std::sort(out.begin(), out.end());
    if (std::adjacent_find(out.begin(), out.end()) != out.end())
      error("axis " + shapeToString(axes_) + " names an axis twice for input of shape " +
            shapeToString(s));
    return out;
  }

  std::vector<int64_t> axes_;
  bool axisIsList_ = false;
  Shape paramShape_;
  double epsilon_ = 1e-3;
  bool center_ = true, scale_ = true;
  std::shared_ptr<Initializer> betaInit_, gammaInit_;
  std::shared_ptr<Regularizer> betaReg_, gammaReg_;
  Variable gamma_, beta_;
};

}  // namespace

namespace layers {

LayerPtr batchNormalization(const Config& args) {
  return std::make_shared<BatchNormalization>(args);
}
LayerPtr layerNormalization(const Config& args) {
  return std::make_shared<LayerNormalization>(args);
}

void registerNormalizationLayers() {
  GLINT_REGISTER_LAYER(registerLayerClass, "BatchNormalization", batchNormalization);
  GLINT_REGISTER_LAYER(registerLayerClass, "LayerNormalization", layerNormalization);
}

}  // namespace layers
}  // namespace glint
