// Normalization (BatchNormalization, LayerNormalization) and merge layers
// (Add, Multiply, Average, Concatenate): values against plain double loops
// and hand values, moving statistics, gradients, configs, errors.
#include <gtest/gtest.h>

#include <cmath>

#include "glint/glint.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "layer_harness.h"
#include "op_harness.h"

namespace glint::testing {
namespace {

std::vector<float> wave(size_t n, float seed, float scale = 0.9f, float offset = 0.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = offset + scale * std::sin(0.7f * static_cast<float>(i) + seed);
  return v;
}

/// Index along `axis` of each element of a row-major tensor of shape s.
std::vector<int64_t> axisIndex(const Shape& s, int64_t axis) {
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < s.size(); ++d) inner *= s[d];
  std::vector<int64_t> out(static_cast<size_t>(shapeSize(s)));
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = (static_cast<int64_t>(i) / inner) % s[static_cast<size_t>(axis)];
  return out;
}

/// Per-feature mean and population variance over every other axis.
void featureMoments(const std::vector<float>& x, const std::vector<int64_t>& idx, int64_t dim,
                    std::vector<double>& mean, std::vector<double>& var) {
  mean.assign(static_cast<size_t>(dim), 0.0);
  var.assign(static_cast<size_t>(dim), 0.0);
  std::vector<double> count(static_cast<size_t>(dim), 0.0);
  for (size_t i = 0; i < x.size(); ++i) {
    mean[idx[i]] += x[i];
    count[idx[i]] += 1;
  }
  for (int64_t c = 0; c < dim; ++c) mean[c] /= count[c];
  for (size_t i = 0; i < x.size(); ++i)
    var[idx[i]] += (x[i] - mean[idx[i]]) * (x[i] - mean[idx[i]]);
  for (int64_t c = 0; c < dim; ++c) var[c] /= count[c];
}

std::vector<double> normalize(const std::vector<float>& x, const std::vector<int64_t>& idx,
                              const std::vector<double>& mean, const std::vector<double>& var,
                              const std::vector<float>& gamma, const std::vector<float>& beta,
                              double eps) {
  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    size_t c = static_cast<size_t>(idx[i]);
    y[i] = (x[i] - mean[c]) / std::sqrt(var[c] + eps) * gamma[c] + beta[c];
  }
  return y;
}

// ---- BatchNormalization --------------------------------------------------

TEST(LayersNorm, BatchNormWeightsFollowTfjsOrderAndNames) {
  LayerPtr bn = layers::batchNormalization();
  bn->apply(ones({2, 3}));
  std::vector<Variable> w = bn->weights();
  ASSERT_EQ(w.size(), 4u);
  std::vector<std::string> names;
  for (const Variable& v : w) names.push_back(v.name());
  EXPECT_EQ(names, (std::vector<std::string>{bn->name() + "/gamma", bn->name() + "/beta",
                                             bn->name() + "/moving_mean",
                                             bn->name() + "/moving_variance"}));
  EXPECT_EQ(bn->trainableWeights().size(), 2u);
  EXPECT_EQ(bn->nonTrainableWeights().size(), 2u);
  EXPECT_EQ(w[0].data<float>(), (std::vector<float>{1, 1, 1}));  // gamma ones
  EXPECT_EQ(w[3].data<float>(), (std::vector<float>{1, 1, 1}));  // moving variance ones
  LayerPtr bare = layers::batchNormalization({{"center", false}, {"scale", false}});
  bare->apply(ones({2, 3}));
  EXPECT_EQ(bare->weights().size(), 2u);
  EXPECT_EQ(bare->weights()[0].name(), bare->name() + "/moving_mean");
  EXPECT_TRUE(bare->trainableWeights().empty());
}

