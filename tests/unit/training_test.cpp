// Training: compile / trainOnBatch / fit / evaluate / predict / fitDataset,
// callbacks, early stopping, cancellation, class weights, frozen layers,
// memory, and MNIST convergence.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "glint/data.h"
#include "glint/glint.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "glint/model.h"
#include "glint/optim.h"
#include "op_harness.h"

// Designated initializers leave the other options at their defaults on purpose.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace glint::testing {
namespace {

/// x ~ U(-1, 1) [n, 2]; y = 2 x0 - 3 x1 + 1 [n, 1].
std::pair<Tensor, Tensor> linearData(int64_t n, uint64_t seed) {
  Tensor x = randomUniform({n, 2}, -1, 1, seed);
  std::vector<float> xv = x.toFloats(), yv(n);
  for (int64_t i = 0; i < n; ++i) yv[i] = 2 * xv[2 * i] - 3 * xv[2 * i + 1] + 1;
  return {x, tensor(yv, {n, 1})};
}

SequentialPtr linearModel(const Json& extra = Json::object()) {
  Json args = {{"units", 1}, {"inputShape", {2}}};
  for (const auto& [k, v] : extra.items()) args[k] = v;
  return sequential({layers::dense(args)});
}

using testing::classData;

std::shared_ptr<Optimizer> sgdOpt(float lr) { return std::shared_ptr<Optimizer>(sgd(lr)); }

SequentialPtr classModel() {
  return sequential({layers::dense({{"units", 8}, {"activation", "relu"}, {"inputShape", {4}}}),
                     layers::dense({{"units", 3}, {"activation", "softmax"}})});
}

TEST(Training, TrainOnBatchIsOneHandComputedSgdStep) {
  const double W[2] = {0.5, -0.25}, B = 0.1, lr = 0.1, l2 = 0.01;
  const double X[3][2] = {{1, 2}, {3, -1}, {0.5, 0.5}}, Y[3] = {1, 0, 2};
  // Double-precision reference: mse + l2 * |W|^2 and its gradient.
  double loss = 0, mae = 0, gW[2] = {2 * l2 * W[0], 2 * l2 * W[1]}, gB = 0;
  for (int i = 0; i < 3; ++i) {
    double e = W[0] * X[i][0] + W[1] * X[i][1] + B - Y[i];
    loss += e * e / 3;
    mae += std::abs(e) / 3;
    gW[0] += 2 * e * X[i][0] / 3;
    gW[1] += 2 * e * X[i][1] / 3;
    gB += 2 * e / 3;
  }
  loss += l2 * (W[0] * W[0] + W[1] * W[1]);
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE(backend);
    BackendScope scope(backend);
    auto m = linearModel(
        {{"kernelRegularizer", {{"className", "L1L2"}, {"config", {{"l1", 0.0}, {"l2", l2}}}}}});
    m->setWeights({tensor({0.5f, -0.25f}, {2, 1}), tensor({0.1f}, {1})});
    m->compile({.optimizer = sgdOpt(static_cast<float>(lr)),
                .loss = {"meanSquaredError"},
                .metrics = {"mae"}});
    EXPECT_EQ(m->metricsNames(), (std::vector<std::string>{"loss", "mae"}));
    Logs logs =
        m->trainOnBatch({tensor({1, 2, 3, -1, 0.5f, 0.5f}, {3, 2})}, {tensor({1, 0, 2}, {3, 1})});
    EXPECT_NEAR(logs.at("loss"), loss, 1e-5);
    EXPECT_NEAR(logs.at("mae"), mae - 0, 1e-5);
    std::vector<Tensor> w = m->getWeights();
    std::vector<float> k = w[0].toFloats(), b = w[1].toFloats();
    EXPECT_NEAR(k[0], W[0] - lr * gW[0], 1e-5);
    EXPECT_NEAR(k[1], W[1] - lr * gW[1], 1e-5);
    EXPECT_NEAR(b[0], B - lr * gB, 1e-5);
  }
}

