#include "src/ops/op_util.h"

#include "glint/ops.h"

namespace glint::ops {

std::string describe(const Tensor& t) {
  if (!t.defined()) return "undefined";
  return std::string(dtypeName(t.dtype())) + " " + shapeToString(t.shape());
}

void checkTensor(const std::string& op, const std::string& arg, const Tensor& t) {
  check(t.defined(), op, arg, " is an undefined tensor");
  if (!t.isDisposed()) return;
  // A disposed weight (disposeVariables, model.dispose) names itself.
  if (t.impl()->isVariable)
    fail(op, arg, ": variable '", t.impl()->name, "' (", describe(t), ") was disposed");
  fail(op, arg, " (", describe(t), ") was disposed");
}

void checkDType(const std::string& op, const std::string& arg, const Tensor& t,
                std::initializer_list<DType> allowed) {
  checkTensor(op, arg, t);
  for (DType d : allowed)
    if (t.dtype() == d) return;
  std::string names;
  for (DType d : allowed) names += (names.empty() ? "" : " or ") + std::string(dtypeName(d));
  fail(op, arg, " must be ", names, ", got ", describe(t));
}

void checkSameDType(const std::string& op, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype())
    fail(op, "operands must share a dtype, got a ", describe(a), " and b ", describe(b),
         "; cast one of them first");
}

Tensor sumToShape(const Tensor& dy, const Shape& shape) {
  if (dy.shape() == shape) return dy;
  std::vector<int64_t> axes = broadcastedAxes(shape, dy.shape());
  Tensor reduced = axes.empty() ? dy : sum(dy, axes, /*keepDims=*/true);
  return reshape(reduced, shape);
}

}  // namespace glint::ops
