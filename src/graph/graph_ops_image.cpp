// Image ops of graph models (resizing, non-maximum suppression) and the two
// ops whose output shape depends on the values (TopKV2's indices, Where):
// those read their input back to the host, as TF.js does.
#include <algorithm>
#include <numeric>

#include "glint/ops.h"
#include "src/graph/graph_internal.h"

namespace glint::graph {

namespace {

Pair sizeArg(const NodeContext& ctx) {
  std::vector<int64_t> size = ctx.ints(1, "size");
  opCheck(size.size() == 2, "size must hold [height, width], got ", size.size(), " values");
  return {size[0], size[1]};
}

std::vector<Value> nms(NodeContext& ctx, int version) {
  ctx.needInputs(version == 2 ? 4 : version == 5 ? 6 : 5);
  int64_t maxOutput = ctx.intScalar(2, "max_output_size");
  float iou = static_cast<float>(ctx.scalar(3, "iou_threshold"));
  float scoreThreshold = version >= 3 ? static_cast<float>(ctx.scalar(4, "score_threshold"))
                                      : -std::numeric_limits<float>::infinity();
  float sigma = version == 5 ? static_cast<float>(ctx.scalar(5, "soft_nms_sigma")) : 0.0f;
  bool padded = version == 4 && ctx.attrBool("pad_to_max_output_size", false);
  NonMaxSuppressionResult r =
      nonMaxSuppression(ctx.in(0), ctx.in(1), maxOutput, iou, scoreThreshold, sigma, padded);
  Value valid(hostScalar(static_cast<double>(r.validOutputs), DType::int32));
  if (version == 4) return {Value(r.selectedIndices), valid};
  if (version == 5) return {Value(r.selectedIndices), Value(r.selectedScores), valid};
  return one(r.selectedIndices);
}

}  // namespace

void addImageOps(OpTable& t) {
  t["ResizeBilinear"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    return one(resizeBilinear(ctx.in(0), sizeArg(ctx), ctx.attrBool("align_corners", false),
                              ctx.attrBool("half_pixel_centers", false)));
  };
  t["ResizeNearestNeighbor"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    return one(resizeNearestNeighbor(ctx.in(0), sizeArg(ctx), ctx.attrBool("align_corners", false),
                                     ctx.attrBool("half_pixel_centers", false)));
  };
  t["NonMaxSuppressionV2"] = [](NodeContext& ctx) { return nms(ctx, 2); };
  t["NonMaxSuppressionV3"] = [](NodeContext& ctx) { return nms(ctx, 3); };
  t["NonMaxSuppressionV4"] = [](NodeContext& ctx) { return nms(ctx, 4); };
  t["NonMaxSuppressionV5"] = [](NodeContext& ctx) { return nms(ctx, 5); };

  t["TopKV2"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    Tensor x = ctx.in(0);
    int64_t k = ctx.intScalar(1, "k");
    opCheck(x.rank() >= 1, "input must have rank >= 1, got a scalar");
    int64_t n = x.shape().back();
    opCheck(k >= 0 && k <= n, "k (", k, ") must be in [0, ", n, "] for input ",
            shapeToString(x.shape()));
    std::vector<float> v = x.toFloats();
    int64_t rows = n == 0 ? 0 : static_cast<int64_t>(v.size()) / n;
    std::vector<float> values;
    std::vector<int32_t> indices;
    std::vector<int32_t> order(static_cast<size_t>(n));
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = v.data() + r * n;
      std::iota(order.begin(), order.end(), 0);
      // Largest first; equal values keep the lower index first (TF.js).
      std::stable_sort(order.begin(), order.end(),
                       [&](int32_t a, int32_t b) { return row[a] > row[b]; });
      for (int64_t i = 0; i < k; ++i) {
        indices.push_back(order[static_cast<size_t>(i)]);
        values.push_back(row[order[static_cast<size_t>(i)]]);
      }
    }
    Shape s = x.shape();
    s.back() = k;
    Tensor vals = tensor(values, s);
    if (x.dtype() == DType::int32) vals = cast(vals, DType::int32);
    return std::vector<Value>{Value(vals), Value(tensorInt(indices, s))};
  };
  t["Where"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    Tensor c = ctx.in(0);
    std::vector<float> v = c.toFloats();
    Shape s = c.shape();
    std::vector<int64_t> strides = stridesOf(s);
    std::vector<int32_t> out;
    int64_t count = 0;
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i] == 0) continue;
      ++count;
      int64_t rest = static_cast<int64_t>(i);
      for (size_t d = 0; d < s.size(); ++d) {
        out.push_back(static_cast<int32_t>(rest / strides[d]));
        rest %= strides[d];
      }
    }
    return one(tensorInt(out, {count, static_cast<int64_t>(s.size())}));
  };
}

}  // namespace glint::graph
