// Recurrent layers and wrappers: values against a plain double re-implementation
// of the cell equations, gradients through the layer harness, configs, errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "glint/glint.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "layer_harness.h"
#include "op_harness.h"

namespace glint::testing {
namespace {

using Vec = std::vector<double>;
using Fn = std::function<double(double)>;

const Fn kTanh = [](double v) { return std::tanh(v); };
const Fn kSigmoid = [](double v) { return 1 / (1 + std::exp(-v)); };
const Fn kHardSigmoid = [](double v) { return std::clamp(0.2 * v + 0.5, 0.0, 1.0); };

Vec toVec(const Tensor& t) {
  std::vector<float> f = t.toFloats();
  return Vec(f.begin(), f.end());
}

/// Deterministic inputs in [-1, 1].
Tensor sequence(int64_t batch, int64_t time, int64_t features, int seed = 1) {
  std::vector<float> v(static_cast<size_t>(batch * time * features));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(std::sin(0.7 * (i + 1) * seed + seed));
  return tensor(v, {batch, time, features});
}

enum class Cell { simple, lstm, gru, gruResetAfter };

/// Everything one direction of a recurrent layer computes.
struct Ref {
  std::vector<Vec> steps;  // per processed step: [batch, units]
  Vec h, c;                // final states
};

/// The Keras cell equations in double. x [b, T, in]; kernel [in, G*u];
/// rk [u, G*u]; bias [G*u] ([2, G*u] for gruResetAfter) or empty.
Ref referenceRnn(Cell cell, const Vec& x, const Vec& kernel, const Vec& rk, const Vec& bias,
                 int64_t b, int64_t T, int64_t in, int64_t u, bool goBackwards, const Fn& act,
                 const Fn& ract) {
  const int64_t gates = cell == Cell::simple ? 1 : cell == Cell::lstm ? 4 : 3, G = gates * u;
  Ref out;
  out.h.assign(static_cast<size_t>(b * u), 0.0);
  out.c.assign(static_cast<size_t>(b * u), 0.0);
  for (int64_t s = 0; s < T; ++s) {
    int64_t t = goBackwards ? T - 1 - s : s;
    Vec hNew(static_cast<size_t>(b * u));
    for (int64_t n = 0; n < b; ++n) {
      Vec xw(G, 0.0), hw(G, 0.0);
      const double* h = &out.h[n * u];
      for (int64_t j = 0; j < G; ++j) {
        for (int64_t k = 0; k < in; ++k) xw[j] += x[(n * T + t) * in + k] * kernel[k * G + j];
        if (!bias.empty()) xw[j] += bias[j];
        for (int64_t k = 0; k < u; ++k) hw[j] += h[k] * rk[k * G + j];
        if (cell == Cell::gruResetAfter && !bias.empty()) hw[j] += bias[G + j];
      }
      for (int64_t j = 0; j < u; ++j) {
        double& c = out.c[n * u + j];
        double& result = hNew[n * u + j];
        if (cell == Cell::simple) {
          result = act(xw[j] + hw[j]);
        } else if (cell == Cell::lstm) {
          double i = ract(xw[j] + hw[j]), f = ract(xw[u + j] + hw[u + j]);
          c = f * c + i * act(xw[2 * u + j] + hw[2 * u + j]);
          result = ract(xw[3 * u + j] + hw[3 * u + j]) * act(c);
        } else {
          double z = ract(xw[j] + hw[j]);
          double hh;
          if (cell == Cell::gruResetAfter) {
            double r = ract(xw[u + j] + hw[u + j]);
            hh = act(xw[2 * u + j] + r * hw[2 * u + j]);
          } else {
            double rh = 0;  // (r * h) @ rk[:, 2u:]
            for (int64_t k = 0; k < u; ++k)
              rh += ract(xw[u + k] + hw[u + k]) * h[k] * rk[k * G + 2 * u + j];
            hh = act(xw[2 * u + j] + rh);
          }
          result = z * h[j] + (1 - z) * hh;
        }
      }
    }
    out.h = hNew;
    out.steps.push_back(hNew);
  }
  return out;
}

/// Stacks per-step [b, u] values into [b, T, u] (in the given step order).
Vec stackSteps(const std::vector<Vec>& steps, int64_t b, int64_t u, bool reverse = false) {
  const int64_t T = static_cast<int64_t>(steps.size());
  Vec out(static_cast<size_t>(b * T * u));
  for (int64_t t = 0; t < T; ++t)
    for (int64_t n = 0; n < b; ++n)
      for (int64_t j = 0; j < u; ++j)
        out[(n * T + t) * u + j] = steps[reverse ? T - 1 - t : t][n * u + j];
  return out;
}

void expectClose(const Vec& actual, const Vec& expected, const std::string& what,
                 double tol = 2e-5) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i)
    ASSERT_NEAR(actual[i], expected[i], tol * std::max(1.0, std::abs(expected[i])))
        << what << " element " << i;
}

