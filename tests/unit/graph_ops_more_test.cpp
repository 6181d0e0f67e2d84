// Graph ops that TF.js cannot check (it lacks them, ignores an attribute or
// reads the wrong input): each against values worked out here on the host.
// Bad arguments to the layout ops end in errors naming the node, op and
// file. Ops TF.js runs are compared with it in GraphInterop.*.
#include <gtest/gtest.h>

#include <cmath>

#include "glint/glint.h"
#include "glint/graph_model.h"
#include "glint/json.h"
#include "tests/unit/graph_builder.h"
#include "tests/unit/op_harness.h"

namespace glint::testing {
namespace {

Json s(const std::string& v) { return {{"s", base64(v)}}; }
Json i(int64_t v) { return {{"i", std::to_string(v)}}; }
Json f(double v) { return {{"f", v}}; }
Json b(bool v) { return {{"b", v}}; }
Json type(const char* t) { return {{"type", t}}; }

TEST(GraphOpsMore, BitwiseAndMatchesTheHost) {
  Graph g;
  g.placeholder("a", DType::int32);
  g.placeholder("b", DType::int32);
  g.node("and", "BitwiseAnd", {"a", "b"}, {{"T", type("DT_INT32")}});
  GraphModel m = g.load("bitwise.json");
  std::vector<int32_t> a{12, 7, -1, 255, 1024, -8, 0x7fffffff}, bv{10, 8, 12345, 15, 1023, 5, -2};
  std::vector<int32_t> want;
  for (size_t k = 0; k < a.size(); ++k) want.push_back(a[k] & bv[k]);
  onEveryBackend([&] {
    Tensor y = m.execute({{"a", tensorInt(a, {7})}, {"b", tensorInt(bv, {7})}}, {"and"})[0];
    EXPECT_EQ(y.data<int32_t>(), want);
  });
  expectError(
      [&] {
        m.execute({{"a", tensorInt(a, {7})}, {"b", tensorInt({1, 2}, {2})}}, {"and"});
      },
      {"bitwise.json", "'and'", "BitwiseAnd", "[7]", "[2]"});
}

TEST(GraphOpsMore, OneHotAlongAnAxisOtherThanTheLast) {
  // TF.js drops OneHot's axis; TensorFlow puts the depth there.
  Graph g;
  g.placeholder("ix", DType::int32);
  g.ints("depth", {4}, {});
  g.floats("on", {2}, {});
  g.floats("off", {-1}, {});
  g.node("oh0", "OneHot", {"ix", "depth", "on", "off"}, {{"axis", i(0)}, {"T", type("DT_FLOAT")}});
  g.node("oh1", "OneHot", {"ix", "depth", "on", "off"}, {{"axis", i(1)}, {"T", type("DT_INT32")}});
  GraphModel m = g.load();
  std::vector<int32_t> ix{0, 3, 1, 5, -1, 2};  // [2, 3]; 5 and -1 are off everywhere
  onEveryBackend([&] {
    std::vector<Tensor> y = m.execute({{"ix", tensorInt(ix, {2, 3})}}, {"oh0", "oh1"});
    ASSERT_EQ(y[0].shape(), (Shape{4, 2, 3}));
    ASSERT_EQ(y[1].shape(), (Shape{2, 4, 3}));
    EXPECT_EQ(y[1].dtype(), DType::int32);
    std::vector<float> y0 = y[0].toFloats(), y1 = y[1].toFloats();
    for (int d = 0; d < 4; ++d)
      for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 3; ++c) {
          float want = ix[static_cast<size_t>(r * 3 + c)] == d ? 2.0f : -1.0f;
          EXPECT_EQ(y0[static_cast<size_t>((d * 2 + r) * 3 + c)], want) << d << r << c;
          EXPECT_EQ(y1[static_cast<size_t>((r * 4 + d) * 3 + c)], want) << d << r << c;
        }
  });
}

TEST(GraphOpsMore, MatrixBandPartKeepsItsOwnLowerAndUpperBands) {
  // TF.js reads num_lower and num_upper from one input; here they differ.
  Graph g;
  g.placeholder("x");
  g.ints("zero", {0}, {});
  g.ints("all", {-1}, {});
  g.ints("two", {2}, {});
  g.node("upper", "MatrixBandPart", {"x", "zero", "all"});
  g.node("lower2", "MatrixBandPart", {"x", "two", "zero"});
  GraphModel m = g.load();
  std::vector<float> x(2 * 4 * 5);
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>(k) + 1;
  onEveryBackend([&] {
    std::vector<Tensor> y = m.execute({{"x", tensor(x, {2, 4, 5})}}, {"upper", "lower2"});
    std::vector<float> up = y[0].toFloats(), lo = y[1].toFloats();
    for (int bt = 0; bt < 2; ++bt)
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 5; ++c) {
          size_t k = static_cast<size_t>((bt * 4 + r) * 5 + c);
          EXPECT_EQ(up[k], c >= r ? x[k] : 0.0f);
          EXPECT_EQ(lo[k], (c <= r && r - c <= 2) ? x[k] : 0.0f);
        }
  });
}

