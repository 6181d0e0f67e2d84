// Tape autograd: grad, valueAndGrad, variableGrads, customGrad, memory hygiene.
#include <gtest/gtest.h>

#include "glint/glint.h"
#include "op_harness.h"

namespace glint {
namespace {

using testing::expectError;

TEST(Autograd, GradOfProductRule) {
  // f(x) = sum(x * x * c) -> df/dx = 2 x c
  Tensor c = tensor({1, 2, 3}, {3});
  Tensor x = tensor({0.5f, -1, 2}, {3});
  ValueAndGrads vg = valueAndGrad([&](const Tensor& t) { return sum(mul(mul(t, t), c)); }, x);
  EXPECT_FLOAT_EQ(vg.value.item(), 0.25f * 1 + 1 * 2 + 4 * 3);
  EXPECT_EQ(vg.grads[0].data<float>(), (std::vector<float>{1, -4, 12}));
}

TEST(Autograd, BroadcastOperandGetsSummedGradient) {
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = tensor({10}, {1});
  std::vector<Tensor> g =
      grads([](const std::vector<Tensor>& v) { return sum(add(v[0], v[1])); }, {a, b});
  EXPECT_EQ(g[0].data<float>(), std::vector<float>(6, 1.0f));
  EXPECT_EQ(g[1].shape(), Shape{1});
  EXPECT_EQ(g[1].data<float>(), std::vector<float>{6.0f});
}

TEST(Autograd, UnusedInputGetsZeros) {
  Tensor a = tensor({1, 2}, {2});
  Tensor b = tensor({3, 4}, {2});
  auto g = grads([](const std::vector<Tensor>& v) { return sum(v[0]); }, {a, b});
  EXPECT_EQ(g[1].data<float>(), (std::vector<float>{0, 0}));
}

TEST(Autograd, VariableGradsFindsTrainableVariables) {
  Variable w = variable(tensor({2, 3}, {2}));
  Variable frozen = variable(tensor({5, 5}, {2}), /*trainable=*/false);
  Tensor x = tensor({1, 4}, {2});
  VariableGrads vg = variableGrads([&] { return sum(mul(mul(w, x), frozen)); });
  ASSERT_EQ(vg.variables.size(), 1u);
  EXPECT_EQ(vg.variables[0].id(), w.id());
  EXPECT_EQ(vg.grads[0].data<float>(), (std::vector<float>{5, 20}));
  EXPECT_FLOAT_EQ(vg.value.item(), 2 * 1 * 5 + 3 * 4 * 5);
}

TEST(Autograd, CustomGradReplacesTheRecordedGradient) {
  Tensor x = tensor({1, 2, 3}, {3});
  auto f = [](const std::vector<Tensor>& in) {
    return customGrad(
        [](const std::vector<Tensor>& v) {
          CustomGradResult r;
          r.value = mul(v[0], v[0]);
          r.gradFunc = [](const Tensor& dy) {
            return std::vector<Tensor>{mul(dy, fill(dy.shape(), 7))};
          };
          return r;
        },
        in);
  };
  std::vector<Tensor> g = grads([&](const std::vector<Tensor>& v) { return sum(f(v)); }, {x});
  EXPECT_EQ(g[0].data<float>(), (std::vector<float>{7, 7, 7}));
}

// f may return a tensor made before it ran (captured): that tensor must not
// seem to depend on f's inputs, or its other uses' gradients would flow
// into them through gradFunc.
TEST(Autograd, CustomGradReturningACapturedTensorKeepsItsOtherUsesApart) {
  Tensor c = tensor({2, 3}, {2});
  Tensor x = tensor({1, 1}, {2});
  Tensor g = grad(
      [&](const Tensor& t) {
        Tensor v = customGrad(
            [&](const std::vector<Tensor>&) {
              CustomGradResult r;
              r.value = c;
              r.gradFunc = [](const Tensor& dy) {
                return std::vector<Tensor>{mul(dy, fill(dy.shape(), 5))};
              };
              return r;
            },
            {t});
        return sum(add(v, mul(c, c)));
      },
      x);
  EXPECT_EQ(g.data<float>(), (std::vector<float>{5, 5}));
}

TEST(Autograd, NonScalarResultNeedsNoDyButAcceptsOne) {
  Tensor x = tensor({1, 2}, {2});
  Tensor g = grad([](const Tensor& t) { return mul(t, t); }, x, tensor({1, 10}, {2}));
  EXPECT_EQ(g.data<float>(), (std::vector<float>{2, 40}));
  expectError([&] { grad([](const Tensor& t) { return mul(t, t); }, x, tensor({1}, {1})); },
              {"[grad]", "dy", "[1]", "[2]"});
}

TEST(Autograd, IntegerInputsAreRejected) {
  expectError([] { grad([](const Tensor& t) { return t; }, tensorInt({1}, {1})); },
              {"[grad]", "int32", "float32"});
}

TEST(Autograd, GradientComputationLeavesNoTensorsBehind) {
  Tensor x = tensor({1, 2, 3}, {3});
  MemoryInfo before = memory();
  for (int i = 0; i < 5; ++i) {
    ValueAndGrads vg = valueAndGrad([](const Tensor& t) { return sum(mul(t, add(t, t))); }, x);
  }
  MemoryInfo after = memory();
  EXPECT_EQ(after.numTensors, before.numTensors);
  EXPECT_EQ(after.numBytes, before.numBytes);
}

// Buffers a computation asks its backend for (new or from the pool).
template <class F>
int64_t bufferRequests(F&& f) {
  MemoryInfo before = memory();
  f();
  MemoryInfo after = memory();
  return after.numAllocations + after.numPoolHits - before.numAllocations - before.numPoolHits;
}

TEST(Autograd, InputsNobodyAsksForGetNoGradientWork) {
  // A model's input batch needs no gradient: the matMul, dense and conv rules
  // skip it (a third of a layer's backward work), and still give the
  // gradients that were asked for.
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor w = tensor({1, -1, 0.5f, 2, -2, 1}, {3, 2});
  Tensor bias = tensor({0.1f, -0.2f}, {2});
  Tensor img = randomNormal({1, 5, 5, 2}, 0, 1, 7);
  Tensor filt = randomNormal({3, 3, 2, 4}, 0, 1, 8);
  using Fn = std::function<Tensor(const std::vector<Tensor>&)>;
  const std::vector<std::pair<std::string, std::pair<Fn, std::vector<Tensor>>>> cases = {
      {"matMul", {[](const std::vector<Tensor>& v) { return sum(matMul(v[0], v[1])); }, {x, w}}},
      {"fusedMatMul",
       {[&](const std::vector<Tensor>& v) { return sum(fusedMatMul(v[0], v[1], bias, "relu")); },
        {x, w}}},
      {"conv2d",
       {[](const std::vector<Tensor>& v) { return sum(conv2d(v[0], v[1])); }, {img, filt}}},
  };
  for (const auto& [name, c] : cases) {
    SCOPED_TRACE(name);
    const Fn& f = c.first;
    const Tensor& in = c.second[0];
    const Tensor& weight = c.second[1];
    std::vector<Tensor> both, only;
    int64_t all = bufferRequests([&] { both = grads(f, {in, weight}); });
    int64_t some = bufferRequests([&] {
      only = grads([&](const std::vector<Tensor>& v) { return f({in, v[0]}); }, {weight});
    });
    EXPECT_LT(some, all);
    EXPECT_EQ(only[0].data<float>(), both[1].data<float>());
  }
}

}  // namespace
}  // namespace glint
