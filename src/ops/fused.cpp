// Fused ops (glint/fused_ops.h): fusedMatMul (kernel _FusedMatMul) and
// softmaxCrossEntropyWithLogits (kernel SoftmaxCrossEntropyWithLogits), and
// their gradients.
#include <cmath>
#include <string>

#include "glint/backend.h"
#include "glint/fused_ops.h"
#include "glint/ops.h"
#include "src/core/backend_services.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"
#include "src/core/name_table.h"
#include "src/ops/gradients.h"
#include "src/ops/op_util.h"

namespace glint {

namespace {

const char* flag(bool b) { return b ? "true" : "false"; }

/// TF.js's fused activation names (lower case), plus tanh.
const char* const kActivations[] = {"linear",    "relu",    "relu6", "elu",
                                    "leakyrelu", "sigmoid", "tanh"};

/// The canonical name, or "" when the activation cannot be fused.
std::string fusedName(const std::string& activation) {
  std::string key = nameKey(activation);
  for (const char* a : kActivations)
    if (key == a) return a;
  return "";
}

Shape matMulShape(const Tensor& a, const Tensor& b, bool tA, bool tB) {
  const char* op = "fusedMatMul";
  if (a.rank() < 2)
    fail(op, "a must have rank >= 2 ([..., m, k]), got ", ops::describe(a),
         "; reshape a rank-1 operand to a matrix first");
  if (b.rank() < 2)
    fail(op, "b must have rank >= 2 ([..., k, n]), got ", ops::describe(b),
         "; reshape a rank-1 operand to a matrix first");
  int64_t m = a.dim(tA ? -1 : -2), kA = a.dim(tA ? -2 : -1);
  int64_t kB = b.dim(tB ? -1 : -2), n = b.dim(tB ? -2 : -1);
  if (kA != kB)
    fail(op, "inner dimensions differ: a ", ops::describe(a), " gives k = ", kA, ", b ",
         ops::describe(b), " gives k = ", kB, " (transposeA=", flag(tA), ", transposeB=", flag(tB),
         ")");
  Shape batchA(a.shape().begin(), a.shape().end() - 2);
  Shape batchB(b.shape().begin(), b.shape().end() - 2);
  size_t rank = std::max(batchA.size(), batchB.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - batchA.size() ? 1 : batchA[i - (rank - batchA.size())];
    int64_t db = i < rank - batchB.size() ? 1 : batchB[i - (rank - batchB.size())];
    if (!(da == db || da == 1 || db == 1))
      fail(op, "batch dimensions ", shapeToString(batchA), " of a ", ops::describe(a), " and ",
           shapeToString(batchB), " of b ", ops::describe(b),
           " do not broadcast: each pair must be equal or 1");
    out[i] = da == 1 ? db : da;
  }
  out.push_back(m);
  out.push_back(n);
  return out;
}

/// dL/dz for y = act(z), from y alone where y determines act'(z).
Tensor activationGrad(const Tensor& dy, const Tensor& y, const GradContext& ctx) {
  const kernel_attrs::FusedMatMul kind = kernel_attrs::FusedMatMul::read(ctx.attrs);
  const std::string& act = kind.activation;
  if (act == "linear") return dy;
  // y > 0 exactly where the pre-activation is: one ReluGrad pass (as relu's
  // own gradient) instead of a compare and a select.
  if (act == "relu") return runKernel("ReluGrad", {dy, y}, OutputSpec{y.shape(), DType::float32});
  Tensor zero = scalar(0.0f);
  if (act == "relu6") return where(logicalAnd(greater(y, zero), less(y, scalar(6.0f))), dy, zero);
  if (act == "elu") return where(greater(y, zero), dy, mul(dy, y + 1.0f));
  if (act == "sigmoid") return mul(dy, mul(y, 1.0f - y));
  if (act == "tanh") return mul(dy, 1.0f - square(y));
  // leakyrelu: with alpha >= 0, y > 0 exactly where z > 0; a negative alpha
  // makes y's sign ambiguous, so z is recomputed.
  float alpha = static_cast<float>(kind.leakyreluAlpha);
  Tensor positive = y;
  if (alpha < 0) {
    const auto& in = ctx.inputs;
    positive = fusedMatMul(in[0], in[1], in.size() > 2 ? in[2] : Tensor(), "linear",
                           kind.transposeA, kind.transposeB);
  }
  return where(greater(positive, zero), dy, dy * alpha);
}

}  // namespace

bool isFusableActivation(const std::string& activation) { return !fusedName(activation).empty(); }

Tensor fusedMatMul(const Tensor& a, const Tensor& b, const Tensor& bias,
                   const std::string& activation, bool transposeA, bool transposeB,
                   float leakyreluAlpha) {
  const std::string op = "fusedMatMul";
  ops::checkDType(op, "a", a, {DType::float32});
  ops::checkDType(op, "b", b, {DType::float32});
  Shape out = matMulShape(a, b, transposeA, transposeB);
  int64_t n = out.back();
  if (bias.defined()) {
    ops::checkDType(op, "bias", bias, {DType::float32});
    if (bias.rank() != 1 || bias.dim(0) != n)
      fail(op, "bias must be [n] = [", n, "] (one value per output column), got ",
           ops::describe(bias));
  }
  std::string act = fusedName(activation);
  if (act.empty()) {
    std::string known;
    for (const char* k : kActivations) known += (known.empty() ? "" : ", ") + std::string(k);
    fail(op, "activation '", activation,
         "' cannot be fused; fusable (case and '_' ignored): ", known,
         " (apply others, e.g. softmax, after a linear fusedMatMul)");
  }
  if (!std::isfinite(leakyreluAlpha))
    fail(op, "leakyreluAlpha must be a finite number, got ", leakyreluAlpha);
  std::vector<Tensor> inputs{a, b};
  if (bias.defined()) inputs.push_back(bias);
  return runKernel("_FusedMatMul", inputs, OutputSpec{out, DType::float32},
                   kernel_attrs::FusedMatMul{transposeA, transposeB, act, leakyreluAlpha}.attrs());
}

Tensor softmaxCrossEntropyWithLogits(const Tensor& labels, const Tensor& logits) {
  const std::string op = "softmaxCrossEntropyWithLogits";
  ops::checkDType(op, "labels", labels, {DType::float32});
  ops::checkDType(op, "logits", logits, {DType::float32});
  if (logits.rank() < 1)
    fail(op, "logits must have a class axis (the last), got ", ops::describe(logits));
  if (labels.shape() != logits.shape())
    fail(op, "labels ", ops::describe(labels), " and logits ", ops::describe(logits),
         " must have the same shape");
  Shape batch(logits.shape().begin(), logits.shape().end() - 1);
  int64_t classes = logits.shape().back(), rows = shapeSize(batch);
  bool matrix = logits.rank() == 2;
  Tensor y = matrix ? labels : reshape(labels, {rows, classes});
  Tensor x = matrix ? logits : reshape(logits, {rows, classes});
  std::vector<Tensor> out =
      runKernel("SoftmaxCrossEntropyWithLogits", {y, x},
                {OutputSpec{{rows}, DType::float32}, OutputSpec{{rows, classes}, DType::float32}});
  return matrix ? out[0] : reshape(out[0], batch);
}

Tensor argMaxEqual(const Tensor& a, const Tensor& b) {
  const std::string op = "argMaxEqual";
  ops::checkDType(op, "a", a, {DType::float32});
  ops::checkDType(op, "b", b, {DType::float32});
  if (a.rank() < 1) fail(op, "a must have at least one axis, got ", ops::describe(a));
  if (a.shape() != b.shape())
    fail(op, "a ", ops::describe(a), " and b ", ops::describe(b), " must have the same shape");
  if (a.shape().back() == 0)
    fail(op, "the last axis of a ", ops::describe(a),
         " has size 0: there is no element to take the index of");
  Shape batch(a.shape().begin(), a.shape().end() - 1);
  int64_t classes = a.shape().back(), rows = shapeSize(batch);
  Tensor out = runKernel("_ArgMaxEqual", {reshape(a, {rows, classes}), reshape(b, {rows, classes})},
                         OutputSpec{{rows}, DType::float32});
  return reshape(out, batch);
}

void registerFusedGradients() {
  GLINT_REGISTER(registerGradient, "_ArgMaxEqual",
                 [](const std::vector<Tensor>&, const GradContext&) {
                   return std::vector<Tensor>{Tensor(), Tensor()};
                 });

  GLINT_REGISTER(
      registerGradient, "_FusedMatMul", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
        Tensor dz = activationGrad(dys[0], ctx.outputs[0], ctx);
        std::vector<Tensor> grads = ops::matMulGrads(dz, ctx);
        if (ctx.inputs.size() > 2)
          grads.push_back(ctx.needs(2) ? ops::sumToShape(dz, ctx.inputs[2].shape()) : Tensor());
        return grads;
      });

  // Output 1 (the saved backprop, softmax * sum(labels) - labels) is internal: no op
  // returns it, so only the loss's dy arrives. Where a tape around records
  // this backward pass (grad of grad), it is recomputed with ops instead:
  // the kernel's saved output carries no gradient.
  GLINT_REGISTER(registerGradient, "SoftmaxCrossEntropyWithLogits",
                 [](const std::vector<Tensor>& dys, const GradContext& ctx) {
                   Tensor d = expandDims(dys[0], -1);
                   Tensor dLabels, dLogits;
                   if (ctx.needs(0)) dLabels = mul(neg(d), logSoftmax(ctx.inputs[1], -1));
                   if (ctx.needs(1))
                     dLogits =
                         mul(d, recordingGradients() ? sub(mul(softmax(ctx.inputs[1], -1),
                                                               sum(ctx.inputs[0], {-1}, true)),
                                                           ctx.inputs[0])
                                                     : ctx.outputs[1]);
                   return std::vector<Tensor>{dLabels, dLogits};
                 });
}

}  // namespace glint