/// Runs fn once per available backend.
void forEachBackend(const std::function<void(const std::string&)>& fn) {
  BackendScope restore;
  for (const std::string& backend : availableBackends()) {
    SCOPED_TRACE("backend " + backend);
    setBackend(backend);
    fn(backend);
  }
}

const Json kRandomBias = {{"className", "RandomUniform"},
                          {"config", {{"minval", -0.5}, {"maxval", 0.5}}}};

/// Applies a fresh layer and checks every output against referenceRnn.
void checkAgainstReference(Cell cell, Json args, bool returnSequences, bool goBackwards,
                           bool returnState, const Fn& act, const Fn& ract) {
  const int64_t b = 2, T = 3, in = 2, u = 3;
  args["units"] = u;
  args["returnSequences"] = returnSequences;
  args["goBackwards"] = goBackwards;
  args["returnState"] = returnState;
  if (!args.contains("biasInitializer")) args["biasInitializer"] = kRandomBias;
  SCOPED_TRACE(args.dump());
  setSeed(42);
  LayerPtr layer = cell == Cell::simple ? layers::simpleRNN(args)
                   : cell == Cell::lstm ? layers::lstm(args)
                                        : layers::gru(args);
  Tensor x = sequence(b, T, in);
  std::vector<Tensor> ys = layer->apply(std::vector<Tensor>{x});
  std::vector<Tensor> w = layer->getWeights();
  ASSERT_EQ(w.size(), args.value("useBias", true) ? 3u : 2u);
  Vec bias = w.size() == 3 ? toVec(w[2]) : Vec{};
  Ref ref = referenceRnn(cell, toVec(x), toVec(w[0]), toVec(w[1]), bias, b, T, in, u, goBackwards,
                         act, ract);
  size_t numStates = cell == Cell::lstm ? 2 : 1;
  ASSERT_EQ(ys.size(), returnState ? 1 + numStates : 1u);
  if (returnSequences) {
    EXPECT_EQ(ys[0].shape(), (Shape{b, T, u}));
    expectClose(toVec(ys[0]), stackSteps(ref.steps, b, u), "sequence output");
  } else {
    EXPECT_EQ(ys[0].shape(), (Shape{b, u}));
    expectClose(toVec(ys[0]), ref.h, "last output");
  }
  if (returnState) {
    expectClose(toVec(ys[1]), ref.h, "state h");
    if (cell == Cell::lstm) expectClose(toVec(ys[2]), ref.c, "state c");
  }
}

TEST(LayersRnn, SimpleRNNMatchesTheCellEquations) {
  forEachBackend([](const std::string&) {
    for (bool seq : {false, true})
      for (bool back : {false, true})
        checkAgainstReference(Cell::simple, Json::object(), seq, back, seq, kTanh, kTanh);
    checkAgainstReference(Cell::simple, {{"activation", "sigmoid"}, {"useBias", false}}, true,
                          false, false, kSigmoid, kTanh);
  });
}

