// Indexing ops: gather, unsortedSegmentSum, oneHot. Out-of-range indices are
// not errors (a GPU kernel cannot report them cheaply): gather yields zeros,
// unsortedSegmentSum drops the row, oneHot yields an all-off row.
#include "glint/backend.h"
#include "glint/ops.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"
#include "src/ops/op_util.h"

namespace glint {

Tensor gather(const Tensor& x, const Tensor& indices, int64_t axis) {
  ops::checkTensor("gather", "x", x);
  ops::checkDType("gather", "indices", indices, {DType::int32});
  int ax = normalizeAxis("gather", "axis", axis, x.rank());
  Shape out(x.shape().begin(), x.shape().begin() + ax);
  out.insert(out.end(), indices.shape().begin(), indices.shape().end());
  out.insert(out.end(), x.shape().begin() + ax + 1, x.shape().end());
  return runKernel("GatherV2", {x, indices}, OutputSpec{out, x.dtype()},
                   kernel_attrs::Axis{int64_t{ax}}.attrs());
}

Tensor unsortedSegmentSum(const Tensor& x, const Tensor& segmentIds, int64_t numSegments) {
  ops::checkDType("unsortedSegmentSum", "x", x, {DType::float32, DType::int32});
  ops::checkDType("unsortedSegmentSum", "segmentIds", segmentIds, {DType::int32});
  check(numSegments >= 0, "unsortedSegmentSum", "numSegments must be >= 0, got ", numSegments);
  const Shape& ids = segmentIds.shape();
  bool prefix =
      ids.size() <= x.shape().size() && std::equal(ids.begin(), ids.end(), x.shape().begin());
  if (!(prefix))
    fail("unsortedSegmentSum", "segmentIds ", ops::describe(segmentIds),
         " must match the leading dimensions of x ", ops::describe(x));
  Shape out{numSegments};
  out.insert(out.end(), x.shape().begin() + static_cast<int64_t>(ids.size()), x.shape().end());
  return runKernel("UnsortedSegmentSum", {x, segmentIds}, OutputSpec{out, x.dtype()},
                   Attrs().set("numSegments", numSegments));
}

Tensor oneHot(const Tensor& indices, int64_t depth, float onValue, float offValue) {
  ops::checkDType("oneHot", "indices", indices, {DType::int32});
  check(depth >= 0, "oneHot", "depth must be >= 0, got ", depth);
  Shape out = indices.shape();
  out.push_back(depth);
  return runKernel("OneHot", {indices}, OutputSpec{out, DType::float32},
                   Attrs().set("depth", depth).set("onValue", onValue).set("offValue", offValue));
}

void registerIndexingGradients() {
  GLINT_REGISTER(registerGradient, "GatherV2",
                 [](const std::vector<Tensor>& dys, const GradContext& ctx) {
                   // dy is [outer, indices..., inner]: bring the index dimensions to the
                   // front, sum rows into x's axis by index, and move that axis back.
                   const Tensor& x = ctx.inputs[0];
                   const Tensor& indices = ctx.inputs[1];
                   int axis = static_cast<int>(kernel_attrs::Axis::read(ctx.attrs).axis);
                   int64_t outer = 1, inner = 1, n = x.shape()[axis];
                   for (int d = 0; d < axis; ++d) outer *= x.shape()[d];
                   for (int d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
                   int64_t m = indices.size();
                   Tensor ids = reshape(indices, {m});
                   Tensor dx;
                   if (outer == 1) {
                     dx = unsortedSegmentSum(reshape(dys[0], {m, inner}), ids, n);
                   } else {
                     Tensor dy = transpose(reshape(dys[0], {outer, m, inner}), {1, 0, 2});
                     dx = transpose(unsortedSegmentSum(dy, ids, n), {1, 0, 2});
                   }
                   return std::vector<Tensor>{reshape(dx, x.shape()), Tensor()};
                 });
  GLINT_REGISTER(registerGradient, "UnsortedSegmentSum",
                 [](const std::vector<Tensor>& dys, const GradContext& ctx) {
                   return std::vector<Tensor>{gather(dys[0], ctx.inputs[1], 0), Tensor()};
                 });
  GLINT_REGISTER(registerGradient, "OneHot", [](const std::vector<Tensor>&, const GradContext&) {
    return std::vector<Tensor>{Tensor()};
  });
}

}  // namespace glint