// TensorFlow's fake quantisation, written out for one value.
float fakeQuantHost(float x, float min, float max, int bits, bool narrow) {
  double qmin = narrow ? 1 : 0, qmax = std::pow(2.0, bits) - 1;
  double scale = (static_cast<double>(max) - min) / (qmax - qmin);
  double zero = qmin - min / scale;
  double nz = zero < qmin ? qmin : zero > qmax ? qmax : std::round(zero);
  double lo = (qmin - nz) * scale, hi = (qmax - nz) * scale;
  double c = std::min(std::max(static_cast<double>(x), lo), hi);
  return static_cast<float>(std::floor((c - lo) / scale + 0.5) * scale + lo);
}

TEST(GraphOpsMore, FakeQuantRoundsToTheNudgedGrid) {
  // TF.js passes FakeQuant* through unchanged; TensorFlow quantises.
  Graph g;
  g.placeholder("x");
  g.floats("min", {-0.7f}, {});
  g.floats("max", {1.3f}, {});
  g.node("vars", "FakeQuantWithMinMaxVars", {"x", "min", "max"},
         {{"num_bits", i(4)}, {"narrow_range", b(false)}});
  g.node("args", "FakeQuantWithMinMaxArgs", {"x"},
         {{"min", f(-2.0)}, {"max", f(1.0)}, {"num_bits", i(8)}, {"narrow_range", b(true)}});
  GraphModel m = g.load();
  std::vector<float> x;
  for (int k = 0; k < 41; ++k) x.push_back(-2.5f + 0.1f * static_cast<float>(k) + 0.013f);
  onEveryBackend([&] {
    std::vector<Tensor> y = m.execute({{"x", tensor(x, {41})}}, {"vars", "args"});
    std::vector<float> v = y[0].toFloats(), a = y[1].toFloats();
    for (size_t k = 0; k < x.size(); ++k) {
      EXPECT_NEAR(v[k], fakeQuantHost(x[k], -0.7f, 1.3f, 4, false), 1e-5) << x[k];
      EXPECT_NEAR(a[k], fakeQuantHost(x[k], -2.0f, 1.0f, 8, true), 1e-5) << x[k];
    }
  });
}

TEST(GraphOpsMore, Expm1KeepsItsDigitsNearZero) {
  Graph g;
  g.placeholder("x");
  g.node("y", "Expm1", {"x"});
  GraphModel m = g.load();
  std::vector<float> x{1e-7f, -3e-6f, 2e-4f, -0.01f, 0.3f, -0.49f, 0.51f, 2.0f, -20.0f, 60.0f};
  onEveryBackend([&] {
    std::vector<float> y = m.execute({{"x", tensor(x, {10})}}, {"y"})[0].toFloats();
    for (size_t k = 0; k < x.size(); ++k) {
      double want = std::expm1(static_cast<double>(x[k]));
      EXPECT_LE(std::fabs(y[k] - want), 2e-6 * std::fabs(want) + 1e-30) << x[k] << " " << y[k];
    }
  });
}

