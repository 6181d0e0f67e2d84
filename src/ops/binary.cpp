// Binary element-wise ops (NumPy broadcasting), the arithmetic operators, and
// their gradients.
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "glint/backend.h"
#include "glint/ops.h"
#include "src/core/kernel_selection.h"
#include "src/ops/op_util.h"

namespace glint {

namespace {

/// Both operands float32 or both int32; the result has `outDType`, else their dtype.
Tensor binary(const std::string& op, const std::string& kernel, const Tensor& a, const Tensor& b,
              std::optional<DType> outDType = std::nullopt) {
  ops::checkDType(op, "a", a, {DType::float32, DType::int32});
  ops::checkDType(op, "b", b, {DType::float32, DType::int32});
  ops::checkSameDType(op, a, b);
  Shape out = broadcastShapes(op, a.shape(), b.shape());
  return runKernel(kernel, {a, b}, OutputSpec{out, outDType.value_or(a.dtype())});
}

/// A float operand as a scalar of the tensor operand's dtype; an int32
/// tensor needs an integral value (no silent truncation).
Tensor scalarLike(const std::string& op, const Tensor& t, float v) {
  ops::checkTensor(op, "tensor operand", t);
  if (t.dtype() == DType::int32)
    if (!(std::isfinite(v) && v == std::trunc(v) && std::abs(v) < 2147483648.0f))
      fail(op, "the scalar operand ", v, " is not an int32 value, but the tensor operand is ",
           ops::describe(t), "; cast the tensor to float32 first");
  return scalar(v, t.dtype());
}

Tensor mask(const Tensor& condition) { return cast(condition, DType::float32); }

/// Registers (da, db) = f(dy, a, b, y), each summed back to its operand's
/// shape; int32 operands get no gradient.
void binaryGrad(const std::string& kernel,
                std::function<std::pair<Tensor, Tensor>(const Tensor&, const Tensor&, const Tensor&,
                                                        const Tensor&)>
                    f) {
  registerGradient(kernel, [f](const std::vector<Tensor>& dys, const GradContext& ctx) {
    const Tensor& a = ctx.inputs[0];
    const Tensor& b = ctx.inputs[1];
    if (a.dtype() != DType::float32) return std::vector<Tensor>{Tensor(), Tensor()};
    auto [da, db] = f(dys[0], a, b, ctx.outputs[0]);
    return std::vector<Tensor>{ops::sumToShape(da, a.shape()), ops::sumToShape(db, b.shape())};
  });
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) { return binary("add", "Add", a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary("sub", "Sub", a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary("mul", "Mul", a, b); }
Tensor div(const Tensor& a, const Tensor& b) {
  return binary("div", "RealDiv", a, b, DType::float32);
}
Tensor pow(const Tensor& a, const Tensor& b) { return binary("pow", "Pow", a, b); }
Tensor maximum(const Tensor& a, const Tensor& b) { return binary("maximum", "Maximum", a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return binary("minimum", "Minimum", a, b); }
Tensor squaredDifference(const Tensor& a, const Tensor& b) {
  return binary("squaredDifference", "SquaredDifference", a, b);
}
Tensor atan2(const Tensor& a, const Tensor& b) { return binary("atan2", "Atan2", a, b); }
Tensor floorDiv(const Tensor& a, const Tensor& b) { return binary("floorDiv", "FloorDiv", a, b); }
Tensor mod(const Tensor& a, const Tensor& b) { return binary("mod", "Mod", a, b); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator-(const Tensor& x) { return neg(x); }
Tensor operator+(const Tensor& a, float b) { return add(a, scalarLike("add", a, b)); }
Tensor operator-(const Tensor& a, float b) { return sub(a, scalarLike("sub", a, b)); }
Tensor operator*(const Tensor& a, float b) { return mul(a, scalarLike("mul", a, b)); }
Tensor operator/(const Tensor& a, float b) { return div(a, scalarLike("div", a, b)); }
Tensor operator+(float a, const Tensor& b) { return add(scalarLike("add", b, a), b); }
Tensor operator-(float a, const Tensor& b) { return sub(scalarLike("sub", b, a), b); }
Tensor operator*(float a, const Tensor& b) { return mul(scalarLike("mul", b, a), b); }
Tensor operator/(float a, const Tensor& b) { return div(scalarLike("div", b, a), b); }

void registerBinaryGradients() {
  using T = const Tensor&;
  using P = std::pair<Tensor, Tensor>;
  GLINT_REGISTER(binaryGrad, "Add", [](T dy, T, T, T) { return P{dy, dy}; });
  GLINT_REGISTER(binaryGrad, "Sub", [](T dy, T, T, T) { return P{dy, neg(dy)}; });
  GLINT_REGISTER(binaryGrad, "Mul", [](T dy, T a, T b, T) { return P{mul(dy, b), mul(dy, a)}; });
  GLINT_REGISTER(binaryGrad, "RealDiv", [](T dy, T a, T b, T) {
    return P{div(dy, b), neg(div(mul(dy, a), square(b)))};
  });
  // As TF.js: d/db a^b = a^b log(a), taken as 0 where a <= 0 (log undefined there).
  GLINT_REGISTER(binaryGrad, "Pow", [](T dy, T a, T b, T y) {
    Tensor logA = where(greater(a, scalar(0)), log(a), zerosLike(a));
    return P{mul(dy, mul(b, pow(a, b - 1.0f))), mul(dy, mul(y, logA))};
  });
  // Ties go to a, as TF.js.
  GLINT_REGISTER(binaryGrad, "Maximum", [](T dy, T a, T b, T) {
    return P{mul(dy, mask(greaterEqual(a, b))), mul(dy, mask(less(a, b)))};
  });
  GLINT_REGISTER(binaryGrad, "Minimum", [](T dy, T a, T b, T) {
    return P{mul(dy, mask(lessEqual(a, b))), mul(dy, mask(greater(a, b)))};
  });
  GLINT_REGISTER(binaryGrad, "SquaredDifference", [](T dy, T a, T b, T) {
    Tensor d = mul(dy, (a - b) * 2.0f);
    return P{d, neg(d)};
  });
  // d/da atan2(a, b) = b / (a^2 + b^2), d/db = -a / (a^2 + b^2).
  GLINT_REGISTER(binaryGrad, "Atan2", [](T dy, T a, T b, T) {
    Tensor r = square(a) + square(b);
    return P{div(mul(dy, b), r), neg(div(mul(dy, a), r))};
  });
  // floor(a / b) is piecewise constant: zero almost everywhere (TF.js uses
  // div's gradient here, which finite differences contradict).
  GLINT_REGISTER(binaryGrad, "FloorDiv", [](T dy, T, T, T) {
    return P{zerosLike(dy), zerosLike(dy)};
  });
  // mod(a, b) = a - floor(a / b) * b.
  GLINT_REGISTER(binaryGrad, "Mod", [](T dy, T a, T b, T) {
    return P{dy, mul(dy, neg(floor(div(a, b))))};
  });
}

}  // namespace glint
