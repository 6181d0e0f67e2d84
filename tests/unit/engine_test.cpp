// Engine: backends, memory accounting, scopes, variables, random.
#include <gtest/gtest.h>

#include <cmath>

#include "glint/backend.h"
#include "glint/glint.h"
#include "op_harness.h"

namespace glint {
namespace {

using testing::expectError;

TEST(Engine, ChoosesHighestPriorityAvailableBackend) {
  BackendInfo info = backendInfo();
  ASSERT_FALSE(info.backends.empty());
#ifdef __EMSCRIPTEN__
  EXPECT_EQ(info.backends.front().name, "webgpu");  // in a browser a GPU ranks first
#else
  EXPECT_EQ(info.backends.front().name, "cpu");
#endif
  for (const auto& b : info.backends) {
#ifdef __EMSCRIPTEN__
    // node has no WebGL nor WebGPU (gl_backend_test and webgpu_test check the reasons)
    if (b.name == "gl" || b.name == "webgpu") continue;
#endif
    EXPECT_TRUE(b.available) << b.name << ": " << b.reason;
  }
}

TEST(Engine, SetBackendRejectsUnknownNames) {
  expectError([] { setBackend("quantum"); }, {"[setBackend]", "quantum", "reference"});
}

TEST(Engine, TensorRoundTripsEveryDType) {
  for (const std::string& b : availableBackends()) {
    setBackend(b);
    EXPECT_EQ(tensor({1.5f, -2.0f}, {2}).data<float>(), (std::vector<float>{1.5f, -2.0f}));
    EXPECT_EQ(tensorInt({7, -3, 0}, {3, 1}).data<int32_t>(), (std::vector<int32_t>{7, -3, 0}));
    EXPECT_EQ(tensorBool({1, 0, 5}, {3}).data<uint8_t>(), (std::vector<uint8_t>{1, 0, 1}));
  }
  setBackend("cpu");
}

TEST(Engine, ReadingWithTheWrongTypeIsAnError) {
  Tensor t = tensorInt({1, 2}, {2});
  expectError([&] { t.data<float>(); }, {"[data]", "float32", "int32"});
  expectError([] { tensor({1, 2, 3}, {2, 2}); }, {"[tensor]", "3 values", "[2,2]"});
}

TEST(Engine, DataMovesBetweenBackendsOnDemand) {
  setBackend("reference");
  Tensor t = tensor({1, 2, 3}, {3});
  EXPECT_EQ(t.backendName(), "reference");
  setBackend("cpu");
  Tensor r = reshape(t, {3, 1});  // a view keeps the buffer where it is
  EXPECT_EQ(r.data<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(r.backendName(), "reference");
}

TEST(Engine, MemoryCountsTensorsBuffersAndBytes) {
  releaseUnusedMemory();  // bytesPerBackend counts pooled buffers too
  MemoryInfo before = memory();
  {
    Tensor a = tensor({1, 2, 3, 4}, {2, 2});
    Tensor view = reshape(a, {4});
    MemoryInfo during = memory();
    EXPECT_EQ(during.numTensors, before.numTensors + 2);
    EXPECT_EQ(during.numBuffers, before.numBuffers + 1);
    EXPECT_EQ(during.numBytes, before.numBytes + 16);
    a.dispose();
    EXPECT_EQ(memory().numTensors, before.numTensors + 1);
    EXPECT_EQ(memory().numBuffers, before.numBuffers + 1);  // the view still holds it
  }
  releaseUnusedMemory();
  MemoryInfo after = memory();
  EXPECT_EQ(after.numTensors, before.numTensors);
  EXPECT_EQ(after.numBuffers, before.numBuffers);
  EXPECT_EQ(after.numBytes, before.numBytes);
  EXPECT_EQ(after.bytesPerBackend, before.bytesPerBackend);
}

TEST(Engine, TidyDisposesWhatItDoesNotReturn) {
  MemoryInfo before = memory();
  Tensor inner;
  Tensor kept;
  Tensor result = tidy([&] {
    inner = tensor({1, 2}, {2});
    kept = tensor({3}, {1});
    keep(kept);
    return tensor({5, 6}, {2});
  });
  EXPECT_TRUE(inner.isDisposed());
  EXPECT_FALSE(kept.isDisposed());
  EXPECT_FALSE(result.isDisposed());
  expectError([&] { inner.data<float>(); }, {"disposed"});
  inner = Tensor();
  EXPECT_EQ(memory().numTensors, before.numTensors + 2);
}

TEST(Engine, NestedTidyHandsResultsToTheOuterScope) {
  Tensor middle;
  Tensor outer = tidy([&] {
    middle = tidy([] { return tensor({1}, {1}); });
    EXPECT_FALSE(middle.isDisposed());
    return tensor({2}, {1});
  });
  EXPECT_TRUE(middle.isDisposed());
  EXPECT_FALSE(outer.isDisposed());
}

TEST(Engine, VariablesAssignAndSurviveTidy) {
  Variable v;
  tidy([&] { v = variable(tensor({1, 2}, {2}), true, "w"); });
  EXPECT_FALSE(v.isDisposed());
  EXPECT_EQ(v.name(), "w");
  v.assign(tensor({3, 4}, {2}));
  EXPECT_EQ(v.data<float>(), (std::vector<float>{3, 4}));
  expectError([&] { v.assign(tensor({1, 2, 3}, {3})); }, {"[assign]", "'w'", "[2]", "[3]"});
}

TEST(Engine, SeededRandomIsReproducible) {
  setSeed(42);
  uint64_t a = randomBits();
  double u = randomUniform01();
  setSeed(42);
  EXPECT_EQ(randomBits(), a);
  EXPECT_EQ(randomUniform01(), u);
  EXPECT_GE(u, 0.0);
  EXPECT_LT(u, 1.0);
}

TEST(Engine, EveryKernelIsImplementedOnEveryBackend) {
  std::vector<std::string> backends = registeredBackends();
  auto table = kernelTable();
  EXPECT_FALSE(table.empty());
  for (const auto& [kernel, have] : table)
    for (const std::string& b : backends)
      EXPECT_NE(std::find(have.begin(), have.end(), b), have.end())
          << "kernel " << kernel << " is missing on backend " << b;
}

TEST(Engine, KernelProfilingCountsEachKernelByShapes) {
  testing::BackendScope cpu("cpu");
  Tensor a = ones({2, 3}), b = ones({3, 4});
  setKernelProfiling(true);
  matMul(a, b);
  matMul(a, b);
  matMul(b, ones({4, 1}));
  add(a, a);
  setKernelProfiling(false);
  matMul(a, b);  // not counted: profiling is off
  std::vector<KernelProfileRow> rows = kernelProfile();
  auto find = [&](const std::string& kernel, const std::string& shapes) -> const KernelProfileRow* {
    for (const KernelProfileRow& r : rows)
      if (r.kernel == kernel && r.shapes == shapes) return &r;
    return nullptr;
  };
  const KernelProfileRow* mm = find("BatchMatMul", "[2,3] [3,4]");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->calls, 2);
  EXPECT_EQ(mm->backend, "cpu");
  EXPECT_GT(mm->seconds, 0.0);
  ASSERT_NE(find("BatchMatMul", "[3,4] [4,1]"), nullptr);
  EXPECT_EQ(find("BatchMatMul", "[3,4] [4,1]")->calls, 1);
  ASSERT_NE(find("Add", "[2,3] [2,3]"), nullptr);
  for (size_t i = 1; i < rows.size(); ++i) EXPECT_GE(rows[i - 1].seconds, rows[i].seconds);
  // Turning it on again starts from nothing.
  setKernelProfiling(true);
  setKernelProfiling(false);
  EXPECT_TRUE(kernelProfile().empty());
}

TEST(Engine, KernelProfilingRepeatsRewriteTheSameValues) {
  // With repeat, each kernel runs several times between the waits: a call
  // still counts once, and its outputs are those of one run, on every
  // available backend.
  std::vector<float> av(35), bv(20);
  for (size_t i = 0; i < av.size(); ++i) av[i] = std::sin(static_cast<float>(i));
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = std::cos(static_cast<float>(i));
  for (const std::string& backend : availableBackends()) {
    testing::BackendScope on(backend);
    Tensor a = tensor(av, {7, 5}), b = tensor(bv, {5, 4});
    std::vector<float> want = relu(matMul(a, b)).toFloats();
    setKernelProfiling(true, 4);
    std::vector<float> have = relu(matMul(a, b)).toFloats();
    setKernelProfiling(false);
    EXPECT_EQ(have, want) << backend;
    bool found = false;
    for (const KernelProfileRow& r : kernelProfile())
      if (r.kernel == "BatchMatMul" && r.backend == backend) {
        EXPECT_EQ(r.calls, 1) << backend;
        found = true;
      }
    EXPECT_TRUE(found) << backend;
  }
  expectError([] { setKernelProfiling(true, 0); }, {"setKernelProfiling", "repeat", ">= 1", "0"});
}

}  // namespace
}  // namespace glint
