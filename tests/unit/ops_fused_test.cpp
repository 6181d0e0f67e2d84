// Fused ops (fusedMatMul, softmaxCrossEntropyWithLogits, argMaxEqual): values against the
// reference and gradients against finite differences through the op table;
// errors; the fused Dense against its unfused composition; and fit's loss
// from logits against the composed loss on probabilities.
#include <cmath>
#include <limits>

#include "glint/activations.h"
#include "glint/layers.h"
#include "glint/losses.h"
#include "glint/model.h"
#include "glint/optim.h"
#include "op_harness.h"

namespace glint::testing {
namespace {

using Args = const std::vector<Tensor>&;

auto fm(const std::string& act, bool tA = false, bool tB = false, float alpha = 0.2f) {
  return [=](Args v) {
    return fusedMatMul(v[0], v[1], v.size() > 2 ? v[2] : Tensor(), act, tA, tB, alpha);
  };
}

Tensor sce(Args v) { return softmaxCrossEntropyWithLogits(v[0], v[1]); }
Tensor ame(Args v) { return argMaxEqual(v[0], v[1]); }
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

/// Multiples of 1/8 in [-2, 2]: products and sums stay exact in float, so the
/// cpu GEMM and its epilogue must match the reference exactly.
InputSpec Quantized(Shape shape, uint32_t seed) {
  std::vector<float> values(static_cast<size_t>(shapeSize(shape)));
  uint32_t s = seed;
  for (float& v : values) {
    s = s * 1664525u + 1013904223u;
    v = static_cast<float>(static_cast<int>((s >> 16) % 33) - 16) / 8.0f;
  }
  return Fixed(std::move(shape), std::move(values));
}

std::vector<OpCase> cases() {
  return {
      {"fm_linear", {F({2, 3}), F({3, 4})}, fm("linear")},
      {"fm_linear_bias", {F({2, 3}), F({3, 4}), F({4})}, fm("linear")},
      {"fm_relu", {F({3, 4}), F({4, 5}), F({5})}, fm("relu")},
      {"fm_relu_nobias", {F({3, 4}), F({4, 5})}, fm("relu")},
      // |z| reaches ~16: both relu6 kinks are crossed.
      {"fm_relu6", {F({3, 4}), F({4, 5}), F({5}, -4, 4)}, fm("relu6")},
      {"fm_elu", {F({3, 4}), F({4, 5}), F({5})}, fm("elu")},
      {"fm_leakyrelu", {F({3, 4}), F({4, 5}), F({5})}, fm("leakyRelu", false, false, 0.3f)},
      // A negative alpha: the gradient cannot read the sign of z from y.
      {"fm_leakyrelu_negative_alpha",
       {F({3, 4}), F({4, 5}), F({5})},
       fm("leakyrelu", false, false, -0.5f)},
      {"fm_sigmoid", {F({3, 4}), F({4, 5}), F({5})}, fm("sigmoid")},
      {"fm_tanh", {F({3, 4}), F({4, 5}), F({5})}, fm("tanh")},
      {"fm_transpose_a", {F({4, 3}), F({4, 5}), F({5})}, fm("relu", true, false)},
      {"fm_transpose_b", {F({3, 4}), F({5, 4}), F({5})}, fm("elu", false, true)},
      {"fm_transpose_both", {F({4, 3}), F({5, 4}), F({5})}, fm("sigmoid", true, true)},
      {"fm_batch", {F({2, 2, 3}), F({2, 3, 4}), F({4})}, fm("tanh")},
      {"fm_broadcast_batch", {F({2, 1, 3, 4}), F({3, 4, 2}), F({2})}, fm("relu")},
      {"fm_broadcast_matrix_a_tt", {F({4, 3}), F({2, 2, 4}), F({2})}, fm("linear", true, true)},
      {"fm_m1_n1_k1", {F({1, 1}), F({1, 1}), F({1})}, fm("sigmoid")},
      {"fm_n1", {F({3, 2}), F({2, 1}), F({1})}, fm("tanh")},
      // k = 0: the output is act(bias) in every row.
      {"fm_k0", {F({2, 0}), F({0, 3}), F({3})}, fm("sigmoid")},
      {"fm_k0_nobias", {F({2, 0}), F({0, 3})}, fm("elu")},
      {"fm_m0", {F({0, 3}), F({3, 2}), F({2})}, fm("relu")},
      {"fm_n0", {F({2, 3}), F({3, 0}), F({0})}, fm("relu")},
      {"fm_batch0", {F({0, 2, 3}), F({3, 2}), F({2})}, fm("tanh")},
      // Past the cpu register tiles and k blocks (256): the epilogue must run
      // once, after the last k block, with the bias of the right columns ...
      {"fm_tiles_kblocks",
       {Quantized({13, 300}, 1), Quantized({300, 70}, 2), Quantized({70}, 3)},
       fm("relu"),
       false},
      {"fm_tiles_kblocks_tt",
       {Quantized({300, 13}, 4), Quantized({70, 300}, 5), Quantized({70}, 6)},
       fm("relu6", true, true),
       false},
      // ... past the column blocks (512) ...
      {"fm_column_blocks",
       {Quantized({3, 5}, 7), Quantized({5, 600}, 8), Quantized({600}, 9)},
       fm("leakyrelu"),
       false},
      // ... and large enough to be split across threads.
      {"fm_threaded",
       {Quantized({64, 300}, 10), Quantized({300, 128}, 11), Quantized({128}, 12)},
       fm("relu"),
       false},
      {"fm_threaded_tanh",
       {F({64, 300}, -0.2f, 0.2f), F({300, 128}, -0.2f, 0.2f), F({128})},
       fm("tanh"),
       false,
       1e-2,
       1e-3,
       1e-4},

      {"sce_basic", {F({3, 4}, 0, 1), F({3, 4})}, sce},
      {"sce_onehot", {Fixed({2, 3}, {0, 1, 0, 0, 0, 1}), F({2, 3})}, sce},
      {"sce_rank1", {F({5}, 0, 1), F({5})}, sce},
      {"sce_rank3", {F({2, 3, 4}, 0, 1), F({2, 3, 4})}, sce},
      {"sce_one_class", {F({3, 1}, 0, 1), F({3, 1})}, sce},
      // Logits far apart: no overflow, log-probabilities stay exact.
      {"sce_large_logits", {F({2, 4}, 0, 1), F({2, 4}, -80, 80)}, sce},
      {"sce_empty_batch", {F({0, 4}), F({0, 4})}, sce},
      {"sce_zero_classes", {F({3, 0}), F({3, 0})}, sce},
      {"sce_wide_rows", {F({3, 37}, 0, 1), F({3, 37}, -5, 5)}, sce, false},
      // Three classes: about a third of the rows peak alike.
      {"argmax_equal_rows", {F({24, 3}), F({24, 3})}, ame, false},
      {"argmax_equal_rank3", {F({2, 5, 2}), F({2, 5, 2})}, ame, false},
      {"argmax_equal_rank1", {F({7}), F({7})}, ame, false},
      {"argmax_equal_wide", {F({4, 37}, 0, 1), F({4, 37}, -5, 5)}, ame, false},
      {"argmax_equal_empty_batch", {F({0, 4}), F({0, 4})}, ame, false},
      // Ties keep the first maximum; NaN never takes over (a first NaN stays).
      {"argmax_equal_ties_nan",
       {Fixed({5, 3}, {1, 1, 0, 2, 5, 5, kNan, 3, 1, 0, kNan, 9, 4, 4, 4}),
        Fixed({5, 3}, {1, 0, 1, 0, 0, 7, 3, 2, 1, 0, 1, kNan, 0, 0, 0})},
       ame,
       false},
  };
}

GLINT_OP_CASES(Fused, cases());

TEST(FusedValues, HandComputedOnEveryBackend) {
  BackendScope scope;
  Tensor a = tensor({1, 2, 3, 4}, {2, 2});
  Tensor b = tensor({1, -1, 2, 0.5f}, {2, 2});  // a b = [[5, 0], [11, -1]]
  Tensor bias = tensor({-6, 0.5f}, {2});
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE("backend " + backend);
    setBackend(backend);
    EXPECT_EQ(fusedMatMul(a, b, bias).data<float>(), (std::vector<float>{-1, 0.5f, 5, -0.5f}));
    EXPECT_EQ(fusedMatMul(a, b, bias, "relu").data<float>(), (std::vector<float>{0, 0.5f, 5, 0}));
    EXPECT_EQ(fusedMatMul(a, b, bias, "LeakyRelu", false, false, 0.5f).data<float>(),
              (std::vector<float>{-0.5f, 0.5f, 5, -0.25f}));
    // Uniform logits over 4 classes: -log(1/4) per unit of label mass.
    std::vector<float> l =
        softmaxCrossEntropyWithLogits(tensor({1, 0, 0, 0, 0.5f, 0.5f, 0, 0}, {2, 4}), zeros({2, 4}))
            .data<float>();
    EXPECT_NEAR(l[0], std::log(4.0), 1e-6);
    EXPECT_NEAR(l[1], std::log(4.0), 1e-6);
    // Logits of 1000 apart: the softmax underflows, the loss does not.
    l = softmaxCrossEntropyWithLogits(tensor({0, 1}, {1, 2}), tensor({1000, 0}, {1, 2}))
            .data<float>();
    EXPECT_NEAR(l[0], 1000.0, 1e-3);
  }
}

TEST(FusedValues, ArgMaxEqualIsTheComposition) {
  // Against the ops it fuses (argMax, equal, cast), on every backend: random
  // rows of 3 classes, and ties and NaN where argMax's rule decides.
  Tensor a = randomUniform({40, 3}, -1, 1, 11), b = randomUniform({40, 3}, -1, 1, 12);
  Tensor ta = tensor({1, 1, 0, 2, 5, 5, kNan, 3, 1, 0, kNan, 9, 4, 4, 4}, {5, 3});
  Tensor tb = tensor({1, 0, 1, 0, 0, 7, 3, 2, 1, 0, 1, kNan, 0, 0, 0}, {5, 3});
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE("backend " + backend);
    BackendScope scope(backend);
    for (auto [x, y] : {std::pair{a, b}, std::pair{ta, tb}}) {
      std::vector<float> want =
          cast(equal(argMax(x, -1), argMax(y, -1)), DType::float32).data<float>();
      EXPECT_EQ(argMaxEqual(x, y).data<float>(), want);
    }
  }
  expectError(
      [] {
        argMaxEqual(zeros({2, 3}), zeros({3, 2}));
      },
      {"[argMaxEqual]", "same shape", "[2,3]", "[3,2]"});
  expectError([] { argMaxEqual(zeros({2, 0}), zeros({2, 0})); }, {"[argMaxEqual]", "size 0"});
}

