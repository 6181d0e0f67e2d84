// Masks (Masking, Embedding maskZero) through models to the recurrent layers
// and wrappers; the generic RNN layer with its cells; GRU reset_after against
// PyTorch. A masked sequence is checked against the same layer run on each row
// with its masked steps removed, which is what Keras's masking means.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "glint/glint.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "glint/model.h"
#include "layer_harness.h"
#include "op_harness.h"

namespace glint::testing {
namespace {

using Vec = std::vector<double>;

Vec toVec(const Tensor& t) {
  std::vector<float> f = t.toFloats();
  return Vec(f.begin(), f.end());
}

void expectClose(const Vec& actual, const Vec& expected, const std::string& what,
                 double tol = 2e-5) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i)
    ASSERT_NEAR(actual[i], expected[i], tol * std::max(1.0, std::abs(expected[i])))
        << what << " element " << i;
}

void forEachBackend(const std::function<void()>& fn) {
  BackendScope restore;
  for (const std::string& backend : availableBackends()) {
    SCOPED_TRACE("backend " + backend);
    setBackend(backend);
    fn();
  }
}

const Json kRandomBias = {{"className", "RandomUniform"},
                          {"config", {{"minval", -0.5}, {"maxval", 0.5}}}};

/// [2, 5, 3]: row 0 ends in two padding steps, row 1 has one in the middle and
/// a step with only some features at the padding value (kept).
Tensor padded(float pad = 0) {
  const float p = pad;
  return tensor(
      {0.5f,  -0.2f, 0.9f, 0.1f, 0.4f, -0.7f, -0.3f, 0.8f,  0.2f, p, p,    p, p,    p,    p,
       -0.6f, 0.3f,  0.1f, p,    p,    p,     0.7f,  -0.5f, 0.4f, p, 0.2f, p, 0.9f, 0.1f, -0.8f},
      {2, 5, 3});
}
const std::vector<std::vector<bool>> kPaddedKeep = {{true, true, true, false, false},
                                                    {true, false, true, true, true}};

/// What a masked run gives, from `plain` (returnSequences, same weights and
/// direction) run on each row's kept steps: a masked step repeats the last
/// output (zeros before any). Returns the sequence [b, T, u] or last [b, u].
Vec maskedExpectation(Layer& plain, const Tensor& x, const std::vector<std::vector<bool>>& keep,
                      bool goBackwards, bool returnSequences, int64_t units) {
  const int64_t b = x.dim(0), T = x.dim(1), f = x.dim(2);
  Vec xs = toVec(x), out;
  for (int64_t n = 0; n < b; ++n) {
    std::vector<float> kept;
    for (int64_t t = 0; t < T; ++t)
      if (keep[n][t])
        for (int64_t k = 0; k < f; ++k) kept.push_back(static_cast<float>(xs[(n * T + t) * f + k]));
    const int64_t k = static_cast<int64_t>(kept.size()) / f;
    Vec seq = k == 0 ? Vec{} : toVec(plain.apply(tensor(kept, {1, k, f})));
    Vec last(static_cast<size_t>(units), 0.0);
    int64_t done = 0;
    for (int64_t p = 0; p < T; ++p) {  // processing order
      int64_t t = goBackwards ? T - 1 - p : p;
      if (keep[n][t]) {
        last.assign(seq.begin() + done * units, seq.begin() + (done + 1) * units);
        ++done;
      }
      if (returnSequences) out.insert(out.end(), last.begin(), last.end());
    }
    if (!returnSequences) out.insert(out.end(), last.begin(), last.end());
  }
  return out;
}

LayerPtr makeRecurrent(const std::string& cls, Json args) {
  if (cls == "SimpleRNN") return layers::simpleRNN(args);
  if (cls == "LSTM") return layers::lstm(args);
  return layers::gru(args);
}

// ---- Masks -------------------------------------------------------------------------

TEST(LayersMasks, MaskingZeroesAndMarksPaddingSteps) {
  forEachBackend([] {
    for (float pad : {0.0f, -1.0f}) {
      auto m = layers::masking({{"maskValue", pad}});
      Tensor x = padded(pad);
      Vec y = toVec(m->apply(x)), xs = toVec(x);
      for (int64_t n = 0; n < 2; ++n)
        for (int64_t t = 0; t < 5; ++t)
          for (int64_t k = 0; k < 3; ++k) {
            size_t i = static_cast<size_t>((n * 5 + t) * 3 + k);
            EXPECT_EQ(y[i], kPaddedKeep[n][t] ? xs[i] : 0.0) << n << "," << t << "," << k;
          }
      std::vector<Tensor> mask = m->computeMask({x}, {});
      ASSERT_EQ(mask.size(), 1u);
      EXPECT_EQ(mask[0].dtype(), DType::boolean);
      EXPECT_EQ(mask[0].shape(), (Shape{2, 5}));
      Vec mv = toVec(cast(mask[0], DType::float32));
      for (int64_t n = 0; n < 2; ++n)
        for (int64_t t = 0; t < 5; ++t) EXPECT_EQ(mv[n * 5 + t], kPaddedKeep[n][t] ? 1.0 : 0.0);
    }
  });
}

