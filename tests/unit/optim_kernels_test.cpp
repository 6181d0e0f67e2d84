// The one-pass optimizer kernels (glint/optim_ops.h): every backend against
// the reference through the op table, the optimizers that use them against
// the composed-op formulas they replaced, and argument errors.
#include <cmath>
#include <functional>
#include <limits>

#include "glint/optim.h"
#include "glint/optim_ops.h"
#include "op_harness.h"
#include "src/backends/cpu/optim.h"

namespace glint::testing {
namespace {

/// The op table compares one tensor: the updated values, flattened, in order.
Tensor joined(const std::vector<Tensor>& parts) {
  std::vector<Tensor> flat;
  for (const Tensor& p : parts) flat.push_back(reshape(p, {p.size()}));
  return concat(flat, 0);
}

std::vector<OpCase> cases() {
  auto sgd = [](float lr) {
    return [lr](const std::vector<Tensor>& v) { return applyGradientDescent(v[0], v[1], lr); };
  };
  auto momentum = [](float mu, bool nesterov) {
    return [mu, nesterov](const std::vector<Tensor>& v) {
      MomentumUpdate u = applyMomentum(v[0], v[1], v[2], 0.1f, mu, nesterov);
      return joined({u.w, u.accum});
    };
  };
  // c1, c2 as after a few steps; weightDecay > 0 is AdamW.
  auto adam = [](float lr, float weightDecay) {
    return [lr, weightDecay](const std::vector<Tensor>& v) {
      AdamUpdate u = applyAdam(v[0], v[1], v[2], v[3], lr, 0.9f, 0.999f, 1e-7f, 0.271f, 0.002997f,
                               weightDecay);
      return joined({u.w, u.m, u.v});
    };
  };
  auto adamInputs = [](Shape s) {
    return std::vector<InputSpec>{F(s), F(s, -0.5f, 0.5f), F(s, 0.0f, 0.5f), F(s)};
  };
  auto three = [](Shape s) { return std::vector<InputSpec>{F(s), F(s), F(s)}; };
  // Sizes: one element, a vector tail (odd sizes), several vectors plus a
  // tail, empty. (Split over threads: SplitUpdatesMatchOneThread.)
  return {
      {"sgd_scalar", {F({}), F({})}, sgd(0.5f), false},
      {"sgd_tail", {F({3, 5}), F({3, 5})}, sgd(0.01f), false},
      {"sgd_empty", {F({0, 4}), F({0, 4})}, sgd(0.01f), false},
      {"momentum_tail", three({37}), momentum(0.9f, false), false},
      {"momentum_nesterov", three({2, 67}), momentum(0.9f, true), false},
      {"momentum_zero", three({1, 1, 5}), momentum(0.0f, false), false},
      {"momentum_empty", three({3, 0}), momentum(0.9f, true), false},
      {"adam_scalar", adamInputs({}), adam(1e-3f, 0.0f), false},
      {"adam_tail", adamInputs({7, 9}), adam(0.01f, 0.0f), false},
      {"adamw_tail", adamInputs({131}), adam(0.01f, 0.05f), false},
      {"adam_empty", adamInputs({0}), adam(0.01f, 0.0f), false},
      {"adam_zero_moments",
       {F({2, 3}), Fixed({2, 3}, {0, 0, 0, 0, 0, 0}), Fixed({2, 3}, {0, 0, 0, 0, 0, 0}),
        Fixed({2, 3}, {0, 1, -1, 1e-3f, -2, 0})},
       adam(0.1f, 0.0f),
       false},
  };
}

GLINT_OP_CASES(OptimKernels, cases());

/// |a - b| <= 1e-6 relative, with a 1e-7 floor for values near 0.
void expectMatch(const Tensor& got, const Tensor& want, const std::string& what) {
  std::vector<float> a = got.data<float>(), b = want.data<float>();
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], b[i], 1e-6 * std::max(std::abs(a[i]), std::abs(b[i])) + 1e-7)
        << what << " element " << i;
}

