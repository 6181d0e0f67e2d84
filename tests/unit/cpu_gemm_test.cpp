// The cpu backend's GEMM against a double-precision loop: odd sizes around
// the register tile, panel and cache-block edges, every transpose, strided
// operands, alpha / beta, every kernel set this CPU runs, 1 and 2 threads.
// Also the thread pool it runs on.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "glint/error.h"
#include "src/backends/cpu/gemm.h"
#include "src/backends/cpu/thread_pool.h"

namespace glint::cpu {
namespace {

struct Shape3 {
  int64_t m, n, k;
};

std::vector<float> randomValues(size_t count, uint32_t seed) {
  std::vector<float> v(count);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>((seed >> 8) % 20001) / 10000.0f - 1.0f;
  }
  return v;
}

/// Runs one product with padded leading dimensions and checks every element
/// of C (and that the padding is untouched).
void checkGemm(bool tA, bool tB, Shape3 s, float alpha, float beta, const GemmOptions& opt) {
  SCOPED_TRACE("m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" +
               std::to_string(s.k) + " tA=" + std::to_string(tA) + " tB=" + std::to_string(tB) +
               " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta) +
               " isa=" + opt.isa + " threads=" + std::to_string(opt.threads));
  int64_t aRows = tA ? s.k : s.m, aCols = tA ? s.m : s.k;
  int64_t bRows = tB ? s.n : s.k, bCols = tB ? s.k : s.n;
  int64_t lda = aCols + 3, ldb = bCols + 1, ldc = s.n + 2;
  std::vector<float> a = randomValues(aRows * lda, 1 + s.m * 7 + s.k);
  std::vector<float> b = randomValues(bRows * ldb, 2 + s.n * 5 + s.k);
  std::vector<float> c = randomValues(s.m * ldc, 3 + s.m + s.n);
  if (beta == 0.0f)  // beta == 0 must ignore C, NaN included
    for (float& x : c) x = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> before = c;
  gemm(tA, tB, s.m, s.n, s.k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc, opt);
  int bad = 0;
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      float got = c[i * ldc + j];
      if (j >= s.n) {  // padding
        if (!(std::isnan(got) && std::isnan(before[i * ldc + j])) && got != before[i * ldc + j])
          ++bad;
        continue;
      }
      double sum = 0, mag = 0;
      for (int64_t p = 0; p < s.k; ++p) {
        double x = tA ? a[p * lda + i] : a[i * lda + p];
        double y = tB ? b[j * ldb + p] : b[p * ldb + j];
        sum += x * y;
        mag += std::abs(x * y);
      }
      double old = beta == 0.0f ? 0.0 : before[i * ldc + j];
      double want = alpha * sum + beta * old;
      double tol = 2e-7 * (s.k + 4) * (std::abs(alpha) * mag + std::abs(beta * old)) + 1e-30;
      if (!(std::abs(got - want) <= tol) && bad++ < 5)
        ADD_FAILURE() << "C(" << i << "," << j << ") = " << got << ", want " << want;
    }
  }
  EXPECT_EQ(bad, 0);
}

std::vector<Shape3> oddShapes() {
  // Tiles are 6 rows by 8/16/64 columns, k blocks 256, n blocks 512.
  return {{1, 1, 1},
          {1, 17, 5},
          {5, 1, 9},
          {6, 8, 1},
          {7, 9, 3},
          {13, 15, 16},
          {6, 16, 2},
          {11, 63, 31},
          {12, 65, 7},
          {19, 129, 40},
          {3, 200, 257},
          {25, 33, 513},
          {8, 521, 11},
          {64, 10, 128},
          {67, 97, 260},
          // few rows: B read unpacked (gemm_small.h), column tails, long k
          {2, 300, 1030},
          {4, 67, 33},
          {3, 5, 2},
          // one-sample predict: one partial vector (whole loads but the last
          // rows), and one vector short of the widest pass
          {1, 10, 400},
          {1, 10, 1},
          {2, 120, 9},
          // one row alone: passes of 256 columns with AVX-512 (an LSTM step's
          // 128 x 512 product), a partial last vector, a short second pass
          {1, 512, 128},
          {1, 250, 9},
          {1, 300, 7},
          // B^T packed in 4 x 4 register transposes (WebAssembly): panels
          // whose width is a multiple of 4 (36 = 16 + 16 + 4) with a k tail,
          // and the lstm's dz W_r^T (64 x 128 x 512)
          {5, 36, 13},
          {9, 20, 6},
          {64, 128, 512}};
}

class GemmIsa : public ::testing::TestWithParam<std::string> {};