TEST(FusedValues, SoftmaxCrossEntropyGradientIsSoftmaxMinusLabels) {
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE("backend " + backend);
    BackendScope scope(backend);
    Tensor y = tensor({0, 1, 0, 0.25f, 0.25f, 0.5f}, {2, 3});
    Tensor x = tensor({1, 2, 3, -1, 0, 4}, {2, 3});
    Tensor dx = grad([&](const Tensor& v) { return sum(softmaxCrossEntropyWithLogits(y, v)); }, x);
    std::vector<float> want = sub(softmax(x, -1), y).data<float>();
    std::vector<float> have = dx.data<float>();
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(have[i], want[i], 1e-6) << i;
  }
}

TEST(FusedOpErrors, FusedMatMul) {
  Tensor a = ones({2, 3}), b = ones({3, 4});
  expectError([&] { fusedMatMul(ones({2, 3}, DType::int32), b); }, {"[fusedMatMul]", "a", "int32"});
  expectError([&] { fusedMatMul(a, ones({3})); },
              {"[fusedMatMul]", "b must have rank >= 2", "[3]"});
  expectError(
      [&] {
        fusedMatMul(a, ones({4, 4}));
      },
      {"[fusedMatMul]", "inner dimensions differ", "k = 3", "k = 4"});
  expectError(
      [&] {
        fusedMatMul(ones({2, 2, 3}), ones({3, 3, 4}));
      },
      {"[fusedMatMul]", "batch dimensions", "do not broadcast"});
  expectError([&] { fusedMatMul(a, b, ones({3})); },
              {"[fusedMatMul]", "bias must be [n] = [4]", "float32 [3]"});
  expectError([&] { fusedMatMul(a, b, ones({1, 4})); }, {"[fusedMatMul]", "bias", "[1,4]"});
  expectError([&] { fusedMatMul(a, b, ones({4}, DType::int32)); },
              {"[fusedMatMul]", "bias", "int32"});
  expectError([&] { fusedMatMul(a, b, Tensor(), "softmax"); },
              {"[fusedMatMul]", "activation 'softmax' cannot be fused", "relu6", "leakyrelu"});
  expectError([&] { fusedMatMul(a, b, Tensor(), "leakyrelu", false, false, NAN); },
              {"[fusedMatMul]", "leakyreluAlpha must be a finite number"});
  Tensor gone = ones({3, 4});
  gone.dispose();
  expectError([&] { fusedMatMul(a, gone); }, {"[fusedMatMul]", "b"});
}