TEST(Training, TrainOnBatchWithSampleWeightsIsAHandComputedSgdStep) {
  const double W[2] = {0.5, -0.25}, B = 0.1, lr = 0.1;
  const double X[3][2] = {{1, 2}, {3, -1}, {0.5, 0.5}}, Y[3] = {1, 0, 2}, S[3] = {2, 0, 0.5};
  // Double precision: mean of s_i * e_i^2 and its gradient.
  double loss = 0, gW[2] = {0, 0}, gB = 0;
  for (int i = 0; i < 3; ++i) {
    double e = W[0] * X[i][0] + W[1] * X[i][1] + B - Y[i];
    loss += S[i] * e * e / 3;
    gW[0] += S[i] * 2 * e * X[i][0] / 3;
    gW[1] += S[i] * 2 * e * X[i][1] / 3;
    gB += S[i] * 2 * e / 3;
  }
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE(backend);
    BackendScope scope(backend);
    auto m = linearModel();
    m->setWeights({tensor({0.5f, -0.25f}, {2, 1}), tensor({0.1f}, {1})});
    m->compile({.optimizer = sgdOpt(static_cast<float>(lr)), .loss = {"meanSquaredError"}});
    Tensor x = tensor({1, 2, 3, -1, 0.5f, 0.5f}, {3, 2}), y = tensor({1, 0, 2}, {3, 1});
    Logs logs = m->trainOnBatch({x}, {y}, tensor({2, 0, 0.5f}, {3}));
    EXPECT_NEAR(logs.at("loss"), loss, 1e-5);
    std::vector<float> k = m->getWeights()[0].toFloats(), b = m->getWeights()[1].toFloats();
    EXPECT_NEAR(k[0], W[0] - lr * gW[0], 1e-5);
    EXPECT_NEAR(k[1], W[1] - lr * gW[1], 1e-5);
    EXPECT_NEAR(b[0], B - lr * gB, 1e-5);
    expectError(
        [&] {
          m->trainOnBatch({x}, {y}, tensor({1, 1}, {2}));
        },
        {"trainOnBatch", "sampleWeights", "[3]", "[2]"});
  }
}

TEST(Training, FitSolvesALinearProblemOnEveryBackend) {
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE(backend);
    BackendScope scope(backend);
    setSeed(42);
    auto [xInit, yInit] = linearData(64, 1);
    Tensor x = xInit, y = yInit;
    auto m = linearModel();
    m->compile({.optimizer = sgdOpt(0.2f), .loss = {"mse"}});
    History h = m->fit(x, y, {.epochs = 30, .batchSize = 16, .seed = 3});
    ASSERT_EQ(h.history.at("loss").size(), 30u);
    EXPECT_LT(h.history.at("loss").back(), 1e-3);
    EXPECT_LT(h.history.at("loss").back(), 0.01 * h.history.at("loss").front());
    std::vector<float> k = m->getWeights()[0].toFloats();
    EXPECT_NEAR(k[0], 2, 0.05);
    EXPECT_NEAR(k[1], -3, 0.05);
    EXPECT_LT(m->evaluate(x, y).at("loss"), 1e-3);
  }
}

