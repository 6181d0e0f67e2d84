// Activation layers with arguments (Keras "advanced activations"): ReLU,
// LeakyReLU, PReLU, ELU, ThresholdedReLU, Softmax. Each is composed of
// existing ops, so it runs on every backend and differentiates.
#include <algorithm>
#include <cmath>
#include <optional>

#include "glint/error.h"
#include "glint/initializers.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "glint/regularizers.h"
#include "src/core/kernel_selection.h"
#include "src/layers/families.h"
#include "src/layers/one_input.h"

namespace glint {

namespace {

/// A finite number argument (NaN or infinity would poison every output).
double finiteNumber(const ArgReader& r, const std::string& key, double fallback) {
  double v = r.number(key, fallback);
  if (!std::isfinite(v)) r.fail(key, "must be a finite number, got " + std::to_string(v));
  return v;
}

Json numberOrNull(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

/// Keras's relu(x, negative_slope, max_value, threshold); TF.js has only max_value.
class ReLU : public ElementwiseLayer {
 public:
  explicit ReLU(const Json& args) : ElementwiseLayer(args, "re_lu") {
    ArgReader r = reader();
    r.allowOnly({"max_value", "negative_slope", "threshold"});
    if (r.has("max_value")) {
      maxValue_ = finiteNumber(r, "max_value", 0);
      if (*maxValue_ < 0)
        r.fail("max_value", "cannot be negative, got " + std::to_string(*maxValue_));
    }
    negativeSlope_ = finiteNumber(r, "negative_slope", 0);
    if (negativeSlope_ < 0)
      r.fail("negative_slope", "cannot be negative, got " + std::to_string(negativeSlope_));
    threshold_ = finiteNumber(r, "threshold", 0);
  }
  std::string className() const override { return "ReLU"; }

  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    const Tensor& x = in[0];
    const float t = static_cast<float>(threshold_);
    Tensor y = threshold_ != 0 ? x * cast(greater(x, fill({}, t)), DType::float32) : relu(x);
    if (maxValue_) y = clipByValue(y, 0.0f, static_cast<float>(*maxValue_));
    if (negativeSlope_ != 0) y = y - relu(t - x) * static_cast<float>(negativeSlope_);
    return {y};
  }

  /// TF.js reads max_value; the Keras-only keys are written when they matter.
  Json getConfig() const override {
    Json own{{"max_value", numberOrNull(maxValue_)}};
    if (negativeSlope_ != 0) own["negative_slope"] = negativeSlope_;
    if (threshold_ != 0) own["threshold"] = threshold_;
    return config(std::move(own));
  }

 private:
  std::optional<double> maxValue_;
  double negativeSlope_ = 0, threshold_ = 0;
};

class LeakyReLU : public ElementwiseLayer {
 public:
  explicit LeakyReLU(const Json& args) : ElementwiseLayer(args, "leaky_re_lu") {
    ArgReader r = reader();
    // Keras 3 names the slope negative_slope; TF.js and Keras 2 name it alpha.
    r.allowOnly({"alpha", "negative_slope"});
    if (r.has("alpha") && r.has("negative_slope"))
      r.fail("negative_slope", "and 'alpha' name the same slope: give one");
    alpha_ = r.has("negative_slope") ? finiteNumber(r, "negative_slope", 0.3)
                                     : finiteNumber(r, "alpha", 0.3);
  }
  std::string className() const override { return "LeakyReLU"; }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    return {leakyRelu(in[0], static_cast<float>(alpha_))};
  }
  Json getConfig() const override { return config({{"alpha", alpha_}}); }

 private:
  double alpha_ = 0.3;
};

/// f(x) = x for x > 0, alpha * x otherwise, alpha a weight shaped like a
/// sample with the shared axes set to 1.
class PReLU : public ElementwiseLayer {
 public:
  explicit PReLU(const Json& args) : ElementwiseLayer(args, "p_re_lu") {
    ArgReader r = reader();
    r.allowOnly({"alpha_initializer", "alpha_regularizer", "alpha_constraint", "shared_axes"});
    init_ = r.initializer("alpha_initializer", "zeros");
    reg_ = r.regularizer("alpha_regularizer");
    constraint_ = r.constraint("alpha_constraint");
    if (r.has("shared_axes")) {
      sharedAxesGiven_ = true;
      const Json& v = this->args().at("shared_axes");
      sharedAxes_ =
          v.is_array() ? r.ints("shared_axes") : std::vector<int64_t>{r.integer("shared_axes")};
      for (int64_t a : sharedAxes_)
        if (a < 1)
          r.fail("shared_axes",
                 "are 1-based axes after the batch axis, got " + shapeToString(sharedAxes_));
    }
  }
  std::string className() const override { return "PReLU"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    alphaShape(oneInput(in));
    if (built_ && in[0].size() != static_cast<size_t>(alpha_.rank()) + 1)
      error("was built for inputs of rank " + std::to_string(alpha_.rank() + 1) + ", got " +
            shapeToString(in[0]));
    return in;
  }
  void build(const std::vector<Shape>& in) override {
    alpha_ = addWeight("alpha", alphaShape(in[0]), init_, reg_, true, constraint_);
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    const Tensor& x = in[0];
    Shape want = alpha_.shape();
    for (size_t i = 0; i < want.size(); ++i)
      if (want[i] != 1 && x.shape()[i + 1] != want[i])
        error("alpha has shape " + shapeToString(want) + ", which does not fit input " +
              shapeToString(x.shape()));
    return {relu(x) - relu(neg(x)) * Tensor(alpha_)};
  }
  Json getConfig() const override {
    Json shared = sharedAxesGiven_ ? Json(sharedAxes_) : Json(nullptr);
    return config({{"alpha_initializer", serializeObject(init_)},
                   {"alpha_regularizer", serializeObject(reg_)},
                   {"alpha_constraint", serializeObject(constraint_)},
                   {"shared_axes", shared}});
  }