TEST(LayersNorm, BatchNormInferenceAndTrainingMatchPlainLoops) {
  struct Case {
    Shape shape;
    int64_t axis;
  };
  for (const Case& c : {Case{{2, 2, 3, 3}, -1}, Case{{3, 2, 4}, 1}}) {
    SCOPED_TRACE(shapeToString(c.shape));
    onEveryBackend([&] {
      int64_t axis = c.axis < 0 ? c.axis + static_cast<int64_t>(c.shape.size()) : c.axis;
      int64_t dim = c.shape[static_cast<size_t>(axis)];
      size_t n = static_cast<size_t>(shapeSize(c.shape)), d = static_cast<size_t>(dim);
      double eps = 1e-3, momentum = 0.9;
      LayerPtr bn = layers::batchNormalization({{"axis", c.axis}, {"momentum", momentum}});
      std::vector<float> x0 = wave(n, 0.4f, 2.0f, 0.5f), x1 = wave(n, 1.9f, 1.5f, -0.3f);
      Tensor t0 = tensor(x0, c.shape), t1 = tensor(x1, c.shape);
      bn->apply(t0);
      std::vector<float> gamma = wave(d, 0.1f, 0.5f, 1.0f), beta = wave(d, 0.7f),
                         mm = wave(d, 1.3f, 0.3f);
      std::vector<float> mv = wave(d, 2.1f, 0.4f, 1.0f);
      bn->setWeights(
          {tensor(gamma, {dim}), tensor(beta, {dim}), tensor(mm, {dim}), tensor(mv, {dim})});
      std::vector<int64_t> idx = axisIndex(c.shape, axis);

      // Inference: the moving statistics normalize; nothing changes.
      std::vector<double> mmD(mm.begin(), mm.end()), mvD(mv.begin(), mv.end());
      expectNear(bn->apply(t0, false).toFloats(), normalize(x0, idx, mmD, mvD, gamma, beta, eps));
      EXPECT_EQ(bn->getWeights()[2].toFloats(), mm);

      // Training: batch moments normalize; moving = moving * momentum + batch * (1 - momentum).
      std::vector<double> mean, var;
      featureMoments(x0, idx, dim, mean, var);
      expectNear(bn->apply(t0, true).toFloats(), normalize(x0, idx, mean, var, gamma, beta, eps),
                 1e-4);
      std::vector<double> wantMean(d), wantVar(d);
      for (size_t k = 0; k < d; ++k) {
        wantMean[k] = mm[k] * momentum + mean[k] * (1 - momentum);
        wantVar[k] = mv[k] * momentum + var[k] * (1 - momentum);
      }
      expectNear(bn->getWeights()[2].toFloats(), wantMean);
      expectNear(bn->getWeights()[3].toFloats(), wantVar);
      // A second step on another batch compounds.
      featureMoments(x1, idx, dim, mean, var);
      bn->apply(t1, true);
      for (size_t k = 0; k < d; ++k) {
        wantMean[k] = wantMean[k] * momentum + mean[k] * (1 - momentum);
        wantVar[k] = wantVar[k] * momentum + var[k] * (1 - momentum);
      }
      expectNear(bn->getWeights()[2].toFloats(), wantMean);
      expectNear(bn->getWeights()[3].toFloats(), wantVar);
      // Inference now uses the updated statistics; gamma and beta are untouched.
      EXPECT_EQ(bn->getWeights()[0].toFloats(), gamma);
      expectNear(bn->apply(t1, false).toFloats(),
                 normalize(x1, idx, wantMean, wantVar, gamma, beta, eps), 1e-4);
    });
  }
}

TEST(LayersNorm, BatchNormTrainingLeavesNoTensorsBehind) {
  LayerPtr bn = layers::batchNormalization();
  Tensor x = tensor(wave(24, 0.2f), {4, 6});
  bn->apply(x, true);
  int64_t before = memory().numTensors;
  for (int i = 0; i < 100; ++i) {
    Tensor y = bn->apply(x, i % 2 == 0);
    (void)y;
  }
  EXPECT_EQ(memory().numTensors, before);
}

TEST(LayersNorm, BatchNormGradients) {
  auto make = [] {
    return layers::batchNormalization(
        {{"betaInitializer", "randomNormal"},
         {"gammaInitializer", "randomUniform"},
         {"movingVarianceInitializer", {{"className", "Constant"}, {"config", {{"value", 2.0}}}}}});
  };
  checkLayer({"bn_inference", make, {{3, 4}}});
  checkLayer({"bn_training", make, {{4, 3}}, {}, 5, true});
  checkLayer({"bn_training_axis1",
              [] {
                return layers::batchNormalization({{"axis", 1}});
              },
              {{2, 2, 3}},
              {},
              5,
              true});
}

// ---- LayerNormalization ----------------------------------------------------

