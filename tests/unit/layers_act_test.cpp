// Activation layers with arguments (ReLU, LeakyReLU, PReLU, ELU,
// ThresholdedReLU, Softmax), Dot/Maximum/Minimum/Subtract, RepeatVector,
// the noise layers, Rescaling, CenterCrop and CategoryEncoding: values that
// TF.js cannot give (Keras-only arguments) against plain double loops,
// noise statistics in training, gradients on every backend, configs, errors.
// Parity with TF.js: tests/interop/layer_cases/act.mjs.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "glint/glint.h"
#include "glint/io.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "glint/model.h"
#include "layer_harness.h"
#include "op_harness.h"

namespace glint::testing {
namespace {

std::vector<float> wave(size_t n, float seed, float scale = 1.5f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * std::sin(0.7f * static_cast<float>(i) + seed);
  return v;
}

// ---- Values TF.js cannot give ---------------------------------------------

TEST(LayersAct, KerasReluArgumentsMatchTheKerasFormula) {
  std::vector<float> x = wave(24, 0.3f, 3.0f);
  struct Args {
    double maxValue;
    double slope;
    double threshold;
  };
  for (Args a : {Args{-1, 0.1, 0}, Args{-1, 0, 0.5}, Args{2.0, 0.2, 0.5}, Args{1.0, 0.3, -0.5},
                 Args{6.0, 0, 0}}) {
    Config cfg{{"negativeSlope", a.slope}, {"threshold", a.threshold}};
    if (a.maxValue >= 0) cfg.set("maxValue", a.maxValue);
    std::vector<double> want;
    for (float v : x) {
      // Keras backend.relu: the part above the threshold, clipped, minus the slope part.
      double pos = a.threshold != 0 ? (v > a.threshold ? v : 0.0) : std::max<double>(v, 0.0);
      if (a.maxValue >= 0) pos = std::min(std::max(pos, 0.0), a.maxValue);
      want.push_back(pos - a.slope * std::max(a.threshold - v, 0.0));
    }
    onEveryBackend([&] {
      expectNear(layers::reLU(cfg)->apply(tensor(x, {4, 6})).toFloats(), want);
    });
  }
}

TEST(LayersAct, EluAlphaLeakyAliasAndSoftmaxOnAnyAxis) {
  std::vector<float> x = wave(24, 0.9f, 2.0f);
  std::vector<double> elu, leaky;
  for (float v : x) {
    elu.push_back(v > 0 ? v : 0.4 * (std::exp(static_cast<double>(v)) - 1));
    leaky.push_back(v > 0 ? v : 0.15 * v);
  }
  // Softmax over axis 1 of [2, 3, 4]: TF.js's softmax op takes only the last axis.
  std::vector<double> soft(24);
  for (int b = 0; b < 2; ++b)
    for (int k = 0; k < 4; ++k) {
      double total = 0;
      for (int j = 0; j < 3; ++j) total += std::exp(static_cast<double>(x[b * 12 + j * 4 + k]));
      for (int j = 0; j < 3; ++j)
        soft[b * 12 + j * 4 + k] = std::exp(static_cast<double>(x[b * 12 + j * 4 + k])) / total;
    }
  onEveryBackend([&] {
    Tensor t = tensor(x, {2, 3, 4});
    expectNear(layers::elu({{"alpha", 0.4}})->apply(t).toFloats(), elu);
    expectNear(layers::leakyReLU({{"negative_slope", 0.15}})->apply(t).toFloats(), leaky);
    expectNear(layers::softmax({{"axis", 1}})->apply(t).toFloats(), soft);
    expectNear(layers::softmax({{"axis", {-2}}})->apply(t).toFloats(), soft);
  });
}

TEST(LayersAct, PReluAndThresholdedReluMatchLoops) {
  std::vector<float> x = wave(2 * 3 * 4, 0.2f);
  onEveryBackend([&] {
    LayerPtr p = layers::prelu({{"sharedAxes", {1}}, {"alphaInitializer", "randomUniform"}});
    Tensor y = p->apply(tensor(x, {2, 3, 4}));
    ASSERT_EQ(p->weights()[0].shape(), (Shape{1, 4}));
    std::vector<float> alpha = p->getWeights()[0].toFloats();
    std::vector<double> want;
    for (size_t i = 0; i < x.size(); ++i) want.push_back(x[i] > 0 ? x[i] : alpha[i % 4] * x[i]);
    expectNear(y.toFloats(), want);
    std::vector<double> th;
    for (float v : x) th.push_back(v > 0.4f ? v : 0.0);
    expectNear(layers::thresholdedReLU({{"theta", 0.4}})->apply(tensor(x, {2, 12})).toFloats(), th);
  });
}

TEST(LayersAct, SubtractIsKerasAMinusBWithBroadcasting) {
  std::vector<float> a = wave(12, 0.1f), b = wave(3, 1.3f);
  std::vector<double> want;
  for (size_t i = 0; i < a.size(); ++i) want.push_back(static_cast<double>(a[i]) - b[i / 4]);
  onEveryBackend([&] {
    expectNear(layers::subtract()->apply({tensor(a, {3, 4}), tensor(b, {3, 1})})[0].toFloats(),
               want);
  });
  expectError(
      [] {
        layers::subtract()->apply({ones({2, 3}), ones({2, 3}), ones({2, 3})});
      },
      {"Subtract", "exactly 2 inputs", "3"});
}

TEST(LayersAct, SubtractModelSavesAndLoads) {
  SymbolicTensorPtr a = input({{"shape", {3}}}), b = input({{"shape", {3}}});
  ModelPtr m =
      model({a, b},
            {layers::subtract({{"name", "diff"}})->apply(std::vector<SymbolicTensorPtr>{a, b})[0]});
  std::string dir = (std::filesystem::temp_directory_path() / "glint_act_subtract").string();
  io::save(*m, dir);
  ModelPtr back = io::load(dir);
  Tensor x = tensor(wave(6, 0.4f), {2, 3}), y = tensor(wave(6, 2.1f), {2, 3});
  EXPECT_EQ(back->predict({x, y})[0].toFloats(), m->predict({x, y})[0].toFloats());
  EXPECT_EQ(back->predict({x, y})[0].toFloats(), (x - y).toFloats());
  std::filesystem::remove_all(dir);
}

TEST(LayersAct, DotMatchesLoopsOnRank3Inputs) {
  // a [2, 3, 4], b [2, 5, 3], axes [1, 2]: out[n, i, j] = sum_k a[n, k, i] b[n, j, k].
  std::vector<float> a = wave(24, 0.5f), b = wave(30, 1.7f);
  std::vector<double> want(2 * 4 * 5), cosine(2 * 4 * 5);
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 5; ++j) {
        double s = 0, na = 0, nb = 0;
        for (int k = 0; k < 3; ++k) {
          double p = a[n * 12 + k * 4 + i], q = b[n * 15 + j * 3 + k];
          s += p * q;
          na += p * p;
          nb += q * q;
        }
        want[(n * 4 + i) * 5 + j] = s;
        cosine[(n * 4 + i) * 5 + j] =
            s / std::sqrt(std::max(na, 1e-7)) / std::sqrt(std::max(nb, 1e-7));
      }
  onEveryBackend([&] {
    std::vector<Tensor> xs{tensor(a, {2, 3, 4}), tensor(b, {2, 5, 3})};
    Tensor y = layers::dot({{"axes", {1, 2}}})->apply(xs)[0];
    EXPECT_EQ(y.shape(), (Shape{2, 4, 5}));
    expectNear(y.toFloats(), want, 1e-5);
    expectNear(layers::dot({{"axes", {-2, -1}}, {"normalize", true}})->apply(xs)[0].toFloats(),
               cosine, 1e-5);
  });
}

// ---- Noise: statistics in training, identity at inference -------------------

/// Sample mean and population variance.
std::pair<double, double> moments(const std::vector<float>& v) {
  double mean = 0, var = 0;
  for (float x : v) mean += x;
  mean /= static_cast<double>(v.size());
  for (float x : v) var += (x - mean) * (x - mean);
  return {mean, var / static_cast<double>(v.size())};
}

// Tolerances are 5 standard errors of the statistic for n samples: for a
// mean, 5 sigma / sqrt(n); for a normal variance, 5 sigma^2 sqrt(2 / n); for
// a fraction p, 5 sqrt(p (1 - p) / n).
constexpr double kSigmas = 5;

TEST(LayersAct, GaussianNoiseAndDropoutStatistics) {
  const Shape shape{200, 100};
  const double n = 20000;
  onEveryBackend([&] {
    Tensor x = fill(shape, 2.0f);
    LayerPtr noise = layers::gaussianNoise({{"stddev", 0.5}});
    EXPECT_EQ(noise->apply(x).toFloats(), x.toFloats());
    auto [m, v] = moments((noise->apply(x, true) - x).toFloats());
    EXPECT_NEAR(m, 0.0, kSigmas * 0.5 / std::sqrt(n));
    EXPECT_NEAR(v, 0.25, kSigmas * 0.25 * std::sqrt(2 / n));

    LayerPtr drop = layers::gaussianDropout({{"rate", 0.2}});  // multiplier N(1, rate / (1 - rate))
    EXPECT_EQ(drop->apply(x).toFloats(), x.toFloats());
    auto [dm, dv] = moments((drop->apply(x, true) / 2.0f).toFloats());
    EXPECT_NEAR(dm, 1.0, kSigmas * 0.5 / std::sqrt(n));
    EXPECT_NEAR(dv, 0.25, kSigmas * 0.25 * std::sqrt(2 / n));
  });
}

TEST(LayersAct, AlphaDropoutKeepsZeroMeanUnitVarianceAndDropsAtRate) {
  const double rate = 0.3, n = 40000;
  const double alphaP = -1.6732632423543772 * 1.0507009873554805;
  const double a = 1 / std::sqrt((1 - rate) * (1 + rate * alphaP * alphaP)), b = -a * alphaP * rate;
  onEveryBackend([&] {
    Tensor x = randomNormal({400, 100}, 0.0f, 1.0f, 5);
    LayerPtr layer = layers::alphaDropout({{"rate", rate}, {"seed", 11}});
    EXPECT_EQ(layer->apply(x).toFloats(), x.toFloats());
    std::vector<float> xs = x.toFloats(), y = layer->apply(x, true).toFloats();
    // Each output is either the kept input, a x + b, or the dropped value a alphaP + b.
    double dropped = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      bool isKept = std::abs(y[i] - (a * xs[i] + b)) < 1e-4;
      bool isDropped = std::abs(y[i] - (a * alphaP + b)) < 1e-4;
      ASSERT_TRUE(isKept || isDropped) << "element " << i << ": " << y[i];
      dropped += isDropped && !isKept;
    }
    EXPECT_NEAR(dropped / n, rate, kSigmas * std::sqrt(rate * (1 - rate) / n));
    auto [m, v] = moments(y);
    // Mean 0 and variance 1 for standard normal inputs (the point of AlphaDropout);
    // tolerances of a unit-variance sample, doubled for the sample of x itself.
    EXPECT_NEAR(m, 0.0, 2 * kSigmas / std::sqrt(n));
    EXPECT_NEAR(v, 1.0, 2 * kSigmas * std::sqrt(3 / n));
  });
}

