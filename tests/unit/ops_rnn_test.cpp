// Fused recurrent cells (lstmCell, gruCell, gruResetState), unpack, and the
// run-copying cpu slice kernels: values against the reference backend,
// gradients against finite differences, the fused cells against the same
// equations composed from ops, and argument errors.
#include <gtest/gtest.h>

#include <cmath>

#include "glint/backend.h"
#include "glint/rnn_ops.h"
#include "op_harness.h"

namespace glint::testing {
namespace {

using Ts = std::vector<Tensor>;

/// Pre-activations away from hardSigmoid's kinks (|0.2x + 0.5| at 0 or 1 is
/// x = +-2.5): alternately deep in a saturated end and inside the linear part.
InputSpec saturating(Shape shape) {
  std::vector<float> v(static_cast<size_t>(shapeSize(shape)));
  for (size_t i = 0; i < v.size(); ++i) {
    float wobble = 0.3f * static_cast<float>(std::sin(1.3 * (i + 1)));
    v[i] = (i % 3 == 0 ? 3.5f : i % 3 == 1 ? -3.5f : 0.0f) + wobble;
  }
  return Fixed(std::move(shape), v);
}

/// Inputs whose sums stay within (-2.5, 2.5), hardSigmoid's linear part.
InputSpec G(Shape shape) { return F(std::move(shape), -1.2f, 1.2f); }

std::function<Tensor(const Ts&)> lstm(const std::string& ract) {
  return [ract](const Ts& v) {
    Ts hc = lstmCell(v[0], v[1], v[2], ract);
    return concat(hc, 1);
  };
}

/// lstmSequence's results flattened into one tensor (v[2], when given, is the mask).
std::function<Tensor(const Ts&)> lstmSeq(bool returnSequences, bool goBackwards,
                                         const std::string& ract) {
  return [=](const Ts& v) {
    LstmSequence r = lstmSequence(v[0], v[1], v.size() > 2 ? v[2] : Tensor(), returnSequences,
                                  goBackwards, ract);
    Ts parts{reshape(r.h, {-1}), reshape(r.c, {-1})};
    if (returnSequences) parts.push_back(reshape(r.outputs, {-1}));
    return concat(parts, 0);
  };
}

/// A recurrent-dropout-like mask: fixed, not differentiated.
InputSpec mask(Shape shape) {
  InputSpec m = Fixed(shape, std::vector<float>(static_cast<size_t>(shapeSize(shape)), 1.25f));
  for (size_t i = 0; i < m.values.size(); i += 3) m.values[i] = 0.0f;
  m.differentiable = false;
  return m;
}

std::function<Tensor(const Ts&)> gru(bool resetAfter, const std::string& ract) {
  return [=](const Ts& v) { return gruCell(v[0], v[1], v[2], v[3], resetAfter, ract); };
}

std::function<Tensor(const Ts&)> reset(const std::string& ract) {
  return [ract](const Ts& v) { return gruResetState(v[0], v[1], v[2], ract); };
}

/// unpack's parts in reverse order, one left out (its gradient is zero), joined on `axis`.
std::function<Tensor(const Ts&)> unpacked(int64_t axis, int64_t joinAxis) {
  return [=](const Ts& v) {
    Ts parts = unpack(v[0], axis);
    Ts kept(parts.rbegin(), parts.rend() - (parts.size() > 2 ? 1 : 0));
    return kept.size() == 1 ? kept[0] : concat(kept, joinAxis);
  };
}

std::vector<OpCase> cases() {
  return {
      // lstmCell: units 2 (hardSigmoid), 5 and 9 (not a multiple of any SIMD width).
      {"lstm_hard_sigmoid", {G({2, 8}), G({2, 8}), F({2, 2})}, lstm("hardSigmoid")},
      {"lstm_hard_sigmoid_saturated",
       {saturating({2, 12}), G({2, 12}), F({2, 3})},
       lstm("hard_sigmoid")},
      {"lstm_sigmoid_units5", {F({3, 20}), F({3, 20}), F({3, 5})}, lstm("sigmoid")},
      {"lstm_batch1_units9", {F({1, 36}), F({1, 36}), F({1, 9})}, lstm("sigmoid")},
      {"lstm_wide_values", {F({2, 8}, -8, 8), F({2, 8}), F({2, 2}, -3, 3)}, lstm("sigmoid")},
      {"lstm_empty_batch", {F({0, 8}), F({0, 8}), F({0, 2})}, lstm("sigmoid")},
      // Units a multiple of 4: gl takes four units per fragment.
      {"lstm_units4", {F({3, 16}), F({3, 16}), F({3, 4})}, lstm("sigmoid")},
      {"lstm_units8_hard_sigmoid", {G({2, 32}), G({2, 32}), F({2, 8})}, lstm("hardSigmoid")},
      {"lstm_seq_units4",
       {F({3, 2, 16}), F({4, 16}, -0.5f, 0.5f)},
       lstmSeq(true, false, "sigmoid")},
      // lstmSequence: |z| stays below 2.5 (hardSigmoid's kinks) with these ranges.
      {"lstm_seq_hard_sigmoid",
       {G({3, 2, 8}), F({2, 8}, -0.5f, 0.5f)},
       lstmSeq(true, false, "hardSigmoid")},
      {"lstm_seq_backwards_masked",
       {F({4, 2, 12}), F({3, 12}), mask({2, 3})},
       lstmSeq(false, true, "sigmoid")},
      {"lstm_seq_backwards_sequences_batch1",
       {F({3, 1, 20}), F({5, 20})},
       lstmSeq(true, true, "sigmoid")},
      {"lstm_seq_one_step", {F({1, 2, 8}), F({2, 8})}, lstmSeq(true, false, "sigmoid")},
      {"lstm_seq_no_steps", {F({0, 2, 8}), F({2, 8})}, lstmSeq(true, false, "sigmoid")},
      // webgpu's fused loop: 70 units in a workgroup of 96, 300 two per invocation
      // (values; their gradients: LstmSequenceMatchesItsSteps and the fuzzer).
      {"lstm_seq_units70",
       {F({3, 2, 280}), F({70, 280}, -0.2f, 0.2f), mask({2, 70})},
       lstmSeq(true, true, "hardSigmoid"),
       false},
      {"lstm_seq_units300",
       {F({2, 3, 1200}), F({300, 1200}, -0.1f, 0.1f)},
       lstmSeq(true, false, "sigmoid"),
       false},
      // gruCell, TF.js's (reset before the matMul) and Keras's resetAfter.
      {"gru_reset_before", {G({2, 6}), G({2, 4}), G({2, 2}), F({2, 2})}, gru(false, "hardSigmoid")},
      {"gru_reset_after", {G({2, 6}), G({2, 4}), G({2, 2}), F({2, 2})}, gru(true, "hardSigmoid")},
      {"gru_reset_after_sigmoid_units5",
       {F({3, 15}), F({3, 10}), F({3, 5}), F({3, 5})},
       gru(true, "sigmoid")},
      {"gru_reset_before_sigmoid_batch1",
       {F({1, 27}), F({1, 18}), F({1, 9}), F({1, 9})},
       gru(false, "sigmoid")},
      {"gru_saturated",
       {saturating({2, 9}), G({2, 6}), G({2, 3}), F({2, 3})},
       gru(true, "hardSigmoid")},
      {"gru_empty_units", {F({2, 0}), F({2, 0}), F({2, 0}), F({2, 0})}, gru(true, "sigmoid")},
      // gruResetState.
      {"gru_reset_state", {G({2, 6}), G({2, 4}), F({2, 2})}, reset("hardSigmoid")},
      {"gru_reset_state_sigmoid_units5", {F({3, 15}), F({3, 10}), F({3, 5})}, reset("sigmoid")},
      {"gru_reset_state_saturated",
       {saturating({1, 9}), G({1, 6}), F({1, 3})},
       reset("hardSigmoid")},
      // unpack.
      {"unpack_axis1", {F({2, 3, 4})}, unpacked(1, -1)},
      {"unpack_axis0", {F({4, 3})}, unpacked(0, 0)},
      {"unpack_neg_axis", {F({2, 3})}, unpacked(-1, 0)},
      {"unpack_size1", {F({2, 1, 3})}, unpacked(1, 0)},
      // Parts of whole texels, more than one draw's render targets (gl).
      {"unpack_texels_many", {F({10, 2, 4})}, unpacked(0, 0)},
      {"unpack_texels_axis1", {F({3, 9, 4})}, unpacked(1, 0)},
      {"unpack_empty_rows", {F({0, 3, 2})}, unpacked(1, 0)},
      {"unpack_int", {I({2, 3, 2}, -9, 9)}, unpacked(1, 1), false},
      {"unpack_bool", {B({3, 2})}, unpacked(0, 0), false},
      // Slice shapes the cpu run copies treat differently.
      {"slice_partial_last",
       {F({2, 3, 5})},
       [](const Ts& v) {
         return slice(v[0], {0, 1, 1}, {2, 2, 3});
       }},
      {"slice_whole_rows",
       {F({4, 3, 2})},
       [](const Ts& v) {
         return slice(v[0], {1, 0, 0}, {2, -1, -1});
       }},
      {"strided_step2_outer",
       {F({5, 3, 2})},
       [](const Ts& v) {
         return stridedSlice(v[0], {0, 0, 0}, {5, 3, 2}, {2, 1, 1});
       }},
      {"strided_reverse_runs",
       {F({3, 2, 3})},
       [](const Ts& v) {
         return stridedSlice(v[0], {-1, 0, 0}, {-4, 2, 3}, {-1, 1, 1});
       }},
      {"strided_step3_inner",
       {F({2, 7})},
       [](const Ts& v) {
         return stridedSlice(v[0], {0, 1}, {2, 7}, {1, 3});
       }},
      {"strided_int_reverse_inner",
       {I({2, 4}, -9, 9)},
       [](const Ts& v) {
         return stridedSlice(v[0], {0, -1}, {2, -5}, {1, -1});
       },
       false},
      {"strided_bool_rows",
       {B({4, 3})},
       [](const Ts& v) {
         return stridedSlice(v[0], {1, 0}, {4, 3}, {2, 1});
       },
       false},
      {"concat_many_rows",
       {F({3, 1, 2}), F({3, 2, 2}), F({3, 0, 2}), F({3, 1, 2})},
       [](const Ts& v) { return concat(v, 1); }},
  };
}

GLINT_OP_CASES(Rnn, cases());

/// The LSTM equations composed from ops (what the layers ran before).
Ts composedLstm(const Tensor& xz, const Tensor& hz, const Tensor& cPrev, const std::string& ract) {
  auto gate = [&](const Tensor& x) {
    return ract == "sigmoid" ? sigmoid(x)
                             : clipByValue(add(mul(x, scalar(0.2f)), scalar(0.5f)), 0, 1);
  };
  Ts z = split(add(xz, hz), 4, 1);
  Tensor c = add(mul(gate(z[1]), cPrev), mul(gate(z[0]), tanh(z[2])));
  return {mul(gate(z[3]), tanh(c)), c};
}

/// Values and gradients (on every backend) of the fused cell match the composed ops.
TEST(RnnCells, LstmCellMatchesComposedOps) {
  for (const std::string ract : {"sigmoid", "hardSigmoid"}) {
    OpCase c{"lstm", {F({3, 12}, -3, 3), F({3, 12}, -3, 3), F({3, 3})}, nullptr};
    for (const std::string& backend : testBackends()) {
      SCOPED_TRACE(backend + " " + ract);
      std::string saved = getBackend();
      setBackend(backend);
      Ts in = makeInputs(c);
      Tensor w = tensor(std::vector<float>{0.3f, -1.1f, 0.7f}, {3});
      auto loss = [&](bool fused) {
        return [&, fused](const Ts& v) {
          Ts hc = fused ? lstmCell(v[0], v[1], v[2], ract) : composedLstm(v[0], v[1], v[2], ract);
          return add(sum(mul(hc[0], w)), sum(mul(hc[1], hc[1])));
        };
      };
      Ts gf = grads(loss(true), in), gc = grads(loss(false), in);
      std::vector<float> vf = loss(true)(in).toFloats(), vc = loss(false)(in).toFloats();
      EXPECT_NEAR(vf[0], vc[0], 1e-5 * std::max(1.0f, std::abs(vc[0])));
      for (size_t i = 0; i < in.size(); ++i) {
        std::vector<float> a = gf[i].toFloats(), b = gc[i].toFloats();
        for (size_t k = 0; k < a.size(); ++k)
          EXPECT_NEAR(a[k], b[k], 1e-5 * std::max(1.0f, std::abs(b[k])))
              << "input " << i << " " << k;
      }
      setBackend(saved);
    }
  }
}

/// lstmSequence equals its steps run one by one with lstmCell (values and
/// gradients), with 2 units and with 300 (webgpu's fused loop then gives each
/// invocation two units).
TEST(RnnCells, LstmSequenceMatchesItsSteps) {
  for (int64_t units : {2, 300})
    for (const std::string& backend : testBackends()) {
      SCOPED_TRACE(backend + " units " + std::to_string(units));
      const int64_t time = units == 2 ? 4 : 3;
      OpCase c{"seq",
               {F({time, 3, 4 * units}), F({units, 4 * units}, -0.1f, 0.1f), mask({3, units})},
               nullptr};
      std::string saved = getBackend();
      setBackend(backend);
      Ts in = makeInputs(c);
      auto loss = [&](bool whole) {
        return [&, whole](const Ts& v) {
          Tensor h, cc;
          std::vector<Tensor> outs;
          if (whole) {
            LstmSequence r = lstmSequence(v[0], v[1], in[2], true, true, "sigmoid");
            h = r.h, cc = r.c;
            outs = unpack(r.outputs, 1);
          } else {
            h = zeros({3, units}), cc = zeros({3, units});
            for (int64_t t = time - 1; t >= 0; --t) {
              Tensor xz = reshape(slice(v[0], {t, 0, 0}, {1, -1, -1}), {3, 4 * units});
              Ts hc = lstmCell(xz, matMul(mul(h, in[2]), v[1]), cc, "sigmoid");
              h = hc[0], cc = hc[1];
              outs.push_back(h);
            }
          }
          Tensor total = add(sum(mul(h, h)), sum(cc));
          for (size_t k = 0; k < outs.size(); ++k)
            total = add(total, mul(sum(outs[k]), scalar(0.5f + static_cast<float>(k))));
          return total;
        };
      };
      Ts ins{in[0], in[1]};
      const float whole = loss(true)(ins).item(), steps = loss(false)(ins).item();
      EXPECT_NEAR(whole, steps, 1e-5 * std::max(10.0f, std::abs(steps)));
      Ts gw = grads(loss(true), ins), gs = grads(loss(false), ins);
      for (size_t i = 0; i < ins.size(); ++i) {
        std::vector<float> a = gw[i].toFloats(), b = gs[i].toFloats();
        for (size_t k = 0; k < a.size(); ++k)
          EXPECT_NEAR(a[k], b[k], 1e-5 * std::max(1.0f, std::abs(b[k])))
              << "input " << i << " " << k;
      }
      setBackend(saved);
    }
}

// The kernels' second form, which the op uses under a tape: LSTMSequence's
// third output Z holds each step's pre-activation (checked against
// xw_t + (h_{s-1} * mask) W_r from its own H), and LSTMSequenceGrad given Z
// (attr preActivations) gives the dZ it gives from xw. Every backend, units
// 2 (webgpu's fused kernels) and 300 (its stepwise fallback), both directions.
TEST(RnnCells, LstmSequenceKeepsItsPreActivations) {
  for (int64_t units : {2, 300})
    for (bool backwards : {false, true})
      for (const std::string& backend : testBackends()) {
        SCOPED_TRACE(backend + " units " + std::to_string(units) + (backwards ? " backwards" : ""));
        const int64_t time = 3, batch = 2;
        OpCase c{"seq",
                 {F({time, batch, 4 * units}), F({units, 4 * units}, -0.1f, 0.1f),
                  mask({batch, units}), F({time, batch, units}), F({time, batch, units})},
                 nullptr};
        std::string saved = getBackend();
        setBackend(backend);
        Ts in = makeInputs(c);
        const Attrs attrs = Attrs()
                                .set("recurrentActivation", std::string("sigmoid"))
                                .set("activation", std::string("tanh"))
                                .set("goBackwards", backwards);
        const OutputSpec state{{time, batch, units}, DType::float32},
            gates{{time, batch, 4 * units}, DType::float32};
        Ts out = runKernel("LSTMSequence", {in[0], in[1], in[2]}, {state, state, gates}, attrs);
        Ts two = runKernel("LSTMSequence", {in[0], in[1], in[2]}, {state, state}, attrs);
        for (int k = 0; k < 2; ++k)
          EXPECT_EQ(out[k].toFloats(), two[k].toFloats()) << "output " << k;
        for (int64_t s = 0; s < time; ++s) {
          const int64_t t = backwards ? time - 1 - s : s;
          Tensor want = reshape(slice(in[0], {t, 0, 0}, {1, -1, -1}), {batch, 4 * units});
          if (s > 0) {
            Tensor h = reshape(slice(out[0], {s - 1, 0, 0}, {1, -1, -1}), {batch, units});
            want = add(want, matMul(mul(h, in[2]), in[1]));
          }
          std::vector<float> got =
              reshape(slice(out[2], {s, 0, 0}, {1, -1, -1}), {batch, 4 * units}).toFloats();
          std::vector<float> ref = want.toFloats();
          for (size_t k = 0; k < ref.size(); ++k)
            ASSERT_NEAR(got[k], ref[k], 1e-5 * std::max(1.0f, std::abs(ref[k])))
                << "step " << s << " " << k;
        }
        const OutputSpec dzSpec{{time, batch, 4 * units}, DType::float32};
        Tensor fromXw = runKernel(
            "LSTMSequenceGrad", {in[0], in[1], out[0], out[1], in[3], in[4], in[2]}, dzSpec, attrs);
        Tensor fromZ =
            runKernel("LSTMSequenceGrad", {out[2], in[1], out[0], out[1], in[3], in[4], in[2]},
                      dzSpec, Attrs(attrs).set("preActivations", true));
        std::vector<float> a = fromZ.toFloats(), b = fromXw.toFloats();
        for (size_t k = 0; k < b.size(); ++k)
          ASSERT_NEAR(a[k], b[k], 1e-5 * std::max(1.0f, std::abs(b[k]))) << k;
        setBackend(saved);
      }
}

TEST(RnnCells, RnnCellFusesNamesItsActivations) {
  EXPECT_TRUE(rnnCellFuses("hardSigmoid", "tanh"));
  EXPECT_TRUE(rnnCellFuses("hard_sigmoid", "tanh"));
  EXPECT_TRUE(rnnCellFuses("sigmoid", "tanh"));
  EXPECT_FALSE(rnnCellFuses("relu", "tanh"));
  EXPECT_FALSE(rnnCellFuses("sigmoid", "relu"));
  EXPECT_FALSE(rnnCellFuses("noSuchActivation", "tanh"));
}

TEST(RnnCells, UnpackOfAnEmptyAxisIsEmpty) {
  EXPECT_TRUE(unpack(zeros({2, 0, 3}), 1).empty());
  Ts parts = unpack(tensor({1, 2, 3, 4, 5, 6}, {2, 3}), 1);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[2].shape(), Shape({2}));
  EXPECT_EQ(parts[2].toFloats(), std::vector<float>({3, 6}));
}

TEST(OpErrors, RnnCellsNameTheirArguments) {
  Tensor z8 = zeros({2, 8}), c2 = zeros({2, 2});
  expectError([&] { lstmCell(zeros({2, 7}), z8, c2); }, {"[lstmCell]", "xz", "[2,7]", "4 * units"});
  expectError(
      [&] {
        lstmCell(z8, zeros({3, 8}), c2);
      },
      {"[lstmCell]", "hz", "[3,8]", "[2, 4 * 2]"});
  expectError([&] { lstmCell(z8, z8, zeros({2, 3})); }, {"[lstmCell]", "cPrev", "[2,3]", "[2, 2]"});
  expectError([&] { lstmCell(z8, z8, zeros({2})); }, {"[lstmCell]", "cPrev", "[2]"});
  expectError(
      [&] {
        lstmCell(zeros({2, 8}, DType::int32), z8, c2);
      },
      {"[lstmCell]", "xz", "int32"});
  expectError([&] { lstmCell(z8, z8, c2, "relu"); }, {"[lstmCell]", "recurrentActivation", "relu"});
  expectError([&] { lstmCell(z8, z8, c2, "sigmoid", "relu"); },
              {"[lstmCell]", "activation", "relu"});
  expectError([&] { lstmCell(Tensor(), z8, c2); }, {"[lstmCell]", "xz"});
  Tensor x6 = zeros({2, 6}), r4 = zeros({2, 4});
  expectError(
      [&] {
        gruCell(x6, zeros({2, 6}), c2, c2, false);
      },
      {"[gruCell]", "hzr", "[2,6]", "2 * 2"});
  expectError([&] { gruCell(x6, r4, zeros({2, 3}), c2, true); }, {"[gruCell]", "hc", "[2,3]"});
  expectError([&] { gruCell(x6, r4, c2, zeros({1, 2}), true); }, {"[gruCell]", "hPrev", "[1,2]"});
  expectError([&] { gruCell(zeros({2, 5}), r4, c2, c2, true); }, {"[gruCell]", "xz", "3 * units"});
  expectError([&] { gruCell(x6, r4, c2, c2, true, "softmax"); }, {"[gruCell]", "softmax"});
  expectError([&] { gruResetState(x6, r4, zeros({2, 2, 1})); }, {"[gruResetState]", "hPrev"});
  expectError([&] { gruResetState(x6, r4, c2, "tanh"); }, {"[gruResetState]", "tanh"});
  expectError(
      [&] {
        lstmSequence(z8, zeros({2, 8}), Tensor(), true, false);
      },
      {"[lstmSequence]", "xw", "[time, batch, 4 * units]"});
  expectError(
      [&] {
        lstmSequence(zeros({3, 2, 8}), zeros({3, 8}), Tensor(), true, false);
      },
      {"[lstmSequence]", "recurrentKernel", "[3,8]", "[2, 8]"});
  expectError(
      [&] {
        lstmSequence(zeros({3, 2, 8}), zeros({2, 8}), zeros({2, 3}), true, false);
      },
      {"[lstmSequence]", "recurrentMask", "[2,3]"});
  expectError(
      [&] {
        lstmSequence(zeros({3, 2, 8}), zeros({2, 8}), Tensor(), true, false, "relu");
      },
      {"[lstmSequence]", "relu"});
  expectError([&] { unpack(scalar(1)); }, {"[unpack]", "axis"});
  expectError([&] { unpack(z8, 2); }, {"[unpack]", "axis", "2"});
}

}  // namespace
}  // namespace glint::testing
