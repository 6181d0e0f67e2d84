// GEMM micro-benchmarks for the cpu backend: GFLOP/s and the share of the
// machine's peak, measured in the same binary by an FMA-throughput probe.
// Shapes: the mlp's 64x784x128 in every transpose combination, 128^3, 512^3
// and 1024^3, each on 1 and 2 threads; plus, for the mlp shapes, the blocked
// GEMM the cpu backend used before this one (a copy kept here as the
// baseline) so its speed-up is measured in the same run.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#if (defined(__x86_64__) || defined(__i386__)) && !defined(__EMSCRIPTEN__)
#include <immintrin.h>
#define GLINT_BENCH_X86 1
#endif

#include "src/backends/cpu/gemm.h"

namespace {

using glint::cpu::GemmOptions;

// ---- peak probe: independent FMA chains (more than latency x throughput),
// no memory traffic. Flops per call: 2 * lanes * chains * iterations.
constexpr int kChains = 12;
constexpr long kIters = 1 << 20;

#ifdef GLINT_BENCH_X86
__attribute__((target("avx512f"))) double probeAvx512() {
  __m512 acc[kChains], x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
  for (__m512& a : acc) a = _mm512_set1_ps(1.0f);
  for (long i = 0; i < kIters; ++i)
    for (__m512& a : acc) a = _mm512_fmadd_ps(a, x, y);
  __m512 s = acc[0];
  for (int c = 1; c < kChains; ++c) s = _mm512_add_ps(s, acc[c]);
  benchmark::DoNotOptimize(s);
  return 2.0 * 16 * kChains * kIters;
}
__attribute__((target("avx2,fma"))) double probeAvx2() {
  __m256 acc[kChains], x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
  for (__m256& a : acc) a = _mm256_set1_ps(1.0f);
  for (long i = 0; i < kIters; ++i)
    for (__m256& a : acc) a = _mm256_fmadd_ps(a, x, y);
  __m256 s = acc[0];
  for (int c = 1; c < kChains; ++c) s = _mm256_add_ps(s, acc[c]);
  benchmark::DoNotOptimize(s);
  return 2.0 * 8 * kChains * kIters;
}
#endif

/// Baseline SIMD without FMA (SSE2, or SIMD128 in wasm): a multiply and an add.
double probeGeneric() {
  typedef float V __attribute__((vector_size(16)));
  V acc[kChains], x = V{} + 0.999999f, y = V{} + 1e-7f;
  for (V& a : acc) a = V{} + 1.0f;
  for (long i = 0; i < kIters; ++i)
    for (V& a : acc) a = a * x + y;
  V s = acc[0];
  for (int c = 1; c < kChains; ++c) s += acc[c];
  benchmark::DoNotOptimize(s);
  return 2.0 * 4 * kChains * kIters;
}

/// Best single-thread GFLOP/s over a few runs of the widest probe this CPU runs.
double measurePeak() {
  double (*probe)() = probeGeneric;
#ifdef GLINT_BENCH_X86
  if (__builtin_cpu_supports("avx512f")) probe = probeAvx512;
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) probe = probeAvx2;
#endif
  double best = 0;
  for (int r = 0; r < 7; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    double flops = probe();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, flops / s * 1e-9);
  }
  return best;
}

double gPeak = 0;  // GFLOP/s per core

