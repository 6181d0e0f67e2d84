// Initializers: shapes, statistics, fans, seeds, orthogonality, configs.
#include "glint/initializers.h"

#include <cmath>

#include "glint/json.h"
#include "op_harness.h"

namespace glint::testing {
namespace {

struct Stats {
  double mean = 0, std = 0, maxAbs = 0;
};
Stats stats(const Tensor& t) {
  std::vector<float> v = t.toFloats();
  Stats s;
  for (float x : v) {
    s.mean += x;
    s.maxAbs = std::max(s.maxAbs, std::abs(double(x)));
  }
  s.mean /= v.size();
  for (float x : v) s.std += (x - s.mean) * (x - s.mean);
  s.std = std::sqrt(s.std / v.size());
  return s;
}

TEST(Initializers, FansFollowKeras) {
  using initializers::computeFans;
  EXPECT_EQ(computeFans({20, 30}), std::make_pair(20.0, 30.0));
  EXPECT_EQ(computeFans({3, 3, 16, 32}), std::make_pair(144.0, 288.0));  // conv2d kernel
  EXPECT_EQ(computeFans({5, 4, 6}), std::make_pair(20.0, 30.0));         // conv1d kernel
  EXPECT_EQ(computeFans({100}), std::make_pair(10.0, 10.0));
}

TEST(Initializers, StatisticsOnEveryBackend) {
  using namespace initializers;
  std::string saved = getBackend();
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE(backend);
    setBackend(backend);
    // glorotUniform [200, 300]: limit sqrt(6 / 500), std limit / sqrt(3).
    double limit = std::sqrt(6.0 / 500);
    Stats g = stats(glorotUniform(1)->init({200, 300}));
    EXPECT_LE(g.maxAbs, limit);
    EXPECT_NEAR(g.std, limit / std::sqrt(3.0), 0.02 * limit);
    EXPECT_NEAR(g.mean, 0, 0.01 * limit);
    // heNormal conv kernel: fanIn 144; TF.js draws a 2-sigma truncated normal (std 0.8796 sigma).
    double sigma = std::sqrt(2.0 / 144);
    Tensor he = heNormal(2)->init({3, 3, 16, 32});
    EXPECT_EQ(he.shape(), Shape({3, 3, 16, 32}));
    Stats h = stats(he);
    EXPECT_LE(h.maxAbs, 2 * sigma * 1.0001);
    EXPECT_NEAR(h.std, 0.87962566 * sigma, 0.04 * sigma);
    // lecunUniform fan_in 200, heUniform 2/200, glorotNormal fan_avg.
    EXPECT_NEAR(stats(lecunUniform(3)->init({200, 300})).std, std::sqrt(1.0 / 200), 0.002);
    EXPECT_NEAR(stats(heUniform(4)->init({200, 300})).std, std::sqrt(2.0 / 200), 0.003);
    EXPECT_NEAR(stats(glorotNormal(5)->init({200, 300})).std, 0.87962566 * std::sqrt(1.0 / 250),
                0.002);
    EXPECT_NEAR(stats(lecunNormal(5)->init({200, 300})).std, 0.87962566 * std::sqrt(1.0 / 200),
                0.002);
    // varianceScaling fan_out with Keras's corrected truncated normal: std sqrt(3 / 300).
    EXPECT_NEAR(stats(varianceScaling(3, "fan_out", "truncated_normal", 6)->init({200, 300})).std,
                std::sqrt(3.0 / 300), 0.004);
    EXPECT_NEAR(stats(varianceScaling(3, "fanOut", "untruncated_normal", 6)->init({200, 300})).std,
                std::sqrt(3.0 / 300), 0.004);
    Stats rn = stats(randomNormal(1.5, 0.3, 7)->init({100, 100}));
    EXPECT_NEAR(rn.mean, 1.5, 0.01);
    EXPECT_NEAR(rn.std, 0.3, 0.01);
    Stats ru = stats(randomUniform(-2, 1, 8)->init({100, 100}));
    EXPECT_NEAR(ru.mean, -0.5, 0.03);
    EXPECT_NEAR(ru.std, 3 / std::sqrt(12.0), 0.02);
    Stats tn = stats(truncatedNormal(0, 0.5, 9)->init({100, 100}));
    EXPECT_LE(tn.maxAbs, 1.0001);
    EXPECT_NEAR(tn.std, 0.87962566 * 0.5, 0.01);
    EXPECT_EQ(zeros()->init({2, 3}).toFloats(), std::vector<float>(6, 0.0f));
    EXPECT_EQ(ones()->init({4}).toFloats(), std::vector<float>(4, 1.0f));
    EXPECT_EQ(constant(2.5)->init({3}).toFloats(), std::vector<float>(3, 2.5f));
    EXPECT_EQ(identity(3)->init({2, 2}).toFloats(), (std::vector<float>{3, 0, 0, 3}));
    Tensor ints = constant(2.7)->init({2}, DType::int32);
    EXPECT_EQ(ints.dtype(), DType::int32);
    EXPECT_EQ(ints.data<int32_t>(), (std::vector<int32_t>{2, 2}));
    EXPECT_EQ(glorotUniform()->init({0, 5}).shape(), Shape({0, 5}));
  }
  setBackend(saved);
}

TEST(Initializers, SeedsReproduce) {
  using namespace initializers;
  for (auto make : {+[](initializers::Seed s) { return glorotUniform(s); },
                    +[](initializers::Seed s) { return heNormal(s); },
                    +[](initializers::Seed s) { return orthogonal(1.0, s); },
                    +[](initializers::Seed s) { return randomNormal(0, 1, s); }}) {
    std::vector<float> a = make(11)->init({8, 6}).toFloats();
    EXPECT_EQ(a, make(11)->init({8, 6}).toFloats());
    EXPECT_NE(a, make(12)->init({8, 6}).toFloats());
  }
  // Unseeded draws follow the engine's generator.
  setSeed(5);
  std::vector<float> a = glorotUniform()->init({4, 4}).toFloats();
  setSeed(5);
  EXPECT_EQ(a, glorotUniform()->init({4, 4}).toFloats());
  EXPECT_NE(a, glorotUniform()->init({4, 4}).toFloats());
}

/// max |G - gain^2 I| for the Gram matrix of the rows (byRows) or columns of m.
double gramError(const std::vector<float>& m, int64_t rows, int64_t cols, bool byRows,
                 double gain) {
  int64_t n = byRows ? rows : cols, len = byRows ? cols : rows;
  double worst = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (int64_t k = 0; k < len; ++k)
        dot += byRows ? double(m[i * cols + k]) * m[j * cols + k]
                      : double(m[k * cols + i]) * m[k * cols + j];
      worst = std::max(worst, std::abs(dot - (i == j ? gain * gain : 0)));
    }
  return worst;
}

