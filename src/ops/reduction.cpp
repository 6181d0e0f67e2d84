// Reductions, softmax and their gradients.
#include <algorithm>
#include <cmath>
#include <limits>

#include "glint/autograd.h"
#include "glint/backend.h"
#include "glint/ops.h"
#include "src/core/backend_services.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"
#include "src/geometry/mean_scale.h"
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

/// `shape` with the (normalized) reduced axes set to 1: a reduction's result
/// reshaped like this broadcasts back over its input.
Shape keptShape(const Shape& shape, const std::vector<int64_t>& axes) {
  Shape kept = shape;
  for (int64_t a : axes) kept[a] = 1;
  return kept;
}

/// For each element of x, the product of the other elements of its window
/// over `axes`, as n x n products of x with ones on the diagonal: no
/// division, so zeros need no case, and differentiable again.
Tensor productOfOthers(const Tensor& x, const std::vector<int64_t>& axes) {
  std::vector<int64_t> perm;
  int64_t rest = 1, n = 1;
  for (int64_t a = 0; a < x.rank(); ++a)
    if (std::find(axes.begin(), axes.end(), a) == axes.end()) {
      perm.push_back(a);
      rest *= x.shape()[a];
    }
  for (int64_t a : axes) {
    perm.push_back(a);
    n *= x.shape()[a];
  }
  Tensor xt = transpose(x, perm);
  Tensor index = range(0.0f, static_cast<float>(n), 1.0f, DType::int32);
  Tensor eye = cast(equal(reshape(index, {n, 1}), reshape(index, {1, n})), DType::float32);
  Tensor rows = add(mul(reshape(xt, {rest, 1, n}), sub(scalar(1.0f), eye)), eye);  // [rest, n, n]
  Tensor others = reshape(prod(rows, {2}), xt.shape());
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return transpose(others, inverse);
}

std::vector<int64_t> toInt64(const std::vector<int>& axes) {
  return std::vector<int64_t>(axes.begin(), axes.end());
}

Tensor reduce(const std::string& op, const std::string& kernel, const Tensor& x,
              const std::vector<int64_t>& axes, bool keepDims, DType outDType) {
  std::vector<int> norm = normalizeAxes(op, "axes", axes, x.rank());
  Shape out = reducedShape(x.shape(), norm, keepDims);
  return runKernel(kernel, {x}, OutputSpec{out, outDType},
                   kernel_attrs::Reduce{toInt64(norm), keepDims}.attrs());
}

Tensor argExtreme(const std::string& op, const std::string& kernel, const Tensor& x, int64_t axis) {
  ops::checkDType(op, "x", x, {DType::float32, DType::int32});
  int a = normalizeAxis(op, "axis", axis, x.rank());
  if (x.shape()[a] <= 0)
    fail(op, "axis ", axis, " of x ", ops::describe(x),
         " has size 0: there is no element to take the index of");
  Shape out = x.shape();
  out.erase(out.begin() + a);
  return runKernel(kernel, {x}, OutputSpec{out, DType::int32},
                   kernel_attrs::Axis{static_cast<int64_t>(a)}.attrs());
}

}  // namespace

Tensor sum(const Tensor& x, const std::vector<int64_t>& axes, bool keepDims) {
  ops::checkDType("sum", "x", x, {DType::float32, DType::int32});
  return reduce("sum", "Sum", x, axes, keepDims, x.dtype());
}

Tensor max(const Tensor& x, const std::vector<int64_t>& axes, bool keepDims) {
  ops::checkDType("max", "x", x, {DType::float32, DType::int32});
  return reduce("max", "Max", x, axes, keepDims, x.dtype());
}

Tensor min(const Tensor& x, const std::vector<int64_t>& axes, bool keepDims) {
  ops::checkDType("min", "x", x, {DType::float32, DType::int32});
  return reduce("min", "Min", x, axes, keepDims, x.dtype());
}

Tensor prod(const Tensor& x, const std::vector<int64_t>& axes, bool keepDims) {
  ops::checkDType("prod", "x", x, {DType::float32, DType::int32});
  return reduce("prod", "Prod", x, axes, keepDims, x.dtype());
}

Tensor any(const Tensor& x, const std::vector<int64_t>& axes, bool keepDims) {
  ops::checkDType("any", "x", x, {DType::boolean});
  return reduce("any", "Any", x, axes, keepDims, DType::boolean);
}

Tensor all(const Tensor& x, const std::vector<int64_t>& axes, bool keepDims) {
  ops::checkDType("all", "x", x, {DType::boolean});
  return reduce("all", "All", x, axes, keepDims, DType::boolean);
}

Tensor mean(const Tensor& x, const std::vector<int64_t>& axes, bool keepDims) {
  ops::checkDType("mean", "x", x, {DType::float32, DType::int32});
  std::vector<int> norm = normalizeAxes("mean", "axes", axes, x.rank());
  // One kernel, not a sum and a scalar product: a training step takes two
  // means (loss, metric), and on a GPU each op is a draw or a dispatch.
  Tensor xf = x.dtype() == DType::float32 ? x : cast(x, DType::float32);
  return reduce("mean", "Mean", xf, toInt64(norm), keepDims, DType::float32);
}

