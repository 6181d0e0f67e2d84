// Optimizer updates on the cpu backend: the one-pass ApplyAdam / ApplyMomentum
// kernels on one thread and split over the pool, against the composed ops they
// replaced, at sizes around the threading threshold and the standard models'
// parameter counts (mlp 784x128 = 100352). The 1-vs-2-thread crossover sets
// kTaskElements in src/backends/cpu/optim.cpp. Only ratios within one
// run mean anything on a shared machine.
//   glint_optim_bench [--benchmark_filter=adam]
#include <benchmark/benchmark.h>

#include <cstdint>
#include <limits>

#include "glint/glint.h"
#include "glint/optim_ops.h"
#include "src/backends/cpu/optim.h"

using namespace glint;

namespace {

const std::vector<int64_t> kSizes = {4096, 16384, 32768, 65536, 100352, 262144, 1 << 20};

/// threads: 1 = never split, 0 = split over every pool thread.
void adamKernel(benchmark::State& state, int threads) {
  setBackend("cpu");
  int64_t n = state.range(0);
  Tensor w = randomUniform({n}, -1, 1), m = randomUniform({n}, -0.1f, 0.1f);
  Tensor v = randomUniform({n}, 0, 0.01f), g = randomNormal({n});
  int64_t saved = cpu::setOptimTaskElements(threads == 1 ? std::numeric_limits<int64_t>::max() : 1);
  for (auto _ : state) {
    AdamUpdate u = applyAdam(w, m, v, g, 1e-3f, 0.9f, 0.999f, 1e-7f, 0.5f, 0.01f);
    benchmark::DoNotOptimize(u.w.impl());
  }
  cpu::setOptimTaskElements(saved);
  state.SetBytesProcessed(state.iterations() * n * 7 * int64_t(sizeof(float)));
}

void adamComposed(benchmark::State& state) {
  setBackend("cpu");
  int64_t n = state.range(0);
  Tensor w = randomUniform({n}, -1, 1), m = randomUniform({n}, -0.1f, 0.1f);
  Tensor v = randomUniform({n}, 0, 0.01f), g = randomNormal({n});
  const float b1 = 0.9f, b2 = 0.999f, lr = 1e-3f;
  for (auto _ : state) {
    Tensor mNew = m * b1 + g * (1 - b1);
    Tensor vNew = v * b2 + square(g) * (1 - b2);
    Tensor update = (mNew / 0.5f) / (sqrt(vNew / 0.01f) + 1e-7f);
    Tensor wNew = update * -lr + w;
    benchmark::DoNotOptimize(wNew.impl());
  }
  state.SetBytesProcessed(state.iterations() * n * 7 * int64_t(sizeof(float)));
}

void momentumKernel(benchmark::State& state, int threads) {
  setBackend("cpu");
  int64_t n = state.range(0);
  Tensor w = randomUniform({n}, -1, 1), a = randomUniform({n}), g = randomNormal({n});
  int64_t saved = cpu::setOptimTaskElements(threads == 1 ? std::numeric_limits<int64_t>::max() : 1);
  for (auto _ : state) {
    MomentumUpdate u = applyMomentum(w, a, g, 0.01f, 0.9f, false);
    benchmark::DoNotOptimize(u.w.impl());
  }
  cpu::setOptimTaskElements(saved);
  state.SetBytesProcessed(state.iterations() * n * 5 * int64_t(sizeof(float)));
}

void sizes(benchmark::internal::Benchmark* b) {
  for (int64_t n : kSizes) b->Arg(n);
  b->Unit(benchmark::kMicrosecond)->UseRealTime();
}

BENCHMARK_CAPTURE(adamKernel, 1thread, 1)->Apply(sizes);
BENCHMARK_CAPTURE(adamKernel, pool, 0)->Apply(sizes);
BENCHMARK(adamComposed)->Apply(sizes);
BENCHMARK_CAPTURE(momentumKernel, 1thread, 1)->Apply(sizes);
BENCHMARK_CAPTURE(momentumKernel, pool, 0)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