TEST(LayersRnn, LSTMMatchesTheCellEquations) {
  forEachBackend([](const std::string&) {
    // TF.js's default recurrent activation is hardSigmoid.
    for (bool seq : {false, true})
      for (bool back : {false, true})
        checkAgainstReference(Cell::lstm, Json::object(), seq, back, true, kTanh, kHardSigmoid);
    checkAgainstReference(
        Cell::lstm, {{"recurrentActivation", "sigmoid"}, {"kernelInitializer", "glorotUniform"}},
        true, true, false, kTanh, kSigmoid);
  });
}

TEST(LayersRnn, GRUMatchesTheCellEquations) {
  forEachBackend([](const std::string&) {
    for (bool seq : {false, true})
      for (bool back : {false, true}) {
        checkAgainstReference(Cell::gru, Json::object(), seq, back, seq, kTanh, kHardSigmoid);
        checkAgainstReference(Cell::gruResetAfter,
                              {{"resetAfter", true}, {"biasInitializer", "ones"}}, seq, back, true,
                              kTanh, kHardSigmoid);
      }
    checkAgainstReference(
        Cell::gru, {{"recurrentActivation", "sigmoid"}, {"activation", "relu"}}, true, false, false,
        [](double v) { return std::max(v, 0.0); }, kSigmoid);
  });
}

TEST(LayersRnn, WeightShapesNamesAndInitialBias) {
  auto l = layers::lstm({{"units", 3}, {"unitForgetBias", true}, {"name", "enc"}});
  l->apply(sequence(1, 2, 5));
  std::vector<Variable> w = l->weights();
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].shape(), (Shape{5, 12}));
  EXPECT_EQ(w[1].shape(), (Shape{3, 12}));
  EXPECT_EQ(w[2].shape(), (Shape{12}));
  EXPECT_EQ(w[0].name(), "enc/kernel");
  EXPECT_EQ(w[1].name(), "enc/recurrent_kernel");
  EXPECT_EQ(w[2].name(), "enc/bias");
  EXPECT_EQ(w[2].toFloats(), (std::vector<float>{0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0}));
  // The recurrent kernel is orthogonal by default: columns of [3, 12] ... rows orthonormal.
  Vec rk = toVec(w[1]);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double dot = 0;
      for (int k = 0; k < 12; ++k) dot += rk[i * 12 + k] * rk[j * 12 + k];
      EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, 1e-5);
    }
  auto g = layers::gru({{"units", 2}, {"resetAfter", true}});
  g->apply(sequence(1, 2, 3));
  EXPECT_EQ(g->weights()[2].shape(), (Shape{2, 6}));
  auto s = layers::simpleRNN({{"units", 4}, {"useBias", false}});
  s->apply(sequence(1, 2, 3));
  EXPECT_EQ(s->countParams(), 3 * 4 + 4 * 4);
}

TEST(LayersRnn, ReturnStateGivesSeveralOutputsEagerAndSymbolic) {
  auto l = layers::lstm({{"units", 2}, {"returnSequences", true}, {"returnState", true}});
  std::vector<Tensor> ys = l->apply(std::vector<Tensor>{sequence(2, 4, 3)});
  ASSERT_EQ(ys.size(), 3u);
  EXPECT_EQ(ys[0].shape(), (Shape{2, 4, 2}));
  EXPECT_EQ(ys[1].shape(), (Shape{2, 2}));
  EXPECT_EQ(ys[2].shape(), (Shape{2, 2}));
  // The last step of the sequence is the h state.
  expectClose(toVec(slice(ys[0], {0, 3, 0}, {2, 1, 2})), toVec(ys[1]), "last step vs h");
  expectError([&] { l->apply(sequence(2, 4, 3)); }, {"3 outputs", "vector form"});

  auto g = layers::gru({{"units", 5}, {"returnState", true}});
  std::vector<SymbolicTensorPtr> outs =
      g->apply(std::vector<SymbolicTensorPtr>{input({{"shape", {7, 3}}})});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0]->shape, (Shape{-1, 5}));
  EXPECT_EQ(outs[1]->shape, (Shape{-1, 5}));
  auto s = layers::simpleRNN({{"units", 4}, {"returnSequences", true}});
  EXPECT_EQ(s->apply(input({{"shape", {-1, 3}}}))->shape, (Shape{-1, -1, 4}));
}

