// The gl backend itself: probe, bit-exact buffers for every dtype, views,
// the texture pool, asynchronous read-back, multi-draw kernels and large
// tensors. Its kernels are checked by the op harness, which runs every case on gl.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>

#include "glint/glint.h"
#include "glint/layers.h"
#include "glint/model.h"
#include "glint/optim.h"
#include "op_harness.h"

#ifdef GLINT_WITH_GL
#include "glint/gl.h"
#include "src/backends/gl/gl_backend.h"
#include "src/core/engine_state.h"

namespace glint::testing {
namespace {

[[maybe_unused]] bool glAvailable() {
  auto names = availableBackends();
  return std::find(names.begin(), names.end(), "gl") != names.end();
}

/// Runs the test body on gl, restoring the previous backend after.
struct OnGl {
  std::string saved = getBackend();
  OnGl() { setBackend("gl"); }
  ~OnGl() { setBackend(saved); }
};

// Natively the gl backend must come up (bootstrap installs Mesa's EGL). In
// wasm the tests that need a context skip where there is no WebGL (node, a
// browser without it) or gl is left out (GLINT_GL=0, the browser's webgpu
// run, whose gl run covers gl), and run in a browser that has it
// (tests/browser, where BrowserEnv.BackendsAsExpected fails if gl was
// expected and did not start).
[[maybe_unused]] std::string glStatus() {
  for (const BackendStatus& s : backendInfo().backends)
    if (s.name == "gl") return s.reason;
  return "gl is not registered";
}
#ifdef __EMSCRIPTEN__
// Skips only where there is no WebGL to start gl on (node: make test-wasm,
// test-wasm-mt) or gl was left out (GLINT_GL=0, the browser's webgpu run,
// whose gl run covers these tests); any other failure to start asserts.
// Natively gl must always start (Mesa llvmpipe).
#define REQUIRE_GL()                                                              \
  if (!glAvailable() && (glStatus().find("WebGL") != std::string::npos ||         \
                         glStatus().find("not registered") != std::string::npos)) \
    GTEST_SKIP() << glStatus();                                                   \
  ASSERT_TRUE(glAvailable()) << "gl did not start: " << glStatus()
#else
#define REQUIRE_GL() ASSERT_TRUE(glAvailable()) << "gl did not start: " << glStatus()
#endif

TEST(GlBackend, RegisteredAndDescribed) {
  auto names = registeredBackends();
#ifdef __EMSCRIPTEN__
  // The browser's webgpu run sets GLINT_GL=0 (its gl run covers gl): nothing
  // is registered to describe there.
  const char* off = std::getenv("GLINT_GL");
  if (off && std::string(off) == "0") GTEST_SKIP() << "GLINT_GL=0 leaves gl out";
#endif
  ASSERT_NE(std::find(names.begin(), names.end(), "gl"), names.end());
  // Registered: either it runs, or backendInfo says why not (never a crash).
  for (const BackendStatus& s : backendInfo().backends) {
    if (s.name != "gl") continue;
#ifdef __EMSCRIPTEN__
    EXPECT_EQ(s.priority, 150);  // a browser's GPU ranks above wasm
#else
    EXPECT_EQ(s.priority, 50);  // natively below cpu
#endif
    EXPECT_FALSE(s.reason.empty());
    if (s.available) {
      EXPECT_NE(s.reason.find("max texture"), std::string::npos) << s.reason;
      bool llvmpipe = s.reason.find("llvmpipe") != std::string::npos;
      if (llvmpipe) EXPECT_TRUE(s.software);
    }
  }
}

#ifdef __EMSCRIPTEN__
// Node has no WebGL: the probe must say so, not crash. In a browser it passes,
// and a second backend would take over the one current context: not made here.
TEST(GlBackend, ProbeFailsCleanlyWithoutWebGL) {
  if (glAvailable()) {
    EXPECT_NE(glStatus().find("WebGL"), std::string::npos) << glStatus();
    return;
  }
  std::string why;
  std::unique_ptr<gl::GlBackend> b = gl::GlBackend::create(why);
  if (!b) EXPECT_NE(why.find("WebGL"), std::string::npos) << why;
}
#endif

TEST(GlBackend, ExtentDependsOnlyOnBytes) {
  gl::Extent e0 = gl::extentFor(0, 4096);
  EXPECT_EQ(e0.texels, 0);
  gl::Extent e1 = gl::extentFor(16, 4096);
  EXPECT_EQ(e1.width, 1);
  EXPECT_EQ(e1.height, 1);
  gl::Extent e2 = gl::extentFor(17, 4096);  // 2 texels
  EXPECT_EQ(e2.texels, 2);
  EXPECT_EQ(e2.width * e2.height >= 2, true);
  gl::Extent big = gl::extentFor(size_t{16} * 3000 * 4096, 4096);  // wraps into 2-D
  EXPECT_EQ(big.width, 4096);
  EXPECT_EQ(big.height, 3000);
  EXPECT_EQ(big.width, 1 << big.shift);
  try {
    gl::extentFor(size_t{16} * 4096 * 4096 + 16, 4096);
    ADD_FAILURE() << "expected an error for a buffer larger than one texture";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("[gl]"), std::string::npos) << e.what();
  }
}

TEST(GlBackend, BuffersRoundTripBitExactForEveryDtype) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  OnGl on;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> f = {0.0f,
                          -0.0f,
                          1.0f / 3,
                          std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::infinity(),
                          -3e38f,
                          nan};
  uint32_t payload = 0x7fc12345u;  // a NaN with a payload survives too
  float p;
  std::memcpy(&p, &payload, 4);
  f.push_back(p);
  std::vector<float> backF = tensor(f, {8}).data<float>();
  EXPECT_EQ(std::memcmp(backF.data(), f.data(), f.size() * 4), 0);
  std::vector<int32_t> ints = {std::numeric_limits<int32_t>::min(), -1, 0, 7,
                               std::numeric_limits<int32_t>::max()};
  EXPECT_EQ(tensorInt(ints, {5}).data<int32_t>(), ints);
  for (int n : {1, 3, 16, 17, 33}) {  // bools pack 16 to a texel
    std::vector<uint8_t> bools(n);
    for (int i = 0; i < n; ++i) bools[i] = (i * 7 % 3) == 0;
    Tensor b = tensorBool(bools, {n});
    EXPECT_EQ(b.backendName(), "gl");
    EXPECT_EQ(b.data<uint8_t>(), bools) << n << " bools";
    // Through a kernel too: NOT twice is the identity.
    EXPECT_EQ(logicalNot(logicalNot(b)).data<uint8_t>(), bools) << n << " bools";
  }
}