TEST(FusedOpErrors, SoftmaxCrossEntropyWithLogits) {
  const char* op = "[softmaxCrossEntropyWithLogits]";
  expectError(
      [&] {
        softmaxCrossEntropyWithLogits(ones({2, 3}, DType::int32), ones({2, 3}));
      },
      {op, "labels", "int32"});
  expectError(
      [&] {
        softmaxCrossEntropyWithLogits(ones({2, 3}), ones({2, 3}, DType::int32));
      },
      {op, "logits", "int32"});
  expectError(
      [&] {
        softmaxCrossEntropyWithLogits(ones({2, 3}), ones({2, 4}));
      },
      {op, "labels float32 [2,3] and logits float32 [2,4] must have the same shape"});
  expectError([&] { softmaxCrossEntropyWithLogits(scalar(1), scalar(1)); },
              {op, "logits must have a class axis"});
}

// ---- the fused Dense and fit's loss from logits ------------------------------

/// Dense(x) against matMul + add + activation with the same weights: values
/// and the gradients of every weight and of x.
void expectDenseMatchesComposition(const std::string& activation, bool useBias, Shape inShape) {
  SCOPED_TRACE("activation " + activation);
  LayerPtr d = layers::dense({{"units", 5},
                              {"activation", activation},
                              {"useBias", useBias},
                              {"biasInitializer", "randomNormal"}});
  Tensor x = randomUniform(inShape, -2, 2, 7);
  d->apply(x);  // builds
  std::vector<Variable> w = d->trainableWeights();
  auto composed = [&](const Tensor& in) {
    Tensor y = matMul(reshape(in, {-1, inShape.back()}), w[0]);
    if (useBias) y = add(y, w[1]);
    Shape out = inShape;
    out.back() = 5;
    return activations::apply(activation, reshape(y, out));
  };
  auto close = [](const Tensor& have, const Tensor& want) {
    ASSERT_EQ(have.shape(), want.shape());
    std::vector<float> h = have.data<float>(), e = want.data<float>();
    for (size_t i = 0; i < h.size(); ++i)
      EXPECT_NEAR(h[i], e[i], 1e-5 * std::max(1.0f, std::abs(e[i]))) << "element " << i;
  };
  close(d->apply(x), composed(x));
  // Weighted sums, so each output element gets its own dy.
  Shape outShape = composed(x).shape();
  Tensor weights = randomUniform(outShape, 0.5f, 1.5f, 11);
  auto viaLayer = [&](const std::vector<Tensor>& v) { return sum(mul(d->apply(v[0]), weights)); };
  auto viaOps = [&](const std::vector<Tensor>& v) { return sum(mul(composed(v[0]), weights)); };
  std::vector<Tensor> gFused = grads(viaLayer, {x, w[0]});
  std::vector<Tensor> gOps = grads(viaOps, {x, w[0]});
  close(gFused[0], gOps[0]);
  close(gFused[1], gOps[1]);
  if (useBias) {
    VariableGrads a = variableGrads([&] { return viaLayer({x}); }, {w[1]});
    VariableGrads b = variableGrads([&] { return viaOps({x}); }, {w[1]});
    close(a.grads[0], b.grads[0]);
  }
}

