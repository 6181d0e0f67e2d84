// Losses: values against double-precision re-implementations and hand values,
// gradients by finite differences (op harness), stability, names, errors.
#include "glint/losses.h"

#include <cmath>
#include <random>

#include "op_harness.h"

namespace glint::testing {
namespace {

using Row = std::vector<double>;
using RefFn = std::function<double(const Row& t, const Row& p)>;

struct Guard {
  std::string saved = getBackend();
  ~Guard() { setBackend(saved); }
};

double clip(double v, double lo, double hi) { return std::min(std::max(v, lo), hi); }
constexpr double kEps = 1e-7;

double refCce(const Row& t, const Row& p) {
  double s = 0, total = 0;
  for (double v : p) s += v;
  for (size_t i = 0; i < t.size(); ++i) total -= t[i] * std::log(clip(p[i] / s, kEps, 1 - kEps));
  return total;
}
double refCceLogits(const Row& t, const Row& x) {
  double m = *std::max_element(x.begin(), x.end()), z = 0, total = 0;
  for (double v : x) z += std::exp(v - m);
  for (size_t i = 0; i < t.size(); ++i) total -= t[i] * (x[i] - m - std::log(z));
  return total;
}
double meanOf(const Row& t, const Row& p, const std::function<double(double, double)>& f) {
  double s = 0;
  for (size_t i = 0; i < t.size(); ++i) s += f(t[i], p[i]);
  return s / static_cast<double>(t.size());
}

enum class Kind { prob, binary, real, sign, positive, logits };

struct LossCase {
  std::string name;
  std::function<Tensor(const Tensor&, const Tensor&)> fn;
  RefFn ref;
  Kind truth, pred;
};

std::vector<double> draw(Kind k, int rows, int cols, std::mt19937& g) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> v(static_cast<size_t>(rows * cols));
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    for (int c = 0; c < cols; ++c) {
      double& x = v[r * cols + c];
      switch (k) {
        case Kind::prob:
          x = 0.05 + u(g);
          s += x;
          break;
        case Kind::binary:
          x = u(g) < 0.5 ? 0 : 1;
          break;
        case Kind::real:
          x = 4 * u(g) - 2;
          break;
        case Kind::sign:
          x = u(g) < 0.5 ? -1 : 1;
          break;
        case Kind::positive:
          x = 0.1 + 2 * u(g);
          break;
        case Kind::logits:
          x = 10 * u(g) - 5;
          break;
      }
    }
    if (k == Kind::prob)
      for (int c = 0; c < cols; ++c) v[r * cols + c] /= s;
  }
  return v;
}

