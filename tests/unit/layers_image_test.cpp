// Resizing (TF.js's and Keras's forms) and RandomWidth. TF.js's form is
// checked against TF.js in tests/web/image.test.mjs (TF.js's Resizing cannot
// sit in a model); here the gradients on every backend, Keras's form,
// RandomWidth's draws and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "glint/engine.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "tests/unit/layer_harness.h"
#include "tests/unit/op_harness.h"

namespace glint::testing {
namespace {

TEST(LayersImage, ResizingGradients) {
  checkLayer({"resizing_bilinear",
              [] {
                return layers::resizing({{"height", 4}, {"width", 6}});
              },
              {{2, 3, 5, 2}}});
  checkLayer({"resizing_keras_crop",
              [] {
                return layers::fromConfig("Resizing", Json{{"height", 2},
                                                           {"width", 3},
                                                           {"crop_to_aspect_ratio", true},
                                                           {"data_format", "channels_last"}});
              },
              {{1, 6, 5, 1}}});
}

TEST(LayersImage, KerasResizingCropsTheCentreThenSamplesPixelCentres) {
  // 6x9 to 2x2: the centred 6x6 square (columns 1..6), then half-pixel bilinear.
  std::vector<float> v(6 * 9);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(i % 9) * 10 + static_cast<float>(i / 9);
  Tensor x = tensor(v, {1, 6, 9, 1});
  LayerPtr keras = layers::fromConfig("Resizing", Json{{"height", 2},
                                                       {"width", 2},
                                                       {"crop_to_aspect_ratio", true},
                                                       {"pad_to_aspect_ratio", false},
                                                       {"data_format", "channels_last"}});
  std::vector<float> got = keras->apply(x).toFloats();
  // Half-pixel centres of a 6-pixel span sampled twice: source 1.0 and 4.0,
  // i.e. rows 1 and 4 and columns 1 + 1 and 1 + 4 of the crop.
  std::vector<float> want = {2 * 10 + 1, 5 * 10 + 1, 2 * 10 + 4, 5 * 10 + 4};
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4) << i;
  Json c = keras->getConfig();
  EXPECT_EQ(c["crop_to_aspect_ratio"], true);
  EXPECT_EQ(c["data_format"], "channels_last");
  expectError(
      [] {
        layers::fromConfig("Resizing",
                           Json{{"height", 2}, {"width", 2}, {"pad_to_aspect_ratio", true}});
      },
      {"Resizing", "pad_to_aspect_ratio", "not supported"});
}

TEST(LayersImage, RandomWidthDrawsInTrainingOnly) {
  setSeed(3);
  LayerPtr l = layers::randomWidth({{"factor", Json::array({-0.5, 0.5})}});
  Tensor x = randomUniform({2, 4, 10, 3});
  Tensor same = l->apply(x, false);
  EXPECT_EQ(same.shape(), x.shape());
  EXPECT_EQ(same.toFloats(), x.toFloats());
  std::set<int64_t> widths;
  for (int i = 0; i < 40; ++i) {
    Tensor y = l->apply(x, true);
    ASSERT_EQ(y.shape()[0], 2);
    ASSERT_EQ(y.shape()[1], 4);
    ASSERT_EQ(y.shape()[3], 3);
    EXPECT_GE(y.shape()[2], 5);
    EXPECT_LE(y.shape()[2], 15);
    widths.insert(y.shape()[2]);
  }
  EXPECT_GE(widths.size(), 5u) << "40 draws over 11 widths";
  EXPECT_EQ(l->getConfig()["factor"], Json::array({-0.5, 0.5}));
  expectError(
      [] {
        layers::randomWidth({{"factor", -0.2}});
      },
      {"RandomWidth", "factor", "positive"});
  expectError(
      [] {
        layers::randomWidth({{"factor", Json::array({0.3, -0.3})}});
      },
      {"RandomWidth", "factor", "upper"});
  expectError(
      [] {
        layers::randomWidth({{"factor", 0.2}, {"interpolation", "bicubic"}});
      },
      {"RandomWidth", "interpolation", "'bicubic'"});
  expectError(
      [] {
        layers::resizing({{"height", 0}, {"width", 2}});
      },
      {"Resizing", "height", "positive"});
}

}  // namespace
}  // namespace glint::testing