TEST(FusedLayers, DenseMatchesUnfusedCompositionOnEveryBackend) {
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE("backend " + backend);
    BackendScope scope(backend);
    for (const char* act : {"linear", "relu", "relu6", "elu", "sigmoid", "tanh", "softmax", "selu"})
      expectDenseMatchesComposition(act, true, {4, 6});
    expectDenseMatchesComposition("relu", false, {4, 6});
    expectDenseMatchesComposition("tanh", true, {2, 3, 6});  // rank 3: applied to the last axis
  }
}

std::shared_ptr<Sequential> classifier(const std::string& lastActivation = "softmax") {
  auto m = sequential({layers::dense({{"units", 6}, {"activation", "relu"}, {"inputShape", {4}}}),
                       layers::dense({{"units", 3}, {"activation", lastActivation}})});
  return m;
}

std::shared_ptr<Optimizer> sgdHalf() { return std::shared_ptr<Optimizer>(sgd(0.5f)); }

/// Two copies of a softmax classifier, one compiled with the loss by name
/// (fused, from logits) and one with the same loss as a function of the
/// probabilities (the composed path): same loss, metrics and weights after
/// each step; predict still gives probabilities.
void expectLogitsPathMatches(const std::string& lossName, const Tensor& y) {
  SCOPED_TRACE(lossName);
  setSeed(5);
  auto fused = classifier(), composed = classifier();
  composed->setWeights(fused->getWeights());
  losses::LossFn byName = losses::get(lossName);
  // "accuracy" picks its variant from the loss name, which a function lacks.
  std::vector<std::string> metrics;
  if (y.rank() == 2 && y.dim(1) == 3) metrics = {"accuracy"};
  fused->compile({.optimizer = sgdHalf(), .loss = {lossName}, .metrics = metrics});
  composed->compile({.optimizer = sgdHalf(),
                     .loss = {[byName](const Tensor& t, const Tensor& p) { return byName(t, p); }},
                     .metrics = metrics});
  Tensor x = randomUniform({8, 4}, -2, 2, 9);
  for (int step = 0; step < 3; ++step) {
    Logs a = fused->trainOnBatch({x}, {y}), b = composed->trainOnBatch({x}, {y});
    EXPECT_NEAR(a.at("loss"), b.at("loss"), 1e-5 * std::max(1.0, b.at("loss")));
    if (!metrics.empty()) EXPECT_EQ(a.at("acc"), b.at("acc"));
  }
  std::vector<Tensor> wa = fused->getWeights(), wb = composed->getWeights();
  for (size_t i = 0; i < wa.size(); ++i) {
    std::vector<float> p = wa[i].data<float>(), q = wb[i].data<float>();
    for (size_t j = 0; j < p.size(); ++j) EXPECT_NEAR(p[j], q[j], 1e-5) << "weight " << i;
  }
  Logs ea = fused->evaluate(x, y), eb = composed->evaluate(x, y);
  EXPECT_NEAR(ea.at("loss"), eb.at("loss"), 1e-5 * std::max(1.0, eb.at("loss")));
  if (!metrics.empty()) EXPECT_EQ(ea.at("acc"), eb.at("acc"));
  std::vector<float> p = fused->predict(x).data<float>();
  ASSERT_EQ(p.size(), 24u);
  for (int r = 0; r < 8; ++r) {
    EXPECT_NEAR(p[r * 3] + p[r * 3 + 1] + p[r * 3 + 2], 1.0, 1e-6);
    for (int c = 0; c < 3; ++c) EXPECT_GE(p[r * 3 + c], 0.0f);
  }
}