std::vector<LossCase> lossCases() {
  using namespace losses;
  auto sp = [](double x) { return std::log1p(std::exp(-std::abs(x))) + std::max(x, 0.0); };
  return {
      {"cce", [](auto& t, auto& p) { return categoricalCrossentropy(t, p); }, refCce, Kind::prob,
       Kind::positive},
      {"cce_logits", [](auto& t, auto& p) { return categoricalCrossentropy(t, p, true); },
       refCceLogits, Kind::prob, Kind::logits},
      {"cce_smooth", [](auto& t, auto& p) { return categoricalCrossentropy(t, p, true, 0.2f); },
       [](const Row& t, const Row& x) {
         Row s = t;
         for (double& v : s) v = v * 0.8 + 0.2 / static_cast<double>(t.size());
         return refCceLogits(s, x);
       },
       Kind::prob, Kind::logits},
      {"bce", [](auto& t, auto& p) { return binaryCrossentropy(t, p); },
       [](const Row& t, const Row& p) {
         return meanOf(t, p, [](double z, double q) {
           q = clip(q, kEps, 1 - kEps);
           return -(z * std::log(q) + (1 - z) * std::log(1 - q));
         });
       },
       Kind::binary, Kind::prob},
      {"bce_logits", [](auto& t, auto& p) { return binaryCrossentropy(t, p, true); },
       [sp](const Row& t, const Row& p) {
         return meanOf(t, p, [sp](double z, double x) { return sp(x) - x * z; });
       },
       Kind::binary, Kind::logits},
      {"bce_smooth", [](auto& t, auto& p) { return binaryCrossentropy(t, p, true, 0.1f); },
       [sp](const Row& t, const Row& p) {
         return meanOf(t, p, [sp](double z, double x) { return sp(x) - x * (z * 0.9 + 0.05); });
       },
       Kind::binary, Kind::logits},
      {"mse", meanSquaredError,
       [](const Row& t, const Row& p) {
         return meanOf(t, p, [](double a, double b) { return (a - b) * (a - b); });
       },
       Kind::real, Kind::real},
      {"mae", meanAbsoluteError,
       [](const Row& t, const Row& p) {
         return meanOf(t, p, [](double a, double b) { return std::abs(a - b); });
       },
       Kind::real, Kind::real},
      {"mape", meanAbsolutePercentageError,
       [](const Row& t, const Row& p) {
         return 100 * meanOf(t, p, [](double a, double b) {
                  return std::abs((a - b) / std::max(std::abs(a), kEps));
                });
       },
       Kind::real, Kind::real},
      {"msle", meanSquaredLogarithmicError,
       [](const Row& t, const Row& p) {
         return meanOf(t, p, [](double a, double b) {
           double d = std::log1p(std::max(b, kEps)) - std::log1p(std::max(a, kEps));
           return d * d;
         });
       },
       Kind::positive, Kind::positive},
      {"huber", [](auto& t, auto& p) { return huber(t, p, 0.7f); },
       [](const Row& t, const Row& p) {
         return meanOf(t, p, [](double a, double b) {
           double d = std::abs(b - a);
           return d <= 0.7 ? 0.5 * d * d : 0.7 * (d - 0.35);
         });
       },
       Kind::real, Kind::real},
      {"logcosh", logCosh,
       [](const Row& t, const Row& p) {
         return meanOf(t, p, [](double a, double b) { return std::log(std::cosh(b - a)); });
       },
       Kind::real, Kind::logits},
      {"cosine", [](auto& t, auto& p) { return cosineSimilarity(t, p); },
       [](const Row& t, const Row& p) {
         double tt = 0, pp = 0, tp = 0;
         for (size_t i = 0; i < t.size(); ++i) {
           tt += t[i] * t[i];
           pp += p[i] * p[i];
           tp += t[i] * p[i];
         }
         return -tp / std::sqrt(std::max(tt, kEps)) / std::sqrt(std::max(pp, kEps));
       },
       Kind::real, Kind::real},
      {"kld", kullbackLeiblerDivergence,
       [](const Row& t, const Row& p) {
         double s = 0;
         for (size_t i = 0; i < t.size(); ++i)
           s += t[i] * std::log(clip(t[i], kEps, 1) / clip(p[i], kEps, 1));
         return s;
       },
       Kind::prob, Kind::prob},
      {"poisson", poisson,
       [](const Row& t, const Row& p) {
         return meanOf(t, p, [](double a, double b) { return b - a * std::log(b + kEps); });
       },
       Kind::positive, Kind::positive},
      {"hinge", hinge,
       [](const Row& t, const Row& p) {
         return meanOf(t, p, [](double a, double b) { return std::max(0.0, 1 - a * b); });
       },
       Kind::sign, Kind::real},
      {"squared_hinge", squaredHinge,
       [](const Row& t, const Row& p) {
         return meanOf(t, p, [](double a, double b) {
           double h = std::max(0.0, 1 - a * b);
           return h * h;
         });
       },
       Kind::sign, Kind::real},
      {"categorical_hinge", categoricalHinge,
       [](const Row& t, const Row& p) {
         double pos = 0, negv = -1e300;
         for (size_t i = 0; i < t.size(); ++i) {
           pos += t[i] * p[i];
           negv = std::max(negv, (1 - t[i]) * p[i]);
         }
         return std::max(0.0, negv - pos + 1);
       },
       Kind::binary, Kind::real},
  };
}

