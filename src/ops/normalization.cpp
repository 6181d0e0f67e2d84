// moments and batchNorm, composed from other ops (their gradients come from the tape).
#include <cmath>

#include "glint/ops.h"
#include "src/ops/op_util.h"

namespace glint {

namespace {

/// Throws unless t (optional when `optional`) is float32 and broadcasts to x
/// without growing it.
void checkBroadcastsTo(const std::string& arg, const Tensor& t, const Tensor& x, bool optional) {
  if (optional && !t.defined()) return;
  ops::checkDType("batchNorm", arg, t, {DType::float32});
  bool fits = t.rank() <= x.rank();
  for (int i = 1; fits && i <= t.rank(); ++i) {
    int64_t d = t.shape()[t.rank() - i];
    fits = d == 1 || d == x.shape()[x.rank() - i];
  }
  if (!(fits))
    fail("batchNorm", arg, " ", ops::describe(t), " does not broadcast to x ", ops::describe(x),
         ": each of its trailing dimensions must be 1 or equal x's");
}

}  // namespace

Moments moments(const Tensor& x, const std::vector<int64_t>& axes, bool keepDims) {
  ops::checkDType("moments", "x", x, {DType::float32, DType::int32});
  std::vector<int> norm = normalizeAxes("moments", "axes", axes, x.rank());
  std::vector<int64_t> ax(norm.begin(), norm.end());
  Tensor xf = x.dtype() == DType::float32 ? x : cast(x, DType::float32);
  Tensor m = mean(xf, ax, true);
  // Two passes (mean of squared deviations): no cancellation as in E[x^2] - E[x]^2.
  Tensor variance = mean(square(sub(xf, m)), ax, keepDims);
  if (!keepDims) m = reshape(m, variance.shape());
  return Moments{m, variance};
}

Tensor batchNorm(const Tensor& x, const Tensor& mean, const Tensor& variance, const Tensor& offset,
                 const Tensor& scale, float epsilon) {
  ops::checkDType("batchNorm", "x", x, {DType::float32});
  checkBroadcastsTo("mean", mean, x, false);
  checkBroadcastsTo("variance", variance, x, false);
  checkBroadcastsTo("offset", offset, x, true);
  checkBroadcastsTo("scale", scale, x, true);
  check(std::isfinite(epsilon) && epsilon > 0, "batchNorm", "epsilon must be finite and > 0, got ",
        epsilon);
  Tensor inv = rsqrt(add(variance, scalar(epsilon)));
  if (scale.defined()) inv = mul(inv, scale);
  Tensor y = mul(sub(x, mean), inv);
  return offset.defined() ? add(y, offset) : y;
}

}  // namespace glint
