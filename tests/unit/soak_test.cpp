// Soak (issue 9): the standard mlp trains step after step on each native
// backend while memory() and the process's resident set stay flat. The suite
// runs a bounded count; `make soak` runs 20,000 steps per backend through
// GLINT_SOAK_STEPS and prints the figures.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "glint/engine.h"
#include "glint/ops.h"
#include "glint/standard_models.h"

namespace glint {
namespace {

struct BackendGuard {
  std::string saved = getBackend();
  ~BackendGuard() { setBackend(saved); }
};

// Resident set size in bytes (Linux); 0 where /proc is absent (wasm).
int64_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0;
  return resident * 4096;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__EMSCRIPTEN__)
constexpr bool kSanitized = true;  // ASan builds (and wasm) run several times slower
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

int64_t stepsFor(const std::string& backend) {
  if (const char* env = std::getenv("GLINT_SOAK_STEPS")) {
    int64_t n = std::atoll(env);
    // The scalar oracle is ~100x slower: a tenth of the count is still long.
    return backend == "reference" ? std::max<int64_t>(n / 10, 1) : n;
  }
  int64_t n = backend == "reference" ? 50 : backend == "cpu" ? 1000 : 150;
  return kSanitized ? n / 10 : n;
}

TEST(Soak, MlpTrainingKeepsMemoryAndResidentSetFlatOnEveryBackend) {
  BackendGuard guard;
  for (const std::string& backend : availableBackends()) {
    setBackend(backend);
    const int64_t steps = stepsFor(backend);
    // One batch of 64 fixed inputs and one-hot labels (content is not the point).
    std::vector<int32_t> labels(64);
    for (int i = 0; i < 64; ++i) labels[i] = (i * 7) % 10;
    Tensor x = randomUniform({64, 784}, 0, 1, 7);
    Tensor y = oneHot(tensorInt(labels, {64}), 10);
    ModelPtr model = standardModel("mlp");
    const int64_t warmup = std::min<int64_t>(10, steps);
    for (int64_t i = 0; i < warmup; ++i) model->trainOnBatch({x}, {y});
    MemoryInfo before = memory();
    int64_t rssBefore = residentBytes(), rssMid = 0;
    auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < steps; ++i) {
      model->trainOnBatch({x}, {y});
      if (i == steps / 2) rssMid = residentBytes();
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    MemoryInfo after = memory();
    int64_t rssAfter = residentBytes();
    std::printf(
        "[ soak ] %-9s %6lld steps %7.2f s (%.0f steps/s): tensors %lld -> %lld, bytes %lld -> "
        "%lld, "
        "RSS %.1f -> %.1f -> %.1f MiB\n",
        backend.c_str(), static_cast<long long>(steps), secs, steps / secs,
        static_cast<long long>(before.numTensors), static_cast<long long>(after.numTensors),
        static_cast<long long>(before.numBytes), static_cast<long long>(after.numBytes),
        rssBefore / 1048576.0, rssMid / 1048576.0, rssAfter / 1048576.0);
    EXPECT_EQ(after.numTensors, before.numTensors) << backend;
    EXPECT_EQ(after.numBuffers, before.numBuffers) << backend;
    EXPECT_EQ(after.numBytes, before.numBytes) << backend;
    // Under ASan freed memory waits in its quarantine (256 MB) before reuse, so
    // the resident set grows until that fills, and how full it is depends on
    // which tests ran before (googletest shards): LeakSanitizer and the counts
    // above watch for leaks there.
    if (rssBefore > 0 && !kSanitized) {
      // The allocator may settle a little; a leak grows with the step count.
      EXPECT_LT(rssAfter - rssBefore, 8 << 20) << backend << ": RSS grew";
      EXPECT_LT(rssAfter - rssMid, 4 << 20) << backend << ": RSS still growing in the second half";
    }
  }
}

}  // namespace
}  // namespace glint
