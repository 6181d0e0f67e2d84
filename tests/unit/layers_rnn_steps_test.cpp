// The RNN layer over a cell that is not built in (a StepCell, as JS cells
// are): its step loop against the same recurrence computed here in float64,
// with goBackwards, returnSequences, returnState, masks and stacks; stateful
// states carried across calls and reset; gradients by finite differences on
// every backend (layer_harness).
#include <gtest/gtest.h>

#include <cmath>

#include "glint/glint.h"
#include "glint/initializers.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "layer_harness.h"
#include "op_harness.h"
#include "src/layers/recurrent.h"

namespace glint::testing {
namespace {

/// h' = tanh(x K + h R); output and the one state are h'.
class TanhCell : public Layer, public StepCell {
 public:
  explicit TanhCell(int64_t units) : Layer(Json::object(), "tanh_cell"), units_(units) {}
  std::string className() const override { return "TanhCell"; }
  std::vector<int64_t> stateSizes() const override { return {units_}; }
  void build(const std::vector<Shape>& in) override {
    kernel_ = addWeight("kernel", {in[0][1], units_}, initializers::randomUniform(-0.6, 0.6));
    recurrent_ =
        addWeight("recurrent_kernel", {units_, units_}, initializers::randomUniform(-0.6, 0.6));
    built_ = true;
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    Tensor h = tanh(add(matMul(in[0], kernel_), matMul(in[1], recurrent_)));
    return {h, h};
  }
  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override { return in; }

 private:
  int64_t units_;
  Variable kernel_, recurrent_;
};

using Vec = std::vector<double>;

/// The recurrence on the host: x [batch, time, d] row-major, weights as read
/// back; mask [batch, time] (empty: none) keeps the states at masked steps.
struct HostRun {
  Vec sequence;  // [batch, time, units], in processing order
  Vec last;      // [batch, units]
};
HostRun hostRun(const Vec& x, int64_t batch, int64_t time, int64_t d, const Vec& k, const Vec& r,
                int64_t u, bool backwards, const std::vector<int>& mask = {}, Vec h = {}) {
  if (h.empty()) h.assign(static_cast<size_t>(batch * u), 0.0);
  HostRun out;
  out.sequence.assign(static_cast<size_t>(batch * time * u), 0.0);
  for (int64_t s = 0; s < time; ++s) {
    int64_t t = backwards ? time - 1 - s : s;
    Vec next = h;
    for (int64_t b = 0; b < batch; ++b) {
      bool keep = !mask.empty() && !mask[static_cast<size_t>(b * time + t)];
      for (int64_t j = 0; j < u; ++j) {
        double z = 0;
        for (int64_t i = 0; i < d; ++i)
          z += x[static_cast<size_t>((b * time + t) * d + i)] * k[static_cast<size_t>(i * u + j)];
        for (int64_t i = 0; i < u; ++i)
          z += h[static_cast<size_t>(b * u + i)] * r[static_cast<size_t>(i * u + j)];
        if (!keep) next[static_cast<size_t>(b * u + j)] = std::tanh(z);
        out.sequence[static_cast<size_t>((b * time + s) * u + j)] =
            next[static_cast<size_t>(b * u + j)];
      }
    }
    h = next;
  }
  out.last = h;
  return out;
}

Vec vec(const Tensor& t) {
  std::vector<float> f = t.toFloats();
  return Vec(f.begin(), f.end());
}

TEST(LayersRnnSteps, MatchesTheRecurrenceComputedOnTheHost) {
  const int64_t batch = 2, time = 4, d = 3, u = 2;
  Tensor x =
      tensor({0.5f,  -1,   0.25f, 1,    0.3f,  -0.2f, 0,    0.7f,  -0.4f, 0.9f,   0.1f,  -0.6f,
              -0.3f, 0.2f, 0.8f,  0.4f, -0.9f, 0.05f, 0.6f, -0.1f, 0.35f, -0.75f, 0.45f, 0.15f},
             {batch, time, d});
  for (bool backwards : {false, true}) {
    SCOPED_TRACE(backwards ? "goBackwards" : "forwards");
    auto cell = std::make_shared<TanhCell>(u);
    LayerPtr rnn = layers::rnn(
        cell, {{"returnSequences", true}, {"returnState", true}, {"goBackwards", backwards}});
    std::vector<Tensor> out = rnn->apply(std::vector<Tensor>{x});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].shape(), (Shape{batch, time, u}));
    std::vector<Tensor> w = cell->getWeights();
    HostRun want = hostRun(vec(x), batch, time, d, vec(w[0]), vec(w[1]), u, backwards);
    expectNear(out[0].toFloats(), want.sequence);
    expectNear(out[1].toFloats(), want.last);
    // Weights are named after the RNN, as TF.js names a cell's weights.
    EXPECT_EQ(rnn->weights()[0].name(), rnn->name() + "/kernel");
  }
  // A mask [batch, time]: masked steps keep the states (TF.js's rule).
  auto cell = std::make_shared<TanhCell>(u);
  LayerPtr rnn = layers::rnn(cell, {{"returnSequences", true}});
  std::vector<int> mask = {1, 0, 1, 1, 0, 1, 1, 0};
  CallArgs args;
  args.masks = {cast(tensorInt({1, 0, 1, 1, 0, 1, 1, 0}, {batch, time}), DType::boolean)};
  rnn->ensureBuilt({x.shape()});
  Tensor y = rnn->call({x}, args)[0];
  std::vector<Tensor> w = cell->getWeights();
  expectNear(y.toFloats(),
             hostRun(vec(x), batch, time, d, vec(w[0]), vec(w[1]), u, false, mask).sequence);
}