TEST(LayersMasks, RecurrentLayersSkipMaskedSteps) {
  forEachBackend([] {
    for (const std::string cls : {"SimpleRNN", "LSTM", "GRU", "GRU+resetAfter"})
      for (bool back : {false, true})
        for (bool seq : {false, true}) {
          SCOPED_TRACE(cls + (back ? " goBackwards" : "") + (seq ? " returnSequences" : ""));
          const bool resetAfter = cls == "GRU+resetAfter";
          const std::string base = resetAfter ? "GRU" : cls;
          Json args = {{"units", 3},
                       {"goBackwards", back},
                       {"returnSequences", seq},
                       {"biasInitializer", kRandomBias}};
          if (resetAfter) args["resetAfter"] = true;
          setSeed(7);
          auto s = std::make_shared<Sequential>();
          s->add(layers::masking({{"inputShape", {5, 3}}}));
          LayerPtr rnn = makeRecurrent(base, args);
          s->add(rnn);
          args["returnSequences"] = true;
          LayerPtr plain = makeRecurrent(base, args);
          plain->apply(padded());
          plain->setWeights(rnn->getWeights());
          Vec expected = maskedExpectation(*plain, padded(), kPaddedKeep, back, seq, 3);
          expectClose(toVec(s->predict(std::vector<Tensor>{padded()})[0]), expected,
                      "masked output");
        }
  });
}

TEST(LayersMasks, ZeroOutputForMaskZeroesMaskedSteps) {
  auto x = input({{"shape", {5, 3}}});
  LayerPtr l = layers::lstm({{"units", 2}, {"returnSequences", true}, {"zeroOutputForMask", true}});
  ModelPtr m = model({x}, {l->apply(layers::masking()->apply(x))});
  Vec y = toVec(m->predict(std::vector<Tensor>{padded()})[0]);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t t = 0; t < 5; ++t)
      for (int64_t j = 0; j < 2; ++j) {
        if (kPaddedKeep[n][t]) {
          EXPECT_NE(y[(n * 5 + t) * 2 + j], 0.0);
        } else {
          EXPECT_EQ(y[(n * 5 + t) * 2 + j], 0.0);
        }
      }
  EXPECT_EQ(l->getConfig()["zero_output_for_mask"], true);
}

TEST(LayersMasks, EmbeddingMaskZeroPassesThroughDense) {
  forEachBackend([] {
    setSeed(3);
    Tensor ids = tensorInt({3, 1, 0, 2, 0, 0, 0, 2, 1, 0, 3, 1}, {2, 6});
    const std::vector<std::vector<bool>> keep = {{true, true, false, true, false, false},
                                                 {false, true, true, false, true, true}};
    auto s = std::make_shared<Sequential>();
    auto emb = layers::embedding(
        {{"inputDim", 4}, {"outputDim", 3}, {"maskZero", true}, {"inputShape", {6}}});
    auto dense = layers::dense({{"units", 2}, {"activation", "tanh"}});
    auto gru = layers::gru({{"units", 2}, {"biasInitializer", kRandomBias}});
    s->add({emb, dense, gru});
    // Without a mask, the same GRU over the dense features of the kept ids.
    Tensor features = dense->apply(emb->apply(ids));
    auto plain = layers::gru({{"units", 2}, {"returnSequences", true}});
    plain->apply(features);
    plain->setWeights(gru->getWeights());
    expectClose(toVec(s->predict(std::vector<Tensor>{ids})[0]),
                maskedExpectation(*plain, features, keep, false, false, 2), "masked GRU");
    // Without maskZero the zeros are ordinary ids.
    EXPECT_TRUE(
        layers::embedding({{"inputDim", 4}, {"outputDim", 3}})->computeMask({ids}, {}).empty());
  });
}

TEST(LayersMasks, BidirectionalAndTimeDistributedCarryTheMask) {
  forEachBackend([] {
    setSeed(5);
    auto x = input({{"shape", {5, 3}}});
    auto lstm =
        layers::lstm({{"units", 2}, {"returnSequences", true}, {"biasInitializer", kRandomBias}});
    auto bi = layers::bidirectional(lstm, {{"mergeMode", "concat"}});
    auto td = layers::timeDistributed(layers::dense({{"units", 4}}));
    auto last = layers::simpleRNN({{"units", 3}});
    auto masked = layers::masking()->apply(x);
    ModelPtr m = model({x}, {bi->apply(masked), last->apply(td->apply(masked))});
    std::vector<Tensor> ys = m->predict(std::vector<Tensor>{padded()});

    std::vector<Tensor> w = bi->getWeights();  // forward 3, backward 3
    auto fwd = layers::lstm({{"units", 2}, {"returnSequences", true}});
    auto bwd = layers::lstm({{"units", 2}, {"returnSequences", true}, {"goBackwards", true}});
    fwd->apply(padded());
    bwd->apply(padded());
    fwd->setWeights({w[0], w[1], w[2]});
    bwd->setWeights({w[3], w[4], w[5]});
    Vec f = maskedExpectation(*fwd, padded(), kPaddedKeep, false, true, 2);
    Vec b = maskedExpectation(*bwd, padded(), kPaddedKeep, true, true, 2);
    Vec expected;  // concat of forward and backward (back in time order)
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t t = 0; t < 5; ++t) {
        for (int64_t j = 0; j < 2; ++j) expected.push_back(f[(n * 5 + t) * 2 + j]);
        for (int64_t j = 0; j < 2; ++j) expected.push_back(b[(n * 5 + (4 - t)) * 2 + j]);
      }
    expectClose(toVec(ys[0]), expected, "bidirectional");

    Tensor features = td->apply(layers::masking()->apply(padded()));
    auto plain = layers::simpleRNN({{"units", 3}, {"returnSequences", true}});
    plain->apply(features);
    plain->setWeights(last->getWeights());
    expectClose(toVec(ys[1]), maskedExpectation(*plain, features, kPaddedKeep, false, false, 3),
                "time distributed");
  });
}

