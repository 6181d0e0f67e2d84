// Optimizers, schedules and clipping, checked against double-precision
// re-implementations of the update formulas and hand-computed values.
#include "glint/optim.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>

#include "glint/glint.h"
#include "glint/json.h"
#include "op_harness.h"

namespace glint {
namespace {

using testing::expectError;
using testing::testBackends;

struct BackendGuard {
  std::string saved = getBackend();
  ~BackendGuard() { setBackend(saved); }
};

std::vector<double> values(const Tensor& t) {
  std::vector<float> f = t.data<float>();
  return {f.begin(), f.end()};
}

void expectClose(const std::vector<double>& got, const std::vector<double>& want, double rel = 2e-5,
                 const std::string& what = "") {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], rel * std::max(1.0, std::abs(want[i])) + 1e-6)
        << what << " element " << i;
}

// ---- Double-precision reference updates ---------------------------------------

/// One variable's optimizer state in double: up to three slots.
struct RefState {
  std::vector<double> a, b, c;
};
using RefStep =
    std::function<void(RefState&, std::vector<double>& w, const std::vector<double>& g, int t)>;

void ensure(std::vector<double>& slot, size_t n, double init = 0) {
  if (slot.empty()) slot.assign(n, init);
}

RefStep refSgd(double lr) {
  return [=](RefState&, std::vector<double>& w, const std::vector<double>& g, int) {
    for (size_t i = 0; i < w.size(); ++i) w[i] -= lr * g[i];
  };
}

RefStep refMomentum(double lr, double mu, bool nesterov) {
  return [=](RefState& s, std::vector<double>& w, const std::vector<double>& g, int) {
    ensure(s.a, w.size());
    for (size_t i = 0; i < w.size(); ++i) {
      s.a[i] = mu * s.a[i] + g[i];
      w[i] -= lr * (nesterov ? g[i] + mu * s.a[i] : s.a[i]);
    }
  };
}

RefStep refAdam(double lr, double b1, double b2, double eps, double wd = 0) {
  return [=](RefState& s, std::vector<double>& w, const std::vector<double>& g, int t) {
    ensure(s.a, w.size());
    ensure(s.b, w.size());
    for (size_t i = 0; i < w.size(); ++i) {
      w[i] -= lr * wd * w[i];  // decoupled decay (AdamW); 0 for Adam
      s.a[i] = b1 * s.a[i] + (1 - b1) * g[i];
      s.b[i] = b2 * s.b[i] + (1 - b2) * g[i] * g[i];
      double mHat = s.a[i] / (1 - std::pow(b1, t));
      double vHat = s.b[i] / (1 - std::pow(b2, t));
      w[i] -= lr * mHat / (std::sqrt(vHat) + eps);
    }
  };
}

RefStep refAdamax(double lr, double b1, double b2, double eps, double decay) {
  return [=](RefState& s, std::vector<double>& w, const std::vector<double>& g, int t) {
    ensure(s.a, w.size());
    ensure(s.b, w.size());
    double lrT = lr / (1 + (t - 1) * decay) / (1 - std::pow(b1, t));
    for (size_t i = 0; i < w.size(); ++i) {
      s.a[i] = b1 * s.a[i] + (1 - b1) * g[i];
      s.b[i] = std::max(b2 * s.b[i], std::abs(g[i]));
      w[i] -= lrT * s.a[i] / (s.b[i] + eps);
    }
  };
}

RefStep refRmsprop(double lr, double rho, double mu, double eps, bool centered) {
  return [=](RefState& s, std::vector<double>& w, const std::vector<double>& g, int) {
    ensure(s.a, w.size());
    ensure(s.b, w.size());
    ensure(s.c, w.size());
    for (size_t i = 0; i < w.size(); ++i) {
      s.a[i] = rho * s.a[i] + (1 - rho) * g[i] * g[i];
      double denom = s.a[i] + eps;
      if (centered) {
        s.c[i] = rho * s.c[i] + (1 - rho) * g[i];
        denom -= s.c[i] * s.c[i];
      }
      s.b[i] = mu * s.b[i] + lr * g[i] / std::sqrt(denom);
      w[i] -= s.b[i];
    }
  };
}

RefStep refAdagrad(double lr, double init) {
  return [=](RefState& s, std::vector<double>& w, const std::vector<double>& g, int) {
    ensure(s.a, w.size(), init);
    for (size_t i = 0; i < w.size(); ++i) {
      s.a[i] += g[i] * g[i];
      w[i] -= lr * g[i] / std::sqrt(s.a[i] + 1e-7);
    }
  };
}

