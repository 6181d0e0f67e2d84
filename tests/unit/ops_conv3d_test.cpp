// conv3d, conv3dTranspose, maxPool3d, avgPool3d: values against direct loops
// in double, the op table (every backend against the reference, gradients
// against finite differences), and error messages.
#include <cmath>

#include "op_harness.h"

namespace glint::testing {
namespace {

using V = std::vector<Tensor>;

std::vector<float> values(int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = 0.8f * std::sin(0.37f * float(i) + float(seed));
  return v;
}

/// TF.js 4.22's 3-D window arithmetic (tfjs-core get3DPadAndOutInfo),
/// written out again: output length and the padding before the first
/// element. 'same' padding is not clamped at zero, so a stride larger than
/// the window gives a negative padding (windows start inside the input).
struct Window {
  int64_t out, padBefore;
};
Window window(int64_t in, int64_t k, int64_t s, int64_t d, bool same) {
  int64_t eff = (k - 1) * d + 1;
  if (!same) return {(in - eff) / s + 1, 0};
  int64_t out = (in + s - 1) / s;
  int64_t total = (out - 1) * s + eff - in;
  return {out, static_cast<int64_t>(std::floor(static_cast<double>(total) / 2))};
}

int64_t at5(const Shape& s, int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) {
  return (((a * s[1] + b) * s[2] + c) * s[3] + d) * s[4] + e;
}

/// Direct NDHWC convolution.
std::vector<double> refConv3d(const std::vector<float>& x, const Shape& xs,
                              const std::vector<float>& f, const Shape& fs, Triple st, bool same,
                              Triple dl, Shape* ys) {
  Window w[3];
  for (int i = 0; i < 3; ++i) w[i] = window(xs[1 + i], fs[i], st[i], dl[i], same);
  *ys = {xs[0], w[0].out, w[1].out, w[2].out, fs[4]};
  std::vector<double> y(static_cast<size_t>(shapeSize(*ys)), 0.0);
  for (int64_t n = 0; n < xs[0]; ++n)
    for (int64_t od = 0; od < w[0].out; ++od)
      for (int64_t oh = 0; oh < w[1].out; ++oh)
        for (int64_t ow = 0; ow < w[2].out; ++ow)
          for (int64_t o = 0; o < fs[4]; ++o) {
            double acc = 0;
            for (int64_t kd = 0; kd < fs[0]; ++kd)
              for (int64_t kh = 0; kh < fs[1]; ++kh)
                for (int64_t kw = 0; kw < fs[2]; ++kw) {
                  int64_t id = od * st[0] + kd * dl[0] - w[0].padBefore;
                  int64_t ih = oh * st[1] + kh * dl[1] - w[1].padBefore;
                  int64_t iw = ow * st[2] + kw * dl[2] - w[2].padBefore;
                  if (id < 0 || id >= xs[1] || ih < 0 || ih >= xs[2] || iw < 0 || iw >= xs[3])
                    continue;
                  for (int64_t c = 0; c < xs[4]; ++c)
                    acc += double(x[at5(xs, n, id, ih, iw, c)]) * f[at5(fs, kd, kh, kw, c, o)];
                }
            y[at5(*ys, n, od, oh, ow, o)] = acc;
          }
  return y;
}

/// Direct transposed convolution: every input element scattered through the
/// kernel onto the output it came from in the forward convolution.
std::vector<double> refConv3dTranspose(const std::vector<float>& x, const Shape& xs,
                                       const std::vector<float>& f, const Shape& fs,
                                       const Shape& ys, Triple st, bool same) {
  int64_t pad[3];
  for (int i = 0; i < 3; ++i) pad[i] = window(ys[1 + i], fs[i], st[i], 1, same).padBefore;
  std::vector<double> y(static_cast<size_t>(shapeSize(ys)), 0.0);
  for (int64_t n = 0; n < xs[0]; ++n)
    for (int64_t id = 0; id < xs[1]; ++id)
      for (int64_t ih = 0; ih < xs[2]; ++ih)
        for (int64_t iw = 0; iw < xs[3]; ++iw)
          for (int64_t kd = 0; kd < fs[0]; ++kd)
            for (int64_t kh = 0; kh < fs[1]; ++kh)
              for (int64_t kw = 0; kw < fs[2]; ++kw) {
                int64_t od = id * st[0] + kd - pad[0], oh = ih * st[1] + kh - pad[1],
                        ow = iw * st[2] + kw - pad[2];
                if (od < 0 || od >= ys[1] || oh < 0 || oh >= ys[2] || ow < 0 || ow >= ys[3])
                  continue;
                for (int64_t o = 0; o < fs[3]; ++o)
                  for (int64_t c = 0; c < xs[4]; ++c)
                    y[at5(ys, n, od, oh, ow, o)] +=
                        double(x[at5(xs, n, id, ih, iw, c)]) * f[at5(fs, kd, kh, kw, o, c)];
              }
  return y;
}

/// Direct pooling over the in-bounds part of each window.
std::vector<double> refPool3d(const std::vector<float>& x, const Shape& xs, Triple k, Triple st,
                              bool same, bool isMax, Shape* ys) {
  Window w[3];
  for (int i = 0; i < 3; ++i) w[i] = window(xs[1 + i], k[i], st[i], 1, same);
  *ys = {xs[0], w[0].out, w[1].out, w[2].out, xs[4]};
  std::vector<double> y(static_cast<size_t>(shapeSize(*ys)));
  for (int64_t n = 0; n < xs[0]; ++n)
    for (int64_t od = 0; od < w[0].out; ++od)
      for (int64_t oh = 0; oh < w[1].out; ++oh)
        for (int64_t ow = 0; ow < w[2].out; ++ow)
          for (int64_t c = 0; c < xs[4]; ++c) {
            double acc = isMax ? -INFINITY : 0.0;
            int count = 0;
            for (int64_t a = 0; a < k[0]; ++a)
              for (int64_t b = 0; b < k[1]; ++b)
                for (int64_t e = 0; e < k[2]; ++e) {
                  int64_t id = od * st[0] + a - w[0].padBefore,
                          ih = oh * st[1] + b - w[1].padBefore,
                          iw = ow * st[2] + e - w[2].padBefore;
                  if (id < 0 || id >= xs[1] || ih < 0 || ih >= xs[2] || iw < 0 || iw >= xs[3])
                    continue;
                  double v = x[at5(xs, n, id, ih, iw, c)];
                  acc = isMax ? std::max(acc, v) : acc + v;
                  ++count;
                }
            y[at5(*ys, n, od, oh, ow, c)] = isMax ? acc : acc / count;
          }
  return y;
}

void expectClose(const Tensor& got, const Shape& wantShape, const std::vector<double>& want) {
  ASSERT_EQ(got.shape(), wantShape);
  std::vector<float> g = got.toFloats();
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(g[i], want[i], 1e-4 * std::max(1.0, std::abs(want[i]))) << "element " << i;
}

TEST(Conv3dValues, MatchDirectLoops) {
  struct Case {
    Shape x, f;
    Triple strides;
    bool same;
    Triple dilations;
  };
  std::vector<Case> cases = {
      {{1, 3, 3, 3, 1}, {1, 1, 1, 1, 1}, {1, 1, 1}, false, {1, 1, 1}},
      {{2, 4, 5, 3, 2}, {2, 2, 2, 2, 3}, {1, 1, 1}, false, {1, 1, 1}},
      {{1, 5, 6, 7, 2}, {3, 2, 3, 2, 2}, {2, 1, 3}, true, {1, 1, 1}},
      {{1, 7, 5, 6, 1}, {3, 1, 2, 1, 2}, {2, 2, 2}, false, {1, 1, 1}},
      {{1, 6, 5, 5, 2}, {2, 2, 2, 2, 1}, {1, 1, 1}, false, {2, 1, 2}},
      {{1, 4, 3, 5, 1}, {2, 3, 2, 1, 2}, {1, 1, 1}, true, {3, 1, 2}},
      {{2, 4, 4, 4, 3}, {4, 1, 1, 3, 2}, {3, 1, 1}, true, {1, 1, 1}},
      // Strides beyond the window with 'same': TF.js's negative padding.
      {{1, 9, 7, 8, 2}, {2, 1, 2, 2, 2}, {3, 4, 5}, true, {1, 1, 1}},
  };
  onEveryBackend([&] {
    for (const Case& c : cases) {
      SCOPED_TRACE(shapeToString(c.x) + " * " + shapeToString(c.f));
      auto xv = values(shapeSize(c.x), 1), fv = values(shapeSize(c.f), 2);
      Shape ys;
      auto want = refConv3d(xv, c.x, fv, c.f, c.strides, c.same, c.dilations, &ys);
      Padding p = c.same ? Padding::same : Padding::valid;
      expectClose(conv3d(tensor(xv, c.x), tensor(fv, c.f), c.strides, p, c.dilations), ys, want);
    }
  });
}

TEST(Conv3dValues, TransposeMatchesDirectLoops) {
  struct Case {
    Shape x, f, y;
    Triple strides;
    bool same;
  };
  std::vector<Case> cases = {
      {{2, 2, 3, 2, 3}, {2, 2, 2, 2, 3}, {2, 3, 4, 3, 2}, {1, 1, 1}, false},
      {{1, 3, 2, 3, 2}, {3, 2, 3, 3, 2}, {1, 6, 4, 6, 3}, {2, 2, 2}, true},
      {{1, 3, 3, 2, 1}, {2, 3, 1, 2, 1}, {1, 8, 7, 2, 2}, {3, 2, 1}, false},
      // Valid padding with the largest output the forward conv maps back to x.
      {{1, 2, 2, 2, 1}, {2, 2, 2, 1, 1}, {1, 5, 4, 4, 1}, {3, 2, 2}, false},
      {{1, 3, 3, 3, 2}, {4, 3, 2, 1, 2}, {1, 3, 6, 9, 1}, {1, 2, 3}, true},
      {{1, 3, 2, 2, 1}, {2, 1, 2, 2, 1}, {1, 9, 8, 10, 2}, {3, 4, 5}, true},
  };
  onEveryBackend([&] {
    for (const Case& c : cases) {
      SCOPED_TRACE(shapeToString(c.x) + " -> " + shapeToString(c.y));
      auto xv = values(shapeSize(c.x), 3), fv = values(shapeSize(c.f), 4);
      auto want = refConv3dTranspose(xv, c.x, fv, c.f, c.y, c.strides, c.same);
      Padding p = c.same ? Padding::same : Padding::valid;
      expectClose(conv3dTranspose(tensor(xv, c.x), tensor(fv, c.f), c.y, c.strides, p), c.y, want);
    }
  });
}

TEST(Conv3dValues, PoolsMatchDirectLoops) {
  struct Case {
    Shape x;
    Triple k, strides;
    bool same;
  };
  std::vector<Case> cases = {
      {{2, 4, 5, 4, 2}, {2, 2, 2}, {2, 2, 2}, false},
      {{1, 5, 4, 7, 2}, {3, 2, 3}, {2, 1, 2}, true},
      {{1, 5, 5, 4, 2}, {3, 3, 3}, {2, 3, 1}, true},
      {{1, 3, 4, 5, 1}, {1, 3, 2}, {1, 1, 2}, false},
      {{1, 9, 7, 8, 2}, {2, 1, 2}, {3, 4, 5}, true},
  };
  onEveryBackend([&] {
    for (const Case& c : cases)
      for (bool isMax : {true, false}) {
        SCOPED_TRACE(shapeToString(c.x) + (isMax ? " max" : " avg") +
                     (c.same ? " same" : " valid"));
        auto xv = values(shapeSize(c.x), 5);
        Shape ys;
        auto want = refPool3d(xv, c.x, c.k, c.strides, c.same, isMax, &ys);
        Padding p = c.same ? Padding::same : Padding::valid;
        Tensor x = tensor(xv, c.x);
        expectClose(isMax ? maxPool3d(x, c.k, c.strides, p) : avgPool3d(x, c.k, c.strides, p), ys,
                    want);
      }
  });
}

/// Distinct values 0.05 apart, shuffled: no ties for max pooling.
InputSpec Distinct(Shape shape, uint32_t seed) {
  int64_t n = shapeSize(shape);
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = 0.05f * static_cast<float>((i * 7919 + seed) % n - n / 2);
  return Fixed(std::move(shape), std::move(v));
}

std::vector<OpCase> conv3dCases() {
  const Padding valid = Padding::valid, same = Padding::same;
  auto conv = [](Triple s, Padding p, Triple d = {1, 1, 1}) {
    return [=](const V& v) { return conv3d(v[0], v[1], s, p, d); };
  };
  auto convT = [](Shape out, Triple s, Padding p) {
    return [=](const V& v) { return conv3dTranspose(v[0], v[1], out, s, p); };
  };
  auto pool = [](bool isMax, Triple k, Triple s, Padding p) {
    return [=](const V& v) { return isMax ? maxPool3d(v[0], k, s, p) : avgPool3d(v[0], k, s, p); };
  };
  return {
      {"conv3d_valid", {F({1, 3, 3, 2, 2}), F({2, 2, 1, 2, 2})}, conv({1, 1, 1}, valid)},
      {"conv3d_same_strided", {F({1, 4, 3, 3, 1}), F({3, 2, 2, 1, 2})}, conv({2, 2, 1}, same)},
      {"conv3d_dilated_depth",
       {F({1, 5, 2, 2, 1}), F({2, 1, 2, 1, 1})},
       conv({1, 1, 1}, valid, {3, 1, 1})},
      {"conv3d_transpose_valid",
       {F({1, 2, 2, 2, 2}), F({2, 2, 2, 1, 2})},
       convT({1, 3, 3, 3, 1}, {1, 1, 1}, valid)},
      {"conv3d_transpose_same_strided",
       {F({1, 2, 2, 1, 1}), F({3, 2, 1, 2, 1})},
       convT({1, 4, 4, 2, 2}, {2, 2, 2}, same)},
      {"max_pool3d_same", {Distinct({1, 3, 3, 3, 2}, 3)}, pool(true, {2, 2, 2}, {2, 2, 2}, same)},
      {"avg_pool3d_strided", {F({1, 4, 3, 3, 1})}, pool(false, {2, 2, 2}, {1, 1, 2}, valid)},
      {"avg_pool3d_same", {F({1, 3, 3, 2, 2})}, pool(false, {2, 3, 2}, {2, 2, 1}, same)},
      {"conv3d_same_stride_beyond_window",
       {F({1, 5, 4, 3, 1}), F({2, 1, 1, 1, 2})},
       conv({3, 3, 2}, same)},
      {"conv3d_transpose_same_stride_beyond_window",
       {F({1, 2, 2, 2, 1}), F({2, 1, 1, 1, 1})},
       convT({1, 5, 4, 3, 1}, {3, 3, 2}, same)},
      {"max_pool3d_same_stride_beyond_window",
       {Distinct({1, 5, 4, 3, 1}, 5)},
       pool(true, {2, 1, 1}, {3, 3, 2}, same)},
  };
}

GLINT_OP_CASES(Conv3d, conv3dCases());

TEST(OpErrors, Conv3dNamesTheShapes) {
  Tensor x = zeros({1, 4, 4, 4, 3});
  expectError(
      [] {
        conv3d(zeros({4, 4, 4, 3}), zeros({2, 2, 2, 3, 1}));
      },
      {"[conv3d]", "x must be rank 5", "[4,4,4,3]"});
  expectError(
      [&] {
        conv3d(x, zeros({2, 2, 3, 1}));
      },
      {"[conv3d]", "filter must be rank 5", "[2,2,3,1]"});
  expectError(
      [&] {
        conv3d(x, zeros({2, 2, 2, 2, 1}));
      },
      {"[conv3d]", "x.shape[4] = 3", "filter.shape[3] (2)", "[1,4,4,4,3]"});
  expectError(
      [&] {
        conv3d(x, zeros({5, 2, 2, 3, 1}));
      },
      {"[conv3d]", "[5,2,2,3,1]", "does not fit", "valid"});
  expectError(
      [&] {
        conv3d(x, zeros({2, 2, 2, 3, 1}), {2, 1, 1}, Padding::same, {1, 1, 2});
      },
      {"[conv3d]", "strides [2,1,1]", "dilations [1,1,2]", "cannot both"});
  expectError(
      [&] {
        conv3d(x, zeros({2, 2, 2, 3, 1}), {0, 1, 1});
      },
      {"[conv3d]", "strides [0,1,1]", ">= 1"});
  expectError(
      [&] {
        conv3d(zeros({1, 2, 2, 2, 1}, DType::int32), zeros({1, 1, 1, 1, 1}));
      },
      {"[conv3d]", "x", "float32", "int32"});
  Tensor t = zeros({1, 2, 2, 2, 3});
  expectError(
      [&] {
        conv3dTranspose(t, zeros({2, 2, 2, 1, 3}), {1, 3, 3, 3});
      },
      {"[conv3dTranspose]", "outputShape [1,3,3,3]", "5 entries"});
  expectError(
      [&] {
        conv3dTranspose(t, zeros({2, 2, 2, 1, 2}), {1, 3, 3, 3, 1});
      },
      {"[conv3dTranspose]", "x.shape[4] = 3", "filter.shape[4] (2)"});
  expectError(
      [&] {
        conv3dTranspose(t, zeros({2, 2, 2, 1, 3}), {1, 3, 3, 3, 2});
      },
      {"[conv3dTranspose]", "outputShape[4] (2)", "filter.shape[3] (1)"});
  expectError(
      [&] {
        conv3dTranspose(t, zeros({2, 2, 2, 1, 3}), {2, 3, 3, 3, 1});
      },
      {"[conv3dTranspose]", "outputShape[0] (2)", "batch of x (1)"});
  expectError(
      [&] {
        conv3dTranspose(t, zeros({2, 2, 2, 1, 3}), {1, 4, 3, 3, 1});
      },
      {"[conv3dTranspose]", "outputShape [1,4,3,3,1]", "inconsistent", "3x2x2"});
  expectError(
      [] {
        maxPool3d(zeros({1, 4, 4, 4}), {2, 2, 2}, {2, 2, 2});
      },
      {"[maxPool3d]", "x must be rank 5", "[1,4,4,4]"});
  expectError(
      [] {
        avgPool3d(zeros({1, 2, 4, 4, 1}), {4, 2, 2}, {1, 1, 1});
      },
      {"[avgPool3d]", "filterSize [4,2,2]", "does not fit", "[1,2,4,4,1]"});
  // One larger than the input: no window fits, the output is empty (as TF.js).
  EXPECT_EQ(avgPool3d(zeros({1, 2, 4, 4, 1}), {3, 2, 2}, {1, 1, 1}).shape(),
            (Shape{1, 0, 3, 3, 1}));
  EXPECT_EQ(maxPool3d(zeros({1, 2, 4, 4, 1}), {1, 5, 2}, {1, 2, 1}).shape(),
            (Shape{1, 2, 0, 3, 1}));
  expectError(
      [] {
        avgPool3d(zeros({1, 2, 4, 4, 1}), {1, 0, 2}, {1, 1, 1});
      },
      {"[avgPool3d]", "filterSize [1,0,2]", ">= 1"});
}

}  // namespace
}  // namespace glint::testing
