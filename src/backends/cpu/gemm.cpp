#include "src/backends/cpu/gemm.h"

#include <algorithm>
#include <cstdint>
#include <memory>

#include "glint/error.h"
#include "src/backends/cpu/cpu_isa.h"
#include "src/backends/cpu/thread_pool.h"

namespace glint::cpu {

namespace gemm_detail {

float* workspace(size_t floats) {
  thread_local std::unique_ptr<float[]> buffer;
  thread_local size_t capacity = 0;
  if (floats + 16 > capacity) {
    capacity = std::max(floats + 16, capacity * 2);
    buffer.reset(new float[capacity]);
  }
  auto address = reinterpret_cast<uintptr_t>(buffer.get());
  return buffer.get() + ((64 - address % 64) % 64) / sizeof(float);
}

}  // namespace gemm_detail

namespace {

using gemm_detail::KernelSet;

const std::vector<KernelSet>& availableSets() {
  static const std::vector<KernelSet> sets = [] {
    std::vector<KernelSet> out;
    for (KernelSet s :
         {gemm_detail::kernelsAvx512(), gemm_detail::kernelsAvx2(), gemm_detail::kernelsGeneric()})
      if (s.block && cpuRuns(s.isa)) out.push_back(s);
    return out;
  }();
  return sets;
}

const KernelSet& pickSet(const std::string& isa) {
  const std::vector<KernelSet>& sets = availableSets();
  if (isa.empty()) return sets.front();
  for (const KernelSet& s : sets)
    if (s.isa == isa) return s;
  fail("gemm", "kernel set '", isa, "' is not available on this CPU");
}

// Below this many multiply-adds (m * n * k) a product runs on one thread.
// PROVISIONAL, not yet a measured crossover: glint_gemm_bench
// --benchmark_filter=threshold (square 32..160 at 1 and 2 threads, wall time)
// was run only while other jobs kept 2-core load at 6-9, and there 2 threads
// lost at every size up to 1024^3. Per process CPU-second, 2 threads kept 66%
// of 1 thread's efficiency at 160^3 and 98% at 512^3 (spin-waiting included).
// 2^21 (128^3) assumes an idle machine; re-measure on one and set it here.
constexpr double kParallelMacs = 1 << 21;

}  // namespace

std::vector<std::string> gemmIsas() {
  std::vector<std::string> names;
  for (const KernelSet& s : availableSets()) names.push_back(s.isa);
  return names;
}

void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
          const GemmOptions& options) {
  const KernelSet& set = pickSet(options.isa);
  if (m <= 0 || n <= 0) return;
  if (k <= 0 || alpha == 0.0f) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0.0f ? 0.0f : beta * c[i * ldc + j];
    if (options.epilogue.fn) options.epilogue.fn(options.epilogue.ctx, c, ldc, 0, 0, m, n);
    return;
  }
  gemm_detail::Problem g{transA, transB, m,   n,    k, alpha, a,
                         lda,    b,      ldb, beta, c, ldc,   options.epilogue};
  ThreadPool& pool = ThreadPool::shared();
  int64_t tasks = options.threads > 0                              ? options.threads
                  : static_cast<double>(m) * n * k < kParallelMacs ? 1
                                                                   : pool.threads();
  if (m <= gemm_detail::kSmallRows) {
    // Column slabs of whole register tiles; B is streamed, never packed.
    int64_t units = (n + set.nr - 1) / set.nr;
    tasks = std::min(tasks, units);
    if (tasks <= 1) return set.small(g, 0, m, 0, n);
    pool.parallelFor(tasks, [&](int64_t t) {
      set.small(g, 0, m, units * t / tasks * set.nr, std::min(units * (t + 1) / tasks * set.nr, n));
    });
    return;
  }
  if (tasks <= 1) {
    set.block(g, 0, m, 0, n);
    return;
  }
  // Split C into column slabs of whole panels (each task packs only its part
  // of B); when there are too few panels, into row slabs of whole tiles.
  int64_t panels = (n + set.nr - 1) / set.nr, tiles = (m + set.mr - 1) / set.mr;
  bool byColumns = panels >= tasks || panels >= tiles;
  int64_t units = byColumns ? panels : tiles, unit = byColumns ? set.nr : set.mr;
  tasks = std::min(tasks, units);
  pool.parallelFor(tasks, [&](int64_t t) {
    int64_t lo = units * t / tasks * unit,
            hi = std::min(units * (t + 1) / tasks * unit, byColumns ? n : m);
    if (byColumns) set.block(g, 0, m, lo, hi);
    else set.block(g, lo, hi, 0, n);
  });
}

}  // namespace glint::cpu
