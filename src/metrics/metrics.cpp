// Metrics, written with ops (backend-independent).
#include "glint/metrics.h"

#include <cctype>
#include <map>

#include "glint/fused_ops.h"
#include "glint/losses.h"
#include "glint/ops.h"
#include "src/core/name_table.h"
#include "src/ops/op_util.h"

namespace glint::metrics {

namespace {

Tensor toFloat(const Tensor& t) {
  return t.dtype() == DType::float32 ? t : cast(t, DType::float32);
}

void checkSame(const std::string& op, const Tensor& yTrue, const Tensor& yPred) {
  ops::checkDType(op, "yTrue", yTrue, {DType::float32, DType::int32});
  ops::checkDType(op, "yPred", yPred, {DType::float32});
  if (yPred.rank() < 1) fail(op, "yPred must have at least one axis, got ", ops::describe(yPred));
  if (yTrue.shape() != yPred.shape())
    fail(op, "yTrue ", shapeToString(yTrue.shape()), " and yPred ", shapeToString(yPred.shape()),
         " must have the same shape");
}

/// Class ids as int32 shaped like yPred without its last axis.
Tensor sparseIds(const std::string& op, const Tensor& yTrue, const Tensor& yPred) {
  ops::checkDType(op, "yTrue", yTrue, {DType::float32, DType::int32});
  ops::checkDType(op, "yPred", yPred, {DType::float32});
  if (yPred.rank() < 1) fail(op, "yPred must have a class axis, got ", ops::describe(yPred));
  Shape batch(yPred.shape().begin(), yPred.shape().end() - 1);
  Shape withOne = batch;
  withOne.push_back(1);
  if (!(yTrue.shape() == batch || yTrue.shape() == withOne))
    fail(op, "yTrue ", shapeToString(yTrue.shape()), " must be yPred ",
         shapeToString(yPred.shape()), " without its last axis (", shapeToString(batch),
         ") or with a last axis of 1");
  Tensor ids = reshape(yTrue, batch);
  return ids.dtype() == DType::int32 ? ids : cast(floor(ids), DType::int32);
}

/// 1 where the prediction at class `ids` has fewer than k strictly larger rivals.
Tensor inTopK(const Tensor& ids, const Tensor& yPred, int k) {
  int64_t classes = yPred.shape().back();
  Tensor atTrue = sum(mul(yPred, oneHot(ids, classes)), {-1}, true);
  Tensor rivals = sum(cast(greater(yPred, atTrue), DType::float32), {-1});
  return cast(less(rivals, scalar(static_cast<float>(k))), DType::float32);
}

/// (true positives, predicted positives, actual positives) over the batch.
struct Counts {
  Tensor tp, predicted, actual;
};
Counts counts(const std::string& op, const Tensor& yTrue, const Tensor& yPred) {
  checkSame(op, yTrue, yPred);
  Tensor t = cast(greater(toFloat(yTrue), scalar(0.5f)), DType::float32);
  Tensor p = cast(greater(yPred, scalar(0.5f)), DType::float32);
  return {sum(mul(t, p)), sum(p), sum(t)};
}

Tensor safeRatio(const Tensor& num, const Tensor& den) {
  Tensor positive = greater(den, scalar(0.0f));
  return where(positive, div(num, maximum(den, scalar(1.0f))), scalar(0.0f));
}

const NameTable<MetricFn>& table() {
  static const NameTable<MetricFn> names = [] {
    auto lossFn = [](const std::string& n) { return losses::get(n); };
    std::vector<std::pair<std::string, MetricFn>> canon = {
        {"accuracy", accuracy},
        {"binaryAccuracy", [](const Tensor& t, const Tensor& p) { return binaryAccuracy(t, p); }},
        {"categoricalAccuracy", categoricalAccuracy},
        {"sparseCategoricalAccuracy", sparseCategoricalAccuracy},
        {"topKCategoricalAccuracy",
         [](const Tensor& t, const Tensor& p) { return topKCategoricalAccuracy(t, p); }},
        {"sparseTopKCategoricalAccuracy",
         [](const Tensor& t, const Tensor& p) { return sparseTopKCategoricalAccuracy(t, p); }},
        {"precision", precision},
        {"recall", recall},
        {"meanSquaredError", meanSquaredError},
        {"meanAbsoluteError", meanAbsoluteError},
        {"meanAbsolutePercentageError", lossFn("meanAbsolutePercentageError")},
        {"categoricalCrossentropy", lossFn("categoricalCrossentropy")},
        {"sparseCategoricalCrossentropy", lossFn("sparseCategoricalCrossentropy")},
        {"binaryCrossentropy", lossFn("binaryCrossentropy")},
        {"cosineProximity", lossFn("cosineProximity")},
    };
    NameTable<MetricFn> t("metrics.get", "metric", std::move(canon));
    auto alias = [&t](const std::string& a, const std::string& target) { t.alias(a, target); };
    alias("acc", "accuracy");
    alias("mse", "meanSquaredError");
    alias("mae", "meanAbsoluteError");
    alias("mape", "meanAbsolutePercentageError");
    alias("top_k_categorical_accuracy", "topKCategoricalAccuracy");
    alias("sparse_top_k_categorical_accuracy", "sparseTopKCategoricalAccuracy");
    alias("cosine", "cosineProximity");
    return t;
  }();
  return names;
}

}  // namespace

Tensor accuracy(const Tensor& yTrue, const Tensor& yPred) {
  ops::checkDType("accuracy", "yPred", yPred, {DType::float32});
  if (yPred.rank() < 1)
    fail("accuracy", "yPred must have at least one axis, got ", ops::describe(yPred));
  ops::checkTensor("accuracy", "yTrue", yTrue);
  int64_t last = yPred.shape().back();
  if (last == 1) {
    // A single output is binary; labels may lack the trailing 1.
    bool squeezed = yTrue.rank() == yPred.rank() - 1 && yTrue.size() == yPred.size();
    return binaryAccuracy(squeezed ? reshape(yTrue, yPred.shape()) : yTrue, yPred);
  }
  bool sparse = yTrue.rank() == yPred.rank() - 1 ||
                (yTrue.rank() == yPred.rank() && yTrue.shape().back() == 1 && last != 1);
  return sparse ? sparseCategoricalAccuracy(yTrue, yPred) : categoricalAccuracy(yTrue, yPred);
}

Tensor categoricalAccuracy(const Tensor& yTrue, const Tensor& yPred) {
  checkSame("categoricalAccuracy", yTrue, yPred);
  return argMaxEqual(toFloat(yTrue), yPred);
}

Tensor sparseCategoricalAccuracy(const Tensor& yTrue, const Tensor& yPred) {
  Tensor ids = sparseIds("sparseCategoricalAccuracy", yTrue, yPred);
  return cast(equal(ids, argMax(yPred, -1)), DType::float32);
}

Tensor binaryAccuracy(const Tensor& yTrue, const Tensor& yPred, float threshold) {
  checkSame("binaryAccuracy", yTrue, yPred);
  Tensor p = cast(greater(yPred, scalar(threshold)), DType::float32);
  return mean(cast(equal(toFloat(yTrue), p), DType::float32), {-1});
}

Tensor topKCategoricalAccuracy(const Tensor& yTrue, const Tensor& yPred, int k) {
  checkSame("topKCategoricalAccuracy", yTrue, yPred);
  check(k >= 1, "topKCategoricalAccuracy", "k must be >= 1, got ", k);
  return inTopK(argMax(toFloat(yTrue), -1), yPred, k);
}

Tensor sparseTopKCategoricalAccuracy(const Tensor& yTrue, const Tensor& yPred, int k) {
  Tensor ids = sparseIds("sparseTopKCategoricalAccuracy", yTrue, yPred);
  check(k >= 1, "sparseTopKCategoricalAccuracy", "k must be >= 1, got ", k);
  return inTopK(ids, yPred, k);
}

Tensor precision(const Tensor& yTrue, const Tensor& yPred) {
  Counts c = counts("precision", yTrue, yPred);
  return safeRatio(c.tp, c.predicted);
}

Tensor recall(const Tensor& yTrue, const Tensor& yPred) {
  Counts c = counts("recall", yTrue, yPred);
  return safeRatio(c.tp, c.actual);
}

Tensor meanSquaredError(const Tensor& yTrue, const Tensor& yPred) {
  return losses::meanSquaredError(yTrue, yPred);
}

Tensor meanAbsoluteError(const Tensor& yTrue, const Tensor& yPred) {
  return losses::meanAbsoluteError(yTrue, yPred);
}

std::vector<std::string> names() { return table().names(); }

std::string canonicalName(const std::string& name) { return table().canonicalName(name); }

MetricFn get(const std::string& name) { return table().get(name); }

}  // namespace glint::metrics
