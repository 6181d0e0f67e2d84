// Regularizers and constraints: hand values, gradients, configs, errors.
#include "glint/regularizers.h"

#include <cmath>

#include "glint/json.h"
#include "op_harness.h"

namespace glint::testing {
namespace {

void expectValues(const Tensor& t, const std::vector<double>& want, double tol = 1e-6) {
  std::vector<float> got = t.toFloats();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

TEST(Regularizers, HandValuesOnEveryBackend) {
  BackendScope scope;
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE(backend);
    setBackend(backend);
    Tensor w = tensor({1, -2, 3, 0}, {2, 2});
    Tensor p = regularizers::l1l2(0.1, 0.2)->apply(w);
    EXPECT_EQ(p.shape(), Shape({}));
    EXPECT_NEAR(p.item(), 0.1 * 6 + 0.2 * 14, 1e-6);
    EXPECT_NEAR(regularizers::l1(0.5)->apply(w).item(), 3, 1e-6);
    EXPECT_NEAR(regularizers::l2(0.5)->apply(w).item(), 7, 1e-6);
    EXPECT_NEAR(regularizers::l2()->apply(zeros({0, 3})).item(), 0, 1e-9);

    // Columns [3, 4] (norm 5) and [0, 1] (norm 1).
    Tensor m = tensor({3, 0, 4, 1}, {2, 2});
    double e = 1e-7;
    expectValues(constraints::maxNorm(2, 0)->apply(m),
                 {3 * 2 / (5 + e), 0, 4 * 2 / (5 + e), 1 / (1 + e)});
    // axis 1: rows [3, 0] (norm 3), [4, 1] (norm sqrt 17).
    double r = std::sqrt(17.0);
    expectValues(constraints::maxNorm(2, 1)->apply(m), {2, 0, 4 * 2 / r, 2 / r});
    expectValues(constraints::maxNorm(2, -1)->apply(m), {2, 0, 4 * 2 / r, 2 / r});
    expectValues(constraints::unitNorm(0)->apply(m), {0.6, 0, 0.8, 1});
    expectValues(constraints::nonNeg()->apply(tensor({-1, 2, 0, -3}, {4})), {0, 2, 0, 0});
    // minMaxNorm [0.5, 2], rate 0.5: norm 5 -> 0.5*2 + 0.5*5 = 3.5; norm 0.25 -> 0.5*0.5 + 0.125.
    Tensor small = tensor({3, 0, 4, 0.25f}, {2, 2});
    double a = 3.5 / 5, b = 0.375 / 0.25;
    expectValues(constraints::minMaxNorm(0.5, 2, 0.5, 0)->apply(small), {3 * a, 0, 4 * a, 0.25 * b},
                 1e-5);
  }
}

std::vector<OpCase> gradCases() {
  InputSpec w = F({2, 3});
  w.minAbs = 0.1f;  // |w| kink
  return {
      {"l1l2",
       {w},
       [](const std::vector<Tensor>& v) { return regularizers::l1l2(0.3, 0.2)->apply(v[0]); }},
      {"l2",
       {F({3})},
       [](const std::vector<Tensor>& v) { return regularizers::l2(0.7)->apply(v[0]); }},
      {"max_norm",
       {F({3, 2}, 1, 3)},
       [](const std::vector<Tensor>& v) { return constraints::maxNorm(1.5)->apply(v[0]); }},
      {"unit_norm",
       {F({3, 2}, 0.5f, 2)},
       [](const std::vector<Tensor>& v) { return constraints::unitNorm(1)->apply(v[0]); }},
  };
}

GLINT_OP_CASES(Regularizers, gradCases());

TEST(Regularizers, ConfigsMatchTfjsAndRoundTrip) {
  EXPECT_EQ(regularizers::serialize(*regularizers::l1l2(0.01, 0.02)).dump(),
            R"({"class_name":"L1L2","config":{"l1":0.01,"l2":0.02}})");
  EXPECT_EQ(constraints::serialize(*constraints::maxNorm()).dump(),
            R"({"class_name":"MaxNorm","config":{"max_value":2.0,"axis":0}})");
  EXPECT_EQ(constraints::serialize(*constraints::nonNeg()).dump(),
            R"({"class_name":"NonNeg","config":{}})");
  Tensor w = tensor({1, -2, 3, 0.5f, 4, -1}, {3, 2});
  for (const auto& r :
       {regularizers::l1(0.3), regularizers::l2(0.2), regularizers::l1l2(0.1, 0.4)}) {
    auto back = regularizers::fromConfig(regularizers::serialize(*r));
    EXPECT_EQ(back->getConfig(), r->getConfig());
    EXPECT_EQ(back->apply(w).item(), r->apply(w).item());
  }
  for (const auto& c : {constraints::maxNorm(1.5, 1), constraints::unitNorm(0),
                        constraints::nonNeg(), constraints::minMaxNorm(0.2, 0.9, 0.7, 1)}) {
    SCOPED_TRACE(c->className());
    auto back = constraints::fromConfig(constraints::serialize(*c));
    EXPECT_EQ(back->className(), c->className());
    EXPECT_EQ(back->getConfig(), c->getConfig());
    EXPECT_EQ(back->apply(w).toFloats(), c->apply(w).toFloats());
  }
  // camelCase keys (TF.js in memory) and identifiers.
  auto camel = constraints::fromConfig(
      Json::parse(R"({"className":"MaxNorm","config":{"maxValue":3,"axis":1}})"));
  EXPECT_EQ(camel->getConfig(), constraints::maxNorm(3, 1)->getConfig());
  for (auto n : {"maxNorm", "max_norm", "MaxNorm"})
    EXPECT_EQ(constraints::get(n)->className(), "MaxNorm");
  EXPECT_EQ(constraints::get("non_neg")->className(), "NonNeg");
  EXPECT_EQ(regularizers::get("l1")->getConfig(), regularizers::l1l2(0.01, 0)->getConfig());
  EXPECT_EQ(regularizers::get("L1L2")->getConfig(), regularizers::l1l2()->getConfig());
}

TEST(Regularizers, Errors) {
  expectError([] { regularizers::get("l3"); }, {"[regularizers]", "'l3'", "l1l2"});
  expectError([] { regularizers::fromConfig(Json::parse(R"({"class_name":"L3","config":{}})")); },
              {"[regularizers]", "'L3'", "L1L2, L1, L2"});
  // Keras 3 writes L1 and L2 as their own classes.
  auto l2 = regularizers::fromConfig(Json::parse(
      R"({"module":"keras.regularizers","class_name":"L2","config":{"l2":0.5},"registered_name":null})"));
  EXPECT_EQ(l2->getConfig(), Json::parse(R"({"l1":0.0,"l2":0.5})"));
  expectError([] { regularizers::l1(-1); }, {"[regularizers]", "l1", "-1"});
  expectError([] { regularizers::l2()->apply(ones({2}, DType::int32)); }, {"weights", "int32"});
  expectError([] { constraints::get("clip"); }, {"[constraints]", "'clip'", "MaxNorm", "UnitNorm"});
  expectError(
      [] {
        constraints::maxNorm(2, 2)->apply(ones({2, 2}));
      },
      {"[constraints]", "MaxNorm axis"});
  expectError([] { constraints::minMaxNorm(2, 1); }, {"[constraints]", "MinMaxNorm", "min_value"});
}

}  // namespace
}  // namespace glint::testing