TEST_P(GemmIsa, OddSizesEveryTransposeOneAndTwoThreads) {
  for (int threads : {1, 2})
    for (bool tA : {false, true})
      for (bool tB : {false, true})
        for (Shape3 s : oddShapes()) checkGemm(tA, tB, s, 1.0f, 0.0f, {threads, GetParam()});
}

TEST_P(GemmIsa, AlphaBetaAccumulate) {
  for (int threads : {1, 2})
    for (float beta : {1.0f, 0.5f, -2.0f})
      for (Shape3 s : {Shape3{7, 70, 300}, Shape3{13, 17, 5}, Shape3{3, 70, 300}}) {
        checkGemm(false, false, s, 0.75f, beta, {threads, GetParam()});
        checkGemm(true, true, s, -1.5f, beta, {threads, GetParam()});
      }
}

TEST_P(GemmIsa, SplitsAcrossMoreTasksThanWork) {
  // More tasks than row tiles or column panels, and column slabs that cross
  // the 512-column block.
  for (int threads : {3, 5}) {
    checkGemm(false, true, {2, 3, 4}, 1.0f, 0.0f, {threads, GetParam()});
    checkGemm(true, false, {40, 1100, 9}, 1.0f, 1.0f, {threads, GetParam()});
  }
}

INSTANTIATE_TEST_SUITE_P(CpuGemm, GemmIsa, ::testing::ValuesIn(gemmIsas()),
                         [](const auto& info) { return info.param; });

TEST(CpuGemm, DegenerateSizes) {
  std::vector<float> a(6, 1.0f), b(6, 1.0f), c(6, 5.0f);
  gemm(false, false, 2, 3, 0, 1.0f, a.data(), 1, b.data(), 3, 0.5f, c.data(), 3);
  for (float x : c) EXPECT_EQ(x, 2.5f);  // k = 0: C = beta * C
  gemm(false, false, 2, 3, 0, 1.0f, a.data(), 1, b.data(), 3, 0.0f, c.data(), 3);
  for (float x : c) EXPECT_EQ(x, 0.0f);
  c.assign(6, 7.0f);
  gemm(false, false, 0, 3, 2, 1.0f, a.data(), 2, b.data(), 3, 0.0f, c.data(), 3);
  gemm(false, false, 2, 0, 2, 1.0f, a.data(), 2, b.data(), 3, 0.0f, c.data(), 3);
  for (float x : c) EXPECT_EQ(x, 7.0f);  // nothing to write
}

TEST(CpuGemm, KnowsItsKernelSets) {
  std::vector<std::string> isas = gemmIsas();
  ASSERT_FALSE(isas.empty());
  EXPECT_EQ(isas.back(), "generic");
  float a = 1, b = 1, c = 0;
  EXPECT_THROW(gemm(false, false, 1, 1, 1, 1, &a, 1, &b, 1, 0, &c, 1, {0, "sse9"}), Error);
}

TEST(CpuThreadPool, RunsEveryTaskOnce) {
  ThreadPool pool(3);
  for (int64_t tasks : {0, 1, 2, 7, 100}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(tasks));
    pool.parallelFor(tasks, [&](int64_t i) { hits[i].fetch_add(1); });
    for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  }
}

TEST(CpuThreadPool, NestedCallsRunInlineAndErrorsPropagate) {
  ThreadPool& pool = ThreadPool::shared();
  std::atomic<int> inner{0};
  pool.parallelFor(4, [&](int64_t) { pool.parallelFor(3, [&](int64_t) { inner.fetch_add(1); }); });
  EXPECT_EQ(inner.load(), 12);
  EXPECT_THROW(pool.parallelFor(5,
                                [](int64_t i) {
                                  if (i == 3) throw std::runtime_error("task 3");
                                }),
               std::runtime_error);
  std::atomic<int> after{0};  // still usable after a throw
  pool.parallelFor(6, [&](int64_t) { after.fetch_add(1); });
  EXPECT_EQ(after.load(), 6);
}

// Needs std::thread: compiled only where the build has threads (not the
// single-threaded WebAssembly build).
#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
TEST(CpuThreadPool, ConcurrentCallersAndNoWorkers) {
  ThreadPool pool(1);
  std::atomic<int> total{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t)
    callers.emplace_back([&] {
      for (int r = 0; r < 50; ++r) pool.parallelFor(4, [&](int64_t) { total.fetch_add(1); });
    });
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(total.load(), 3 * 50 * 4);
  ThreadPool inlineOnly(0);
  int count = 0;  // no workers: runs on the caller, no atomics needed
  inlineOnly.parallelFor(5, [&](int64_t) { ++count; });
  EXPECT_EQ(count, 5);
}
#endif

}  // namespace
}  // namespace glint::cpu
