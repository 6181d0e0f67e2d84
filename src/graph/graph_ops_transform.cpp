// Image ops of graph models that sample at computed positions: CropAndResize
// and ImageProjectiveTransformV3 (tf.image.transform). The transform's source
// positions are worked out on the host (TF.js reads the transforms back too);
// the pixels are then gathered on the device, so only the small coordinate
// tables cross, never the image.
#include <algorithm>
#include <cmath>

#include "glint/ops.h"
#include "src/graph/graph_internal.h"

namespace glint::graph {

namespace {

enum class Fill { constant, reflect, wrap, nearest };

// TF's map_coord: a source coordinate outside [0, len - 1] folded back in
// the way the fill mode says (constant leaves it, for the fill value).
double mapCoord(double in, int64_t len, Fill mode) {
  auto n = static_cast<double>(len);
  if (mode == Fill::constant) return in;
  if (mode == Fill::reflect) {
    if (in < 0) {
      if (len <= 1) return 0;
      double sz2 = 2 * n;
      if (in < -sz2) in = sz2 * std::trunc(-in / sz2) + in;
      in = in < -n ? in + sz2 : -in - 1;
    } else if (in > n - 1) {
      if (len <= 1) return 0;
      double sz2 = 2 * n;
      in -= sz2 * std::trunc(in / sz2);
      if (in >= n) in = sz2 - in - 1;
    }
  } else if (mode == Fill::wrap) {
    if (in < 0) {
      if (len <= 1) return 0;
      in += n * (std::trunc(-in / (n - 1)) + 1);
    } else if (in > n - 1) {
      if (len <= 1) return 0;
      in -= n * std::trunc(in / (n - 1));
    }
  }
  return std::clamp(in, 0.0, n - 1);
}

Fill fillMode(const NodeContext& ctx) {
  std::string m = ctx.attrWord("fill_mode", "CONSTANT");
  if (m == "CONSTANT") return Fill::constant;
  if (m == "REFLECT") return Fill::reflect;
  if (m == "WRAP") return Fill::wrap;
  opCheck(m == "NEAREST", "fill_mode '", quoteForError(m),
          "' is not supported (CONSTANT, REFLECT, WRAP, NEAREST)");
  return Fill::nearest;
}

std::vector<Value> projectiveTransform(NodeContext& ctx) {
  ctx.needInputs(4);
  Tensor images = ctx.in(0);
  if (images.dtype() != DType::float32) images = cast(images, DType::float32);
  opCheck(images.rank() == 4, "images must have rank 4 (NHWC), got shape ",
          shapeToString(images.shape()));
  int64_t n = images.shape()[0], h = images.shape()[1], w = images.shape()[2];
  int64_t c = images.shape()[3];
  Tensor transforms = ctx.in(1);
  opCheck(transforms.rank() == 2 && transforms.shape()[1] == 8 &&
              (transforms.shape()[0] == 1 || transforms.shape()[0] == n),
          "transforms must be [1, 8] or [", n, ", 8] for ", n, " images, got ",
          shapeToString(transforms.shape()));
  std::vector<int64_t> size = ctx.ints(2, "output_shape");
  opCheck(size.size() == 2 && size[0] > 0 && size[1] > 0,
          "output_shape must hold a positive [height, width]");
  float fillValue = static_cast<float>(ctx.scalar(3, "fill_value"));
  std::string interp = ctx.attrWord("interpolation", "NEAREST");
  opCheck(interp == "NEAREST" || interp == "BILINEAR", "interpolation '", quoteForError(interp),
          "' is not supported (NEAREST or BILINEAR)");
  bool bilinear = interp == "BILINEAR";
  Fill mode = fillMode(ctx);
  std::vector<float> tr = transforms.toFloats();
  int64_t oh = size[0], ow = size[1], pixels = n * oh * ow, taps = bilinear ? 4 : 1;
  const auto outside = static_cast<int32_t>(n * h * w);  // gather gives zeros there
  std::vector<int32_t> index(static_cast<size_t>(pixels * taps), outside);
  std::vector<float> weight(static_cast<size_t>(pixels * taps), 0.0f);
  std::vector<float> filled(static_cast<size_t>(pixels), 0.0f);
  for (int64_t b = 0; b < n; ++b) {
    const float* t = tr.data() + (transforms.shape()[0] == 1 ? 0 : b * 8);
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x) {
        auto fx = static_cast<double>(x), fy = static_cast<double>(y);
        double k = t[6] * fx + t[7] * fy + 1;
        double sx = mapCoord((t[0] * fx + t[1] * fy + t[2]) / k, w, mode);
        double sy = mapCoord((t[3] * fx + t[4] * fy + t[5]) / k, h, mode);
        int64_t p = (b * oh + y) * ow + x;
        auto put = [&](int tap, double py, double px, double wt) {
          auto at = static_cast<size_t>(p * taps + tap);
          weight[at] = static_cast<float>(wt);
          if (py >= 0 && py < static_cast<double>(h) && px >= 0 && px < static_cast<double>(w))
            index[at] = static_cast<int32_t>((b * h + static_cast<int64_t>(py)) * w +
                                             static_cast<int64_t>(px));
          else filled[static_cast<size_t>(p)] += static_cast<float>(wt);
        };
        if (!bilinear) {
          put(0, std::floor(sy + 0.5), std::floor(sx + 0.5), 1);
          continue;
        }
        double y0 = std::floor(sy), x0 = std::floor(sx);
        put(0, y0, x0, (y0 + 1 - sy) * (x0 + 1 - sx));
        put(1, y0, x0 + 1, (y0 + 1 - sy) * (sx - x0));
        put(2, y0 + 1, x0, (sy - y0) * (x0 + 1 - sx));
        put(3, y0 + 1, x0 + 1, (sy - y0) * (sx - x0));
      }
  }
  Tensor rows = gather(reshape(images, {n * h * w, c}), tensorInt(index, {pixels * taps}));
  Tensor weighted = mul(reshape(rows, {pixels, taps, c}), tensor(weight, {pixels, taps, 1}));
  Tensor out = add(sum(weighted, {1}), mul(tensor(filled, {pixels, 1}), fill({}, fillValue)));
  return one(reshape(out, {n, oh, ow, c}));
}

}  // namespace

void addTransformOps(OpTable& t) {
  t["CropAndResize"] = [](NodeContext& ctx) {
    ctx.needInputs(4);
    std::vector<int64_t> size = ctx.ints(3, "crop_size");
    opCheck(size.size() == 2, "crop_size must hold [height, width], got ", size.size(), " values");
    std::string method = ctx.attrWord("method", "BILINEAR");
    opCheck(method == "BILINEAR" || method == "NEAREST", "method '", quoteForError(method),
            "' is not supported (bilinear or nearest)");
    return one(cropAndResize(ctx.in(0), ctx.in(1), ctx.in(2), {size[0], size[1]},
                             method == "NEAREST" ? "nearest" : "bilinear",
                             static_cast<float>(ctx.attrFloat("extrapolation_value", 0))));
  };
  t["ImageProjectiveTransformV3"] = projectiveTransform;
}

}  // namespace glint::graph
