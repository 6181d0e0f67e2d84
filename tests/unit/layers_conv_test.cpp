// Convolution, pooling, padding and upsampling layers: shapes, values against
// plain double loops and hand values, gradients, configs, errors.
#include <gtest/gtest.h>

#include <cmath>

#include "glint/glint.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "layer_harness.h"
#include "op_harness.h"

namespace glint::testing {
namespace {

std::vector<float> wave(size_t n, float seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 0.9f * std::sin(0.7f * static_cast<float>(i) + seed);
  return v;
}

Tensor waveTensor(const Shape& s, float seed) {
  return tensor(wave(static_cast<size_t>(shapeSize(s)), seed), s);
}

/// Plain NHWC convolution in double. depthwise: w is [kh,kw,c,m] and output
/// channel c*m + j reads only input channel c; else w is [kh,kw,c,f].
struct Conv {
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  bool same = false, depthwise = false;
};
std::vector<double> refConv(const std::vector<float>& x, const Shape& xs,
                            const std::vector<float>& w, const Shape& ws, const Conv& p,
                            Shape* outShape) {
  int64_t n = xs[0], h = xs[1], wd = xs[2], c = xs[3], kh = ws[0], kw = ws[1], m = ws[3];
  int64_t ekh = (kh - 1) * p.dh + 1, ekw = (kw - 1) * p.dw + 1;
  int64_t oh = p.same ? (h + p.sh - 1) / p.sh : (h - ekh) / p.sh + 1;
  int64_t ow = p.same ? (wd + p.sw - 1) / p.sw : (wd - ekw) / p.sw + 1;
  int64_t padT = p.same ? std::max<int64_t>((oh - 1) * p.sh + ekh - h, 0) / 2 : 0;
  int64_t padL = p.same ? std::max<int64_t>((ow - 1) * p.sw + ekw - wd, 0) / 2 : 0;
  int64_t oc = p.depthwise ? c * m : m;
  *outShape = {n, oh, ow, oc};
  std::vector<double> out(static_cast<size_t>(n * oh * ow * oc), 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t o = 0; o < oc; ++o) {
          double acc = 0;
          for (int64_t a = 0; a < kh; ++a)
            for (int64_t e = 0; e < kw; ++e) {
              int64_t y = i * p.sh + a * p.dh - padT, z = j * p.sw + e * p.dw - padL;
              if (y < 0 || y >= h || z < 0 || z >= wd) continue;
              if (p.depthwise) {
                int64_t ci = o / m, mi = o % m;
                acc += double(x[((b * h + y) * wd + z) * c + ci]) *
                       w[((a * kw + e) * c + ci) * m + mi];
              } else {
                for (int64_t ci = 0; ci < c; ++ci)
                  acc += double(x[((b * h + y) * wd + z) * c + ci]) *
                         w[((a * kw + e) * c + ci) * m + o];
              }
            }
          out[static_cast<size_t>(((b * oh + i) * ow + j) * oc + o)] = acc;
        }
  return out;
}

void addBiasRelu(std::vector<double>& y, const std::vector<float>& bias, bool relu) {
  for (size_t i = 0; i < y.size(); ++i) {
    y[i] += bias[i % bias.size()];
    if (relu) y[i] = std::max(0.0, y[i]);
  }
}

Shape symbolicShape(const LayerPtr& layer, const Shape& inShape) {
  return layer->apply(input({{"shape", inShape}}))->shape;
}

// ---- Conv2D ---------------------------------------------------------------

TEST(LayersConv, Conv2DOutputShapes) {
  struct Case {
    Json args;
    Shape in, out;
  };
  std::vector<Case> cases = {
      {{{"filters", 4}, {"kernelSize", 3}}, {2, 5, 5, 2}, {2, 3, 3, 4}},
      {{{"filters", 4}, {"kernelSize", 3}, {"padding", "same"}}, {2, 5, 5, 2}, {2, 5, 5, 4}},
      {{{"filters", 1}, {"kernelSize", 3}, {"strides", 2}}, {1, 5, 6, 2}, {1, 2, 2, 1}},
      {{{"filters", 1}, {"kernelSize", 3}, {"strides", 2}, {"padding", "same"}},
       {1, 5, 6, 2},
       {1, 3, 3, 1}},
      {{{"filters", 1}, {"kernelSize", {2, 3}}, {"strides", {1, 2}}}, {1, 5, 7, 1}, {1, 4, 3, 1}},
      {{{"filters", 2}, {"kernelSize", 3}, {"dilationRate", 2}}, {1, 6, 7, 1}, {1, 2, 3, 2}},
      {{{"filters", 2}, {"kernelSize", 3}, {"dilationRate", 2}, {"padding", "same"}},
       {1, 6, 7, 1},
       {1, 6, 7, 2}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args.dump());
    EXPECT_EQ(layers::conv2d(c.args)->apply(zeros(c.in)).shape(), c.out);
    Shape sIn(c.in.begin() + 1, c.in.end()), sOut = c.out;
    sOut[0] = -1;
    EXPECT_EQ(symbolicShape(layers::conv2d(c.args), sIn), sOut);
  }
  // Unknown spatial size stays unknown symbolically.
  EXPECT_EQ(symbolicShape(layers::conv2d({{"filters", 3}, {"kernelSize", 2}}), {-1, -1, 2}),
            (Shape{-1, -1, -1, 3}));
}

TEST(LayersConv, Conv2DMatchesPlainLoop) {
  struct Case {
    Json args;
    Shape in;
    Conv p;
    bool relu;
  };
  std::vector<Case> cases = {
      {{{"filters", 3}, {"kernelSize", 3}}, {2, 4, 5, 2}, {}, false},
      {{{"filters", 2},
        {"kernelSize", {3, 2}},
        {"strides", 2},
        {"padding", "same"},
        {"activation", "relu"}},
       {1, 5, 6, 3},
       {2, 2, 1, 1, true, false},
       true},
      {{{"filters", 2}, {"kernelSize", 2}, {"dilationRate", {2, 1}}, {"padding", "same"}},
       {1, 4, 4, 2},
       {1, 1, 2, 1, true, false},
       false},
      {{{"filters", 2}, {"kernelSize", 2}, {"dilationRate", 2}, {"useBias", false}},
       {1, 5, 4, 1},
       {1, 1, 2, 2, false, false},
       false},
  };
  onEveryBackend([&] {
    for (const Case& c : cases) {
      SCOPED_TRACE(c.args.dump());
      LayerPtr layer = layers::conv2d(c.args);
      Tensor x = waveTensor(c.in, 0.3f);
      layer->apply(x);
      std::vector<Variable> w = layer->weights();
      ASSERT_EQ(w.size(), c.args.contains("useBias") ? 1u : 2u);
      EXPECT_EQ(w[0].name(), layer->name() + "/kernel");
      std::vector<float> kernel = wave(static_cast<size_t>(w[0].size()), 1.1f);
      std::vector<Tensor> values{tensor(kernel, w[0].shape())};
      std::vector<float> bias;
      if (w.size() == 2) {
        EXPECT_EQ(w[1].name(), layer->name() + "/bias");
        bias = wave(static_cast<size_t>(w[1].size()), 2.0f);
        values.push_back(tensor(bias, w[1].shape()));
      }
      layer->setWeights(values);
      Shape outShape;
      std::vector<double> want = refConv(x.toFloats(), c.in, kernel, w[0].shape(), c.p, &outShape);
      if (!bias.empty()) addBiasRelu(want, bias, c.relu);
      Tensor y = layer->apply(x);
      EXPECT_EQ(y.shape(), outShape);
      expectNear(y.toFloats(), want);
    }
  });
}

TEST(LayersConv, DepthwiseAndSeparableMatchPlainLoops) {
  onEveryBackend([&] {
    Shape in{2, 5, 4, 2};
    Tensor x = waveTensor(in, 0.5f);
    // Depthwise, multiplier 2, strides 2, same padding.
    LayerPtr dw = layers::depthwiseConv2d(
        {{"kernelSize", 3}, {"depthMultiplier", 2}, {"strides", 2}, {"padding", "same"}});
    dw->apply(x);
    std::vector<Variable> w = dw->weights();
    ASSERT_EQ(w.size(), 2u);
    EXPECT_EQ(w[0].name(), dw->name() + "/depthwise_kernel");
    EXPECT_EQ(w[0].shape(), (Shape{3, 3, 2, 2}));
    EXPECT_EQ(w[1].shape(), (Shape{4}));
    std::vector<float> k = wave(36, 0.2f), b = wave(4, 0.9f);
    dw->setWeights({tensor(k, {3, 3, 2, 2}), tensor(b, {4})});
    Shape outShape;
    std::vector<double> want =
        refConv(x.toFloats(), in, k, {3, 3, 2, 2}, {2, 2, 1, 1, true, true}, &outShape);
    addBiasRelu(want, b, false);
    Tensor y = dw->apply(x);
    EXPECT_EQ(y.shape(), (Shape{2, 3, 2, 4}));
    EXPECT_EQ(y.shape(), outShape);
    expectNear(y.toFloats(), want);

    // Separable: depthwise (valid, multiplier 2) then pointwise 1x1 to 3 filters, relu.
    LayerPtr sep = layers::separableConv2d(
        {{"filters", 3}, {"kernelSize", 2}, {"depthMultiplier", 2}, {"activation", "relu"}});
    sep->apply(x);
    w = sep->weights();
    ASSERT_EQ(w.size(), 3u);
    EXPECT_EQ(w[0].name(), sep->name() + "/depthwise_kernel");
    EXPECT_EQ(w[1].name(), sep->name() + "/pointwise_kernel");
    EXPECT_EQ(w[2].name(), sep->name() + "/bias");
    EXPECT_EQ(w[1].shape(), (Shape{1, 1, 4, 3}));
    std::vector<float> dk = wave(16, 0.4f), pk = wave(12, 1.7f), pb = wave(3, 2.5f);
    sep->setWeights({tensor(dk, {2, 2, 2, 2}), tensor(pk, {1, 1, 4, 3}), tensor(pb, {3})});
    Shape midShape, finalShape;
    std::vector<double> mid =
        refConv(x.toFloats(), in, dk, {2, 2, 2, 2}, {1, 1, 1, 1, false, true}, &midShape);
    std::vector<float> midF(mid.begin(), mid.end());
    std::vector<double> out = refConv(midF, midShape, pk, {1, 1, 4, 3}, {}, &finalShape);
    addBiasRelu(out, pb, true);
    Tensor ys = sep->apply(x);
    EXPECT_EQ(ys.shape(), (Shape{2, 4, 3, 3}));
    expectNear(ys.toFloats(), out, 1e-4);
  });
}

/// Transposed convolution as a scatter: each input pixel adds kernel * x
/// into the output window at (i*stride - pad).
std::vector<double> refConvTranspose(const std::vector<float>& x, const Shape& xs,
                                     const std::vector<float>& w, const Shape& ws, int64_t s,
                                     bool same, const Shape& out) {
  int64_t kh = ws[0], kw = ws[1], f = ws[2], c = ws[3];
  int64_t padT = same ? std::max<int64_t>((xs[1] - 1) * s + kh - out[1], 0) / 2 : 0;
  int64_t padL = same ? std::max<int64_t>((xs[2] - 1) * s + kw - out[2], 0) / 2 : 0;
  std::vector<double> y(static_cast<size_t>(shapeSize(out)), 0.0);
  for (int64_t b = 0; b < xs[0]; ++b)
    for (int64_t i = 0; i < xs[1]; ++i)
      for (int64_t j = 0; j < xs[2]; ++j)
        for (int64_t a = 0; a < kh; ++a)
          for (int64_t e = 0; e < kw; ++e) {
            int64_t oi = i * s + a - padT, oj = j * s + e - padL;
            if (oi < 0 || oi >= out[1] || oj < 0 || oj >= out[2]) continue;
            for (int64_t o = 0; o < f; ++o)
              for (int64_t ci = 0; ci < c; ++ci)
                y[static_cast<size_t>(((b * out[1] + oi) * out[2] + oj) * f + o)] +=
                    double(x[((b * xs[1] + i) * xs[2] + j) * c + ci]) *
                    w[((a * kw + e) * f + o) * c + ci];
          }
  return y;
}

TEST(LayersConv, Conv2DTransposeShapesAndValues) {
  // deconv_output_length: valid in*s + max(k - s, 0); same in*s.
  EXPECT_EQ(
      symbolicShape(layers::conv2dTranspose({{"filters", 2}, {"kernelSize", 3}, {"strides", 2}}),
                    {3, 4, 1}),
      (Shape{-1, 7, 9, 2}));
  EXPECT_EQ(
      symbolicShape(layers::conv2dTranspose(
                        {{"filters", 2}, {"kernelSize", 3}, {"strides", 2}, {"padding", "same"}}),
                    {3, 4, 1}),
      (Shape{-1, 6, 8, 2}));
  EXPECT_EQ(
      symbolicShape(layers::conv2dTranspose({{"filters", 1}, {"kernelSize", 2}, {"strides", 3}}),
                    {2, 2, 1}),
      (Shape{-1, 6, 6, 1}));
  EXPECT_EQ(symbolicShape(layers::conv2dTranspose({{"filters", 1}, {"kernelSize", 3}}), {2, 2, 1}),
            (Shape{-1, 4, 4, 1}));
  onEveryBackend([&] {
    for (bool same : {false, true}) {
      SCOPED_TRACE(same ? "same" : "valid");
      Shape in{2, 3, 2, 2};
      Tensor x = waveTensor(in, 0.1f);
      LayerPtr t = layers::conv2dTranspose({{"filters", 3},
                                            {"kernelSize", 3},
                                            {"strides", 2},
                                            {"padding", same ? "same" : "valid"}});
      t->apply(x);
      std::vector<Variable> w = t->weights();
      ASSERT_EQ(w.size(), 2u);
      EXPECT_EQ(w[0].shape(), (Shape{3, 3, 3, 2}));  // [kh, kw, filters, inChannels]
      std::vector<float> k = wave(54, 0.6f), b = wave(3, 1.3f);
      t->setWeights({tensor(k, w[0].shape()), tensor(b, {3})});
      Tensor y = t->apply(x);
      Shape out = same ? Shape{2, 6, 4, 3} : Shape{2, 7, 5, 3};
      EXPECT_EQ(y.shape(), out);
      std::vector<double> want = refConvTranspose(x.toFloats(), in, k, w[0].shape(), 2, same, out);
      addBiasRelu(want, b, false);
      expectNear(y.toFloats(), want);
    }
  });
}

TEST(LayersConv, ConvGradients) {
  checkLayer({"conv2d_valid",
              [] {
                return layers::conv2d({{"filters", 2}, {"kernelSize", 2}, {"activation", "tanh"}});
              },
              {{2, 3, 3, 2}}});
  checkLayer({"conv2d_same_strided",
              [] {
                return layers::conv2d(
                    {{"filters", 2}, {"kernelSize", 3}, {"strides", 2}, {"padding", "same"}});
              },
              {{1, 4, 3, 1}}});
  checkLayer({"conv2d_dilated",
              [] {
                return layers::conv2d({{"filters", 1}, {"kernelSize", 2}, {"dilationRate", 2}});
              },
              {{1, 4, 4, 2}}});
  checkLayer({"depthwise",
              [] {
                return layers::depthwiseConv2d(
                    {{"kernelSize", 2}, {"depthMultiplier", 2}, {"padding", "same"}});
              },
              {{1, 3, 3, 2}}});
  checkLayer({"separable",
              [] {
                return layers::separableConv2d(
                    {{"filters", 2}, {"kernelSize", 2}, {"activation", "sigmoid"}});
              },
              {{1, 3, 3, 2}}});
  checkLayer({"conv2d_transpose_valid",
              [] {
                return layers::conv2dTranspose({{"filters", 2}, {"kernelSize", 2}, {"strides", 2}});
              },
              {{1, 2, 2, 2}}});
  checkLayer({"conv2d_transpose_same",
              [] {
                return layers::conv2dTranspose(
                    {{"filters", 1}, {"kernelSize", 3}, {"strides", 2}, {"padding", "same"}});
              },
              {{1, 2, 3, 1}}});
}

// ---- Pooling, padding, upsampling ------------------------------------------

TEST(LayersConv, PoolingHandValues) {
  onEveryBackend([&] {
    std::vector<float> v16(16), v9(9);
    for (int i = 0; i < 16; ++i) v16[i] = static_cast<float>(i);
    for (int i = 0; i < 9; ++i) v9[i] = static_cast<float>(i);
    Tensor x4 = tensor(v16, {1, 4, 4, 1}), x3 = tensor(v9, {1, 3, 3, 1});
    // Defaults: pool 2, strides = pool size, valid.
    EXPECT_EQ(layers::maxPooling2d()->apply(x4).data<float>(), (std::vector<float>{5, 7, 13, 15}));
    EXPECT_EQ(layers::averagePooling2d()->apply(x4).data<float>(),
              (std::vector<float>{2.5f, 4.5f, 10.5f, 12.5f}));
    // Same padding over 3x3: edge windows hold fewer elements; the average
    // counts only the in-bounds ones.
    Tensor m = layers::maxPooling2d({{"poolSize", 2}, {"padding", "same"}})->apply(x3);
    EXPECT_EQ(m.shape(), (Shape{1, 2, 2, 1}));
    EXPECT_EQ(m.data<float>(), (std::vector<float>{4, 5, 7, 8}));
    Tensor a = layers::averagePooling2d({{"poolSize", 2}, {"padding", "same"}})->apply(x3);
    EXPECT_EQ(a.data<float>(), (std::vector<float>{2, 3.5f, 6.5f, 8}));
    // Strides 1, pool [2,3].
    Tensor m2 = layers::maxPooling2d({{"poolSize", {2, 3}}, {"strides", 1}})->apply(x4);
    EXPECT_EQ(m2.shape(), (Shape{1, 3, 2, 1}));
    EXPECT_EQ(m2.data<float>(), (std::vector<float>{6, 7, 10, 11, 14, 15}));
    // Global pooling over two channels.
    Tensor g = tensor({1, -1, 2, -2, 3, -3, 6, -6}, {1, 2, 2, 2});
    Tensor ga = layers::globalAveragePooling2d()->apply(g);
    EXPECT_EQ(ga.shape(), (Shape{1, 2}));
    EXPECT_EQ(ga.data<float>(), (std::vector<float>{3, -3}));
    EXPECT_EQ(layers::globalMaxPooling2d()->apply(g).data<float>(), (std::vector<float>{6, -1}));
  });
  EXPECT_EQ(symbolicShape(layers::maxPooling2d({{"poolSize", 3}, {"strides", 2}}), {7, 8, 3}),
            (Shape{-1, 3, 3, 3}));
  EXPECT_EQ(symbolicShape(
                layers::averagePooling2d({{"poolSize", 3}, {"strides", 2}, {"padding", "same"}}),
                {7, 8, 3}),
            (Shape{-1, 4, 4, 3}));
  EXPECT_EQ(symbolicShape(layers::globalMaxPooling2d(), {7, 8, 3}), (Shape{-1, 3}));
}

TEST(LayersConv, ZeroPaddingAndUpSamplingHandValues) {
  onEveryBackend([&] {
    Tensor x = tensor({1, 2, 3, 4}, {1, 2, 2, 1});
    Tensor p = layers::zeroPadding2d()->apply(x);  // default 1 on every side
    EXPECT_EQ(p.shape(), (Shape{1, 4, 4, 1}));
    EXPECT_EQ(p.data<float>(),
              (std::vector<float>{0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0}));
    Tensor q = layers::zeroPadding2d({{"padding", {{1, 0}, {0, 2}}}})->apply(x);
    EXPECT_EQ(q.shape(), (Shape{1, 3, 4, 1}));
    EXPECT_EQ(q.data<float>(), (std::vector<float>{0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0}));
    EXPECT_EQ(layers::zeroPadding2d({{"padding", {0, 1}}})->apply(x).shape(), (Shape{1, 2, 4, 1}));
    EXPECT_EQ(layers::zeroPadding2d({{"padding", 2}})->apply(x).shape(), (Shape{1, 6, 6, 1}));

    Tensor u = layers::upSampling2d({{"size", {2, 3}}})->apply(x);
    EXPECT_EQ(u.shape(), (Shape{1, 4, 6, 1}));
    EXPECT_EQ(u.data<float>(), (std::vector<float>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2,
                                                   3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}));
    Tensor two = tensor({1, 10, 2, 20}, {1, 1, 2, 2});  // channels stay with their pixel
    EXPECT_EQ(layers::upSampling2d()->apply(two).data<float>(),
              (std::vector<float>{1, 10, 1, 10, 2, 20, 2, 20, 1, 10, 1, 10, 2, 20, 2, 20}));
  });
  EXPECT_EQ(symbolicShape(layers::upSampling2d({{"size", 3}}), {-1, 4, 2}), (Shape{-1, -1, 12, 2}));
  EXPECT_EQ(symbolicShape(layers::zeroPadding2d({{"padding", {{1, 2}, {3, 4}}}}), {5, -1, 2}),
            (Shape{-1, 8, -1, 2}));
}

TEST(LayersConv, PoolingGradients) {
  // Inputs spread over [-4, 4] keep max windows away from ties.
  checkLayer({"max_pool_same",
              [] {
                return layers::maxPooling2d({{"padding", "same"}});
              },
              {{1, 3, 3, 2}},
              {},
              5,
              false,
              1e-2,
              1e-3,
              -4.0f,
              4.0f});
  checkLayer({"avg_pool_strided",
              [] {
                return layers::averagePooling2d({{"poolSize", 2}, {"strides", 1}});
              },
              {{1, 3, 3, 1}}});
  checkLayer({"global_avg", [] { return layers::globalAveragePooling2d(); }, {{2, 2, 2, 2}}});
  checkLayer({"global_max",
              [] { return layers::globalMaxPooling2d(); },
              {{2, 2, 2, 1}},
              {},
              5,
              false,
              1e-2,
              1e-3,
              -4.0f,
              4.0f});
  checkLayer({"zero_padding",
              [] {
                return layers::zeroPadding2d({{"padding", {{0, 1}, {2, 0}}}});
              },
              {{1, 2, 2, 1}}});
  checkLayer({"up_sampling",
              [] {
                return layers::upSampling2d({{"size", {2, 1}}});
              },
              {{1, 2, 2, 2}}});
}

// ---- Configs -------------------------------------------------------------

TEST(LayersConv, ConfigsAreTheKerasFormTfjsWrites) {
  using V = std::vector<std::string>;
  LayerPtr conv = layers::conv2d(
      {{"filters", 4}, {"kernelSize", 3}, {"inputShape", {5, 5, 2}}, {"name", "c1"}});
  Json c = conv->getConfig();
  EXPECT_EQ(keys(c),
            (V{"filters", "kernel_initializer", "kernel_regularizer", "kernel_constraint",
               "kernel_size", "strides", "padding", "data_format", "dilation_rate", "activation",
               "use_bias", "bias_initializer", "bias_regularizer", "activity_regularizer",
               "bias_constraint", "name", "trainable", "batch_input_shape", "dtype"}));
  EXPECT_EQ(c["kernel_size"], Json::parse("[3,3]"));
  EXPECT_EQ(c["strides"], Json::parse("[1,1]"));
  EXPECT_EQ(c["dilation_rate"], Json::parse("[1,1]"));
  EXPECT_EQ(c["padding"], "valid");
  EXPECT_EQ(c["data_format"], "channels_last");
  EXPECT_EQ(c["activation"], "linear");
  // TF.js's conv default is glorotNormal, which it writes as VarianceScaling.
  EXPECT_EQ(c["kernel_initializer"]["class_name"], "VarianceScaling");
  EXPECT_EQ(c["kernel_initializer"]["config"]["distribution"], "normal");
  EXPECT_EQ(c["kernel_initializer"]["config"]["mode"], "fan_avg");
  EXPECT_EQ(c["bias_initializer"]["class_name"], "Zeros");
  EXPECT_EQ(c["kernel_regularizer"], nullptr);
  EXPECT_EQ(c["batch_input_shape"], Json::parse("[null,5,5,2]"));

  EXPECT_EQ(keys(layers::conv2dTranspose({{"filters", 1}, {"kernelSize", 2}})->getConfig()),
            (V{"filters", "kernel_initializer", "kernel_regularizer", "kernel_constraint",
               "kernel_size", "strides", "padding", "data_format", "activation", "use_bias",
               "bias_initializer", "bias_regularizer", "activity_regularizer", "bias_constraint",
               "name", "trainable", "dtype"}));
  Json dw = layers::depthwiseConv2d({{"kernelSize", 2}})->getConfig();
  EXPECT_EQ(keys(dw),
            (V{"kernel_size", "strides", "padding", "data_format", "dilation_rate", "activation",
               "use_bias", "bias_initializer", "bias_regularizer", "activity_regularizer",
               "bias_constraint", "name", "trainable", "dtype", "depth_multiplier",
               "depthwise_initializer", "depthwise_regularizer", "depthwise_constraint"}));
  EXPECT_EQ(dw["depth_multiplier"], 1);
  Json sep = layers::separableConv2d({{"filters", 2}, {"kernelSize", 2}})->getConfig();
  EXPECT_EQ(keys(sep), (V{"filters",
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
                          "dtype",
                          "depthwise_initializer",
                          "pointwise_initializer",
                          "depthwise_regularizer",
                          "pointwise_regularizer",
                          "depthwise_constraint",
                          "pointwise_constraint",
                          "depth_multiplier"}));
  EXPECT_EQ(sep["depthwise_initializer"]["class_name"], "VarianceScaling");
  EXPECT_EQ(sep["depthwise_initializer"]["config"]["distribution"], "uniform");
  Json mp = layers::maxPooling2d({{"poolSize", 3}})->getConfig();
  EXPECT_EQ(keys(mp),
            (V{"pool_size", "padding", "strides", "data_format", "name", "trainable", "dtype"}));
  EXPECT_EQ(mp["pool_size"], Json::parse("[3,3]"));
  EXPECT_EQ(mp["strides"], Json::parse("[3,3]"));
  EXPECT_EQ(keys(layers::globalAveragePooling2d()->getConfig()),
            (V{"data_format", "name", "trainable", "dtype"}));
  Json zp = layers::zeroPadding2d({{"padding", 2}})->getConfig();
  EXPECT_EQ(keys(zp), (V{"padding", "data_format", "name", "trainable", "dtype"}));
  EXPECT_EQ(zp["padding"], Json::parse("[[2,2],[2,2]]"));
  Json up = layers::upSampling2d()->getConfig();
  EXPECT_EQ(keys(up), (V{"size", "data_format", "interpolation", "name", "trainable", "dtype"}));
  EXPECT_EQ(up["size"], Json::parse("[2,2]"));
  EXPECT_EQ(up["interpolation"], "nearest");
  // Default names follow TF.js (snake_case class name).
  EXPECT_EQ(layers::conv2dTranspose({{"filters", 1}, {"kernelSize", 2}})
                ->name()
                .rfind("conv2d_transpose", 0),
            0u);
  EXPECT_EQ(layers::globalAveragePooling2d()->name().rfind("global_average_pooling2d", 0), 0u);
}

TEST(LayersConv, ConfigRoundTripsThroughTheRegistry) {
  Tensor x = waveTensor({2, 5, 6, 2}, 0.8f);
  expectRoundTrip(
      layers::conv2d({{"filters", 3},
                      {"kernelSize", {3, 2}},
                      {"strides", 2},
                      {"padding", "same"},
                      {"activation", "relu"},
                      {"kernelRegularizer",
                       {{"className", "L1L2"}, {"config", {{"l1", 0.0}, {"l2", 0.01}}}}}}),
      x);
  expectRoundTrip(
      layers::conv2d({{"filters", 2}, {"kernelSize", 2}, {"dilationRate", 2}, {"useBias", false}}),
      x);
  expectRoundTrip(
      layers::depthwiseConv2d({{"kernelSize", 3}, {"depthMultiplier", 2}, {"activation", "tanh"}}),
      x);
  expectRoundTrip(
      layers::separableConv2d({{"filters", 3}, {"kernelSize", 2}, {"depthMultiplier", 3}}), x);
  expectRoundTrip(layers::conv2dTranspose(
                      {{"filters", 2}, {"kernelSize", 3}, {"strides", 2}, {"padding", "same"}}),
                  x);
  expectRoundTrip(layers::maxPooling2d({{"poolSize", {2, 3}}, {"strides", 1}}), x);
  expectRoundTrip(layers::averagePooling2d({{"padding", "same"}}), x);
  expectRoundTrip(layers::globalAveragePooling2d(), x);
  expectRoundTrip(layers::globalMaxPooling2d(), x);
  expectRoundTrip(layers::zeroPadding2d({{"padding", {{1, 0}, {2, 3}}}}), x);
  expectRoundTrip(layers::upSampling2d({{"size", {1, 2}}}), x);
  // A Keras (snake_case) config as a model.json holds it.
  Json keras =
      Json::parse(R"({"filters": 2, "kernel_size": [2, 2], "strides": [1, 1], "padding": "valid",
      "data_format": "channels_last", "dilation_rate": [1, 1], "activation": "relu", "use_bias": true,
      "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}},
      "bias_initializer": {"class_name": "Zeros", "config": {}}, "kernel_regularizer": null,
      "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null,
      "bias_constraint": null, "name": "conv2d_from_keras", "trainable": true, "dtype": "float32"})");
  keras["groups"] = 1;  // Keras (Python) writes it
  LayerPtr k = layers::fromConfig("Conv2D", keras);
  EXPECT_EQ(k->name(), "conv2d_from_keras");
  EXPECT_EQ(k->apply(x).shape(), (Shape{2, 4, 5, 2}));
  LayerPtr kt =
      layers::fromConfig("Conv2DTranspose", Json::parse(R"({"filters": 1, "kernel_size": [2, 2],
      "strides": [3, 3], "output_padding": null, "dilation_rate": [1, 1], "groups": 1})"));
  EXPECT_EQ(kt->apply(x).shape(), (Shape{2, 15, 18, 1}));
  LayerPtr gk = layers::fromConfig("GlobalAveragePooling2D", Json::parse(R"({"keepdims": true})"));
  Tensor g = gk->apply(x);
  EXPECT_EQ(g.shape(), (Shape{2, 1, 1, 2}));
  EXPECT_EQ(gk->getConfig()["keepdims"], true);
  expectRoundTrip(gk, x);
}

