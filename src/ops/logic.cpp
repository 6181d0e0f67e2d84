// Comparisons, logic, where, cast, clipByValue, and the gradients of the
// float-valued ones (bool results have none).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "glint/backend.h"
#include "glint/ops.h"
#include "src/core/kernel_selection.h"
#include "src/ops/op_util.h"

namespace glint {

namespace {

/// Equality compares any dtype; ordering needs float32 or int32.
Tensor compare(const std::string& op, const std::string& kernel, const Tensor& a, const Tensor& b,
               bool ordered) {
  if (ordered) {
    ops::checkDType(op, "a", a, {DType::float32, DType::int32});
    ops::checkDType(op, "b", b, {DType::float32, DType::int32});
  } else {
    ops::checkTensor(op, "a", a);
    ops::checkTensor(op, "b", b);
  }
  ops::checkSameDType(op, a, b);
  Shape out = broadcastShapes(op, a.shape(), b.shape());
  return runKernel(kernel, {a, b}, OutputSpec{out, DType::boolean});
}

Tensor logic(const std::string& op, const std::string& kernel, const Tensor& a, const Tensor& b) {
  ops::checkDType(op, "a", a, {DType::boolean});
  ops::checkDType(op, "b", b, {DType::boolean});
  Shape out = broadcastShapes(op, a.shape(), b.shape());
  return runKernel(kernel, {a, b}, OutputSpec{out, DType::boolean});
}

std::optional<Shape> tryBroadcast(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace

Tensor equal(const Tensor& a, const Tensor& b) { return compare("equal", "Equal", a, b, false); }
Tensor notEqual(const Tensor& a, const Tensor& b) {
  return compare("notEqual", "NotEqual", a, b, false);
}
Tensor less(const Tensor& a, const Tensor& b) { return compare("less", "Less", a, b, true); }
Tensor lessEqual(const Tensor& a, const Tensor& b) {
  return compare("lessEqual", "LessEqual", a, b, true);
}
Tensor greater(const Tensor& a, const Tensor& b) {
  return compare("greater", "Greater", a, b, true);
}
Tensor greaterEqual(const Tensor& a, const Tensor& b) {
  return compare("greaterEqual", "GreaterEqual", a, b, true);
}

Tensor logicalAnd(const Tensor& a, const Tensor& b) {
  return logic("logicalAnd", "LogicalAnd", a, b);
}
Tensor logicalOr(const Tensor& a, const Tensor& b) { return logic("logicalOr", "LogicalOr", a, b); }
Tensor logicalXor(const Tensor& a, const Tensor& b) {
  return logic("logicalXor", "LogicalXor", a, b);
}
Tensor logicalNot(const Tensor& x) {
  ops::checkDType("logicalNot", "x", x, {DType::boolean});
  return runKernel("LogicalNot", {x}, OutputSpec{x.shape(), DType::boolean});
}

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  ops::checkDType("where", "condition", condition, {DType::boolean});
  ops::checkTensor("where", "a", a);
  ops::checkTensor("where", "b", b);
  ops::checkSameDType("where", a, b);
  std::optional<Shape> ab = tryBroadcast(a.shape(), b.shape());
  std::optional<Shape> out = ab ? tryBroadcast(condition.shape(), *ab) : std::nullopt;
  if (!out)
    fail("where", "condition ", ops::describe(condition), ", a ", ops::describe(a), " and b ",
         ops::describe(b), " cannot be broadcast together; each dimension must match or be 1");
  return runKernel("Select", {condition, a, b}, OutputSpec{*out, a.dtype()});
}

Tensor cast(const Tensor& x, DType dtype) {
  ops::checkTensor("cast", "x", x);
  return runKernel("Cast", {x}, OutputSpec{x.shape(), dtype},
                   Attrs().set("dtype", dtypeName(dtype)));
}

Tensor clipByValue(const Tensor& x, float minValue, float maxValue) {
  ops::checkDType("clipByValue", "x", x, {DType::float32});
  check(std::isfinite(minValue) && std::isfinite(maxValue), "clipByValue",
        "minValue and maxValue must be finite, got ", minValue, " and ", maxValue);
  check(minValue <= maxValue, "clipByValue", "minValue (", minValue, ") must be <= maxValue (",
        maxValue, ")");
  return runKernel("ClipByValue", {x}, OutputSpec{x.shape(), DType::float32},
                   Attrs().set("min", minValue).set("max", maxValue));
}

void registerLogicGradients() {
  // Float to float passes dy through; integer and bool sides have no gradient.
  GLINT_REGISTER(
      registerGradient, "Cast", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
        bool floats =
            ctx.inputs[0].dtype() == DType::float32 && ctx.outputs[0].dtype() == DType::float32;
        return std::vector<Tensor>{floats ? dys[0] : Tensor()};
      });
  GLINT_REGISTER(
      registerGradient, "Select", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
        const Tensor& cond = ctx.inputs[0];
        const Tensor& a = ctx.inputs[1];
        const Tensor& b = ctx.inputs[2];
        if (a.dtype() != DType::float32) return std::vector<Tensor>{Tensor(), Tensor(), Tensor()};
        Tensor zero = scalar(0);
        return std::vector<Tensor>{Tensor(), ops::sumToShape(where(cond, dys[0], zero), a.shape()),
                                   ops::sumToShape(where(cond, zero, dys[0]), b.shape())};
      });
  GLINT_REGISTER(registerGradient, "ClipByValue",
                 [](const std::vector<Tensor>& dys, const GradContext& ctx) {
                   const Tensor& x = ctx.inputs[0];
                   Tensor lo = scalar(static_cast<float>(ctx.attrs.f("min")));
                   Tensor hi = scalar(static_cast<float>(ctx.attrs.f("max")));
                   Tensor inside = logicalAnd(greaterEqual(x, lo), lessEqual(x, hi));
                   return std::vector<Tensor>{where(inside, dys[0], scalar(0))};
                 });
}

}  // namespace glint
