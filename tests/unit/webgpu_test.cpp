// The webgpu backend itself (browser only): probe, bit-exact buffers for every
// dtype through the synchronous canvas read, views, the buffer pool, memory
// over 500 training steps, the three standard models as on cpu, and a device
// lost mid-work. Its kernels are checked by the op harness, which runs every
// case on webgpu where it is available (tests/browser/run.mjs --only webgpu).
// Recovery of a fit from a lost device needs the page's event loop (the
// variable snapshots are mapAsync reads): tests/browser/web_api.mjs checks it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

#include "glint/glint.h"
#include "glint/losses.h"
#include "glint/model.h"
#include "glint/optim.h"
#include "glint/standard_models.h"
#include "op_harness.h"

#ifdef GLINT_WITH_WEBGPU
#include "src/backends/webgpu/webgpu_backend.h"

namespace glint::testing {
namespace {

bool gpuAvailable() {
  auto names = availableBackends();
  return std::find(names.begin(), names.end(), "webgpu") != names.end();
}
std::string gpuStatus() {
  for (const BackendStatus& s : backendInfo().backends)
    if (s.name == "webgpu") return s.reason;
  return "webgpu is not registered";
}
// Runs where the page handed over a device (run.mjs --only webgpu sets
// GLINT_EXPECT_WEBGPU=1, and then it must have started). Skips elsewhere, for
// want of a device: node (make test-wasm, test-wasm-mt) has no navigator.gpu,
// and the harness's gl and wasm runs hand no device over (their Chromium has
// no WebGPU flags); their skip message is the probe's reason.
#define REQUIRE_WEBGPU()                                                                   \
  if (!gpuAvailable() && !std::getenv("GLINT_EXPECT_WEBGPU")) GTEST_SKIP() << gpuStatus(); \
  ASSERT_TRUE(gpuAvailable()) << "webgpu did not start: " << gpuStatus()

TEST(WebGpuBackend, RegisteredAndDescribed) {
  REQUIRE_WEBGPU();  // skipped without a WebGPU device: node, and the browser gl/wasm runs
  std::string reason = gpuStatus();
  EXPECT_NE(reason.find("WebGPU"), std::string::npos) << reason;
  EXPECT_NE(reason.find("storage buffers per stage"), std::string::npos) << reason;
  for (const BackendStatus& s : backendInfo().backends)
    if (s.name == "webgpu") {
      EXPECT_GT(s.priority, 150) << "webgpu ranks above gl";
      // SwiftShader is what these machines have: it must be flagged.
      if (reason.find("swiftshader") != std::string::npos) EXPECT_TRUE(s.software);
    }
}

TEST(WebGpuBackend, BuffersRoundTripBitExactForEveryDtype) {
  REQUIRE_WEBGPU();  // skipped without a WebGPU device: node, and the browser gl/wasm runs
  BackendScope on("webgpu");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> f = {0.0f,   -0.0f, 1.0f / 3, std::numeric_limits<float>::infinity(),
                          -3e38f, nan,   1e-30f};
  std::vector<float> backF = tensor(f, {7}).data<float>();
  EXPECT_EQ(std::memcmp(backF.data(), f.data(), f.size() * 4), 0);
  std::vector<int32_t> ints = {std::numeric_limits<int32_t>::min(), -1, 0, 7,
                               std::numeric_limits<int32_t>::max()};
  EXPECT_EQ(tensorInt(ints, {5}).data<int32_t>(), ints);
  // The canvas read moves 3 bytes a pixel, 196,608 bytes a pass: sizes around
  // both boundaries, every byte value.
  std::mt19937 rng(5);
  for (int n : {1, 2, 3, 5, 65535, 65536, 65537, 49152 * 2 + 1}) {
    std::vector<int32_t> v(n);
    for (auto& x : v) x = static_cast<int32_t>(rng());
    Tensor t = tensorInt(v, {n});
    EXPECT_EQ(t.backendName(), "webgpu");
    EXPECT_EQ(t.data<int32_t>(), v) << n << " ints";
  }
  for (int n : {1, 3, 4, 5, 17, 1001}) {  // bools: one byte each, 4 to a word
    std::vector<uint8_t> bools(n);
    for (int i = 0; i < n; ++i) bools[i] = (i * 7 % 3) == 0;
    Tensor b = tensorBool(bools, {n});
    EXPECT_EQ(b.data<uint8_t>(), bools) << n << " bools";
    EXPECT_EQ(logicalNot(logicalNot(b)).data<uint8_t>(), bools) << n << " bools";
  }
}

TEST(WebGpuBackend, ViewsShareOneBuffer) {
  REQUIRE_WEBGPU();  // skipped without a WebGPU device: node, and the browser gl/wasm runs
  BackendScope on("webgpu");
  Tensor x = tensor({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {2, 6});
  int64_t buffers = memory().numBuffers;
  Tensor v = reshape(x, {3, 4});
  EXPECT_EQ(memory().numBuffers, buffers);
  EXPECT_EQ(sum(v, {0}).data<float>(), (std::vector<float>{15, 18, 21, 24}));
}

TEST(WebGpuBackend, PoolReusesBuffersAndMemoryReturnsToStart) {
  REQUIRE_WEBGPU();  // skipped without a WebGPU device: node, and the browser gl/wasm runs
  BackendScope on("webgpu");
  auto step = [] {
    tidy([] {
      Tensor a = tensor(std::vector<float>(300, 0.5f), {10, 30});
      Tensor b = relu(matMul(a, transpose(a)));
      return sum(b).item();
    });
  };
  step();
  MemoryInfo before = memory();
  for (int i = 0; i < 20; ++i) step();
  MemoryInfo after = memory();
  EXPECT_EQ(after.numTensors, before.numTensors);
  EXPECT_EQ(after.bytesPerBackend["webgpu"], before.bytesPerBackend["webgpu"]);
  EXPECT_EQ(after.numAllocations, before.numAllocations) << "every buffer came from the pool";
  EXPECT_GT(after.numPoolHits, before.numPoolHits);
  int64_t live = memory().bytesPerBackend["webgpu"];
  releaseUnusedMemory();
  EXPECT_LE(memory().bytesPerBackend["webgpu"], live);
}

TEST(WebGpuBackend, KernelErrorsNameTheBackendLimits) {
  REQUIRE_WEBGPU();  // skipped without a WebGPU device: node, and the browser gl/wasm runs
  webgpu::WebGpuBackend* gpu = webgpu::instance();
  ASSERT_NE(gpu, nullptr);
  // More bindings than the device allows: refused before WebGPU sees it.
  expectError([&] { gpu->pipeline("// too many", gpu->maxBuffers(), 1); },
              {"webgpu", "binds", std::to_string(gpu->maxBuffers())});
}

// ---- training -------------------------------------------------------------------

/// Synthetic 28x28 digits: class c is a bright band at rows 2c..2c+4 plus
/// noise, so every standard model (dense, conv, row-by-row LSTM) can learn it.
struct Synthetic {
  std::vector<float> x, y;
  int64_t n = 0;
};
Synthetic synthetic(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> noise(0.0f, 0.35f);
  Synthetic s;
  s.n = n;
  for (int64_t i = 0; i < n; ++i) {
    int c = static_cast<int>(rng() % 10);
    for (int r = 0; r < 28; ++r)
      for (int col = 0; col < 28; ++col)
        s.x.push_back(noise(rng) + (r >= 2 * c + 3 && r < 2 * c + 7 ? 0.6f : 0.0f));
    for (int k = 0; k < 10; ++k) s.y.push_back(k == c ? 1.0f : 0.0f);
  }
  return s;
}

// The matmul on a software adapter reads its operands as vec4s where the
// layout allows (B along j, A along p or along i) and scalars elsewhere; each
// path, transposes, batch broadcasting, partial row blocks and the fused
// bias + activation, against the reference backend.
TEST(WebGpuBackend, MatMulLayoutsMatchTheReference) {
  REQUIRE_WEBGPU();  // skipped without a WebGPU device: node, and the browser gl/wasm runs
  struct Case {
    int64_t batchA, batchB, m, n, k;
    bool tA, tB;
  };
  const std::vector<Case> cases = {
      {1, 1, 64, 128, 784, false, false},  // a dense layer's forward: vec4 A along p
      {1, 1, 784, 128, 64, true, false},   // its weight gradient: vec4 A along i
      {1, 1, 64, 784, 128, false, true},   // its input gradient: B transposed
      {1, 1, 1, 128, 784, false, false},   // one-sample predict: one row per invocation
      {1, 1, 7, 10, 3, false, false},      // nothing aligned
      {1, 1, 5, 12, 9, true, true},
      {1, 1, 20, 8, 12, true, false},   // M % 4 == 0, partial 16-row block
      {3, 1, 6, 4, 8, false, false},    // batch broadcast of B
      {1, 2, 33, 16, 5, false, false},  // batch broadcast of A
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message()
                 << "[" << c.batchA << "," << c.batchB << "] m " << c.m << " n " << c.n << " k "
                 << c.k << " tA " << c.tA << " tB " << c.tB);
    Shape sa = c.tA ? Shape{c.batchA, c.k, c.m} : Shape{c.batchA, c.m, c.k};
    Shape sb = c.tB ? Shape{c.batchB, c.n, c.k} : Shape{c.batchB, c.k, c.n};
    std::vector<float> ha = randomNormal(sa, 0, 1, 11).data<float>();
    std::vector<float> hb = randomNormal(sb, 0, 1, 12).data<float>();
    std::vector<float> hbias = randomNormal({c.n}, 0, 1, 13).data<float>();
    auto run = [&](const std::string& backend, bool fused) {
      BackendScope on(backend);
      Tensor a = tensor(ha, sa), b = tensor(hb, sb), bias = tensor(hbias, {c.n});
      Tensor y = fused ? fusedMatMul(a, b, bias, "relu", c.tA, c.tB) : matMul(a, b, c.tA, c.tB);
      return y.data<float>();
    };
    for (bool fused : {false, true}) {
      std::vector<float> want = run("reference", fused), got = run("webgpu", fused);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i])))
            << "element " << i << (fused ? " fused" : "");
    }
  }
}