TEST(Training, CallbacksRunInOrderWithKerasLogs) {
  setSeed(1);
  auto [xInit, yInit] = classData(10, 2);
  Tensor x = xInit, y = yInit;
  auto m = classModel();
  m->compile(
      {.optimizer = "adam", .loss = {"categoricalCrossentropy"}, .metrics = {"accuracy", "mse"}});
  std::vector<std::string> events;
  std::vector<Logs> batchLogs;
  std::vector<Logs> epochLogs;
  Model* seen = nullptr;
  auto cb = lambdaCallback({
      .onTrainBegin = [&](const Logs&) { events.push_back("trainBegin"); },
      .onTrainEnd = [&](const Logs&) { events.push_back("trainEnd"); },
      .onEpochBegin = [&](int e,
                          const Logs&) { events.push_back("epochBegin" + std::to_string(e)); },
      .onEpochEnd =
          [&](int e, const Logs& l) {
            events.push_back("epochEnd" + std::to_string(e));
            epochLogs.push_back(l);
          },
      .onBatchBegin =
          [&](int b, const Logs& l) {
            events.push_back("batchBegin" + std::to_string(b));
            EXPECT_EQ(l.at("batch"), b);
          },
      .onBatchEnd =
          [&](int b, const Logs& l) {
            events.push_back("batchEnd" + std::to_string(b));
            batchLogs.push_back(l);
          },
  });
  struct ModelProbe : Callback {
    Model** out;
    explicit ModelProbe(Model** o) : out(o) {}
    void onTrainBegin(const Logs&) override { *out = model; }
  };
  History h = m->fit(x, y,
                     {.epochs = 2,
                      .batchSize = 4,
                      .shuffle = false,
                      .callbacks = {cb, std::make_shared<ModelProbe>(&seen)}});
  EXPECT_EQ(seen, m.get());
  std::vector<std::string> expected = {"trainBegin"};
  for (int e = 0; e < 2; ++e) {
    expected.push_back("epochBegin" + std::to_string(e));
    for (int b = 0; b < 3; ++b) {
      expected.push_back("batchBegin" + std::to_string(b));
      expected.push_back("batchEnd" + std::to_string(b));
    }
    expected.push_back("epochEnd" + std::to_string(e));
  }
  expected.push_back("trainEnd");
  EXPECT_EQ(events, expected);
  ASSERT_EQ(batchLogs.size(), 6u);
  std::vector<std::string> keys;
  for (const auto& [k, v] : batchLogs[0]) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"acc", "batch", "loss", "mse", "size"}));
  EXPECT_EQ(batchLogs[2].at("size"), 2);  // 10 = 4 + 4 + 2
  // Epoch values are the batch values averaged by batch size.
  for (const char* k : {"loss", "acc", "mse"}) {
    double avg = (4 * batchLogs[0].at(k) + 4 * batchLogs[1].at(k) + 2 * batchLogs[2].at(k)) / 10;
    EXPECT_NEAR(epochLogs[0].at(k), avg, 1e-9) << k;
    EXPECT_EQ(h.history.at(k)[1], epochLogs[1].at(k));
  }
  EXPECT_EQ(epochLogs[0].size(), 3u);
  EXPECT_EQ(h.epoch, (std::vector<int>{0, 1}));
  // Accuracy is a fraction of the batch.
  for (const Logs& l : batchLogs) {
    double correct = l.at("acc") * l.at("size");
    EXPECT_NEAR(correct, std::round(correct), 1e-5);
  }

  // initialEpoch numbers the epochs on.
  h = m->fit(x, y, {.epochs = 4, .batchSize = 10, .initialEpoch = 2});
  EXPECT_EQ(h.epoch, (std::vector<int>{2, 3}));
}

TEST(Training, ValidationSplitHoldsOutTheLastSamples) {
  setSeed(5);
  auto [xInit, yInit] = classData(10, 6);
  Tensor x = xInit, y = yInit;
  auto m = classModel();
  m->compile({.optimizer = "sgd", .loss = {"categoricalCrossentropy"}, .metrics = {"acc"}});
  int64_t trained = 0;
  auto count = lambdaCallback(
      {.onBatchEnd = [&](int, const Logs& l) { trained += static_cast<int64_t>(l.at("size")); }});
  History h =
      m->fit(x, y, {.epochs = 1, .batchSize = 4, .validationSplit = 0.3f, .callbacks = {count}});
  EXPECT_EQ(trained, 7);  // floor(10 * 0.7)
  Tensor lastX = slice(x, {7, 0}, {3, -1}), lastY = slice(y, {7, 0}, {3, -1});
  Logs val = m->evaluate(lastX, lastY, 3);
  EXPECT_NEAR(h.history.at("val_loss")[0], val.at("loss"), 1e-6);
  EXPECT_NEAR(h.history.at("val_acc")[0], val.at("acc"), 1e-6);
  // evaluate weights its batches by size: 2 + 1 rows give the same means.
  Logs val2 = m->evaluate(lastX, lastY, 2);
  EXPECT_NEAR(val2.at("loss"), val.at("loss"), 1e-6);

  auto [vxInit, vyInit] = classData(5, 7);

  Tensor vx = vxInit, vy = vyInit;
  h = m->fit(x, y, {.epochs = 1, .validationX = {vx}, .validationY = {vy}});
  EXPECT_NEAR(h.history.at("val_loss")[0], m->evaluate(vx, vy).at("loss"), 1e-6);
  expectError(
      [&] { m->fit(x, y, {.validationSplit = 0.5f, .validationX = {vx}, .validationY = {vy}}); },
      {"not both"});
  expectError([&] { m->fit(x, y, {.validationSplit = 0.95f}); },
              {"validationSplit", "leaves 0 for training and 10 for validation"});
  expectError(
      [&] {
        m->fit(x, y, {.validationX = {vx}, .validationY = {slice(vy, {0, 0}, {4, -1})}});
      },
      {"validationY has 4 samples but validationX has 5"});
}

