// GEMM against the measured peak, built from the same source natively and as
// WebAssembly (Google Benchmark does not build with Emscripten here, so this
// times with a plain clock). The peak probe is the widest multiply-add this
// build can issue: SIMD128 multiply + add in wasm (it has no FMA), the
// compiler's baseline vectors natively. Prints one JSON object per line:
//   {"what":"peak", "gflops":...}
//   {"what":"gemm", "m","n","k","threads","gflops","pct_peak"}
// pct_peak divides by peak x threads. Each figure is the best of several
// timed repetitions of at least `--min-time` seconds each (default 0.2).
//
// Usage: glint_gemm_peak_bench [--min-time S] [--threads 1,2]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "src/backends/cpu/gemm.h"
#include "src/backends/cpu/thread_pool.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Independent multiply-add chains (more than latency x throughput), no memory
// traffic; 4-lane vectors are what SIMD128 has.
constexpr int kChains = 12;
typedef float V4 __attribute__((vector_size(16)));

__attribute__((noinline)) V4 probeChains(long iters) {
  V4 acc[kChains], x = V4{} + 0.999999f, y = V4{} + 1e-7f;
  for (V4& a : acc) a = V4{} + 1.0f;
  for (long i = 0; i < iters; ++i)
    for (V4& a : acc) a = a * x + y;
  V4 s = acc[0];
  for (int c = 1; c < kChains; ++c) s += acc[c];
  return s;
}

double measurePeak() {
  const long iters = 1 << 20;
  double best = 0;
  volatile float sink = 0;
  for (int r = 0; r < 7; ++r) {
    auto t0 = Clock::now();
    V4 s = probeChains(iters);
    double t = seconds(t0);
    sink = sink + s[0];
    best = std::max(best, 2.0 * 4 * kChains * iters / t * 1e-9);
  }
  return best;
}

/// Best GFLOP/s of C = A * B (m x k times k x n) on `threads` tasks.
double timeGemm(int64_t m, int64_t n, int64_t k, int threads, double minTime) {
  std::vector<float> a(m * k), b(k * n), c(m * n);
  uint32_t s = 12345;
  for (std::vector<float>* v : {&a, &b})
    for (float& x : *v) x = static_cast<float>((s = s * 1664525u + 1013904223u) >> 9) * 0x1p-23f - 0.5f;
  glint::cpu::GemmOptions opt;
  opt.threads = threads;
  auto once = [&] {
    glint::cpu::gemm(false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n,
                     opt);
  };
  once();  // warm-up: packing buffers, pool threads
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    long runs = 0;
    auto t0 = Clock::now();
    double t = 0;
    do {
      once();
      ++runs;
      t = seconds(t0);
    } while (t < minTime);
    best = std::max(best, 2.0 * m * n * k * runs / t * 1e-9);
  }
  if (c[0] != c[0]) std::printf("{\"what\":\"nan\"}\n");  // keeps the results live
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  double minTime = 0.2;
  std::vector<int> threadCounts = {1};
  if (glint::cpu::ThreadPool::shared().threads() > 1) threadCounts.push_back(2);
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--min-time")) minTime = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--threads")) {
      threadCounts.clear();
      for (const char* p = argv[i + 1]; *p;) {
        threadCounts.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
      }
    }
  }
  double peak = measurePeak();
  std::printf("{\"what\":\"peak\",\"gflops\":%.2f,\"probe\":\"4-lane mul+add\"}\n", peak);
  struct Shape { int64_t m, n, k; };
  for (Shape sh : {Shape{64, 128, 784}, Shape{128, 128, 128}, Shape{512, 512, 512},
                   Shape{1024, 1024, 1024}}) {
    for (int t : threadCounts) {
      double g = timeGemm(sh.m, sh.n, sh.k, t, minTime);
      std::printf("{\"what\":\"gemm\",\"m\":%lld,\"n\":%lld,\"k\":%lld,\"threads\":%d,"
                  "\"gflops\":%.2f,\"pct_peak\":%.1f}\n",
                  static_cast<long long>(sh.m), static_cast<long long>(sh.n),
                  static_cast<long long>(sh.k), t, g, 100.0 * g / (peak * t));
      std::fflush(stdout);
    }
  }
  return 0;
}