struct TrainResult {
  std::vector<double> loss;
  double accuracy = 0;
};

TrainResult trainStandard(const std::string& name, const std::string& backend,
                          const Synthetic& train, const Synthetic& test, int epochs, float lr) {
  BackendScope on(backend);
  setSeed(99);
  ModelPtr m = standardModel(name);
  m->optimizer()->setLearningRate(lr);
  auto shaped = [&](const Synthetic& s) {
    Shape shape = standardModelInputShape(name);
    shape.insert(shape.begin(), s.n);
    return tensor(s.x, shape);
  };
  History h = m->fit(shaped(train), tensor(train.y, {train.n, 10}),
                     {.epochs = epochs, .batchSize = 64, .seed = 5});
  TrainResult r;
  r.loss = h.history.at("loss");
  r.accuracy = m->evaluate(shaped(test), tensor(test.y, {test.n, 10}), 256).at("acc");
  return r;
}

TEST(WebGpuTraining, StandardModelsTrainAsOnCpu) {
  REQUIRE_WEBGPU();  // skipped without a WebGPU device: node, and the browser gl/wasm runs
  Synthetic train = synthetic(640, 1), test = synthetic(256, 2);
  struct Case {
    const char* name;
    int epochs;
    float lr;
    double minAccuracy;  // measured runs minus a margin; chance is 0.1
  };
  // The lstm reads the band's position row by row: 20 steps only begin to
  // learn it (cpu ~0.23), the other two learn it at once.
  for (const Case& c :
       {Case{"mlp", 2, 1e-3f, 0.8}, Case{"cnn", 2, 1e-2f, 0.8}, Case{"lstm", 2, 1e-2f, 0.15}}) {
    SCOPED_TRACE(c.name);
    TrainResult cpu = trainStandard(c.name, "cpu", train, test, c.epochs, c.lr);
    TrainResult gpu = trainStandard(c.name, "webgpu", train, test, c.epochs, c.lr);
    std::printf(
        "[ webgpu training ] %s: held-out accuracy cpu %.4f webgpu %.4f, last loss cpu "
        "%.5f webgpu %.5f\n",
        c.name, cpu.accuracy, gpu.accuracy, cpu.loss.back(), gpu.loss.back());
    EXPECT_GE(cpu.accuracy, c.minAccuracy);
    EXPECT_NEAR(gpu.accuracy, cpu.accuracy, 0.03);
    for (size_t e = 0; e < cpu.loss.size(); ++e)
      EXPECT_NEAR(gpu.loss[e], cpu.loss[e], 0.05 * cpu.loss[e] + 1e-3) << "epoch " << e;
  }
}