/// The composed-op updates the optimizers used before the kernels (copied
/// from src/optim/optimizers.cpp as it was), applied to plain tensors.
using Composed = std::function<void(std::vector<Tensor>& state, const Tensor& g, int step)>;

Composed composedSgd(float lr) {
  return [=](std::vector<Tensor>& s, const Tensor& g, int) { s[0] = g * -lr + s[0]; };
}

Composed composedMomentum(float lr, float mu, bool nesterov) {
  return [=](std::vector<Tensor>& s, const Tensor& g, int) {
    Tensor next = s[1] * mu + g;
    Tensor step = nesterov ? g + next * mu : next;
    s[1] = next;
    s[0] = step * -lr + s[0];
  };
}

Composed composedAdam(float lr, float b1, float b2, float eps, float wd) {
  return [=](std::vector<Tensor>& s, const Tensor& g, int step) {
    float c1 = static_cast<float>(1.0 - std::pow(static_cast<double>(b1), step));
    float c2 = static_cast<float>(1.0 - std::pow(static_cast<double>(b2), step));
    Tensor mNew = s[1] * b1 + g * (1 - b1);
    Tensor vNew = s[2] * b2 + square(g) * (1 - b2);
    Tensor update = (mNew / c1) / (sqrt(vNew / c2) + eps);
    s[1] = mNew;
    s[2] = vNew;
    Tensor base = s[0];
    if (wd > 0) base = s[0] - s[0] * (lr * wd);
    s[0] = update * -lr + base;
  };
}

TEST(OptimKernels, OptimizersMatchTheComposedFormulasOnReference) {
  BackendScope guard;
  setBackend("reference");
  struct Case {
    std::string name;
    std::function<std::unique_ptr<Optimizer>()> make;
    Composed composed;
    size_t slots;
  };
  std::vector<Case> all = {
      {"sgd", [] { return sgd(0.1f); }, composedSgd(0.1f), 0},
      {"momentum", [] { return momentum(0.05f, 0.9f); }, composedMomentum(0.05f, 0.9f, false), 1},
      {"nesterov", [] { return momentum(0.05f, 0.9f, true); }, composedMomentum(0.05f, 0.9f, true),
       1},
      {"adam", [] { return adam(0.01f); }, composedAdam(0.01f, 0.9f, 0.999f, 1e-7f, 0), 2},
      {"adamw", [] { return adamw(0.01f, 0.8f, 0.99f, 1e-6f, 0.1f); },
       composedAdam(0.01f, 0.8f, 0.99f, 1e-6f, 0.1f), 2},
  };
  const Shape shape = {5, 7};
  for (const Case& c : all) {
    SCOPED_TRACE(c.name);
    setSeed(7);
    Tensor w0 = randomUniform(shape, -1, 1);
    Variable w = variable(w0, true, "w");
    std::vector<Tensor> state = {w0};
    for (size_t s = 0; s < c.slots; ++s) state.push_back(zeros(shape));
    std::unique_ptr<Optimizer> opt = c.make();
    for (int step = 1; step <= 3; ++step) {
      Tensor g = randomNormal(shape);
      opt->applyGradients({w}, {g});
      c.composed(state, g, step);
      expectMatch(w, state[0], "w after step " + std::to_string(step));
    }
    std::vector<std::pair<std::string, Tensor>> saved = opt->getWeights();
    ASSERT_EQ(saved.size(), 1 + c.slots);
    for (size_t s = 0; s < c.slots; ++s) expectMatch(saved[1 + s].second, state[1 + s], "slot");
    w.dispose();
  }
}

