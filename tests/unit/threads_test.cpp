// The threading model (docs/CPP.md, "Threads"): separate models on separate
// threads run at once and give what they give alone; calls on one model from
// several threads are safe (predict, evaluate) or refused with an error
// (a second trainer, a predict during another thread's fit); the gl backend
// refuses other threads. Also built with ThreadSanitizer (make test-tsan).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "glint/engine.h"
#include "glint/error.h"
#include "glint/model.h"
#include "glint/ops.h"
#include "glint/optim.h"

namespace glint {
namespace {

// Threads a test may start: WebAssembly without pthreads has none; with
// pthreads, only the workers the module started (PTHREAD_POOL_SIZE: one per
// core plus 4, one of them the cpu backend's pool): a thread beyond them
// would wait for the main thread to yield, which it never does here.
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
constexpr int kMaxThreads = 0;
#elif defined(__EMSCRIPTEN__)
constexpr int kMaxThreads = 4;
#else
constexpr int kMaxThreads = 8;
#endif
// Skips where no thread can start: the single-thread WebAssembly build (make test-wasm,
// the browser's st runs); natively and in wasm-mt every use of it runs.
#define GLINT_REQUIRE_THREADS() \
  if (kMaxThreads == 0) GTEST_SKIP() << "WebAssembly built without pthreads has no threads"

class Threads : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = getBackend();
    setBackend("cpu");
  }
  void TearDown() override { setBackend(previous_); }
  std::string previous_;
};

SequentialPtr smallModel(uint64_t seed) {
  setSeed(seed);
  auto m = sequential();
  m->add(layers::dense({{"units", 24}, {"activation", "relu"}, {"inputShape", {12}}}));
  m->add(layers::dense({{"units", 3}, {"activation", "softmax"}}));
  m->compile({.optimizer = std::shared_ptr<Optimizer>(adam(0.01f)),
              .loss = {"sparseCategoricalCrossentropy"},
              .metrics = {"accuracy"}});
  return m;
}

Tensor inputs(int64_t n, uint64_t seed) {
  setSeed(seed);
  return randomNormal({n, 12});
}

Tensor labels(int64_t n) {
  std::vector<int32_t> y(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) y[static_cast<size_t>(i)] = static_cast<int32_t>(i % 3);
  return tensorInt(y, {n});
}

std::vector<std::vector<float>> weightsOf(const Model& m) {
  std::vector<std::vector<float>> out;
  for (const Tensor& w : m.getWeights()) out.push_back(w.toFloats());
  return out;
}

void runAll(int n, const std::function<void(int)>& body) {
  std::vector<std::thread> threads;
  std::vector<std::string> errors(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      try {
        body(i);
      } catch (const std::exception& e) {
        errors[static_cast<size_t>(i)] = e.what();
      }
    });
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < n; ++i) EXPECT_EQ(errors[static_cast<size_t>(i)], "") << "thread " << i;
}

TEST_F(Threads, PredictOnEightModelsAtOnce) {
  GLINT_REQUIRE_THREADS();  // skipped in single-thread WebAssembly: it cannot start a thread
  constexpr int kModels = kMaxThreads;  // 8 natively
  std::vector<SequentialPtr> models;
  std::vector<Tensor> xs;
  std::vector<std::vector<float>> alone;
  for (int i = 0; i < kModels; ++i) {
    models.push_back(smallModel(100 + i));
    xs.push_back(inputs(16 + i, 200 + i));
    alone.push_back(models.back()->predict(xs.back()).toFloats());
  }
  std::vector<int> mismatches(kModels, 0);
  runAll(kModels, [&](int i) {
    for (int r = 0; r < 40; ++r)
      tidy([&] {
        if (models[i]->predict(xs[i], 8).toFloats() != alone[i]) ++mismatches[i];
      });
  });
  for (int i = 0; i < kModels; ++i) EXPECT_EQ(mismatches[i], 0) << "model " << i;
}

TEST_F(Threads, FitTwoModelsAtOnce) {
  GLINT_REQUIRE_THREADS();  // skipped in single-thread WebAssembly: it cannot start a thread
  const Tensor xa = inputs(96, 1), xb = inputs(96, 2), y = labels(96);
  FitOptions options{.epochs = 3, .batchSize = 16, .shuffle = false};
  SequentialPtr a0 = smallModel(7), b0 = smallModel(8);
  a0->fit(xa, y, options);
  b0->fit(xb, y, options);
  SequentialPtr a1 = smallModel(7), b1 = smallModel(8);
  runAll(2, [&](int i) { (i == 0 ? a1 : b1)->fit(i == 0 ? xa : xb, y, options); });
  auto near = [](const std::vector<std::vector<float>>& p,
                 const std::vector<std::vector<float>>& q) {
    if (p.size() != q.size()) return false;
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i].size() != q[i].size()) return false;
      for (size_t j = 0; j < p[i].size(); ++j)
        if (std::abs(p[i][j] - q[i][j]) > 1e-5f * (1 + std::abs(p[i][j]))) return false;
    }
    return true;
  };
  EXPECT_TRUE(near(weightsOf(*a0), weightsOf(*a1)));
  EXPECT_TRUE(near(weightsOf(*b0), weightsOf(*b1)));
  EXPECT_FALSE(near(weightsOf(*a0), weightsOf(*b1)));  // the check can tell models apart
}

TEST_F(Threads, OneModelPredictFromFourThreads) {
  GLINT_REQUIRE_THREADS();  // skipped in single-thread WebAssembly: it cannot start a thread
  SequentialPtr m = smallModel(3);
  const Tensor x = inputs(40, 4);
  const std::vector<float> alone = m->predict(x).toFloats();
  std::atomic<int> mismatches{0};
  runAll(4, [&](int) {
    for (int r = 0; r < 40; ++r)
      tidy([&] {
        if (m->predict(x, 16).toFloats() != alone) ++mismatches;
      });
  });
  EXPECT_EQ(mismatches.load(), 0);
}