TEST(Training, HistoryReadsKerasAndTfjsNames) {
  setSeed(8);
  auto [x, y] = classData(20, 9);
  auto m = classModel();
  m->compile(
      {.optimizer = "adam", .loss = {"categoricalCrossentropy"}, .metrics = {"accuracy", "mse"}});
  History h = m->fit(x, y, {.epochs = 2, .batchSize = 8, .validationSplit = 0.25f});
  // TF.js's names are the keys; Keras's read the same series.
  std::vector<std::string> keys;
  for (const auto& [k, v] : h.history) keys.push_back(k);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"acc", "loss", "mse", "val_acc", "val_loss", "val_mse"}));
  for (const auto& [keras, tfjs] :
       std::vector<std::pair<std::string, std::string>>{{"accuracy", "acc"},
                                                        {"val_accuracy", "val_acc"},
                                                        {"mean_squared_error", "mse"},
                                                        {"val_meanSquaredError", "val_mse"},
                                                        {"loss", "loss"},
                                                        {"val_loss", "val_loss"}}) {
    ASSERT_EQ(h.get(keras).size(), 2u) << keras;
    EXPECT_EQ(h.get(keras), h.history.at(tfjs)) << keras;
    EXPECT_EQ(h.history[keras], h.history.at(tfjs)) << keras;
    EXPECT_EQ(h.get(tfjs), h.history.at(tfjs)) << tfjs;
  }
  EXPECT_GE(h.get("val_accuracy").back(), 0.0);
  // An unknown name throws listing the known ones, and adds nothing.
  expectError(
      [&] { h.get("val_precision"); },
      {"[History]", "'val_precision'", "known: acc, loss, mse, val_acc, val_loss, val_mse"});
  expectError([&] { (void)h.history["accuracy_top"]; }, {"[History]", "'accuracy_top'"});
  EXPECT_EQ(h.history.size(), 6u);
  // Without validation data the val_ series do not exist: the message says why.
  h = m->fit(x, y, {.epochs = 1, .batchSize = 8});
  expectError([&] { h.get("val_accuracy"); }, {"known: acc, loss, mse", "validationSplit"});
  EXPECT_EQ(h.get("accuracy").size(), 1u);
}

TEST(Training, EarlyStoppingStopsAndRestoresTheBestWeights) {
  setSeed(3);
  auto [xInit, yInit] = linearData(16, 4);
  Tensor x = xInit, y = yInit;
  {
    // A learning rate too small to matter: no improvement beyond minDelta.
    auto m = linearModel();
    m->compile({.optimizer = sgdOpt(1e-12f), .loss = {"mse"}});
    History h = m->fit(
        x, y,
        {.epochs = 10,
         .shuffle = false,
         .callbacks = {earlyStopping({.monitor = "loss", .minDelta = 1e-3, .patience = 2})}});
    EXPECT_EQ(h.epoch, (std::vector<int>{0, 1, 2}));
  }
  {
    // A learning rate that diverges: epoch 0 is the best.
    auto m = linearModel();
    m->compile({.optimizer = sgdOpt(5.0f), .loss = {"mse"}});
    std::vector<std::vector<float>> kernels;
    auto record = lambdaCallback({.onEpochEnd = [&](int, const Logs&) {
      kernels.push_back(m->getWeights()[0].toFloats());
    }});
    auto stop = earlyStopping({.monitor = "loss", .patience = 1, .restoreBestWeights = true});
    History h = m->fit(
        x, y, {.epochs = 10, .batchSize = 16, .shuffle = false, .callbacks = {record, stop}});
    ASSERT_EQ(h.epoch, (std::vector<int>{0, 1}));
    EXPECT_GT(h.history.at("loss")[1], h.history.at("loss")[0]);
    EXPECT_NE(m->getWeights()[0].toFloats(), kernels[1]);
    EXPECT_EQ(m->getWeights()[0].toFloats(), kernels[0]);
  }
  {
    // TF.js's baseline: improvement counts from it, so a loss that cannot
    // beat -1 waits from the first epoch.
    auto m = linearModel();
    m->compile({.optimizer = sgdOpt(0.1f), .loss = {"mse"}});
    auto stop = earlyStopping({.monitor = "loss", .patience = 2, .baseline = -1.0});
    History h = m->fit(x, y, {.epochs = 10, .shuffle = false, .callbacks = {stop}});
    EXPECT_EQ(h.epoch, (std::vector<int>{0, 1}));
    EXPECT_EQ(stop->stoppedEpoch(), 1);
    EXPECT_EQ(stop->best(), -1.0);
  }
  auto m = linearModel();
  m->compile({.optimizer = "sgd", .loss = {"mse"}});
  expectError([&] { m->fit(x, y, {.callbacks = {earlyStopping()}}); },
              {"earlyStopping", "'val_loss'", "give validation data"});
  // As TF.js: a warning, and training goes on.
  History all = m->fit(x, y, {.epochs = 3, .callbacks = {earlyStopping({.warnIfMissing = true})}});
  EXPECT_EQ(all.epoch.size(), 3u);
  expectError([&] { earlyStopping({.mode = "upward"}); }, {"mode must be auto, min or max"});
}