TEST(GlBackend, ViewsShareOneTexture) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  OnGl on;
  Tensor x = tensor({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {2, 6});
  int64_t buffers = memory().numBuffers;
  Tensor v = reshape(x, {3, 4});
  EXPECT_EQ(memory().numBuffers, buffers);
  Tensor col = sum(v, {0});  // reads the view with its own shape
  EXPECT_EQ(col.data<float>(), (std::vector<float>{15, 18, 21, 24}));
}

TEST(GlBackend, PoolReusesTexturesAndMemoryReturnsToStart) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  OnGl on;
  auto step = [] {
    tidy([] {
      Tensor a = tensor(std::vector<float>(300, 0.5f), {10, 30});
      Tensor b = relu(matMul(a, transpose(a)));
      return sum(b).item();
    });
  };
  step();  // warm-up: programs compiled, textures created
  MemoryInfo before = memory();
  for (int i = 0; i < 20; ++i) step();
  MemoryInfo after = memory();
  EXPECT_EQ(after.numTensors, before.numTensors);
  EXPECT_EQ(after.bytesPerBackend["gl"], before.bytesPerBackend["gl"]);
  EXPECT_EQ(after.numAllocations, before.numAllocations) << "every texture came from the pool";
  EXPECT_GT(after.numPoolHits, before.numPoolHits);
  int64_t live = memory().bytesPerBackend["gl"];
  releaseUnusedMemory();
  EXPECT_LE(memory().bytesPerBackend["gl"], live);
}

// Shader sources carry shapes: ever-new shapes (sequence lengths, image
// sizes) must not grow the program cache without end; programs evicted are
// compiled again when their shape comes back, with the same results.
TEST(GlBackend, ProgramCacheStaysBoundedUnderEverNewShapes) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
#ifdef __EMSCRIPTEN__
  // The cache is the same C++ natively; in a page each of the 600 programs
  // compiles through ANGLE on SwiftShader (45 s of the browser suite).
  GTEST_SKIP() << "native builds run it";
