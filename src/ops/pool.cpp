// maxPool, avgPool and their gradients (NHWC).
#include "glint/backend.h"
#include "glint/ops.h"
#include "src/core/kernel_selection.h"
#include "src/geometry/conv_geometry.h"
#include "src/ops/op_util.h"

namespace glint {

namespace {

Tensor pool(const std::string& op, const std::string& kernel, const Tensor& x, Pair filterSize,
            Pair strides, Padding padding) {
  ops::checkDType(op, "x", x, {DType::float32});
  if (x.rank() != 4)
    fail(op, "x must be rank 4 [batch,height,width,channels], got ", ops::describe(x));
  check(filterSize[0] >= 1 && filterSize[1] >= 1, op, "filterSize [", filterSize[0], ",",
        filterSize[1], "] must be >= 1");
  const Shape& xs = x.shape();
  int64_t oh = 0, ow = 0;
  auto window = [&] {
    return "filterSize [" + std::to_string(filterSize[0]) + "," + std::to_string(filterSize[1]) +
           "]";
  };
  Attrs attrs = conv::windowAttrs(
      op, [&] { return "x " + ops::describe(x); }, xs, window, filterSize[0], filterSize[1],
      {strides[0], strides[1]}, padding == Padding::same, {1, 1}, oh, ow, /*emptyOk=*/true);
  // A window one larger than the input: no window fits, the output is empty
  // (as TF.js). A slice of x, so that gradients reach x (as zeros).
  if (oh == 0 || ow == 0) return slice(x, {0, 0, 0, 0}, {xs[0], oh, ow, xs[3]});
  return runKernel(kernel, {x}, OutputSpec{{xs[0], oh, ow, xs[3]}, DType::float32}, attrs);
}

}  // namespace

Tensor maxPool(const Tensor& x, Pair filterSize, Pair strides, Padding padding) {
  return pool("maxPool", "MaxPool", x, filterSize, strides, padding);
}

Tensor avgPool(const Tensor& x, Pair filterSize, Pair strides, Padding padding) {
  return pool("avgPool", "AvgPool", x, filterSize, strides, padding);
}

void registerPoolGradients() {
  // dy flows to the first maximum of each window; the kernel finds it again in x.
  GLINT_REGISTER(
      registerGradient, "MaxPool", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
        const Tensor& x = ctx.inputs[0];
        return std::vector<Tensor>{runKernel("MaxPoolGrad", {dys[0], x},
                                             OutputSpec{x.shape(), DType::float32}, ctx.attrs)};
      });
  GLINT_REGISTER(
      registerGradient, "AvgPool", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
        const Shape& xs = ctx.inputs[0].shape();
        Attrs attrs = ctx.attrs;
        return std::vector<Tensor>{runKernel(
            "AvgPoolGrad", {dys[0]}, OutputSpec{xs, DType::float32}, attrs.set("inputShape", xs))};
      });
}

}  // namespace glint