/// [2, 5, 3] of nonzero values, all-zero at the steps keep marks false.
Tensor paddedAs(const std::vector<std::vector<bool>>& keep) {
  std::vector<float> v;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t t = 0; t < 5; ++t)
      for (int64_t k = 0; k < 3; ++k)
        v.push_back(keep[n][t]
                        ? static_cast<float>(0.2 + 0.5 * std::sin(1.3 * (n * 15 + t * 3 + k)))
                        : 0.0f);
  return tensor(v, {2, 5, 3});
}

TEST(LayersMasks, MergeLayersCombineMasks) {
  forEachBackend([] {
    const std::vector<std::vector<bool>> keepA = {{true, false, true, true, true},
                                                  {true, true, true, false, false}};
    const std::vector<std::vector<bool>> keepB = {{true, true, true, false, true},
                                                  {false, true, true, true, true}};
    Tensor a = paddedAs(keepA), b = paddedAs(keepB);
    auto xa = input({{"shape", {5, 3}}}), xb = input({{"shape", {5, 3}}});
    auto ma = layers::masking()->apply(xa), mb = layers::masking()->apply(xb);
    setSeed(9);
    auto afterAdd =
        layers::gru({{"units", 2}, {"returnSequences", true}, {"biasInitializer", kRandomBias}});
    auto afterConcat = layers::simpleRNN({{"units", 2}, {"returnSequences", true}});
    auto afterTimeConcat = layers::lstm({{"units", 2}});
    ModelPtr m = model(
        {xa, xb}, {afterAdd->apply(layers::add()->apply(std::vector<SymbolicTensorPtr>{ma, mb})[0]),
                   afterConcat->apply(
                       layers::concatenate()->apply(std::vector<SymbolicTensorPtr>{ma, xb})[0]),
                   afterTimeConcat->apply(layers::concatenate({{"axis", 1}})
                                              ->apply(std::vector<SymbolicTensorPtr>{ma, mb})[0])});
    std::vector<Tensor> ys = m->predict(std::vector<Tensor>{a, b});

    // Add: a step counts where both inputs keep it.
    std::vector<std::vector<bool>> both = keepA;
    for (int n = 0; n < 2; ++n)
      for (int t = 0; t < 5; ++t) both[n][t] = keepA[n][t] && keepB[n][t];
    auto plainGru = layers::gru({{"units", 2}, {"returnSequences", true}});
    Tensor sum = add(a, b);
    plainGru->apply(sum);
    plainGru->setWeights(afterAdd->getWeights());
    expectClose(toVec(ys[0]), maskedExpectation(*plainGru, sum, both, false, true, 2), "add");

    // Concatenate on features with an unmasked input: the masked one's mask.
    auto plainRnn = layers::simpleRNN({{"units", 2}, {"returnSequences", true}});
    Tensor cat = concat({a, b}, -1);
    plainRnn->apply(cat);
    plainRnn->setWeights(afterConcat->getWeights());
    expectClose(toVec(ys[1]), maskedExpectation(*plainRnn, cat, keepA, false, true, 2),
                "concat features");

    // Concatenate on time: the masks follow their steps.
    std::vector<std::vector<bool>> joined(2);
    for (int n = 0; n < 2; ++n) {
      joined[n] = keepA[n];
      joined[n].insert(joined[n].end(), keepB[n].begin(), keepB[n].end());
    }
    auto plainLstm = layers::lstm({{"units", 2}, {"returnSequences", true}});
    Tensor timeCat = concat({a, b}, 1);
    plainLstm->apply(timeCat);
    plainLstm->setWeights(afterTimeConcat->getWeights());
    expectClose(toVec(ys[2]), maskedExpectation(*plainLstm, timeCat, joined, false, false, 2),
                "concat time");
  });
}

TEST(LayersMasks, LayersThatChangeTheStepsDropTheMask) {
  auto x = input({{"shape", {5, 3}}});
  auto masked = layers::masking()->apply(x);
  // Flatten drops the mask (as Keras 3): Dense after it sees plain values.
  auto flat = layers::flatten()->apply(masked);
  ModelPtr m = model({x}, {flat});
  Tensor y = m->predict(std::vector<Tensor>{padded()})[0];
  EXPECT_EQ(y.shape(), (Shape{2, 15}));
  auto lstm = layers::lstm({{"units", 2}});
  EXPECT_TRUE(lstm->computeMask({padded()}, {ones({2, 5}, DType::boolean)})[0].defined() == false);
}

