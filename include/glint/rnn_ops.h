#pragma once
// Fused recurrent-cell ops: the pointwise part of one LSTM or GRU time step in
// one kernel (and its gradient in one kernel), plus `unpack`, which splits a
// sequence into its time steps in one kernel. The recurrent layers build each
// step from one matMul and one cell op; these ops compute exactly what the
// composed ops of the Keras / TF.js cell equations compute.
//
// Activations: recurrentActivation "sigmoid" or "hardSigmoid"
// (clip(0.2x + 0.5, 0, 1)), activation "tanh"; the spellings activations::apply
// accepts are accepted ("hard_sigmoid"). rnnCellFuses says whether a pair is
// supported; layers compose the cell from ops for other activations.
#include <string>
#include <vector>

#include "glint/tensor.h"

namespace glint {

/// True when lstmCell / gruCell / gruResetState run these activations fused.
bool rnnCellFuses(const std::string& recurrentActivation, const std::string& activation);

/// One LSTM step after its matMuls, gates in Keras order (i, f, c, o):
///   z = xz + hz;  i, f, o = recurrentActivation(z_i, z_f, z_o)
///   c = f * cPrev + i * activation(z_c);  h = o * activation(c)
/// xz [batch, 4 * units] (x_t W + b), hz [batch, 4 * units] (hPrev W_r),
/// cPrev [batch, units], all float32. Returns {h, c}, each [batch, units].
/// Kernels "LSTMCell" and, for its gradient, "LSTMCellGrad".
std::vector<Tensor> lstmCell(const Tensor& xz, const Tensor& hz, const Tensor& cPrev,
                             const std::string& recurrentActivation = "hardSigmoid",
                             const std::string& activation = "tanh");

/// The whole LSTM time loop as one differentiable op (what the LSTM layer
/// runs), from zero states, in one kernel:
///   "LSTMSequence": inputs xw, recurrentKernel[, recurrentMask]; outputs H, C
///     [time, batch, units], the h and c after each step in processing order
///     (step s reads xw[goBackwards ? time - 1 - s : s] and h_{s-1} * mask).
///   "LSTMSequenceGrad": inputs xw, recurrentKernel, H, C, dH, dC[, mask]
///     (dH, dC: the gradients reaching each step's h and c); output dZ
///     [time, batch, 4 * units], the gradient of each step's pre-activation
///     z = xw_t + (h_{s-1} * mask) W_r in processing order. W_r's gradient is
///     then one matMul over all steps.
/// Backends may run the loop as one fused kernel (webgpu) or as a matMul and
/// a cell per step (src/backends/stepwise_rnn.h).
/// xw [time, batch, 4 * units]: x_t W + b of every step, time-major.
/// recurrentKernel [units, 4 * units]. recurrentMask: undefined, or [batch,
/// units] multiplying the previous output before its matMul (recurrent
/// dropout; no gradient). goBackwards: the steps run from the last time on.
struct LstmSequence {
  Tensor outputs;  // [batch, time, units] in processing order; undefined unless returnSequences
  Tensor h, c;     // the final states, [batch, units]
};
LstmSequence lstmSequence(const Tensor& xw, const Tensor& recurrentKernel,
                          const Tensor& recurrentMask, bool returnSequences, bool goBackwards,
                          const std::string& recurrentActivation = "hardSigmoid",
                          const std::string& activation = "tanh");

/// One GRU step after its matMuls, gates in Keras order (z, r, candidate):
///   z = ract(xz_z + hzr_z);  r = ract(xz_r + hzr_r)
///   hh = act(xz_h + (resetAfter ? r * hc : hc));  h = hh + z * (hPrev - hh)
/// xz [batch, 3 * units] (x_t W + b); hzr [batch, 2 * units] (hPrev W_r[:, :2u]);
/// hc [batch, units]: with resetAfter (Keras's reset_after) hPrev W_r[:, 2u:]
/// plus the recurrent candidate bias, else (TF.js's GRU) (r * hPrev) W_r[:, 2u:]
/// with r from gruResetState. hPrev [batch, units]. Returns h [batch, units].
/// Kernels "GRUCell" and "GRUCellGrad".
Tensor gruCell(const Tensor& xz, const Tensor& hzr, const Tensor& hc, const Tensor& hPrev,
               bool resetAfter, const std::string& recurrentActivation = "hardSigmoid",
               const std::string& activation = "tanh");

/// The reset-gated previous output of TF.js's GRU (reset before the matMul):
/// r * hPrev with r = recurrentActivation(xz_r + hzr_r); arguments as gruCell.
/// Kernels "GRUResetState" and "GRUResetStateGrad".
Tensor gruResetState(const Tensor& xz, const Tensor& hzr, const Tensor& hPrev,
                     const std::string& recurrentActivation = "hardSigmoid");

/// The x.shape[axis] slices of x along `axis`, each without that axis: the
/// values unstack returns, computed by one kernel ("Unpack") whose gradient is
/// one Concat. A recurrent layer reads its time steps through it, since one
/// slice op per step would scatter each step's gradient into a full-size zero
/// tensor and add them all up.
std::vector<Tensor> unpack(const Tensor& x, int64_t axis = 0);

}  // namespace glint
