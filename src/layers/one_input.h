#pragma once
// A base for layers that take exactly one input and keep its shape
// (activation, noise and rescaling layers), plus the Keras config order.
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

}  // namespace glint