TEST(LayersMasks, MaskedGradients) {
  checkLayer(
      {"embedding_mask_zero_lstm",
       [] {
         auto s = std::make_shared<Sequential>();
         s->add(
             {layers::embedding(
                  {{"inputDim", 3}, {"outputDim", 2}, {"maskZero", true}, {"inputShape", {4}}}),
              layers::lstm(
                  {{"units", 2}, {"returnSequences", true}, {"recurrentActivation", "sigmoid"}})});
         return LayerPtr(s);
       },
       {{3, 4}},
       {DType::int32},
       3});
  checkLayer(
      {"embedding_mask_zero_bidirectional_gru",
       [] {
         auto s = std::make_shared<Sequential>();
         s->add({layers::embedding(
                     {{"inputDim", 3}, {"outputDim", 2}, {"maskZero", true}, {"inputShape", {4}}}),
                 layers::bidirectional(layers::gru({{"units", 2}, {"goBackwards", true}}),
                                       {{"mergeMode", "sum"}})});
         return LayerPtr(s);
       },
       {{3, 4}},
       {DType::int32},
       3});
}

TEST(LayersMasks, Errors) {
  expectError([] { layers::masking({{"maskValue", "zero"}}); }, {"Masking", "mask_value"});
  expectError([] { layers::masking({{"maskvalue", 1}}); }, {"Masking", "maskvalue"});
  expectError([] { layers::masking()->apply(ones({4})); }, {"Masking", "rank >= 2", "[-1]"});
  auto l = layers::lstm({{"units", 2}});
  l->apply(padded());
  CallArgs bad;
  bad.masks = {ones({2, 4}, DType::boolean)};
  expectError([&] { l->call({padded()}, bad); }, {"LSTM", "mask", "[2,5]", "[2,4]"});
  auto td = layers::timeDistributed(layers::dense({{"units", 2}}));
  td->apply(padded());
  expectError([&] { td->call({padded()}, bad); }, {"TimeDistributed", "mask", "[2,4]"});
}

// ---- GRU reset_after -------------------------------------------------------------

/// Keras 3 writes GRU with reset_after true; TF.js cannot run it. Expected
/// values from PyTorch's nn.GRU (reset-after), tests/interop/torch_gru_reset_after.py.
TEST(LayersRnn, GRUResetAfterMatchesPyTorch) {
  const int64_t u = 3, f = 2, T = 4, B = 2;
  auto vals = [](int64_t n, int k) {
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(std::sin(0.37 * i + k) * 0.8);
    return v;
  };
  const Vec torchOut = {-0.195300897, -0.188356398, -0.154824194, -0.302757579, -0.254537894,
                        -0.165378654, -0.331853480, -0.226719231, -0.084319302, -0.307642937,
                        -0.166716865, -0.001698471, -0.136822698, -0.080363665, -0.012051046,
                        -0.181129296, -0.126251234, -0.053748651, -0.213165587, -0.184020092,
                        -0.128500918, -0.255492529, -0.247416991, -0.204369225};
  forEachBackend([&] {
    // As a Keras 3 config would give it.
    LayerPtr g = layers::fromConfig("GRU", Json{{"name", "gru"},
                                                {"units", u},
                                                {"reset_after", true},
                                                {"recurrent_activation", "sigmoid"},
                                                {"return_sequences", true}});
    Tensor x = tensor(vals(B * T * f, 4), {B, T, f});
    g->apply(x);
    g->setWeights({tensor(vals(f * 3 * u, 1), {f, 3 * u}), tensor(vals(u * 3 * u, 2), {u, 3 * u}),
                   tensor(vals(2 * 3 * u, 3), {2, 3 * u})});
    expectClose(toVec(g->apply(x)), torchOut, "GRU reset_after vs torch", 1e-5);
    // And as a GRUCell in RNN.
    LayerPtr r = layers::rnn(
        layers::gruCell({{"units", u}, {"resetAfter", true}, {"recurrentActivation", "sigmoid"}}),
        {{"returnSequences", true}});
    r->apply(x);
    r->setWeights(g->getWeights());
    expectClose(toVec(r->apply(x)), torchOut, "RNN(GRUCell reset_after) vs torch", 1e-5);
  });
}

// ---- RNN with cells ----------------------------------------------------------------

Tensor sequence(int64_t b, int64_t t, int64_t f, int seed = 1) {
  std::vector<float> v(static_cast<size_t>(b * t * f));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(std::sin(0.7 * (i + 1) * seed + seed));
  return tensor(v, {b, t, f});
}

TEST(LayersRnnCells, RnnWithACellComputesItsLayer) {
  forEachBackend([] {
    for (const std::string cls : {"SimpleRNN", "LSTM", "GRU"})
      for (bool back : {false, true}) {
        SCOPED_TRACE(cls + (back ? " goBackwards" : ""));
        Json cellArgs = {{"units", 3}, {"biasInitializer", kRandomBias}};
        LayerPtr cell = cls == "SimpleRNN" ? layers::simpleRNNCell(cellArgs)
                        : cls == "LSTM"    ? layers::lstmCell(cellArgs)
                                           : layers::gruCell(cellArgs);
        Json flags = {{"returnSequences", true}, {"returnState", true}, {"goBackwards", back}};
        LayerPtr r = layers::rnn(cell, flags);
        Tensor x = sequence(2, 4, 3);
        std::vector<Tensor> ys = r->apply(std::vector<Tensor>{x});
        Json layerArgs = flags;
        layerArgs["units"] = 3;
        LayerPtr plain = makeRecurrent(cls, layerArgs);
        std::vector<Tensor> expected = plain->apply(std::vector<Tensor>{x});  // builds it
        plain->setWeights(r->getWeights());
        expected = plain->apply(std::vector<Tensor>{x});
        ASSERT_EQ(ys.size(), expected.size());
        for (size_t i = 0; i < ys.size(); ++i)
          expectClose(toVec(ys[i]), toVec(expected[i]), "output " + std::to_string(i));
        EXPECT_EQ(r->weights()[0].name(), r->name() + "/kernel");
        EXPECT_EQ(cell->weights().size(), r->weights().size());
      }
  });
}