TEST(GraphOpsMore, ReverseV1AndEnsureShape) {
  Graph g;
  g.placeholder("x");
  g.weight("dims", {3}, DType::boolean, "\1\0\1", 3);
  g.node("dims", "Const", {}, {{"dtype", type("DT_BOOL")}});
  g.node("rev", "Reverse", {"x", "dims"});
  g.node("ok", "EnsureShape", {"x"},
         Json::parse(
             R"({"shape": {"shape": {"dim": [{"size": "2"}, {"size": "-1"}, {"size": "4"}]}}})"));
  g.node("bad", "EnsureShape", {"x"},
         Json::parse(R"({"shape": {"shape": {"dim": [{"size": "2"}, {"size": "5"}]}}})"));
  GraphModel m = g.load("ensure.json");
  std::vector<float> x(24);
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>(k);
  onEveryBackend([&] {
    std::vector<Tensor> y = m.execute({{"x", tensor(x, {2, 3, 4})}}, {"rev", "ok"});
    std::vector<float> r = y[0].toFloats();
    for (int a = 0; a < 2; ++a)
      for (int c = 0; c < 3; ++c)
        for (int d = 0; d < 4; ++d)
          EXPECT_EQ(r[static_cast<size_t>((a * 3 + c) * 4 + d)],
                    x[static_cast<size_t>(((1 - a) * 3 + c) * 4 + (3 - d))]);
    EXPECT_EQ(y[1].toFloats(), x);
  });
  expectError(
      [&] {
        m.execute({{"x", tensor(x, {2, 3, 4})}}, {"bad"});
      },
      {"ensure.json", "'bad'", "EnsureShape", "[2,3,4]", "[2,5]"});
}

TEST(GraphOpsMore, ProjectiveTransformOfABatch) {
  // TF.js samples the wrong pixels for every image but the first of a batch.
  Graph g;
  g.placeholder("img");
  g.floats("tr", {1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, -1, 0, 0}, {2, 8});
  g.ints("size", {3, 5});
  g.floats("fill", {0.5f}, {});
  g.node("y", "ImageProjectiveTransformV3", {"img", "tr", "size", "fill"},
         {{"interpolation", s("NEAREST")}, {"fill_mode", s("CONSTANT")}});
  GraphModel m = g.load();
  std::vector<float> img(2 * 3 * 4);
  for (size_t k = 0; k < img.size(); ++k) img[k] = static_cast<float>(k);
  // Image 0 reads (y, x + 1), image 1 reads (y - 1, x); outside is the fill.
  std::vector<float> want;
  for (int bt = 0; bt < 2; ++bt)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 5; ++x) {
        int sy = bt == 0 ? y : y - 1, sx = bt == 0 ? x + 1 : x;
        bool in = sy >= 0 && sy < 3 && sx >= 0 && sx < 4;
        want.push_back(in ? img[static_cast<size_t>((bt * 3 + sy) * 4 + sx)] : 0.5f);
      }
  onEveryBackend([&] {
    Tensor y = m.execute({{"img", tensor(img, {2, 3, 4, 1})}}, {"y"})[0];
    EXPECT_EQ(y.shape(), (Shape{2, 3, 5, 1}));
    EXPECT_EQ(y.toFloats(), want);
  });
}