TEST(Training, DivergenceStopsWithTheLastFiniteWeights) {
  // Issue 31: a learning rate that blows up used to train on to an all-NaN
  // model (and `glint train --out` saved it). fit must stop at the first
  // non-finite loss and put back the weights of the last finite step.
  setSeed(5);
  auto [xInit, yInit] = linearData(16, 6);
  Tensor x = xInit, y = yInit;
  auto m = sequential({layers::dense({{"units", 8}, {"activation", "relu"}, {"inputShape", {2}}}),
                       layers::dense({{"units", 1}})});
  m->compile({.optimizer = sgdOpt(1e10f), .loss = {"mse"}});
  std::vector<std::vector<std::vector<float>>> before;  // weights at each batch's start
  auto record = lambdaCallback({.onBatchBegin = [&](int, const Logs&) {
    std::vector<std::vector<float>> ws;
    for (const Tensor& w : m->getWeights()) ws.push_back(w.toFloats());
    before.push_back(ws);
  }});
  expectError([&] { m->fit(x, y, {.epochs = 200, .batchSize = 4, .callbacks = {record}}); },
              {"Sequential.fit", "training diverged at epoch", "batch", "loss is",
               "the weights are those of the last finite step"});
  ASSERT_GE(before.size(), 2u);
  std::vector<std::vector<float>> now;
  for (const Tensor& w : m->getWeights()) now.push_back(w.toFloats());
  for (const auto& w : now)
    for (float v : w) ASSERT_TRUE(std::isfinite(v));
  // The diverging step started from before.back(); the step before it, whose
  // loss was finite, started from before[size - 2].
  EXPECT_EQ(now, before[before.size() - 2]);
  // The model still predicts finite values.
  for (float v : m->predict(x).toFloats()) EXPECT_TRUE(std::isfinite(v));
}

TEST(Training, CancellationFromACallback) {
  auto [xInit, yInit] = linearData(20, 8);
  Tensor x = xInit, y = yInit;
  auto m = linearModel();
  m->compile({.optimizer = "sgd", .loss = {"mse"}});
  int batches = 0, epochEnds = 0;
  bool ended = false;
  auto cancel = lambdaCallback({
      .onTrainEnd = [&](const Logs&) { ended = true; },
      .onEpochEnd = [&](int, const Logs&) { ++epochEnds; },
      .onBatchEnd =
          [&](int b, const Logs&) {
            ++batches;
            if (b == 1) m->stopTraining = true;
          },
  });
  History h = m->fit(x, y, {.epochs = 5, .batchSize = 4, .callbacks = {cancel}});
  EXPECT_EQ(batches, 2);
  EXPECT_EQ(epochEnds, 1);
  EXPECT_TRUE(ended);
  EXPECT_EQ(h.epoch, (std::vector<int>{0}));
  // From onEpochEnd: the next fit starts afresh and stops after epoch 1.
  auto atEpoch = lambdaCallback({.onEpochEnd = [&](int e, const Logs&) {
    if (e == 1) m->stopTraining = true;
  }});
  h = m->fit(x, y, {.epochs = 5, .batchSize = 4, .callbacks = {atEpoch}});
  EXPECT_EQ(h.epoch, (std::vector<int>{0, 1}));
}

