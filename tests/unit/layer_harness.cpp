#include "layer_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "src/core/random.h"

namespace glint::testing {

namespace {

std::vector<Tensor> makeLayerInputs(const LayerCase& c) {
  Rng rng(12345);
  std::vector<Tensor> xs;
  for (size_t i = 0; i < c.inputShapes.size(); ++i) {
    DType dt = i < c.inputDTypes.size() ? c.inputDTypes[i] : DType::float32;
    size_t n = static_cast<size_t>(shapeSize(c.inputShapes[i]));
    if (dt == DType::int32) {
      std::vector<int32_t> v(n);
      for (auto& e : v) e = static_cast<int32_t>(rng.next() % static_cast<uint64_t>(c.intHigh));
      xs.push_back(tensorInt(v, c.inputShapes[i]));
    } else {
      std::vector<float> v(n);
      for (auto& e : v) e = static_cast<float>(c.lo + (c.hi - c.lo) * rng.uniform01());
      xs.push_back(tensor(v, c.inputShapes[i]));
    }
  }
  return xs;
}

/// L = sum_k sum(w_k * y_k) in double, from the layer's outputs.
double weightedLoss(Layer& layer, const std::vector<Tensor>& xs,
                    const std::vector<std::vector<float>>& w, bool training) {
  std::vector<Tensor> ys = layer.apply(xs, training);
  double loss = 0;
  for (size_t k = 0; k < ys.size(); ++k) {
    std::vector<float> y = ys[k].toFloats();
    for (size_t i = 0; i < y.size(); ++i) loss += static_cast<double>(w[k][i]) * y[i];
  }
  return loss;
}

struct BackendRestore {
  std::string saved = getBackend();
  ~BackendRestore() { setBackend(saved); }
};

}  // namespace

void checkLayer(const LayerCase& c) {
  BackendRestore restore;
  std::vector<std::vector<float>> referenceOut;
  for (const std::string& backend : availableBackends()) {
    SCOPED_TRACE("layer case " + c.name + " on backend " + backend);
    setBackend(backend);
    setSeed(777);
    LayerPtr layer = c.make();
    std::vector<Tensor> xs = makeLayerInputs(c);
    std::vector<Tensor> ys = layer->apply(xs, c.training);

    // Outputs agree with the reference backend (same seeds, same weights).
    std::vector<std::vector<float>> outs;
    for (const Tensor& y : ys) outs.push_back(y.toFloats());
    if (backend == "reference") {
      referenceOut = outs;
    } else if (!referenceOut.empty()) {
      ASSERT_EQ(outs.size(), referenceOut.size());
      for (size_t k = 0; k < outs.size(); ++k)
        for (size_t i = 0; i < outs[k].size(); ++i)
          ASSERT_NEAR(outs[k][i], referenceOut[k][i],
                      1e-5 * std::max(1.0f, std::abs(referenceOut[k][i])))
              << "output " << k << " element " << i << " differs from reference";
    }

    Rng rng(99);
    std::vector<std::vector<float>> w;
    std::vector<Tensor> dys;
    for (const Tensor& y : ys) {
      ASSERT_EQ(y.dtype(), DType::float32);
      std::vector<float> v(static_cast<size_t>(y.size()));
      for (auto& e : v) e = static_cast<float>(rng.uniform01() * 2 - 1);
      w.push_back(v);
      dys.push_back(tensor(v, y.shape()));
    }

    // What to differentiate: float inputs, then trainable weights.
    std::vector<Tensor> targets;
    std::vector<size_t> floatInputs;
    for (size_t i = 0; i < xs.size(); ++i)
      if (xs[i].dtype() == DType::float32) {
        targets.push_back(xs[i]);
        floatInputs.push_back(i);
      }
    std::vector<Variable> weights = layer->trainableWeights();
    for (const Variable& v : weights) targets.push_back(v);
    ASSERT_FALSE(targets.empty());

    std::vector<Tensor> analytic = grads(
        [&](const std::vector<Tensor>& t) {
          std::vector<Tensor> in = xs;
          for (size_t k = 0; k < floatInputs.size(); ++k) in[floatInputs[k]] = t[k];
          std::vector<Tensor> out = layer->apply(in, c.training);
          Tensor loss = sum(mul(out[0], dys[0]));
          for (size_t k = 1; k < out.size(); ++k) loss = add(loss, sum(mul(out[k], dys[k])));
          return loss;
        },
        targets);

    auto compare = [&](const std::string& what, const std::vector<float>& g, size_t j,
                       double numeric) {
      ASSERT_TRUE(std::abs(g[j] - numeric) <= c.gradTol * std::max(1.0, std::abs(numeric)))
          << what << " element " << j << ": analytic " << g[j] << " vs numeric " << numeric;
    };

    for (size_t k = 0; k < floatInputs.size(); ++k) {
      size_t i = floatInputs[k];
      std::vector<float> base = xs[i].toFloats(), g = analytic[k].toFloats();
      for (size_t j = 0; j < base.size(); ++j) {
        double h = c.step * std::max(1.0, std::abs(static_cast<double>(base[j])));
        std::vector<float> p = base, m = base;
        p[j] = static_cast<float>(base[j] + h);
        m[j] = static_cast<float>(base[j] - h);
        std::vector<Tensor> xp = xs, xm = xs;
        xp[i] = tensor(p, xs[i].shape());
        xm[i] = tensor(m, xs[i].shape());
        double numeric =
            (weightedLoss(*layer, xp, w, c.training) - weightedLoss(*layer, xm, w, c.training)) /
            (static_cast<double>(p[j]) - m[j]);
        compare("input " + std::to_string(i), g, j, numeric);
      }
    }
    for (size_t k = 0; k < weights.size(); ++k) {
      Variable v = weights[k];
      Tensor original = tensor(v.toFloats(), v.shape());
      std::vector<float> base = original.toFloats(),
                         g = analytic[floatInputs.size() + k].toFloats();
      for (size_t j = 0; j < base.size(); ++j) {
        double h = c.step * std::max(1.0, std::abs(static_cast<double>(base[j])));
        std::vector<float> p = base, m = base;
        p[j] = static_cast<float>(base[j] + h);
        m[j] = static_cast<float>(base[j] - h);
        v.assign(tensor(p, v.shape()));
        double lp = weightedLoss(*layer, xs, w, c.training);
        v.assign(tensor(m, v.shape()));
        double lm = weightedLoss(*layer, xs, w, c.training);
        v.assign(original);
        compare("weight " + v.name(), g, j, (lp - lm) / (static_cast<double>(p[j]) - m[j]));
      }
    }
  }
}

void expectNear(const std::vector<float>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * std::max(1.0, std::abs(want[i]))) << "element " << i;
}

std::vector<std::string> keys(const Json& config) {
  std::vector<std::string> out;
  for (auto it = config.begin(); it != config.end(); ++it) out.push_back(it.key());
  return out;
}

void expectRoundTrip(const LayerPtr& layer, const std::vector<Tensor>& xs) {
  std::vector<Tensor> y = layer->apply(xs);
  Json config = layer->getConfig();
  LayerPtr copy = layers::fromConfig(layer->className(), config);
  EXPECT_EQ(copy->getConfig().dump(), config.dump()) << layer->className();
  copy->apply(xs);  // builds
  copy->setWeights(layer->getWeights());
  EXPECT_EQ(copy->getConfig().dump(), config.dump()) << layer->className();
  std::vector<Tensor> again = copy->apply(xs);
  ASSERT_EQ(again.size(), y.size()) << layer->className();
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_EQ(again[i].toFloats(), y[i].toFloats()) << layer->className() << " output " << i;
}

}  // namespace glint::testing