TEST(WebGpuTraining, FiveHundredStepsLeaveBuffersAndBytesWhereTheyStarted) {
  REQUIRE_WEBGPU();  // skipped without a WebGPU device: node, and the browser gl/wasm runs
  BackendScope on("webgpu");
  setSeed(3);
  auto m = sequential({layers::dense({{"units", 16}, {"activation", "relu"}, {"inputShape", {8}}}),
                       layers::dense({{"units", 3}, {"activation", "softmax"}})});
  m->compile({.optimizer = std::shared_ptr<Optimizer>(adam(0.01f)),
              .loss = {"categoricalCrossentropy"},
              .metrics = {"accuracy"}});
  Tensor x = randomUniform({32, 8}, 0, 1, 11);
  std::vector<float> xv = x.toFloats(), yv(32 * 3, 0.0f);
  for (int i = 0; i < 32; ++i)
    yv[i * 3 + (xv[i * 8] > xv[i * 8 + 1] ? (xv[i * 8] > xv[i * 8 + 2] ? 0 : 2)
                                          : (xv[i * 8 + 1] > xv[i * 8 + 2] ? 1 : 2))] = 1;
  Tensor y = tensor(yv, {32, 3});
  double first = 0, last = 0;
  for (int i = 0; i < 5; ++i) first = m->trainOnBatch({x}, {y}).at("loss");
  webgpu::WebGpuBackend* gpu = webgpu::instance();
  int64_t buffers0 = gpu->liveBuffers();
  size_t pooled0 = gpu->pooledBuffers();
  MemoryInfo m0 = memory();
  for (int i = 0; i < 500; ++i) last = m->trainOnBatch({x}, {y}).at("loss");
  MemoryInfo m1 = memory();
  EXPECT_LT(last, first * 0.5) << "it trained";
  EXPECT_EQ(gpu->liveBuffers(), buffers0);
  EXPECT_EQ(gpu->pooledBuffers(), pooled0);
  EXPECT_EQ(m1.bytesPerBackend["webgpu"], m0.bytesPerBackend["webgpu"]);
  EXPECT_EQ(m1.numTensors, m0.numTensors);
  EXPECT_EQ(m1.numBuffers, m0.numBuffers);
  EXPECT_EQ(m1.numBytes, m0.numBytes);
  EXPECT_EQ(m1.numAllocations, m0.numAllocations) << "every buffer came from the pool";
}