TEST(Losses, MatchDoubleReferenceOnEveryBackend) {
  Guard guard;
  const int rows = 5, cols = 4;
  for (const std::string& backend : testBackends()) {
    setBackend(backend);
    std::mt19937 g(42);
    for (const LossCase& c : lossCases()) {
      SCOPED_TRACE(backend + " " + c.name);
      std::vector<double> t = draw(c.truth, rows, cols, g), p = draw(c.pred, rows, cols, g);
      Tensor out = c.fn(tensor(std::vector<float>(t.begin(), t.end()), {rows, cols}),
                        tensor(std::vector<float>(p.begin(), p.end()), {rows, cols}));
      ASSERT_EQ(out.shape(), Shape({rows}));
      std::vector<float> got = out.toFloats();
      for (int r = 0; r < rows; ++r) {
        // Compare against the float32 inputs the op actually saw.
        Row tr, pr;
        for (int k = 0; k < cols; ++k) {
          tr.push_back(static_cast<float>(t[r * cols + k]));
          pr.push_back(static_cast<float>(p[r * cols + k]));
        }
        double want = c.ref(tr, pr);
        EXPECT_NEAR(got[r], want, 2e-5 * std::max(1.0, std::abs(want))) << "row " << r;
      }
    }
  }
}

TEST(Losses, HandValues) {
  using namespace losses;
  Tensor t = tensor({0, 1, 0}, {1, 3}), p = tensor({0.1f, 0.8f, 0.1f}, {1, 3});
  EXPECT_NEAR(categoricalCrossentropy(t, p).item(), -std::log(0.8), 1e-6);
  EXPECT_NEAR(sparseCategoricalCrossentropy(tensorInt({1}, {1}), p).item(), -std::log(0.8), 1e-6);
  EXPECT_NEAR(sparseCategoricalCrossentropy(tensor({1}, {1, 1}), p).item(), -std::log(0.8), 1e-6);
  EXPECT_NEAR(meanSquaredError(tensor({1, 2}, {1, 2}), tensor({3, 5}, {1, 2})).item(), 6.5, 1e-6);
  EXPECT_NEAR(meanAbsoluteError(tensorInt({1, 2}, {1, 2}), tensor({3, 5}, {1, 2})).item(), 2.5,
              1e-6);
  EXPECT_NEAR(binaryCrossentropy(tensor({1, 0}, {1, 2}), tensor({0.9f, 0.2f}, {1, 2})).item(),
              -(std::log(0.9) + std::log(0.8)) / 2, 1e-6);
  // huber delta 1: d = 0.5 -> 0.125; d = 3 -> 2.5.
  EXPECT_NEAR(huber(tensor({0, 0}, {1, 2}), tensor({0.5f, -3}, {1, 2})).item(), (0.125 + 2.5) / 2,
              1e-6);
  EXPECT_NEAR(cosineSimilarity(tensor({1, 0}, {1, 2}), tensor({2, 0}, {1, 2})).item(), -1, 1e-6);
  EXPECT_NEAR(hinge(tensor({1, -1}, {1, 2}), tensor({0.3f, 0.5f}, {1, 2})).item(), (0.7 + 1.5) / 2,
              1e-6);
  // Per-sample shape: [2, 3, 4] -> [2, 3]; cosine over axis 1 -> [2, 4].
  Tensor a = ones({2, 3, 4});
  EXPECT_EQ(meanSquaredError(a, a).shape(), Shape({2, 3}));
  EXPECT_EQ(cosineSimilarity(a, a, 1).shape(), Shape({2, 4}));
  EXPECT_EQ(sparseCategoricalCrossentropy(zeros({2, 3}, DType::int32), a).shape(), Shape({2, 3}));
}