#endif
  OnGl on;
  auto* gl = dynamic_cast<gl::GlBackend*>(Engine::get().backend("gl"));
  ASSERT_NE(gl, nullptr);
  // Sizes are uniforms, but a float constant (LeakyRelu's alpha) is a
  // literal in gl's programs: a new alpha is a new program.
  auto leakySum = [](int n) {
    const float alpha = 1.0f / static_cast<float>(n + 1);
    const float got =
        tidy([&] { return sum(leakyRelu(sub(range(0, n, 1), scalar(n)), alpha)).item(); });
    // alpha * sum(i - n for i < n) = -alpha * n (n + 1) / 2
    const double want = -static_cast<double>(alpha) * n * (n + 1) / 2;
    return std::abs(got - want) <= 1e-5 * std::abs(want);
  };
  for (int n = 1; n <= 600; ++n) {
    ASSERT_TRUE(leakySum(n)) << "n = " << n;
    ASSERT_LE(gl->programsCached(), gl::GlBackend::kProgramCache);
  }
  EXPECT_EQ(gl->programsCached(), gl::GlBackend::kProgramCache)
      << "the alphas made more programs than it holds";
  EXPECT_TRUE(leakySum(3)) << "an evicted program compiles again";
}

// Sizes and texture widths are uniforms: element-wise ops of ever-new shapes
// (same broadcast pattern) reuse one program each.
TEST(GlBackend, NewShapesReuseElementwisePrograms) {
  REQUIRE_GL();
  OnGl on;
  auto* gl = dynamic_cast<gl::GlBackend*>(Engine::get().backend("gl"));
  ASSERT_NE(gl, nullptr);
  auto check = [&](int rows, int cols) {
    std::vector<float> a(static_cast<size_t>(rows) * cols), b(static_cast<size_t>(cols));
    for (size_t i = 0; i < a.size(); ++i) a[i] = 0.1f * static_cast<float>(i % 13) - 0.6f;
    for (size_t j = 0; j < b.size(); ++j) b[j] = 0.05f * static_cast<float>(j) + 0.1f;
    std::vector<float> got = tidy([&] {
                               Tensor x = tensor(a, {rows, cols}), y = tensor(b, {cols});
                               return exp(mul(neg(x), sub(y, x)));  // broadcast y, aligned x
                             }).data<float>();
    for (size_t i = 0; i < a.size(); ++i) {
      const float y = b[i % static_cast<size_t>(cols)];
      const double want = std::exp(static_cast<double>(-a[i]) * (y - a[i]));
      ASSERT_NEAR(got[i], want, 1e-5 * std::max(1.0, std::abs(want))) << rows << "x" << cols;
    }
  };
  check(3, 5);  // compiles this pattern's programs,
  check(4, 5);  // and the whole-texel one (sizes a multiple of 4)
  const size_t before = gl->programsCached();
  for (auto [rows, cols] : {std::pair{7, 3}, {2, 9}, {40, 33}, {129, 17}, {1000, 7}})
    check(rows, cols);
  EXPECT_EQ(gl->programsCached(), before) << "a new shape compiled a new element-wise program";
}

TEST(GlBackend, ReadAsyncMatchesSyncRead) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  OnGl on;
  std::vector<float> values(1000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.25f - 7;
  Tensor x = exp(mul(tensor(values, {10, 100}), scalar(0.01f)));
  gl::PendingRead r = gl::readAsync(x);
  for (int i = 0; i < 1000000 && !r.ready(); ++i) {
  }
  std::vector<uint8_t> bytes = r.bytes();
  std::vector<float> sync = x.data<float>();
  ASSERT_EQ(bytes.size(), sync.size() * 4);
  EXPECT_EQ(std::memcmp(bytes.data(), sync.data(), bytes.size()), 0);
  { gl::PendingRead abandoned = gl::readAsync(x); }  // frees its buffer and fence
  // A tensor on another backend is read at once.
  setBackend("cpu");
  Tensor c = tensorInt({1, 2, 3}, {3});
  gl::PendingRead rc = gl::readAsync(c);
  EXPECT_TRUE(rc.ready());
  std::vector<uint8_t> cb = rc.bytes();
  ASSERT_EQ(cb.size(), 12u);
  int32_t second;
  std::memcpy(&second, cb.data() + 4, 4);
  EXPECT_EQ(second, 2);
}

