// Regularization layers that add noise in training and are the identity at
// inference: GaussianNoise, GaussianDropout, AlphaDropout, SpatialDropout1D.
// A seed makes the noise repeatable, as for Dropout: seed + n for the n-th call.
#include <cmath>
#include <optional>

#include "glint/error.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "src/core/kernel_selection.h"
#include "src/layers/families.h"
#include "src/layers/one_input.h"

namespace glint {

namespace {

Json shapeJson(const Shape& shape) {
  Json out = Json::array();
  for (int64_t d : shape) out.push_back(d < 0 ? Json(nullptr) : Json(d));
  return out;
}

class NoiseLayer : public ElementwiseLayer {
 public:
  using ElementwiseLayer::ElementwiseLayer;

 protected:
  void readSeed(const ArgReader& r) {
    if (r.has("seed")) seed_ = static_cast<uint64_t>(r.integer("seed"));
  }
  /// The seed for this call's noise: a fixed seed still varies per call.
  std::optional<uint64_t> nextSeed() {
    if (!seed_) return std::nullopt;
    return *seed_ + calls_++;
  }
  /// TF.js does not write a seed; Keras does. Written only when given.
  void addSeed(Json& own) const {
    if (seed_) own["seed"] = *seed_;
  }
  static double rate(const ArgReader& r) {
    if (!r.has("rate")) r.fail("rate", "is required");
    double v = r.number("rate", 0);
    if (!(v >= 0 && v < 1)) r.fail("rate", "must be in [0, 1), got " + std::to_string(v));
    return v;
  }
  void needFloat(const Tensor& x) const {
    if (x.dtype() != DType::float32)
      error("needs float32 inputs, got " + std::string(dtypeName(x.dtype())));
  }

  std::optional<uint64_t> seed_;
  uint64_t calls_ = 0;
};

/// x + N(0, stddev) in training.
class GaussianNoise : public NoiseLayer {
 public:
  explicit GaussianNoise(const Json& args) : NoiseLayer(args, "gaussian_noise") {
    ArgReader r = reader();
    r.allowOnly({"stddev", "seed"});
    if (!r.has("stddev")) r.fail("stddev", "is required");
    stddev_ = r.number("stddev", 0);
    if (!(stddev_ >= 0) || !std::isfinite(stddev_))
      r.fail("stddev", "must be a finite number >= 0, got " + std::to_string(stddev_));
    readSeed(r);
  }
  std::string className() const override { return "GaussianNoise"; }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    if (!args.training) return in;
    needFloat(in[0]);
    return {in[0] + randomNormal(in[0].shape(), 0.0f, static_cast<float>(stddev_), nextSeed())};
  }
  Json getConfig() const override {
    Json own{{"stddev", stddev_}};
    addSeed(own);
    return config(std::move(own));
  }

 private:
  double stddev_ = 0;
};

/// x * N(1, sqrt(rate / (1 - rate))) in training.
class GaussianDropout : public NoiseLayer {
 public:
  explicit GaussianDropout(const Json& args) : NoiseLayer(args, "gaussian_dropout") {
    ArgReader r = reader();
    r.allowOnly({"rate", "seed"});
    rate_ = rate(r);
    readSeed(r);
  }
  std::string className() const override { return "GaussianDropout"; }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    if (!args.training || rate_ == 0) return in;
    needFloat(in[0]);
    float stddev = static_cast<float>(std::sqrt(rate_ / (1 - rate_)));
    return {in[0] * randomNormal(in[0].shape(), 1.0f, stddev, nextSeed())};
  }
  Json getConfig() const override {
    Json own{{"rate", rate_}};
    addSeed(own);
    return config(std::move(own));
  }

 private:
  double rate_ = 0;
};