// Zeiler's Adadelta (as Keras): the step uses the updated gradient accumulator.
RefStep refAdadelta(double lr, double rho, double eps) {
  return [=](RefState& s, std::vector<double>& w, const std::vector<double>& g, int) {
    ensure(s.a, w.size());
    ensure(s.b, w.size());
    for (size_t i = 0; i < w.size(); ++i) {
      s.a[i] = rho * s.a[i] + (1 - rho) * g[i] * g[i];
      double update = std::sqrt(s.b[i] + eps) / std::sqrt(s.a[i] + eps) * g[i];
      s.b[i] = rho * s.b[i] + (1 - rho) * update * update;
      w[i] -= lr * update;
    }
  };
}

struct OptCase {
  std::string name;
  std::function<std::unique_ptr<Optimizer>()> make;
  RefStep ref;
  std::vector<std::string> slots;  // TF.js slot names, in save order
};

std::vector<OptCase> optCases() {
  // Hyperparameters away from defaults (large epsilons) so each term shows.
  return {
      {"sgd", [] { return sgd(0.1f); }, refSgd(0.1), {}},
      {"momentum", [] { return momentum(0.1f, 0.8f); }, refMomentum(0.1, 0.8, false), {"momentum"}},
      {"nesterov",
       [] { return momentum(0.1f, 0.8f, true); },
       refMomentum(0.1, 0.8, true),
       {"momentum"}},
      {"adam",
       [] { return adam(0.1f, 0.8f, 0.9f, 1e-2f); },
       refAdam(0.1, 0.8, 0.9, 1e-2),
       {"m", "v"}},
      {"adamw",
       [] { return adamw(0.1f, 0.8f, 0.9f, 1e-2f, 0.5f); },
       refAdam(0.1, 0.8, 0.9, 1e-2, 0.5),
       {"m", "v"}},
      {"adamax",
       [] { return adamax(0.1f, 0.8f, 0.9f, 1e-2f, 0.25f); },
       refAdamax(0.1, 0.8, 0.9, 1e-2, 0.25),
       {"m", "v"}},
      {"rmsprop",
       [] { return rmsprop(0.05f, 0.8f, 0.0f, 1e-2f); },
       refRmsprop(0.05, 0.8, 0.0, 1e-2, false),
       {"rms", "momentum"}},
      {"rmsprop_momentum",
       [] { return rmsprop(0.05f, 0.8f, 0.5f, 1e-2f); },
       refRmsprop(0.05, 0.8, 0.5, 1e-2, false),
       {"rms", "momentum"}},
      {"rmsprop_centered",
       [] { return rmsprop(0.05f, 0.8f, 0.5f, 1e-2f, true); },
       refRmsprop(0.05, 0.8, 0.5, 1e-2, true),
       {"rms", "momentum", "mg"}},
      {"adagrad", [] { return adagrad(0.2f, 0.3f); }, refAdagrad(0.2, 0.3), {"accumulator"}},
      {"adadelta",
       [] { return adadelta(0.5f, 0.8f, 1e-2f); },
       refAdadelta(0.5, 0.8, 1e-2),
       {"accum_grad", "accum_var"}},
  };
}

// Fixed gradients: different per element, sign and step.
std::vector<double> gradAt(size_t n, int t, double seed) {
  std::vector<double> g(n);
  for (size_t i = 0; i < n; ++i)
    g[i] = std::sin(seed + 1.3 * static_cast<double>(i) + 0.7 * t) * (0.2 + 0.3 * t);
  return g;
}

Tensor toTensor(const std::vector<double>& v, const Shape& shape) {
  return tensor(std::vector<float>(v.begin(), v.end()), shape);
}

