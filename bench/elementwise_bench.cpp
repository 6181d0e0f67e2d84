// Element-wise, reduction and softmax kernels at the standard models' training
// shapes, cpu vs reference in one invocation; the speed-up is the figure
// (the machines are shared and noisy, so only ratios are meaningful).
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
  std::vector<Shape> shapes;
  std::function<Tensor(const std::vector<Tensor>&)> run;
};

std::vector<Workload> workloads() {
  using V = std::vector<Tensor>;
  return {
      {"add [64,128] + [128] (bias)",
       {{64, 128}, {128}},
       [](const V& v) { return add(v[0], v[1]); }},
      {"mul [64,512] * [64,512] (gates)",
       {{64, 512}, {64, 512}},
       [](const V& v) { return mul(v[0], v[1]); }},
      {"add [64,512] + [64,512] (gates)",
       {{64, 512}, {64, 512}},
       [](const V& v) { return add(v[0], v[1]); }},
      {"mul [64,512] * [64,1] (column)",
       {{64, 512}, {64, 1}},
       [](const V& v) { return mul(v[0], v[1]); }},
      {"sub [] - [64,512] (scalar)", {{}, {64, 512}}, [](const V& v) { return sub(v[0], v[1]); }},
      {"sigmoid [64,512]", {{64, 512}}, [](const V& v) { return sigmoid(v[0]); }},
      {"tanh [64,512]", {{64, 512}}, [](const V& v) { return tanh(v[0]); }},
      {"exp [64,512]", {{64, 512}}, [](const V& v) { return exp(v[0]); }},
      {"relu [64,128]", {{64, 128}}, [](const V& v) { return relu(v[0]); }},
      {"clip [64,512] (hard sigmoid)",
       {{64, 512}},
       [](const V& v) { return clipByValue(v[0], 0.0f, 1.0f); }},
      {"sum [64,784] over axis 0", {{64, 784}}, [](const V& v) { return sum(v[0], {0}); }},
      {"sum [64,512] over axis 1", {{64, 512}}, [](const V& v) { return sum(v[0], {1}); }},
      {"sum [64,784] all", {{64, 784}}, [](const V& v) { return sum(v[0]); }},
      {"max [64,10] over axis 1", {{64, 10}}, [](const V& v) { return max(v[0], {1}); }},
      {"argMax [64,10] axis 1", {{64, 10}}, [](const V& v) { return argMax(v[0], 1); }},
      {"softmax [64,10]", {{64, 10}}, [](const V& v) { return softmax(v[0]); }},
      {"softmax [64,512]", {{64, 512}}, [](const V& v) { return softmax(v[0]); }},
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
  const std::vector<std::string> backends = {"reference", "cpu"};
  for (const Workload& w : workloads()) {
    for (const std::string& b : backends) {
      auto run = [w, b](benchmark::State& state) {
        setBackend(b);
        std::vector<Tensor> in;
        for (const Shape& s : w.shapes) in.push_back(randomUniform(s, -3.0f, 3.0f));
        for (auto _ : state) {
          Tensor out = w.run(in);
          benchmark::DoNotOptimize(out.impl());
        }
      };
      benchmark::RegisterBenchmark((w.name + " [" + b + "]").c_str(), run)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\ncpu speed-up over reference (same run):\n");
  for (const Workload& w : workloads()) {
    double ref = reporter.seconds[w.name + " [reference]"];
    double cpu = reporter.seconds[w.name + " [cpu]"];
    if (ref > 0 && cpu > 0) std::printf("  %-36s %7.1fx\n", w.name.c_str(), ref / cpu);
  }
  return 0;
}