TEST(LayersRnnCells, StackedCellsRunOneAfterAnother) {
  forEachBackend([] {
    for (bool back : {false, true}) {
      SCOPED_TRACE(back ? "goBackwards" : "forwards");
      auto r = layers::rnn(layers::stackedRNNCells(
                               {layers::lstmCell({{"units", 3}, {"biasInitializer", kRandomBias}}),
                                layers::gruCell({{"units", 2}, {"biasInitializer", kRandomBias}})}),
                           {{"returnState", true}, {"goBackwards", back}, {"name", "stack"}});
      Tensor x = sequence(2, 5, 4);
      std::vector<Tensor> ys = r->apply(std::vector<Tensor>{x});
      std::vector<Tensor> w = r->getWeights();
      ASSERT_EQ(w.size(), 6u);
      EXPECT_EQ(r->weights()[3].name(), "stack/RNNCell_1/kernel");
      // The first cell's sequence (in processing order) through the second.
      auto l1 = layers::lstm(
          {{"units", 3}, {"returnSequences", true}, {"returnState", true}, {"goBackwards", back}});
      auto l2 = layers::gru({{"units", 2}, {"returnState", true}});
      std::vector<Tensor> a = l1->apply(std::vector<Tensor>{x});
      l1->setWeights({w[0], w[1], w[2]});
      a = l1->apply(std::vector<Tensor>{x});
      std::vector<Tensor> b = l2->apply(std::vector<Tensor>{a[0]});
      l2->setWeights({w[3], w[4], w[5]});
      b = l2->apply(std::vector<Tensor>{a[0]});
      // {output, states of the last cell, then the first's} as TF.js lists them.
      ASSERT_EQ(ys.size(), 4u);
      expectClose(toVec(ys[0]), toVec(b[0]), "output");
      expectClose(toVec(ys[1]), toVec(b[1]), "gru h");
      expectClose(toVec(ys[2]), toVec(a[1]), "lstm h");
      expectClose(toVec(ys[3]), toVec(a[2]), "lstm c");
    }
  });
}

TEST(LayersRnnCells, ACellCallIsOneStep) {
  forEachBackend([] {
    auto cell = layers::lstmCell({{"units", 2}, {"biasInitializer", kRandomBias}});
    auto r = layers::rnn(cell);
    Tensor x = sequence(3, 2, 4);
    Tensor whole = r->apply(x);
    std::vector<Tensor> steps = unstack(x, 1);
    std::vector<Tensor> s1 =
        cell->apply(std::vector<Tensor>{steps[0], zeros({3, 2}), zeros({3, 2})});
    ASSERT_EQ(s1.size(), 3u);
    std::vector<Tensor> s2 = cell->apply(std::vector<Tensor>{steps[1], s1[1], s1[2]});
    expectClose(toVec(s2[0]), toVec(whole), "two cell steps");
  });
}

TEST(LayersRnnCells, ConfigsRoundTripInTfjsForm) {
  auto r = layers::rnn(
      Json{{"cell",
            Json::array({Json{{"class_name", "GRUCell"}, {"config", {{"units", 3}, {"name", "g"}}}},
                         Json{{"className", "SimpleRNNCell"}, {"config", {{"units", 2}}}}})},
           {"returnSequences", true},
           {"inputShape", {4, 5}},
           {"name", "r"}});
  Json c = r->getConfig();
  EXPECT_EQ(c["return_sequences"], true);
  EXPECT_EQ(c["stateful"], false);
  EXPECT_EQ(c["cell"]["class_name"], "StackedRNNCells");
  ASSERT_EQ(c["cell"]["config"]["cells"].size(), 2u);
  Json g = c["cell"]["config"]["cells"][0];
  EXPECT_EQ(g["class_name"], "GRUCell");
  EXPECT_EQ(g["config"]["name"], "g");
  EXPECT_EQ(g["config"]["units"], 3);
  EXPECT_EQ(g["config"]["recurrent_activation"], "hard_sigmoid");
  EXPECT_EQ(g["config"]["reset_after"], false);
  EXPECT_FALSE(g["config"].contains("return_sequences"));
  EXPECT_FALSE(g["config"].contains("batch_input_shape"));
  LayerPtr back = layers::fromConfig("RNN", c);
  EXPECT_EQ(back->getConfig().dump(), c.dump());
  // TF.js's own form repeats the cell's keys at the top level.
  Json tfjs = c;
  tfjs["units"] = 3;
  tfjs["recurrent_activation"] = "hard_sigmoid";
  tfjs["cells"] = c["cell"]["config"]["cells"];
  EXPECT_EQ(layers::fromConfig("RNN", tfjs)->getConfig().dump(), c.dump());
  Json m = layers::masking({{"maskValue", -1.5}})->getConfig();
  EXPECT_EQ(m["mask_value"], -1.5);
  EXPECT_EQ(layers::fromConfig("Masking", m)->getConfig().dump(), m.dump());
}