TEST(Losses, FusedSoftmaxCrossEntropyIsStableAtExtremeLogits) {
  Guard guard;
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE(backend);
    setBackend(backend);
    Tensor y = tensor({0, 1, 0, 1, 0, 0}, {2, 3});
    Tensor x = tensor({1000, 0, -1000, 1000, 999, -1000}, {2, 3});
    auto vg = valueAndGrad(
        [&](const Tensor& l) { return losses::categoricalCrossentropy(y, l, true); }, x);
    std::vector<float> v = vg.value.toFloats(), g = vg.grads[0].toFloats();
    EXPECT_NEAR(v[0], 1000, 1e-3);
    EXPECT_NEAR(v[1], std::log1p(std::exp(-1.0)), 1e-4);  // float32 spacing at 1000 is 6e-5
    // softmax - y: row 0 = [1, -1, 0]; row 1 = [s - 1, 1 - s, 0], s = 1 / (1 + e^-1).
    double s = 1 / (1 + std::exp(-1.0));
    std::vector<double> want = {1, -1, 0, s - 1, 1 - s, 0};
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(g[i], want[i], 1e-5) << i;
    // Sparse ids take the same fused path.
    auto sg = grad(
        [&](const Tensor& l) {
          return losses::sparseCategoricalCrossentropy(tensorInt({1, 0}, {2}), l, true);
        },
        x);
    std::vector<float> g2 = sg.toFloats();
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(g2[i], want[i], 1e-5) << i;
    // Binary from logits: x = +-1000.
    Tensor z = tensor({1, 0, 0, 1}, {2, 2}), bx = tensor({1000, -1000, 1000, -1000}, {2, 2});
    auto bg =
        valueAndGrad([&](const Tensor& l) { return losses::binaryCrossentropy(z, l, true); }, bx);
    std::vector<float> bv = bg.value.toFloats(), bgr = bg.grads[0].toFloats();
    EXPECT_NEAR(bv[0], 0, 1e-6);
    EXPECT_NEAR(bv[1], 1000, 1e-3);
    std::vector<double> bw = {0, 0, 0.5, -0.5};  // (sigmoid(x) - z) / 2
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(bgr[i], bw[i], 1e-6) << i;
    // Probabilities at 0 and 1 are clipped, never inf.
    float clipped =
        losses::categoricalCrossentropy(tensor({1, 0}, {1, 2}), tensor({0, 1}, {1, 2})).item();
    EXPECT_NEAR(clipped, -std::log(1e-7), 1e-2);
    EXPECT_TRUE(
        std::isfinite(losses::binaryCrossentropy(tensor({1}, {1, 1}), tensor({0}, {1, 1})).item()));
  }
}

InputSpec T(Shape s, float lo, float hi) {  // a label input: not differentiated
  InputSpec spec = F(std::move(s), lo, hi);
  spec.differentiable = false;
  return spec;
}