TEST(Optim, UpdateRulesMatchDoublePrecisionFormulas) {
  BackendGuard guard;
  for (const std::string& backend : testBackends()) {
    setBackend(backend);
    for (const OptCase& c : optCases()) {
      SCOPED_TRACE(backend + " " + c.name);
      std::vector<double> w1 = {0.5, -1.0, 2.0, 0.0, 0.25, -0.75}, w2 = {1.5, -0.5, 0.1};
      Variable v1 = variable(toTensor(w1, {2, 3}), true, "dense/kernel");
      Variable v2 = variable(toTensor(w2, {3}), true, "dense/bias");
      std::unique_ptr<Optimizer> opt = c.make();
      RefState s1, s2;
      for (int t = 1; t <= 4; ++t) {
        std::vector<double> g1 = gradAt(6, t, 0.1), g2 = gradAt(3, t, 2.0);
        opt->applyGradients({v1, v2}, {toTensor(g1, {2, 3}), toTensor(g2, {3})});
        c.ref(s1, w1, g1, t);
        c.ref(s2, w2, g2, t);
        expectClose(values(v1), w1, 2e-5, "step " + std::to_string(t) + " kernel");
        expectClose(values(v2), w2, 2e-5, "step " + std::to_string(t) + " bias");
      }
      EXPECT_EQ(opt->iterations(), 4);
      // The saved state: TF.js names and order, values equal to the reference slots.
      auto weights = opt->getWeights();
      ASSERT_EQ(weights.size(), 1 + 2 * c.slots.size());
      EXPECT_EQ(weights[0].first, "iter");
      EXPECT_EQ(weights[0].second.dtype(), DType::int32);
      EXPECT_EQ(weights[0].second.item(), 4.0f);
      for (size_t k = 0; k < c.slots.size(); ++k) {
        EXPECT_EQ(weights[1 + 2 * k].first, "dense/kernel/" + c.slots[k]);
        EXPECT_EQ(weights[2 + 2 * k].first, "dense/bias/" + c.slots[k]);
        const std::vector<double>& ref1 = k == 0 ? s1.a : k == 1 ? s1.b : s1.c;
        // Momentum's accumulator is RefState::a, as is every first slot.
        expectClose(values(weights[1 + 2 * k].second), ref1, 2e-5, "slot " + c.slots[k]);
        EXPECT_EQ(weights[1 + 2 * k].second.shape(), (Shape{2, 3}));
      }
    }
  }
}

TEST(Optim, EveryOptimizerConvergesOnAQuadratic) {
  BackendGuard guard;
  // Per-element curvatures 0.5..2 make the problem mildly ill-conditioned.
  const std::vector<float> target = {1, -2, 0.5f, 3};
  const std::vector<float> curv = {0.5f, 1, 2, 1.5f};
  struct Conv {
    std::string name;
    std::function<std::unique_ptr<Optimizer>()> make;
    int steps;
  };
  std::vector<Conv> convs = {
      {"sgd", [] { return sgd(0.1f); }, 50},
      {"momentum", [] { return momentum(0.1f, 0.5f); }, 50},
      {"nesterov", [] { return momentum(0.1f, 0.5f, true); }, 50},
      {"adam", [] { return adam(0.3f, 0.5f); }, 60},
      {"adamw", [] { return adamw(0.3f, 0.5f, 0.999f, 1e-7f, 1e-4f); }, 60},
      {"adamax", [] { return adamax(0.3f, 0.5f); }, 60},
      {"rmsprop", [] { return rmsprop(0.05f); }, 100},
      {"rmsprop_centered", [] { return rmsprop(0.05f, 0.9f, 0.5f, 1e-7f, true); }, 60},
      {"adagrad", [] { return adagrad(1.0f); }, 50},
      {"adadelta", [] { return adadelta(1.0f, 0.9f, 1e-2f); }, 60},
  };
  for (const std::string& backend : testBackends()) {
    setBackend(backend);
    Tensor t = tensor(target, {4}), k = tensor(curv, {4});
    for (const Conv& c : convs) {
      SCOPED_TRACE(backend + " " + c.name);
      Variable w = variable(zeros({4}), true, "w");
      auto loss = [&] { return sum(mul(k, square(sub(w, t)))); };
      std::unique_ptr<Optimizer> opt = c.make();
      float initial = tidy(loss).item();
      for (int i = 0; i < c.steps; ++i) opt->minimize(loss);
      EXPECT_LT(tidy(loss).item(), 1e-4f * initial);
      std::vector<float> got = w.data<float>();
      for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], target[i], 0.02f);
    }
  }
}