TEST(LayersRnnCells, Gradients) {
  checkLayer({"rnn_stacked_back",
              [] {
                return layers::rnn(
                    layers::stackedRNNCells(
                        {layers::simpleRNNCell({{"units", 2}, {"biasInitializer", kRandomBias}}),
                         layers::lstmCell({{"units", 2}, {"recurrentActivation", "sigmoid"}})}),
                    {{"returnSequences", true}, {"goBackwards", true}});
              },
              {{2, 3, 2}}});
  checkLayer({"rnn_gru_cell_reset_after",
              [] {
                return layers::rnn(
                    layers::gruCell(
                        {{"units", 2}, {"resetAfter", true}, {"biasInitializer", kRandomBias}}),
                    {{"returnState", true}});
              },
              {{2, 3, 2}}});
}

TEST(LayersRnnCells, Errors) {
  expectError([] { layers::rnn(layers::dense({{"units", 2}})); }, {"RNN", "cell", "Dense"});
  expectError([] { layers::rnn(Json{{"units", 2}}); }, {"RNN", "cell", "required"});
  // Stateful needs the batch size (TF.js's rule).
  expectError(
      [] {
        layers::rnn(layers::lstmCell({{"units", 2}}), {{"stateful", true}})
            ->apply(input({{"shape", {3, 2}}}));
      },
      {"RNN", "stateful", "batch size"});
  expectError(
      [] {
        layers::rnn(layers::lstmCell({{"units", 2}}), {{"merge_mode", "sum"}});
      },
      {"RNN", "merge_mode"});
  expectError(
      [] {
        layers::rnn(layers::lstmCell({{"units", 2}}), {{"returnSequences", "yes"}});
      },
      {"RNN", "return_sequences"});
  expectError(
      [] {
        layers::lstmCell({{"units", 2}, {"returnSequences", true}, {"name", "c1"}});
      },
      {"LSTMCell", "c1", "return_sequences"});
  expectError([] { layers::gruCell({{"units", -1}, {"name", "c2"}}); }, {"GRUCell", "c2", "units"});
  expectError(
      [] {
        layers::simpleRNNCell({{"units", 2}, {"activation", 3}});
      },
      {"SimpleRNNCell", "activation"});
  expectError([] { layers::stackedRNNCells({}); }, {"StackedRNNCells", "cells"});
  expectError(
      [] {
        layers::fromConfig("StackedRNNCells", Json{{"cells", "LSTMCell"}});
      },
      {"StackedRNNCells", "cells"});
  expectError(
      [] {
        layers::rnn(layers::lstmCell({{"units", 2}}))->apply(ones({2, 3}));
      },
      {"RNN", "rank 3", "[-1,3]"});
  auto r = layers::rnn(layers::simpleRNNCell({{"units", 2}}));
  r->apply(sequence(1, 2, 3));
  expectError([&] { r->apply(sequence(1, 2, 4)); }, {"SimpleRNN", "3 input features", "[1,2,4]"});
}

// ---- ConvLSTM2D ----------------------------------------------------------------------

/// conv2d in double, NHWC, TF's 'same' / 'valid' padding. x [n, H, W, C] flat,
/// k [kh, kw, C, O] flat; returns [n, oh, ow, O].
Vec convRef(const Vec& x, int64_t n, int64_t H, int64_t W, int64_t C, const Vec& k, int64_t kh,
            int64_t kw, int64_t O, int64_t stride, int64_t dil, bool same, int64_t& oh,
            int64_t& ow) {
  const int64_t dkh = (kh - 1) * dil + 1, dkw = (kw - 1) * dil + 1;
  oh = same ? (H + stride - 1) / stride : (H - dkh) / stride + 1;
  ow = same ? (W + stride - 1) / stride : (W - dkw) / stride + 1;
  const int64_t padT = same ? std::max<int64_t>((oh - 1) * stride + dkh - H, 0) / 2 : 0;
  const int64_t padL = same ? std::max<int64_t>((ow - 1) * stride + dkw - W, 0) / 2 : 0;
  Vec out(static_cast<size_t>(n * oh * ow * O), 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t o = 0; o < O; ++o) {
          double acc = 0;
          for (int64_t p = 0; p < kh; ++p)
            for (int64_t q = 0; q < kw; ++q) {
              int64_t r = i * stride + p * dil - padT, c = j * stride + q * dil - padL;
              if (r < 0 || r >= H || c < 0 || c >= W) continue;
              for (int64_t ch = 0; ch < C; ++ch)
                acc += x[((b * H + r) * W + c) * C + ch] * k[((p * kw + q) * C + ch) * O + o];
            }
          out[((b * oh + i) * ow + j) * O + o] = acc;
        }
  return out;
}