TEST(OptimKernels, SplitUpdatesMatchOneThread) {
  BackendScope guard;
  setBackend("cpu");
  const Shape shape = {4099};  // uneven task ranges and a tail
  setSeed(11);
  Tensor w = randomUniform(shape, -1, 1), a = randomUniform(shape, -0.5f, 0.5f);
  Tensor v = randomUniform(shape, 0, 0.5f), g = randomNormal(shape);
  auto all = [&] {
    MomentumUpdate mu = applyMomentum(w, a, g, 0.1f, 0.9f, true);
    AdamUpdate ad = applyAdam(w, a, v, g, 0.01f, 0.9f, 0.999f, 1e-7f, 0.19f, 0.002f, 0.01f);
    return joined({applyGradientDescent(w, g, 0.1f), mu.w, mu.accum, ad.w, ad.m, ad.v});
  };
  int64_t saved = cpu::setOptimTaskElements(std::numeric_limits<int64_t>::max());
  std::vector<float> one = all().data<float>();
  cpu::setOptimTaskElements(256);  // as many tasks as the pool has threads
  std::vector<float> split = all().data<float>();
  cpu::setOptimTaskElements(saved);
  EXPECT_EQ(split, one);
  setBackend("reference");
  std::vector<float> want = all().data<float>();
  ASSERT_EQ(want.size(), one.size());
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(one[i], want[i], 1e-5 * std::abs(want[i]) + 1e-6) << "element " << i;
}

TEST(OptimKernels, HaveNoGradient) {
  Tensor w = tensor({1, 2}, {2}), g = tensor({3, 4}, {2});
  expectError(
      [&] { grad([&](const Tensor& x) { return sum(applyGradientDescent(x, g, 0.1f)); }, w); },
      {"ApplyGradientDescent", "no gradient"});
}

TEST(OpErrors, OptimKernelsNameTheArgument) {
  Tensor w = tensor({1, 2, 3}, {3}), g = tensor({1, 2, 3}, {3});
  Tensor wrong = tensor({1, 2}, {2}), ints = tensorInt({1, 2, 3}, {3});
  float inf = INFINITY;
  expectError([&] { applyGradientDescent(w, wrong, 0.1f); },
              {"[applyGradientDescent]", "g", "[3]", "[2]"});
  expectError([&] { applyGradientDescent(ints, g, 0.1f); },
              {"[applyGradientDescent]", "w", "float32", "int32"});
  expectError([&] { applyGradientDescent(w, g, NAN); }, {"[applyGradientDescent]", "lr", "finite"});
  expectError([&] { applyMomentum(w, wrong, g, 0.1f, 0.9f, false); },
              {"[applyMomentum]", "accum", "[3]", "[2]"});
  expectError([&] { applyMomentum(w, g, g, 0.1f, -1.0f, false); },
              {"[applyMomentum]", "momentum", ">= 0"});
  expectError([&] { applyAdam(w, g, g, ints, 0.1f, 0.9f, 0.999f, 1e-7f, 0.1f, 0.1f); },
              {"[applyAdam]", "g", "float32", "int32"});
  expectError([&] { applyAdam(w, g, wrong, g, 0.1f, 0.9f, 0.999f, 1e-7f, 0.1f, 0.1f); },
              {"[applyAdam]", "v", "[3]", "[2]"});
  expectError([&] { applyAdam(w, g, g, g, 0.1f, 1.0f, 0.999f, 1e-7f, 0.1f, 0.1f); },
              {"[applyAdam]", "beta1", "[0, 1)"});
  expectError([&] { applyAdam(w, g, g, g, 0.1f, 0.9f, 0.999f, 1e-7f, 0.1f, 0.0f); },
              {"[applyAdam]", "c2", "(0, 1]"});
  expectError([&] { applyAdam(w, g, g, g, inf, 0.9f, 0.999f, 1e-7f, 0.1f, 0.1f); },
              {"[applyAdam]", "lr", "finite"});
  expectError([&] { applyAdam(w, g, g, g, 0.1f, 0.9f, 0.999f, -1e-7f, 0.1f, 0.1f); },
              {"[applyAdam]", "epsilon", ">= 0"});
  expectError([&] { applyAdam(w, g, g, g, 0.1f, 0.9f, 0.999f, 1e-7f, 0.1f, 0.1f, -0.5f); },
              {"[applyAdam]", "weightDecay", ">= 0"});
}

}  // namespace
}  // namespace glint::testing