TEST(LayersRnn, DropoutOnlyWhileTraining) {
  const Json base = {{"units", 3}, {"returnSequences", true}};
  for (const char* key : {"dropout", "recurrentDropout"}) {
    SCOPED_TRACE(key);
    auto plain = layers::gru(base);
    Json args = base;
    args[key] = 0.5;
    auto dropped = layers::gru(args);
    Tensor x = sequence(4, 5, 3);
    Vec a = toVec(plain->apply(x));
    dropped->apply(x);
    dropped->setWeights(plain->getWeights());
    Vec b = toVec(dropped->apply(x));
    expectClose(b, a, "inference ignores dropout", 1e-6);
    Vec c = toVec(dropped->apply(x, true));
    double diff = 0;
    for (size_t i = 0; i < a.size(); ++i) diff += std::abs(c[i] - a[i]);
    EXPECT_GT(diff, 0.1) << "training applies dropout";
  }
}

TEST(LayersRnn, LegacyInputDimAndZeroLengthSequences) {
  auto l = layers::simpleRNN({{"units", 2}, {"inputDim", 3}, {"inputLength", 4}});
  ASSERT_TRUE(l->batchInputShape().has_value());
  EXPECT_EQ(*l->batchInputShape(), (Shape{-1, 4, 3}));
  auto s = layers::lstm({{"units", 2}, {"returnSequences", true}, {"returnState", true}});
  std::vector<Tensor> ys = s->apply(std::vector<Tensor>{zeros({2, 0, 3})});
  EXPECT_EQ(ys[0].shape(), (Shape{2, 0, 2}));
  EXPECT_EQ(ys[1].toFloats(), std::vector<float>(4, 0.0f));
}

// ---- Wrappers ------------------------------------------------------------------

TEST(LayersRnn, BidirectionalComposesForwardAndBackward) {
  const int64_t b = 2, T = 3, in = 2, u = 2;
  forEachBackend([&](const std::string&) {
    for (bool seq : {false, true})
      for (const Json& mode :
           {Json("concat"), Json("sum"), Json("mul"), Json("ave"), Json(nullptr)}) {
        SCOPED_TRACE(mode.dump() + (seq ? " sequences" : " last"));
        auto inner = layers::lstm({{"units", u},
                                   {"returnSequences", seq},
                                   {"returnState", true},
                                   {"biasInitializer", kRandomBias},
                                   {"recurrentActivation", "sigmoid"}});
        auto bi = layers::bidirectional(inner, {{"mergeMode", mode}});
        Tensor x = sequence(b, T, in, 3);
        std::vector<Tensor> ys = bi->apply(std::vector<Tensor>{x});
        std::vector<Tensor> w = bi->getWeights();
        ASSERT_EQ(w.size(), 6u);
        Ref f = referenceRnn(Cell::lstm, toVec(x), toVec(w[0]), toVec(w[1]), toVec(w[2]), b, T, in,
                             u, false, kTanh, kSigmoid);
        Ref r = referenceRnn(Cell::lstm, toVec(x), toVec(w[3]), toVec(w[4]), toVec(w[5]), b, T, in,
                             u, true, kTanh, kSigmoid);
        // Sequences: the backward one is put back into input time order.
        Vec yf = seq ? stackSteps(f.steps, b, u) : f.h,
            yb = seq ? stackSteps(r.steps, b, u, true) : r.h;
        std::vector<Vec> expected;
        if (mode == "concat") {
          Vec cat;
          for (size_t row = 0; row < yf.size() / u; ++row) {
            cat.insert(cat.end(), yf.begin() + row * u, yf.begin() + (row + 1) * u);
            cat.insert(cat.end(), yb.begin() + row * u, yb.begin() + (row + 1) * u);
          }
          expected = {cat};
        } else if (mode.is_null()) {
          expected = {yf, yb};
        } else {
          Vec m(yf.size());
          for (size_t i = 0; i < m.size(); ++i)
            m[i] = mode == "sum"   ? yf[i] + yb[i]
                   : mode == "mul" ? yf[i] * yb[i]
                                   : 0.5 * (yf[i] + yb[i]);
          expected = {m};
        }
        for (const Vec* s : {&f.h, &f.c, &r.h, &r.c}) expected.push_back(*s);
        ASSERT_EQ(ys.size(), expected.size());
        for (size_t k = 0; k < ys.size(); ++k)
          expectClose(toVec(ys[k]), expected[k], "output " + std::to_string(k));
        std::vector<Shape> shapes = bi->computeOutputShape({{-1, T, in}});
        ASSERT_EQ(shapes.size(), ys.size());
        for (size_t k = 0; k < ys.size(); ++k) {
          Shape s = ys[k].shape();
          s[0] = -1;
          EXPECT_EQ(shapes[k], s) << "output " << k;
        }
      }
  });
}

