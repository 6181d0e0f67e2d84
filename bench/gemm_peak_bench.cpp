// GEMM against the measured peak, built from the same source natively and as
// WebAssembly (Google Benchmark does not build with Emscripten here, so this
// times with a plain clock). The peak probe is the widest multiply-add this
// build can issue: SIMD128 multiply + add in wasm (it has no FMA), the
// compiler's baseline vectors natively. Prints one JSON object per line:
//   {"what":"peak", "gflops":...}
//   {"what":"gemm", "m","n","k","op","threads","gflops","pct_peak","gflops_sustained"}
// pct_peak divides gflops by peak x threads. The probe keeps its best run of
// ~2 ms, so gflops is likewise the best single product (0.1-40 ms each) of
// the timed repetitions: on a machine shared with other jobs both then
// measure a window the scheduler left alone, and their ratio is the kernel's
// efficiency rather than the load (a 0.2 s loop against a 2 ms probe read
// 66-75% at 512^3 in wasm from one run to the next). gflops_sustained is the
// best whole repetition of at least `--min-time` seconds (default 0.2), of
// which there are five.
//
// Usage: glint_gemm_peak_bench [--min-time S] [--threads 1,2] [--shapes MxNxK[:tn|nt|tt],...]
// --shapes replaces the default square-ish list, e.g. the mlp's and lstm's
// products: 64x128x784,784x128x64:tn,64x512x128,128x512x1792:tn,64x128x512:nt
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

__attribute__((noinline)) V4 probeChains(long iters) noexcept {
  V4 acc[kChains], x = V4{} + 0.999999f, y = V4{} + 1e-7f;
  for (V4& a : acc) a = V4{} + 1.0f;
  for (long i = 0; i < iters; ++i)
    for (V4& a : acc) a = a * x + y;
  V4 s = acc[0];
  for (int c = 1; c < kChains; ++c) s += acc[c];
  return s;
}

/// Best of many ~2 ms runs (at least 7, for at least `minTime` seconds): on
/// a shared machine one of them runs alone on its core, and in wasm all but
/// the first run V8's optimised code (it replaces a function on its next
/// call, not inside a running loop).
double measurePeak(double minTime) {
  const long iters = 1 << 20;
  double best = 0;
  volatile float sink = 0;
  // Called through a pointer the optimisers cannot see through: Binaryen
  // inlines small functions whatever LLVM's noinline says, and inlined into
  // main the probe ran in V8's baseline code (main is entered only once).
  V4 (*volatile probe)(long) noexcept = probeChains;
  auto start = Clock::now();
  for (int r = 0; r < 7 || seconds(start) < minTime; ++r) {
    auto t0 = Clock::now();
    V4 s = probe(iters);
    double t = seconds(t0);
    sink = sink + s[0];
    best = std::max(best, 2.0 * 4 * kChains * iters / t * 1e-9);
  }
  return best;
}

struct Shape {
  int64_t m, n, k;
  bool tA = false, tB = false;
};

/// "MxNxK" with an optional ":tn" / ":nt" / ":tt" (which operands are transposed).
Shape parseShape(const char* s) {
  Shape sh;
  long long m = 0, n = 0, k = 0;
  char t[3] = {};
  int got = std::sscanf(s, "%lldx%lldx%lld:%2s", &m, &n, &k, t);
  if (got < 3) {
    std::fprintf(stderr, "bad shape '%s' (want MxNxK[:tn])\n", s);
    std::exit(2);
  }
  sh.m = m, sh.n = n, sh.k = k;
  sh.tA = t[0] == 't';
  sh.tB = t[1] == 't';
  return sh;
}

struct Rate {
  double bestCall = 0, sustained = 0;  // GFLOP/s
};

/// GFLOP/s of C = op(A) * op(B) (m x k times k x n) on `threads` tasks.
Rate timeGemm(const Shape& sh, int threads, double minTime) {
  const int64_t m = sh.m, n = sh.n, k = sh.k;
  std::vector<float> a(m * k), b(k * n), c(m * n);
  uint32_t s = 12345;
  for (std::vector<float>* v : {&a, &b})
    for (float& x : *v)
      x = static_cast<float>((s = s * 1664525u + 1013904223u) >> 9) * 0x1p-23f - 0.5f;
  glint::cpu::GemmOptions opt;
  opt.threads = threads;
  auto once = [&] {
    glint::cpu::gemm(sh.tA, sh.tB, m, n, k, 1.0f, a.data(), sh.tA ? m : k, b.data(), sh.tB ? k : n,
                     0.0f, c.data(), n, opt);
  };
  once();  // warm-up: packing buffers, pool threads
  const double gflop = 2.0 * m * n * k * 1e-9;
  Rate rate;
  for (int rep = 0; rep < 5; ++rep) {
    long runs = 0;
    auto t0 = Clock::now();
    double t = 0, fastest = 1e30;
    do {
      auto c0 = Clock::now();
      once();
      fastest = std::min(fastest, seconds(c0));
      ++runs;
      t = seconds(t0);
    } while (t < minTime);
    rate.sustained = std::max(rate.sustained, gflop * runs / t);
    rate.bestCall = std::max(rate.bestCall, gflop / fastest);
  }
  if (c[0] != c[0]) std::printf("{\"what\":\"nan\"}\n");  // keeps the results live
  return rate;
}

}  // namespace

int main(int argc, char** argv) {
  double minTime = 0.2;
  std::vector<int> threadCounts = {1};
  std::vector<Shape> shapes = {
      {64, 128, 784}, {128, 128, 128}, {512, 512, 512}, {1024, 1024, 1024}};
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
    } else if (!std::strcmp(argv[i], "--shapes")) {
      shapes.clear();
      for (const char* p = argv[i + 1]; *p;) {
        shapes.push_back(parseShape(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
      }
    }
  }
  double peak = measurePeak(minTime);
  std::printf("{\"what\":\"peak\",\"gflops\":%.2f,\"probe\":\"4-lane mul+add\"}\n", peak);
  for (const Shape& sh : shapes) {
    for (int t : threadCounts) {
      Rate g = timeGemm(sh, t, minTime);
      std::printf(
          "{\"what\":\"gemm\",\"m\":%lld,\"n\":%lld,\"k\":%lld,\"op\":\"%c%c\","
          "\"threads\":%d,\"gflops\":%.2f,\"pct_peak\":%.1f,\"gflops_sustained\":%.2f}\n",
          static_cast<long long>(sh.m), static_cast<long long>(sh.n), static_cast<long long>(sh.k),
          sh.tA ? 't' : 'n', sh.tB ? 't' : 'n', t, g.bestCall, 100.0 * g.bestCall / (peak * t),
          g.sustained);
      std::fflush(stdout);
    }
  }
  return 0;
}
