// Kernel micro-benchmarks: the same op on every backend in one run, reported
// as a speed-up over `reference` measured in the same invocation (the
// machines are shared and noisy, so only ratios are meaningful).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "glint/glint.h"

using namespace glint;

namespace {

struct Workload {
  std::string name;
  std::function<std::vector<Tensor>()> inputs;
  std::function<Tensor(const std::vector<Tensor>&)> run;
};

std::vector<Tensor> denseInputs() {
  return {randomUniform({64, 784}), randomUniform({784, 128}, -0.1f, 0.1f),
          randomUniform({128}, -0.1f, 0.1f)};
}

std::vector<Tensor> ceInputs() {
  std::vector<float> ids(64);
  for (int i = 0; i < 64; ++i) ids[i] = static_cast<float>(i % 10);
  return {oneHot(cast(tensor(ids, {64}), DType::int32), 10), randomUniform({64, 10}, -3, 3)};
}

/// Gradients of sum(layer(x, w, b)) with respect to w and b (a training step's layer work).
Tensor denseStep(const std::vector<Tensor>& v, const TensorFn& layer) {
  Tensor x = v[0];
  std::vector<Tensor> g = grads(
      [&](const std::vector<Tensor>& wb) {
        return sum(layer({x, wb[0], wb[1]}));
      },
      {v[1], v[2]});
  return g[0];
}

std::vector<Workload> workloads() {
  return {
      {"matMul 64x784 * 784x128",
       [] {
         return std::vector<Tensor>{randomUniform({64, 784}), randomUniform({784, 128})};
       },
       [](const std::vector<Tensor>& v) { return matMul(v[0], v[1]); }},
      {"matMul^T 784x64 * 64x128 (weight grad)",
       [] {
         return std::vector<Tensor>{randomUniform({64, 784}), randomUniform({64, 128})};
       },
       [](const std::vector<Tensor>& v) { return matMul(v[0], v[1], true, false); }},
      {"conv2d 64x28x28x1 * 3x3x1x8",
       [] {
         return std::vector<Tensor>{randomUniform({64, 28, 28, 1}), randomUniform({3, 3, 1, 8})};
       },
       [](const std::vector<Tensor>& v) { return conv2d(v[0], v[1]); }},
      {"conv2d 64x13x13x8 * 3x3x8x16",
       [] {
         return std::vector<Tensor>{randomUniform({64, 13, 13, 8}), randomUniform({3, 3, 8, 16})};
       },
       [](const std::vector<Tensor>& v) { return conv2d(v[0], v[1]); }},
      {"add 64x128 + 128 (broadcast)",
       [] {
         return std::vector<Tensor>{randomUniform({64, 128}), randomUniform({128})};
       },
       [](const std::vector<Tensor>& v) { return add(v[0], v[1]); }},
      {"softmax 64x10",
       [] {
         return std::vector<Tensor>{randomUniform({64, 10})};
       },
       [](const std::vector<Tensor>& v) { return softmax(v[0]); }},
      {"sum 64x784 over axis 0",
       [] {
         return std::vector<Tensor>{randomUniform({64, 784})};
       },
       [](const std::vector<Tensor>& v) { return sum(v[0], {0}); }},
      // Fused kernels against the ops they replace (the mlp's layers), forward
      // and forward + backward; the pairs are compared after the run.
      {"dense 64x784->128 relu: fusedMatMul", denseInputs,
       [](const std::vector<Tensor>& v) { return fusedMatMul(v[0], v[1], v[2], "relu"); }},
      {"dense 64x784->128 relu: matMul+add+relu", denseInputs,
       [](const std::vector<Tensor>& v) { return relu(add(matMul(v[0], v[1]), v[2])); }},
      {"dense fwd+bwd: fusedMatMul", denseInputs,
       [](const std::vector<Tensor>& v) {
         return denseStep(
             v, [](const std::vector<Tensor>& w) { return fusedMatMul(w[0], w[1], w[2], "relu"); });
       }},
      {"dense fwd+bwd: matMul+add+relu", denseInputs,
       [](const std::vector<Tensor>& v) {
         return denseStep(
             v, [](const std::vector<Tensor>& w) { return relu(add(matMul(w[0], w[1]), w[2])); });
       }},
      {"softmax CE 64x10 fwd+bwd: fused kernel", ceInputs,
       [](const std::vector<Tensor>& v) {
         return grad([&](const Tensor& x) { return sum(softmaxCrossEntropyWithLogits(v[0], x)); },
                     v[1]);
       }},
      {"softmax CE 64x10 fwd+bwd: softmax+clip+log", ceInputs,
       [](const std::vector<Tensor>& v) {
         return grad(
             [&](const Tensor& x) {
               Tensor p = clipByValue(softmax(x, -1), 1e-7f, 1 - 1e-7f);
               return sum(neg(sum(mul(v[0], log(p)), {-1})));
             },
             v[1]);
       }},
  };
}

/// fused / unfused workload names, compared per backend after the run.
const std::vector<std::pair<std::string, std::string>> kFusedPairs = {
    {"dense 64x784->128 relu: fusedMatMul", "dense 64x784->128 relu: matMul+add+relu"},
    {"dense fwd+bwd: fusedMatMul", "dense fwd+bwd: matMul+add+relu"},
    {"softmax CE 64x10 fwd+bwd: fused kernel", "softmax CE 64x10 fwd+bwd: softmax+clip+log"},
};

/// Captures each run's time per iteration while the console reporter prints.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> seconds;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) seconds[r.benchmark_name()] = r.GetAdjustedRealTime();
    ConsoleReporter::ReportRuns(runs);
  }
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::vector<std::string> backends = availableBackends();
  for (const Workload& w : workloads()) {
    for (const std::string& b : backends) {
      benchmark::RegisterBenchmark((w.name + " [" + b + "]").c_str(), [w,
                                                                       b](benchmark::State& state) {
        setBackend(b);
        std::vector<Tensor> in = w.inputs();
        for (auto _ : state) {
          Tensor out = w.run(in);
          benchmark::DoNotOptimize(out.impl());
        }
      })->Unit(benchmark::kMicrosecond);
    }
  }
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nspeed-up over reference (same run):\n");
  for (const Workload& w : workloads()) {
    double ref = reporter.seconds[w.name + " [reference]"];
    for (const std::string& b : backends) {
      if (b == "reference") continue;
      double t = reporter.seconds[w.name + " [" + b + "]"];
      if (ref > 0 && t > 0)
        std::printf("  %-42s %-6s %6.2fx\n", w.name.c_str(), b.c_str(), ref / t);
    }
  }
  std::printf("\nfused over unfused (same run):\n");
  for (const auto& [fused, unfused] : kFusedPairs)
    for (const std::string& b : backends) {
      double tf = reporter.seconds[fused + " [" + b + "]"];
      double tu = reporter.seconds[unfused + " [" + b + "]"];
      if (tf > 0 && tu > 0) std::printf("  %-42s %-9s %6.2fx\n", fused.c_str(), b.c_str(), tu / tf);
    }
  return 0;
}