TEST(LayersRnn, BidirectionalWeightsFollowTFJS) {
  auto bi = layers::bidirectional(
      layers::gru({{"units", 2}, {"name", "g"}, {"kernelRegularizer", "l2"}}), {{"name", "bi"}});
  bi->apply(sequence(1, 2, 3));
  std::vector<std::string> names;
  for (const Variable& v : bi->weights()) names.push_back(v.name());
  EXPECT_EQ(names,
            (std::vector<std::string>{"bi/forward_g/kernel", "bi/forward_g/recurrent_kernel",
                                      "bi/forward_g/bias", "bi/backward_g/kernel",
                                      "bi/backward_g/recurrent_kernel", "bi/backward_g/bias"}));
  EXPECT_EQ(bi->countParams(), 2 * (3 * 6 + 2 * 6 + 6));
  EXPECT_EQ(bi->regularizationLosses().size(), 2u);
  bi->setTrainable(false);
  EXPECT_TRUE(bi->trainableWeights().empty());
  EXPECT_EQ(bi->nonTrainableWeights().size(), 6u);
  bi->setTrainable(true);
  EXPECT_EQ(bi->trainableWeights().size(), 6u);
  // setWeights: forward's then backward's.
  std::vector<Tensor> values;
  for (const Variable& v : bi->weights()) values.push_back(fill(v.shape(), 0.25f));
  bi->setWeights(values);
  EXPECT_EQ(bi->getWeights()[4].toFloats(), std::vector<float>(12, 0.25f));
}

TEST(LayersRnn, TimeDistributedAppliesTheLayerToEveryStep) {
  forEachBackend([](const std::string&) {
    auto dense =
        layers::dense({{"units", 3}, {"activation", "tanh"}, {"biasInitializer", kRandomBias}});
    auto td = layers::timeDistributed(dense, {{"name", "td"}});
    Tensor x = sequence(2, 4, 5);
    Tensor y = td->apply(x);
    ASSERT_EQ(y.shape(), (Shape{2, 4, 3}));
    Vec k = toVec(dense->getWeights()[0]), bias = toVec(dense->getWeights()[1]), xv = toVec(x),
        expected;
    for (int64_t row = 0; row < 8; ++row)
      for (int64_t j = 0; j < 3; ++j) {
        double s = bias[j];
        for (int64_t i = 0; i < 5; ++i) s += xv[row * 5 + i] * k[i * 3 + j];
        expected.push_back(std::tanh(s));
      }
    expectClose(toVec(y), expected, "time distributed dense");
    EXPECT_EQ(td->weights()[0].name(), "td/kernel");  // TF.js scopes the wrapped weights
    EXPECT_EQ(td->weights().size(), 2u);
  });
  // Any layer per step, e.g. an LSTM over the inner sequence of [batch, time, time2, features].
  auto perStep = layers::lstm({{"units", 2}});
  Tensor x4 = reshape(sequence(2, 6, 2), {2, 3, 2, 2});
  Tensor y4 = layers::timeDistributed(perStep)->apply(x4);
  ASSERT_EQ(y4.shape(), (Shape{2, 3, 2}));
  expectClose(toVec(y4), toVec(reshape(perStep->apply(reshape(x4, {6, 2, 2})), {2, 3, 2})),
              "per-step lstm", 1e-6);
  auto td = layers::timeDistributed(layers::dense({{"units", 6}, {"kernelRegularizer", "l1"}}));
  EXPECT_EQ(td->apply(input({{"shape", {-1, 4, 2}}}))->shape, (Shape{-1, -1, 4, 6}));
  EXPECT_EQ(td->regularizationLosses().size(), 1u);
  td->setTrainable(false);
  EXPECT_TRUE(td->trainableWeights().empty());
  EXPECT_FALSE(td->getConfig()["trainable"].get<bool>());
}

