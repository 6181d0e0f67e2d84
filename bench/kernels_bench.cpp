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

std::vector<Workload> workloads() {
  return {
      {"matMul 64x784 * 784x128", [] { return std::vector<Tensor>{randomUniform({64, 784}), randomUniform({784, 128})}; },
       [](const std::vector<Tensor>& v) { return matMul(v[0], v[1]); }},
      {"matMul^T 784x64 * 64x128 (weight grad)",
       [] { return std::vector<Tensor>{randomUniform({64, 784}), randomUniform({64, 128})}; },
       [](const std::vector<Tensor>& v) { return matMul(v[0], v[1], true, false); }},
      {"conv2d 64x28x28x1 * 3x3x1x8", [] { return std::vector<Tensor>{randomUniform({64, 28, 28, 1}), randomUniform({3, 3, 1, 8})}; },
       [](const std::vector<Tensor>& v) { return conv2d(v[0], v[1]); }},
      {"conv2d 64x13x13x8 * 3x3x8x16", [] { return std::vector<Tensor>{randomUniform({64, 13, 13, 8}), randomUniform({3, 3, 8, 16})}; },
       [](const std::vector<Tensor>& v) { return conv2d(v[0], v[1]); }},
      {"add 64x128 + 128 (broadcast)", [] { return std::vector<Tensor>{randomUniform({64, 128}), randomUniform({128})}; },
       [](const std::vector<Tensor>& v) { return add(v[0], v[1]); }},
      {"softmax 64x10", [] { return std::vector<Tensor>{randomUniform({64, 10})}; },
       [](const std::vector<Tensor>& v) { return softmax(v[0]); }},
      {"sum 64x784 over axis 0", [] { return std::vector<Tensor>{randomUniform({64, 784})}; },
       [](const std::vector<Tensor>& v) { return sum(v[0], {0}); }},
  };
}

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
      benchmark::RegisterBenchmark((w.name + " [" + b + "]").c_str(), [w, b](benchmark::State& state) {
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
      if (ref > 0 && t > 0) std::printf("  %-42s %-6s %6.2fx\n", w.name.c_str(), b.c_str(), ref / t);
    }
  }
  return 0;
}
