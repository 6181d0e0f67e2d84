// Reductions, softmax and their gradients.
#include "glint/backend.h"
#include "glint/ops.h"
#include "src/ops/gradients.h"
#include "src/ops/op_util.h"

namespace glint {

namespace {

/// Output shape of reducing `axes` (normalized) of `shape`.
Shape reducedShape(const Shape& shape, const std::vector<int>& axes, bool keepDims) {
  Shape out;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!reduced) out.push_back(shape[d]);
    else if (keepDims) out.push_back(1);
  }
  return out;
}

Tensor reduce(const std::string& op, const std::string& kernel, const Tensor& x,
              const std::vector<int64_t>& axes, bool keepDims, DType outDType) {
  std::vector<int> norm = normalizeAxes(op, "axes", axes, x.rank());
  std::vector<int64_t> axes64(norm.begin(), norm.end());
  Shape out = reducedShape(x.shape(), norm, keepDims);
  return runKernel(kernel, {x}, OutputSpec{out, outDType},
                   Attrs().set("axes", axes64).set("keepDims", keepDims));
}

}  // namespace

Tensor sum(const Tensor& x, const std::vector<int64_t>& axes, bool keepDims) {
  ops::checkDType("sum", "x", x, {DType::float32, DType::int32});
  return reduce("sum", "Sum", x, axes, keepDims, x.dtype());
}

void registerReductionGradients() {
  registerGradient("Sum", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
    // Put the reduced axes back as size-1 dimensions, then broadcast.
    const Tensor& x = ctx.inputs[0];
    Shape kept = x.shape();
    for (int64_t a : ctx.attrs.ints("axes")) kept[a] = 1;
    Tensor dy = reshape(dys[0], kept);
    return std::vector<Tensor>{mul(dy, onesLike(x))};
  });
}

}  // namespace glint