TEST(Training, ClassWeightsWeighTheLoss) {
  const std::vector<float> xs = {1, -1, 0.5f, 2, -0.5f, 0};
  const std::vector<float> ys = {1, 0, 1, 1, 0, 0};
  const std::map<int, float> cw = {{0, 1.0f}, {1, 4.0f}};
  auto m =
      sequential({layers::dense({{"units", 1}, {"inputShape", {1}}, {"activation", "sigmoid"}})});
  m->setWeights({tensor({0.7f}, {1, 1}), tensor({-0.2f}, {1})});
  m->compile({.optimizer = sgdOpt(1e-20f), .loss = {"binaryCrossentropy"}});
  double weighted = 0, plain = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    double p = 1 / (1 + std::exp(-(0.7 * xs[i] - 0.2)));
    double l = -(ys[i] * std::log(p) + (1 - ys[i]) * std::log(1 - p));
    weighted += cw.at(static_cast<int>(ys[i])) * l / 6;
    plain += l / 6;
  }
  Tensor x = tensor(xs, {6, 1}), y = tensor(ys, {6, 1});
  History h = m->fit(x, y, {.batchSize = 6, .shuffle = false, .classWeight = cw});
  EXPECT_NEAR(h.history.at("loss")[0], weighted, 1e-5);
  h = m->fit(x, y, {.batchSize = 6, .shuffle = false});
  EXPECT_NEAR(h.history.at("loss")[0], plain, 1e-5);
  expectError(
      [&] {
        m->fit(x, y, {.classWeight = {{0, 1.0f}}});
      },
      {"classWeight has no entry for class 1"});

  // The effect: weighting the rare class raises its predicted probability.
  auto [featuresInit, labelsInit] = linearData(200, 9);
  Tensor features = featuresInit, labels = labelsInit;
  std::vector<float> f = features.toFloats(), rare(200);
  for (int i = 0; i < 200; ++i) rare[i] = f[2 * i] > 0.6f ? 1.0f : 0.0f;  // ~20% positives
  Tensor target = tensor(rare, {200, 1});
  auto train = [&](std::map<int, float> weights) {
    setSeed(11);
    auto c =
        sequential({layers::dense({{"units", 1}, {"inputShape", {2}}, {"activation", "sigmoid"}})});
    c->compile(
        {.optimizer = std::shared_ptr<Optimizer>(adam(0.05f)), .loss = {"binaryCrossentropy"}});
    c->fit(features, target, {.epochs = 5, .batchSize = 20, .classWeight = weights, .seed = 1});
    return mean(c->predict(features)).item();
  };
  const double upweighted = train({{0, 1.0f}, {1, 10.0f}}), unweighted = train({});
  EXPECT_GT(upweighted, unweighted + 0.1);
}

TEST(Training, FrozenLayersKeepTheirWeights) {
  setSeed(2);
  auto [xInit, yInit] = linearData(32, 10);
  Tensor x = xInit, y = yInit;
  auto base = layers::dense({{"units", 4}, {"activation", "tanh"}, {"inputShape", {2}}});
  auto head = layers::dense({{"units", 1}});
  auto m = sequential({base, head});
  base->setTrainable(false);
  EXPECT_EQ(m->trainableWeights().size(), 2u);
  EXPECT_EQ(m->nonTrainableWeights().size(), 2u);
  m->compile({.optimizer = "adam", .loss = {"mse"}});
  std::vector<float> baseBefore = base->getWeights()[0].toFloats();
  std::vector<float> headBefore = head->getWeights()[0].toFloats();
  History h = m->fit(x, y, {.epochs = 5, .batchSize = 8});
  EXPECT_EQ(base->getWeights()[0].toFloats(), baseBefore);
  EXPECT_NE(head->getWeights()[0].toFloats(), headBefore);
  EXPECT_LT(h.history.at("loss").back(), h.history.at("loss").front());
  // A fully frozen model reports its loss and changes nothing.
  m->setTrainable(false);
  std::vector<float> headNow = head->getWeights()[0].toFloats();
  Logs logs = m->trainOnBatch({x}, {y});
  EXPECT_GT(logs.at("loss"), 0);
  EXPECT_EQ(head->getWeights()[0].toFloats(), headNow);
}

/// Records the training flag each call receives.
class ProbeLayer : public Layer {
 public:
  explicit ProbeLayer(std::vector<bool>* seen) : Layer(Json::object(), "probe"), seen_(seen) {}
  std::string className() const override { return "Probe"; }
  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override { return in; }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    seen_->push_back(args.training);
    return in;
  }

 private:
  std::vector<bool>* seen_;
};

