#pragma once
// The recurrent cells' math, shared by gl's and webgpu's cell and sequence
// kernels (each keeps its own schedule: gl one unit or four units a
// fragment, webgpu an invocation per unit or a workgroup per batch row): the
// activations, and the gate formulas of src/backends/reference/rnn.cpp as
// IR. Each builder appends lets to a body whose printed statements the
// backend places after its own fetches, and returns what it defined.
#include <array>
#include <string>

#include "src/backends/gpu/printer.h"

namespace glint::gpu {

/// `ract` (the gates' activation: "sigmoid" or "hardSigmoid"), `act`
/// (tanh, the only fused one: see src/ops/rnn.cpp) and their derivatives
/// `ractD`/`actD` given x and y = f(x), with the math they call.
const std::string& cellActivations(const Dialect& d, const std::string& recurrentActivation);

/// LSTM gates of one unit (f32), or of gl's four units a fragment (vec4f,
/// where the backend defines ract4, act4, ractD4 and actD4): z0..z3 are the
/// pre-activations, locals of type t that the backend's fetch declares;
/// a0..a3 = ract, ract, act, ract of them.
struct LstmGates {
  std::array<E, 4> z, a;
};
LstmGates lstmGates(Fn& body, Type t = Type::f32);

/// One step forward: c = a1 * cPrev + a0 * a2, h = a3 * act(c).
struct LstmState {
  E c, h;
};
LstmState lstmStep(Fn& body, const LstmGates& g, const E& cPrev);

/// One step back, given dh (all of h's gradient) and dc (c's gradient from
/// beyond this step, not through h): the pre-activations' gradients dz0..dz3
/// and cPrev's, dcPrev.
struct LstmGrads {
  std::array<E, 4> dz;
  E dcPrev;
};
LstmGrads lstmStepGrad(Fn& body, const LstmGates& g, const E& cPrev, const E& c, const E& dh,
                       const E& dc);

/// GRU gates of one unit from the f32 locals xz, hz, xr, hr, xa that the
/// backend's fetch declares (the input and recurrent parts of each gate):
/// zPre = xz + hz, rPre = xr + hr, z and r their ract, aPre = xa + (r * rec
/// where resetAfter, else rec), a = act(aPre); `rec` the recurrent candidate
/// input (hc, or 0 for GRUResetState).
struct GruGates {
  E zPre, rPre, z, r, aPre, a;
};
GruGates gruGates(Fn& body, const E& rec, bool resetAfter);
/// The new state: a + z * (hPrev - a).
E gruOutput(const GruGates& g, const E& hPrev);

/// One step back from dh: the gradients of zPre, rPre (0 unless
/// resetAfter: rec is then r's only path) and aPre.
struct GruGrads {
  E dzPre, drPre, daPre;
};
GruGrads gruStepGrad(Fn& body, const GruGates& g, const E& hPrev, const E& rec, const E& dh,
                     bool resetAfter);

/// GRUResetState (r * hPrev) back from dy: the gradient of rPre.
E gruResetStateGrad(Fn& body, const GruGates& g, const E& hPrev, const E& dy);

}  // namespace glint::gpu
