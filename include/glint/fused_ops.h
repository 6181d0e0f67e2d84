#pragma once
// Fused ops: one kernel where the plain composition would run several, for
// the hot spots of training (a Dense layer, softmax + cross-entropy). They
// compute the same values as the composition (within float rounding) and
// are differentiable like any op.
#include <string>

#include "glint/tensor.h"

namespace glint {

/// act(op(a) op(b) + bias) in one kernel (TF.js's fused.matMul, kernel
/// _FusedMatMul). a, b: float32 as for matMul ([..., m, k] x [..., k, n],
/// batch dims broadcast). bias: undefined (none) or float32 [n], added to
/// every row. activation: "linear", "relu", "relu6", "elu", "leakyrelu"
/// (x > 0 ? x : leakyreluAlpha * x), "sigmoid" or "tanh" (case and '_'
/// ignored, so "leakyRelu" works too). The relu6 gradient masks 0 < y < 6
/// (the output, not the input, is kept for the gradient).
Tensor fusedMatMul(const Tensor& a, const Tensor& b, const Tensor& bias = Tensor(),
                   const std::string& activation = "linear", bool transposeA = false,
                   bool transposeB = false, float leakyreluAlpha = 0.2f);

/// True when fusedMatMul accepts this activation name.
bool isFusableActivation(const std::string& activation);

/// -sum(labels * logSoftmax(logits), -1) in one pass per row (TF's
/// softmax_cross_entropy_with_logits, kernel SoftmaxCrossEntropyWithLogits).
/// labels and logits: float32, same shape, rank >= 1; the result drops the
/// last axis. Stable for any logit size. Its gradient is exact for any
/// labels: softmax(logits) * sum(labels, -1) - labels for logits (the
/// kernel saves it in the forward pass), -logSoftmax(logits) for labels.
Tensor softmaxCrossEntropyWithLogits(const Tensor& labels, const Tensor& logits);

/// 1 where a and b peak at the same index of their last axis, else 0
/// (kernel _ArgMaxEqual): cast(equal(argMax(a, -1), argMax(b, -1)), float32)
/// in one kernel, as categorical accuracy needs it each training step. a, b:
/// float32, same shape, rank >= 1, a non-empty last axis; ties and NaN as
/// argMax (the first maximum; NaN never takes over). No gradient (a step
/// function).
Tensor argMaxEqual(const Tensor& a, const Tensor& b);

}  // namespace glint
