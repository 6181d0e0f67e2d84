// cropAndResize, flipLeftRight and rgbToGrayscale: the op table on every
// backend (values against reference, gradients against finite differences),
// and cropAndResize against a float64 loop written from TF.js's definition.
#include <gtest/gtest.h>

#include <cmath>

#include "glint/engine.h"
#include "glint/ops.h"
#include "tests/unit/op_harness.h"

namespace glint::testing {
namespace {

using Ts = std::vector<Tensor>;

// Box coordinates land on whole pixels (kinks of floor/ceil), where finite
// differences are one-sided: the op table checks the image's gradient only.
InputSpec Boxes(std::vector<float> values) {
  const auto n = static_cast<int64_t>(values.size() / 4);
  InputSpec s = Fixed({n, 4}, std::move(values));
  s.differentiable = false;
  return s;
}

// Boxes inside, crossing and outside the image, flipped (y2 < y1), and a point.
const std::vector<float> kBoxes = {0.1f, 0.2f, 0.8f, 0.9f, -0.2f, 0.3f, 0.6f, 1.3f,
                                   0.9f, 0.7f, 0.2f, 0.1f, 0.5f,  0.5f, 0.5f, 0.5f};

std::vector<OpCase> imageCropCases() {
  return {
      {"crop_bilinear",
       {F({2, 5, 6, 3}), Boxes(kBoxes), Fixed({4}, {0, 1, 1, 0}, DType::int32)},
       [](const Ts& v) {
         return cropAndResize(v[0], v[1], v[2], {3, 4});
       }},
      {"crop_bilinear_extrapolate",
       {F({1, 4, 4, 2}), Boxes(kBoxes), Fixed({4}, {0, 0, 0, 0}, DType::int32)},
       [](const Ts& v) {
         return cropAndResize(v[0], v[1], v[2], {2, 3}, "bilinear", -7.5f);
       }},
      {"crop_single_sample",
       {F({1, 5, 5, 1}), Boxes(kBoxes), Fixed({4}, {0, 0, 0, 0}, DType::int32)},
       [](const Ts& v) {
         return cropAndResize(v[0], v[1], v[2], {1, 1});
       }},
      {"crop_nearest",
       {F({2, 5, 6, 3}), Boxes(kBoxes), Fixed({4}, {1, 0, 1, 1}, DType::int32)},
       [](const Ts& v) {
         return cropAndResize(v[0], v[1], v[2], {4, 3}, "nearest");
       },
       false},
      {"crop_int_image",
       {I({1, 4, 4, 2}, 0, 255), Boxes(kBoxes), Fixed({4}, {0, 0, 0, 0}, DType::int32)},
       [](const Ts& v) {
         return cropAndResize(v[0], v[1], v[2], {3, 3});
       },
       false},
      {"crop_no_boxes",
       {F({1, 4, 4, 2}), Boxes({}), Fixed({0}, {}, DType::int32)},
       [](const Ts& v) {
         return cropAndResize(v[0], v[1], v[2], {3, 3});
       },
       false},
      {"flip_left_right", {F({2, 3, 5, 2})}, [](const Ts& v) { return flipLeftRight(v[0]); }},
      {"rgb_to_grayscale", {F({2, 3, 3})}, [](const Ts& v) { return rgbToGrayscale(v[0]); }},
      {"rgb_to_grayscale_int",
       {I({4, 3}, 0, 255)},
       [](const Ts& v) { return rgbToGrayscale(v[0]); },
       false},
  };
}
GLINT_OP_CASES(ImageCrop, imageCropCases());

/// TF.js's cropAndResize, element by element, in float64.
std::vector<double> cropLoop(const std::vector<float>& img, Shape s,
                             const std::vector<float>& boxes, const std::vector<int>& ind, int ch,
                             int cw, bool nearest, double extrap) {
  const int64_t h = s[1], w = s[2], c = s[3];
  std::vector<double> out;
  for (size_t b = 0; b < ind.size(); ++b) {
    double y1 = boxes[b * 4], x1 = boxes[b * 4 + 1], y2 = boxes[b * 4 + 2], x2 = boxes[b * 4 + 3];
    double hs = ch > 1 ? (y2 - y1) * (h - 1) / (ch - 1) : 0,
           ws = cw > 1 ? (x2 - x1) * (w - 1) / (cw - 1) : 0;
    for (int i = 0; i < ch; ++i) {
      double y = ch > 1 ? y1 * (h - 1) + i * hs : 0.5 * (y1 + y2) * (h - 1);
      for (int j = 0; j < cw; ++j) {
        double x = cw > 1 ? x1 * (w - 1) + j * ws : 0.5 * (x1 + x2) * (w - 1);
        for (int k = 0; k < c; ++k) {
          if (y < 0 || y > h - 1 || x < 0 || x > w - 1) {
            out.push_back(extrap);
            continue;
          }
          auto px = [&](int64_t yy, int64_t xx) {
            return double(img[((ind[b] * h + yy) * w + xx) * c + k]);
          };
          if (nearest) {
            // A coordinate within float32 rounding of a half-way point may
            // round either way (Glint computes coordinates in float32, TF.js
            // in float64): such samples are marked NaN and skipped.
            auto tie = [](double v) { return std::fabs(v - std::floor(v) - 0.5) < 1e-5; };
            out.push_back(tie(y) || tie(x)
                              ? NAN
                              : px(int64_t(std::floor(y + 0.5)), int64_t(std::floor(x + 0.5))));
          } else {
            int64_t t = int64_t(std::floor(y)), bo = int64_t(std::ceil(y));
            int64_t l = int64_t(std::floor(x)), r = int64_t(std::ceil(x));
            double yl = y - t, xl = x - l;
            double top = px(t, l) + (px(t, r) - px(t, l)) * xl;
            double bot = px(bo, l) + (px(bo, r) - px(bo, l)) * xl;
            out.push_back(top + (bot - top) * yl);
          }
        }
      }
    }
  }
  return out;
}

TEST(ImageCrop, CropAndResizeMatchesTfjsDefinition) {
  onEveryBackend([] {
    Shape s{2, 5, 6, 3};
    std::vector<float> img(2 * 5 * 6 * 3);
    for (size_t i = 0; i < img.size(); ++i) img[i] = std::sin(0.37f * i) * 10.0f;
    std::vector<int> ind = {0, 1, 1, 0};
    for (bool nearest : {false, true})
      for (auto [ch, cw] : {std::pair{3, 4}, std::pair{1, 1}, std::pair{5, 2}}) {
        Tensor got = cropAndResize(tensor(img, s), tensor(kBoxes, {4, 4}), tensorInt(ind, {4}),
                                   {ch, cw}, nearest ? "nearest" : "bilinear", -3.0f);
        std::vector<double> want = cropLoop(img, s, kBoxes, ind, ch, cw, nearest, -3.0);
        ASSERT_EQ(got.shape(), (Shape{4, ch, cw, 3}));
        std::vector<float> g = got.toFloats();
        for (size_t i = 0; i < want.size(); ++i)
          if (!std::isnan(want[i]))
            ASSERT_NEAR(g[i], want[i], 1e-4 * std::max(1.0, std::fabs(want[i])))
                << (nearest ? "nearest " : "bilinear ") << ch << "x" << cw << " at " << i;
      }
  });
}

TEST(ImageCrop, BadArgumentsAreNamedErrors) {
  Tensor img = zeros({1, 4, 4, 3});
  Tensor boxes = tensor({0, 0, 1, 1}, {1, 4});
  expectError(
      [&] {
        cropAndResize(zeros({4, 4, 3}), boxes, tensorInt({0}, {1}), {2, 2});
      },
      {"cropAndResize", "image", "rank 4"});
  expectError(
      [&] {
        cropAndResize(img, zeros({1, 3}), tensorInt({0}, {1}), {2, 2});
      },
      {"cropAndResize", "boxes", "[1,3]"});
  expectError(
      [&] {
        cropAndResize(img, boxes, tensorInt({0, 0}, {2}), {2, 2});
      },
      {"cropAndResize", "boxInd", "[1]"});
  expectError(
      [&] {
        cropAndResize(img, boxes, tensorInt({1}, {1}), {2, 2});
      },
      {"cropAndResize", "boxInd holds 1", "batch of 1"});
  expectError(
      [&] {
        cropAndResize(img, boxes, tensorInt({0}, {1}), {0, 2});
      },
      {"cropAndResize", "cropSize"});
  expectError(
      [&] {
        cropAndResize(img, boxes, tensorInt({0}, {1}), {2, 2}, "bicubic");
      },
      {"cropAndResize", "'bicubic'"});
  expectError([&] { rgbToGrayscale(zeros({2, 4})); }, {"rgbToGrayscale", "3 channels", "[2,4]"});
  expectError([&] { flipLeftRight(zeros({2, 4, 3})); }, {"flipLeftRight", "rank 4"});
}

}  // namespace
}  // namespace glint::testing