TEST(FusedTraining, LossFromLogitsMatchesComposedPathOnReference) {
  BackendScope scope("reference");
  expectLogitsPathMatches("categoricalCrossentropy",
                          oneHot(tensorInt({0, 1, 2, 0, 1, 2, 2, 1}, {8}), 3));
  expectLogitsPathMatches("sparse_categorical_crossentropy",
                          tensorInt({0, 1, 2, 0, 1, 2, 2, 1}, {8, 1}));
}

TEST(FusedTraining, LossFromLogitsMatchesComposedPathOnEveryBackend) {
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE("backend " + backend);
    BackendScope scope(backend);
    expectLogitsPathMatches("categoricalCrossentropy",
                            oneHot(tensorInt({2, 1, 0, 0, 1, 2, 2, 0}, {8}), 3));
  }
}

TEST(FusedTraining, SaturatedSoftmaxTrainsFromLogits) {
  // Logits (1000, 0, 0) and label 1: the probability 0 would be clipped to
  // 1e-7 (loss 16.1, gradient 0); from the logits the loss is 1000.
  for (const char* last : {"dense", "activation"}) {
    SCOPED_TRACE(last);
    auto m = sequential(
        {layers::dense({{"units", 3},
                        {"inputShape", {1}},
                        {"activation", last == std::string("dense") ? "softmax" : "linear"}})});
    if (last == std::string("activation")) m->add(layers::activation({{"activation", "softmax"}}));
    m->setWeights({tensor({1000, 0, 0}, {1, 3}), zeros({3})});
    m->compile({.optimizer = sgdHalf(), .loss = {"categoricalCrossentropy"}});
    Tensor x = ones({1, 1}), y = tensor({0, 1, 0}, {1, 3});
    EXPECT_NEAR(m->evaluate(x, y).at("loss"), 1000.0, 1e-2);
    EXPECT_EQ(m->predict(x).data<float>(), (std::vector<float>{1, 0, 0}));
    EXPECT_NEAR(m->trainOnBatch({x}, {y}).at("loss"), 1000.0, 1e-2);
    // The step moved the kernel by -0.5 * (p - y) x.
    EXPECT_EQ(m->getWeights()[0].data<float>(), (std::vector<float>{999.5f, 0.5f, 0}));
  }
}