TEST(LayersConvLstm, MatchesTheCellEquations) {
  struct Case {
    int64_t k, stride, dil;
    bool same, back, seq;
  };
  for (const Case& cs : {Case{3, 1, 1, false, false, false}, Case{2, 2, 1, false, true, true},
                         Case{3, 1, 1, true, false, true}, Case{2, 1, 2, true, true, false}}) {
    SCOPED_TRACE(std::to_string(cs.k) + " stride " + std::to_string(cs.stride) + " dilation " +
                 std::to_string(cs.dil) + (cs.same ? " same" : " valid") +
                 (cs.back ? " back" : "") + (cs.seq ? " seq" : ""));
    forEachBackend([&] {
      const int64_t b = 2, T = 3, H = 5, W = 6, C = 2, F = 2;
      setSeed(11);
      auto l = layers::convLstm2d({{"filters", F},
                                   {"kernelSize", cs.k},
                                   {"strides", cs.stride},
                                   {"dilationRate", cs.dil},
                                   {"padding", cs.same ? "same" : "valid"},
                                   {"goBackwards", cs.back},
                                   {"returnSequences", cs.seq},
                                   {"returnState", true},
                                   {"biasInitializer", kRandomBias}});
      Tensor x = tensor(
          [&] {
            std::vector<float> v(static_cast<size_t>(b * T * H * W * C));
            for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(std::sin(0.3 * i + 1));
            return v;
          }(),
          {b, T, H, W, C});
      std::vector<Tensor> ys = l->apply(std::vector<Tensor>{x});
      std::vector<Tensor> w = l->getWeights();
      ASSERT_EQ(w.size(), 3u);
      Vec xs = toVec(x), kernel = toVec(w[0]), rk = toVec(w[1]), bias = toVec(w[2]);
      int64_t oh = 0, ow = 0;
      convRef(Vec(static_cast<size_t>(H * W * C)), 1, H, W, C, kernel, cs.k, cs.k, 4 * F, cs.stride,
              cs.dil, cs.same, oh, ow);
      const int64_t S = b * oh * ow * F;
      Vec h(static_cast<size_t>(S), 0.0), c(static_cast<size_t>(S), 0.0), seq;
      std::vector<Vec> steps;
      for (int64_t s = 0; s < T; ++s) {
        int64_t t = cs.back ? T - 1 - s : s;
        Vec xt;
        for (int64_t n = 0; n < b; ++n)
          xt.insert(xt.end(), xs.begin() + (n * T + t) * H * W * C,
                    xs.begin() + (n * T + t + 1) * H * W * C);
        int64_t a1, a2, r1, r2;
        Vec zx =
            convRef(xt, b, H, W, C, kernel, cs.k, cs.k, 4 * F, cs.stride, cs.dil, cs.same, a1, a2);
        Vec zh = convRef(h, b, oh, ow, F, rk, cs.k, cs.k, 4 * F, 1, 1, true, r1, r2);
        auto hs = [](double v) { return std::clamp(0.2 * v + 0.5, 0.0, 1.0); };
        for (int64_t p = 0; p < b * oh * ow; ++p)
          for (int64_t f = 0; f < F; ++f) {
            auto z = [&](int g) {
              return zx[p * 4 * F + g * F + f] + zh[p * 4 * F + g * F + f] + bias[g * F + f];
            };
            double& cc = c[p * F + f];
            cc = hs(z(1)) * cc + hs(z(0)) * std::tanh(z(2));
            h[p * F + f] = hs(z(3)) * std::tanh(cc);
          }
        steps.push_back(h);
      }
      ASSERT_EQ(ys.size(), 3u);
      if (cs.seq) {
        EXPECT_EQ(ys[0].shape(), (Shape{b, T, oh, ow, F}));
        for (int64_t n = 0; n < b; ++n)
          for (int64_t s = 0; s < T; ++s)
            seq.insert(seq.end(), steps[s].begin() + n * oh * ow * F,
                       steps[s].begin() + (n + 1) * oh * ow * F);
        expectClose(toVec(ys[0]), seq, "sequence", 1e-4);
      } else {
        EXPECT_EQ(ys[0].shape(), (Shape{b, oh, ow, F}));
        expectClose(toVec(ys[0]), h, "output", 1e-4);
      }
      expectClose(toVec(ys[1]), h, "h", 1e-4);
      expectClose(toVec(ys[2]), c, "c", 1e-4);
      EXPECT_EQ(l->weights()[1].name(), l->name() + "/recurrent_kernel");
    });
  }
}

TEST(LayersConvLstm, MaskedStepsKeepTheState) {
  setSeed(2);
  auto x = input({{"shape", {4, 3, 3, 2}}});
  auto conv = layers::convLstm2d({{"filters", 2}, {"kernelSize", 2}, {"returnSequences", true}});
  // A mask from an Embedding-like source: steps 1 and 3 of row 0 are padding.
  std::vector<float> v(2 * 4 * 3 * 3 * 2);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(std::cos(0.4 * i));
  Tensor xs = tensor(v, {2, 4, 3, 3, 2});
  conv->apply(xs);
  CallArgs args;
  args.masks = {cast(tensor({1.f, 0.f, 1.f, 0.f, 1.f, 1.f, 1.f, 1.f}, {2, 4}), DType::boolean)};
  Vec y = toVec(conv->call({xs}, args)[0]);
  const size_t step = 2 * 2 * 2;  // oh * ow * filters
  for (size_t k = 0; k < step; ++k) {
    EXPECT_EQ(y[1 * step + k], y[0 * step + k]);
    EXPECT_EQ(y[3 * step + k], y[2 * step + k]);
  }
  Vec plain = toVec(conv->apply(xs));
  for (size_t k = 4 * step; k < 8 * step; ++k)
    EXPECT_NEAR(y[k], plain[k], 1e-6);  // row 1 is unmasked
}