/// gl result vs the reference backend on the same inputs.
void expectMatchesReference(const std::function<Tensor()>& make, double rtol, double atol = 1e-6) {
  std::string saved = getBackend();
  setBackend("reference");
  std::vector<float> want = make().toFloats();
  setBackend("gl");
  std::vector<float> have = make().toFloats();
  setBackend(saved);
  ASSERT_EQ(have.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(have[i], want[i], atol + rtol * std::abs(want[i])) << "element " << i;
}

TEST(GlBackend, ConcatOfManyInputsTakesSeveralDraws) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  expectMatchesReference(
      [] {
        std::vector<Tensor> parts;
        for (int i = 0; i < 40; ++i)  // > 15 inputs per draw
          parts.push_back(fill({2, 1 + i % 3}, static_cast<float>(i)));
        return concat(parts, 1);
      },
      0);
  // The same with whole texels (rows 4 wide), float32 and float16.
  auto texels = [] {
    std::vector<Tensor> parts;
    for (int i = 0; i < 40; ++i) parts.push_back(fill({2, 4 * (1 + i % 3)}, static_cast<float>(i)));
    return concat(parts, 1);
  };
  // Along the first axis each piece is one run of texels (a draw per piece
  // over its texture rows): runs that start and end inside rows, span several
  // rows, and an empty piece.
  auto runs = [] {
    std::vector<Tensor> parts;
    for (int i = 0; i < 40; ++i) {
      const int64_t n = i == 7 ? 0 : i == 20 ? 300 : 1 + i % 3;
      Tensor count = reshape(range(0, static_cast<float>(4 * n)), {n, 4});
      parts.push_back(add(fill({n, 4}, static_cast<float>(i)), count));  // exact in float16
    }
    return concat(parts, 0);
  };
  for (bool half : {false, true}) {
    setFloat16Activations(half);
    expectMatchesReference(texels, 0);
    expectMatchesReference(runs, 0);
  }
  setFloat16Activations(false);
}

/// Values in [-1, 1) that differ from element to element.
Tensor pattern(const Shape& shape, int seed) {
  std::vector<float> v(static_cast<size_t>(shapeSize(shape)));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(static_cast<int>((i * 37 + seed * 11) % 29) - 14) / 14.5f;
  return tensor(v, shape);
}

TEST(GlBackend, RowBlockMatMulsMatchTheReference) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  // Shapes that take the row-block path (M >= 8, N and K multiples of 4): a
  // ragged last block, B transposed, A transposed (first, where M % 4 != 0), batches broadcast,
  // bias and activations, a float16 output.
  expectMatchesReference([] { return matMul(pattern({64, 36}, 1), pattern({36, 20}, 2)); }, 1e-5);
  expectMatchesReference([] { return matMul(pattern({13, 8}, 3), pattern({8, 12}, 4)); }, 1e-5);
  expectMatchesReference(
      [] {
        return matMul(pattern({21, 16}, 5), pattern({24, 16}, 6), false, true);
      },
      1e-5);
  expectMatchesReference(
      [] {
        return matMul(pattern({16, 40}, 7), pattern({16, 8}, 8), true, false);
      },
      1e-5);
  expectMatchesReference([] { return matMul(pattern({3, 9, 8}, 9), pattern({8, 12}, 10)); }, 1e-5);
  // A transposed read in place (M a multiple of 4): ragged, with B^T, batched.
  expectMatchesReference(
      [] {
        return matMul(pattern({16, 20}, 24), pattern({16, 8}, 25), true, false);
      },
      1e-5);
  expectMatchesReference(
      [] {
        return matMul(pattern({12, 8}, 26), pattern({4, 12}, 27), true, true);
      },
      1e-5);
  expectMatchesReference(
      [] {
        return matMul(pattern({2, 8, 12}, 28), pattern({2, 8, 4}, 29), true, false);
      },
      1e-5);
  expectMatchesReference([] { return matMul(pattern({9, 4}, 11), pattern({2, 4, 16}, 12)); }, 1e-5);
  expectMatchesReference(
      [] {
        return fusedMatMul(pattern({10, 12}, 13), pattern({12, 8}, 14), pattern({8}, 15), "relu");
      },
      1e-5);
  expectMatchesReference(
      [] {
        return fusedMatMul(pattern({17, 12}, 16), pattern({8, 12}, 17), pattern({8}, 18), "tanh",
                           false, true);
      },
      1e-5);
  setFloat16Activations(true);
  expectMatchesReference([] { return matMul(pattern({12, 8}, 19), pattern({8, 4}, 20)); }, 1e-3);
  setFloat16Activations(false);
}