TEST(Optim, SchedulesFollowTheirFormulas) {
  const double pi = std::numbers::pi;
  auto exp = exponentialDecay(0.1f, 10, 0.5f);
  auto stair = exponentialDecay(0.1f, 10, 0.5f, /*staircase=*/true);
  for (int64_t s : {0, 1, 5, 10, 15, 30}) {
    EXPECT_NEAR(exp->at(s), 0.1 * std::pow(0.5, s / 10.0), 1e-8) << s;
    EXPECT_NEAR(stair->at(s), 0.1 * std::pow(0.5, s / 10), 1e-8) << s;
  }
  EXPECT_NEAR(stair->at(19), 0.05, 1e-8);
  EXPECT_NEAR(stair->at(20), 0.025, 1e-8);

  auto pw = piecewiseConstant({10, 20}, {1.0f, 0.5f, 0.1f});
  EXPECT_EQ(pw->at(0), 1.0f);
  EXPECT_EQ(pw->at(10), 1.0f);  // boundaries are inclusive on the left piece (Keras)
  EXPECT_EQ(pw->at(11), 0.5f);
  EXPECT_EQ(pw->at(20), 0.5f);
  EXPECT_EQ(pw->at(21), 0.1f);
  EXPECT_EQ(pw->at(1000), 0.1f);

  auto cosine = cosineDecay(0.2f, 100, 0.1f);
  EXPECT_NEAR(cosine->at(0), 0.2, 1e-7);
  EXPECT_NEAR(cosine->at(50), 0.2 * (0.9 * 0.5 + 0.1), 1e-7);
  EXPECT_NEAR(cosine->at(25), 0.2 * (0.9 * 0.5 * (1 + std::cos(pi / 4)) + 0.1), 1e-7);
  EXPECT_NEAR(cosine->at(100), 0.02, 1e-7);
  EXPECT_NEAR(cosine->at(500), 0.02, 1e-7);  // stays at alpha after decaySteps

  auto poly = polynomialDecay(0.1f, 10, 0.01f, 2.0f);
  EXPECT_NEAR(poly->at(0), 0.1, 1e-7);
  EXPECT_NEAR(poly->at(5), 0.09 * 0.25 + 0.01, 1e-7);
  EXPECT_NEAR(poly->at(10), 0.01, 1e-7);
  EXPECT_NEAR(poly->at(99), 0.01, 1e-7);
  auto cyc = polynomialDecay(0.1f, 10, 0.0f, 1.0f, /*cycle=*/true);
  EXPECT_NEAR(cyc->at(15), 0.1 * (1 - 15.0 / 20), 1e-7);  // period grew to 20
  EXPECT_NEAR(cyc->at(20), 0.0, 1e-7);

  auto inv = inverseTimeDecay(0.1f, 5, 0.5f);
  auto invStair = inverseTimeDecay(0.1f, 5, 0.5f, true);
  EXPECT_NEAR(inv->at(7), 0.1 / (1 + 0.5 * 7 / 5.0), 1e-8);
  EXPECT_NEAR(invStair->at(7), 0.1 / (1 + 0.5 * 1), 1e-8);

  // Keras class names and config keys; configs rebuild the same schedule.
  EXPECT_EQ(exp->className(), "ExponentialDecay");
  EXPECT_EQ(pw->className(), "PiecewiseConstantDecay");
  EXPECT_EQ(stair->getConfig().dump(),
            R"({"initial_learning_rate":0.1,"decay_steps":10,"decay_rate":0.5,"staircase":true})");
  EXPECT_EQ(pw->getConfig().dump(), R"({"boundaries":[10,20],"values":[1.0,0.5,0.1]})");
  for (const auto& s : {exp, stair, pw, cosine, poly, cyc, inv, invStair}) {
    auto back = scheduleFromConfig(s->className(), s->getConfig());
    for (int64_t step : {0, 3, 11, 25, 120}) EXPECT_EQ(back->at(step), s->at(step)) << step;
  }
}

TEST(Optim, OptimizerUsesItsScheduleStepByStep) {
  BackendGuard guard;
  for (const std::string& backend : testBackends()) {
    setBackend(backend);
    SCOPED_TRACE(backend);
    // Step k (from 0) uses lr(k): 1, 1, 0.5, 0.5, 0.25.
    auto opt = sgd(0.01f);
    opt->setSchedule(piecewiseConstant({1, 3}, {1.0f, 0.5f, 0.25f}));
    Variable w = variable(scalar(0.0f), true, "w");
    double expect = 0;
    for (double lr : {1.0, 1.0, 0.5, 0.5, 0.25}) {
      EXPECT_FLOAT_EQ(opt->learningRate(), static_cast<float>(lr));
      opt->applyGradients({w}, {scalar(2.0f)});
      expect -= lr * 2;
      EXPECT_FLOAT_EQ(w.item(), static_cast<float>(expect));
    }
    Json config = opt->getConfig();
    EXPECT_EQ(config["learningRate"]["class_name"], "PiecewiseConstantDecay");
    opt->setLearningRate(0.1f);
    EXPECT_EQ(opt->schedule(), nullptr);
    EXPECT_FLOAT_EQ(opt->learningRate(), 0.1f);
  }
}