// ---- Gradients -------------------------------------------------------------------

TEST(LayersRnn, Gradients) {
  checkLayer({"simple_rnn_seq_back",
              [] {
                return layers::simpleRNN({{"units", 3},
                                          {"returnSequences", true},
                                          {"goBackwards", true},
                                          {"biasInitializer", kRandomBias}});
              },
              {{2, 3, 2}}});
  checkLayer({"lstm_state",
              [] {
                return layers::lstm({{"units", 2},
                                     {"returnSequences", true},
                                     {"returnState", true},
                                     {"recurrentActivation", "sigmoid"},
                                     {"biasInitializer", kRandomBias}});
              },
              {{2, 3, 2}}});
  checkLayer({"lstm_hard_sigmoid", [] { return layers::lstm({{"units", 2}}); }, {{2, 3, 2}}});
  checkLayer({"gru",
              [] {
                return layers::gru(
                    {{"units", 2}, {"returnSequences", true}, {"biasInitializer", kRandomBias}});
              },
              {{2, 3, 2}}});
  checkLayer({"gru_reset_after",
              [] {
                return layers::gru({{"units", 2},
                                    {"resetAfter", true},
                                    {"recurrentActivation", "sigmoid"},
                                    {"biasInitializer", kRandomBias},
                                    {"goBackwards", true}});
              },
              {{2, 3, 2}}});
}

TEST(LayersRnn, WrapperGradients) {
  checkLayer(
      {"bidirectional_concat_seq",
       [] {
         return layers::bidirectional(layers::simpleRNN({{"units", 2}, {"returnSequences", true}}));
       },
       {{2, 3, 2}}});
  checkLayer({"bidirectional_mul_lstm",
              [] {
                return layers::bidirectional(
                    layers::lstm({{"units", 2}, {"recurrentActivation", "sigmoid"}}),
                    {{"mergeMode", "mul"}});
              },
              {{2, 3, 2}}});
  checkLayer(
      {"time_distributed_dense",
       [] {
         return layers::timeDistributed(layers::dense({{"units", 2}, {"activation", "tanh"}}));
       },
       {{2, 3, 2}}});
}

// ---- Configs ---------------------------------------------------------------------

