// Reductions as plain loops: every output element walks its reduced window.
#include <cmath>
#include <functional>
#include <limits>

#include "src/backends/reference/kernels.h"
#include "src/backends/reference/loops.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"
#include "src/geometry/mean_scale.h"
#include "src/geometry/reduction_geometry.h"

namespace glint::reference {

namespace {

/// Folds each output element's window with step(acc, value), starting at
/// init; the output is finish(acc).
template <class T, class Acc, class Step, class Finish = std::identity>
void fold(KernelArgs& args, Acc init, Step step, Finish finish = {}) {
  const Tensor& x = args.inputs[0];
  ReductionWindow plan(x.shape(), kernel_attrs::Reduce::read(args.attrs).axes);
  const T* px = hostData<T>(x);
  T* po = hostData<T>(args.outputs[0]);
  int64_t o = 0;
  forEachIndex(plan.kept, [&](const std::vector<int64_t>& kept) {
    int64_t base = offsetOf(kept, plan.keptStrides);
    Acc acc = init;
    forEachIndex(plan.reduced, [&](const std::vector<int64_t>& r) {
      acc = step(acc, px[base + offsetOf(r, plan.reducedStrides)]);
    });
    po[o++] = static_cast<T>(finish(acc));
  });
}

/// Index of the first of `len` elements (`stride` apart) that no later one beats.
template <class T, class Better>
int64_t firstBest(const T* row, int64_t len, int64_t stride, Better better) {
  int64_t best = 0;
  for (int64_t i = 1; i < len; ++i)
    if (better(row[i * stride], row[best * stride])) best = i;
  return best;
}

/// Index of the first element along `axis` that no later one beats.
template <class T, class Better>
void argKernel(KernelArgs& args, Better better) {
  const Tensor& x = args.inputs[0];
  AxisRows p(x.shape(), kernel_attrs::Axis::read(args.attrs).axis);
  const T* px = hostData<T>(x);
  int32_t* po = hostData<int32_t>(args.outputs[0]);
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t in = 0; in < p.inner; ++in)
      po[o * p.inner + in] =
          static_cast<int32_t>(firstBest(px + o * p.len * p.inner + in, p.len, p.inner, better));
}

template <class T>
bool isNaN(T v) {
  return v != v;
}

void registerExtremes(const std::string& backend) {
  // NaN wins max/min (it propagates); an empty window gives -inf / +inf, or the
  // int32 limits.
  GLINT_REGISTER(registerKernel, "Max", backend, [](KernelArgs& a) {
    dispatchDType(a.inputs[0].dtype(), [&](auto tag) {
      using T = decltype(tag);
      T init = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::lowest();
      fold<T, T>(a, init, [](T acc, T v) { return (isNaN(v) || v > acc) ? v : acc; });
    });
  });
  GLINT_REGISTER(registerKernel, "Min", backend, [](KernelArgs& a) {
    dispatchDType(a.inputs[0].dtype(), [&](auto tag) {
      using T = decltype(tag);
      T init = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::max();
      fold<T, T>(a, init, [](T acc, T v) { return (isNaN(v) || v < acc) ? v : acc; });
    });
  });
  // Like TF.js: strictly greater/less, so NaN never takes over and ties keep the first.
  GLINT_REGISTER(registerKernel, "ArgMax", backend, [](KernelArgs& a) {
    dispatchDType(a.inputs[0].dtype(), [&](auto tag) {
      using T = decltype(tag);
      argKernel<T>(a, [](T v, T best) { return v > best; });
    });
  });
  GLINT_REGISTER(registerKernel, "ArgMin", backend, [](KernelArgs& a) {
    dispatchDType(a.inputs[0].dtype(), [&](auto tag) {
      using T = decltype(tag);
      argKernel<T>(a, [](T v, T best) { return v < best; });
    });
  });
}

void registerSoftmax(const std::string& backend) {
  // Shifted by the row's max so large logits do not overflow exp.
  GLINT_REGISTER(registerKernel, "Softmax", backend, [](KernelArgs& a) {
    const Tensor& x = a.inputs[0];
    AxisRows p(x.shape(), kernel_attrs::Axis::read(a.attrs).axis);
    const float* px = hostData<float>(x);
    float* po = hostData<float>(a.outputs[0]);
    for (int64_t o = 0; o < p.outer; ++o)
      for (int64_t in = 0; in < p.inner; ++in) {
        int64_t base = o * p.len * p.inner + in;
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t i = 0; i < p.len; ++i)
          m = std::max(m, static_cast<double>(px[base + i * p.inner]));
        double total = 0;
        for (int64_t i = 0; i < p.len; ++i) total += std::exp(px[base + i * p.inner] - m);
        for (int64_t i = 0; i < p.len; ++i)
          po[base + i * p.inner] = static_cast<float>(std::exp(px[base + i * p.inner] - m) / total);
      }
  });
}

}  // namespace

void registerReductionKernels(const std::string& backend) {
  // Float sums and products accumulate in double so the oracle is more exact
  // than what it checks; int32 wraps around like int32 arithmetic.
  GLINT_REGISTER(registerKernel, "Sum", backend, [](KernelArgs& a) {
    if (a.inputs[0].dtype() == DType::float32)
      fold<float, double>(a, 0.0, [](double acc, float v) { return acc + v; });
    else fold<int32_t, uint32_t>(a, 0u, [](uint32_t acc, int32_t v) { return acc + uint32_t(v); });
  });
  // [rows, classes] x 2 -> [rows]: ArgMax's rule on both rows.
  GLINT_REGISTER(registerKernel, "_ArgMaxEqual", backend, [](KernelArgs& a) {
    const int64_t classes = a.inputs[0].shape()[1];
    auto greater = [](float v, float best) { return v > best; };  // ArgMax's rule
    const float* pa = hostData<float>(a.inputs[0]);
    const float* pb = hostData<float>(a.inputs[1]);
    float* po = hostData<float>(a.outputs[0]);
    for (int64_t r = 0; r < a.outputs[0].size(); ++r)
      po[r] = firstBest(pa + r * classes, classes, 1, greater) ==
                      firstBest(pb + r * classes, classes, 1, greater)
                  ? 1.0f
                  : 0.0f;
  });
  GLINT_REGISTER(registerKernel, "Mean", backend,
                 [](KernelArgs& a) {  // float32 (the op casts int32)
                   const double scale =
                       meanScale(a.inputs[0].shape(), kernel_attrs::Reduce::read(a.attrs).axes);
                   fold<float, double>(
                       a, 0.0, [](double acc, float v) { return acc + v; },
                       [scale](double acc) { return acc * scale; });
                 });
  GLINT_REGISTER(registerKernel, "Prod", backend, [](KernelArgs& a) {
    if (a.inputs[0].dtype() == DType::float32)
      fold<float, double>(a, 1.0, [](double acc, float v) { return acc * v; });
    else fold<int32_t, uint32_t>(a, 1u, [](uint32_t acc, int32_t v) { return acc * uint32_t(v); });
  });
  GLINT_REGISTER(registerKernel, "Any", backend, [](KernelArgs& a) {
    fold<uint8_t, uint8_t>(a, 0, [](uint8_t acc, uint8_t v) { return uint8_t(acc || v); });
  });
  GLINT_REGISTER(registerKernel, "All", backend, [](KernelArgs& a) {
    fold<uint8_t, uint8_t>(a, 1, [](uint8_t acc, uint8_t v) { return uint8_t(acc && v); });
  });
  registerExtremes(backend);
  registerSoftmax(backend);
}

}  // namespace glint::reference