TEST(Optim, ClippingByValueNormAndGlobalNorm) {
  BackendGuard guard;
  for (const std::string& backend : testBackends()) {
    setBackend(backend);
    SCOPED_TRACE(backend);
    expectClose(values(clipByNorm(tensor({3, 4}, {2}), 1.0f)), {0.6, 0.8});
    expectClose(values(clipByNorm(tensor({3, 4}, {2}), 10.0f)), {3, 4});
    expectClose(values(clipByNorm(zeros({2, 2}), 1.0f)), {0, 0, 0, 0});
    EXPECT_NEAR(globalNorm({tensor({3, 4}, {2}), Tensor(), tensor({12}, {1})}).item(), 13, 1e-5);
    // ||(3, 4, 12)|| = 13: scaled by 6.5 / 13.
    std::vector<Tensor> clipped =
        clipByGlobalNorm({tensor({3, 4}, {2}), Tensor(), tensor({12}, {1})}, 6.5f);
    ASSERT_EQ(clipped.size(), 3u);
    expectClose(values(clipped[0]), {1.5, 2});
    EXPECT_FALSE(clipped[1].defined());
    expectClose(values(clipped[2]), {6});
    expectClose(values(clipByGlobalNorm({tensor({3, 4}, {2})}, 100.0f)[0]), {3, 4});

    // Through an optimizer: SGD(1) subtracts exactly the clipped gradient.
    auto step = [](ClipOptions clip, std::vector<float> g1, std::vector<float> g2) {
      auto opt = sgd(1.0f);
      opt->clip = clip;
      Variable a = variable(zeros({2}), true, "a"), b = variable(zeros({1}), true, "b");
      opt->applyGradients({a, b}, {tensor(g1, {2}), tensor(g2, {1})});
      std::vector<double> out = values(a), vb = values(b);
      out.insert(out.end(), vb.begin(), vb.end());
      for (double& x : out) x = -x;
      return out;
    };
    expectClose(step({.clipValue = 0.5f}, {2, -0.1f}, {-3}), {0.5, -0.1, -0.5});
    expectClose(step({.clipNorm = 1.0f}, {3, 4}, {0.5f}), {0.6, 0.8, 0.5});
    expectClose(step({.globalClipNorm = 6.5f}, {3, 4}, {12}), {1.5, 2, 6});
    // Norms first, then values: (3,4) -> (0.6, 0.8) -> (0.6, 0.7).
    expectClose(step({.clipValue = 0.7f, .clipNorm = 1.0f}, {3, 4}, {0.1f}), {0.6, 0.7, 0.1});
  }
}

TEST(Optim, SavedStateResumesTrainingExactly) {
  BackendGuard guard;
  for (const std::string& backend : testBackends()) {
    setBackend(backend);
    for (const OptCase& c : optCases()) {
      SCOPED_TRACE(backend + " " + c.name);
      // Gradients depend on the weights, so any state lost on restore shows.
      auto makeVars = [] {
        return std::vector<Variable>{variable(tensor({1, -2, 0.5f, 3}, {2, 2}), true, "k"),
                                     variable(tensor({0.3f, -0.7f}, {2}), true, "b")};
      };
      auto lossOf = [](const std::vector<Variable>& v) {
        return [v] { return add(sum(square(v[0] - 1.0f)), sum(mul(square(v[1]), v[1]))); };
      };
      std::vector<Variable> straight = makeVars(), first = makeVars(), resumed = makeVars();
      auto a = c.make(), b = c.make(), fresh = c.make();
      for (int i = 0; i < 6; ++i) a->minimize(lossOf(straight));
      for (int i = 0; i < 3; ++i) b->minimize(lossOf(first));
      auto saved = b->getWeights();
      EXPECT_EQ(saved[0].second.item(), 3.0f);
      for (size_t i = 0; i < resumed.size(); ++i) resumed[i].assign(first[i]);
      fresh->setWeights(saved);
      EXPECT_EQ(fresh->iterations(), 3);
      // Saving right after loading gives back the same state.
      auto again = fresh->getWeights();
      ASSERT_EQ(again.size(), saved.size());
      for (size_t i = 0; i < saved.size(); ++i) {
        EXPECT_EQ(again[i].first, saved[i].first);
        EXPECT_EQ(again[i].second.toFloats(), saved[i].second.toFloats());
      }
      b->minimize(lossOf(first));  // the saved snapshot must not follow later steps
      for (size_t i = 0; i < saved.size(); ++i)
        EXPECT_EQ(again[i].second.toFloats(), saved[i].second.toFloats()) << saved[i].first;
      for (int i = 0; i < 3; ++i) fresh->minimize(lossOf(resumed));
      for (size_t i = 0; i < straight.size(); ++i)
        EXPECT_EQ(resumed[i].data<float>(), straight[i].data<float>()) << straight[i].name();
    }
  }
}

