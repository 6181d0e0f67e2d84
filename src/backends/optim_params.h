#pragma once
// The scalars of the fused optimizer kernels, in the order the GPU backends'
// shaders read them from their parameter array (gl's u_params uniform,
// webgpu's u_params buffer): per-step values that must not become new programs.
#include <vector>

#include "glint/attrs.h"

namespace glint {

/// ApplyGradientDescent: lr.
inline std::vector<float> gradientDescentParams(const Attrs& a) {
  return {static_cast<float>(a.f("lr"))};
}

/// ApplyMomentum: lr, momentum.
inline std::vector<float> momentumParams(const Attrs& a) {
  return {static_cast<float>(a.f("lr")), static_cast<float>(a.f("momentum"))};
}

/// ApplyAdam: lr, beta1, 1 - beta1, beta2, 1 - beta2, c1, c2, epsilon, lr * weightDecay.
inline std::vector<float> adamParams(const Attrs& a) {
  auto f = [&](const char* key) { return static_cast<float>(a.f(key)); };
  return {f("lr"),
          f("beta1"),
          static_cast<float>(1 - a.f("beta1")),
          f("beta2"),
          static_cast<float>(1 - a.f("beta2")),
          f("biasCorrection1"),
          f("biasCorrection2"),
          f("epsilon"),
          static_cast<float>(a.f("lr") * a.f("weightDecay"))};
}

}  // namespace glint