TEST(GlBackend, RowBlockMatMulsReadTexturesIn2D) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  // The row-block product addresses its operands in 2D where a texture row
  // holds whole matrix rows (W % L == 0) or a matrix row whole texture rows
  // (L % W == 0), else by flat index (blocked_product.h, MatrixTexels). A
  // texture's width W is the power of two at or above sqrt(texels); L is a
  // row's texels. Each case names the fit of A (or A^T) and B (or B^T).
  // atol: sums of K terms near 1 in other orders than the reference's.
  auto mm = [](Shape a, Shape b, bool tA, bool tB, int seed, double atol = 1e-6) {
    expectMatchesReference([=] { return matMul(pattern(a, seed), pattern(b, seed + 1), tA, tB); },
                           1e-5, atol);
  };
  mm({64, 128}, {128, 512}, false, false, 40);   // A W 64 L 32; B W 128 L 128 (the lstm's)
  mm({64, 512}, {128, 512}, false, true, 42);    // A W 128 L 128; B^T W 128 L 128
  mm({8, 256}, {256, 8}, false, false, 44);      // A W 32 L 64 (2 texture rows); B W 32 L 2
  mm({16, 8}, {8, 256}, false, false, 46);       // B W 32 L 64
  mm({16, 512}, {12, 512}, false, true, 48);     // A W 64 L 128; B^T W 64 L 128
  mm({8, 256}, {8, 12}, true, false, 50);        // A^T W 32 L 64
  mm({64, 32}, {64, 512}, true, false, 52);      // A^T W 32 L 8; B W 128 L 128
  mm({16, 196}, {196, 12}, false, false, 54);    // A W 32 L 49: flat
  mm({13, 32}, {32, 16}, false, false, 56);      // ragged M, A W 16 L 8
  mm({2, 16, 32}, {32, 8}, false, false, 58);    // batched A: rows go on across batches
  mm({2, 16, 32}, {2, 8, 32}, false, true, 60);  // batched B^T W 16 L 8
  mm({2, 32, 16}, {2, 32, 8}, true, false, 62);  // batched A^T W 16 L 4; B W 16 L 2
  mm({3, 24, 64}, {64, 16}, false, false, 64);   // B's rows 4p..4p+3 over a texture row's end
  // Large products whose A rows would be flat read a copy of A with rows a
  // power of two apart (matmul.cpp, pitchedCopy): the mlp's forward and
  // weight gradient, a ragged batched A, a ragged A^T, the lstm's x W.
  mm({64, 784}, {784, 128}, false, false, 66, 2e-5);     // A L 196 -> 256
  mm({64, 784}, {64, 128}, true, false, 68);             // A^T L 196 -> 256
  mm({2, 100, 196}, {196, 64}, false, false, 70, 1e-5);  // A L 49 -> 64, batched, M % 8 == 4
  mm({40, 100}, {40, 1024}, true, false, 72);            // A^T L 25 -> 32, ragged last block
  mm({1792, 28}, {28, 64}, false, false, 74);            // A L 7 -> 8
}