TEST(LayersAct, SpatialDropout1DDropsWholeChannels) {
  const double rate = 0.4, n = 100 * 30;
  onEveryBackend([&] {
    Tensor x = ones({100, 20, 30});
    LayerPtr layer = layers::spatialDropout1d({{"rate", rate}});
    EXPECT_EQ(layer->apply(x).toFloats(), x.toFloats());
    std::vector<float> y = layer->apply(x, true).toFloats();
    double dropped = 0;
    for (int s = 0; s < 100; ++s)
      for (int c = 0; c < 30; ++c) {
        float first = y[(s * 20) * 30 + c];
        ASSERT_TRUE(first == 0.0f || std::abs(first - 1 / (1 - rate)) < 1e-5) << first;
        for (int t = 1; t < 20; ++t)
          ASSERT_EQ(y[(s * 20 + t) * 30 + c], first) << "sample " << s << " channel " << c;
        dropped += first == 0.0f;
      }
    EXPECT_NEAR(dropped / n, rate, kSigmas * std::sqrt(rate * (1 - rate) / n));
  });
}

TEST(LayersAct, SeededNoiseRepeatsAcrossLayersAndVariesAcrossCalls) {
  Tensor x = ones({8, 16});
  auto make = [] { return layers::gaussianNoise({{"stddev", 1.0}, {"seed", 3}}); };
  LayerPtr p = make(), q = make();
  std::vector<float> first = p->apply(x, true).toFloats();
  EXPECT_EQ(q->apply(x, true).toFloats(), first);
  EXPECT_NE(p->apply(x, true).toFloats(), first);
  LayerPtr d1 = layers::gaussianDropout({{"rate", 0.5}, {"seed", 9}}),
           d2 = layers::gaussianDropout({{"rate", 0.5}, {"seed", 9}});
  EXPECT_EQ(d1->apply(x, true).toFloats(), d2->apply(x, true).toFloats());
}