TEST(LayersRnn, ConfigsAreTFJSKerasAndRoundTrip) {
  auto l = layers::lstm({{"units", 4},
                         {"returnSequences", true},
                         {"goBackwards", true},
                         {"unitForgetBias", true},
                         {"recurrentRegularizer", "l2"},
                         {"kernelConstraint", "nonNeg"},
                         {"dropout", 0.25},
                         {"inputShape", {5, 3}},
                         {"name", "lstm_a"}});
  Json c = l->getConfig();
  EXPECT_EQ(c["units"], 4);
  EXPECT_EQ(c["activation"], "tanh");
  EXPECT_EQ(c["recurrent_activation"], "hard_sigmoid");
  EXPECT_EQ(c["unit_forget_bias"], true);
  EXPECT_EQ(c["return_sequences"], true);
  EXPECT_EQ(c["go_backwards"], true);
  EXPECT_EQ(c["return_state"], false);
  EXPECT_EQ(c["stateful"], false);
  EXPECT_EQ(c["dropout"], 0.25);
  EXPECT_EQ(c["recurrent_initializer"]["class_name"], "Orthogonal");
  EXPECT_EQ(c["batch_input_shape"], Json::parse("[null, 5, 3]"));
  EXPECT_EQ(layers::fromConfig("LSTM", c)->getConfig().dump(), c.dump());

  Json g = layers::gru({{"units", 2}})->getConfig();
  EXPECT_EQ(g["reset_after"], false);
  EXPECT_EQ(layers::fromConfig("GRU", g)->getConfig().dump(), g.dump());
  Json s = layers::simpleRNN({{"units", 2}, {"activation", "relu"}})->getConfig();
  EXPECT_FALSE(s.contains("recurrent_activation"));
  EXPECT_EQ(layers::fromConfig("SimpleRNN", s)->getConfig().dump(), s.dump());

  auto bi = layers::bidirectional(layers::gru({{"units", 3}, {"returnSequences", true}}),
                                  {{"mergeMode", "ave"}});
  Json bc = bi->getConfig();
  EXPECT_EQ(bc["merge_mode"], "ave");
  EXPECT_EQ(bc["layer"]["class_name"], "GRU");
  EXPECT_EQ(bc["layer"]["config"]["units"], 3);
  LayerPtr bcopy = layers::fromConfig("Bidirectional", bc);
  EXPECT_EQ(bcopy->getConfig().dump(), bc.dump());
  EXPECT_EQ(bcopy->apply(sequence(2, 3, 4)).shape(), (Shape{2, 3, 3}));
  Json none = layers::bidirectional(layers::simpleRNN({{"units", 2}}), {{"mergeMode", nullptr}})
                  ->getConfig();
  EXPECT_TRUE(none["merge_mode"].is_null());
  EXPECT_EQ(layers::fromConfig("Bidirectional", none)->computeOutputShape({{-1, 3, 4}}).size(), 2u);
  // TF.js camelCase keys in the nested spec are accepted too.
  LayerPtr camel =
      layers::bidirectional(Json{{"layer", {{"className", "LSTM"}, {"config", {{"units", 2}}}}}});
  EXPECT_EQ(camel->getConfig()["merge_mode"], "concat");

  // A Keras (Python) GRU config: reset_after true and keys TF.js does not write.
  Json keras = Json::parse(R"({"name": "gru_k", "trainable": true, "dtype": "float32", "units": 2,
      "activation": "tanh", "recurrent_activation": "sigmoid", "use_bias": true, "reset_after": true,
      "return_sequences": false, "return_state": false, "go_backwards": false, "stateful": false,
      "unroll": false, "time_major": false, "zero_output_for_mask": false, "implementation": 2,
      "dropout": 0.0, "recurrent_dropout": 0.0})");
  LayerPtr kg = layers::fromConfig("GRU", keras);
  kg->apply(sequence(1, 2, 3));
  EXPECT_EQ(kg->weights()[2].shape(), (Shape{2, 6}));
  EXPECT_EQ(kg->getConfig()["implementation"], 2);

  auto td = layers::timeDistributed(layers::dense({{"units", 2}}), {{"inputShape", {4, 3}}});
  Json tc = td->getConfig();
  EXPECT_EQ(tc["layer"]["class_name"], "Dense");
  LayerPtr tcopy = layers::fromConfig("TimeDistributed", tc);
  EXPECT_EQ(tcopy->getConfig().dump(), tc.dump());
  EXPECT_EQ(tcopy->apply(sequence(1, 4, 3)).shape(), (Shape{1, 4, 2}));
}

// ---- Errors and memory -----------------------------------------------------------------