TEST(GlBackend, NarrowMatMulsMatchTheReference) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  // N % 4 != 0 with K % 4 == 0, below the padded path's size (a classifier
  // head's three products): A's rows dotted with B^T's rows in whole texels,
  // A^T and B copied into that layout first (matmul.cpp, `narrow`).
  auto mm = [](Shape a, Shape b, bool tA, bool tB, int seed) {
    expectMatchesReference([=] { return matMul(pattern(a, seed), pattern(b, seed + 1), tA, tB); },
                           1e-5, 1e-5);
  };
  mm({64, 128}, {128, 10}, false, false, 80);  // h W (B copied)
  mm({64, 128}, {64, 10}, true, false, 82);    // h^T dz (both copied)
  mm({9, 12}, {7, 12}, false, true, 84);       // B^T as given, N = 7
  mm({12, 9}, {12, 3}, true, false, 86);       // A^T, N = 3, M odd
  mm({2, 8, 8}, {8, 10}, false, false, 88);    // batched A, B broadcast
  mm({8, 8}, {3, 8, 10}, false, false, 90);    // A broadcast over B's batches
  mm({2, 8, 9}, {2, 5, 8}, true, true, 92);    // both transposed, batched
  mm({1, 128}, {128, 10}, false, false, 93);   // one row: the scalar product
  expectMatchesReference(
      [] {
        return fusedMatMul(pattern({64, 128}, 94), pattern({128, 10}, 95), pattern({10}, 96),
                           "relu");
      },
      1e-5, 1e-5);
  setFloat16Activations(true);
  expectMatchesReference(
      [] {
        return matMul(exp(pattern({9, 16}, 97)), pattern({16, 6}, 98));
      },
      2e-3, 2e-3);
  setFloat16Activations(false);
}

TEST(GlBackend, LargeTensorsWrapIntoTwoDimensions) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  // 70,001 floats: a 256-wide texture of 69 rows, with a partial last texel.
  expectMatchesReference(
      [] {
        std::vector<float> v(70001);
        for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 97) * 0.01f;
        Tensor x = tensor(v, {70001});
        return concat({sum(exp(x), {0}, true), slice(sigmoid(x), {69990}, {11})}, 0);
      },
      1e-4);
}

TEST(GlBackend, LongReductionsTakeTwoPasses) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  // Windows of 5,000+ reduce through ~sqrt(window) partials first.
  expectMatchesReference(
      [] {
        std::vector<float> v(3 * 5003);
        for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 37) % 101) - 50;
        Tensor x = tensor(v, {3, 5003});
        Tensor xi = cast(x, DType::int32);
        return concat({sum(x, {1}), max(x, {1}), min(x, {-1}), cast(sum(xi, {1}), DType::float32),
                       cast(any(greater(x, scalar(49.5f)), {1}), DType::float32),
                       cast(all(greater(x, scalar(-60.0f)), {1}), DType::float32)},
                      0);
      },
      1e-5);
}

TEST(GlBackend, LoopsPastLlvmpipesLimitFailLoudly) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  // llvmpipe stops a shader's loops after 65535 iterations: argMax walking
  // 70,001 elements in one fragment must not return a wrong index silently.
  std::vector<float> v(70001);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 1000);
  v.back() = 5000;
  bool llvmpipe = false;
  for (const BackendStatus& s : backendInfo().backends)
    if (s.name == "gl") llvmpipe = s.reason.find("llvmpipe") != std::string::npos;
  OnGl on;
  Tensor x = tensor(v, {70001});
  if (llvmpipe) expectError([&] { argMax(x, 0); }, {"[ArgMax]", "70001", "65535"});
  else EXPECT_EQ(argMax(x, 0).data<int32_t>()[0], 70000);
}

// ---- float16 activations ----------------------------------------------------

/// float -> nearest float16 (ties to even) -> float, in double arithmetic:
/// the reference the gl backend's half textures are checked against.
double roundToHalf(double f) {
  if (std::isnan(f)) return f;
  double a = std::fabs(f);
  if (a >= 65520.0) return std::copysign(std::numeric_limits<double>::infinity(), f);
  int e = 0;
  std::frexp(a, &e);
  double ulp = std::ldexp(1.0, std::max(e - 1, -14) - 10);  // subnormals: 2^-24
  return std::copysign(std::nearbyint(a / ulp) * ulp, f);
}
/// One float16 step at v's magnitude.
double halfUlp(double v) {
  int e = 0;
  std::frexp(std::fabs(v), &e);
  return std::ldexp(1.0, std::max(e - 1, -14) - 10);
}

struct Float16Scope {
  explicit Float16Scope(bool on) { setFloat16Activations(on); }
  ~Float16Scope() { setFloat16Activations(false); }
};