// ---- CategoryEncoding, CenterCrop, Rescaling, RepeatVector ---------------------

TEST(LayersAct, CategoryEncodingCountsAndRejectsOutOfRangeTokens) {
  std::vector<int32_t> ids{0, 2, 2, 1, 3, 3, 3, 0};
  onEveryBackend([&] {
    Tensor t = tensorInt(ids, {2, 4});
    EXPECT_EQ(
        layers::categoryEncoding({{"numTokens", 5}, {"outputMode", "count"}})->apply(t).toFloats(),
        (std::vector<float>{1, 1, 2, 0, 0, 1, 0, 0, 3, 0}));
    EXPECT_EQ(layers::categoryEncoding({{"numTokens", 4}})->apply(t).toFloats(),
              (std::vector<float>{1, 1, 1, 0, 1, 0, 0, 1}));
    EXPECT_EQ(layers::categoryEncoding({{"numTokens", 4}, {"outputMode", "one_hot"}})
                  ->apply(tensorInt({3, 0}, {2, 1}))
                  .toFloats(),
              (std::vector<float>{0, 0, 0, 1, 1, 0, 0, 0}));
    expectError(
        [&] {
          layers::categoryEncoding({{"numTokens", 3}, {"name", "enc"}})->apply(t);
        },
        {"CategoryEncoding 'enc'", "num_tokens", "3", "token 3"});
    expectError(
        [&] {
          layers::categoryEncoding({{"numTokens", 5}})->apply(tensorInt({1, -1}, {1, 2}));
        },
        {"CategoryEncoding", "token -1"});
  });
}