TEST(Training, TrainingFlagReachesLayers) {
  std::vector<bool> seen;
  auto m = linearModel();
  m->add(std::make_shared<ProbeLayer>(&seen));
  m->compile({.optimizer = "sgd", .loss = {"mse"}});
  auto [xInit, yInit] = linearData(4, 12);
  Tensor x = xInit, y = yInit;
  m->fit(x, y, {.batchSize = 4});
  EXPECT_EQ(seen, (std::vector<bool>{true}));
  m->predict(x);
  m->evaluate(x, y);
  EXPECT_EQ(seen, (std::vector<bool>{true, false, false}));
}

TEST(Training, MemoryStaysFlat) {
  setSeed(4);
  auto [xInit, yInit] = classData(64, 13);
  Tensor x = xInit, y = yInit;
  auto m = sequential({layers::dense({{"units", 16}, {"activation", "relu"}, {"inputShape", {4}}}),
                       layers::dropout({{"rate", 0.2}}),
                       layers::dense({{"units", 3},
                                      {"activation", "softmax"},
                                      {"kernelRegularizer",
                                       {{"className", "L1L2"}, {"config", {{"l2", 0.001}}}}}})});
  m->compile({.optimizer = "adam", .loss = {"categoricalCrossentropy"}, .metrics = {"accuracy"}});
  Tensor bx = slice(x, {0, 0}, {8, -1}), by = slice(y, {0, 0}, {8, -1});
  auto everything = [&] {
    m->trainOnBatch({bx}, {by});
    m->fit(x, y, {.epochs = 1, .batchSize = 16, .validationSplit = 0.25f});
    m->evaluate(x, y, 10);
    m->predict(x, 10);
  };
  everything();  // creates the optimizer's slots
  const int64_t before = memory().numTensors;
  for (int i = 0; i < 200; ++i) m->trainOnBatch({bx}, {by});
  EXPECT_EQ(memory().numTensors, before);
  everything();
  EXPECT_EQ(memory().numTensors, before);
}

TEST(Training, FitDataset) {
  setSeed(6);
  auto [xInit, yInit] = linearData(48, 14);
  Tensor x = xInit, y = yInit;
  auto [vxInit, vyInit] = linearData(16, 15);
  Tensor vx = vxInit, vy = vyInit;
  auto m = linearModel();
  m->compile({.optimizer = sgdOpt(0.2f), .loss = {"mse"}, .metrics = {"mae"}});
  data::Dataset train = data::fromTensors({x, y}).shuffle(48, 1).batch(8);
  data::Dataset val = data::fromTensors({vx, vy}).batch(5);
  int batches = 0;
  auto count = lambdaCallback({.onBatchEnd = [&](int, const Logs&) { ++batches; }});
  History h = m->fitDataset(train, {.epochs = 15, .validationData = &val, .callbacks = {count}});
  EXPECT_EQ(batches, 15 * 6);
  EXPECT_LT(h.history.at("loss").back(), 0.05 * h.history.at("loss").front());
  Logs direct = m->evaluate(vx, vy, 16);
  EXPECT_NEAR(h.history.at("val_loss").back(), direct.at("loss"), 1e-5);
  EXPECT_NEAR(h.history.at("val_mae").back(), direct.at("mae"), 1e-5);

  // batchesPerEpoch over an endless dataset.
  batches = 0;
  h = m->fitDataset(data::fromTensors({x, y}).repeat().batch(8),
                    {.epochs = 3, .batchesPerEpoch = 4, .callbacks = {count}});
  EXPECT_EQ(batches, 12);
  EXPECT_EQ(h.epoch.size(), 3u);
  expectError(
      [&] {
        m->fitDataset(data::fromTensors({x, y}).repeat().batch(8));
      },
      {"batchesPerEpoch"});
  expectError([&] { m->fitDataset(data::fromTensors({x}).batch(8)); },
              {"element has 1 tensor(s)", "needs 2"});
}