TEST(GlFloat16, OutputsAreHalfTexturesReadBackAsFloat32) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  OnGl on;
  std::vector<float> v = {0.0f,     -0.0f, 1.0f,  -2.5f,     3.14159265f,
                          1e-3f,    1e-6f, 6e-8f, 65504.0f,  65519.0f,
                          70000.0f, -1e5f, 0.1f,  1234.567f, -7.77e-5f};
  Tensor x = tensor(v, {static_cast<int64_t>(v.size())});
  // Bytes held by live textures (the pool emptied before each count).
  auto liveBytes = [] {
    releaseUnusedMemory();
    return memory().bytesPerBackend["gl"];
  };
  int64_t before = liveBytes();
  Tensor full = neg(neg(x));
  int64_t fullBytes = liveBytes() - before;
  Float16Scope f16(true);
  before = liveBytes();
  Tensor half = neg(neg(x));
  int64_t halfBytes = liveBytes() - before;
  EXPECT_TRUE(gl::textureOf(half).half);
  EXPECT_FALSE(gl::textureOf(full).half);
  EXPECT_EQ(halfBytes * 2, fullBytes) << "a float16 texture holds half the bytes";
  std::vector<float> got = half.data<float>();
  for (size_t i = 0; i < v.size(); ++i) {
    double want = roundToHalf(v[i]);
    if (std::isinf(want)) {
      EXPECT_EQ(got[i], static_cast<float>(want)) << "element " << i << " = " << v[i];
    } else {
      EXPECT_LE(std::fabs(got[i] - want), halfUlp(want) * 0.5 + 1e-30)
          << "element " << i << " = " << v[i] << ": " << got[i] << " vs " << want;
    }
  }
  // To another backend through a read: float32 values.
  BackendScope cpu("cpu");
  std::vector<float> moved = add(half, zeros({static_cast<int64_t>(v.size())})).data<float>();
  EXPECT_EQ(moved, got);
}

TEST(GlFloat16, LstmCellsOfFourUnitsPerFragmentWriteHalves) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  // Units a multiple of 4 (gl's multi-output path): h, c, and the gradients
  // dz (gathered) and dcPrev, all float16 here.
  auto run = [] {
    Tensor xz = pattern({3, 32}, 21), hz = pattern({3, 32}, 22), c0 = pattern({3, 8}, 23);
    std::vector<Tensor> g = grads(
        [](const std::vector<Tensor>& v) {
          std::vector<Tensor> hc = lstmCell(v[0], v[1], v[2], "sigmoid");
          return add(sum(mul(hc[0], hc[0])), sum(hc[1]));
        },
        {xz, hz, c0});
    std::vector<Tensor> hc = lstmCell(xz, hz, c0, "sigmoid");
    return concat(
        {reshape(hc[0], {-1}), reshape(hc[1], {-1}), reshape(g[0], {-1}), reshape(g[2], {-1})}, 0);
  };
  expectMatchesReference(run, 1e-5);
  Float16Scope f16(true);
  expectMatchesReference(run, 4e-3);
}

TEST(GlFloat16, KernelsReadHalfInputs) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  OnGl on;
  Float16Scope f16(true);
  Tensor a = randomNormal({12, 16}, 0, 1, 3), b = randomNormal({16, 8}, 0, 1, 4);
  std::vector<float> ha = a.data<float>(), hb = b.data<float>();
  Tensor c = matMul(a, b);             // float32 inputs, a float16 output
  Tensor d = sum(mul(c, c), {1});      // float16 inputs (c), float16 outputs
  Tensor e = matMul(c, transpose(c));  // float16 inputs read a texel at a time
  ASSERT_TRUE(gl::textureOf(c).half);
  // Reference in double: every stored value rounded to float16 as the backend does.
  std::vector<double> cr(12 * 8);
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j < 8; ++j) {
      double acc = 0;
      for (int p = 0; p < 16; ++p) acc += double{ha[i * 16 + p]} * hb[p * 8 + j];
      cr[i * 8 + j] = roundToHalf(acc);
    }
  std::vector<float> cg = c.data<float>(), dg = d.data<float>(), eg = e.data<float>();
  for (int i = 0; i < 12 * 8; ++i) EXPECT_NEAR(cg[i], cr[i], halfUlp(cr[i])) << "c " << i;
  for (int i = 0; i < 12; ++i) {
    double sq = 0;
    for (int j = 0; j < 8; ++j) sq += cr[i * 8 + j] * cr[i * 8 + j];
    EXPECT_NEAR(dg[i], sq, 2 * halfUlp(sq)) << "d " << i;
    for (int k = 0; k < 12; ++k) {
      double dot = 0;
      for (int j = 0; j < 8; ++j) dot += cr[i * 8 + j] * cr[k * 8 + j];
      EXPECT_NEAR(eg[i * 12 + k], dot, 2 * halfUlp(dot) + 1e-3) << "e " << i << "," << k;
    }
  }
}

