// Random ops: determinism by seed, moments, truncation bounds, dropout.
#include <cmath>

#include "op_harness.h"

namespace glint::testing {
namespace {

struct Moments1 {
  double mean = 0, stddev = 0, min = INFINITY, max = -INFINITY;
};

Moments1 momentsOf(const Tensor& t) {
  std::vector<float> v = t.data<float>();
  Moments1 m;
  for (float x : v) {
    m.mean += x;
    m.min = std::min<double>(m.min, x);
    m.max = std::max<double>(m.max, x);
  }
  m.mean /= static_cast<double>(v.size());
  for (float x : v) m.stddev += (x - m.mean) * (x - m.mean);
  m.stddev = std::sqrt(m.stddev / static_cast<double>(v.size()));
  return m;
}

TEST(RandomOps, SameSeedSameValuesOnEveryBackend) {
  BackendScope guard;
  std::vector<float> first;
  for (const std::string& b : testBackends()) {
    setBackend(b);
    std::vector<float> u = randomUniform({3, 4}, -1, 1, 7).data<float>();
    if (first.empty()) first = u;
    EXPECT_EQ(u, first) << "backend " << b;
    EXPECT_EQ(randomNormal({5}, 0, 1, 3).data<float>(), randomNormal({5}, 0, 1, 3).data<float>());
    EXPECT_EQ(truncatedNormal({5}, 0, 1, 3).data<float>(),
              truncatedNormal({5}, 0, 1, 3).data<float>());
  }
}

TEST(RandomOps, DifferentSeedsDiffer) {
  EXPECT_NE(randomUniform({16}, 0, 1, 1).data<float>(), randomUniform({16}, 0, 1, 2).data<float>());
  EXPECT_NE(randomNormal({16}, 0, 1, 1).data<float>(), randomNormal({16}, 0, 1, 2).data<float>());
  EXPECT_NE(truncatedNormal({16}, 0, 1, 1).data<float>(),
            truncatedNormal({16}, 0, 1, 2).data<float>());
}

TEST(RandomOps, EngineGeneratorFollowsSetSeed) {
  setSeed(123);
  std::vector<float> a = randomUniform({8}).data<float>();
  std::vector<float> b = randomUniform({8}).data<float>();
  EXPECT_NE(a, b);  // the stream advances between calls
  setSeed(123);
  EXPECT_EQ(randomUniform({8}).data<float>(), a);
  setSeed(5);
  std::vector<float> n = randomNormal({8}).data<float>();
  setSeed(5);
  EXPECT_EQ(randomNormal({8}).data<float>(), n);
}

TEST(RandomOps, UniformRangeAndMoments) {
  Tensor u = randomUniform({100, 100}, -2, 4, 11);
  EXPECT_EQ(u.shape(), (Shape{100, 100}));
  EXPECT_EQ(u.dtype(), DType::float32);
  Moments1 m = momentsOf(u);
  EXPECT_GE(m.min, -2.0);
  EXPECT_LT(m.max, 4.0);
  EXPECT_NEAR(m.mean, 1.0, 0.06);  // 6 / sqrt(12) / sqrt(1e4) = 0.017 sd
  EXPECT_NEAR(m.stddev, 6.0 / std::sqrt(12.0), 0.05);
  // A degenerate interval gives its single value.
  EXPECT_EQ(randomUniform({3}, 2, 2, 1).data<float>(), (std::vector<float>{2, 2, 2}));
  EXPECT_EQ(randomUniform({0, 3}).shape(), (Shape{0, 3}));
}

TEST(RandomOps, NormalMoments) {
  Moments1 m = momentsOf(randomNormal({10000}, 3, 2, 21));
  EXPECT_NEAR(m.mean, 3.0, 0.08);  // sd of the mean: 0.02
  EXPECT_NEAR(m.stddev, 2.0, 0.06);
  EXPECT_LT(m.min, 3.0 - 2 * 2.0);  // unlike truncatedNormal, tails exist
}

TEST(RandomOps, TruncatedNormalBoundsAndMoments) {
  Moments1 m = momentsOf(truncatedNormal({10000}, -1, 0.5f, 31));
  EXPECT_GE(m.min, -1.0 - 2 * 0.5 - 1e-6);
  EXPECT_LE(m.max, -1.0 + 2 * 0.5 + 1e-6);
  EXPECT_NEAR(m.mean, -1.0, 0.03);
  // A standard normal truncated to [-2, 2] has sd 0.8796.
  EXPECT_NEAR(m.stddev, 0.5 * 0.8796, 0.02);
}

TEST(RandomOps, DropoutZeroesAndScales) {
  Tensor x = fill({100, 100}, 2.0f);
  std::vector<float> y = dropout(x, 0.25f, 9).data<float>();
  int zeros = 0;
  for (float v : y) {
    if (v == 0) {
      ++zeros;
    } else {
      EXPECT_FLOAT_EQ(v, 2.0f / 0.75f);
    }
  }
  EXPECT_NEAR(zeros / 10000.0, 0.25, 0.02);
  EXPECT_EQ(dropout(x, 0.25f, 9).data<float>(), y);  // seeded: repeatable
  // rate 0 is the identity.
  Tensor same = dropout(x, 0.0f);
  EXPECT_EQ(same.data<float>(), x.data<float>());
}

TEST(RandomOps, DropoutNoiseShapeBroadcasts) {
  Tensor x = randomUniform({50, 4}, 1, 2, 3);
  std::vector<float> xv = x.data<float>();
  std::vector<float> y = dropout(x, 0.5f, 4, {1, 4}).data<float>();
  // Each column is either all dropped or all kept (scaled by 2).
  for (int c = 0; c < 4; ++c) {
    bool dropped = y[c] == 0;
    for (int r = 0; r < 50; ++r)
      EXPECT_FLOAT_EQ(y[r * 4 + c], dropped ? 0.0f : xv[r * 4 + c] * 2) << r << "," << c;
  }
  EXPECT_EQ(dropout(x, 0.5f, 4, {4}).shape(), x.shape());
}

TEST(RandomOps, DropoutGradientIsTheScaledMask) {
  BackendScope guard;
  for (const std::string& b : testBackends()) {
    setBackend(b);
    Tensor x = randomNormal({4, 5}, 0, 1, 8);
    Tensor y = dropout(x, 0.4f, 77);
    Tensor g = grad([](const Tensor& t) { return sum(dropout(t, 0.4f, 77)); }, x);
    std::vector<float> yv = y.data<float>(), xv = x.data<float>(), gv = g.data<float>();
    for (size_t i = 0; i < gv.size(); ++i) {
      // Kept elements have y = x / 0.6 and gradient 1 / 0.6; dropped ones 0 and 0.
      bool kept = yv[i] != 0;
      EXPECT_FLOAT_EQ(gv[i], kept ? 1.0f / 0.6f : 0.0f) << "backend " << b << " element " << i;
      if (kept) {
        EXPECT_FLOAT_EQ(yv[i], xv[i] * (1.0f / 0.6f));
      }
    }
  }
}

TEST(OpErrors, RandomOps) {
  expectError([] { randomUniform({2, -1}); }, {"[randomUniform]", "[2,-1]", "negative"});
  expectError([] { randomUniform({2}, 3, 1); },
              {"[randomUniform]", "minValue (3)", "maxValue (1)"});
  expectError([] { randomUniform({2}, 0, INFINITY); }, {"[randomUniform]", "maxValue", "finite"});
  expectError([] { randomNormal({2}, 0, -1); }, {"[randomNormal]", "stddev", "-1"});
  expectError([] { randomNormal({2}, NAN, 1); }, {"[randomNormal]", "mean", "finite"});
  expectError([] { truncatedNormal({-2}); }, {"[truncatedNormal]", "[-2]"});
  expectError([] { truncatedNormal({2}, 0, -0.5f); }, {"[truncatedNormal]", "stddev"});
  Tensor x = fill({2, 3}, 1.0f);
  expectError([=] { dropout(x, 1.0f); }, {"[dropout]", "rate", "[0, 1)", "1"});
  expectError([=] { dropout(x, -0.1f); }, {"[dropout]", "rate", "-0.1"});
  expectError([=] { dropout(x, NAN); }, {"[dropout]", "rate"});
  expectError([=] { dropout(x, 0.5f, 1, {2, 2}); }, {"[dropout]", "noiseShape [2,2]", "[2,3]"});
  expectError([=] { dropout(x, 0.5f, 1, {1, 2, 3}); }, {"[dropout]", "noiseShape [1,2,3]"});
  expectError([] { dropout(tensorInt({1}, {1}), 0.5f); }, {"[dropout]", "x", "float32", "int32"});
}

}  // namespace
}  // namespace glint::testing
