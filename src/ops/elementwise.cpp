// Element-wise ops and their gradients.
#include "glint/backend.h"
#include "glint/ops.h"
#include "src/ops/gradients.h"
#include "src/ops/op_util.h"

namespace glint {

namespace {

Tensor binary(const std::string& op, const std::string& kernel, const Tensor& a,
              const Tensor& b) {
  ops::checkDType(op, "a", a, {DType::float32, DType::int32});
  ops::checkDType(op, "b", b, {DType::float32, DType::int32});
  ops::checkSameDType(op, a, b);
  Shape out = broadcastShapes(op, a.shape(), b.shape());
  return runKernel(kernel, {a, b}, OutputSpec{out, a.dtype()});
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) { return binary("add", "Add", a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary("mul", "Mul", a, b); }

void registerElementwiseGradients() {
  registerGradient("Add", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
    return std::vector<Tensor>{ops::sumToShape(dys[0], ctx.inputs[0].shape()),
                               ops::sumToShape(dys[0], ctx.inputs[1].shape())};
  });
  registerGradient("Mul", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
    const Tensor& a = ctx.inputs[0];
    const Tensor& b = ctx.inputs[1];
    return std::vector<Tensor>{ops::sumToShape(mul(dys[0], b), a.shape()),
                               ops::sumToShape(mul(dys[0], a), b.shape())};
  });
}

}  // namespace glint