TEST(LayersRnn, Errors) {
  expectError(
      [] {
        layers::lstm({{"units", 2}})->apply(ones({2, 3}));
      },
      {"LSTM", "rank 3", "[-1,3]"});
  expectError(
      [] {
        layers::gru({{"units", 2}})->apply(input({{"shape", {3, 4, 5}}}));
      },
      {"GRU", "rank 3"});
  expectError(
      [] {
        layers::simpleRNN({{"units", 2}, {"stateful", true}});
      },
      {"SimpleRNN", "stateful", "not supported"});
  expectError([] { layers::lstm({{"units", 0}}); }, {"LSTM", "units", "positive"});
  expectError([] { layers::lstm(Json::object()); }, {"LSTM", "units", "required"});
  expectError(
      [] {
        layers::gru({{"units", 2}, {"unitForgetBias", true}});
      },
      {"GRU", "unit_forget_bias"});
  expectError(
      [] {
        layers::simpleRNN({{"units", 2}, {"recurrentActivation", "tanh"}});
      },
      {"SimpleRNN", "recurrent_activation"});
  expectError(
      [] {
        layers::lstm({{"units", 2}, {"dropout", 1.5}});
      },
      {"LSTM", "dropout", "[0, 1)"});
  expectError(
      [] {
        layers::lstm({{"units", 2}, {"recurrentActivation", "sigmoidal"}});
      },
      {"sigmoidal"});
  auto built = layers::lstm({{"units", 2}});
  built->apply(sequence(1, 2, 3));
  expectError([&] { built->apply(sequence(1, 2, 4)); }, {"LSTM", "3 input features", "[1,2,4]"});
  expectError(
      [&] {
        built->apply(tensorInt({1, 2, 3, 4, 5, 6}, {1, 2, 3}));
      },
      {"LSTM", "float32", "int32"});

  expectError(
      [] {
        layers::bidirectional(layers::simpleRNN({{"units", 2}}), {{"mergeMode", "max"}});
      },
      {"Bidirectional", "merge_mode", "concat, sum, mul, ave", "'max'"});
  expectError(
      [] {
        layers::bidirectional(layers::dense({{"units", 2}}));
      },
      {"Bidirectional", "recurrent", "Dense"});
  expectError([] { layers::bidirectional(LayerPtr()); }, {"Bidirectional", "none"});
  expectError(
      [] {
        layers::bidirectional(Json{{"layer", "LSTM"}});
      },
      {"Bidirectional", "class_name"});
  expectError(
      [] {
        layers::bidirectional(layers::gru({{"units", 2}}))->apply(ones({2, 3}));
      },
      {"GRU", "rank 3", "[-1,3]"});
  expectError(
      [] {
        layers::timeDistributed(layers::dense({{"units", 2}}))->apply(ones({2, 3}));
      },
      {"TimeDistributed", "rank >= 3", "[-1,3]"});
  expectError(
      [] {
        layers::timeDistributed(layers::dense({{"units", 2}}), {{"mergeMode", "sum"}});
      },
      {"TimeDistributed", "merge_mode"});
  expectError(
      [] {
        layers::gru({{"units", 2}, {"timeMajor", true}});
      },
      {"GRU", "time_major", "not supported"});
  expectError(
      [] {
        layers::timeDistributed(layers::lstm({{"units", 2}, {"returnState", true}}))
            ->apply(ones({1, 2, 3, 4}));
      },
      {"TimeDistributed", "LSTM", "3 outputs"});
  expectError(
      [] {
        layers::fromConfig("TimeDistributed", Json{{"name", "t"}});
      },
      {"TimeDistributed", "layer", "required"});
}

TEST(LayersRnn, RepeatedCallsLeaveNoTensorsBehind) {
  auto bi = layers::bidirectional(layers::lstm({{"units", 3}, {"returnSequences", true}}));
  auto td = layers::timeDistributed(layers::dense({{"units", 2}}));
  Tensor x = sequence(2, 4, 3);
  td->apply(bi->apply(x));
  int64_t before = memory().numTensors;
  for (int i = 0; i < 5; ++i) {
    Tensor y = td->apply(bi->apply(x, true));
    Tensor g = grads(
        [&](const std::vector<Tensor>& in) { return sum(td->apply(bi->apply(in[0]))); }, {x})[0];
  }
  EXPECT_EQ(memory().numTensors, before);
}

}  // namespace
}  // namespace glint::testing
