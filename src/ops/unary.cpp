// Unary element-wise ops and their gradients.
#include <cmath>
#include <functional>
#include <string>

#include "glint/backend.h"
#include "glint/ops.h"
#include "src/core/kernel_selection.h"
#include "src/ops/op_util.h"

namespace glint {

namespace {

// TF.js's SELU constants.
constexpr float kSeluScale = 1.0507009873554804934193349852946f;
constexpr float kSeluAlpha = 1.6732632423543772848170429916717f;
constexpr float kSqrt2OverPi = 0.79788456080286535587989211986876f;
constexpr float kGeluCubic = 0.044715f;
constexpr float kSqrtHalf = 0.70710678118654752440f;
constexpr float kInvSqrt2Pi = 0.39894228040143267794f;
constexpr float kTwoOverSqrtPi = 1.12837916709551257390f;

/// Float32 only, unless `allowInt`.
Tensor unary(const std::string& op, const std::string& kernel, const Tensor& x,
             bool allowInt = false, const Attrs& attrs = {}) {
  ops::checkTensor(op, "x", x);
  bool ok = x.dtype() == DType::float32 || (allowInt && x.dtype() == DType::int32);
  if (!ok)
    fail(op, "x must be ", allowInt ? "float32 or int32" : "float32", ", got ", ops::describe(x),
         x.dtype() == DType::int32 ? "; cast it first: cast(x, DType::float32)" : "");
  return runKernel(kernel, {x}, OutputSpec{x.shape(), x.dtype()}, attrs);
}

Tensor s(float v) { return scalar(v); }
Tensor mask(const Tensor& condition) { return cast(condition, DType::float32); }

/// Registers dx = f(dy, x, y, attrs); no gradient for int32 inputs.
void unaryGrad(const std::string& kernel,
               std::function<Tensor(const Tensor&, const Tensor&, const Tensor&, const Attrs&)> f) {
  registerGradient(kernel, [f](const std::vector<Tensor>& dys, const GradContext& ctx) {
    const Tensor& x = ctx.inputs[0];
    if (x.dtype() != DType::float32) return std::vector<Tensor>{Tensor()};
    return std::vector<Tensor>{f(dys[0], x, ctx.outputs[0], ctx.attrs)};
  });
}

}  // namespace

Tensor neg(const Tensor& x) { return unary("neg", "Neg", x, true); }
Tensor abs(const Tensor& x) { return unary("abs", "Abs", x, true); }
Tensor exp(const Tensor& x) { return unary("exp", "Exp", x); }
Tensor log(const Tensor& x) { return unary("log", "Log", x); }
Tensor log1p(const Tensor& x) { return unary("log1p", "Log1p", x); }
Tensor sqrt(const Tensor& x) { return unary("sqrt", "Sqrt", x); }
Tensor rsqrt(const Tensor& x) { return unary("rsqrt", "Rsqrt", x); }
Tensor square(const Tensor& x) { return unary("square", "Square", x, true); }
Tensor reciprocal(const Tensor& x) { return unary("reciprocal", "Reciprocal", x); }
Tensor relu(const Tensor& x) { return unary("relu", "Relu", x); }
Tensor relu6(const Tensor& x) { return unary("relu6", "Relu6", x); }
Tensor elu(const Tensor& x) { return unary("elu", "Elu", x); }
Tensor selu(const Tensor& x) { return unary("selu", "Selu", x); }
Tensor sigmoid(const Tensor& x) { return unary("sigmoid", "Sigmoid", x); }
Tensor tanh(const Tensor& x) { return unary("tanh", "Tanh", x); }
Tensor softplus(const Tensor& x) { return unary("softplus", "Softplus", x); }
Tensor sin(const Tensor& x) { return unary("sin", "Sin", x); }
Tensor cos(const Tensor& x) { return unary("cos", "Cos", x); }
Tensor asin(const Tensor& x) { return unary("asin", "Asin", x); }
Tensor acos(const Tensor& x) { return unary("acos", "Acos", x); }
Tensor atan(const Tensor& x) { return unary("atan", "Atan", x); }
Tensor asinh(const Tensor& x) { return unary("asinh", "Asinh", x); }
Tensor acosh(const Tensor& x) { return unary("acosh", "Acosh", x); }
Tensor atanh(const Tensor& x) { return unary("atanh", "Atanh", x); }
Tensor erf(const Tensor& x) { return unary("erf", "Erf", x); }
Tensor sign(const Tensor& x) { return unary("sign", "Sign", x, true); }
Tensor floor(const Tensor& x) { return unary("floor", "Floor", x); }
Tensor ceil(const Tensor& x) { return unary("ceil", "Ceil", x); }
Tensor round(const Tensor& x) { return unary("round", "Round", x); }

Tensor leakyRelu(const Tensor& x, float alpha) {
  check(std::isfinite(alpha), "leakyRelu", "alpha must be a finite number, got ", alpha);
  return unary("leakyRelu", "LeakyRelu", x, false, Attrs().set("alpha", alpha));
}

Tensor gelu(const Tensor& x, bool approximate) {
  return unary("gelu", "Gelu", x, false, Attrs().set("approximate", approximate));
}

void registerUnaryGradients() {
  using A = const Attrs&;
  using T = const Tensor&;
  GLINT_REGISTER(unaryGrad, "Neg", [](T dy, T, T, A) { return neg(dy); });
  GLINT_REGISTER(unaryGrad, "Abs", [](T dy, T x, T, A) { return mul(dy, sign(x)); });
  GLINT_REGISTER(unaryGrad, "Exp", [](T dy, T, T y, A) { return mul(dy, y); });
  GLINT_REGISTER(unaryGrad, "Log", [](T dy, T x, T, A) { return div(dy, x); });
  GLINT_REGISTER(unaryGrad, "Log1p", [](T dy, T x, T, A) { return div(dy, x + 1.0f); });
  GLINT_REGISTER(unaryGrad, "Sqrt", [](T dy, T, T y, A) { return div(dy, y * 2.0f); });
  // d/dx x^-1/2 = -1/2 x^-3/2 = -1/2 y^3.
  GLINT_REGISTER(unaryGrad, "Rsqrt",
                 [](T dy, T, T y, A) { return mul(dy, mul(y, square(y)) * -0.5f); });
  GLINT_REGISTER(unaryGrad, "Square", [](T dy, T x, T, A) { return mul(dy, x * 2.0f); });
  GLINT_REGISTER(unaryGrad, "Reciprocal", [](T dy, T, T y, A) { return neg(mul(dy, square(y))); });
  // One pass over dy and x (a conv layer's gradient runs it over its whole
  // output) instead of greater, cast and mul: dy * (x > 0 ? 1 : 0), as TF's
  // ReluGrad, so a NaN or infinite dy still gives NaN where x <= 0.
  GLINT_REGISTER(unaryGrad, "Relu", [](T dy, T x, T, A) {
    return runKernel("ReluGrad", {dy, x}, OutputSpec{x.shape(), DType::float32});
  });
  // ReluGrad is linear in dy and piecewise constant in x.
  GLINT_REGISTER(registerGradient, "ReluGrad",
                 [](const std::vector<Tensor>& dys, const GradContext& ctx) {
                   const Tensor& x = ctx.inputs[1];
                   return std::vector<Tensor>{
                       runKernel("ReluGrad", {dys[0], x}, OutputSpec{x.shape(), DType::float32}),
                       zerosLike(x)};
                 });
  // As TF.js: the mask is 0 < x <= 6.
  GLINT_REGISTER(unaryGrad, "Relu6", [](T dy, T x, T, A) {
    return mul(dy, mask(logicalAnd(greater(x, s(0)), lessEqual(x, s(6)))));
  });
  GLINT_REGISTER(unaryGrad, "LeakyRelu", [](T dy, T x, T, A attrs) {
    return where(greater(x, s(0)), dy, dy * static_cast<float>(attrs.f("alpha")));
  });
  // For x <= 0, y = exp(x) - 1, so the slope is y + 1.
  GLINT_REGISTER(unaryGrad, "Elu",
                 [](T dy, T x, T y, A) { return where(greater(x, s(0)), dy, mul(dy, y + 1.0f)); });
  GLINT_REGISTER(unaryGrad, "Selu", [](T dy, T x, T y, A) {
    return where(greater(x, s(0)), dy * kSeluScale, mul(dy, y + kSeluScale * kSeluAlpha));
  });
  GLINT_REGISTER(unaryGrad, "Sigmoid", [](T dy, T, T y, A) { return mul(dy, mul(y, 1.0f - y)); });
  GLINT_REGISTER(unaryGrad, "Tanh", [](T dy, T, T y, A) { return mul(dy, 1.0f - square(y)); });
  GLINT_REGISTER(unaryGrad, "Softplus", [](T dy, T x, T, A) { return mul(dy, sigmoid(x)); });
  GLINT_REGISTER(unaryGrad, "Gelu", [](T dy, T x, T, A attrs) {
    if (!attrs.b("approximate")) {
      // Phi(x) + x * phi(x), with Phi, phi the standard normal cdf and pdf.
      Tensor cdf = (erf(x * kSqrtHalf) + 1.0f) * 0.5f;
      Tensor pdf = exp(square(x) * -0.5f) * kInvSqrt2Pi;
      return mul(dy, cdf + mul(x, pdf));
    }
    Tensor x2 = square(x);
    Tensor t = tanh(mul(x, x2 * kGeluCubic + 1.0f) * kSqrt2OverPi);
    Tensor du = (x2 * (3.0f * kGeluCubic) + 1.0f) * kSqrt2OverPi;
    Tensor slope = (t + 1.0f) * 0.5f + mul(x * 0.5f, mul(1.0f - square(t), du));
    return mul(dy, slope);
  });
  GLINT_REGISTER(unaryGrad, "Erf",
                 [](T dy, T x, T, A) { return mul(dy, exp(neg(square(x))) * kTwoOverSqrtPi); });
  GLINT_REGISTER(unaryGrad, "Sin", [](T dy, T x, T, A) { return mul(dy, cos(x)); });
  GLINT_REGISTER(unaryGrad, "Cos", [](T dy, T x, T, A) { return neg(mul(dy, sin(x))); });
  // (1 - x)(1 + x) rather than 1 - x^2: no cancellation near |x| = 1.
  GLINT_REGISTER(unaryGrad, "Asin",
                 [](T dy, T x, T, A) { return div(dy, sqrt(mul(1.0f - x, x + 1.0f))); });
  GLINT_REGISTER(unaryGrad, "Acos",
                 [](T dy, T x, T, A) { return neg(div(dy, sqrt(mul(1.0f - x, x + 1.0f)))); });
  GLINT_REGISTER(unaryGrad, "Atan", [](T dy, T x, T, A) { return div(dy, square(x) + 1.0f); });
  GLINT_REGISTER(unaryGrad, "Asinh",
                 [](T dy, T x, T, A) { return div(dy, sqrt(square(x) + 1.0f)); });
  GLINT_REGISTER(unaryGrad, "Acosh",
                 [](T dy, T x, T, A) { return div(dy, sqrt(mul(x - 1.0f, x + 1.0f))); });
  GLINT_REGISTER(unaryGrad, "Atanh",
                 [](T dy, T x, T, A) { return div(dy, mul(1.0f - x, x + 1.0f)); });
  // Piecewise constant: zero almost everywhere (as TF.js).
  for (const char* k : {"Sign", "Floor", "Ceil", "Round"})
    unaryGrad(k, [](T, T x, T, A) { return zerosLike(x); });
}

}  // namespace glint