TEST(LayersNorm, LayerNormMatchesPlainLoop) {
  onEveryBackend([&] {
    Shape s{2, 3, 4};
    std::vector<float> x = wave(24, 0.3f, 2.0f, 0.4f);
    // Last axis: each of the 6 rows of 4 normalized separately.
    LayerPtr ln = layers::layerNormalization();
    ln->apply(tensor(x, s));
    std::vector<float> gamma = wave(4, 0.5f, 0.5f, 1.0f), beta = wave(4, 1.5f);
    ln->setWeights({tensor(gamma, {4}), tensor(beta, {4})});
    std::vector<double> want(24);
    for (int r = 0; r < 6; ++r) {
      double m = 0, v = 0;
      for (int k = 0; k < 4; ++k) m += x[r * 4 + k] / 4.0;
      for (int k = 0; k < 4; ++k) v += (x[r * 4 + k] - m) * (x[r * 4 + k] - m) / 4.0;
      for (int k = 0; k < 4; ++k)
        want[r * 4 + k] = (x[r * 4 + k] - m) / std::sqrt(v + 1e-3) * gamma[k] + beta[k];
    }
    expectNear(ln->apply(tensor(x, s)).toFloats(), want, 1e-4);

    // Axes [1, 2] with parameters of shape [3, 4]; no beta.
    LayerPtr ln2 =
        layers::layerNormalization({{"axis", {1, 2}}, {"center", false}, {"epsilon", 0.01}});
    ln2->apply(tensor(x, s));
    ASSERT_EQ(ln2->weights().size(), 1u);
    EXPECT_EQ(ln2->weights()[0].shape(), (Shape{3, 4}));
    EXPECT_EQ(ln2->weights()[0].name(), ln2->name() + "/gamma");
    std::vector<float> g2 = wave(12, 2.2f, 0.5f, 1.0f);
    ln2->setWeights({tensor(g2, {3, 4})});
    for (int b = 0; b < 2; ++b) {
      double m = 0, v = 0;
      for (int k = 0; k < 12; ++k) m += x[b * 12 + k] / 12.0;
      for (int k = 0; k < 12; ++k) v += (x[b * 12 + k] - m) * (x[b * 12 + k] - m) / 12.0;
      for (int k = 0; k < 12; ++k)
        want[b * 12 + k] = (x[b * 12 + k] - m) / std::sqrt(v + 0.01) * g2[k];
    }
    expectNear(ln2->apply(tensor(x, s)).toFloats(), want, 1e-4);
  });
}

TEST(LayersNorm, LayerNormGradients) {
  auto init = Json{{"betaInitializer", "randomNormal"}, {"gammaInitializer", "randomUniform"}};
  checkLayer({"ln_last", [init] { return layers::layerNormalization(init); }, {{2, 4}}});
  checkLayer({"ln_two_axes",
              [] {
                return layers::layerNormalization(
                    {{"axis", {-2, -1}}, {"gammaInitializer", "randomUniform"}});
              },
              {{2, 2, 3}}});
}

