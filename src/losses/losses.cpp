// Loss functions, written with ops (backend-independent).
#include "glint/losses.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "glint/autograd.h"
#include "glint/backend.h"
#include "glint/engine.h"
#include "glint/fused_ops.h"
#include "glint/ops.h"
#include "src/core/name_table.h"
#include "src/ops/op_util.h"

namespace glint::losses {

namespace {

constexpr float kEps = 1e-7f;  // Keras / TF.js backend epsilon

/// Validates the common (yTrue, yPred) pair and returns yTrue as float32.
Tensor checkPair(const std::string& op, const Tensor& yTrue, const Tensor& yPred) {
  ops::checkDType(op, "yTrue", yTrue, {DType::float32, DType::int32});
  ops::checkDType(op, "yPred", yPred, {DType::float32});
  if (yPred.rank() < 1)
    fail(op, "yPred must have at least one axis (the last is reduced), got ", ops::describe(yPred));
  if (yTrue.shape() != yPred.shape())
    fail(op, "yTrue ", shapeToString(yTrue.shape()), " and yPred ", shapeToString(yPred.shape()),
         " must have the same shape");
  return yTrue.dtype() == DType::float32 ? yTrue : cast(yTrue, DType::float32);
}

void checkSmoothing(const std::string& op, float s) {
  check(s >= 0.0f && s <= 1.0f, op, "labelSmoothing must be in [0, 1], got ", s);
}

const NameTable<LossFn>& table() {
  static const NameTable<LossFn> names = [] {
    std::vector<std::pair<std::string, LossFn>> canon = {
        {"categoricalCrossentropy",
         [](const Tensor& t, const Tensor& p) { return categoricalCrossentropy(t, p); }},
        {"sparseCategoricalCrossentropy",
         [](const Tensor& t, const Tensor& p) { return sparseCategoricalCrossentropy(t, p); }},
        {"binaryCrossentropy",
         [](const Tensor& t, const Tensor& p) { return binaryCrossentropy(t, p); }},
        {"meanSquaredError", meanSquaredError},
        {"meanAbsoluteError", meanAbsoluteError},
        {"meanAbsolutePercentageError", meanAbsolutePercentageError},
        {"meanSquaredLogarithmicError", meanSquaredLogarithmicError},
        {"huber", [](const Tensor& t, const Tensor& p) { return huber(t, p); }},
        {"logcosh", logCosh},
        {"cosineProximity",
         [](const Tensor& t, const Tensor& p) { return cosineSimilarity(t, p); }},
        {"kullbackLeiblerDivergence", kullbackLeiblerDivergence},
        {"poisson", poisson},
        {"hinge", hinge},
        {"squaredHinge", squaredHinge},
        {"categoricalHinge", categoricalHinge},
    };
    NameTable<LossFn> t("losses.get", "loss", std::move(canon));
    auto alias = [&t](const std::string& a, const std::string& target) { t.alias(a, target); };
    alias("mse", "meanSquaredError");
    alias("mae", "meanAbsoluteError");
    alias("mape", "meanAbsolutePercentageError");
    alias("msle", "meanSquaredLogarithmicError");
    alias("kld", "kullbackLeiblerDivergence");
    alias("kl_divergence", "kullbackLeiblerDivergence");
    alias("cosine", "cosineProximity");
    alias("cosine_similarity", "cosineProximity");
    alias("huber_loss", "huber");
    return t;
  }();
  return names;
}

}  // namespace

Tensor categoricalCrossentropy(const Tensor& yTrue, const Tensor& yPred, bool fromLogits,
                               float labelSmoothing) {
  const std::string op = "categoricalCrossentropy";
  Tensor y = checkPair(op, yTrue, yPred);
  checkSmoothing(op, labelSmoothing);
  if (labelSmoothing > 0) {
    float classes = static_cast<float>(yPred.shape().back());
    y = add(mul(y, scalar(1.0f - labelSmoothing)), scalar(labelSmoothing / classes));
  }
  // -sum(y * logSoftmax(x), -1) in one kernel, with the exact gradient
  // softmax(x) * sum(y) - y (glint/fused_ops.h).
  if (fromLogits) return glint::softmaxCrossEntropyWithLogits(y, yPred);
  Tensor p = div(yPred, sum(yPred, {-1}, true));
  p = clipByValue(p, kEps, 1.0f - kEps);
  return neg(sum(mul(y, log(p)), {-1}));
}

Tensor sparseCategoricalCrossentropy(const Tensor& yTrue, const Tensor& yPred, bool fromLogits) {
  const std::string op = "sparseCategoricalCrossentropy";
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
  int64_t classes = yPred.shape().back();
  Tensor ids = reshape(yTrue, batch);
  if (ids.dtype() == DType::float32) ids = cast(floor(ids), DType::int32);
  // An id out of range would silently give a zero loss. Where values can be
  // read at once, a host check names the first one; elsewhere (WebGPU in node)
  // the count of bad ids travels with the step's logs.
  if (ids.impl()->storage->backend->readsSynchronously()) {
    std::vector<int32_t> host = ids.data<int32_t>();
    for (size_t i = 0; i < host.size(); ++i)
      if (!(host[i] >= 0 && host[i] < classes))
        fail(op, "yTrue holds class id ", host[i], " at flat index ", i, ", outside [0, ", classes,
             ") for yPred ", shapeToString(yPred.shape()));
  } else {
    Tensor bad = logicalOr(less(ids, scalar(0, DType::int32)),
                           greaterEqual(ids, scalar(static_cast<float>(classes), DType::int32)));
    checkOnDevice(sum(cast(bad, DType::float32)), op,
                  "yTrue holds class ids outside [0, " + std::to_string(classes) + ") for yPred " +
                      shapeToString(yPred.shape()));
  }
  return categoricalCrossentropy(oneHot(ids, classes), yPred, fromLogits);
}

Tensor binaryCrossentropy(const Tensor& yTrue, const Tensor& yPred, bool fromLogits,
                          float labelSmoothing) {
  const std::string op = "binaryCrossentropy";
  Tensor z = checkPair(op, yTrue, yPred);
  checkSmoothing(op, labelSmoothing);
  if (labelSmoothing > 0)
    z = add(mul(z, scalar(1.0f - labelSmoothing)), scalar(0.5f * labelSmoothing));
  if (fromLogits) {
    Tensor perElement = customGrad(
        [](const std::vector<Tensor>& in) {
          Tensor z = in[0], x = in[1];
          Tensor v = add(sub(relu(x), mul(x, z)), log1p(exp(neg(abs(x)))));
          return CustomGradResult{
              v, [z, x](const Tensor& dy) {
                return std::vector<Tensor>{neg(mul(dy, x)), mul(dy, sub(sigmoid(x), z))};
              }};
        },
        {z, yPred});
    return mean(perElement, {-1});
  }
  Tensor p = clipByValue(yPred, kEps, 1.0f - kEps);
  Tensor ll = add(mul(z, log(p)), mul(sub(scalar(1.0f), z), log(sub(scalar(1.0f), p))));
  return neg(mean(ll, {-1}));
}

Tensor meanSquaredError(const Tensor& yTrue, const Tensor& yPred) {
  Tensor y = checkPair("meanSquaredError", yTrue, yPred);
  return mean(squaredDifference(yPred, y), {-1});
}

Tensor meanAbsoluteError(const Tensor& yTrue, const Tensor& yPred) {
  Tensor y = checkPair("meanAbsoluteError", yTrue, yPred);
  return mean(abs(sub(yPred, y)), {-1});
}

Tensor meanAbsolutePercentageError(const Tensor& yTrue, const Tensor& yPred) {
  Tensor y = checkPair("meanAbsolutePercentageError", yTrue, yPred);
  Tensor denom = maximum(abs(y), scalar(kEps));
  return mul(mean(abs(div(sub(y, yPred), denom)), {-1}), scalar(100.0f));
}

Tensor meanSquaredLogarithmicError(const Tensor& yTrue, const Tensor& yPred) {
  Tensor y = checkPair("meanSquaredLogarithmicError", yTrue, yPred);
  Tensor a = log1p(maximum(yPred, scalar(kEps)));
  Tensor b = log1p(maximum(y, scalar(kEps)));
  return mean(squaredDifference(a, b), {-1});
}

Tensor huber(const Tensor& yTrue, const Tensor& yPred, float delta) {
  Tensor y = checkPair("huber", yTrue, yPred);
  check(delta > 0 && std::isfinite(delta), "huber", "delta must be positive and finite, got ",
        delta);
  // 0.5 q^2 + delta (|d| - q) with q = min(|d|, delta) covers both branches.
  Tensor a = abs(sub(yPred, y));
  Tensor q = minimum(a, scalar(delta));
  Tensor v = add(mul(square(q), scalar(0.5f)), mul(sub(a, q), scalar(delta)));
  return mean(v, {-1});
}

Tensor logCosh(const Tensor& yTrue, const Tensor& yPred) {
  Tensor y = checkPair("logCosh", yTrue, yPred);
  // log(cosh(d)) = d + softplus(-2d) - log 2, finite for any d.
  Tensor d = sub(yPred, y);
  Tensor v = sub(add(d, softplus(mul(d, scalar(-2.0f)))), scalar(std::log(2.0f)));
  return mean(v, {-1});
}

Tensor cosineSimilarity(const Tensor& yTrue, const Tensor& yPred, int axis) {
  const std::string op = "cosineSimilarity";
  Tensor y = checkPair(op, yTrue, yPred);
  int a = normalizeAxis(op, "axis", axis, yPred.rank());
  auto normalize = [a](const Tensor& x) {
    return div(x, sqrt(maximum(sum(square(x), {a}, true), scalar(kEps))));
  };
  return neg(sum(mul(normalize(y), normalize(yPred)), {a}));
}

Tensor kullbackLeiblerDivergence(const Tensor& yTrue, const Tensor& yPred) {
  Tensor y = checkPair("kullbackLeiblerDivergence", yTrue, yPred);
  Tensor t = clipByValue(y, kEps, 1.0f);
  Tensor p = clipByValue(yPred, kEps, 1.0f);
  return sum(mul(y, log(div(t, p))), {-1});
}

Tensor poisson(const Tensor& yTrue, const Tensor& yPred) {
  Tensor y = checkPair("poisson", yTrue, yPred);
  return mean(sub(yPred, mul(y, log(add(yPred, scalar(kEps))))), {-1});
}

Tensor hinge(const Tensor& yTrue, const Tensor& yPred) {
  Tensor y = checkPair("hinge", yTrue, yPred);
  return mean(relu(sub(scalar(1.0f), mul(y, yPred))), {-1});
}

Tensor squaredHinge(const Tensor& yTrue, const Tensor& yPred) {
  Tensor y = checkPair("squaredHinge", yTrue, yPred);
  return mean(square(relu(sub(scalar(1.0f), mul(y, yPred)))), {-1});
}

Tensor categoricalHinge(const Tensor& yTrue, const Tensor& yPred) {
  Tensor y = checkPair("categoricalHinge", yTrue, yPred);
  Tensor pos = sum(mul(y, yPred), {-1});
  Tensor negv = max(mul(sub(scalar(1.0f), y), yPred), {-1});
  return relu(add(sub(negv, pos), scalar(1.0f)));
}

std::vector<std::string> names() { return table().names(); }

std::string canonicalName(const std::string& name) { return table().canonicalName(name); }

LossFn get(const std::string& name) { return table().get(name); }

}  // namespace glint::losses