TEST(LayersAct, CenterCropRescalingRepeatVectorValues) {
  std::vector<float> img(2 * 5 * 6 * 1);
  for (size_t i = 0; i < img.size(); ++i) img[i] = static_cast<float>(i);
  onEveryBackend([&] {
    // 5x6 -> 2x3: rows from floor(3/2) = 1, columns from floor(3/2) = 1.
    Tensor y = layers::centerCrop({{"height", 2}, {"width", 3}})->apply(tensor(img, {2, 5, 6, 1}));
    EXPECT_EQ(y.shape(), (Shape{2, 2, 3, 1}));
    EXPECT_EQ(y.toFloats(), (std::vector<float>{7, 8, 9, 13, 14, 15, 37, 38, 39, 43, 44, 45}));
    EXPECT_EQ(layers::rescaling({{"scale", 0.5}, {"offset", -1}})
                  ->apply(tensorInt({0, 3, 8}, {1, 3}))
                  .toFloats(),
              (std::vector<float>{-1, 0.5f, 3}));
    Tensor r = layers::repeatVector({{"n", 2}})->apply(tensor({1, 2, 3, 4, 5, 6}, {2, 3}));
    EXPECT_EQ(r.shape(), (Shape{2, 2, 3}));
    EXPECT_EQ(r.toFloats(), (std::vector<float>{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
  });
}

// ---- Gradients on every backend ------------------------------------------

TEST(LayersAct, Gradients) {
  checkLayer({"relu_default", [] { return layers::reLU(); }, {{3, 5}}});
  checkLayer(
      {"relu_all_args",
       [] {
         return layers::reLU({{"maxValue", 0.6}, {"negativeSlope", 0.2}, {"threshold", 0.1}});
       },
       {{2, 7}}});
  checkLayer({"leaky_relu", [] { return layers::leakyReLU({{"alpha", 0.1}}); }, {{2, 3, 3}}});
  checkLayer({"prelu",
              [] {
                return layers::prelu({{"alphaInitializer", "randomUniform"}});
              },
              {{2, 5}}});
  checkLayer({"prelu_shared",
              [] {
                return layers::prelu({{"sharedAxes", {1, 2}}, {"alphaInitializer", "ones"}});
              },
              {{2, 3, 2, 3}}});
  checkLayer({"elu", [] { return layers::elu(); }, {{3, 4}}});
  checkLayer({"elu_alpha", [] { return layers::elu({{"alpha", 0.5}}); }, {{3, 4}}});
  checkLayer({"thresholded_relu",
              [] {
                return layers::thresholdedReLU({{"theta", 0.35}});
              },
              {{3, 4}}});
  checkLayer({"softmax_axis1", [] { return layers::softmax(); }, {{2, 3, 4}}});
  checkLayer({"softmax_axes", [] { return layers::softmax({{"axis", {1, 2}}}); }, {{2, 3, 2, 2}}});
  checkLayer({"repeat_vector", [] { return layers::repeatVector({{"n", 3}}); }, {{2, 4}}});
  checkLayer({"dot_vectors", [] { return layers::dot({{"axes", 1}}); }, {{3, 4}, {3, 4}}});
  checkLayer({"dot_normalize",
              [] {
                return layers::dot({{"axes", {2, 1}}, {"normalize", true}});
              },
              {{2, 3, 4}, {2, 4}}});
  checkLayer({"dot_matrices",
              [] {
                return layers::dot({{"axes", {1, 2}}});
              },
              {{2, 3, 4}, {2, 5, 3}}});
  checkLayer({"maximum", [] { return layers::maximum(); }, {{2, 3}, {2, 3}, {2, 3}}});
  checkLayer({"minimum_broadcast", [] { return layers::minimum(); }, {{2, 2, 3}, {2, 1, 3}}});
  checkLayer({"subtract", [] { return layers::subtract(); }, {{2, 3}, {2, 3}}});
  checkLayer({"rescaling",
              [] {
                return layers::rescaling({{"scale", 0.25}, {"offset", 1}});
              },
              {{2, 3}}});
  checkLayer({"center_crop",
              [] {
                return layers::centerCrop({{"height", 2}, {"width", 2}});
              },
              {{1, 4, 5, 2}}});
  checkLayer({"gaussian_noise_inference",
              [] {
                return layers::gaussianNoise({{"stddev", 0.3}});
              },
              {{2, 3}}});
  checkLayer({"alpha_dropout_inference",
              [] {
                return layers::alphaDropout({{"rate", 0.3}});
              },
              {{2, 3}}});
}

TEST(LayersAct, ModelWithPReluAndNoiseLayersTrains) {
  setSeed(5);
  Tensor x = randomUniform({64, 4}, -1.0f, 1.0f, 21);
  Tensor y = matMul(x, tensor({1.5f, -2.0f, 0.5f, 1.0f}, {4, 1}));
  auto m = sequential({layers::dense({{"units", 8}, {"inputShape", {4}}}), layers::prelu(),
                       layers::gaussianNoise({{"stddev", 0.02}, {"seed", 2}}),
                       layers::alphaDropout({{"rate", 0.05}, {"seed", 3}}),
                       layers::dense({{"units", 1}})});
  m->compile({.optimizer = std::shared_ptr<Optimizer>(adam(0.02f)), .loss = {"mse"}});
  std::vector<float> alphaBefore = m->getWeights()[2].toFloats();
  History h = m->fit(x, y, {.epochs = 60, .batchSize = 16, .seed = 1});
  EXPECT_LT(h.history.at("loss").back(), 0.1 * h.history.at("loss").front());
  EXPECT_NE(m->getWeights()[2].toFloats(), alphaBefore);          // PReLU's alpha learns
  EXPECT_EQ(m->predict(x).toFloats(), m->predict(x).toFloats());  // no noise at inference
}

TEST(LayersAct, KerasWrittenConfigsLoad) {
  // As Keras 2/3 write them: every key present, nulls for unset values,
  // Keras 3's negative_slope for LeakyReLU.
  Config topology =
      Config::parse(R"({"class_name": "Sequential", "config": {"name": "keras", "layers": [
    {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 6], "dtype": "float32", "name": "in"}},
    {"class_name": "ReLU", "config": {"name": "r", "trainable": true, "dtype": "float32",
                                      "max_value": 1.0, "negative_slope": 0.1, "threshold": -0.5}},
    {"class_name": "LeakyReLU", "config": {"name": "l", "trainable": true, "dtype": "float32", "negative_slope": 0.2}},
    {"class_name": "GaussianNoise", "config": {"name": "g", "trainable": true, "dtype": "float32", "stddev": 0.1, "seed": null}},
    {"class_name": "AlphaDropout", "config": {"name": "a", "trainable": true, "dtype": "float32", "rate": 0.1,
                                              "noise_shape": null, "seed": null}},
    {"class_name": "Softmax", "config": {"name": "s", "trainable": true, "dtype": "float32", "axis": -1}}]}})");
  ModelPtr m = modelFromConfig(topology);
  std::vector<float> x = wave(12, 0.8f, 2.0f);
  std::vector<double> want(12);
  for (int row = 0; row < 2; ++row) {
    double total = 0;
    for (int j = 0; j < 6; ++j) {
      double v = x[row * 6 + j];
      double r = std::min(std::max(v > -0.5 ? v : 0.0, 0.0), 1.0) - 0.1 * std::max(-0.5 - v, 0.0);
      want[row * 6 + j] = std::exp(r > 0 ? r : 0.2 * r);
      total += want[row * 6 + j];
    }
    for (int j = 0; j < 6; ++j) want[row * 6 + j] /= total;
  }
  expectNear(m->predict(tensor(x, {2, 6})).toFloats(), want);
}