TEST(LayersNorm, ConfigsAreTheKerasFormTfjsWrites) {
  using V = std::vector<std::string>;
  Json bn = layers::batchNormalization({{"momentum", 0.9}})->getConfig();
  EXPECT_EQ(keys(bn), (V{"axis", "momentum", "epsilon", "center", "scale", "beta_initializer",
                         "gamma_initializer", "moving_mean_initializer",
                         "moving_variance_initializer", "beta_regularizer", "gamma_regularizer",
                         "beta_constraint", "gamma_constraint", "name", "trainable", "dtype"}));
  EXPECT_EQ(bn["axis"], -1);
  EXPECT_EQ(bn["momentum"], 0.9);
  EXPECT_EQ(bn["epsilon"], 0.001);
  EXPECT_EQ(bn["gamma_initializer"]["class_name"], "Ones");
  EXPECT_EQ(bn["moving_mean_initializer"]["class_name"], "Zeros");
  LayerPtr ln = layers::layerNormalization();
  Json lc = ln->getConfig();
  EXPECT_EQ(keys(lc),
            (V{"axis", "epsilon", "center", "scale", "beta_initializer", "gamma_initializer",
               "beta_regularizer", "gamma_regularizer", "name", "trainable", "dtype"}));
  EXPECT_EQ(lc["axis"], -1);
  ln->apply(ones({2, 3, 4}));
  EXPECT_EQ(ln->getConfig()["axis"], Json::parse("[2]"));  // TF.js stores built axes non-negative

  Tensor x = tensor(wave(24, 0.9f, 2.0f), {2, 3, 4});
  LayerPtr trained = layers::batchNormalization(
      {{"axis", 1}, {"momentum", 0.5}, {"scale", false}, {"betaRegularizer", "l2"}});
  trained->apply(x, true);  // moving statistics move away from their initial values
  expectRoundTrip(trained, {x});
  expectRoundTrip(layers::layerNormalization({{"axis", {1, 2}}, {"epsilon", 0.1}}), {x});
  // Keras writes BatchNormalization's axis as a list.
  LayerPtr keras =
      layers::fromConfig("BatchNormalization", Json::parse(R"({"axis": [1], "name": "bn_keras"})"));
  EXPECT_EQ(keras->apply(x).shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(keras->weights()[0].shape(), (Shape{3}));
}

TEST(LayersNorm, ErrorsNameTheLayerAndTheProblem) {
  expectError(
      [] {
        layers::batchNormalization({{"momentum", 1.5}});
      },
      {"BatchNormalization", "momentum"});
  expectError([] { layers::batchNormalization({{"epsilon", 0}}); }, {"epsilon", "positive"});
  expectError(
      [] {
        layers::batchNormalization({{"axes", 1}});
      },
      {"BatchNormalization", "'axes'", "not an argument"});
  expectError(
      [] {
        layers::batchNormalization({{"axis", 3}})->apply(ones({2, 3}));
      },
      {"BatchNormalization", "axis 3", "out of range"});
  expectError([] { layers::batchNormalization()->apply(ones({4})); },
              {"BatchNormalization", "rank >= 2"});
  LayerPtr bn = layers::batchNormalization();
  bn->apply(ones({2, 3}));
  expectError([&] { bn->apply(ones({2, 4})); }, {"BatchNormalization", "3 features", "[2,4]"});
  expectError(
      [&] {
        bn->apply(input({{"shape", {5}}}));
      },
      {"BatchNormalization", "3 features", "[-1,5]"});
  expectError(
      [] {
        layers::batchNormalization()->apply(input({{"shape", {-1}}}));
      },
      {"must be known"});
  expectError(
      [] {
        layers::layerNormalization({{"axis", {1, -2}}})->apply(ones({2, 3, 4}));
      },
      {"LayerNormalization", "twice"});
  LayerPtr ln = layers::layerNormalization();
  ln->apply(ones({2, 3}));
  expectError([&] { ln->apply(ones({2, 5})); }, {"LayerNormalization", "[3]", "[2,5]"});
}

// ---- Merge layers ----------------------------------------------------------

TEST(LayersMerge, HandValues) {
  onEveryBackend([&] {
    Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3}), b = tensor({10, 20, 30, 40, 50, 60}, {2, 3});
    Tensor c = tensor({-1, 0, 1, 2, 0.5f, -2}, {2, 3});
    EXPECT_EQ(layers::add()->apply({a, b, c})[0].data<float>(),
              (std::vector<float>{10, 22, 34, 46, 55.5f, 64}));
    EXPECT_EQ(layers::multiply()->apply({a, b})[0].data<float>(),
              (std::vector<float>{10, 40, 90, 160, 250, 360}));
    EXPECT_EQ(layers::average()->apply({a, b})[0].data<float>(),
              (std::vector<float>{5.5f, 11, 16.5f, 22, 27.5f, 33}));
    Tensor cat = layers::concatenate()->apply({a, tensor({7, 8}, {2, 1})})[0];
    EXPECT_EQ(cat.shape(), (Shape{2, 4}));
    EXPECT_EQ(cat.data<float>(), (std::vector<float>{1, 2, 3, 7, 4, 5, 6, 8}));
    Tensor cat0 = layers::concatenate({{"axis", 1}})
                      ->apply({tensor({1, 2}, {1, 1, 2}), tensor({3, 4}, {1, 1, 2})})[0];
    EXPECT_EQ(cat0.shape(), (Shape{1, 2, 2}));
    EXPECT_EQ(cat0.data<float>(), (std::vector<float>{1, 2, 3, 4}));
    // Keras broadcasting: a size-1 axis stretches; a lower-rank input gets unit
    // axes after the batch axis.
    Tensor bc = layers::add()->apply({a, tensor({100, 200}, {2, 1})})[0];
    EXPECT_EQ(bc.data<float>(), (std::vector<float>{101, 102, 103, 204, 205, 206}));
    Tensor r3 = layers::multiply()->apply(
        {tensor({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {2, 2, 3}), a})[0];
    EXPECT_EQ(r3.shape(), (Shape{2, 2, 3}));
    EXPECT_EQ(r3.data<float>(), (std::vector<float>{1, 4, 9, 4, 10, 18, 28, 40, 54, 40, 55, 72}));
  });
}