TEST_F(Threads, PredictAndSecondFitDuringFitAreRefused) {
  GLINT_REQUIRE_THREADS();  // skipped in single-thread WebAssembly: it cannot start a thread
  SequentialPtr m = smallModel(5);
  const Tensor x = inputs(64, 6), y = labels(64);
  std::mutex mu;
  std::condition_variable cv;
  bool inFit = false, probed = false;
  std::string predictError, fitError, evaluateError;
  LambdaCallbackFns fns;
  fns.onBatchEnd = [&](int batch, const Logs&) {
    if (batch != 0) return;
    std::unique_lock<std::mutex> lock(mu);
    inFit = true;
    cv.notify_all();
    cv.wait(lock, [&] { return probed; });
    // The training thread itself may still use its model from a callback.
    EXPECT_EQ(m->predict(x).shape(), (Shape{64, 3}));
  };
  std::thread trainer(
      [&] { m->fit(x, y, {.epochs = 1, .batchSize = 16, .callbacks = {lambdaCallback(fns)}}); });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return inFit; });
  }
  try {
    m->predict(x);
  } catch (const Error& e) {
    predictError = e.what();
  }
  try {
    m->evaluate(x, y);
  } catch (const Error& e) {
    evaluateError = e.what();
  }
  try {
    m->fit(x, y, {.epochs = 1});
  } catch (const Error& e) {
    fitError = e.what();
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    probed = true;
  }
  cv.notify_all();
  trainer.join();
  EXPECT_NE(predictError.find("being trained on another thread"), std::string::npos)
      << predictError;
  EXPECT_NE(evaluateError.find("being trained on another thread"), std::string::npos)
      << evaluateError;
  EXPECT_NE(fitError.find("being trained on another thread"), std::string::npos) << fitError;
  EXPECT_NE(predictError.find(m->name()), std::string::npos) << predictError;
  // Once training is over, every thread may use it again.
  std::thread after([&] { EXPECT_EQ(m->predict(x).shape(), (Shape{64, 3})); });
  after.join();
}

TEST_F(Threads, SetNumThreadsAnyTime) {
  const int before = numThreads();
  EXPECT_GE(before, 1);
  EXPECT_THROW(setNumThreads(0), Error);
  setSeed(11);
  const Tensor a = randomNormal({96, 80}), b = randomNormal({80, 72});
  const std::vector<float> many = matMul(a, b).toFloats();
  setNumThreads(1);
  EXPECT_EQ(numThreads(), 1);
  const std::vector<float> one = matMul(a, b).toFloats();
  setNumThreads(3);
#ifdef __EMSCRIPTEN__
  // At most the workers the module started (1 without pthreads).
  EXPECT_GE(numThreads(), 1);
  EXPECT_LE(numThreads(), 3);
#else
  EXPECT_EQ(numThreads(), 3);
#endif
  const std::vector<float> three = matMul(a, b).toFloats();
  setBackend("reference");
  const std::vector<float> ref = matMul(a, b).toFloats();
  setBackend("cpu");
  setNumThreads(before);
  ASSERT_EQ(ref.size(), one.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    const float tol = 1e-4f * (1 + std::abs(ref[i]));
    EXPECT_NEAR(one[i], ref[i], tol) << i;
    EXPECT_NEAR(three[i], ref[i], tol) << i;
    EXPECT_NEAR(many[i], ref[i], tol) << i;
  }
  // Changed while other threads compute: each kernel keeps the count it began with.
  GLINT_REQUIRE_THREADS();  // skipped in single-thread WebAssembly: it cannot start a thread
  std::atomic<bool> stop{false};
  std::thread changer([&] {
    for (int n = 1; !stop; n = n % 4 + 1) setNumThreads(n);
  });
  runAll(2, [&](int) {
    for (int r = 0; r < 20; ++r)
      tidy([&] {
        const std::vector<float> v = matMul(a, b).toFloats();
        for (size_t i = 0; i < ref.size(); ++i)
          if (std::abs(v[i] - ref[i]) > 1e-4f * (1 + std::abs(ref[i]))) throw Error("mismatch");
      });
  });
  stop = true;
  changer.join();
  setNumThreads(before);
}

TEST_F(Threads, GlRefusesOtherThreads) {
  GLINT_REQUIRE_THREADS();  // skipped in single-thread WebAssembly: it cannot start a thread
  std::vector<std::string> usable = availableBackends();
  if (std::find(usable.begin(), usable.end(), "gl") == usable.end())
    // Skipped where gl is absent: GLINT_GL=0 (the TSan run, where Mesa's own
    // threads would be reported), no EGL/GLES, or WebAssembly in node.
    GTEST_SKIP() << "no gl backend here (EGL/GLES missing, or GLINT_GL=0)";
  setBackend("gl");
  Tensor onGl = tensor({1, 2, 3, 4}, {2, 2});
  std::string error;
  std::thread other([&] {
    try {
      Tensor t = add(onGl, onGl);
    } catch (const Error& e) {
      error = e.what();
    }
    // A gl tensor whose last handle goes on another thread is freed by the owner later.
    Tensor dropped = std::move(onGl);
  });
  other.join();
  EXPECT_NE(error.find("[gl]"), std::string::npos) << error;
  EXPECT_NE(error.find("another thread"), std::string::npos) << error;
  Tensor still = add(tensor({1, 2}, {2}), tensor({3, 4}, {2}));
  EXPECT_EQ(still.toFloats(), (std::vector<float>{4, 6}));
  releaseUnusedMemory();
}

}  // namespace
}  // namespace glint