TEST(LayersConvLstm, CellStepsAndConfigs) {
  auto l = layers::convLstm2d({{"filters", 2},
                               {"kernelSize", {2, 3}},
                               {"padding", "same"},
                               {"unitForgetBias", true},
                               {"inputShape", {3, 4, 5, 1}},
                               {"name", "cl"}});
  Json c = l->getConfig();
  EXPECT_EQ(c["filters"], 2);
  EXPECT_EQ(c["kernel_size"], Json::array({2, 3}));
  EXPECT_EQ(c["strides"], Json::array({1, 1}));
  EXPECT_EQ(c["dilation_rate"], Json::array({1, 1}));
  EXPECT_EQ(c["padding"], "same");
  EXPECT_EQ(c["data_format"], "channelsLast");
  EXPECT_EQ(c["recurrent_activation"], "hard_sigmoid");
  EXPECT_EQ(c["return_sequences"], false);
  EXPECT_FALSE(c.contains("units"));
  EXPECT_EQ(layers::fromConfig("ConvLSTM2D", c)->getConfig().dump(), c.dump());
  Tensor x = ones({1, 3, 4, 5, 1});
  l->apply(x);
  Vec bias = toVec(l->getWeights()[2]);
  EXPECT_EQ(bias, (Vec{0, 0, 1, 1, 0, 0, 0, 0}));  // unitForgetBias: ones for the forget gate

  auto cell = layers::convLstm2dCell({{"filters", 2}, {"kernelSize", 2}, {"padding", "same"}});
  Tensor step = ones({1, 4, 5, 1});
  std::vector<Tensor> s =
      cell->apply(std::vector<Tensor>{step, zeros({1, 4, 5, 2}), zeros({1, 4, 5, 2})});
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].shape(), (Shape{1, 4, 5, 2}));
  EXPECT_EQ(layers::fromConfig("ConvLSTM2DCell", cell->getConfig())->getConfig().dump(),
            cell->getConfig().dump());
}

TEST(LayersConvLstm, Gradients) {
  checkLayer({"conv_lstm2d_same_seq",
              [] {
                return layers::convLstm2d({{"filters", 2},
                                           {"kernelSize", 2},
                                           {"padding", "same"},
                                           {"returnSequences", true},
                                           {"recurrentActivation", "sigmoid"},
                                           {"biasInitializer", kRandomBias}});
              },
              {{1, 3, 3, 3, 2}}});
  checkLayer({"conv_lstm2d_strides_back",
              [] {
                return layers::convLstm2d(
                    {{"filters", 1}, {"kernelSize", 2}, {"strides", 2}, {"goBackwards", true}});
              },
              {{2, 2, 4, 4, 1}}});
}

TEST(LayersConvLstm, Errors) {
  expectError(
      [] {
        layers::convLstm2d({{"kernelSize", 2}, {"name", "c1"}});
      },
      {"ConvLSTM2D", "c1", "filters"});
  expectError(
      [] {
        layers::convLstm2d({{"filters", 2}});
      },
      {"ConvLSTM2D", "kernel_size", "required"});
  expectError(
      [] {
        layers::convLstm2d({{"filters", 2}, {"kernelSize", 2}, {"padding", "full"}});
      },
      {"ConvLSTM2D", "padding", "'full'"});
  expectError(
      [] {
        layers::convLstm2d({{"filters", 2}, {"kernelSize", 2}, {"dataFormat", "channelsFirst"}});
      },
      {"ConvLSTM2D", "data_format", "channelsFirst"});
  expectError(
      [] {
        layers::convLstm2d({{"filters", 2}, {"kernelSize", 2}, {"kernelSizes", 2}});
      },
      {"ConvLSTM2D", "kernel_sizes"});
  expectError(
      [] {
        layers::convLstm2d({{"filters", 2}, {"kernelSize", 2}, {"units", 2}});
      },
      {"ConvLSTM2D", "units"});
  expectError(
      [] {
        layers::convLstm2d({{"filters", 2}, {"kernelSize", 2}, {"unroll", true}});
      },
      {"ConvLSTM2D", "unroll"});
  expectError(
      [] {
        layers::convLstm2d({{"filters", 2}, {"kernelSize", "3"}});
      },
      {"ConvLSTM2D", "kernel_size"});
  expectError(
      [] {
        layers::convLstm2d({{"filters", 2}, {"kernelSize", 2}})->apply(ones({1, 2, 3, 3}));
      },
      {"ConvLSTM2D", "rank 5", "[-1,2,3,3]"});
  expectError(
      [] {
        layers::convLstm2d({{"filters", 2}, {"kernelSize", 4}})->apply(ones({1, 2, 3, 3, 1}));
      },
      {"ConvLSTM2D", "too small"});
  expectError(
      [] {
        layers::convLstm2dCell({{"filters", 2}, {"kernelSize", 2}, {"returnSequences", true}});
      },
      {"ConvLSTM2DCell", "return_sequences"});
}

}  // namespace
}  // namespace glint::testing