TEST(LayersMerge, SymbolicShapes) {
  SymbolicTensorPtr a = input({{"shape", {4, 3}}}), b = input({{"shape", {4, 5}}}),
                    c = input({{"shape", {4, 3}}});
  EXPECT_EQ(layers::add()->apply({a, c})[0]->shape, (Shape{-1, 4, 3}));
  EXPECT_EQ(layers::concatenate()->apply({a, b})[0]->shape, (Shape{-1, 4, 8}));
  EXPECT_EQ(layers::concatenate({{"axis", 1}})->apply({a, c})[0]->shape, (Shape{-1, 8, 3}));
  SymbolicTensorPtr u = input({{"shape", {-1, 3}}});
  EXPECT_EQ(layers::concatenate({{"axis", 1}})->apply({a, u})[0]->shape, (Shape{-1, -1, 3}));
  EXPECT_EQ(layers::multiply()->apply({a, input({{"shape", {1, 3}}})})[0]->shape,
            (Shape{-1, 4, 3}));
  EXPECT_EQ(layers::average()->apply({a, input({{"shape", {3}}})})[0]->shape, (Shape{-1, 4, 3}));
  auto node = layers::add()->apply({a, c});
  EXPECT_EQ(node[0]->node->inputs.size(), 2u);
}

TEST(LayersMerge, Gradients) {
  checkLayer({"add3", [] { return layers::add(); }, {{2, 3}, {2, 3}, {2, 3}}});
  checkLayer({"multiply_broadcast", [] { return layers::multiply(); }, {{2, 2, 3}, {2, 1, 3}}});
  checkLayer({"multiply_rank", [] { return layers::multiply(); }, {{2, 2, 3}, {2, 3}}});
  checkLayer({"average", [] { return layers::average(); }, {{2, 3}, {2, 3}}});
  checkLayer({"concatenate",
              [] {
                return layers::concatenate({{"axis", 1}});
              },
              {{2, 1, 2}, {2, 3, 2}}});
}

TEST(LayersMerge, ConfigsAndRoundTrip) {
  using V = std::vector<std::string>;
  EXPECT_EQ(keys(layers::add({{"name", "sum"}})->getConfig()), (V{"name", "trainable", "dtype"}));
  Json cc = layers::concatenate({{"axis", 1}})->getConfig();
  EXPECT_EQ(keys(cc), (V{"axis", "name", "trainable", "dtype"}));
  EXPECT_EQ(cc["axis"], 1);
  EXPECT_EQ(layers::concatenate()->getConfig()["axis"], -1);
  Tensor a = tensor(wave(6, 0.1f), {2, 3}), b = tensor(wave(6, 0.7f), {2, 3});
  expectRoundTrip(layers::add(), {a, b});
  expectRoundTrip(layers::multiply(), {a, b});
  expectRoundTrip(layers::average(), {a, b});
  expectRoundTrip(layers::concatenate({{"axis", 0}}), {a, b});
  EXPECT_EQ(layers::average()->name().rfind("average", 0), 0u);
}

TEST(LayersMerge, ErrorsNameTheShapes) {
  SymbolicTensorPtr a = input({{"shape", {3}}}), b = input({{"shape", {4}}});
  expectError([&] { layers::add()->apply({a, b}); }, {"Add", "[-1,3]", "[-1,4]"});
  expectError([&] { layers::multiply()->apply(std::vector<SymbolicTensorPtr>{a}); },
              {"Multiply", "at least 2"});
  expectError([] { layers::add()->apply(ones({2, 3})); }, {"Add", "at least 2"});
  expectError(
      [] {
        layers::average()->apply({ones({2, 3}), ones({3, 3})});
      },
      {"Average", "batch sizes", "[2,3]", "[3,3]"});
  expectError(
      [] {
        layers::add()->apply({ones({2, 2, 3}), ones({2, 3, 3})});
      },
      {"Add", "cannot be merged", "[-1,2,3]", "[-1,3,3]"});
  SymbolicTensorPtr c = input({{"shape", {4, 3}}}), d = input({{"shape", {5, 3}}});
  expectError(
      [&] {
        layers::concatenate()->apply({c, d});
      },
      {"Concatenate", "matching shapes", "[-1,4,3]", "[-1,5,3]"});
  expectError(
      [&] {
        layers::concatenate({{"axis", 3}})->apply({c, c});
      },
      {"Concatenate", "axis 3", "out of range"});
  expectError(
      [&] {
        layers::concatenate()->apply({c, a});
      },
      {"Concatenate", "same rank", "[-1,4,3]", "[-1,3]"});
  expectError([] { layers::add({{"axis", 1}}); }, {"Add", "'axis'", "not an argument"});
  LayerPtr built = layers::concatenate();
  built->apply({ones({2, 3}), ones({2, 1})});
  expectError(
      [&] {
        built->apply({ones({2, 3}), ones({3, 1})});
      },
      {"Concatenate", "[2,3]", "[3,1]"});
}

}  // namespace
}  // namespace glint::testing
