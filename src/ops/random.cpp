// Random tensors: values drawn on the host and uploaded (no kernel), so a
// seed gives the same tensor on every backend and in WebAssembly.
#include "src/core/random.h"

#include <cmath>
#include <optional>

#include "glint/engine.h"
#include "glint/ops.h"
#include "src/ops/op_util.h"

namespace glint {

namespace {

/// A local generator for an explicit seed, else the engine's.
class Source {
 public:
  explicit Source(std::optional<uint64_t> seed) {
    if (seed) local_.emplace(*seed);
  }
  double uniform() { return local_ ? local_->uniform01() : randomUniform01(); }
  double normal() { return local_ ? local_->standardNormal() : randomStandardNormal(); }

 private:
  std::optional<Rng> local_;
};

size_t checkedSize(const std::string& op, const Shape& shape) {
  for (int64_t d : shape)
    if (d < 0) fail(op, "shape ", shapeToString(shape), " has a negative dimension");
  return static_cast<size_t>(shapeSize(shape));
}

void checkFinite(const std::string& op, const std::string& arg, float v) {
  check(std::isfinite(v), op, arg, " must be finite, got ", v);
}

}  // namespace

Tensor randomUniform(const Shape& shape, float minValue, float maxValue,
                     std::optional<uint64_t> seed) {
  checkFinite("randomUniform", "minValue", minValue);
  checkFinite("randomUniform", "maxValue", maxValue);
  check(minValue <= maxValue, "randomUniform", "minValue (", minValue,
        ") must not exceed maxValue (", maxValue, ")");
  std::vector<float> values(checkedSize("randomUniform", shape));
  Source source(seed);
  const double width = static_cast<double>(maxValue) - minValue;
  for (float& v : values) {
    v = static_cast<float>(minValue + width * source.uniform());
    // Rounding to float can reach maxValue; the interval is half-open.
    if (v >= maxValue && maxValue > minValue) v = std::nextafter(maxValue, minValue);
  }
  return tensor(values, shape);
}

Tensor randomNormal(const Shape& shape, float mean, float stddev, std::optional<uint64_t> seed) {
  checkFinite("randomNormal", "mean", mean);
  checkFinite("randomNormal", "stddev", stddev);
  check(stddev >= 0, "randomNormal", "stddev must be >= 0, got ", stddev);
  std::vector<float> values(checkedSize("randomNormal", shape));
  Source source(seed);
  for (float& v : values) v = static_cast<float>(mean + stddev * source.normal());
  return tensor(values, shape);
}

Tensor truncatedNormal(const Shape& shape, float mean, float stddev, std::optional<uint64_t> seed) {
  checkFinite("truncatedNormal", "mean", mean);
  checkFinite("truncatedNormal", "stddev", stddev);
  check(stddev >= 0, "truncatedNormal", "stddev must be >= 0, got ", stddev);
  std::vector<float> values(checkedSize("truncatedNormal", shape));
  Source source(seed);
  for (float& v : values) {
    double z = source.normal();
    while (std::abs(z) > 2.0) z = source.normal();
    v = static_cast<float>(mean + stddev * z);
  }
  return tensor(values, shape);
}

Tensor dropout(const Tensor& x, float rate, std::optional<uint64_t> seed, const Shape& noiseShape) {
  ops::checkDType("dropout", "x", x, {DType::float32});
  check(std::isfinite(rate) && rate >= 0.0f && rate < 1.0f, "dropout",
        "rate must be in [0, 1), got ", rate);
  Shape noise = noiseShape.empty() ? x.shape() : noiseShape;
  size_t n = checkedSize("dropout", noise);
  bool broadcasts = noise.size() <= x.shape().size();
  for (size_t i = 0; broadcasts && i < noise.size(); ++i) {
    int64_t d = x.shape()[x.shape().size() - noise.size() + i];
    broadcasts = noise[i] == d || noise[i] == 1;
  }
  if (!(broadcasts))
    fail("dropout", "noiseShape ", shapeToString(noise), " must broadcast to x's shape ",
         shapeToString(x.shape()));
  if (rate == 0.0f) return x;
  // The mask already holds 1/(1-rate), so the gradient is the mask itself.
  const float kept = 1.0f / (1.0f - rate);
  std::vector<float> mask(n);
  Source source(seed);
  for (float& m : mask) m = source.uniform() < rate ? 0.0f : kept;
  return mul(x, tensor(mask, noise));
}

}  // namespace glint