TEST(Training, ConfigurationErrors) {
  auto [xInit, yInit] = linearData(8, 16);
  Tensor x = xInit, y = yInit;
  auto m = linearModel();
  expectError([&] { m->fit(x, y); }, {"Sequential.fit", "not compiled", "compile()"});
  expectError([&] { m->trainOnBatch({x}, {y}); }, {"not compiled"});
  expectError([&] { m->compile({.optimizer = "adamx", .loss = {"mse"}}); },
              {"unknown optimizer 'adamx'"});
  expectError([&] { m->compile({.optimizer = "sgd", .loss = {"meanSquaredErr"}}); },
              {"unknown loss 'meanSquaredErr'"});
  expectError([&] { m->compile({.optimizer = "sgd", .loss = {"mse"}, .metrics = {"accurasy"}}); },
              {"unknown metric 'accurasy'"});
  expectError([&] { m->compile({.optimizer = "sgd"}); }, {"needs a loss"});
  expectError(
      [&] {
        m->compile({.optimizer = "sgd", .loss = {"mse", "mae"}});
      },
      {"2 losses for 1 outputs"});
  m->compile({.optimizer = "sgd", .loss = {"mse"}});
  expectError(
      [&] {
        m->fit(x, slice(y, {0, 0}, {6, -1}));
      },
      {"Sequential.fit", "y has 6 samples but x has 8"});
  expectError([&] { m->fit({x, x}, {y}); }, {"1 input(s)", "got 2 x tensor(s)"});
  expectError([&] { m->fit({x}, {y, y}); }, {"1 output(s)", "got 2 y tensor(s)"});
  expectError([&] { m->fit(ones({8, 3}), y); }, {"x has shape [8,3]", "expects [-1,2]"});
  expectError([&] { m->fit(x, y, {.batchSize = 0}); }, {"batchSize must be >= 1"});
  expectError([&] { m->evaluate(x, y, 0); }, {"batchSize must be >= 1"});
  expectError([&] { m->predict(ones({2, 3})); }, {"Sequential.predict", "expects [-1,2]"});

  // Two outputs: per-output losses and metric names as TF.js logs them.
  auto in = input({{"shape", {2}}});
  auto o1 = layers::dense({{"units", 1}, {"name", "first_out"}})->apply(in);
  auto o2 =
      layers::dense({{"units", 2}, {"name", "second_out"}, {"activation", "softmax"}})->apply(in);
  auto two = model({in}, {o1, o2});
  two->compile(
      {.optimizer = "sgd", .loss = {"mse", "categoricalCrossentropy"}, .metrics = {"accuracy"}});
  EXPECT_EQ(two->metricsNames(),
            (std::vector<std::string>{"loss", "first_out_loss", "second_out_loss", "first_out_acc",
                                      "second_out_acc"}));
  Tensor y2 = tensor({1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1}, {8, 2});
  Logs logs = two->evaluate({x}, {y, y2});
  EXPECT_NEAR(logs.at("loss"), logs.at("first_out_loss") + logs.at("second_out_loss"), 1e-5);
  History h = two->fit({x}, {y, y2}, {.epochs = 1});
  EXPECT_EQ(h.history.size(), 5u);
  expectError(
      [&] {
        two->fit({x}, {y, y2}, {.classWeight = {{0, 1.0f}}});
      },
      {"classWeight needs a model with one output"});
}

TEST(Training, VerboseProgressOnStderr) {
  auto [xInit, yInit] = linearData(40, 17);
  Tensor x = xInit, y = yInit;
  auto m = linearModel();
  m->compile({.optimizer = "sgd", .loss = {"mse"}, .metrics = {"mae"}});
  ::testing::internal::CaptureStderr();
  m->fit(x, y, {.epochs = 2, .batchSize = 8, .validationSplit = 0.2f, .verbose = 2});
  std::string two = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(two.find("Epoch 1/2 - "), std::string::npos) << two;
  EXPECT_NE(two.find("Epoch 2/2 - "), std::string::npos) << two;
  EXPECT_NE(two.find("samples/s - loss: "), std::string::npos) << two;
  EXPECT_NE(two.find(" - mae: "), std::string::npos) << two;
  EXPECT_NE(two.find(" - val_loss: "), std::string::npos) << two;
  EXPECT_EQ(std::count(two.begin(), two.end(), '\n'), 2);
  ::testing::internal::CaptureStderr();
  m->fit(x, y, {.epochs = 1, .batchSize = 8, .verbose = 1});
  std::string one = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(one.find("Epoch 1/1\n"), std::string::npos) << one;
  EXPECT_NE(one.find("5/5 [==============================]"), std::string::npos) << one;
  EXPECT_NE(one.find("/step"), std::string::npos) << one;
}

}  // namespace
}  // namespace glint::testing