// ---- Configs: TF.js 4.22's keys and defaults -------------------------------

TEST(LayersAct, ConfigsAreTheKerasFormTfjsWrites) {
  using V = std::vector<std::string>;
  Json relu = layers::reLU()->getConfig();
  EXPECT_EQ(keys(relu), (V{"max_value", "name", "trainable", "dtype"}));
  EXPECT_TRUE(relu["max_value"].is_null());
  Json relu2 = layers::reLU({{"negativeSlope", 0.1}, {"maxValue", 6}})->getConfig();
  EXPECT_EQ(relu2["negative_slope"], 0.1);
  EXPECT_EQ(relu2["max_value"], 6);
  EXPECT_EQ(layers::leakyReLU()->getConfig()["alpha"], 0.3);
  EXPECT_EQ(layers::elu()->getConfig()["alpha"], 1.0);
  EXPECT_EQ(layers::thresholdedReLU()->getConfig()["theta"], 1.0);
  EXPECT_EQ(layers::softmax()->getConfig()["axis"], 1);
  EXPECT_EQ(layers::softmax({{"axis", {1, 2}}})->getConfig()["axis"], Json::array({1, 2}));
  Json prelu = layers::prelu()->getConfig();
  EXPECT_EQ(keys(prelu), (V{"alpha_initializer", "alpha_regularizer", "alpha_constraint",
                            "shared_axes", "name", "trainable", "dtype"}));
  EXPECT_EQ(prelu["alpha_initializer"]["class_name"], "Zeros");
  EXPECT_EQ(layers::prelu({{"sharedAxes", 1}})->getConfig()["shared_axes"], Json::array({1}));
  EXPECT_EQ(layers::repeatVector({{"n", 4}})->getConfig()["n"], 4);
  EXPECT_EQ(keys(layers::gaussianNoise({{"stddev", 0.1}})->getConfig()),
            (V{"stddev", "name", "trainable", "dtype"}));
  EXPECT_EQ(keys(layers::alphaDropout({{"rate", 0.1}})->getConfig()),
            (V{"rate", "name", "trainable", "dtype"}));
  EXPECT_EQ(layers::gaussianDropout({{"rate", 0.1}, {"seed", 4}})->getConfig()["seed"], 4);
  Json resc = layers::rescaling({{"scale", 2}})->getConfig();
  EXPECT_EQ(keys(resc), (V{"scale", "offset", "name", "trainable", "dtype"}));
  EXPECT_EQ(resc["offset"], 0.0);
  Json enc = layers::categoryEncoding({{"numTokens", 4}})->getConfig();
  EXPECT_EQ(keys(enc), (V{"num_tokens", "output_mode", "name", "trainable", "dtype"}));
  EXPECT_EQ(enc["output_mode"], "multi_hot");
  Json dot = layers::dot({{"axes", {1, 2}}})->getConfig();
  EXPECT_EQ(keys(dot), (V{"axes", "normalize", "name", "trainable", "dtype"}));
  EXPECT_EQ(layers::dot({{"axes", -1}})->getConfig()["axes"], -1);

  Tensor x = tensor(wave(24, 0.6f), {2, 3, 4});
  expectRoundTrip(layers::reLU({{"maxValue", 1}, {"threshold", 0.2}}), {x});
  expectRoundTrip(layers::leakyReLU({{"negative_slope", 0.2}}), {x});
  expectRoundTrip(layers::prelu({{"sharedAxes", {2}}, {"alphaInitializer", "randomNormal"}}), {x});
  expectRoundTrip(layers::elu({{"alpha", 0.7}}), {x});
  expectRoundTrip(layers::thresholdedReLU({{"theta", 0.1}}), {x});
  expectRoundTrip(layers::softmax({{"axis", {-1, 1}}}), {x});
  expectRoundTrip(layers::maximum(), {x, x * 0.5f});
  expectRoundTrip(layers::subtract(), {x, x * 0.5f});
  expectRoundTrip(layers::dot({{"axes", {2, 2}}, {"normalize", true}}), {x, x});
  expectRoundTrip(layers::spatialDropout1d({{"rate", 0.2}, {"seed", 1}}), {x});
  expectRoundTrip(layers::alphaDropout({{"rate", 0.2}, {"noiseShape", {-1, 1, 4}}}), {x});
  expectRoundTrip(layers::rescaling({{"scale", 3}, {"offset", 0.5}}), {x});
  expectRoundTrip(layers::categoryEncoding({{"numTokens", 6}, {"outputMode", "count"}}),
                  {tensorInt({1, 5, 5, 0}, {2, 2})});
  expectRoundTrip(layers::centerCrop({{"height", 2}, {"width", 3}}), {reshape(x, {1, 2, 3, 4})});
}

