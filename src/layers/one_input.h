#pragma once
// Bases for layers that take exactly one input (activation, noise,
// preprocessing), plus the Keras config order.
#include <string>
#include <vector>

#include "glint/json.h"
#include "glint/layers.h"
#include "glint/shape.h"
#include "src/layers/layer_args.h"
#include "src/layers/spatial.h"

namespace glint {

class OneInputLayer : public Layer {
 public:
  OneInputLayer(const Json& args, const std::string& prefix) : Layer(args, prefix) {}

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    oneInput(in);
    return in;
  }

 protected:
  const Shape& oneInput(const std::vector<Shape>& in) const {
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    return in[0];
  }
  /// Reads this layer's arguments; errors name "<Class> '<name>'".
  ArgReader reader() const { return ArgReader(args(), className() + " '" + name() + "'"); }
  /// Keras class config: own keys first, then the base Layer keys.
  Json config(Json own) const { return spatial::withBase(std::move(own), Layer::getConfig()); }
};

/// A one-input layer that maps each element (or each step) on its own and
/// keeps the shape: activations, noise, rescaling. A mask passes through it
/// unchanged, as in TF.js and Keras.
class ElementwiseLayer : public OneInputLayer {
 public:
  using OneInputLayer::OneInputLayer;
  bool supportsMasking() const override { return true; }
};

}  // namespace glint