Tensor logSumExp(const Tensor& x, const std::vector<int64_t>& axes, bool keepDims) {
  ops::checkDType("logSumExp", "x", x, {DType::float32});
  std::vector<int> norm = normalizeAxes("logSumExp", "axes", axes, x.rank());
  std::vector<int64_t> ax = toInt64(norm);
  // Its own gradient (softmax-weighted dy): the max shift below must not be
  // differentiated, and the finiteness test has no gradient.
  Tensor lse = customGrad(
      [ax](const std::vector<Tensor>& in) {
        const Tensor& v = in[0];
        Tensor m = max(v, ax, true);
        // Shift by the max where it is finite; an all -inf (or +inf) window
        // would otherwise turn v - m into NaN.
        Tensor finite = less(abs(m), scalar(std::numeric_limits<float>::infinity()));
        Tensor shift = where(finite, m, zerosLike(m));
        Tensor out = add(log(sum(exp(sub(v, shift)), ax, true)), shift);
        return CustomGradResult{out, [v, out](const Tensor& dy) {
                                  return std::vector<Tensor>{mul(dy, exp(sub(v, out)))};
                                }};
      },
      {x});
  return keepDims ? lse : reshape(lse, reducedShape(x.shape(), norm, false));
}

Tensor argMax(const Tensor& x, int64_t axis) { return argExtreme("argMax", "ArgMax", x, axis); }
Tensor argMin(const Tensor& x, int64_t axis) { return argExtreme("argMin", "ArgMin", x, axis); }

Tensor softmax(const Tensor& logits, int64_t axis) {
  ops::checkDType("softmax", "logits", logits, {DType::float32});
  int a = normalizeAxis("softmax", "axis", axis, logits.rank());
  return runKernel("Softmax", {logits}, OutputSpec{logits.shape(), DType::float32},
                   kernel_attrs::Axis{static_cast<int64_t>(a)}.attrs());
}

Tensor logSoftmax(const Tensor& logits, int64_t axis) {
  ops::checkDType("logSoftmax", "logits", logits, {DType::float32});
  int a = normalizeAxis("logSoftmax", "axis", axis, logits.rank());
  return sub(logits, logSumExp(logits, {a}, true));
}

void registerReductionGradients() {
  GLINT_REGISTER(
      registerGradient, "Sum", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
        // Put the reduced axes back as size-1 dimensions, then broadcast.
        const Tensor& x = ctx.inputs[0];
        if (x.dtype() != DType::float32) return std::vector<Tensor>{Tensor()};
        Tensor dy =
            reshape(dys[0], keptShape(x.shape(), kernel_attrs::Reduce::read(ctx.attrs).axes));
        return std::vector<Tensor>{mul(dy, onesLike(x))};
      });
  GLINT_REGISTER(registerGradient, "Mean",
                 [](const std::vector<Tensor>& dys, const GradContext& ctx) {
                   const Tensor& x = ctx.inputs[0];
                   const std::vector<int64_t> axes = kernel_attrs::Reduce::read(ctx.attrs).axes;
                   Tensor dy = reshape(dys[0], keptShape(x.shape(), axes));
                   return std::vector<Tensor>{
                       mul(dy, fill(x.shape(), static_cast<float>(meanScale(x.shape(), axes))))};
                 });

  // TF.js semantics: every position equal to the extreme gets the full dy.
  GradFn extremeGrad = [](const std::vector<Tensor>& dys, const GradContext& ctx) {
    const Tensor& x = ctx.inputs[0];
    if (x.dtype() != DType::float32) return std::vector<Tensor>{Tensor()};
    Shape kept = keptShape(x.shape(), kernel_attrs::Reduce::read(ctx.attrs).axes);
    Tensor y = reshape(ctx.outputs[0], kept);
    Tensor mask = cast(equal(x, y), DType::float32);
    return std::vector<Tensor>{mul(mask, reshape(dys[0], kept))};
  };
  GLINT_REGISTER(registerGradient, "Max", extremeGrad);
  GLINT_REGISTER(registerGradient, "Min", extremeGrad);

  // d prod / d x_i = product of the other elements. Computed from the product
  // of the non-zero elements so zeros are exact: with one zero in a window
  // only that position gets a gradient, with two or more none does. (prod/x_i
  // for non-zero x_i is rounded like a division, and can overflow where the
  // product of the others would not.)
  GLINT_REGISTER(
      registerGradient, "Prod", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
        const Tensor& x = ctx.inputs[0];
        if (x.dtype() != DType::float32) return std::vector<Tensor>{Tensor()};
        const std::vector<int64_t> axes = kernel_attrs::Reduce::read(ctx.attrs).axes;
        Shape kept = keptShape(x.shape(), axes);
        // Where a tape around records this (grad of grad), the product of the
        // others is built from x by ops alone: the zero masks below are right in
        // value but constant, so their derivative would be lost.
        if (recordingGradients())
          return std::vector<Tensor>{mul(productOfOthers(x, axes), reshape(dys[0], kept))};
        Tensor zero = scalar(0.0f);
        Tensor isZero = equal(x, zero);
        Tensor safeX = where(isZero, onesLike(x), x);
        Tensor prodNonZero = prod(safeX, axes, true);
        Tensor zeroCount = sum(cast(isZero, DType::float32), axes, true);
        Tensor noZero = cast(equal(zeroCount, zero), DType::float32);
        Tensor oneZero = cast(equal(zeroCount, scalar(1.0f)), DType::float32);
        Tensor others =
            where(isZero, mul(prodNonZero, oneZero), mul(div(prodNonZero, safeX), noZero));
        return std::vector<Tensor>{mul(others, reshape(dys[0], kept))};
      });

  GLINT_REGISTER(registerGradient, "Softmax",
                 [](const std::vector<Tensor>& dys, const GradContext& ctx) {
                   const Tensor& y = ctx.outputs[0];
                   Tensor s = sum(mul(dys[0], y), {kernel_attrs::Axis::read(ctx.attrs).axis}, true);
                   return std::vector<Tensor>{mul(y, sub(dys[0], s))};
                 });
}

}  // namespace glint