TEST(GraphOpsMore, ShapesComputedOnTheDeviceAreReadBack) {
  // A fed tensor lives on the device; converted ONNX models compute Reshape's
  // shape there too. TF.js reads such a shape back, and so does Glint.
  Graph g;
  g.placeholder("x");
  g.placeholder("dims", DType::int32);
  g.ints("one", {1}, {});
  g.node("dims2", "Add", {"dims", "one"}, {{"T", type("DT_INT32")}});
  g.node("y", "Reshape", {"x", "dims2"});
  GraphModel m = g.load();
  std::vector<float> x(12);
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>(k);
  onEveryBackend([&] {
    Tensor y = m.execute({{"x", tensor(x, {2, 6})}, {"dims", tensorInt({2, 3}, {2})}}, {"y"})[0];
    EXPECT_EQ(y.shape(), (Shape{3, 4}));
    EXPECT_EQ(y.toFloats(), x);
  });
}

TEST(GraphOpsMore, BadLayoutArgumentsNameNodeOpAndShapes) {
  Graph g;
  g.placeholder("x");
  g.node("d2s", "DepthToSpace", {"x"}, {{"block_size", i(2)}, {"data_format", s("NHWC")}});
  // A block whose square overflows int64 (2^33 squared): refused, not a division by zero.
  g.node("d2s_huge", "DepthToSpace", {"x"},
         {{"block_size", i(int64_t{1} << 33)}, {"data_format", s("NHWC")}});
  g.ints("huge_block", {65536, 65536});
  g.ints("no_pads", {0, 0, 0, 0}, {2, 2});
  g.node("s2b_huge", "SpaceToBatchND", {"x", "huge_block", "no_pads"});
  g.ints("block", {2, 2});
  g.ints("pads", {0, 1, 0, 0}, {2, 2});
  g.node("s2b", "SpaceToBatchND", {"x", "block", "pads"});
  g.ints("mpads", {0, 0, 3, 0, 0, 0, 0, 0}, {4, 2});
  g.node("mirror", "MirrorPad", {"x", "mpads"}, {{"mode", s("reflect")}});
  g.ints("to", {4, 2, 3});
  g.node("bcast", "BroadcastTo", {"x", "to"});
  g.node("ein", "Einsum", {"x", "x"}, {{"equation", s("...ij,...jk->...ik")}, {"N", i(2)}});
  g.node("ein_diag", "Einsum", {"x"}, {{"equation", s("iijk->jk")}, {"N", i(1)}});
  GraphModel m = g.load("layout.json");
  Tensor x = zeros({1, 3, 5, 6});
  expectError(
      [&] {
        m.execute({{"x", x}}, {"d2s"});
      },
      {"layout.json", "'d2s'", "DepthToSpace", "[1,3,5,6]", "block_size"});
  expectError(
      [&] {
        m.execute({{"x", x}}, {"d2s_huge"});
      },
      {"'d2s_huge'", "DepthToSpace", "block_size must be at least 2", "8589934592"});
  expectError(
      [&] {
        m.execute({{"x", x}}, {"s2b_huge"});
      },
      {"'s2b_huge'", "SpaceToBatchND", "product below 2^31", "[65536,65536]"});
  expectError(
      [&] {
        m.execute({{"x", x}}, {"s2b"});
      },
      {"'s2b'", "SpaceToBatchND", "padded size 5", "block_shape[1] = 2", "[1,3,5,6]"});
  expectError(
      [&] {
        m.execute({{"x", x}}, {"mirror"});
      },
      {"'mirror'", "MirrorPad", "paddings 3 and 0", "dimension 1", "REFLECT"});
  expectError(
      [&] {
        m.execute({{"x", x}}, {"bcast"});
      },
      {"'bcast'", "BroadcastTo", "[1,3,5,6]", "[4,2,3]"});
  expectError([&] { m.execute({{"x", x}}, {"ein"}); }, {"'ein'", "Einsum", "ellipsis"});
  expectError([&] { m.execute({{"x", x}}, {"ein_diag"}); }, {"'ein_diag'", "Einsum", "repeats"});
}

}  // namespace
}  // namespace glint::testing