TEST(GlFloat16, TrainsWithLossScalingVariablesStayFloat32MemoryFlat) {
  REQUIRE_GL();  // skipped where the build or page has no WebGL2 (gl is refused there)
  OnGl on;
  const int64_t n = 256;
  const std::pair<Tensor, Tensor> data = classData(n, 21);  // clang: no lambda capture of bindings
  const Tensor& x = data.first;
  const Tensor& y = data.second;
  auto train = [&](bool half) {
    Float16Scope f16(half);
    setSeed(7);
    auto m =
        sequential({layers::dense({{"units", 16}, {"activation", "relu"}, {"inputShape", {4}}}),
                    layers::dense({{"units", 3}, {"activation", "softmax"}})});
    std::shared_ptr<Optimizer> opt(adam(0.02f));
    opt->lossScale = LossScale{.enabled = true, .scale = 1024.0f, .dynamic = true};
    m->compile({.optimizer = opt, .loss = {"categoricalCrossentropy"}, .metrics = {"accuracy"}});
    History h = m->fit(x, y, {.epochs = 12, .batchSize = 32, .shuffle = false});
    for (const Tensor& w : m->getWeights()) EXPECT_FALSE(gl::textureOf(w).half) << "a variable";
    for (int i = 0; i < 5; ++i) m->trainOnBatch({x}, {y});  // warm-up: this batch's shapes
    MemoryInfo before = memory();
    for (int i = 0; i < 50; ++i) m->trainOnBatch({x}, {y});
    MemoryInfo after = memory();
    EXPECT_EQ(after.numAllocations, before.numAllocations) << "steady state allocates nothing";
    EXPECT_EQ(after.bytesPerBackend["gl"], before.bytesPerBackend["gl"]);
    return std::make_pair(h.history.at("loss"), m->evaluate(x, y, 256).at("acc"));
  };
  auto [lossFull, accFull] = train(false);
  auto [lossHalf, accHalf] = train(true);
  EXPECT_LT(lossHalf.back(), lossHalf.front() * 0.7) << "float16 activations learn";
  EXPECT_GT(accHalf, 0.85);
  EXPECT_NEAR(accHalf, accFull, 0.05) << "as float32 does";
}

// GLINT_DUMP_SHADERS=1 prints each program gl compiles: here a LeakyRelu
// with an alpha no other test uses, so its program is new.
TEST(GlBackend, DumpShadersPrintsEachNewProgram) {
#ifdef __EMSCRIPTEN__
  // Skipped in wasm: googletest's CaptureStderr redirects file descriptor 2,
  // which Emscripten's stderr (the console) does not pass through; native
  // runs check it.
  GTEST_SKIP() << "stderr capture and setenv: native only";
#else
  REQUIRE_GL();
  OnGl gl;
  Tensor x = tensor({-1.0f, 2.0f}, {2});
  setenv("GLINT_DUMP_SHADERS", "1", 1);
  ::testing::internal::CaptureStderr();
  std::vector<float> y = leakyRelu(x, 0.3125f).data<float>();
  std::string dumped = ::testing::internal::GetCapturedStderr();
  unsetenv("GLINT_DUMP_SHADERS");
  EXPECT_EQ(y, (std::vector<float>{-0.3125f, 2.0f}));
  EXPECT_NE(dumped.find("gl program"), std::string::npos) << dumped;
  EXPECT_NE(dumped.find("0.3125 * x"), std::string::npos) << dumped;
#endif
}

}  // namespace
}  // namespace glint::testing
#endif
