// One-pass optimizer updates for the cpu backend: float math on simd::Vec, a
// tail padded to one vector (so every element rounds the same way), split
// over the thread pool in tasks of at least kTaskElements (see below).
#include "src/backends/cpu/optim.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "glint/backend.h"
#include "src/backends/cpu/kernels.h"
#include "src/backends/cpu/simd.h"
#include "src/backends/cpu/thread_pool.h"
#include "src/core/kernel_selection.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace glint::cpu {

namespace {

using simd::broadcast;
using simd::kWidth;
using simd::Vec;

GLINT_SIMD_INLINE Vec vsqrt(Vec x) {
#if defined(GLINT_SIMD_AVX512)
  return _mm512_sqrt_ps(x);
#elif defined(GLINT_SIMD_AVX2)
  return _mm256_sqrt_ps(x);
#elif defined(__SSE__)
  return _mm_sqrt_ps(x);
#elif defined(__wasm_simd128__)
  return (Vec)wasm_f32x4_sqrt((v128_t)x);
#else
  for (int l = 0; l < kWidth; ++l) x[l] = std::sqrt(x[l]);
  return x;
#endif
}

// Elements per Adam task when an update is split over the thread pool (the
// lighter SGD / Momentum updates take twice as many); smaller updates run on
// one thread. glint_optim_bench on a quiet 16-core Xeon: one thread does Adam
// in ~2.5 ns and Momentum in ~1.1 ns per element, a split costs ~25-30 us, so
// a 2^15-element Adam task (~80 us) keeps that overhead a third of the work or
// less. Here (2 busy cores) splitting never won; see bench/optim_bench.cpp.
constexpr int64_t kTaskElements = int64_t{1} << 15;
int64_t taskElements = kTaskElements;

/// Runs body(x, y) over the n elements, kWidth at a time: x holds a vector of
/// each of the K inputs at one offset, y receives the J outputs' vectors there.
/// The last, partial vector goes through zero-padded copies. Tasks get at
/// least cost * taskElements elements (cost 2: half Adam's work per element).
template <int K, int J, class Body>
void forEachVector(int64_t n, const float* const (&in)[K], float* const (&out)[J], int cost,
                   Body body) {
  auto range = [&](int64_t lo, int64_t hi) {  // whole vectors, [lo, hi) in elements
    for (int64_t i = lo; i < hi; i += kWidth) {
      Vec x[K], y[J];
      for (int k = 0; k < K; ++k) x[k] = simd::load(in[k] + i);
      body(x, y);
      for (int j = 0; j < J; ++j) simd::store(out[j] + i, y[j]);
    }
  };
  const int64_t whole = n / kWidth * kWidth;
  ThreadPool& pool = ThreadPool::shared();
  const int64_t grain =
      std::max<int64_t>(taskElements > INT64_MAX / cost ? INT64_MAX : taskElements * cost, 1);
  const int64_t tasks = std::min<int64_t>(pool.threads(), n / grain);
  if (tasks <= 1) {
    range(0, whole);
  } else {
    const int64_t vectors = whole / kWidth;
    pool.parallelFor(tasks, [&](int64_t t) {
      range(vectors * t / tasks * kWidth, vectors * (t + 1) / tasks * kWidth);
    });
  }
  if (whole == n) return;
  const int64_t rest = n - whole;
  float xs[K][kWidth] = {}, ys[J][kWidth];
  for (int k = 0; k < K; ++k) std::memcpy(xs[k], in[k] + whole, rest * sizeof(float));
  Vec x[K], y[J];
  for (int k = 0; k < K; ++k) x[k] = simd::load(xs[k]);
  body(x, y);
  for (int j = 0; j < J; ++j) {
    simd::store(ys[j], y[j]);
    std::memcpy(out[j] + whole, ys[j], rest * sizeof(float));
  }
}

const float* in(const KernelArgs& args, int k) { return hostData<float>(args.inputs[k]); }
float* out(const KernelArgs& args, int j) { return hostData<float>(args.outputs[j]); }
float attr(const KernelArgs& args, const char* key) {
  return static_cast<float>(args.attrs.f(key));
}

void applyGradientDescent(KernelArgs& args) {
  const Vec lr = broadcast(attr(args, "lr"));
  forEachVector<2, 1>(args.outputs[0].size(), {in(args, 0), in(args, 1)}, {out(args, 0)}, 2,
                      [&](const Vec* x, Vec* y) { y[0] = x[0] - lr * x[1]; });
}

void applyMomentum(KernelArgs& args) {
  const Vec lr = broadcast(attr(args, "lr")), mu = broadcast(attr(args, "momentum"));
  const bool nesterov = args.attrs.b("useNesterov");
  const float* const inputs[3] = {in(args, 0), in(args, 1), in(args, 2)};
  float* const outputs[2] = {out(args, 0), out(args, 1)};
  const int64_t n = args.outputs[0].size();
  // x = {w, accum, g}; y = {w', accum'}.
  if (nesterov)
    forEachVector<3, 2>(n, inputs, outputs, 2, [&](const Vec* x, Vec* y) {
      Vec next = mu * x[1] + x[2];
      y[1] = next;
      y[0] = x[0] - lr * (x[2] + mu * next);
    });
  else
    forEachVector<3, 2>(n, inputs, outputs, 2, [&](const Vec* x, Vec* y) {
      Vec next = mu * x[1] + x[2];
      y[1] = next;
      y[0] = x[0] - lr * next;
    });
}

void applyAdam(KernelArgs& args) {
  const Attrs& a = args.attrs;
  const double lr = a.f("lr"), beta1 = a.f("beta1"), beta2 = a.f("beta2");
  const Vec b1 = broadcast(float(beta1)), b2 = broadcast(float(beta2));
  const Vec ob1 = broadcast(float(1 - beta1)), ob2 = broadcast(float(1 - beta2));
  const Vec rc1 = broadcast(float(1 / a.f("biasCorrection1")));
  const Vec rc2 = broadcast(float(1 / a.f("biasCorrection2")));
  const Vec eps = broadcast(attr(args, "epsilon")), vlr = broadcast(float(lr));
  const Vec keep = broadcast(float(1 - lr * a.f("weightDecay")));
  // x = {w, m, v, g}; y = {w', m', v'}.
  forEachVector<4, 3>(args.outputs[0].size(), {in(args, 0), in(args, 1), in(args, 2), in(args, 3)},
                      {out(args, 0), out(args, 1), out(args, 2)}, 1, [&](const Vec* x, Vec* y) {
                        Vec m = b1 * x[1] + ob1 * x[3];
                        Vec v = b2 * x[2] + ob2 * (x[3] * x[3]);
                        Vec update = (m * rc1) / (vsqrt(v * rc2) + eps);
                        y[1] = m;
                        y[2] = v;
                        y[0] = x[0] * keep - vlr * update;
                      });
}

}  // namespace

int64_t optimTaskElements() { return taskElements; }

int64_t setOptimTaskElements(int64_t elements) {
  int64_t old = taskElements;
  taskElements = elements;
  return old;
}

void registerOptimKernels(const std::string& backend) {
  GLINT_REGISTER(registerKernel, "ApplyGradientDescent", backend, applyGradientDescent);
  GLINT_REGISTER(registerKernel, "ApplyMomentum", backend, applyMomentum);
  GLINT_REGISTER(registerKernel, "ApplyAdam", backend, applyAdam);
}

}  // namespace glint::cpu