TEST(LayersRnnSteps, StatefulCarriesStatesAcrossCallsAndResets) {
  const int64_t batch = 2, time = 6, d = 2, u = 3;
  std::vector<float> values;
  for (int i = 0; i < batch * time * d; ++i)
    values.push_back(std::sin(0.7f * static_cast<float>(i)));
  Tensor x = tensor(values, {batch, time, d});
  auto cell = std::make_shared<TanhCell>(u);
  LayerPtr rnn = layers::rnn(cell, {{"stateful", true}});
  rnn->ensureBuilt({{batch, 3, d}});
  Tensor first = rnn->apply(slice(x, {0, 0, 0}, {batch, 3, d}));
  Tensor second = rnn->apply(slice(x, {0, 3, 0}, {batch, 3, d}));
  std::vector<Tensor> w = cell->getWeights();
  HostRun whole = hostRun(vec(x), batch, time, d, vec(w[0]), vec(w[1]), u, false);
  expectNear(second.toFloats(), whole.last);
  ASSERT_EQ(rnnStates(*rnn).size(), 1u);
  expectNear(rnnStates(*rnn)[0].toFloats(), whole.last);
  resetRnnStates(*rnn, {});
  expectNear(rnn->apply(slice(x, {0, 0, 0}, {batch, 3, d})).toFloats(), vec(first));
  // Given states, then the rest of the sequence from them.
  resetRnnStates(*rnn, {first});
  expectNear(rnn->apply(slice(x, {0, 3, 0}, {batch, 3, d})).toFloats(), whole.last);
  expectError(
      [&] {
        resetRnnStates(*rnn, {zeros({batch, u + 1})});
      },
      {"RNN", "resetStates", "[2,3]", "[2,4]"});
  expectError([&] { rnn->apply(zeros({batch + 1, 3, d})); }, {"RNN", "stateful", "batch size 2"});
  LayerPtr plain = layers::rnn(std::make_shared<TanhCell>(u));
  expectError([&] { resetRnnStates(*plain, {}); }, {"RNN", "not stateful"});
}

TEST(LayersRnnSteps, Gradients) {
  checkLayer({"rnn_step_cell_backwards",
              [] {
                return layers::rnn(std::make_shared<TanhCell>(2),
                                   {{"returnSequences", true}, {"goBackwards", true}});
              },
              {{2, 3, 2}}});
  checkLayer({"rnn_step_cell_stacked_with_lstm",
              [] {
                return layers::rnn(layers::stackedRNNCells({std::make_shared<TanhCell>(3),
                                                            layers::lstmCell({{"units", 2}})}),
                                   {{"returnState", true}});
              },
              {{2, 3, 2}}});
}

}  // namespace
}  // namespace glint::testing