 private:
  Shape alphaShape(const Shape& in) const {
    if (in.size() < 2) error("needs inputs of rank >= 2 ([batch, ...]), got " + shapeToString(in));
    Shape s(in.begin() + 1, in.end());
    for (int64_t a : sharedAxes_) {
      if (a >= static_cast<int64_t>(in.size()))
        error("argument 'shared_axes' " + shapeToString(sharedAxes_) +
              " is out of range for input " + shapeToString(in));
      s[a - 1] = 1;
    }
    for (int64_t d : s)
      if (d < 0)
        error("needs known sizes on the axes that are not shared (shared_axes), got input " +
              shapeToString(in));
    return s;
  }
  std::shared_ptr<Initializer> init_;
  std::shared_ptr<Regularizer> reg_;
  std::shared_ptr<Constraint> constraint_;
  std::vector<int64_t> sharedAxes_;
  bool sharedAxesGiven_ = false;
  Variable alpha_;
};

/// TF.js accepts only alpha 1; Keras any alpha: x for x > 0, alpha (e^x - 1) otherwise.
class ELU : public ElementwiseLayer {
 public:
  explicit ELU(const Json& args) : ElementwiseLayer(args, "elu") {
    ArgReader r = reader();
    r.allowOnly({"alpha"});
    alpha_ = finiteNumber(r, "alpha", 1.0);
  }
  std::string className() const override { return "ELU"; }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    const Tensor& x = in[0];
    if (alpha_ == 1.0) return {elu(x)};
    return {relu(x) + (exp(minimum(x, zerosLike(x))) - 1.0f) * static_cast<float>(alpha_)};
  }
  Json getConfig() const override { return config({{"alpha", alpha_}}); }

 private:
  double alpha_ = 1.0;
};

class ThresholdedReLU : public ElementwiseLayer {
 public:
  explicit ThresholdedReLU(const Json& args) : ElementwiseLayer(args, "thresholded_re_lu") {
    ArgReader r = reader();
    r.allowOnly({"theta"});
    theta_ = finiteNumber(r, "theta", 1.0);
  }
  std::string className() const override { return "ThresholdedReLU"; }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    const Tensor& x = in[0];
    return {x * cast(greater(x, fill({}, static_cast<float>(theta_))), DType::float32)};
  }
  Json getConfig() const override { return config({{"theta", theta_}}); }

 private:
  double theta_ = 1.0;
};

/// TF.js's default axis is 1 (Keras's is -1; Keras always writes it).
/// A list of axes normalizes over all of them together.
class Softmax : public ElementwiseLayer {
 public:
  explicit Softmax(const Json& args) : ElementwiseLayer(args, "softmax") {
    ArgReader r = reader();
    r.allowOnly({"axis"});
    listGiven_ = r.has("axis") && this->args().at("axis").is_array();
    axes_ = listGiven_ ? r.ints("axis") : std::vector<int64_t>{r.integer("axis", 1)};
    if (axes_.empty()) r.fail("axis", "must name at least one axis, got []");
  }
  std::string className() const override { return "Softmax"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    normalizedAxes(oneInput(in));
    return in;
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    const Tensor& x = in[0];
    std::vector<int64_t> axes = normalizedAxes(x.shape());
    if (axes.size() == 1) return {softmax(x, axes[0])};
    return {exp(x - logSumExp(x, axes, true))};
  }
  Json getConfig() const override {
    return config({{"axis", listGiven_ ? Json(axes_) : Json(axes_[0])}});
  }

 private:
  std::vector<int64_t> normalizedAxes(const Shape& s) const {
    const int64_t rank = static_cast<int64_t>(s.size());
    std::vector<int64_t> out;
    for (int64_t a : axes_) {
      if (a < -rank || a >= rank)
        error("argument 'axis' " + std::to_string(a) + " is out of range for input " +
              shapeToString(s));
      int64_t n = a < 0 ? a + rank : a;
      if (std::find(out.begin(), out.end(), n) != out.end())
        error("argument 'axis' names axis " + std::to_string(n) + " twice");
      out.push_back(n);
    }
    return out;
  }
  std::vector<int64_t> axes_;
  bool listGiven_ = false;
};

}  // namespace

namespace layers {

LayerPtr reLU(const Config& args) { return std::make_shared<ReLU>(args); }
LayerPtr leakyReLU(const Config& args) { return std::make_shared<LeakyReLU>(args); }
LayerPtr prelu(const Config& args) { return std::make_shared<PReLU>(args); }
LayerPtr elu(const Config& args) { return std::make_shared<ELU>(args); }
LayerPtr thresholdedReLU(const Config& args) { return std::make_shared<ThresholdedReLU>(args); }
LayerPtr softmax(const Config& args) { return std::make_shared<Softmax>(args); }

void registerAdvancedActivationLayers() {
  GLINT_REGISTER_LAYER(registerLayerClass, "ReLU", reLU);
  GLINT_REGISTER_LAYER(registerLayerClass, "LeakyReLU", leakyReLU);
  GLINT_REGISTER_LAYER(registerLayerClass, "PReLU", prelu);
  GLINT_REGISTER_LAYER(registerLayerClass, "ELU", elu);
  GLINT_REGISTER_LAYER(registerLayerClass, "ThresholdedReLU", thresholdedReLU);
  GLINT_REGISTER_LAYER(registerLayerClass, "Softmax", softmax);
}

}  // namespace layers
}  // namespace glint
