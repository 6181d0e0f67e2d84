#pragma once
// Activation functions by name, as layers name them in configs. Identifiers
// are TF.js's ("hardSigmoid") or the snake_case that TF.js writes into
// model.json ("hard_sigmoid"); both are accepted.
#include <string>
#include <vector>

#include "glint/tensor.h"

namespace glint::activations {

/// linear, relu, relu6, elu, selu, sigmoid, hardSigmoid (clip(0.2x + 0.5, 0, 1)),
/// tanh, softmax and logSoftmax (last axis), softplus, softsign (x / (1 + |x|)),
/// swish (x sigmoid(x)), gelu (exact, erf), gelu_new (tanh form), mish
/// (x tanh(softplus(x))). Unknown names throw glint::Error listing the known ones.
Tensor apply(const std::string& name, const Tensor& x);
bool exists(const std::string& name);
/// The canonical TF.js identifiers ("hardSigmoid", "gelu_new", ...).
std::vector<std::string> names();
/// The TF.js identifier for any accepted spelling ("hard_sigmoid" -> "hardSigmoid").
std::string canonicalName(const std::string& name);
/// The identifier TF.js writes in model.json ("hardSigmoid" -> "hard_sigmoid").
std::string serializedName(const std::string& name);

}  // namespace glint::activations
