// The measured backend choice: calibrateBackends times a step on each
// candidate and keeps the fastest of the times it recorded; a model's
// calibration puts its weights and optimizer state back. (What is fastest is
// the machine's business: these tests check the bookkeeping, never a time.)
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "glint/glint.h"
#include "op_harness.h"

namespace glint::testing {
namespace {

void product() {
  Tensor a = randomUniform({48, 48}, -1, 1, 5);
  matMul(a, a).toFloats();  // the read makes the run end with its work done
}

TEST(Calibration, KeepsTheFastestOfWhatItTimedAndSaysSo) {
  BackendScope restore;
  Calibration c = calibrateBackends(product, "a 48x48 product",
                                    {.candidates = {"cpu", "reference"}, .warmup = 1, .runs = 3});
  ASSERT_EQ(c.timings.size(), 2u);
  const BackendTiming* best = nullptr;
  for (const BackendTiming& t : c.timings) {
    EXPECT_TRUE(t.error.empty()) << t.error;
    EXPECT_GE(t.runs, 1);
    EXPECT_GT(t.msPerStep, 0);
    if (!best || t.msPerStep < best->msPerStep) best = &t;
  }
  EXPECT_EQ(c.chosen, best->backend);
  EXPECT_EQ(getBackend(), c.chosen);
  BackendInfo info = backendInfo();
  EXPECT_TRUE(info.calibrated);
  EXPECT_EQ(info.calibration.chosen, c.chosen);
  EXPECT_EQ(info.calibration.what, "a 48x48 product");
  EXPECT_NE(info.why.find("calibrated: fastest for a 48x48 product"), std::string::npos)
      << info.why;
  EXPECT_NE(info.why.find("reference"), std::string::npos) << info.why;
  EXPECT_FALSE(backendChosenAutomatically());
  // setBackend afterwards is a choice on purpose: no longer calibrated.
  setBackend("cpu");
  EXPECT_FALSE(backendInfo().calibrated);
}

TEST(Calibration, PassesOverABackendWhereTheStepFails) {
  BackendScope restore;
  Calibration c =
      calibrateBackends(product, "a product", {.candidates = {"nope", "cpu"}, .runs = 1});
  ASSERT_EQ(c.timings.size(), 2u);
  EXPECT_EQ(c.timings[0].backend, "nope");
  EXPECT_EQ(c.timings[0].msPerStep, -1);
  EXPECT_NE(c.timings[0].error.find("unknown backend 'nope'"), std::string::npos)
      << c.timings[0].error;
  EXPECT_EQ(c.chosen, "cpu");
}

TEST(Calibration, AStepFailingEverywhereThrowsAndLeavesTheBackend) {
  BackendScope restore("reference");
  expectError(
      [] {
        calibrateBackends([] { throw std::runtime_error("the step broke"); }, "a broken step",
                          {.candidates = {"cpu", "reference"}, .runs = 1});
      },
      {"[calibrateBackends]", "failed on every backend", "cpu: the step broke"});
  EXPECT_EQ(getBackend(), "reference");
  expectError([] { calibrateBackends(product, "x", {.candidates = {"cpu"}, .runs = 0}); },
              {"[calibrateBackends]", "runs >= 1"});
}

TEST(Calibration, CandidatesAreFastBackendsOnly) {
  BackendInfo info = backendInfo();
  for (const std::string& name : calibrationCandidates()) {
    EXPECT_NE(name, "reference");
    auto it = std::find_if(info.backends.begin(), info.backends.end(),
                           [&](const BackendStatus& b) { return b.name == name; });
    ASSERT_NE(it, info.backends.end());
    EXPECT_TRUE(it->available);
    EXPECT_FALSE(it->software) << name;
  }
}

ModelPtr smallModel() {
  setSeed(11);
  auto m = sequential({layers::dense({{"units", 8}, {"activation", "relu"}, {"inputShape", {4}}}),
                       layers::dense({{"units", 3}, {"activation", "softmax"}})});
  m->compile(
      {.optimizer = std::shared_ptr<Optimizer>(adam(0.05f)), .loss = {"categoricalCrossentropy"}});
  return m;
}

std::vector<std::vector<float>> values(const Model& m) {
  std::vector<std::vector<float>> v;
  for (const Tensor& w : m.getWeights()) v.push_back(w.toFloats());
  return v;
}

TEST(Calibration, AModelsCalibrationPutsWeightsAndOptimizerStateBack) {
  BackendScope restore("cpu");
  auto data = classData(16, 3);
  const Tensor x = data.first, y = data.second;
  ModelPtr a = smallModel(), b = smallModel();
  a->trainOnBatch({x}, {y});  // Adam's moments exist before the calibration
  b->trainOnBatch({x}, {y});
  std::vector<std::vector<float>> before = values(*a);
  Calibration c =
      a->calibrateBackend({x}, {y}, {.candidates = {"cpu", "reference"}, .warmup = 1, .runs = 2});
  EXPECT_EQ(c.timings.size(), 2u);
  EXPECT_NE(c.what.find("training step, batch 16"), std::string::npos) << c.what;
  EXPECT_EQ(values(*a), before);  // the five steps it took left no trace
  // The next step continues the same history as the twin's (Adam's moments
  // and step count included): same loss, same weights.
  setBackend("cpu");
  Logs la = a->trainOnBatch({x}, {y}), lb = b->trainOnBatch({x}, {y});
  EXPECT_EQ(la.at("loss"), lb.at("loss"));
  EXPECT_EQ(values(*a), values(*b));
  expectError([&] { a->calibrateBackend({x}, {}, {.candidates = {"cpu"}}); },
              {"calibrateBackend", "y"});
}

}  // namespace
}  // namespace glint::testing
