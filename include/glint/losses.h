#pragma once
// Loss functions with Keras / TF.js semantics. Each returns the per-sample
// loss: yPred's shape without its last axis (the element-wise losses average
// over that axis). The model applies the batch mean and sample weights.
// yTrue may be float32 or int32; yPred is float32; both share a shape unless
// noted. Everything is written with ops, so it runs on every backend.
#include <functional>
#include <string>
#include <vector>

#include "glint/tensor.h"

namespace glint::losses {

/// -sum(yTrue * log(p), -1). From probabilities, yPred is renormalised over
/// the last axis and clipped to [1e-7, 1 - 1e-7] like Keras. fromLogits fuses
/// logSoftmax with the cross-entropy: stable at any logit size, and its
/// gradient is the exact softmax(yPred) * sum(yTrue) - yTrue. labelSmoothing
/// in [0, 1] mixes yTrue with the uniform distribution over the classes.
Tensor categoricalCrossentropy(const Tensor& yTrue, const Tensor& yPred, bool fromLogits = false,
                               float labelSmoothing = 0.0f);
/// Class ids (int32, or float32 holding integers) shaped like yPred without
/// its last axis, or with a last axis of 1. Ids outside [0, classes) throw
/// glint::Error (checked on the host; TF.js silently gives a loss of 0).
Tensor sparseCategoricalCrossentropy(const Tensor& yTrue, const Tensor& yPred,
                                     bool fromLogits = false);
/// mean(-(z log p + (1-z) log(1-p)), -1), p clipped like Keras. fromLogits
/// uses max(x,0) - x z + log1p(exp(-|x|)) with the exact gradient sigmoid(x) - z.
/// labelSmoothing maps z to z (1 - s) + s / 2.
Tensor binaryCrossentropy(const Tensor& yTrue, const Tensor& yPred, bool fromLogits = false,
                          float labelSmoothing = 0.0f);
Tensor meanSquaredError(const Tensor& yTrue, const Tensor& yPred);
Tensor meanAbsoluteError(const Tensor& yTrue, const Tensor& yPred);
/// 100 * mean(|yTrue - yPred| / max(|yTrue|, 1e-7), -1).
Tensor meanAbsolutePercentageError(const Tensor& yTrue, const Tensor& yPred);
/// mean((log(1 + max(yPred, eps)) - log(1 + max(yTrue, eps)))^2, -1).
Tensor meanSquaredLogarithmicError(const Tensor& yTrue, const Tensor& yPred);
/// mean(0.5 d^2 if |d| <= delta else delta (|d| - delta / 2), -1), d = yPred - yTrue.
Tensor huber(const Tensor& yTrue, const Tensor& yPred, float delta = 1.0f);
/// mean(log(cosh(yPred - yTrue)), -1), computed without overflow.
Tensor logCosh(const Tensor& yTrue, const Tensor& yPred);
/// -sum(l2normalize(yTrue) * l2normalize(yPred), axis): -1 when aligned.
/// The result drops `axis` instead of the last axis.
Tensor cosineSimilarity(const Tensor& yTrue, const Tensor& yPred, int axis = -1);
/// sum(yTrue * log(clip(yTrue) / clip(yPred)), -1), both clipped to [1e-7, 1].
Tensor kullbackLeiblerDivergence(const Tensor& yTrue, const Tensor& yPred);
/// mean(yPred - yTrue * log(yPred + 1e-7), -1).
Tensor poisson(const Tensor& yTrue, const Tensor& yPred);
/// mean(max(0, 1 - yTrue yPred), -1); labels are -1 / 1 (TF.js does not map
/// 0 / 1 labels, and neither does Glint).
Tensor hinge(const Tensor& yTrue, const Tensor& yPred);
Tensor squaredHinge(const Tensor& yTrue, const Tensor& yPred);
/// max(0, 1 + max((1 - yTrue) yPred) - sum(yTrue yPred)) over the last axis.
Tensor categoricalHinge(const Tensor& yTrue, const Tensor& yPred);

using LossFn = std::function<Tensor(const Tensor& yTrue, const Tensor& yPred)>;

/// A loss by name: TF.js camelCase ("categoricalCrossentropy"), Keras
/// snake_case ("categorical_crossentropy") or a short alias ("mse", "mae",
/// "mape", "msle", "kld", "cosine", "huber_loss"). Unknown names throw
/// glint::Error listing the known ones.
LossFn get(const std::string& name);
/// The canonical TF.js name of a loss ("mse" -> "meanSquaredError").
std::string canonicalName(const std::string& name);
/// The canonical names get() knows.
std::vector<std::string> names();

}  // namespace glint::losses
