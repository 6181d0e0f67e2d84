#pragma once
// Gradient checks for layers: finite differences for every float input and
// every trainable weight, on every backend, plus agreement of the layer's
// output with the reference backend.
//
//   checkLayer({"dense_relu", [] { return layers::dense({{"units", 3}, {"activation", "relu"}}); },
//               {{2, 4}}});
#include <functional>
#include <string>
#include <vector>

#include "glint/glint.h"
#include "glint/json.h"
#include "glint/layers.h"

namespace glint::testing {

struct LayerCase {
  std::string name;
  /// A fresh layer; called after setSeed, so seeded initializers repeat.
  std::function<LayerPtr()> make;
  /// Concrete input shapes, batch included.
  std::vector<Shape> inputShapes;
  /// Per input (default float32); int32 inputs hold values in [0, intHigh).
  std::vector<DType> inputDTypes = {};
  int intHigh = 5;
  bool training = false;
  double gradTol = 1e-2;
  double step = 1e-3;
  /// Inputs drawn from [lo, hi].
  float lo = -1.0f, hi = 1.0f;
};

/// Runs the checks with GoogleTest assertions (call inside a TEST).
void checkLayer(const LayerCase& c);

/// got[i] within tol * max(1, |want[i]|) of want[i] (an independent float64 computation).
void expectNear(const std::vector<float>& got, const std::vector<double>& want, double tol = 1e-5);
/// A config's keys in order (TF.js and Keras write them in a fixed order).
std::vector<std::string> keys(const Json& config);
/// Rebuilds the layer from its config: the same config before and after the
/// copy is built, and, with the original's weights, the same outputs.
void expectRoundTrip(const LayerPtr& layer, const std::vector<Tensor>& xs);
inline void expectRoundTrip(const LayerPtr& layer, const Tensor& x) {
  expectRoundTrip(layer, std::vector<Tensor>{x});
}

}  // namespace glint::testing