std::vector<OpCase> gradCases() {
  using namespace losses;
  using V = const std::vector<Tensor>&;
  InputSpec probs = Fixed({2, 3}, {0.2f, 0.5f, 0.3f, 0.6f, 0.1f, 0.3f});
  InputSpec labels = Fixed({2, 3}, {0, 1, 0, 1, 0, 0});
  labels.differentiable = false;
  InputSpec signs = Fixed({2, 3}, {1, -1, 1, -1, -1, 1});
  signs.differentiable = false;
  InputSpec zeroTruth = Fixed({2, 3}, {0, 0, 0, 0, 0, 0});
  zeroTruth.differentiable = false;
  InputSpec bits = Fixed({2, 3}, {1, 0, 1, 0, 0, 1});
  bits.differentiable = false;
  return {
      {"cce_probs",
       {labels, F({2, 3}, 0.1f, 1.0f)},
       [](V v) { return categoricalCrossentropy(v[0], v[1]); }},
      {"cce_logits",
       {labels, F({2, 3}, -3, 3)},
       [](V v) { return categoricalCrossentropy(v[0], v[1], true); }},
      {"cce_logits_soft_targets",
       {probs, F({2, 3}, -3, 3)},
       [](V v) { return categoricalCrossentropy(v[0], v[1], true, 0.1f); }},
      {"cce_logits_rank3",
       {T({2, 2, 3}, 0, 1), F({2, 2, 3}, -3, 3)},
       [](V v) { return categoricalCrossentropy(v[0], v[1], true); }},
      {"scce_logits",
       {I({2}, 0, 2), F({2, 3}, -3, 3)},
       [](V v) { return sparseCategoricalCrossentropy(v[0], v[1], true); }},
      {"scce_probs",
       {I({2, 1}, 0, 2), F({2, 3}, 0.1f, 1.0f)},
       [](V v) { return sparseCategoricalCrossentropy(v[0], v[1]); }},
      {"bce_probs",
       {bits, F({2, 3}, 0.05f, 0.95f)},
       [](V v) { return binaryCrossentropy(v[0], v[1]); }},
      {"bce_logits",
       {T({2, 3}, 0, 1), F({2, 3}, -4, 4)},
       [](V v) { return binaryCrossentropy(v[0], v[1], true); }},
      {"mse", {F({2, 3}), F({2, 3})}, [](V v) { return meanSquaredError(v[0], v[1]); }},
      {"mse_int_truth",
       {I({2, 3}, -2, 2), F({2, 3})},
       [](V v) { return meanSquaredError(v[0], v[1]); }},
      {"mae",
       {zeroTruth,
        [] {
          auto s = F({2, 3});
          s.minAbs = 0.1f;
          return s;
        }()},
       [](V v) { return meanAbsoluteError(v[0], v[1]); }},
      {"mape",
       {T({2, 3}, 1, 2), F({2, 3}, -1, 0.5f)},
       [](V v) { return meanAbsolutePercentageError(v[0], v[1]); }},
      {"msle",
       {T({2, 3}, 0.1f, 2), F({2, 3}, 0.1f, 2)},
       [](V v) { return meanSquaredLogarithmicError(v[0], v[1]); }},
      {"huber",
       {zeroTruth,
        [] {
          auto s = F({2, 3}, -3, 3);
          s.minAbs = 0.1f;
          return s;
        }()},
       [](V v) { return huber(v[0], v[1], 1.0f); }},
      {"logcosh", {F({2, 3}), F({2, 3})}, [](V v) { return logCosh(v[0], v[1]); }},
      {"cosine", {F({2, 3}), F({2, 3}, 0.2f, 2)}, [](V v) { return cosineSimilarity(v[0], v[1]); }},
      {"cosine_axis0",
       {F({2, 3}, 0.2f, 2), F({2, 3}, 0.2f, 2)},
       [](V v) { return cosineSimilarity(v[0], v[1], 0); }},
      {"kld",
       {probs, F({2, 3}, 0.1f, 1)},
       [](V v) { return kullbackLeiblerDivergence(v[0], v[1]); }},
      {"poisson", {T({2, 3}, 0, 3), F({2, 3}, 0.2f, 3)}, [](V v) { return poisson(v[0], v[1]); }},
      {"hinge", {signs, F({2, 3}, -0.8f, 0.8f)}, [](V v) { return hinge(v[0], v[1]); }},
      {"squared_hinge",
       {signs, F({2, 3}, -0.8f, 0.8f)},
       [](V v) { return squaredHinge(v[0], v[1]); }},
      {"categorical_hinge",
       {labels, Fixed({2, 3}, {0.1f, 0.5f, -0.4f, 0.2f, 0.9f, -0.3f})},
       [](V v) { return categoricalHinge(v[0], v[1]); }},
      {"mse_empty_batch", {F({0, 3}), F({0, 3})}, [](V v) { return meanSquaredError(v[0], v[1]); }},
      {"mse_size1", {F({1, 1}), F({1, 1})}, [](V v) { return meanSquaredError(v[0], v[1]); }},
  };
}

GLINT_OP_CASES(Losses, gradCases());