// ---- the previous cpu BatchMatMul kernel (src/backends/cpu/matmul.cpp before
// the packed GEMM), kept verbatim in substance as the speed-up baseline.
namespace baseline {
constexpr int64_t kBlockK = 128, kBlockN = 256;
struct Strided {
  const float* data;
  int64_t row, col;
  float at(int64_t r, int64_t c) const { return data[r * row + c * col]; }
};
template <int R>
void rowsTimesBlock(const Strided& a, int64_t i, int64_t p0, int64_t kc, const float* block,
                    int64_t ldb, int64_t nc, float* c, int64_t ldc) {
  float acc[R][kBlockN];
  for (int r = 0; r < R; ++r) std::fill(acc[r], acc[r] + nc, 0.0f);
  for (int64_t p = 0; p < kc; ++p) {
    const float* bRow = block + p * ldb;
    float av[R];
    for (int r = 0; r < R; ++r) av[r] = a.at(i + r, p0 + p);
    for (int64_t j = 0; j < nc; ++j) {
      float bv = bRow[j];
      for (int r = 0; r < R; ++r) acc[r][j] += av[r] * bv;
    }
  }
  for (int r = 0; r < R; ++r)
    for (int64_t j = 0; j < nc; ++j) c[(i + r) * ldc + j] += acc[r][j];
}
__attribute__((noinline)) void gemm(const Strided& a, const Strided& b, float* c, int64_t m,
                                    int64_t n, int64_t k, std::vector<float>& packed) {
  std::fill(c, c + m * n, 0.0f);
  for (int64_t p0 = 0; p0 < k; p0 += kBlockK) {
    int64_t kc = std::min(kBlockK, k - p0);
    for (int64_t j0 = 0; j0 < n; j0 += kBlockN) {
      int64_t nc = std::min(kBlockN, n - j0);
      const float* block = b.data + p0 * b.row + j0;
      int64_t ldb = b.row;
      if (b.col != 1) {
        for (int64_t jg = 0; jg < nc; jg += 16) {
          int64_t width = std::min<int64_t>(16, nc - jg);
          for (int64_t p = 0; p < kc; ++p)
            for (int64_t j = jg; j < jg + width; ++j) packed[p * nc + j] = b.at(p0 + p, j0 + j);
        }
        block = packed.data();
        ldb = nc;
      }
      int64_t i = 0;
      for (; i + 4 <= m; i += 4) rowsTimesBlock<4>(a, i, p0, kc, block, ldb, nc, c + j0, n);
      for (; i < m; ++i) rowsTimesBlock<1>(a, i, p0, kc, block, ldb, nc, c + j0, n);
    }
  }
}
}  // namespace baseline

struct Operands {
  std::vector<float> a, b, c;
  Operands(int64_t m, int64_t n, int64_t k)
      : a(static_cast<size_t>(m * k)),
        b(static_cast<size_t>(k * n)),
        c(static_cast<size_t>(m * n)) {
    uint32_t s = 12345;
    for (std::vector<float>* v : {&a, &b})
      for (float& x : *v)
        x = static_cast<float>((s = s * 1664525u + 1013904223u) >> 9) * 0x1p-23f - 0.5f;
  }
};

/// This process's CPU seconds (all threads, spinning workers included).
double processCpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/// Counters: GFLOP/s and %peak on wall time (peak x threads); and GFLOP per
/// CPU-second of the process, which other jobs on a shared machine disturb
/// far less (for 1 thread it is the figure to trust there).
void report(benchmark::State& state, double flops, int threads, double cpuSeconds) {
  using benchmark::Counter;
  state.counters["GFLOP/s"] = Counter(flops * 1e-9, Counter::kIsIterationInvariantRate);
  state.counters["%peak"] =
      Counter(flops * 1e-9 * 100 / (gPeak * threads), Counter::kIsIterationInvariantRate);
  state.counters["GFLOP/cpu-s"] = flops * 1e-9 * state.iterations() / cpuSeconds;
}

/// gemm(m, n, k) with the given transposes on `threads` tasks.
void runGemm(benchmark::State& state, int64_t m, int64_t n, int64_t k, bool tA, bool tB,
             int threads) {
  Operands o(m, n, k);
  GemmOptions opt{threads, ""};
  double cpu0 = processCpuSeconds();
  for (auto _ : state) {
    glint::cpu::gemm(tA, tB, m, n, k, 1.0f, o.a.data(), tA ? m : k, o.b.data(), tB ? k : n, 0.0f,
                     o.c.data(), n, opt);
    benchmark::DoNotOptimize(o.c.data());
    benchmark::ClobberMemory();
  }
  report(state, 2.0 * m * n * k, threads, processCpuSeconds() - cpu0);
}

void runBaseline(benchmark::State& state, int64_t m, int64_t n, int64_t k, bool tA, bool tB) {
  Operands o(m, n, k);
  std::vector<float> packed(static_cast<size_t>(baseline::kBlockK * baseline::kBlockN));
  baseline::Strided sa =
      tA ? baseline::Strided{o.a.data(), 1, m} : baseline::Strided{o.a.data(), k, 1};
  baseline::Strided sb =
      tB ? baseline::Strided{o.b.data(), 1, k} : baseline::Strided{o.b.data(), n, 1};
  double cpu0 = processCpuSeconds();
  for (auto _ : state) {
    baseline::gemm(sa, sb, o.c.data(), m, n, k, packed);
    benchmark::DoNotOptimize(o.c.data());
    benchmark::ClobberMemory();
  }
  report(state, 2.0 * m * n * k, 1, processCpuSeconds() - cpu0);
}

