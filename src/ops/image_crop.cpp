// tf.image's cropAndResize, flipLeftRight and rgbToGrayscale, composed from
// other ops: they run on every backend and their gradients follow (to the
// image and, for cropAndResize, to the boxes) with no kernel of their own.
#include <cmath>

#include "glint/backend.h"
#include "glint/engine.h"
#include "glint/ops.h"
#include "src/ops/op_util.h"

namespace glint {

namespace {

using ops::checkDType;
using ops::checkTensor;
using ops::describe;

/// The sample coordinates along one axis, [numBoxes, cropLength], as TF.js:
/// a box's edges lo..hi (normalised) spread over cropLength samples, or its
/// centre when there is one sample.
Tensor sampleCoords(const Tensor& lo, const Tensor& hi, int64_t inLength, int64_t cropLength) {
  const float scale = static_cast<float>(inLength - 1);
  if (cropLength == 1) return mul(mul(add(lo, hi), scalar(0.5f * scale)), ones({1, 1}));
  Tensor step = div(mul(sub(hi, lo), scalar(scale)), scalar(static_cast<float>(cropLength - 1)));
  Tensor i = reshape(range(0, static_cast<float>(cropLength)), {1, cropLength});
  return add(mul(lo, scalar(scale)), mul(i, step));
}

}  // namespace

Tensor cropAndResize(const Tensor& image, const Tensor& boxes, const Tensor& boxInd, Pair cropSize,
                     const std::string& method, float extrapolationValue) {
  const char* op = "cropAndResize";
  checkTensor(op, "image", image);
  checkTensor(op, "boxes", boxes);
  checkTensor(op, "boxInd", boxInd);
  check(image.shape().size() == 4, op,
        "image must be rank 4 [batch, height, width, channels], got ", describe(image));
  check(boxes.shape().size() == 2 && boxes.shape()[1] == 4, op,
        "boxes must be [numBoxes, 4] (y1, x1, y2, x2), got ", describe(boxes));
  checkDType(op, "boxes", boxes, {DType::float32});
  checkDType(op, "boxInd", boxInd, {DType::int32});
  check(boxInd.shape() == Shape{boxes.shape()[0]}, op, "boxInd must be [numBoxes] = [",
        boxes.shape()[0], "], got ", describe(boxInd));
  check(cropSize[0] >= 1 && cropSize[1] >= 1, op, "cropSize must be positive, got [", cropSize[0],
        ",", cropSize[1], "]");
  check(method == "bilinear" || method == "nearest", op,
        "method must be 'bilinear' or 'nearest', got '", method, "'");
  check(std::isfinite(extrapolationValue), op, "extrapolationValue must be finite, got ",
        extrapolationValue);
  const int64_t batch = image.shape()[0], h = image.shape()[1], w = image.shape()[2],
                c = image.shape()[3];
  const int64_t n = boxes.shape()[0], ch = cropSize[0], cw = cropSize[1];
  Tensor img = image.dtype() == DType::float32 ? image : cast(image, DType::float32);
  if (n == 0) return zeros({0, ch, cw, c});
  check(batch > 0 && h > 0 && w > 0, op, "image has no pixels: ", describe(image));
  // A box index outside the batch would gather another image's pixels. Where
  // values can be read at once, a host check names it; elsewhere (WebGPU) the
  // count of bad indices travels with the step (checkOnDevice), as losses do.
  if (boxInd.impl()->storage->backend->readsSynchronously()) {
    for (int32_t b : boxInd.data<int32_t>())
      check(b >= 0 && b < batch, op, "boxInd holds ", b, ", outside the batch of ", batch,
            " images");
  } else {
    Tensor bad = logicalOr(less(boxInd, scalar(0, DType::int32)),
                           greaterEqual(boxInd, scalar(static_cast<float>(batch), DType::int32)));
    checkOnDevice(sum(cast(bad, DType::float32)), op,
                  "boxInd holds indices outside the batch of " + std::to_string(batch) + " images");
  }

  std::vector<Tensor> cols = split(boxes, std::vector<int64_t>{1, 1, 1, 1}, 1);  // [n, 1] each
  Tensor ys = sampleCoords(cols[0], cols[2], h, ch);                             // [n, ch]
  Tensor xs = sampleCoords(cols[1], cols[3], w, cw);                             // [n, cw]
  auto inside = [](const Tensor& v, int64_t length) {
    return logicalAnd(greaterEqual(v, scalar(0.0f)),
                      lessEqual(v, scalar(static_cast<float>(length - 1))));
  };
  Tensor valid = logicalAnd(reshape(inside(ys, h), {n, ch, 1}), reshape(inside(xs, w), {n, 1, cw}));
  // Indices clamped into the image so every gather reads inside it; the
  // samples outside it are replaced by extrapolationValue below.
  auto index = [](const Tensor& v, int64_t length) {
    return cast(clipByValue(v, 0.0f, static_cast<float>(length - 1)), DType::int32);
  };
  Tensor base = reshape(mul(boxInd, scalar(static_cast<float>(h * w), DType::int32)), {n, 1, 1});
  Tensor flat = reshape(img, {batch * h * w, c});
  auto pixels = [&](const Tensor& yi, const Tensor& xi) {  // yi [n, ch], xi [n, cw] int32
    Tensor at =
        add(add(base, reshape(mul(yi, scalar(static_cast<float>(w), DType::int32)), {n, ch, 1})),
            reshape(xi, {n, 1, cw}));
    return gather(flat, at, 0);  // [n, ch, cw, c]
  };
  Tensor out;
  if (method == "nearest") {
    // TF.js rounds half up (Math.round).
    auto nearest = [&](const Tensor& v, int64_t length) {
      return index(floor(add(v, scalar(0.5f))), length);
    };
    out = pixels(nearest(ys, h), nearest(xs, w));
  } else {
    Tensor top = floor(ys), left = floor(xs);
    Tensor yLerp = reshape(sub(ys, top), {n, ch, 1, 1});
    Tensor xLerp = reshape(sub(xs, left), {n, 1, cw, 1});
    Tensor t = index(top, h), b = index(ceil(ys), h), l = index(left, w), r = index(ceil(xs), w);
    Tensor upper = add(pixels(t, l), mul(sub(pixels(t, r), pixels(t, l)), xLerp));
    Tensor lower = add(pixels(b, l), mul(sub(pixels(b, r), pixels(b, l)), xLerp));
    out = add(upper, mul(sub(lower, upper), yLerp));
  }
  return where(reshape(valid, {n, ch, cw, 1}), out, fill({1, 1, 1, 1}, extrapolationValue));
}

Tensor flipLeftRight(const Tensor& image) {
  checkTensor("flipLeftRight", "image", image);
  check(image.shape().size() == 4, "flipLeftRight",
        "image must be rank 4 [batch, height, width, channels], got ", describe(image));
  return reverse(image, {2});
}

Tensor rgbToGrayscale(const Tensor& image) {
  checkTensor("rgbToGrayscale", "image", image);
  check(image.shape().size() >= 2 && image.shape().back() == 3, "rgbToGrayscale",
        "image must have 3 channels (RGB) in its last dimension and rank >= 2, got ",
        describe(image));
  checkDType("rgbToGrayscale", "image", image, {DType::float32, DType::int32});
  // ITU-R BT.601 luma, TF.js's weights; int32 images stay int32 (truncated, as TF.js).
  Tensor weights = tensor({0.2989f, 0.5870f, 0.1140f}, {3});
  Tensor x = image.dtype() == DType::float32 ? image : cast(image, DType::float32);
  Tensor gray = sum(mul(x, weights), {-1}, true);
  return image.dtype() == DType::float32 ? gray : cast(gray, DType::int32);
}

}  // namespace glint
