#pragma once
// Metrics with Keras / TF.js semantics. Per-sample metrics return yPred's
// shape without the last axis (the model averages them); precision and recall
// return a batch-level scalar. yTrue may be float32 or int32.
#include <functional>
#include <string>
#include <vector>

#include "glint/tensor.h"

namespace glint::metrics {

/// Picks like Keras: binaryAccuracy when yPred's last axis is 1,
/// sparseCategoricalAccuracy when yTrue has one axis fewer than yPred (or a
/// last axis of 1 against several classes), else categoricalAccuracy.
Tensor accuracy(const Tensor& yTrue, const Tensor& yPred);
/// 1 where argMax(yTrue, -1) == argMax(yPred, -1), else 0.
Tensor categoricalAccuracy(const Tensor& yTrue, const Tensor& yPred);
/// Class ids (shape of yPred without its last axis, or with a last axis of 1).
Tensor sparseCategoricalAccuracy(const Tensor& yTrue, const Tensor& yPred);
/// mean(yTrue == (yPred > threshold), -1).
Tensor binaryAccuracy(const Tensor& yTrue, const Tensor& yPred, float threshold = 0.5f);
/// 1 where the true class (argMax of yTrue) is among the k largest
/// predictions, counting ties in its favour.
Tensor topKCategoricalAccuracy(const Tensor& yTrue, const Tensor& yPred, int k = 5);
Tensor sparseTopKCategoricalAccuracy(const Tensor& yTrue, const Tensor& yPred, int k = 5);
/// tp / (tp + fp) over the whole batch, values thresholded at 0.5; 0 when
/// nothing is predicted positive. A scalar.
Tensor precision(const Tensor& yTrue, const Tensor& yPred);
/// tp / (tp + fn) over the whole batch; 0 when there are no positives.
Tensor recall(const Tensor& yTrue, const Tensor& yPred);
Tensor meanSquaredError(const Tensor& yTrue, const Tensor& yPred);
Tensor meanAbsoluteError(const Tensor& yTrue, const Tensor& yPred);

using MetricFn = std::function<Tensor(const Tensor& yTrue, const Tensor& yPred)>;

/// A metric by name: "accuracy"/"acc", TF.js camelCase ("binaryAccuracy"),
/// Keras snake_case ("binary_accuracy"), aliases ("mse", "mae", "mape",
/// "top_k_categorical_accuracy"), and the cross-entropy losses. Unknown names
/// throw glint::Error listing the known ones.
MetricFn get(const std::string& name);
/// The canonical TF.js name ("acc" -> "accuracy", "mse" -> "meanSquaredError").
std::string canonicalName(const std::string& name);
std::vector<std::string> names();

}  // namespace glint::metrics
