// Activations: formulas in double, gradients by finite differences, names.
#include "glint/activations.h"

#include <cmath>

#include "op_harness.h"

namespace glint::testing {
namespace {

double sigm(double x) { return 1 / (1 + std::exp(-x)); }
double softplusD(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))); }

const std::vector<std::pair<std::string, std::function<double(double)>>>& formulas() {
  static const std::vector<std::pair<std::string, std::function<double(double)>>> f = {
      {"linear", [](double x) { return x; }},
      {"relu", [](double x) { return std::max(x, 0.0); }},
      {"relu6", [](double x) { return std::min(std::max(x, 0.0), 6.0); }},
      {"elu", [](double x) { return x > 0 ? x : std::expm1(x); }},
      {"selu",
       [](double x) {
         const double a = 1.6732632423543772, s = 1.0507009873554805;
         return x > 0 ? s * x : s * a * std::expm1(x);
       }},
      {"sigmoid", sigm},
      {"hardSigmoid", [](double x) { return std::min(std::max(0.2 * x + 0.5, 0.0), 1.0); }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"softplus", softplusD},
      {"softsign", [](double x) { return x / (1 + std::abs(x)); }},
      {"swish", [](double x) { return x * sigm(x); }},
      {"gelu", [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
      {"gelu_new",
       [](double x) {
         return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
       }},
      {"mish", [](double x) { return x * std::tanh(softplusD(x)); }},
  };
  return f;
}

TEST(Activations, ElementwiseMatchFormulasOnEveryBackend) {
  BackendScope guard;
  std::vector<float> xs = {-30, -7, -3, -2.6f, -1, -0.3f, 0, 0.4f, 1, 2.4f, 3, 6.5f, 30};
  for (const std::string& backend : testBackends()) {
    setBackend(backend);
    for (const auto& [name, f] : formulas()) {
      SCOPED_TRACE(backend + " " + name);
      std::vector<float> got = activations::apply(name, tensor1d(xs)).toFloats();
      for (size_t i = 0; i < xs.size(); ++i) {
        double want = f(xs[i]);
        EXPECT_NEAR(got[i], want, 2e-6 * std::max(1.0, std::abs(want))) << "x = " << xs[i];
      }
    }
  }
}

TEST(Activations, SoftmaxOverTheLastAxis) {
  BackendScope guard;
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE(backend);
    setBackend(backend);
    std::vector<float> x = {1, 2, 3, -1000, 0, 1000};
    std::vector<float> s = activations::apply("softmax", tensor(x, {2, 3})).toFloats();
    std::vector<float> ls = activations::apply("log_softmax", tensor(x, {2, 3})).toFloats();
    double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(s[i], std::exp(i + 1.0) / z, 1e-6);
      EXPECT_NEAR(ls[i], i + 1.0 - std::log(z), 1e-5);
    }
    EXPECT_NEAR(s[3], 0, 1e-7);
    EXPECT_NEAR(s[5], 1, 1e-7);
    EXPECT_NEAR(ls[4], -1000, 1e-3);
  }
}

std::vector<OpCase> gradCases() {
  std::vector<OpCase> cases;
  for (const std::string& name : activations::names()) {
    InputSpec in = F({2, 3}, -2, 2);
    in.minAbs = 0.05f;  // relu, relu6, elu, selu kinks at 0
    cases.push_back({name, {in}, [name](const std::vector<Tensor>& v) {
                       return activations::apply(name, v[0]);
                     }});
  }
  cases.push_back({"softmax_rank3", {F({2, 2, 3})}, [](const std::vector<Tensor>& v) {
                     return activations::apply("softmax", v[0]);
                   }});
  cases.push_back({"relu6_upper", {F({2, 3}, 6.1f, 8)}, [](const std::vector<Tensor>& v) {
                     return activations::apply("relu6", v[0]);
                   }});
  cases.push_back(
      {"hard_sigmoid_saturated", {F({2, 3}, 2.6f, 4)}, [](const std::vector<Tensor>& v) {
         return activations::apply("hard_sigmoid", v[0]);
       }});
  cases.push_back({"swish_empty", {F({0, 3})}, [](const std::vector<Tensor>& v) {
                     return activations::apply("swish", v[0]);
                   }});
  return cases;
}

GLINT_OP_CASES(Activations, gradCases());

TEST(Activations, NamesAsTfjsWritesThem) {
  using namespace activations;
  EXPECT_EQ(names().size(), 16u);
  EXPECT_EQ(canonicalName("hard_sigmoid"), "hardSigmoid");
  EXPECT_EQ(canonicalName("hardSigmoid"), "hardSigmoid");
  EXPECT_EQ(canonicalName("log_softmax"), "logSoftmax");
  EXPECT_EQ(serializedName("hardSigmoid"), "hard_sigmoid");
  EXPECT_EQ(serializedName("logSoftmax"), "log_softmax");
  EXPECT_EQ(serializedName("relu6"), "relu6");
  EXPECT_EQ(serializedName("gelu_new"), "gelu_new");
  EXPECT_TRUE(exists("softsign"));
  EXPECT_TRUE(exists("Relu"));
  EXPECT_FALSE(exists("leaky"));
  for (const std::string& n : names()) EXPECT_EQ(canonicalName(serializedName(n)), n);
}

TEST(Activations, Errors) {
  expectError([] { activations::apply("swishy", ones({2})); },
              {"[activations]", "'swishy'", "relu", "hardSigmoid", "mish"});
  expectError([] { activations::apply("relu", ones({2}, DType::int32)); },
              {"[activation relu]", "x", "int32"});
  expectError([] { activations::apply("softmax", scalar(1)); }, {"[activation softmax]", "axis"});
}

}  // namespace
}  // namespace glint::testing