TEST(Initializers, OrthogonalGivesOrthonormalRowsOrColumns) {
  using namespace initializers;
  EXPECT_LT(gramError(orthogonal(1, 1)->init({6, 4}).toFloats(), 6, 4, false, 1),
            1e-5);  // Q^T Q = I
  EXPECT_LT(gramError(orthogonal(1, 2)->init({4, 6}).toFloats(), 4, 6, true, 1),
            1e-5);  // Q Q^T = I
  EXPECT_LT(gramError(orthogonal(2, 3)->init({5, 5}).toFloats(), 5, 5, false, 2), 1e-5);
  Tensor conv = orthogonal(1, 4)->init({3, 3, 4, 8});  // flattened to [36, 8]
  EXPECT_EQ(conv.shape(), Shape({3, 3, 4, 8}));
  EXPECT_LT(gramError(conv.toFloats(), 36, 8, false, 1), 1e-5);
}

TEST(Initializers, ConfigsMatchTfjsAndRoundTrip) {
  using namespace initializers;
  EXPECT_EQ(
      serialize(*glorotUniform()).dump(),
      R"({"class_name":"VarianceScaling","config":{"scale":1.0,"mode":"fan_avg","distribution":"uniform","seed":null}})");
  EXPECT_EQ(
      serialize(*heNormal(3)).dump(),
      R"({"class_name":"VarianceScaling","config":{"scale":2.0,"mode":"fan_in","distribution":"normal","seed":3}})");
  EXPECT_EQ(serialize(*zeros()).dump(), R"({"class_name":"Zeros","config":{}})");
  EXPECT_EQ(
      serialize(*randomUniform()).dump(),
      R"({"class_name":"RandomUniform","config":{"minval":-0.05,"maxval":0.05,"seed":null}})");
  std::vector<std::shared_ptr<Initializer>> all = {zeros(),
                                                   ones(),
                                                   constant(0.25),
                                                   randomNormal(0.1, 0.2, 1),
                                                   randomUniform(-1, 2, 2),
                                                   truncatedNormal(0, 0.3, 3),
                                                   varianceScaling(1.5, "fan_out", "uniform", 4),
                                                   glorotUniform(5),
                                                   glorotNormal(6),
                                                   heUniform(7),
                                                   heNormal(8),
                                                   lecunUniform(9),
                                                   lecunNormal(10),
                                                   orthogonal(1.3, 11),
                                                   identity(0.5)};
  for (const auto& init : all) {
    SCOPED_TRACE(init->className());
    auto back = fromConfig(serialize(*init));
    EXPECT_EQ(back->className(), init->className());
    EXPECT_EQ(back->getConfig(), init->getConfig());
    EXPECT_EQ(back->init({4, 4}).toFloats(), init->init({4, 4}).toFloats());
  }
  // TF.js's in-memory (camelCase) form and identifiers.
  auto camel = fromConfig(Json::parse(
      R"({"className":"VarianceScaling","config":{"scale":2,"mode":"fanAvg","distribution":"truncatedNormal"}})"));
  EXPECT_EQ(camel->getConfig()["mode"], "fan_avg");
  EXPECT_EQ(camel->getConfig()["distribution"], "truncated_normal");
  for (auto n : {"glorotUniform", "glorot_uniform", "GlorotUniform"})
    EXPECT_EQ(get(n)->getConfig(), glorotUniform()->getConfig()) << n;
  for (auto n : {"leCunNormal", "lecun_normal", "LeCunNormal"})
    EXPECT_EQ(get(n)->getConfig(), lecunNormal()->getConfig()) << n;
  EXPECT_EQ(get("zeros")->className(), "Zeros");
  EXPECT_EQ(get("orthogonal")->className(), "Orthogonal");
}