TEST(Optim, MemoryStaysFlatOverManySteps) {
  BackendGuard guard;
  for (const std::string& backend : testBackends()) {
    setBackend(backend);
    for (const OptCase& c : optCases()) {
      // One case per update rule keeps the suite fast.
      if (c.name == "momentum" || c.name == "rmsprop" || c.name == "rmsprop_momentum") continue;
      SCOPED_TRACE(backend + " " + c.name);
      int64_t before = memory().numTensors;
      {
        Variable w = variable(tensor({1, 2, 3, 4}, {2, 2}), true, "w");
        Tensor x = tensor({0.5f, -1}, {2, 1});
        auto opt = c.make();
        opt->clip.clipNorm = 10.0f;
        opt->clip.clipValue = 5.0f;
        auto loss = [&] { return sum(square(matMul(w, x))); };
        opt->minimize(loss);  // creates the slots
        int64_t warm = memory().numTensors;
        EXPECT_EQ(warm, before + 2 + static_cast<int64_t>(c.slots.size()));
        for (int i = 0; i < 100; ++i) {
          if (i % 10 == 0) {
            opt->minimize(loss);
          } else {
            Tensor g = tensor({0.1f, -0.2f, 0.3f, 0.4f}, {2, 2});
            opt->applyGradients({w}, {g});
          }
        }
        EXPECT_EQ(memory().numTensors, warm);
        opt->dispose();
        EXPECT_EQ(memory().numTensors, before + 2);
      }
      EXPECT_EQ(memory().numTensors, before);
    }
  }
}

TEST(Optim, UndefinedGradientSkipsItsVariable) {
  auto opt = adam(0.1f);
  Variable a = variable(tensor({1, 2}, {2}), true, "a");
  Variable b = variable(tensor({3}, {1}), true, "b");
  opt->applyGradients({a, b}, {Tensor(), tensor({1}, {1})});
  EXPECT_EQ(a.data<float>(), (std::vector<float>{1, 2}));
  EXPECT_NEAR(b.item(), 3 - 0.1, 1e-5);  // Adam's first step is lr * sign(g)
  // Slots exist for both (TF.js creates them on first sight), zeros for `a`.
  auto w = opt->getWeights();
  ASSERT_EQ(w.size(), 5u);
  EXPECT_EQ(w[1].first, "a/m");
  EXPECT_EQ(w[1].second.data<float>(), (std::vector<float>{0, 0}));
}

TEST(Optim, MinimizeUsesTheGivenVariablesOnly) {
  auto opt = sgd(0.5f);
  Variable a = variable(tensor({1}, {1}), true, "a");
  Variable b = variable(tensor({2}, {1}), true, "b");
  Tensor loss = opt->minimize([&] { return sum(mul(a, b)); }, {a});
  EXPECT_FLOAT_EQ(loss.item(), 2);
  EXPECT_FLOAT_EQ(a.item(), 1 - 0.5f * 2);
  EXPECT_FLOAT_EQ(b.item(), 2);
  opt->minimize([&] { return sum(mul(a, b)); });  // all trainable: both move
  EXPECT_FLOAT_EQ(a.item(), 0 - 0.5f * 2);
  EXPECT_FLOAT_EQ(b.item(), 2 - 0.5f * 0);
  EXPECT_EQ(opt->iterations(), 2);
}