/// Dropout that keeps a SELU network's mean and variance: dropped units take
/// SELU's negative saturation value, then an affine map restores the moments.
class AlphaDropout : public NoiseLayer {
 public:
  explicit AlphaDropout(const Json& args) : NoiseLayer(args, "alpha_dropout") {
    ArgReader r = reader();
    r.allowOnly({"rate", "noise_shape", "seed"});
    rate_ = rate(r);
    noiseShape_ = r.ints("noise_shape", {});
    readSeed(r);
  }
  std::string className() const override { return "AlphaDropout"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    const Shape& s = oneInput(in);
    if (!noiseShape_.empty()) {
      bool fits = noiseShape_.size() == s.size();
      for (size_t i = 0; fits && i < s.size(); ++i)
        fits = noiseShape_[i] < 0 || noiseShape_[i] == 1 || s[i] < 0 || noiseShape_[i] == s[i];
      if (!fits)
        error("argument 'noise_shape' " + shapeToString(noiseShape_) +
              " does not broadcast to input " + shapeToString(s));
    }
    return in;
  }

  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    if (!args.training || rate_ == 0) return in;
    const Tensor& x = in[0];
    needFloat(x);
    Shape noise = noiseShape_.empty() ? x.shape() : noiseShape_;
    for (size_t i = 0; i < noise.size(); ++i)
      if (noise[i] < 0) noise[i] = x.shape()[i];
    constexpr double kAlpha = 1.6732632423543772, kScale = 1.0507009873554805;
    const double alphaP = -kAlpha * kScale;
    const double a = 1.0 / std::sqrt((1 - rate_) * (1 + rate_ * alphaP * alphaP));
    const double b = -a * alphaP * rate_;
    Tensor kept = cast(greaterEqual(randomUniform(noise, 0.0f, 1.0f, nextSeed()),
                                    fill({}, static_cast<float>(rate_))),
                       DType::float32);
    // Dropped units take alphaP, as in Keras (TF.js 4.22 writes -alphaP, which
    // shifts the mean it is meant to keep; training-only, so files are unaffected).
    Tensor dropped = x * kept + (1.0f - kept) * static_cast<float>(alphaP);
    return {dropped * static_cast<float>(a) + static_cast<float>(b)};
  }
  /// TF.js writes only the rate; noise_shape and seed are Keras's, kept when given.
  Json getConfig() const override {
    Json own{{"rate", rate_}};
    if (!noiseShape_.empty()) own["noise_shape"] = shapeJson(noiseShape_);
    addSeed(own);
    return config(std::move(own));
  }

 private:
  double rate_ = 0;
  Shape noiseShape_;
};

/// Dropout of whole channels of [batch, steps, channels]: one mask per
/// sample and channel, shared by every step.
class SpatialDropout1D : public NoiseLayer {
 public:
  explicit SpatialDropout1D(const Json& args) : NoiseLayer(args, "spatial_dropout1d") {
    ArgReader r = reader();
    r.allowOnly({"rate", "seed", "noise_shape"});
    rate_ = rate(r);
    if (r.has("noise_shape"))
      r.fail("noise_shape", "is fixed by SpatialDropout1D to [batch, 1, channels]; leave it out");
    readSeed(r);
  }
  std::string className() const override { return "SpatialDropout1D"; }
  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    const Shape& s = oneInput(in);
    if (s.size() != 3)
      error("expects inputs of rank 3 [batch, steps, channels], got " + shapeToString(s));
    return in;
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    if (!args.training || rate_ == 0) return in;
    const Tensor& x = in[0];
    needFloat(x);
    return {dropout(x, static_cast<float>(rate_), nextSeed(), {x.dim(0), 1, x.dim(2)})};
  }
  Json getConfig() const override {
    Json own{
        {"rate", rate_}, {"noise_shape", nullptr}, {"seed", seed_ ? Json(*seed_) : Json(nullptr)}};
    return config(std::move(own));
  }

 private:
  double rate_ = 0;
};

}  // namespace

namespace layers {

LayerPtr gaussianNoise(const Config& args) { return std::make_shared<GaussianNoise>(args); }
LayerPtr gaussianDropout(const Config& args) { return std::make_shared<GaussianDropout>(args); }
LayerPtr alphaDropout(const Config& args) { return std::make_shared<AlphaDropout>(args); }
LayerPtr spatialDropout1d(const Config& args) { return std::make_shared<SpatialDropout1D>(args); }

void registerNoiseLayers() {
  GLINT_REGISTER_LAYER(registerLayerClass, "GaussianNoise", gaussianNoise);
  GLINT_REGISTER_LAYER(registerLayerClass, "GaussianDropout", gaussianDropout);
  GLINT_REGISTER_LAYER(registerLayerClass, "AlphaDropout", alphaDropout);
  GLINT_REGISTER_LAYER(registerLayerClass, "SpatialDropout1D", spatialDropout1d);
}

}  // namespace layers
}  // namespace glint
