// Numerics: debug mode names the first kernel that produces a NaN or an
// infinity (on every backend), and loss scaling skips and counts the steps
// whose gradients are not finite, leaving variables and optimizer state as
// they were; the runs are compared with runs that never saw the bad batch.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "glint/glint.h"
#include "glint/layers.h"
#include "glint/model.h"
#include "glint/optim.h"
#include "op_harness.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace glint::testing {
namespace {

struct DebugMode {
  DebugMode() { enableDebugMode(true); }
  ~DebugMode() { enableDebugMode(false); }
};

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

std::string numericsMessage(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const NumericsError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(DebugMode, NamesTheFirstKernelThatMadeANaNOnEveryBackend) {
  for (const std::string& backend : availableBackends()) {
    SCOPED_TRACE(backend);
    BackendScope on(backend);
    DebugMode debug;
    Tensor x = tensor({1, 2, -3, 4}, {4});
    Tensor doubled = mul(x, scalar(2.0f));  // finite: no error
    // sqrt of a negative is the first NaN; exp after it would only carry it.
    std::string msg = numericsMessage([&] { exp(sqrt(doubled)); });
    EXPECT_TRUE(has(msg, "[Sqrt]")) << msg;
    EXPECT_TRUE(has(msg, "NaN at element 2")) << msg;
    EXPECT_TRUE(has(msg, "backend '" + backend + "'")) << msg;
    EXPECT_TRUE(has(msg, "this kernel made it")) << msg;
    EXPECT_FALSE(has(msg, "[Exp]")) << msg;
  }
}

TEST(DebugMode, NamesInfinitiesAndTellsDataFromKernels) {
  for (const std::string& backend : availableBackends()) {
    SCOPED_TRACE(backend);
    BackendScope on(backend);
    DebugMode debug;
    std::string msg = numericsMessage([] { div(tensor({1, 1}, {2}), tensor({2, 0}, {2})); });
    EXPECT_TRUE(has(msg, "[RealDiv]") && has(msg, "+Infinity at element 1")) << msg;
    msg = numericsMessage([] { log(tensor({1, 0, 3}, {3})); });
    EXPECT_TRUE(has(msg, "[Log]") && has(msg, "-Infinity at element 1")) << msg;
    // A NaN that came with the data is reported at the first kernel it reaches,
    // and the message says it was already there.
    Tensor data = tensor({1, kNaN, 3}, {3});
    msg = numericsMessage([&] { add(data, scalar(1.0f)); });
    EXPECT_TRUE(has(msg, "input 0 [3] was already non-finite at element 1")) << msg;
  }
}

TEST(DebugMode, OffByDefaultAndNothingIsCheckedWhenOff) {
  EXPECT_FALSE(debugMode());
  Tensor y = sqrt(tensor({-1.0f}, {1}));  // no throw
  EXPECT_TRUE(std::isnan(y.toFloats()[0]));
  {
    DebugMode debug;
    EXPECT_TRUE(debugMode());
    EXPECT_NO_THROW(relu(tensor({-1.0f, 2.0f}, {2})));
  }
  EXPECT_FALSE(debugMode());
}

TEST(DebugMode, NamesAGradientKernelInABackwardPass) {
  DebugMode debug;
  Tensor x = tensor({0.0f, 4.0f}, {2});
  // d sqrt(x)/dx = 1 / (2 sqrt(x)): infinite at 0, made by the gradient's division.
  std::string msg = numericsMessage([&] { grad([](const Tensor& t) { return sum(sqrt(t)); }, x); });
  EXPECT_TRUE(has(msg, "[RealDiv]") && has(msg, "+Infinity at element 0")) << msg;
}

// ---- loss scaling -------------------------------------------------------------------

TEST(LossScale, ANonFiniteStepIsSkippedAndCountedWithStateUntouched) {
  for (const std::string& backend : availableBackends()) {
    SCOPED_TRACE(backend);
    BackendScope on(backend);
    Variable w = variable(tensor({1.0f, -2.0f}, {2}), true, "w");
    std::unique_ptr<Optimizer> opt = adam(0.1f);
    opt->lossScale = LossScale{.enabled = true, .scale = 1024.0f, .dynamic = true};
    float factor = 1.0f;
    auto loss = [&] { return sum(mul(square(w), scalar(factor))); };
    opt->minimize(loss, {w});
    ASSERT_EQ(opt->iterations(), 1);
    const std::vector<float> w1 = w.toFloats();
    std::vector<std::vector<float>> state1;
    for (const auto& [name, t] : opt->getWeights()) state1.push_back(t.toFloats());

    factor = kInf;  // the gradient becomes infinite (and NaN where w * inf * 0)
    Tensor reported = opt->minimize(loss, {w});
    EXPECT_EQ(opt->skippedSteps(), 1);
    EXPECT_EQ(opt->iterations(), 1) << "a skipped step does not count";
    EXPECT_EQ(opt->lossScale.scale, 512.0f) << "the dynamic scale halves";
    EXPECT_EQ(w.toFloats(), w1);
    auto state2 = opt->getWeights();
    ASSERT_EQ(state2.size(), state1.size());
    for (size_t k = 0; k < state1.size(); ++k) EXPECT_EQ(state2[k].second.toFloats(), state1[k]);
    EXPECT_FALSE(std::isfinite(reported.item()));

    factor = 1.0f;
    opt->minimize(loss, {w});
    EXPECT_EQ(opt->iterations(), 2);
    EXPECT_NE(w.toFloats(), w1);
    EXPECT_EQ(opt->skippedSteps(), 1);
  }
}

TEST(LossScale, ScaledStepsEqualUnscaledOnes) {
  // Powers of two scale and unscale exactly: the same updates as no scaling,
  // checked against the unscaled optimizer (an independent run).
  auto run = [](bool scaled) {
    Variable w = variable(tensor({0.5f, -1.5f, 2.0f}, {3}), true, "w");
    std::unique_ptr<Optimizer> opt = adam(0.05f);
    if (scaled) opt->lossScale = LossScale{.enabled = true, .scale = 4096.0f, .dynamic = false};
    Tensor target = tensor({1.0f, 2.0f, 3.0f}, {3});
    std::vector<float> losses;
    for (int i = 0; i < 20; ++i)
      losses.push_back(opt->minimize([&] { return sum(square(sub(w, target))); }, {w}).item());
    std::vector<float> out = w.toFloats();
    out.insert(out.end(), losses.begin(), losses.end());
    return out;
  };
  std::vector<float> plain = run(false), scaled = run(true);
  ASSERT_EQ(plain.size(), scaled.size());
  for (size_t i = 0; i < plain.size(); ++i)
    EXPECT_NEAR(scaled[i], plain[i], 1e-6f * (1 + std::abs(plain[i])));
}

TEST(LossScale, ABadBatchIsSkippedInTrainingAsIfItWasNeverThere) {
  for (const std::string& backend : availableBackends()) {
    SCOPED_TRACE(backend);
    BackendScope on(backend);
    auto makeModel = [](bool scaled) {
      setSeed(3);
      SequentialPtr m =
          sequential({layers::dense({{"units", 6}, {"activation", "tanh"}, {"inputShape", {3}}}),
                      layers::dense({{"units", 2}})});
      std::shared_ptr<Optimizer> opt(adam(0.01f));
      if (scaled) opt->lossScale = LossScale{.enabled = true, .scale = 256.0f};
      m->compile({.optimizer = opt, .loss = {"mse"}});
      return m;
    };
    auto batch = [](float seed) {
      std::vector<float> x(12), y(8);
      for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(seed + 0.7f * static_cast<float>(i));
      for (size_t i = 0; i < y.size(); ++i) y[i] = std::cos(seed * 0.5f + static_cast<float>(i));
      return std::make_pair(tensor(x, {4, 3}), tensor(y, {4, 2}));
    };
    auto [x0, y0] = batch(0.1f);
    auto [x1, y1] = batch(0.9f);
    auto [x2, y2] = batch(2.3f);
    Tensor xBad = tensor({1, kInf, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}, {4, 3});

    SequentialPtr guarded = makeModel(true);
    guarded->trainOnBatch({x0}, {y0});
    guarded->trainOnBatch({xBad}, {y1});
    guarded->trainOnBatch({x1}, {y1});
    guarded->trainOnBatch({x2}, {y2});
    EXPECT_EQ(guarded->optimizer()->skippedSteps(), 1);

    SequentialPtr clean = makeModel(false);  // never sees the bad batch
    clean->trainOnBatch({x0}, {y0});
    clean->trainOnBatch({x1}, {y1});
    clean->trainOnBatch({x2}, {y2});

    SequentialPtr unguarded = makeModel(false);  // sees it, without the guard
    unguarded->trainOnBatch({x0}, {y0});
    unguarded->trainOnBatch({xBad}, {y1});

    std::vector<Tensor> g = guarded->getWeights(), c = clean->getWeights(),
                        u = unguarded->getWeights();
    ASSERT_EQ(g.size(), c.size());
    bool unguardedBroken = false;
    for (size_t k = 0; k < g.size(); ++k) {
      std::vector<float> gv = g[k].toFloats(), cv = c[k].toFloats(), uv = u[k].toFloats();
      for (size_t i = 0; i < gv.size(); ++i) EXPECT_NEAR(gv[i], cv[i], 1e-5f) << k << ":" << i;
      for (float v : uv) unguardedBroken = unguardedBroken || !std::isfinite(v);
    }
    EXPECT_TRUE(unguardedBroken) << "without loss scaling the bad batch poisons the weights";
  }
}

TEST(LossScale, DynamicScaleGrowsAfterTheIntervalAndStaysAboveTheMinimum) {
  Variable w = variable(tensor({1.0f}, {1}), true, "w");
  std::unique_ptr<Optimizer> opt = sgd(0.1f);
  opt->lossScale = LossScale{
      .enabled = true, .scale = 4.0f, .dynamic = true, .growthInterval = 3, .minScale = 2.0f};
  float factor = 1.0f;
  auto loss = [&] { return sum(mul(square(w), scalar(factor))); };
  for (int i = 0; i < 3; ++i) opt->minimize(loss, {w});
  EXPECT_EQ(opt->lossScale.scale, 8.0f);
  factor = kNaN;
  for (int i = 0; i < 4; ++i) opt->minimize(loss, {w});
  EXPECT_EQ(opt->lossScale.scale, 2.0f) << "halved three times, then held at minScale";
  EXPECT_EQ(opt->skippedSteps(), 4);
  EXPECT_EQ(opt->iterations(), 3);
}

TEST(LossScale, ABadScaleIsAnError) {
  Variable w = variable(tensor({1.0f}, {1}), true, "w");
  std::unique_ptr<Optimizer> opt = sgd(0.1f);
  opt->lossScale = LossScale{.enabled = true, .scale = -1.0f};
  try {
    opt->minimize([&] { return sum(w); }, {w});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_TRUE(has(e.what(), "lossScale.scale")) << e.what();
  }
}

}  // namespace
}  // namespace glint::testing
