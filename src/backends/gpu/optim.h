#pragma once
// The fused optimizer updates of both GPU backends, written once: each
// kernel's update of one element (or, with vec4 inputs, of gl's texel of
// four) as lets in a function body, its hyper-parameters as named
// parameters, which both backends pass as uniforms (u_params): a
// learning-rate schedule or Adam's per-step bias corrections reuse one
// program.
#include <functional>
#include <string>
#include <vector>

#include "glint/attrs.h"
#include "src/backends/gpu/ir.h"

namespace glint::gpu {

/// Builds kernel `name`'s update into `body` from its inputs `in` (in the
/// kernel's order: weights, state..., gradient) and returns its outputs
/// (weights, then the new state), each a local of `body`.
using OptimizerUpdate = std::vector<E> (*)(Fn& body, const std::vector<E>& in, const Attrs& attrs);

/// Calls `add` for every optimizer kernel this build holds.
void optimizerKernels(const std::function<void(const char*, OptimizerUpdate)>& add);

/// The name of an update's output (a local of its body).
std::string localName(const E& e);

}  // namespace glint::gpu