TEST(Losses, NamesResolveToTheSameFunctions) {
  Tensor t = tensor({0, 1, 0, 1, 0, 0}, {2, 3}),
         p = tensor({0.2f, 0.5f, 0.3f, 0.6f, 0.1f, 0.3f}, {2, 3});
  auto same = [&](const std::string& name, const Tensor& want) {
    std::vector<float> a = losses::get(name)(t, p).toFloats(), b = want.toFloats();
    ASSERT_EQ(a.size(), b.size()) << name;
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << name;
  };
  for (auto n : {"categoricalCrossentropy", "categorical_crossentropy"})
    same(n, losses::categoricalCrossentropy(t, p));
  for (auto n : {"mse", "MSE", "mean_squared_error", "meanSquaredError"})
    same(n, losses::meanSquaredError(t, p));
  for (auto n : {"mae", "mean_absolute_error"}) same(n, losses::meanAbsoluteError(t, p));
  for (auto n : {"binary_crossentropy", "binaryCrossentropy"})
    same(n, losses::binaryCrossentropy(t, p));
  for (auto n : {"kld", "kl_divergence", "kullback_leibler_divergence"})
    same(n, losses::kullbackLeiblerDivergence(t, p));
  for (auto n : {"cosine", "cosineProximity", "cosine_similarity"})
    same(n, losses::cosineSimilarity(t, p));
  same("huber_loss", losses::huber(t, p));
  same("squared_hinge", losses::squaredHinge(t, p));
  same("log_cosh", losses::logCosh(t, p));
  EXPECT_EQ(losses::canonicalName("sparse_categorical_crossentropy"),
            "sparseCategoricalCrossentropy");
  EXPECT_EQ(losses::canonicalName("mse"), "meanSquaredError");
  EXPECT_GE(losses::names().size(), 15u);
}

TEST(Losses, Errors) {
  using namespace losses;
  expectError([] { get("softmaxCrossEntropy"); },
              {"[losses.get]", "softmaxCrossEntropy", "categoricalCrossentropy", "mse"});
  expectError(
      [] {
        meanSquaredError(ones({2, 3}), ones({3, 2}));
      },
      {"[meanSquaredError]", "yTrue [2,3]", "yPred [3,2]", "same shape"});
  expectError(
      [] {
        categoricalCrossentropy(ones({2, 3}), ones({2, 4}), true);
      },
      {"[categoricalCrossentropy]", "[2,3]", "[2,4]"});
  expectError(
      [] {
        sparseCategoricalCrossentropy(tensorInt({0, 3}, {2}), ones({2, 3}));
      },
      {"[sparseCategoricalCrossentropy]", "class id 3", "[0, 3)"});
  expectError(
      [] {
        sparseCategoricalCrossentropy(tensor({-1, 0}, {2}), ones({2, 3}));
      },
      {"[sparseCategoricalCrossentropy]", "class id -1"});
  expectError(
      [] {
        sparseCategoricalCrossentropy(tensorInt({0, 1, 2}, {3}), ones({2, 3}));
      },
      {"[sparseCategoricalCrossentropy]", "yTrue [3]", "[2,3]", "[2]"});
  expectError(
      [] {
        categoricalCrossentropy(ones({1, 2}), ones({1, 2}), false, 1.5f);
      },
      {"[categoricalCrossentropy]", "labelSmoothing", "1.5"});
  expectError([] { meanSquaredError(ones({2}), ones({2}, DType::int32)); },
              {"[meanSquaredError]", "yPred", "float32", "int32"});
  expectError(
      [] {
        cosineSimilarity(ones({2, 2}), ones({2, 2}), 2);
      },
      {"[cosineSimilarity]", "axis"});
  expectError([] { huber(ones({2}), ones({2}), -1); }, {"[huber]", "delta"});
  expectError([] { meanSquaredError(scalar(1), scalar(1)); }, {"[meanSquaredError]", "axis"});
}

TEST(Losses, RepeatedTrainingStepsLeaveNoTensors) {
  Tensor y = tensor({0, 1, 0, 1, 0, 0}, {2, 3});
  Variable w = variable(tensor({0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}, {2, 3}));
  auto step = [&] {
    auto vg = variableGrads([&] { return mean(losses::categoricalCrossentropy(y, w, true)); }, {w});
    w.assign(sub(w, mul(vg.grads[0], scalar(0.1f))));
    mean(losses::sparseCategoricalCrossentropy(tensorInt({1, 0}, {2}), w, true)).item();
    mean(losses::binaryCrossentropy(y, w, true, 0.1f)).item();
  };
  step();
  int64_t before = memory().numTensors;
  for (int i = 0; i < 20; ++i) step();
  EXPECT_EQ(memory().numTensors, before);
}

}  // namespace
}  // namespace glint::testing