/// The GEMMs of one mlp training step (batch 64, Dense 784->128, Dense 128->10):
/// forward x*W1, h*W2; gradients h^T*dy2, dy2*W2^T, x^T*dh (x needs none).
struct StepGemm {
  int64_t m, n, k;
  bool tA, tB;
};
const StepGemm kMlpStep[] = {{64, 128, 784, false, false},
                             {64, 10, 128, false, false},
                             {128, 10, 64, true, false},
                             {64, 128, 10, false, true},
                             {784, 128, 64, true, false}};

void BM_mlpStepGemms(benchmark::State& state, bool useBaseline) {
  std::vector<Operands> ops;
  for (const StepGemm& g : kMlpStep) ops.emplace_back(g.m, g.n, g.k);
  std::vector<float> packed(static_cast<size_t>(baseline::kBlockK * baseline::kBlockN));
  double flops = 0;
  for (const StepGemm& g : kMlpStep) flops += 2.0 * g.m * g.n * g.k;
  double cpu0 = processCpuSeconds();
  for (auto _ : state) {
    for (size_t i = 0; i < ops.size(); ++i) {
      const StepGemm& g = kMlpStep[i];
      Operands& o = ops[i];
      if (useBaseline) {
        baseline::Strided sa =
            g.tA ? baseline::Strided{o.a.data(), 1, g.m} : baseline::Strided{o.a.data(), g.k, 1};
        baseline::Strided sb =
            g.tB ? baseline::Strided{o.b.data(), 1, g.k} : baseline::Strided{o.b.data(), g.n, 1};
        baseline::gemm(sa, sb, o.c.data(), g.m, g.n, g.k, packed);
      } else {
        glint::cpu::gemm(g.tA, g.tB, g.m, g.n, g.k, 1.0f, o.a.data(), g.tA ? g.m : g.k, o.b.data(),
                         g.tB ? g.k : g.n, 0.0f, o.c.data(), g.n);
      }
      benchmark::DoNotOptimize(o.c.data());
    }
    benchmark::ClobberMemory();
  }
  report(state, flops, 1, processCpuSeconds() - cpu0);
}

void BM_peakProbe(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(gPeak);
  state.counters["GFLOP/s"] = gPeak;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  gPeak = measurePeak();
  std::printf("peak probe: %.1f GFLOP/s per core; gemm kernels: %s\n", gPeak,
              glint::cpu::gemmIsas().front().c_str());
  benchmark::RegisterBenchmark("peak_fma_probe", BM_peakProbe)->Iterations(1);
  struct Mlp {
    const char* name;
    bool tA, tB;
  };
  // The mlp's first Dense layer: forward x*W (NN); its gradients dy*W^T (NT)
  // and x^T*dy (TN) have other shapes in training; here all four transposes
  // run at 64x784x128 so the packing paths compare like for like.
  for (Mlp v : {Mlp{"NN", false, false}, Mlp{"NT", false, true}, Mlp{"TN", true, false},
                Mlp{"TT", true, true}}) {
    for (int t : {1, 2})
      benchmark::RegisterBenchmark(
          ("gemm_mlp_64x784x128_" + std::string(v.name) + "/threads:" + std::to_string(t)).c_str(),
          [v, t](benchmark::State& s) { runGemm(s, 64, 128, 784, v.tA, v.tB, t); })
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
    benchmark::RegisterBenchmark(
        ("baseline_mlp_64x784x128_" + std::string(v.name)).c_str(),
        [v](benchmark::State& s) { runBaseline(s, 64, 128, 784, v.tA, v.tB); })
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark("mlp_step_gemms/baseline", BM_mlpStepGemms, true)
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("mlp_step_gemms/gemm_auto_threads", BM_mlpStepGemms, false)
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
  for (int64_t size : {128, 512, 1024})
    for (int t : {1, 2})
      benchmark::RegisterBenchmark(
          ("gemm_square_" + std::to_string(size) + "/threads:" + std::to_string(t)).c_str(),
          [size, t](benchmark::State& s) { runGemm(s, size, size, size, false, false, t); })
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
  // Where 2 threads start to pay (gemm.cpp's kParallelMacs): run with
  // --benchmark_filter=threshold on an idle machine.
  for (int64_t size : {32, 48, 64, 80, 96, 128, 160})
    for (int t : {1, 2})
      benchmark::RegisterBenchmark(
          ("gemm_threshold_" + std::to_string(size) + "/threads:" + std::to_string(t)).c_str(),
          [size, t](benchmark::State& s) { runGemm(s, size, size, size, false, false, t); })
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