// ---- device loss ------------------------------------------------------------------

// The page keeps a spare device (run_tests.html), so a loss forced here is
// followed by a device the backend can take synchronously.
TEST(WebGpuDeviceLoss, LostBuffersThrowAndNewWorkRunsOnTheNewDevice) {
  REQUIRE_WEBGPU();  // skipped without a WebGPU device: node, and the browser gl/wasm runs
  BackendScope on("webgpu");
  webgpu::WebGpuBackend* gpu = webgpu::instance();
  Tensor uploaded = tensor({7, 8, 9}, {3});
  Tensor before = add(uploaded, tensor({10, 20, 30}, {3}));
  EXPECT_EQ(before.data<float>(), (std::vector<float>{17, 28, 39}));
  int64_t losses = gpu->deviceLosses();
  gpu->loseDevice();
  // A kernel output went with the device: an error naming the loss, not garbage.
  try {
    before.data<float>();
    ADD_FAILURE() << "reading a lost buffer did not throw";
  } catch (const DeviceLostError& e) {
    EXPECT_NE(std::string(e.what()).find("lost"), std::string::npos) << e.what();
  }
  EXPECT_EQ(gpu->deviceLosses(), losses + 1);
  EXPECT_EQ(getBackend(), "webgpu") << "the spare device took over";
  Tensor after = mul(tensor({1, 2, 3}, {3}), tensor({4, 5, 6}, {3}));
  EXPECT_EQ(after.backendName(), "webgpu");
  EXPECT_EQ(after.data<float>(), (std::vector<float>{4, 10, 18}));
  // An upload comes back from its host copy, on the new device.
  EXPECT_EQ(uploaded.backendName(), "webgpu");
  EXPECT_EQ(add(uploaded, uploaded).data<float>(), (std::vector<float>{14, 16, 18}));
  EXPECT_GE(gpu->buffersRestored(), 1);
}

}  // namespace
}  // namespace glint::testing

#endif  // GLINT_WITH_WEBGPU
