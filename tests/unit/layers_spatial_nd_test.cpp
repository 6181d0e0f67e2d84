// Conv1D, Conv3D, Conv3DTranspose, Cropping2D, 1-D and 3-D pooling, global
// 1-D pooling: shapes, values against direct loops and hand values (causal
// Conv1D, which TF.js cannot run), gradients on every backend, configs as
// TF.js 4.22 writes them, and errors. Forward parity with TF.js itself is in
// tests/interop/layer_cases/spatial_nd.mjs.
#include <gtest/gtest.h>

#include <cmath>

#include "glint/glint.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "layer_harness.h"
#include "op_harness.h"

namespace glint::testing {
namespace {

Tensor waveTensor(const Shape& s, float seed) {
  std::vector<float> v(static_cast<size_t>(shapeSize(s)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.9f * std::sin(0.7f * static_cast<float>(i) + seed);
  return tensor(v, s);
}

Shape symbolicShape(const LayerPtr& layer, const Shape& inShape) {
  return layer->apply(input({{"shape", inShape}}))->shape;
}

// ---- Shapes ----------------------------------------------------------------

TEST(LayersSpatialND, OutputShapes) {
  struct Case {
    std::function<LayerPtr()> make;
    Shape in, out;
  };
  std::vector<Case> cases = {
      {[] {
         return layers::conv1d({{"filters", 4}, {"kernelSize", 3}});
       },
       {7, 3},
       {-1, 5, 4}},
      {[] {
         return layers::conv1d(
             {{"filters", 4}, {"kernelSize", 3}, {"strides", 2}, {"padding", "same"}});
       },
       {7, 3},
       {-1, 4, 4}},
      {[] {
         return layers::conv1d(
             {{"filters", 2}, {"kernelSize", 3}, {"padding", "causal"}, {"dilationRate", 2}});
       },
       {7, 3},
       {-1, 7, 2}},
      {[] {
         return layers::conv1d(
             {{"filters", 2}, {"kernelSize", 3}, {"padding", "causal"}, {"strides", 2}});
       },
       {7, 3},
       {-1, 4, 2}},
      {[] {
         return layers::conv1d({{"filters", 2}, {"kernelSize", 2}});
       },
       {-1, 3},
       {-1, -1, 2}},
      {[] {
         return layers::conv3d({{"filters", 2}, {"kernelSize", {3, 1, 2}}, {"strides", 2}});
       },
       {7, 5, 6, 1},
       {-1, 3, 3, 3, 2}},
      {[] {
         return layers::conv3d(
             {{"filters", 2}, {"kernelSize", 3}, {"padding", "same"}, {"strides", {2, 1, 3}}});
       },
       {5, 6, 7, 2},
       {-1, 3, 6, 3, 2}},
      {[] {
         return layers::conv3dTranspose({{"filters", 3}, {"kernelSize", 3}, {"strides", 2}});
       },
       {2, 3, 4, 1},
       {-1, 5, 7, 9, 3}},
      {[] {
         return layers::conv3dTranspose(
             {{"filters", 3}, {"kernelSize", 3}, {"strides", 2}, {"padding", "same"}});
       },
       {2, 3, 4, 1},
       {-1, 4, 6, 8, 3}},
      {[] {
         return layers::cropping2d({{"cropping", {{1, 2}, {0, 3}}}});
       },
       {6, 7, 2},
       {-1, 3, 4, 2}},
      {[] { return layers::maxPooling1d(); }, {7, 3}, {-1, 3, 3}},
      {[] {
         return layers::averagePooling1d({{"poolSize", 3}, {"strides", 2}, {"padding", "same"}});
       },
       {8, 2},
       {-1, 4, 2}},
      {[] { return layers::maxPooling3d(); }, {4, 5, 4, 2}, {-1, 2, 2, 2, 2}},
      {[] {
         return layers::averagePooling3d(
             {{"poolSize", {3, 2, 3}}, {"strides", {2, 1, 2}}, {"padding", "same"}});
       },
       {5, 4, 7, 2},
       {-1, 3, 4, 4, 2}},
      {[] { return layers::globalMaxPooling1d(); }, {5, 4}, {-1, 4}},
      {[] { return layers::globalAveragePooling1d(); }, {-1, 4}, {-1, 4}},
  };
  for (const Case& c : cases) {
    LayerPtr l = c.make();
    EXPECT_EQ(symbolicShape(l, c.in), c.out) << l->className() << " " << shapeToString(c.in);
  }
}

// ---- Values ----------------------------------------------------------------

/// Direct NWC convolution in double with TF.js's 'same' split, or Keras's
/// 'causal' left padding.
std::vector<double> refConv1d(const std::vector<float>& x, const Shape& xs,
                              const std::vector<float>& w, const Shape& ws, int64_t stride,
                              int64_t dilation, const std::string& padding, Shape* ys) {
  int64_t n = xs[0], len = xs[1], c = xs[2], k = ws[0], f = ws[2], eff = (k - 1) * dilation + 1;
  int64_t out = 0, padBefore = 0;
  if (padding == "valid") {
    out = (len - eff) / stride + 1;
  } else {
    out = (len + stride - 1) / stride;
    padBefore =
        padding == "causal" ? eff - 1 : std::max<int64_t>((out - 1) * stride + eff - len, 0) / 2;
  }
  *ys = {n, out, f};
  std::vector<double> y(static_cast<size_t>(n * out * f), 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t t = 0; t < out; ++t)
      for (int64_t o = 0; o < f; ++o) {
        double acc = 0;
        for (int64_t a = 0; a < k; ++a) {
          int64_t i = t * stride + a * dilation - padBefore;
          if (i < 0 || i >= len) continue;
          for (int64_t ci = 0; ci < c; ++ci)
            acc += double(x[(b * len + i) * c + ci]) * w[(a * c + ci) * f + o];
        }
        y[static_cast<size_t>((b * out + t) * f + o)] = acc;
      }
  return y;
}

TEST(LayersSpatialND, Conv1DMatchesDirectLoop) {
  struct Case {
    int64_t kernel, stride, dilation;
    std::string padding;
  };
  std::vector<Case> cases = {{3, 1, 1, "valid"},  {4, 2, 1, "same"},   {3, 1, 2, "same"},
                             {3, 1, 1, "causal"}, {2, 1, 3, "causal"}, {3, 2, 1, "causal"}};
  onEveryBackend([&] {
    for (const Case& c : cases) {
      SCOPED_TRACE(c.padding + " k" + std::to_string(c.kernel) + " s" + std::to_string(c.stride) +
                   " d" + std::to_string(c.dilation));
      LayerPtr l = layers::conv1d({{"filters", 2},
                                   {"kernelSize", c.kernel},
                                   {"strides", c.stride},
                                   {"dilationRate", c.dilation},
                                   {"padding", c.padding},
                                   {"useBias", false}});
      Tensor x = waveTensor({2, 9, 3}, 0.3f);
      l->apply(x);  // builds
      Tensor w = waveTensor({c.kernel, 3, 2}, 1.1f);
      l->setWeights({w});
      Shape ys;
      auto want = refConv1d(x.toFloats(), x.shape(), w.toFloats(), w.shape(), c.stride, c.dilation,
                            c.padding, &ys);
      Tensor y = l->apply(x);
      ASSERT_EQ(y.shape(), ys);
      std::vector<float> got = y.toFloats();
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(got[i], want[i], 1e-5) << "element " << i;
    }
  });
}

TEST(LayersSpatialND, CausalConv1DDoesNotSeeTheFuture) {
  // Changing the last step changes only the last output step.
  LayerPtr l = layers::conv1d({{"filters", 1}, {"kernelSize", 3}, {"padding", "causal"}});
  std::vector<float> a = {1, 2, 3, 4, 5}, b = {1, 2, 3, 4, -5};
  std::vector<float> ya = l->apply(tensor(a, {1, 5, 1})).toFloats(),
                     yb = l->apply(tensor(b, {1, 5, 1})).toFloats();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ya[i], yb[i]) << i;
  EXPECT_NE(ya[4], yb[4]);
}

void expectNear(const Tensor& got, const std::vector<double>& want) {
  std::vector<float> g = got.toFloats();
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], want[i], 1e-6) << "element " << i;
}

TEST(LayersSpatialND, PoolingAndCroppingHandValues) {
  onEveryBackend([] {
    Tensor s = tensor({1, 5, 2, 4, 3, 0, 7}, {1, 7, 1});
    EXPECT_EQ(layers::maxPooling1d()->apply(s).data<float>(), (std::vector<float>{5, 4, 3}));
    EXPECT_EQ(layers::averagePooling1d()->apply(s).data<float>(), (std::vector<float>{3, 3, 1.5f}));
    // Same padding, pool 3 stride 2 over 7 steps: one step of padding before,
    // windows start at -1, 1, 3, 5; the average counts in-bounds steps only.
    Tensor as =
        layers::averagePooling1d({{"poolSize", 3}, {"strides", 2}, {"padding", "same"}})->apply(s);
    EXPECT_EQ(as.shape(), (Shape{1, 4, 1}));
    expectNear(as, {3, 11.0 / 3, 7.0 / 3, 3.5});
    Tensor two = tensor({1, -1, 4, -4, 2, -2}, {1, 3, 2});
    EXPECT_EQ(layers::globalMaxPooling1d()->apply(two).data<float>(), (std::vector<float>{4, -1}));
    expectNear(layers::globalAveragePooling1d()->apply(two), {7.0 / 3, -7.0 / 3});

    std::vector<float> v(8);
    for (int i = 0; i < 8; ++i) v[i] = float(i);
    Tensor cube = tensor(v, {1, 2, 2, 2, 1});
    EXPECT_EQ(layers::maxPooling3d()->apply(cube).data<float>(), (std::vector<float>{7}));
    expectNear(layers::averagePooling3d()->apply(cube), {3.5});

    std::vector<float> g(20);
    for (int i = 0; i < 20; ++i) g[i] = float(i);
    Tensor grid = tensor(g, {1, 4, 5, 1});
    Tensor c = layers::cropping2d({{"cropping", {{1, 0}, {2, 1}}}})->apply(grid);
    EXPECT_EQ(c.shape(), (Shape{1, 3, 2, 1}));
    EXPECT_EQ(c.data<float>(), (std::vector<float>{7, 8, 12, 13, 17, 18}));
    EXPECT_EQ(layers::cropping2d({{"cropping", 1}})->apply(grid).data<float>(),
              (std::vector<float>{6, 7, 8, 11, 12, 13}));
    EXPECT_EQ(layers::cropping2d({{"cropping", {0, 2}}})->apply(grid).data<float>(),
              (std::vector<float>{2, 7, 12, 17}));
  });
}

// ---- Gradients ---------------------------------------------------------------

TEST(LayersSpatialND, Gradients) {
  checkLayer({"conv1d_valid",
              [] {
                return layers::conv1d({{"filters", 2}, {"kernelSize", 2}, {"activation", "tanh"}});
              },
              {{2, 5, 2}}});
  checkLayer({"conv1d_same_strided",
              [] {
                return layers::conv1d(
                    {{"filters", 2}, {"kernelSize", 3}, {"strides", 2}, {"padding", "same"}});
              },
              {{1, 6, 2}}});
  checkLayer(
      {"conv1d_causal_dilated",
       [] {
         return layers::conv1d(
             {{"filters", 1}, {"kernelSize", 2}, {"dilationRate", 2}, {"padding", "causal"}});
       },
       {{1, 5, 2}}});
  checkLayer({"conv3d_valid",
              [] {
                return layers::conv3d({{"filters", 2}, {"kernelSize", 2}});
              },
              {{1, 3, 3, 2, 2}}});
  checkLayer({"conv3d_same_strided",
              [] {
                return layers::conv3d({{"filters", 1},
                                       {"kernelSize", {3, 2, 2}},
                                       {"strides", {2, 1, 2}},
                                       {"padding", "same"}});
              },
              {{1, 4, 3, 3, 1}}});
  checkLayer(
      {"conv3d_dilated",
       [] {
         return layers::conv3d({{"filters", 1}, {"kernelSize", 2}, {"dilationRate", {2, 1, 1}}});
       },
       {{1, 4, 2, 2, 1}}});
  checkLayer({"conv3d_transpose_valid",
              [] {
                return layers::conv3dTranspose({{"filters", 1}, {"kernelSize", 2}});
              },
              {{1, 2, 2, 2, 2}}});
  checkLayer(
      {"conv3d_transpose_same_strided",
       [] {
         return layers::conv3dTranspose(
             {{"filters", 2}, {"kernelSize", {3, 2, 2}}, {"strides", 2}, {"padding", "same"}});
       },
       {{1, 2, 2, 1, 1}}});
  checkLayer({"cropping2d",
              [] {
                return layers::cropping2d({{"cropping", {{1, 0}, {0, 1}}}});
              },
              {{1, 3, 3, 2}}});
  // Inputs spread over [-4, 4] keep max windows away from ties.
  checkLayer({"max_pooling1d_same",
              [] {
                return layers::maxPooling1d({{"poolSize", 3}, {"strides", 2}, {"padding", "same"}});
              },
              {{2, 5, 2}},
              {},
              5,
              false,
              1e-2,
              1e-3,
              -4.0f,
              4.0f});
  checkLayer({"average_pooling1d",
              [] {
                return layers::averagePooling1d({{"poolSize", 2}, {"strides", 1}});
              },
              {{1, 4, 2}}});
  checkLayer({"max_pooling3d",
              [] {
                return layers::maxPooling3d({{"padding", "same"}});
              },
              {{1, 3, 3, 2, 1}},
              {},
              5,
              false,
              1e-2,
              1e-3,
              -4.0f,
              4.0f});
  checkLayer({"average_pooling3d_same",
              [] {
                return layers::averagePooling3d(
                    {{"poolSize", {2, 3, 2}}, {"strides", 2}, {"padding", "same"}});
              },
              {{1, 3, 3, 3, 1}}});
  checkLayer({"global_max_pooling1d",
              [] { return layers::globalMaxPooling1d(); },
              {{2, 4, 2}},
              {},
              5,
              false,
              1e-2,
              1e-3,
              -4.0f,
              4.0f});
  checkLayer(
      {"global_average_pooling1d", [] { return layers::globalAveragePooling1d(); }, {{2, 3, 2}}});
}

// ---- Configs -------------------------------------------------------------------

// The key lists are what TF.js 4.22's model.toJSON() writes for each class
// (Sequential with an inputShape, so batch_input_shape is present).
TEST(LayersSpatialND, ConfigsAreTheKerasFormTfjsWrites) {
  using V = std::vector<std::string>;
  const V convKeys = {"filters",
                      "kernel_initializer",
                      "kernel_regularizer",
                      "kernel_constraint",
                      "kernel_size",
                      "strides",
                      "padding",
                      "data_format",
                      "dilation_rate",
                      "activation",
                      "use_bias",
                      "bias_initializer",
                      "bias_regularizer",
                      "activity_regularizer",
                      "bias_constraint",
                      "name",
                      "trainable",
                      "batch_input_shape",
                      "dtype"};
  auto without = [](V v, const std::string& k) {
    v.erase(std::find(v.begin(), v.end(), k));
    return v;
  };
  Json c1 =
      layers::conv1d({{"filters", 4}, {"kernelSize", 3}, {"inputShape", {7, 3}}})->getConfig();
  EXPECT_EQ(keys(c1), without(convKeys, "data_format"));
  EXPECT_EQ(c1["kernel_size"], Json::parse("[3]"));
  EXPECT_EQ(c1["strides"], Json::parse("[1]"));
  EXPECT_EQ(c1["dilation_rate"], Json::parse("[1]"));
  EXPECT_EQ(c1["padding"], "valid");
  EXPECT_EQ(c1["kernel_initializer"]["class_name"], "VarianceScaling");
  EXPECT_EQ(c1["kernel_initializer"]["config"]["distribution"], "normal");
  EXPECT_EQ(c1["batch_input_shape"], Json::parse("[null,7,3]"));
  EXPECT_EQ(layers::conv1d({{"filters", 1}, {"kernelSize", 2}, {"padding", "causal"}})
                ->getConfig()["padding"],
            "causal");
  Json c3 = layers::conv3d({{"filters", 4}, {"kernelSize", 3}, {"inputShape", {7, 3, 3, 2}}})
                ->getConfig();
  EXPECT_EQ(keys(c3), convKeys);
  EXPECT_EQ(c3["kernel_size"], Json::parse("[3,3,3]"));
  EXPECT_EQ(c3["dilation_rate"], Json::parse("[1,1,1]"));
  EXPECT_EQ(c3["data_format"], "channels_last");
  Json t3 =
      layers::conv3dTranspose({{"filters", 4}, {"kernelSize", 3}, {"inputShape", {7, 3, 3, 2}}})
          ->getConfig();
  EXPECT_EQ(keys(t3), without(convKeys, "dilation_rate"));
  Json cr = layers::cropping2d({{"cropping", 1}, {"inputShape", {7, 3, 2}}})->getConfig();
  EXPECT_EQ(keys(cr),
            (V{"cropping", "data_format", "name", "trainable", "batch_input_shape", "dtype"}));
  EXPECT_EQ(cr["cropping"], Json::parse("[[1,1],[1,1]]"));
  Json p1 = layers::maxPooling1d({{"inputShape", {7, 3}}})->getConfig();
  EXPECT_EQ(keys(p1), (V{"pool_size", "padding", "strides", "name", "trainable",
                         "batch_input_shape", "dtype"}));
  EXPECT_EQ(p1["pool_size"], Json::parse("[2]"));
  EXPECT_EQ(p1["strides"], Json::parse("[2]"));
  Json p3 = layers::averagePooling3d({{"inputShape", {7, 3, 3, 2}}})->getConfig();
  EXPECT_EQ(keys(p3), (V{"pool_size", "padding", "strides", "data_format", "name", "trainable",
                         "batch_input_shape", "dtype"}));
  EXPECT_EQ(p3["pool_size"], Json::parse("[2,2,2]"));
  EXPECT_EQ(p3["strides"], Json::parse("[2,2,2]"));
  EXPECT_EQ(keys(layers::globalMaxPooling1d({{"inputShape", {7, 3}}})->getConfig()),
            (V{"name", "trainable", "batch_input_shape", "dtype"}));
  // Default names follow TF.js (snake_case class name).
  EXPECT_EQ(layers::conv3dTranspose({{"filters", 1}, {"kernelSize", 2}})
                ->name()
                .rfind("conv3d_transpose", 0),
            0u);
  EXPECT_EQ(layers::globalAveragePooling1d()->name().rfind("global_average_pooling1d", 0), 0u);
  EXPECT_EQ(layers::cropping2d()->name().rfind("cropping2d", 0), 0u);
}

TEST(LayersSpatialND, ConfigRoundTripsThroughTheRegistry) {
  Tensor steps = waveTensor({2, 9, 2}, 0.4f), volume = waveTensor({1, 5, 4, 6, 2}, 0.8f);
  expectRoundTrip(layers::conv1d({{"filters", 3},
                                  {"kernelSize", 3},
                                  {"strides", 2},
                                  {"padding", "same"},
                                  {"activation", "relu"}}),
                  steps);
  expectRoundTrip(layers::conv1d({{"filters", 2},
                                  {"kernelSize", 2},
                                  {"dilationRate", 2},
                                  {"padding", "causal"},
                                  {"useBias", false}}),
                  steps);
  expectRoundTrip(
      layers::conv3d({{"filters", 2},
                      {"kernelSize", {2, 1, 3}},
                      {"strides", {1, 2, 2}},
                      {"padding", "same"},
                      {"kernelRegularizer",
                       {{"className", "L1L2"}, {"config", {{"l1", 0.0}, {"l2", 0.01}}}}}}),
      volume);
  expectRoundTrip(layers::conv3dTranspose(
                      {{"filters", 2}, {"kernelSize", 2}, {"strides", 2}, {"activation", "tanh"}}),
                  volume);
  expectRoundTrip(layers::cropping2d({{"cropping", {{1, 0}, {2, 3}}}}),
                  waveTensor({1, 4, 7, 2}, 0.1f));
  expectRoundTrip(layers::maxPooling1d({{"poolSize", 3}, {"strides", 1}}), steps);
  expectRoundTrip(layers::averagePooling1d({{"padding", "same"}}), steps);
  expectRoundTrip(layers::maxPooling3d({{"poolSize", {2, 1, 3}}, {"padding", "same"}}), volume);
  expectRoundTrip(layers::averagePooling3d({{"strides", 1}}), volume);
  expectRoundTrip(layers::globalMaxPooling1d(), steps);
  expectRoundTrip(layers::globalAveragePooling1d(), steps);
  // Keras (Python) forms as a model.json holds them.
  LayerPtr k1 =
      layers::fromConfig("Conv1D", Json::parse(R"({"filters": 2, "kernel_size": [3], "strides": [1],
      "padding": "causal", "data_format": "channels_last", "dilation_rate": [1], "groups": 1, "activation": "linear",
      "use_bias": true, "name": "conv1d_keras"})"));
  EXPECT_EQ(k1->apply(steps).shape(), (Shape{2, 9, 2}));
  LayerPtr kt =
      layers::fromConfig("Conv3DTranspose", Json::parse(R"({"filters": 1, "kernel_size": [2, 2, 2],
      "strides": [2, 2, 2], "output_padding": null, "dilation_rate": [1, 1, 1], "groups": 1})"));
  EXPECT_EQ(kt->apply(volume).shape(), (Shape{1, 10, 8, 12, 1}));
  LayerPtr kp =
      layers::fromConfig("MaxPooling1D", Json::parse(R"({"pool_size": [2], "strides": null,
      "padding": "valid", "data_format": "channels_last"})"));
  EXPECT_EQ(kp->apply(steps).shape(), (Shape{2, 4, 2}));
  LayerPtr kg =
      layers::fromConfig("GlobalAveragePooling1D",
                         Json::parse(R"({"data_format": "channels_last", "keepdims": true})"));
  EXPECT_EQ(kg->apply(steps).shape(), (Shape{2, 1, 2}));
  expectRoundTrip(kg, steps);
}

// ---- Errors ------------------------------------------------------------------

TEST(LayersSpatialND, ErrorsNameTheClassTheLayerAndTheArgument) {
  // Unknown keys.
  expectError(
      [] {
        layers::conv1d({{"filters", 1}, {"kernelSize", 2}, {"name", "c1"}, {"kernelSizes", 2}});
      },
      {"Conv1D 'c1'", "kernel_sizes"});
  expectError(
      [] {
        layers::conv3d({{"filters", 1}, {"kernelSize", 2}, {"name", "c3"}, {"depthMultiplier", 2}});
      },
      {"Conv3D 'c3'", "depth_multiplier"});
  expectError(
      [] {
        layers::conv3dTranspose({{"filters", 1}, {"kernelSize", 2}, {"name", "t3"}, {"units", 2}});
      },
      {"Conv3DTranspose 't3'", "units"});
  expectError(
      [] {
        layers::cropping2d({{"name", "cr"}, {"padding", 1}});
      },
      {"Cropping2D 'cr'", "padding"});
  expectError(
      [] {
        layers::maxPooling1d({{"name", "mp"}, {"poolSizes", 2}});
      },
      {"MaxPooling1D 'mp'", "pool_sizes"});
  expectError(
      [] {
        layers::averagePooling3d({{"name", "ap"}, {"size", 2}});
      },
      {"AveragePooling3D 'ap'", "size"});
  expectError(
      [] {
        layers::globalMaxPooling1d({{"name", "gm"}, {"poolSize", 2}});
      },
      {"GlobalMaxPooling1D 'gm'", "pool_size"});
  // Wrong types and values.
  expectError(
      [] {
        layers::conv1d({{"filters", 1}, {"kernelSize", {2, 2}}, {"name", "c1"}});
      },
      {"Conv1D 'c1'", "kernel_size", "list of 1"});
  expectError(
      [] {
        layers::conv1d({{"filters", "4"}, {"kernelSize", 2}, {"name", "c1"}});
      },
      {"Conv1D 'c1'", "filters"});
  expectError(
      [] {
        layers::conv3d({{"filters", 1}, {"kernelSize", {2, 2}}, {"name", "c3"}});
      },
      {"Conv3D 'c3'", "kernel_size", "list of 3"});
  expectError(
      [] {
        layers::conv3d({{"filters", 1}, {"kernelSize", 2}, {"padding", "causal"}, {"name", "c3"}});
      },
      {"Conv3D 'c3'", "padding", "causal"});
  expectError(
      [] {
        layers::conv3d({{"filters", 1}, {"kernelSize", 2}, {"strides", 2}, {"dilationRate", 2}});
      },
      {"Conv3D", "dilation_rate", "strides"});
  expectError(
      [] {
        layers::conv3d({{"filters", 1}, {"kernelSize", 2}, {"dataFormat", "channelsFirst"}});
      },
      {"Conv3D", "data_format", "channelsFirst", "not supported"});
  expectError(
      [] {
        layers::conv3dTranspose(
            {{"filters", 1}, {"kernelSize", 2}, {"dilationRate", 2}, {"name", "t3"}});
      },
      {"Conv3DTranspose 't3'", "dilation_rate"});
  expectError(
      [] {
        layers::conv3dTranspose({{"filters", 1}, {"kernelSize", 2}, {"padding", "causal"}});
      },
      {"Conv3DTranspose", "padding", "causal"});
  expectError(
      [] {
        layers::conv1d({{"filters", 1}, {"kernelSize", 2}, {"outputPadding", 1}});
      },
      {"Conv1D", "output_padding"});
  expectError(
      [] {
        layers::cropping2d({{"cropping", -1}, {"name", "cr"}});
      },
      {"Cropping2D 'cr'", "cropping", "non-negative"});
  expectError([] { layers::cropping2d({{"cropping", {1, 2, 3}}}); }, {"Cropping2D", "cropping"});
  expectError(
      [] {
        layers::maxPooling1d({{"poolSize", 0}, {"name", "mp"}});
      },
      {"MaxPooling1D 'mp'", "pool_size", "positive"});
  expectError(
      [] {
        layers::maxPooling3d({{"strides", {1, 2}}, {"name", "mp"}});
      },
      {"MaxPooling3D 'mp'", "strides"});
  expectError(
      [] {
        layers::averagePooling1d({{"padding", "full"}});
      },
      {"AveragePooling1D", "padding", "full"});
  expectError(
      [] {
        layers::globalAveragePooling1d({{"keepdims", 1}, {"name", "ga"}});
      },
      {"GlobalAveragePooling1D 'ga'", "keepdims"});
  // Impossible shapes (messages show the batch dimension as -1: a symbolic apply).
  expectError(
      [] {
        layers::conv1d({{"filters", 1}, {"kernelSize", 5}, {"name", "c1"}})
            ->apply(zeros({1, 4, 2}));
      },
      {"Conv1D 'c1'", "[5]", ",4,2]", "does not fit"});
  expectError(
      [] {
        layers::conv1d({{"filters", 1}, {"kernelSize", 2}, {"name", "c1"}})
            ->apply(zeros({1, 4, 4, 2}));
      },
      {"Conv1D 'c1'", "rank 3", ",4,4,2]"});
  expectError(
      [] {
        layers::conv3d({{"filters", 1}, {"kernelSize", 2}, {"name", "c3"}})
            ->apply(zeros({1, 4, 4, 2}));
      },
      {"Conv3D 'c3'", "rank 5", ",4,4,2]"});
  expectError(
      [] {
        layers::conv3d({{"filters", 1}, {"kernelSize", {1, 3, 1}}, {"name", "c3"}})
            ->apply(zeros({1, 4, 2, 4, 1}));
      },
      {"Conv3D 'c3'", "kernel [1,3,1]", "does not fit", ",4,2,4,1]"});
  expectError(
      [] {
        LayerPtr l = layers::conv3dTranspose({{"filters", 1}, {"kernelSize", 2}, {"name", "t3"}});
        l->apply(zeros({1, 2, 2, 2, 3}));
        l->apply(zeros({1, 2, 2, 2, 4}));
      },
      {"Conv3DTranspose 't3'", "3 channels", ",2,2,2,4]"});
  expectError(
      [] {
        layers::cropping2d({{"cropping", {{2, 2}, {0, 0}}}, {"name", "cr"}})
            ->apply(zeros({1, 4, 4, 1}));
      },
      {"Cropping2D 'cr'", "height", ",4,4,1]"});
  expectError(
      [] {
        layers::maxPooling1d({{"poolSize", 5}, {"name", "mp"}})->apply(zeros({1, 4, 2}));
      },
      {"MaxPooling1D 'mp'", "pool_size [5]", ",4,2]"});
  expectError(
      [] {
        layers::averagePooling3d({{"name", "ap"}})->apply(zeros({1, 4, 1, 4, 2}));
      },
      {"AveragePooling3D 'ap'", "pool_size [2,2,2]", ",4,1,4,2]"});
  expectError(
      [] {
        layers::maxPooling3d({{"name", "mp"}})->apply(zeros({1, 4, 4, 2}));
      },
      {"MaxPooling3D 'mp'", "rank 5", ",4,4,2]"});
  expectError(
      [] {
        layers::globalMaxPooling1d({{"name", "gm"}})->apply(zeros({1, 4, 4, 2}));
      },
      {"GlobalMaxPooling1D 'gm'", "rank 3", ",4,4,2]"});
}

}  // namespace
}  // namespace glint::testing
