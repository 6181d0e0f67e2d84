#pragma once
// The recurrent cells' activations, shared by gl's and webgpu's cell and
// sequence kernels (each keeps its own schedule: gl four units a fragment,
// webgpu a workgroup per batch row).
#include <string>

#include "src/backends/gpu/printer.h"

namespace glint::gpu {

/// `ract` (the gates' activation: "sigmoid" or "hardSigmoid"), `act`
/// (tanh, the only fused one: see src/ops/rnn.cpp) and their derivatives
/// `ractD`/`actD` given x and y = f(x), with the math they call.
const std::string& cellActivations(const Dialect& d, const std::string& recurrentActivation);

}  // namespace glint::gpu