// ---- Errors and memory --------------------------------------------------

TEST(LayersConv, ErrorsNameTheLayerAndTheProblem) {
  expectError(
      [] {
        layers::conv2d({{"filters", 2}, {"kernelSize", 3}, {"dataFormat", "channelsFirst"}});
      },
      {"Conv2D", "data_format", "channelsFirst", "not supported"});
  expectError(
      [] {
        layers::maxPooling2d({{"dataFormat", "channels_first"}});
      },
      {"MaxPooling2D", "data_format"});
  expectError([] { layers::conv2d({{"filters", 2}}); }, {"Conv2D", "kernel_size", "required"});
  expectError([] { layers::conv2d({{"kernelSize", 2}}); }, {"Conv2D", "filters", "required"});
  expectError([] { layers::conv2d({{"filters", 0}, {"kernelSize", 2}}); }, {"filters", "positive"});
  expectError([] { layers::conv2d({{"filters", 1}, {"kernelSize", {2, 2, 2}}}); }, {"kernel_size"});
  expectError(
      [] {
        layers::conv2d({{"filters", 1}, {"kernelSize", 2}, {"padding", "causal"}});
      },
      {"padding", "causal", "valid"});
  expectError(
      [] {
        layers::conv2d({{"filters", 1}, {"kernelSize", 2}, {"strides", 2}, {"dilationRate", 2}});
      },
      {"dilation_rate", "strides"});
  expectError(
      [] {
        layers::conv2d({{"filters", 1}, {"kernelSize", 2}, {"kernelSizes", 2}});
      },
      {"Conv2D", "'kernel_sizes'", "not an argument"});
  expectError(
      [] {
        layers::separableConv2d(
            {{"filters", 1}, {"kernelSize", 2}, {"kernelInitializer", "zeros"}});
      },
      {"SeparableConv2D", "kernel_initializer", "depthwise"});
  expectError(
      [] {
        layers::conv2d({{"filters", 2}, {"kernelSize", 2}, {"groups", 2}});
      },
      {"Conv2D", "groups"});
  expectError(
      [] {
        layers::conv2dTranspose({{"filters", 1}, {"kernelSize", 2}, {"outputPadding", {1, 1}}});
      },
      {"Conv2DTranspose", "output_padding", "not supported"});
  expectError(
      [] {
        layers::conv2dTranspose({{"filters", 1}, {"kernelSize", 2}, {"dilationRate", 2}});
      },
      {"Conv2DTranspose", "dilation_rate"});
  expectError(
      [] {
        layers::upSampling2d({{"interpolation", "bilinear"}});
      },
      {"UpSampling2D", "bilinear", "not supported"});
  expectError(
      [] {
        layers::zeroPadding2d({{"padding", {{1, -1}, {0, 0}}}});
      },
      {"ZeroPadding2D", "padding", "non-negative"});
  expectError(
      [] {
        layers::maxPooling2d({{"poolSize", 0}});
      },
      {"MaxPooling2D", "pool_size", "positive"});

  // Wrong rank, channel mismatch after build, window larger than the input.
  expectError(
      [] {
        layers::conv2d({{"filters", 1}, {"kernelSize", 2}})->apply(ones({2, 4, 4}));
      },
      {"Conv2D", "rank 4", "[-1,4,4]"});
  expectError(
      [] {
        layers::maxPooling2d()->apply(input({{"shape", {4, 4}}}));
      },
      {"MaxPooling2D", "rank 4", "[-1,4,4]"});
  expectError(
      [] {
        layers::globalAveragePooling2d()->apply(ones({2, 3}));
      },
      {"GlobalAveragePooling2D", "rank 4"});
  LayerPtr c = layers::conv2d({{"filters", 1}, {"kernelSize", 2}});
  c->apply(ones({1, 3, 3, 2}));
  expectError([&] { c->apply(ones({1, 3, 3, 3})); }, {"Conv2D", "2 channels", "[1,3,3,3]"});
  expectError(
      [&] {
        c->apply(input({{"shape", {3, 3, 1}}}));
      },
      {"Conv2D", "2 channels", "[-1,3,3,1]"});
  expectError(
      [] {
        layers::conv2d({{"filters", 1}, {"kernelSize", 4}})->apply(ones({1, 3, 5, 1}));
      },
      {"Conv2D", "does not fit", "[-1,3,5,1]"});
  expectError(
      [] {
        layers::maxPooling2d({{"poolSize", 3}})->apply(ones({1, 2, 2, 1}));
      },
      {"MaxPooling2D", "does not fit", "[-1,2,2,1]"});
  expectError(
      [] {
        layers::depthwiseConv2d({{"kernelSize", 2}})->apply(input({{"shape", {4, 4, -1}}}));
      },
      {"DepthwiseConv2D", "channel", "known"});
}

TEST(LayersConv, RepeatedCallsLeaveNoTensorsBehind) {
  LayerPtr conv = layers::conv2d({{"filters", 2}, {"kernelSize", 2}, {"activation", "relu"}});
  LayerPtr pool = layers::maxPooling2d();
  LayerPtr up = layers::upSampling2d();
  Tensor x = waveTensor({1, 5, 5, 1}, 0.0f);
  up->apply(pool->apply(conv->apply(x)));
  int64_t before = memory().numTensors;
  for (int i = 0; i < 20; ++i) {
    Tensor y = up->apply(pool->apply(conv->apply(x)));
    (void)y;
  }
  EXPECT_EQ(memory().numTensors, before);
}

}  // namespace
}  // namespace glint::testing
