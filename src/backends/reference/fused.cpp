// Fused kernels as plain loops in double: _FusedMatMul (the textbook triple
// loop, then bias and activation before the one rounding to float) and
// SoftmaxCrossEntropyWithLogits (per row: max, log-sum-exp, loss, backprop).
#include <cmath>
#include <limits>
#include <utility>

#include "src/backends/reference/kernels.h"
#include "src/backends/reference/loops.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"

namespace glint::reference {

namespace {

enum class Act { linear, relu, relu6, elu, leakyrelu, sigmoid, tanh };

Act parseAct(const std::string& name) {
  for (auto [n, a] : {std::pair{"relu", Act::relu},
                      {"relu6", Act::relu6},
                      {"elu", Act::elu},
                      {"leakyrelu", Act::leakyrelu},
                      {"sigmoid", Act::sigmoid},
                      {"tanh", Act::tanh}})
    if (name == n) return a;
  return Act::linear;
}

/// NaN stays NaN through every activation, as in the unary kernels.
double activate(Act act, double x, double alpha) {
  if (std::isnan(x)) return x;
  switch (act) {
    case Act::linear:
      return x;
    case Act::relu:
      return x > 0 ? x : 0.0;
    case Act::relu6:
      return std::min(std::max(x, 0.0), 6.0);
    case Act::elu:
      return x > 0 ? x : std::expm1(x);
    case Act::leakyrelu:
      return x > 0 ? x : alpha * x;
    case Act::sigmoid:
      return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x));
    case Act::tanh:
      return std::tanh(x);
  }
  return x;
}

void fusedMatMul(KernelArgs& args) {
  const Tensor& a = args.inputs[0];
  const Tensor& b = args.inputs[1];
  const float* bias = args.inputs.size() > 2 ? hostData<float>(args.inputs[2]) : nullptr;
  Tensor& out = args.outputs[0];
  const kernel_attrs::FusedMatMul kind = kernel_attrs::FusedMatMul::read(args.attrs);
  bool tA = kind.transposeA, tB = kind.transposeB;
  Act act = parseAct(kind.activation);
  double alpha = kind.leakyreluAlpha;
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  const Shape& so = out.shape();
  int64_t m = so[so.size() - 2], n = so[so.size() - 1];
  int64_t k = tA ? sa[sa.size() - 2] : sa[sa.size() - 1];
  Shape batch(so.begin(), so.end() - 2);
  std::vector<int64_t> stepA = broadcastStrides(Shape(sa.begin(), sa.end() - 2), batch);
  std::vector<int64_t> stepB = broadcastStrides(Shape(sb.begin(), sb.end() - 2), batch);
  const float* pa = hostData<float>(a);
  const float* pb = hostData<float>(b);
  float* po = hostData<float>(out);
  forEachIndex(batch, [&](const std::vector<int64_t>& index) {
    const float* ma = pa + offsetOf(index, stepA) * m * k;
    const float* mb = pb + offsetOf(index, stepB) * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = bias ? bias[j] : 0.0;
        for (int64_t p = 0; p < k; ++p) {
          float av = tA ? ma[p * m + i] : ma[i * k + p];
          float bv = tB ? mb[j * k + p] : mb[p * n + j];
          acc += static_cast<double>(av) * bv;
        }
        *po++ = static_cast<float>(activate(act, acc, alpha));
      }
  });
}

/// loss = -sum(y * logp), backprop = p * sum(y) - y with p = softmax(x),
/// logp = x - max - log(sum(exp(x - max))).
void softmaxCrossEntropy(KernelArgs& args) {
  const float* labels = hostData<float>(args.inputs[0]);
  const float* logits = hostData<float>(args.inputs[1]);
  const Shape& s = args.inputs[1].shape();
  int64_t rows = s[0], classes = s[1];
  float* loss = hostData<float>(args.outputs[0]);
  float* backprop = hostData<float>(args.outputs[1]);
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = logits + r * classes;
    const float* y = labels + r * classes;
    double mx = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < classes; ++j) mx = std::max(mx, static_cast<double>(x[j]));
    double total = 0, labelSum = 0;
    for (int64_t j = 0; j < classes; ++j) {
      total += std::exp(x[j] - mx);
      labelSum += y[j];
    }
    double logTotal = std::log(total), l = 0;
    for (int64_t j = 0; j < classes; ++j) {
      double logp = x[j] - mx - logTotal;
      l -= y[j] * logp;
      backprop[r * classes + j] = static_cast<float>(std::exp(logp) * labelSum - y[j]);
    }
    loss[r] = static_cast<float>(l);
  }
}

}  // namespace

void registerFusedKernels(const std::string& backend) {
  GLINT_REGISTER(registerKernel, "_FusedMatMul", backend, fusedMatMul);
  GLINT_REGISTER(registerKernel, "SoftmaxCrossEntropyWithLogits", backend, softmaxCrossEntropy);
}

}  // namespace glint::reference
