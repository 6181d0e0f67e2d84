#pragma once
// The scalars of the fused optimizer kernels, named for the GPU backends'
// shaders (param_block.h): per-step values that must not become new programs.
// gl/optim.cpp and webgpu/optim.cpp read them as $lr, $beta1, ...
#include "glint/attrs.h"
#include "src/backends/param_block.h"

namespace glint {

/// ApplyGradientDescent.
inline ParamBlock gradientDescentParams(const Attrs& a) {
  return ParamBlock().add("lr", a.f("lr"));
}

/// ApplyMomentum.
inline ParamBlock momentumParams(const Attrs& a) {
  return ParamBlock().add("lr", a.f("lr")).add("momentum", a.f("momentum"));
}

/// ApplyAdam: the moments' factors and their complements, the bias
/// corrections, epsilon, and the decoupled weight decay times lr.
inline ParamBlock adamParams(const Attrs& a) {
  return ParamBlock()
      .add("lr", a.f("lr"))
      .add("beta1", a.f("beta1"))
      .add("oneMinusBeta1", 1 - a.f("beta1"))
      .add("beta2", a.f("beta2"))
      .add("oneMinusBeta2", 1 - a.f("beta2"))
      .add("biasCorrection1", a.f("biasCorrection1"))
      .add("biasCorrection2", a.f("biasCorrection2"))
      .add("epsilon", a.f("epsilon"))
      .add("decay", a.f("lr") * a.f("weightDecay"));
}

}  // namespace glint