TEST(FusedTraining, SoftmaxLayerCalledTwiceKeepsProbabilities) {
  // The output layer has a second call (another graph): asking it for logits
  // could reach that call, so the loss comes from the clipped probabilities.
  LayerPtr head = layers::dense({{"units", 3}, {"activation", "softmax"}});
  auto in = input({{"shape", {1}}});
  auto m = model({in}, {head->apply(in)});
  auto otherIn = input({{"shape", {1}}});
  auto otherOut = head->apply(otherIn);
  m->setWeights({tensor({1000, 0, 0}, {1, 3}), zeros({3})});
  m->compile({.optimizer = sgdHalf(), .loss = {"categoricalCrossentropy"}});
  EXPECT_NEAR(m->evaluate(ones({1, 1}), tensor({0, 1, 0}, {1, 3})).at("loss"), -std::log(1e-7),
              1e-3);
}

TEST(FusedTraining, SoftmaxOutputThatFeedsAnotherLayerKeepsProbabilities) {
  // The softmax layer's output is also the input of another layer: fit must
  // not hand that layer logits, so the model trains on the composed path.
  auto in = input({{"shape", {4}}});
  auto probs = layers::dense({{"units", 3}, {"activation", "softmax"}})->apply(in);
  auto scaled = layers::dense({{"units", 3}, {"activation", "softmax"}})->apply(probs);
  auto m = model({in}, {probs, scaled});
  m->compile({.optimizer = sgdHalf(), .loss = {"categoricalCrossentropy"}});
  Tensor x = randomUniform({5, 4}, -1, 1, 2);
  Tensor y = oneHot(tensorInt({0, 1, 2, 1, 0}, {5}), 3);
  std::vector<Tensor> before = m->predict(std::vector<Tensor>{x});
  Logs logs = m->evaluate({x}, {y, y});
  double want = mean(losses::categoricalCrossentropy(y, before[0])).item() +
                mean(losses::categoricalCrossentropy(y, before[1])).item();
  EXPECT_NEAR(logs.at("loss"), want, 1e-5);
}

}  // namespace
}  // namespace glint::testing
