#pragma once
// One-pass optimizer updates: internal ops behind the optimizers of optim.h
// (SGD, Momentum, Adam, AdamW), one kernel each, so an update reads every
// parameter once instead of once per composed op. Kernel names follow
// TensorFlow ("ApplyGradientDescent", "ApplyMomentum", "ApplyAdam").
//
// They are functional like every op: the updated values come back as new
// tensors (the optimizer assigns them to its variables). Not differentiable:
// no gradient is registered, so differentiating through one throws.
// Every tensor argument must be float32 and of the variable's exact shape
// (no broadcasting); scalar arguments must be finite and in the ranges below.
#include "glint/tensor.h"

namespace glint {

/// w - lr * g.
Tensor applyGradientDescent(const Tensor& w, const Tensor& g, float lr);

struct MomentumUpdate {
  Tensor w;      // the updated parameter
  Tensor accum;  // the updated accumulator
};
/// accum' = momentum * accum + g; w' = w - lr * accum', or with `nesterov`
/// w' = w - lr * (g + momentum * accum'). momentum >= 0.
MomentumUpdate applyMomentum(const Tensor& w, const Tensor& accum, const Tensor& g, float lr,
                             float momentum, bool nesterov);

struct AdamUpdate {
  Tensor w;  // the updated parameter
  Tensor m;  // first moment
  Tensor v;  // second moment
};
/// m' = beta1 m + (1 - beta1) g; v' = beta2 v + (1 - beta2) g^2;
/// w' = w - lr * weightDecay * w - lr * (m' / c1) / (sqrt(v' / c2) + epsilon),
/// with the bias corrections c1 = 1 - beta1^t and c2 = 1 - beta2^t, each in
/// (0, 1]. beta1, beta2 in [0, 1); epsilon, weightDecay >= 0 (weightDecay > 0
/// is AdamW's decoupled decay; 0 is plain Adam).
AdamUpdate applyAdam(const Tensor& w, const Tensor& m, const Tensor& v, const Tensor& g, float lr,
                     float beta1, float beta2, float epsilon, float c1, float c2,
                     float weightDecay = 0.0f);

}  // namespace glint