TEST(Optim, ConfigsUseTfjsNamesAndRoundTrip) {
  EXPECT_EQ(adam()->getConfig().dump(),
            R"({"learningRate":0.001,"beta1":0.9,"beta2":0.999,"epsilon":1e-07})");
  EXPECT_EQ(sgd()->getConfig().dump(), R"({"learningRate":0.01})");
  EXPECT_EQ(momentum(0.1f, 0.9f, true)->getConfig().dump(),
            R"({"learningRate":0.1,"momentum":0.9,"useNesterov":true})");
  EXPECT_EQ(
      rmsprop()->getConfig().dump(),
      R"({"learningRate":0.001,"decay":0.9,"momentum":0.0,"epsilon":1e-07,"centered":false})");
  EXPECT_EQ(adagrad()->getConfig().dump(),
            R"({"learningRate":0.01,"initialAccumulatorValue":0.1})");
  EXPECT_EQ(adadelta()->getConfig().dump(), R"({"learningRate":0.001,"rho":0.95,"epsilon":1e-07})");
  EXPECT_EQ(adamax()->getConfig().dump(),
            R"({"learningRate":0.002,"beta1":0.9,"beta2":0.999,"epsilon":1e-07,"decay":0.0})");
  EXPECT_EQ(adamw()->getConfig()["weightDecay"], 0.004);

  std::vector<std::pair<std::string, std::string>> names = {
      {"sgd", "SGD"},           {"adam", "Adam"},        {"adamw", "AdamW"},
      {"adamax", "Adamax"},     {"rmsprop", "RMSProp"},  {"adagrad", "Adagrad"},
      {"adadelta", "Adadelta"}, {"momentum", "Momentum"}};
  for (const auto& [id, cls] : names) {
    auto byId = optimizerFromConfig(id);
    EXPECT_EQ(byId->className(), cls);
    auto byClass = optimizerFromConfig(cls, byId->getConfig());
    EXPECT_EQ(byClass->getConfig(), byId->getConfig()) << cls;
  }
  // Defaults of TF.js's compile-by-name.
  EXPECT_EQ(optimizerFromConfig("adadelta")->getConfig()["learningRate"], 1.0);
  EXPECT_EQ(optimizerFromConfig("Adam")->getConfig(), adam()->getConfig());
  EXPECT_EQ(optimizerFromConfig("rmsprop")->getConfig(), rmsprop()->getConfig());

  // Keras spellings; SGD with momentum becomes Momentum; clip and schedule survive.
  auto keras = optimizerFromConfig(
      "Adam", {{"learning_rate", 0.01}, {"beta_1", 0.8}, {"clipnorm", 2.0}, {"name", "adam"}});
  EXPECT_EQ(keras->getConfig().dump(),
            R"({"learningRate":0.01,"beta1":0.8,"beta2":0.999,"epsilon":1e-07,"clipnorm":2.0})");
  EXPECT_EQ(*keras->clip.clipNorm, 2.0f);
  auto sgdm =
      optimizerFromConfig("SGD", {{"learning_rate", 0.1}, {"momentum", 0.9}, {"nesterov", true}});
  EXPECT_EQ(sgdm->className(), "Momentum");
  auto scheduled = adam();
  scheduled->setSchedule(exponentialDecay(0.01f, 100, 0.9f));
  scheduled->clip.globalClipNorm = 1.0f;
  auto rebuilt = optimizerFromConfig("Adam", scheduled->getConfig());
  EXPECT_EQ(rebuilt->getConfig(), scheduled->getConfig());
  ASSERT_NE(rebuilt->schedule(), nullptr);
  EXPECT_EQ(rebuilt->schedule()->at(50), scheduled->schedule()->at(50));
}

TEST(Optim, ConstructionErrors) {
  const float nan = std::nanf("");
  expectError([] { sgd(0.0f); }, {"[sgd]", "learningRate", "> 0", "got 0"});
  expectError([&] { adam(nan); }, {"[adam]", "learningRate", "nan"});
  expectError([] { adam(-1e-3f); }, {"[adam]", "learningRate"});
  expectError([] { adam(1e-3f, 1.0f); }, {"[adam]", "beta1", "[0, 1)", "got 1"});
  expectError([] { adamw(1e-3f, 0.9f, -0.1f); }, {"[adamw]", "beta2"});
  expectError([] { adamax(1e-3f, 0.9f, 0.999f, -1e-7f); }, {"[adamax]", "epsilon", ">= 0"});
  expectError([] { adamw(1e-3f, 0.9f, 0.999f, 1e-7f, -1.0f); }, {"[adamw]", "weightDecay"});
  expectError([] { rmsprop(1e-3f, 1.5f); }, {"[rmsprop]", "decay"});
  expectError([] { momentum(0.1f, -0.5f); }, {"[momentum]", "momentum", ">= 0"});
  expectError([] { adagrad(0.1f, -1.0f); }, {"[adagrad]", "initialAccumulatorValue"});
  expectError([] { adadelta(0.1f, 1.0f); }, {"[adadelta]", "rho"});
  expectError([] { sgd()->setLearningRate(std::numeric_limits<float>::infinity()); },
              {"[SGD.setLearningRate]", "learningRate", "inf"});
  expectError([] { sgd()->setSchedule(nullptr); }, {"[SGD.setSchedule]", "null"});
  expectError([] { optimizerFromConfig("adamm"); }, {"[optimizerFromConfig]", "'adamm'", "Adam"});
  expectError(
      [] {
        optimizerFromConfig("adam", {{"beta1", "x"}});
      },
      {"[optimizerFromConfig]", "beta1", "number"});
  expectError([] { optimizerFromConfig("sgd", {{"clipnorm", -1}}); }, {"clipnorm", "> 0"});
  expectError([] { piecewiseConstant({1, 2}, {1.0f}); }, {"[piecewiseConstant]", "values"});
  expectError(
      [] {
        piecewiseConstant({2, 1}, {1.0f, 2.0f, 3.0f});
      },
      {"[piecewiseConstant]", "boundaries must increase"});
  expectError([] { exponentialDecay(0.1f, 0, 0.5f); }, {"[exponentialDecay]", "decaySteps"});
  expectError([] { cosineDecay(0.1f, 10, 2.0f); }, {"[cosineDecay]", "alpha"});
  expectError([] { exponentialDecay(0.1f, 10, 0.5f)->at(-1); }, {"ExponentialDecay", "step"});
  expectError([] { scheduleFromConfig("StepDecay", Json::object()); },
              {"[scheduleFromConfig]", "'StepDecay'"});
  expectError(
      [] {
        scheduleFromConfig("ExponentialDecay", {{"decay_steps", 10}});
      },
      {"ExponentialDecay", "initial_learning_rate"});
  expectError([] { clipByNorm(tensor({1}, {1}), 0.0f); }, {"[clipByNorm]", "clipNorm"});
  expectError([] { clipByGlobalNorm({tensorInt({1}, {1})}, 1.0f); },
              {"[clipByGlobalNorm]", "grads[0]", "float32", "int32"});
}

