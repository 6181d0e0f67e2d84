// Fused kernels for the cpu backend. _FusedMatMul is the packed GEMM with an
// epilogue that adds the bias and applies the activation to each finished
// tile while it is in L1 (no extra passes over the output);
// SoftmaxCrossEntropyWithLogits makes one pass per row over [batch, classes].
#include <cmath>
#include <limits>
#include <vector>

#include "src/backends/cpu/gemm.h"
#include "src/backends/cpu/kernels.h"
#include "src/backends/cpu/vecmath_util.h"
#include "src/backends/reference/loops.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"

namespace glint::cpu {

namespace {

enum class Act { linear, relu, relu6, elu, leakyrelu, sigmoid, tanh };

Act parseAct(const std::string& name) {
  if (name == "relu") return Act::relu;
  if (name == "relu6") return Act::relu6;
  if (name == "elu") return Act::elu;
  if (name == "leakyrelu") return Act::leakyrelu;
  if (name == "sigmoid") return Act::sigmoid;
  if (name == "tanh") return Act::tanh;
  return Act::linear;
}

struct Epilogue {
  const float* bias;  // null: none
  float alpha;        // leakyrelu
};

/// NaN passes through every branch, as in the unary kernels.
template <Act A>
inline float activate(float x, float alpha) {
  if constexpr (A == Act::linear) return x;
  if constexpr (A == Act::relu) return !(x <= 0) ? x : 0.0f;
  if constexpr (A == Act::relu6) {
    float t = x < 0 ? 0.0f : x;
    return 6.0f < t ? 6.0f : t;
  }
  if constexpr (A == Act::elu) return x > 0 ? x : std::expm1(x);  // expm1: exact near 0
  if constexpr (A == Act::leakyrelu) return vselect(x > 0 || x != x, x, alpha * x);
  if constexpr (A == Act::sigmoid) return vsigmoid(x);
  if constexpr (A == Act::tanh) return vtanh(x);
}

template <Act A>
void epilogueTile(const void* ctx, float* c, int64_t ldc, int64_t, int64_t j0, int64_t rows,
                  int64_t cols) {
  const Epilogue& e = *static_cast<const Epilogue*>(ctx);
  const float alpha = e.alpha;
  for (int64_t r = 0; r < rows; ++r) {
    float* row = c + r * ldc;
    if (e.bias) {
      const float* bias = e.bias + j0;
      for (int64_t j = 0; j < cols; ++j) row[j] = activate<A>(row[j] + bias[j], alpha);
    } else if constexpr (A != Act::linear) {
      for (int64_t j = 0; j < cols; ++j) row[j] = activate<A>(row[j], alpha);
    }
  }
}

using EpilogueFn = decltype(GemmEpilogue::fn);

EpilogueFn epilogueFor(Act a) {
  switch (a) {
    case Act::linear:
      return epilogueTile<Act::linear>;
    case Act::relu:
      return epilogueTile<Act::relu>;
    case Act::relu6:
      return epilogueTile<Act::relu6>;
    case Act::elu:
      return epilogueTile<Act::elu>;
    case Act::leakyrelu:
      return epilogueTile<Act::leakyrelu>;
    case Act::sigmoid:
      return epilogueTile<Act::sigmoid>;
    case Act::tanh:
      return epilogueTile<Act::tanh>;
  }
  return nullptr;
}

void fusedMatMul(KernelArgs& args) {
  const Tensor& a = args.inputs[0];
  const Tensor& b = args.inputs[1];
  Tensor& out = args.outputs[0];
  const kernel_attrs::FusedMatMul kind = kernel_attrs::FusedMatMul::read(args.attrs);
  bool tA = kind.transposeA, tB = kind.transposeB;
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  const Shape& so = out.shape();
  int64_t m = so[so.size() - 2], n = so[so.size() - 1];
  int64_t k = tA ? sa[sa.size() - 2] : sa[sa.size() - 1];
  if (m == 0 || n == 0) return;

  Act act = parseAct(kind.activation);
  Epilogue e{args.inputs.size() > 2 ? hostData<float>(args.inputs[2]) : nullptr,
             static_cast<float>(kind.leakyreluAlpha)};
  GemmOptions options;
  if (e.bias || act != Act::linear) options.epilogue = GemmEpilogue{epilogueFor(act), &e};

  float* po = hostData<float>(out);
  const float* pa = hostData<float>(a);
  const float* pb = hostData<float>(b);
  if (so.size() == 2) {
    gemm(tA, tB, m, n, k, 1.0f, pa, tA ? m : k, pb, tB ? k : n, 0.0f, po, n, options);
    return;
  }
  Shape batch(so.begin(), so.end() - 2);
  std::vector<int64_t> stepA = reference::broadcastStrides(Shape(sa.begin(), sa.end() - 2), batch);
  std::vector<int64_t> stepB = reference::broadcastStrides(Shape(sb.begin(), sb.end() - 2), batch);
  reference::forEachIndex(batch, [&](const std::vector<int64_t>& index) {
    const float* ma = pa + reference::offsetOf(index, stepA) * m * k;
    const float* mb = pb + reference::offsetOf(index, stepB) * k * n;
    gemm(tA, tB, m, n, k, 1.0f, ma, tA ? m : k, mb, tB ? k : n, 0.0f, po, n, options);
    po += m * n;
  });
}

/// Per row: max, exps (kept in backprop), their sum and the label sum in
/// double; then loss = -sum(y * logp) and backprop = p * sum(y) - y.
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
    float* g = backprop + r * classes;
    float mx = -std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j < classes; ++j) mx = mx < x[j] ? x[j] : mx;
    double total = 0, labelSum = 0;
    for (int64_t j = 0; j < classes; ++j) g[j] = vexp(x[j] - mx);
    for (int64_t j = 0; j < classes; ++j) {
      total += g[j];
      labelSum += y[j];
    }
    double logTotal = std::log(total), l = 0;
    for (int64_t j = 0; j < classes; ++j) l -= y[j] * (static_cast<double>(x[j]) - mx - logTotal);
    loss[r] = static_cast<float>(l);
    float scale = static_cast<float>(labelSum / total);
    for (int64_t j = 0; j < classes; ++j) g[j] = g[j] * scale - y[j];
  }
}

}  // namespace

void registerFusedKernels(const std::string& backend) {
  GLINT_REGISTER(registerKernel, "_FusedMatMul", backend, fusedMatMul);
  GLINT_REGISTER(registerKernel, "SoftmaxCrossEntropyWithLogits", backend, softmaxCrossEntropy);
}

}  // namespace glint::cpu