// ---- Bad configs: a named error with the class, layer name and argument ------

TEST(LayersAct, ErrorsNameTheClassLayerAndArgument) {
  struct Bad {
    const char* cls;
    Config args;
    const char* key;
  };
  const std::vector<Bad> unknownKey = {
      {"ReLU", {{"maxvalue", 1}}, "maxvalue"},
      {"LeakyReLU", {{"slope", 1}}, "slope"},
      {"PReLU", {{"alpha", 1}}, "alpha"},
      {"ELU", {{"theta", 1}}, "theta"},
      {"ThresholdedReLU", {{"alpha", 1}}, "alpha"},
      {"Softmax", {{"axes", 1}}, "axes"},
      {"Dot", {{"axes", 1}, {"axis", 1}}, "axis"},
      {"Maximum", {{"axis", 1}}, "axis"},
      {"Minimum", {{"axis", 1}}, "axis"},
      {"Subtract", {{"axis", 1}}, "axis"},
      {"RepeatVector", {{"n", 2}, {"times", 2}}, "times"},
      {"AlphaDropout", {{"rate", 0.1}, {"p", 1}}, "p"},
      {"GaussianDropout", {{"rate", 0.1}, {"stddev", 1}}, "stddev"},
      {"GaussianNoise", {{"stddev", 0.1}, {"rate", 1}}, "rate"},
      {"SpatialDropout1D", {{"rate", 0.1}, {"axis", 1}}, "axis"},
      {"Rescaling", {{"scale", 1}, {"bias", 1}}, "bias"},
      {"CenterCrop", {{"height", 1}, {"width", 1}, {"depth", 1}}, "depth"},
      {"CategoryEncoding", {{"numTokens", 2}, {"mode", "count"}}, "mode"}};
  for (const Bad& b : unknownKey) {
    Config args = b.args;
    args.set("name", std::string("bad_") + b.cls);
    expectError([&] { layers::fromConfig(b.cls, args); },
                {std::string(b.cls) + " 'bad_" + b.cls + "'", std::string("'") + b.key + "'",
                 "not an argument"});
  }
  const std::vector<Bad> wrongType = {
      {"ReLU", {{"max_value", "six"}}, "max_value"},
      {"ReLU", {{"max_value", -1}}, "max_value"},
      {"ReLU", {{"negative_slope", -0.5}}, "negative_slope"},
      {"LeakyReLU", {{"alpha", "x"}}, "alpha"},
      {"LeakyReLU", {{"alpha", 0.1}, {"negative_slope", 0.1}}, "negative_slope"},
      {"PReLU", {{"shared_axes", "1"}}, "shared_axes"},
      {"PReLU", {{"shared_axes", {0}}}, "shared_axes"},
      {"PReLU", {{"alpha_initializer", "nope"}}, "alpha_initializer"},
      {"ELU", {{"alpha", true}}, "alpha"},
      {"ThresholdedReLU", {{"theta", "1"}}, "theta"},
      {"Softmax", {{"axis", 1.5}}, "axis"},
      {"Softmax", {{"axis", Json::array()}}, "axis"},
      {"Dot", {{"axes", "1"}}, "axes"},
      {"Dot", Config::object(), "axes"},
      {"Dot", {{"axes", {1, 2, 3}}}, "axes"},
      {"Dot", {{"axes", 1}, {"normalize", 1}}, "normalize"},
      {"RepeatVector", {{"n", 0}}, "n"},
      {"RepeatVector", Config::object(), "n"},
      {"AlphaDropout", {{"rate", 1.0}}, "rate"},
      {"GaussianDropout", {{"rate", "half"}}, "rate"},
      {"GaussianNoise", {{"stddev", -1}}, "stddev"},
      {"GaussianNoise", Config::object(), "stddev"},
      {"SpatialDropout1D", {{"rate", -0.1}}, "rate"},
      {"SpatialDropout1D", {{"rate", 0.1}, {"seed", "s"}}, "seed"},
      {"Rescaling", Config::object(), "scale"},
      {"Rescaling", {{"scale", {1, 2}}}, "scale"},
      {"CenterCrop", {{"height", 2}}, "width"},
      {"CenterCrop", {{"height", 0}, {"width", 2}}, "height"},
      {"CategoryEncoding", Config::object(), "num_tokens"},
      {"CategoryEncoding", {{"numTokens", 3}, {"outputMode", "tfIdf"}}, "output_mode"}};
  for (const Bad& b : wrongType) {
    Config args = b.args;
    args.set("name", std::string("bad_") + b.cls);
    expectError([&] { layers::fromConfig(b.cls, args); },
                {std::string(b.cls) + " 'bad_" + b.cls + "'", std::string("'") + b.key + "'"});
  }
}