TEST(Optim, ApplyGradientsErrors) {
  auto opt = adam();
  Variable w = variable(zeros({2, 2}), true, "dense/kernel");
  Variable b = variable(zeros({2}), true, "dense/bias");
  expectError(
      [&] {
        opt->applyGradients({w, b}, {zeros({2, 2})});
      },
      {"[Adam.applyGradients]", "2 variables", "1 gradients"});
  expectError([&] { opt->applyGradients({w}, {zeros({4})}); },
              {"[Adam.applyGradients]", "'dense/kernel'", "[4]", "[2,2]"});
  expectError(
      [&] {
        opt->applyGradients({w}, {zeros({2, 2}, DType::int32)});
      },
      {"[Adam.applyGradients]", "'dense/kernel'", "int32"});
  expectError(
      [&] {
        opt->applyGradients({w, w}, {zeros({2, 2}), zeros({2, 2})});
      },
      {"[Adam.applyGradients]", "'dense/kernel'", "twice"});
  expectError([&] { opt->applyGradients({Variable()}, {zeros({2})}); },
              {"[Adam.applyGradients]", "vars[0]", "not a variable"});
  Variable counts = variable(zeros({2}, DType::int32), true, "counts");
  expectError([&] { opt->applyGradients({counts}, {zeros({2})}); },
              {"[Adam.applyGradients]", "'counts'", "int32", "float32"});
  opt->clip.clipNorm = 1.0f;
  opt->clip.globalClipNorm = 1.0f;
  expectError(
      [&] {
        opt->applyGradients({w}, {zeros({2, 2})});
      },
      {"[Adam.applyGradients]", "clipNorm", "globalClipNorm"});
  opt->clip = {.clipValue = -1.0f};
  expectError(
      [&] {
        opt->applyGradients({w}, {zeros({2, 2})});
      },
      {"[Adam.applyGradients]", "clip.clipValue", "> 0"});
  opt->clip = {};
  // Nothing above changed any state.
  EXPECT_EQ(opt->iterations(), 0);
  EXPECT_EQ(opt->getWeights().size(), 1u);
  EXPECT_EQ(w.data<float>(), (std::vector<float>{0, 0, 0, 0}));

  // Restoring: unknown slot kinds, missing slots or iter, shape mismatch on bind.
  expectError(
      [&] {
        opt->setWeights({{"iter", scalar(1)}, {"dense/kernel/rms", zeros({2, 2})}});
      },
      {"[Adam.setWeights]", "'dense/kernel/rms'", "'<var>/m'"});
  expectError(
      [&] {
        opt->setWeights({{"dense/kernel/m", zeros({2, 2})}, {"dense/kernel/v", zeros({2, 2})}});
      },
      {"[Adam.setWeights]", "'iter'"});
  expectError(
      [&] {
        opt->setWeights({{"iter", scalar(1)}, {"dense/kernel/m", zeros({2, 2})}});
      },
      {"[Adam.setWeights]", "'dense/kernel/v'", "missing"});
  opt->setWeights(
      {{"iter", scalar(1)}, {"dense/kernel/m", zeros({3})}, {"dense/kernel/v", zeros({3})}});
  expectError(
      [&] {
        opt->applyGradients({w}, {zeros({2, 2})});
      },
      {"[Adam.applyGradients]", "'dense/kernel/m'", "[3]", "[2,2]"});
}

}  // namespace
}  // namespace glint