TEST(Initializers, Errors) {
  using namespace initializers;
  expectError([] { get("xavier"); }, {"[initializers]", "'xavier'", "GlorotUniform", "Orthogonal"});
  expectError([] { identity()->init({2, 3}); }, {"[initializers]", "Identity", "[2,3]"});
  expectError([] { orthogonal()->init({5}); },
              {"[initializers]", "Orthogonal", "rank >= 2", "[5]"});
  expectError([] { varianceScaling(1, "fan_sideways"); },
              {"VarianceScaling", "mode", "fan_sideways"});
  expectError([] { varianceScaling(-1); }, {"VarianceScaling", "scale", "-1"});
  expectError([] { varianceScaling(1, "fan_in", "cauchy"); }, {"distribution", "cauchy"});
  expectError([] { glorotUniform()->init({2, 2}, DType::boolean); }, {"[initializers]", "bool"});
  expectError([] { fromConfig(Json::parse(R"({"config":{}})")); },
              {"[initializers]", "class_name"});
  expectError([] { fromConfig(Json::parse(R"({"class_name":"Constant","config":{}})")); },
              {"Constant", "value"});
  expectError(
      [] { fromConfig(Json::parse(R"({"class_name":"RandomNormal","config":{"stddev":"x"}})")); },
      {"RandomNormal", "stddev", "number"});
}

}  // namespace
}  // namespace glint::testing