TEST(LayersAct, ImpossibleShapesAreNamedErrors) {
  expectError(
      [] {
        layers::prelu({{"sharedAxes", {3}}, {"name", "p"}})->apply(ones({2, 3}));
      },
      {"PReLU 'p'", "shared_axes", "[-1,3]"});
  expectError(
      [] {
        layers::prelu()->apply(input({{"shape", {-1}}}));
      },
      {"PReLU", "known sizes", "[-1,-1]"});
  LayerPtr built = layers::prelu();
  built->apply(ones({2, 3}));
  expectError([&] { built->apply(ones({2, 4})); }, {"PReLU", "[3]", "[2,4]"});
  expectError(
      [] {
        layers::softmax({{"axis", 3}, {"name", "s"}})->apply(ones({2, 3}));
      },
      {"Softmax 's'", "'axis'", "3", "[-1,3]"});
  expectError(
      [] {
        layers::softmax({{"axis", {1, -1}}})->apply(ones({2, 3}));
      },
      {"Softmax", "twice"});
  expectError(
      [] {
        layers::repeatVector({{"n", 2}})->apply(ones({2, 3, 4}));
      },
      {"RepeatVector", "rank 2", "[-1,3,4]"});
  expectError(
      [] {
        layers::dot({{"axes", 1}, {"name", "d"}})->apply({ones({2, 3}), ones({2, 4})});
      },
      {"Dot 'd'", "axes", "3 != 4", "[-1,3]", "[-1,4]"});
  expectError(
      [] {
        layers::dot({{"axes", 0}})->apply({ones({2, 3}), ones({2, 3})});
      },
      {"Dot", "'axes'", "batch"});
  expectError(
      [] {
        layers::dot({{"axes", 1}})->apply({ones({2, 3, 1, 1}), ones({2, 3})});
      },
      {"Dot", "rank 2 or 3", "[-1,3,1,1]"});
  expectError(
      [] {
        layers::dot({{"axes", 1}})->apply({ones({2, 3}), ones({2, 3}), ones({2, 3})});
      },
      {"Dot", "exactly 2"});
  expectError(
      [] {
        layers::maximum()->apply({ones({2, 3}), ones({2, 4})});
      },
      {"Maximum", "[-1,3]", "[-1,4]"});
  expectError([] { layers::minimum()->apply(ones({2, 3})); }, {"Minimum", "at least 2"});
  expectError(
      [] {
        layers::spatialDropout1d({{"rate", 0.5}})->apply(ones({2, 3}));
      },
      {"SpatialDropout1D", "rank 3", "[-1,3]"});
  expectError(
      [] {
        layers::alphaDropout({{"rate", 0.5}, {"noiseShape", {2, 5}}})->apply(ones({2, 3}));
      },
      {"AlphaDropout", "noise_shape", "[2,5]", "[-1,3]"});
  expectError(
      [] {
        layers::centerCrop({{"height", 5}, {"width", 2}, {"name", "c"}})->apply(ones({1, 4, 4, 1}));
      },
      {"CenterCrop 'c'", "'height'", "[-1,4,4,1]"});
  expectError(
      [] {
        layers::centerCrop({{"height", 1}, {"width", 1}})->apply(ones({4, 4}));
      },
      {"CenterCrop", "rank 4", "[-1,4]"});
  expectError(
      [] {
        layers::categoryEncoding({{"numTokens", 3}, {"outputMode", "oneHot"}})
            ->apply(tensorInt({0, 1, 2, 0}, {2, 2}));
      },
      {"CategoryEncoding", "oneHot", "[-1,2]"});
  expectError(
      [] {
        layers::categoryEncoding({{"numTokens", 3}})->apply(tensorInt({0, 1}, {2}));
      },
      {"CategoryEncoding", "[batch, tokens]", "[-1]"});
  expectError(
      [] {
        layers::gaussianNoise({{"stddev", 1}})->apply(tensorInt({1, 2}, {1, 2}), true);
      },
      {"GaussianNoise", "float32", "int32"});
}

}  // namespace
}  // namespace glint::testing
