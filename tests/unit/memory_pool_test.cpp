// The host backends' buffer pool, and issue 4's "steady-state training
// allocates nothing per step", counted by glint::memory().numAllocations.
#include <gtest/gtest.h>

#include <set>

#include "glint/glint.h"
#include "glint/standard_models.h"
#include "src/backends/host/host_backend.h"

namespace glint {
namespace {

struct BackendGuard {
  std::string saved = getBackend();
  ~BackendGuard() { setBackend(saved); }
};

TEST(HostPool, SizeClassesCoverTheRequestWithAtMostAQuarterSlack) {
  EXPECT_EQ(HostBackend::sizeClass(1), 64u);
  EXPECT_EQ(HostBackend::sizeClass(64), 64u);
  EXPECT_EQ(HostBackend::sizeClass(65), 128u);
  EXPECT_EQ(HostBackend::sizeClass(4096), 4096u);
  EXPECT_EQ(HostBackend::sizeClass(4097), 5120u);  // 4096 * 1.25
  EXPECT_EQ(HostBackend::sizeClass(8192), 8192u);
  EXPECT_EQ(HostBackend::sizeClass(8193), 10240u);
  for (size_t n = 1; n < (size_t{1} << 24); n = n * 3 / 2 + 1) {
    size_t c = HostBackend::sizeClass(n);
    EXPECT_GE(c, n);
    EXPECT_EQ(c % 64, 0u);
    if (n > 4096) EXPECT_LE(c, n + n / 4) << n;
    EXPECT_EQ(HostBackend::sizeClass(c), c) << n;  // a class is its own class
  }
}

TEST(HostPool, ReleasedBuffersAreReusedAndCounted) {
  HostBackend b("test", "");
  void* p = b.allocate(1000);
  EXPECT_EQ(b.numAllocations(), 1);
  EXPECT_EQ(b.bytesInUse(), 1024);
  b.release(p, 1000);
  EXPECT_EQ(b.bytesInUse(), 1024);  // pooled bytes are still held
  EXPECT_EQ(b.pooledBytes(), 1024);
  void* q = b.allocate(1020);  // same size class
  EXPECT_EQ(q, p);
  EXPECT_EQ(b.numAllocations(), 1);
  EXPECT_EQ(b.numPoolHits(), 1);
  EXPECT_EQ(b.pooledBytes(), 0);
  void* r = b.allocate(1100);  // another class: from the system
  EXPECT_NE(r, p);
  EXPECT_EQ(b.numAllocations(), 2);
  EXPECT_EQ(b.allocate(0), nullptr);
  b.release(q, 1020);
  b.release(r, 1100);
  EXPECT_EQ(b.bytesInUse(), 1024 + 1152);
  b.releaseUnused();
  EXPECT_EQ(b.bytesInUse(), 0);
  EXPECT_EQ(b.pooledBytes(), 0);
}

TEST(HostPool, PoolStaysUnderItsCap) {
  HostBackend b("test", "");
  b.setPoolCap(3 * 4096);
  std::vector<void*> live;
  for (int i = 0; i < 5; ++i) live.push_back(b.allocate(4096));
  EXPECT_EQ(b.bytesInUse(), 5 * 4096);
  for (void* p : live) b.release(p, 4096);
  EXPECT_EQ(b.pooledBytes(), 3 * 4096);  // the other two went back to the system
  EXPECT_EQ(b.bytesInUse(), 3 * 4096);
  b.setPoolCap(4096);
  EXPECT_LE(b.pooledBytes(), 4096);
  EXPECT_EQ(b.bytesInUse(), b.pooledBytes());
}

TEST(HostPool, ReleaseUnusedMemoryEmptiesTheEnginesPools) {
  BackendGuard guard;
  setBackend("cpu");
  { Tensor t = zeros({1000}); }
  releaseUnusedMemory();
  int64_t held = memory().bytesPerBackend["cpu"];
  { Tensor t = zeros({1000}); }
  EXPECT_GT(memory().bytesPerBackend["cpu"], held);  // its buffer went to the pool
  releaseUnusedMemory();
  EXPECT_EQ(memory().bytesPerBackend["cpu"], held);
}

/// Runs `step` until memory is flat, then `steps` more: none may allocate.
void expectSteadyState(const std::function<void()>& step, int steps) {
  // The pool is capped: buffers that earlier work (other tests) left in it
  // would crowd out this loop's, which then go back to the system.
  releaseUnusedMemory();
  for (int i = 0; i < 3; ++i) step();  // warm-up: optimizer slots, pool
  MemoryInfo before = memory();
  for (int i = 0; i < steps; ++i) step();
  MemoryInfo after = memory();
  EXPECT_EQ(after.numAllocations, before.numAllocations) << "new system allocations";
  EXPECT_GT(after.numPoolHits, before.numPoolHits);
  EXPECT_EQ(after.numTensors, before.numTensors);
  EXPECT_EQ(after.numBuffers, before.numBuffers);
  EXPECT_EQ(after.numBytes, before.numBytes);
}

/// n samples of the mlp's input, one-hot targets (few: the reference backend
/// runs this too, also under ASan).
std::pair<Tensor, Tensor> mlpData(int64_t n) {
  setSeed(3);
  Tensor x = randomUniform({n, 784});
  Tensor labels = cast(randomUniform({n}, 0, 10), DType::int32);
  return {x, oneHot(labels, 10)};
}

TEST(HostPool, SteadyStateTrainOnBatchAllocatesNothing) {
  BackendGuard guard;
  for (const std::string& backend : {"cpu", "reference"}) {
    SCOPED_TRACE(backend);
    setBackend(backend);
    ModelPtr model = standardModel("mlp");
    // No structured bindings: clang 14 (the wasm build) cannot capture them.
    std::pair<Tensor, Tensor> data = mlpData(8);
    Tensor x = data.first, y = data.second;
    expectSteadyState([&] { model->trainOnBatch({x}, {y}); }, 4);
  }
}

TEST(HostPool, SteadyStateFitAllocatesNothing) {
  BackendGuard guard;
  setBackend("cpu");
  ModelPtr model = standardModel("mlp");
  std::pair<Tensor, Tensor> data = mlpData(16);
  Tensor x = data.first, y = data.second;
  FitOptions options;
  options.batchSize = 8;
  options.epochs = 2;
  expectSteadyState([&] { model->fit(x, y, options); }, 2);
}

}  // namespace
}  // namespace glint
