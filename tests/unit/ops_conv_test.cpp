// Convolution and pooling: the op table (values on every backend, gradients
// against finite differences), hand-computed values and error messages.
#include <numeric>

#include "op_harness.h"

namespace glint::testing {
namespace {

using V = std::vector<Tensor>;

/// Distinct values 0.05 apart, shuffled: no ties for max pooling, and far
/// apart compared with the finite-difference step.
InputSpec Distinct(Shape shape, uint32_t seed) {
  int64_t n = shapeSize(shape);
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = (i * 7919 + seed) % n;  // 7919 is prime: a permutation unless n divides it
    v[static_cast<size_t>(i)] = 0.05f * static_cast<float>(k - n / 2);
  }
  return Fixed(std::move(shape), std::move(v));
}

/// Multiples of 1/4 in [-2, 2]: products and their sums stay exact in float,
/// so a float GEMM must match the reference's double sums whatever its order.
InputSpec Quarters(Shape shape, uint32_t seed) {
  int64_t n = shapeSize(shape);
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = 0.25f * static_cast<float>((i * 37 + seed * 11 + i / 7) % 17 - 8);
  return Fixed(std::move(shape), std::move(v));
}

/// A gradient of conv2d, computed inside the case so the table compares the
/// backprop kernels of every backend with the reference ones.
OpCase convGradCase(std::string name, Shape x, Shape f, Shape y, Pair strides, Padding padding,
                    Pair dilations, int which) {
  return {std::move(name),
          {Quarters(x, 1), Quarters(f, 2), Quarters(y, 3)},
          [=](const V& v) {
            auto fn = [&](const V& d) { return conv2d(d[0], d[1], strides, padding, dilations); };
            return grads(fn, {v[0], v[1]}, v[2])[which];
          },
          false};
}

std::vector<OpCase> convCases() {
  const Padding valid = Padding::valid, same = Padding::same;
  auto conv = [](Pair s, Padding p, Pair d = {1, 1}) {
    return [=](const V& v) { return conv2d(v[0], v[1], s, p, d); };
  };
  return {
      {"conv_1x1", {F({1, 3, 3, 2}), F({1, 1, 2, 3})}, conv({1, 1}, valid)},
      {"conv_3x3_valid_batch2", {F({2, 5, 4, 2}), F({3, 3, 2, 2})}, conv({1, 1}, valid)},
      {"conv_3x3_same", {F({1, 4, 4, 2}), F({3, 3, 2, 2})}, conv({1, 1}, same)},
      {"conv_odd_same_stride2", {F({1, 5, 7, 2}), F({3, 2, 2, 3})}, conv({2, 2}, same)},
      {"conv_even_filter_same_stride12", {F({2, 4, 5, 1}), F({2, 3, 1, 2})}, conv({1, 2}, same)},
      {"conv_valid_stride3", {F({1, 7, 7, 1}), F({2, 2, 1, 1})}, conv({3, 3}, valid)},
      {"conv_filter_fills_input", {F({1, 3, 3, 2}), F({3, 3, 2, 1})}, conv({1, 1}, valid)},
      {"conv_dilated_valid", {F({1, 6, 6, 2}), F({2, 2, 2, 2})}, conv({1, 1}, valid, {2, 2})},
      {"conv_dilated_same_21", {F({1, 5, 4, 1}), F({3, 2, 1, 2})}, conv({1, 1}, same, {2, 1})},
      {"conv_empty_batch", {F({0, 4, 4, 2}), F({3, 3, 2, 2})}, conv({1, 1}, same)},
      {"conv_zero_channels", {F({1, 3, 3, 0}), F({2, 2, 0, 2})}, conv({1, 1}, valid)},
      // Random values: float GEMM sums vs the reference's double sums.
      {"conv_large_s2_same",
       {F({2, 13, 11, 5}), F({3, 3, 5, 7})},
       conv({2, 2}, same),
       false,
       1e-2,
       1e-3,
       1e-4},
      {"conv_large_exact",
       {Quarters({2, 13, 11, 5}, 4), Quarters({3, 3, 5, 7}, 5)},
       conv({2, 2}, same),
       false},
      convGradCase("conv_large_dx", {2, 13, 11, 5}, {3, 3, 5, 7}, {2, 7, 6, 7}, {2, 2}, same,
                   {1, 1}, 0),
      convGradCase("conv_large_dfilter", {2, 13, 11, 5}, {3, 3, 5, 7}, {2, 7, 6, 7}, {2, 2}, same,
                   {1, 1}, 1),
      convGradCase("conv_dilated_dx", {1, 9, 8, 3}, {3, 2, 3, 4}, {1, 5, 5, 4}, {1, 1}, valid,
                   {2, 3}, 0),
      convGradCase("conv_dilated_dfilter", {1, 9, 8, 3}, {3, 2, 3, 4}, {1, 9, 8, 4}, {1, 1}, same,
                   {2, 3}, 1),
      // Big enough for the cpu kernels to spread blocks of images over threads.
      {"conv_threaded_exact",
       {Quarters({8, 28, 28, 4}, 6), Quarters({3, 3, 4, 16}, 7)},
       conv({1, 1}, valid),
       false},
      convGradCase("conv_threaded_dx", {8, 28, 28, 4}, {3, 3, 4, 16}, {8, 26, 26, 16}, {1, 1},
                   valid, {1, 1}, 0),
      convGradCase("conv_threaded_dfilter", {8, 28, 28, 4}, {3, 3, 4, 16}, {8, 28, 28, 16}, {1, 1},
                   same, {1, 1}, 1),
      // Output channels a multiple of the vector width: the cpu backend's
      // direct kernels, with edges (same), strides and dilations; dx with
      // stride 1 runs the direct forward kernel with the filter turned.
      {"conv_direct_same",
       {Quarters({2, 9, 30, 3}, 8), Quarters({3, 3, 3, 8}, 9)},
       conv({1, 1}, same),
       false},
      {"conv_direct_s2_c24",
       {Quarters({2, 9, 9, 2}, 10), Quarters({3, 3, 2, 24}, 11)},
       conv({2, 2}, same),
       false},
      {"conv_direct_dilated_c32",
       {Quarters({1, 9, 8, 5}, 12), Quarters({3, 2, 5, 32}, 13)},
       conv({1, 1}, valid, {2, 3}),
       false},
      convGradCase("conv_direct_dx_same", {2, 9, 10, 8}, {3, 3, 8, 16}, {2, 9, 10, 16}, {1, 1},
                   same, {1, 1}, 0),
      convGradCase("conv_direct_dx_dilated", {1, 9, 8, 8}, {3, 2, 8, 8}, {1, 5, 5, 8}, {1, 1},
                   valid, {2, 3}, 0),
      convGradCase("conv_direct_dx_cnn", {4, 13, 13, 8}, {3, 3, 8, 16}, {4, 11, 11, 16}, {1, 1},
                   valid, {1, 1}, 0),
      convGradCase("conv_direct_dfilter_same", {2, 9, 10, 3}, {3, 3, 3, 16}, {2, 9, 10, 16}, {1, 1},
                   same, {1, 1}, 1),
      convGradCase("conv_direct_dfilter_s2", {3, 9, 9, 2}, {3, 3, 2, 8}, {3, 5, 5, 8}, {2, 2}, same,
                   {1, 1}, 1),
      // Whole texels of channels on both sides, strided with same padding:
      // the gl backend's texel kernels, and (over a million multiply-adds)
      // its row blocks, with a ragged last block.
      {"conv_texel_s2_same",
       {Quarters({2, 9, 10, 8}, 14), Quarters({3, 3, 8, 12}, 15)},
       conv({2, 2}, same),
       false},
      convGradCase("conv_texel_dx_s2", {2, 9, 10, 8}, {3, 3, 8, 12}, {2, 5, 5, 12}, {2, 2}, same,
                   {1, 1}, 0),
      {"conv_blocked_s2_same",
       {Quarters({9, 19, 20, 8}, 18), Quarters({3, 3, 8, 24}, 19)},
       conv({2, 2}, same),
       false},
      convGradCase("conv_blocked_dx_s2", {9, 18, 20, 8}, {3, 3, 8, 12}, {9, 9, 10, 12}, {2, 2},
                   same, {1, 1}, 0),
      convGradCase("conv_blocked_dx_dilated", {4, 20, 19, 8}, {3, 2, 8, 16}, {4, 16, 16, 16},
                   {1, 1}, valid, {2, 3}, 0),
      // Fewer output rows than the gl backend's row blocks: its texel kernels.
      {"conv_texel_few_rows",
       {Quarters({1, 3, 3, 4}, 16), Quarters({2, 2, 4, 8}, 17)},
       conv({1, 1}, valid),
       false},
      convGradCase("conv_texel_dx_few_rows", {1, 2, 3, 4}, {2, 2, 4, 8}, {1, 1, 2, 8}, {1, 1},
                   valid, {1, 1}, 0),
      // The filter gradient in blocks of 8 channels: strided, and a sum long
      // enough to be split.
      convGradCase("conv_blocked_dfilter_s2", {16, 18, 20, 8}, {3, 3, 8, 12}, {16, 9, 10, 12},
                   {2, 2}, same, {1, 1}, 1),
      convGradCase("conv_blocked_dfilter_cnn", {8, 13, 13, 8}, {3, 3, 8, 16}, {8, 11, 11, 16},
                   {1, 1}, valid, {1, 1}, 1),
      convGradCase("conv_direct_dfilter_cnn", {8, 28, 28, 1}, {3, 3, 1, 8}, {8, 26, 26, 8}, {1, 1},
                   valid, {1, 1}, 1),
  };
}

std::vector<OpCase> depthwiseCases() {
  const Padding valid = Padding::valid, same = Padding::same;
  auto dw = [](Pair s, Padding p, Pair d = {1, 1}) {
    return [=](const V& v) { return depthwiseConv2d(v[0], v[1], s, p, d); };
  };
  return {
      {"dw_valid", {F({1, 4, 4, 2}), F({3, 3, 2, 1})}, dw({1, 1}, valid)},
      {"dw_mult2_same_stride2_batch2", {F({2, 5, 5, 2}), F({3, 3, 2, 2})}, dw({2, 2}, same)},
      {"dw_1x1_mult2", {F({1, 2, 3, 3}), F({1, 1, 3, 2})}, dw({1, 1}, valid)},
      {"dw_dilated_same", {F({1, 6, 5, 3}), F({2, 2, 3, 2})}, dw({1, 1}, same, {2, 2})},
      {"dw_nonsquare_stride", {F({1, 5, 6, 1}), F({2, 3, 1, 2})}, dw({2, 1}, valid)},
      {"dw_empty_batch", {F({0, 3, 3, 2}), F({2, 2, 2, 2})}, dw({1, 1}, same)},
  };
}

std::vector<OpCase> transposeCases() {
  const Padding valid = Padding::valid, same = Padding::same;
  auto tr = [](Shape out, Pair s, Padding p) {
    return [=](const V& v) { return conv2dTranspose(v[0], v[1], out, s, p); };
  };
  return {
      {"tr_valid", {F({1, 3, 3, 2}), F({2, 2, 3, 2})}, tr({1, 4, 4, 3}, {1, 1}, valid)},
      {"tr_same_stride2_batch2",
       {F({2, 3, 3, 2}), F({3, 3, 1, 2})},
       tr({2, 6, 6, 1}, {2, 2}, same)},
      {"tr_same_stride2_odd", {F({1, 3, 3, 1}), F({3, 3, 2, 1})}, tr({1, 5, 5, 2}, {2, 2}, same)},
      {"tr_valid_stride2_nonsquare",
       {F({1, 3, 2, 2}), F({3, 3, 1, 2})},
       tr({1, 7, 5, 1}, {2, 2}, valid)},
      {"tr_1x1", {F({1, 2, 2, 3}), F({1, 1, 2, 3})}, tr({1, 2, 2, 2}, {1, 1}, same)},
      {"tr_empty_batch", {F({0, 2, 2, 1}), F({2, 2, 1, 1})}, tr({0, 3, 3, 1}, {1, 1}, valid)},
  };
}

std::vector<OpCase> poolCases() {
  const Padding valid = Padding::valid, same = Padding::same;
  auto mp = [](Pair f, Pair s, Padding p) {
    return [=](const V& v) { return maxPool(v[0], f, s, p); };
  };
  auto ap = [](Pair f, Pair s, Padding p) {
    return [=](const V& v) { return avgPool(v[0], f, s, p); };
  };
  // The pooled values and, from weights v[1], the backward kernel's result.
  auto mpGrad = [](Pair f, Pair s, Padding p) {
    return [=](const V& v) {
      Tensor w = v[1];
      auto pool = [&](const Tensor& t) { return maxPool(t, f, s, p); };
      Tensor g = grad([&](const Tensor& t) { return sum(mul(pool(t), w)); }, v[0]);
      return concat({reshape(pool(v[0]), {-1}), reshape(g, {-1})}, 0);
    };
  };
  return {
      {"max_2x2_s2", {Distinct({1, 4, 4, 2}, 3)}, mp({2, 2}, {2, 2}, valid)},
      {"max_3x3_s2_same_odd_batch2", {Distinct({2, 5, 5, 1}, 5)}, mp({3, 3}, {2, 2}, same)},
      {"max_nonsquare", {Distinct({1, 5, 6, 2}, 11)}, mp({2, 3}, {1, 2}, valid)},
      {"max_2x2_s1_same", {Distinct({1, 3, 4, 2}, 13)}, mp({2, 2}, {1, 1}, same)},
      {"max_1x1_s2", {Distinct({1, 3, 3, 1}, 1)}, mp({1, 1}, {2, 2}, same)},
      {"max_empty_batch", {F({0, 4, 4, 2})}, mp({2, 2}, {2, 2}, valid)},
      {"avg_2x2_s2", {F({1, 4, 4, 2})}, ap({2, 2}, {2, 2}, valid)},
      {"avg_3x3_s2_same_odd_batch2", {F({2, 5, 5, 1})}, ap({3, 3}, {2, 2}, same)},
      {"avg_nonsquare_same", {F({1, 5, 6, 2})}, ap({2, 3}, {1, 2}, same)},
      {"avg_3x3_s1_same", {F({1, 3, 4, 2})}, ap({3, 3}, {1, 1}, same)},
      {"avg_empty_batch", {F({0, 4, 4, 2})}, ap({2, 2}, {1, 1}, same)},
      // Big enough for the cpu kernels to split batches over threads: the
      // forward values and (as the case's value) the backward kernel's
      // result, against reference; too big for finite differences.
      {"max_threaded_with_grad",
       {Distinct({8, 32, 32, 16}, 7), F({8, 16, 16, 16})},
       mpGrad({2, 2}, {2, 2}, valid),
       false},
      // Channels a multiple of the vector width, with a scalar rest; windows
      // that overlap (stride 1) and leave edges (same padding).
      {"max_vector_channels_with_grad",
       {Distinct({2, 9, 8, 11}, 17), F({2, 9, 8, 11})},
       mpGrad({3, 2}, {1, 1}, same),
       false},
      // Windows that tile the input (stride >= window, valid): the cpu
      // backend's tiled path, with rows and columns no window reaches.
      {"max_tiled_odd_with_grad",
       {Distinct({2, 7, 9, 8}, 19), F({2, 3, 4, 8})},
       mpGrad({2, 2}, {2, 2}, valid),
       false},
      {"max_tiled_gaps_with_grad",
       {Distinct({1, 8, 11, 4}, 23), F({1, 3, 3, 4})},
       mpGrad({2, 3}, {3, 4}, valid),
       false},
      // A published model's MaxPooling2D: 'same', pool 2, stride 2, odd
      // height and width, channels a multiple of every vector width. The last
      // window hangs past the bottom/right edge; the cpu tiled path read (and
      // its gradient wrote) outside x there: 1.8e25 where TF.js gives 0.84.
      {"max_same_odd_s2_vector_channels_with_grad",
       {Distinct({2, 5, 7, 16}, 31), F({2, 3, 4, 16})},
       mpGrad({2, 2}, {2, 2}, same),
       false},
      {"max_same_odd_s2_c4", {Distinct({1, 3, 3, 4}, 37)}, mp({2, 2}, {2, 2}, same)},
      {"max_same_odd_s3_c32", {Distinct({1, 7, 8, 32}, 41)}, mp({3, 3}, {3, 3}, same)},
      // Ties (values in quarters) under overlapping windows, channels in
      // whole texels: the first maximum in window order takes the gradient.
      {"max_texel_ties_with_grad",
       {Quarters({2, 5, 6, 4}, 29), F({2, 5, 6, 4})},
       mpGrad({3, 3}, {1, 1}, same),
       false},
      {"avg_threaded_with_grad",
       {F({8, 32, 32, 16}), F({8, 16, 16, 16})},
       [](const V& v) {
         Tensor w = v[1];
         Tensor g = grad(
             [&](const Tensor& t) {
               return sum(mul(avgPool(t, {3, 3}, {2, 2}, Padding::same), w));
             },
             v[0]);
         return concat(
             {reshape(avgPool(v[0], {3, 3}, {2, 2}, Padding::same), {-1}), reshape(g, {-1})}, 0);
       },
       false},
  };
}

GLINT_OP_CASES(Conv, convCases());
GLINT_OP_CASES(Depthwise, depthwiseCases());
GLINT_OP_CASES(ConvTranspose, transposeCases());
GLINT_OP_CASES(Pool, poolCases());

std::vector<float> seq(int n, float start = 1) {
  std::vector<float> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(ConvValues, HandComputed) {
  onEveryBackend([] {
    Tensor x = tensor(seq(9), {1, 3, 3, 1});
    Tensor ones4 = ones({2, 2, 1, 1});
    EXPECT_EQ(conv2d(x, ones4).toFloats(), (std::vector<float>{12, 16, 24, 28}));
    // SAME, stride 2: pad_total 1 goes after (bottom/right), like TF.js.
    Tensor y = conv2d(x, ones4, {2, 2}, Padding::same);
    EXPECT_EQ(y.shape(), (Shape{1, 2, 2, 1}));
    EXPECT_EQ(y.toFloats(), (std::vector<float>{12, 9, 15, 9}));
    // Dilation 2 on 3x3 with a 2x2 filter: the four corners.
    EXPECT_EQ(conv2d(x, ones4, {1, 1}, Padding::valid, {2, 2}).toFloats(),
              (std::vector<float>{20}));
    // Transpose scatters each x element over the filter window.
    Tensor t = conv2dTranspose(tensor(seq(4), {1, 2, 2, 1}), ones4, {1, 3, 3, 1});
    EXPECT_EQ(t.toFloats(), (std::vector<float>{1, 3, 2, 4, 10, 6, 3, 7, 4}));
    // Depthwise, multiplier 2: channel 0 times (1, -1), channel 1 times (0.5, 2).
    Tensor dx = tensor({1, 10, 2, 20, 3, 30, 4, 40}, {1, 2, 2, 2});
    std::vector<float> fv(16);
    for (size_t i = 0; i < fv.size(); ++i) fv[i] = std::vector<float>{1, -1, 0.5f, 2}[i % 4];
    Tensor d = depthwiseConv2d(dx, tensor(fv, {2, 2, 2, 2}));
    EXPECT_EQ(d.shape(), (Shape{1, 1, 1, 4}));
    EXPECT_EQ(d.toFloats(), (std::vector<float>{10, -10, 50, 200}));
  });
}

TEST(PoolValues, HandComputed) {
  onEveryBackend([] {
    Tensor x = tensor(seq(9), {1, 3, 3, 1});
    // Averages count only in-bounds elements: the last column/row see fewer.
    EXPECT_EQ(avgPool(x, {2, 2}, {1, 1}, Padding::same).toFloats(),
              (std::vector<float>{3, 4, 4.5f, 6, 7, 7.5f, 7.5f, 8.5f, 9}));
    EXPECT_EQ(maxPool(x, {2, 2}, {2, 2}, Padding::same).toFloats(),
              (std::vector<float>{5, 6, 8, 9}));
    // Padding is never the maximum, even when every value is negative.
    Tensor neg = tensor({-5, -4, -3, -2}, {1, 2, 2, 1});
    EXPECT_EQ(maxPool(neg, {3, 3}, {1, 1}, Padding::same).toFloats(),
              (std::vector<float>{-2, -2, -2, -2}));
    // Tied maxima: the gradient goes to the first one only.
    Tensor tie = tensor({1, 3, 3, 2}, {1, 2, 2, 1});
    Tensor g = grad([](const Tensor& t) { return maxPool(t, {2, 2}, {2, 2}); }, tie);
    EXPECT_EQ(g.toFloats(), (std::vector<float>{0, 1, 0, 0}));
    Tensor ga = grad(
        [](const Tensor& t) {
          return avgPool(t, {2, 2}, {1, 1}, Padding::same);
        },
        tensor(seq(4), {1, 2, 2, 1}));
    // Window counts 4, 2, 2, 1; x[0,0] is in one window, x[1,1] in all four.
    EXPECT_EQ(ga.toFloats(), (std::vector<float>{0.25f, 0.75f, 0.75f, 2.25f}));
  });
}

TEST(OpErrors, ConvNamesTheShapes) {
  Tensor x = zeros({1, 4, 4, 3});
  expectError(
      [] {
        conv2d(zeros({4, 4, 3}), zeros({2, 2, 3, 1}));
      },
      {"[conv2d]", "x must be rank 4", "[4,4,3]"});
  expectError(
      [&] {
        conv2d(x, zeros({2, 2, 3}));
      },
      {"[conv2d]", "filter must be rank 4", "[2,2,3]"});
  expectError(
      [&] {
        conv2d(x, zeros({2, 2, 2, 1}));
      },
      {"[conv2d]", "x.shape[3] = 3", "filter.shape[2] (2)", "[1,4,4,3]", "[2,2,2,1]"});
  expectError(
      [&] {
        conv2d(x, zeros({5, 5, 3, 1}));
      },
      {"[conv2d]", "[5,5,3,1]", "[1,4,4,3]", "valid padding"});
  expectError(
      [&] {
        conv2d(x, zeros({2, 2, 3, 1}), {1, 1}, Padding::valid, {4, 4});
      },
      {"[conv2d]", "does not fit", "dilations [4,4]"});
  expectError(
      [&] {
        conv2d(x, zeros({2, 2, 3, 1}), {0, 1});
      },
      {"[conv2d]", "strides [0,1]", ">= 1"});
  expectError(
      [&] {
        conv2d(x, zeros({2, 2, 3, 1}), {1, 1}, Padding::same, {1, 0});
      },
      {"[conv2d]", "dilations [1,0]", ">= 1"});
  expectError(
      [&] {
        conv2d(x, zeros({2, 2, 3, 1}), {2, 2}, Padding::same, {2, 1});
      },
      {"[conv2d]", "strides [2,2]", "dilations [2,1]", "cannot both"});
  expectError(
      [&] {
        conv2d(zeros({1, 4, 4, 3}, DType::int32), zeros({2, 2, 3, 1}));
      },
      {"[conv2d]", "x", "float32", "int32"});
  expectError(
      [&] {
        conv2d(x, zeros({2, 2, 3, 1}, DType::int32));
      },
      {"[conv2d]", "filter", "float32", "int32"});
  expectError([&] { conv2d(x, zeros({0, 2, 3, 1})); }, {"[conv2d]", "filter height and width"});
  expectError(
      [&] {
        depthwiseConv2d(x, zeros({2, 2, 2, 2}));
      },
      {"[depthwiseConv2d]", "x.shape[3] = 3", "filter.shape[2] (2)"});
  expectError(
      [&] {
        depthwiseConv2d(x, zeros({3, 3, 3, 2}), {2, 2}, Padding::valid, {2, 2});
      },
      {"[depthwiseConv2d]", "cannot both"});
  expectError(
      [] {
        depthwiseConv2d(zeros({1, 2, 2, 1}), zeros({3, 1, 1, 1}));
      },
      {"[depthwiseConv2d]", "does not fit", "[1,2,2,1]"});
}

// A pooling window one larger than a 'valid' input fits nowhere: TF.js returns
// the empty tensor (its size ceil((in - window + 1) / stride) is 0), and its
// gradient reaches x as zeros. Larger still is an error naming the window.
TEST(OpsPool, WindowOneLargerThanTheInputGivesTheEmptyTensor) {
  Tensor x = tensor(std::vector<float>(24, 1.0f), {2, 3, 2, 2});
  EXPECT_EQ(maxPool(x, {1, 3}, {1, 1}, Padding::valid).shape(), (Shape{2, 3, 0, 2}));
  EXPECT_EQ(avgPool(x, {4, 2}, {2, 1}, Padding::valid).shape(), (Shape{2, 0, 1, 2}));
  EXPECT_EQ(maxPool(x, {1, 4}, {1, 3}, Padding::valid).shape(),
            (Shape{2, 3, 0, 2}));  // ceil(-1 / 3) = 0
  Tensor g = grad(
      [](const Tensor& t) {
        return sum(maxPool(t, {1, 3}, {1, 1}, Padding::valid));
      },
      x);
  EXPECT_EQ(g.shape(), x.shape());
  for (float v : g.data<float>()) EXPECT_EQ(v, 0.0f);
  expectError(
      [&] {
        maxPool(x, {1, 4}, {1, 1}, Padding::valid);
      },
      {"[maxPool]", "filterSize [1,4]", "does not fit"});
}

TEST(OpErrors, ConvTransposeChecksOutputShape) {
  Tensor x = zeros({1, 3, 3, 2});
  Tensor f = zeros({2, 2, 1, 2});
  expectError(
      [&] {
        conv2dTranspose(x, f, {1, 5, 5, 1});
      },
      {"[conv2dTranspose]", "outputShape [1,5,5,1]", "inconsistent", "[1,3,3,2]", "height 4"});
  expectError(
      [&] {
        conv2dTranspose(x, f, {1, 8, 8, 1}, {2, 2}, Padding::valid);
      },
      {"[conv2dTranspose]", "inconsistent", "strides [2,2]", "valid"});
  expectError(
      [&] {
        conv2dTranspose(x, f, {1, 4, 4, 3});
      },
      {"[conv2dTranspose]", "outputShape[3] (3)", "filter.shape[2] (1)"});
  expectError(
      [&] {
        conv2dTranspose(x, f, {2, 4, 4, 1});
      },
      {"[conv2dTranspose]", "outputShape[0] (2)", "batch of x (1)"});
  expectError(
      [&] {
        conv2dTranspose(x, zeros({2, 2, 1, 3}), {1, 4, 4, 1});
      },
      {"[conv2dTranspose]", "x.shape[3] = 2", "filter.shape[3] (3)"});
  expectError(
      [&] {
        conv2dTranspose(x, f, {4, 4, 1});
      },
      {"[conv2dTranspose]", "outputShape [4,4,1]", "4 entries"});
  expectError([&] { conv2dTranspose(x, f, {1, -4, 4, 1}); }, {"[conv2dTranspose]", "negative"});
  expectError(
      [&] {
        conv2dTranspose(x, f, {1, 4, 4, 1}, {0, 1});
      },
      {"[conv2dTranspose]", "strides [0,1]"});
  expectError(
      [&] {
        conv2dTranspose(zeros({1, 3, 3, 2}, DType::int32), f, {1, 4, 4, 1});
      },
      {"[conv2dTranspose]", "x", "float32", "int32"});
}

TEST(OpErrors, PoolNamesTheShapes) {
  Tensor x = zeros({1, 4, 4, 2});
  expectError(
      [] {
        maxPool(zeros({4, 4, 2}), {2, 2}, {2, 2});
      },
      {"[maxPool]", "rank 4", "[4,4,2]"});
  expectError([&] { maxPool(x, {0, 2}, {1, 1}); }, {"[maxPool]", "filterSize [0,2]", ">= 1"});
  // (A window one larger, [5,2], gives the empty tensor, as TF.js: OpsPool.)
  expectError(
      [&] {
        maxPool(x, {6, 2}, {1, 1});
      },
      {"[maxPool]", "filterSize [6,2]", "[1,4,4,2]", "valid padding"});
  expectError([&] { avgPool(x, {2, 2}, {1, -1}); }, {"[avgPool]", "strides [1,-1]", ">= 1"});
  expectError(
      [] {
        avgPool(zeros({1, 4, 4, 2}, DType::int32), {2, 2}, {1, 1});
      },
      {"[avgPool]", "x", "float32", "int32"});
}

}  // namespace
}  // namespace glint::testing
