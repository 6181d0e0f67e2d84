#include "src/backends/stepwise_rnn.h"

#include <string>
#include <vector>

#include "glint/error.h"
#include "glint/ops.h"
#include "glint/rnn_ops.h"
#include "src/core/backend_services.h"
#include "src/core/kernel_attrs.h"

namespace glint {

namespace {

/// Hands `from`'s buffer to the kernel's preallocated output `out` (same
/// shape and dtype): the steps' results were computed as ordinary tensors.
void adopt(Tensor& out, const Tensor& from, const std::vector<Tensor>& inputs) {
  check(from.shape() == out.shape() && from.dtype() == out.dtype(), "stepwise lstm: result ",
        shapeToString(from.shape()), " does not fit output ", shapeToString(out.shape()));
  for (const Tensor& t : inputs)
    check(t.impl()->storage != from.impl()->storage, "stepwise lstm: result aliases an input");
  out.impl()->storage = from.impl()->storage;
}

}  // namespace

void lstmSequenceStepwise(KernelArgs& args) {
  RecordingPause pause;  // tapes record the LSTMSequence call, not its steps
  const Tensor &xw = args.inputs[0], &wr = args.inputs[1];
  const Tensor mask = args.inputs.size() > 2 ? args.inputs[2] : Tensor();
  const int64_t time = xw.shape()[0], batch = xw.shape()[1], units = wr.shape()[0];
  const kernel_attrs::Recurrent kind = kernel_attrs::Recurrent::read(args.attrs);
  const bool backwards = kind.goBackwards;
  const Attrs attrs = kind.activations();
  const OutputSpec state{{batch, units}, DType::float32};
  const bool keepZ = args.outputs.size() > 2;  // the pre-activations too
  std::vector<Tensor> xs = unpack(xw, 0), hs, cs, zs;
  Tensor h, c = zeros({batch, units});
  for (int64_t s = 0; s < time; ++s) {
    const Tensor& xz = xs[backwards ? time - 1 - s : s];
    // The state starts at zero: the first step's product is zeros.
    Tensor hz = s == 0 ? zeros({batch, 4 * units}) : matMul(mask.defined() ? mul(h, mask) : h, wr);
    std::vector<Tensor> hc = runKernel("LSTMCell", {xz, hz, c}, {state, state}, attrs);
    h = hc[0];
    c = hc[1];
    hs.push_back(reshape(h, {1, batch, units}));
    cs.push_back(reshape(c, {1, batch, units}));
    // add() also at s == 0 (hz is zeros): a tensor of its own, never a view of xw.
    if (keepZ) zs.push_back(reshape(add(xz, hz), {1, batch, 4 * units}));
  }
  adopt(args.outputs[0], time == 1 ? hs[0] : concat(hs, 0), args.inputs);
  adopt(args.outputs[1], time == 1 ? cs[0] : concat(cs, 0), args.inputs);
  if (keepZ) adopt(args.outputs[2], time == 1 ? zs[0] : concat(zs, 0), args.inputs);
}

void lstmSequenceGradStepwise(KernelArgs& args) {
  RecordingPause pause;
  const Tensor &xw = args.inputs[0], &wr = args.inputs[1];
  const Tensor mask = args.inputs.size() > 6 ? args.inputs[6] : Tensor();
  const int64_t time = xw.shape()[0], batch = xw.shape()[1], units = wr.shape()[0];
  const kernel_attrs::Recurrent kind = kernel_attrs::Recurrent::read(args.attrs);
  const bool backwards = kind.goBackwards;
  const Attrs attrs = kind.activations();
  // preActivations: input 0 holds every step's z = xw + h_{s-1} W_r in
  // processing order (the forward kept them), else xw in time order.
  const bool given = kind.preActivations;
  std::vector<Tensor> xs = unpack(xw, 0), cs = unpack(args.inputs[3], 0),
                      dHs = unpack(args.inputs[4], 0), dCs = unpack(args.inputs[5], 0);
  // Otherwise every step's product with W_r again, as one matMul over all
  // steps: rows of step s are h_{s-1} * mask.
  std::vector<Tensor> hzs;
  const Tensor noHz = given ? zeros({batch, 4 * units}) : Tensor();
  if (time > 1 && !given) {
    Tensor hIn = slice(args.inputs[2], {0, 0, 0}, {time - 1, -1, -1});
    if (mask.defined()) hIn = mul(hIn, mask);
    Tensor hz = matMul(reshape(hIn, {(time - 1) * batch, units}), wr);
    hzs = unpack(reshape(hz, {time - 1, batch, 4 * units}), 0);
  }
  std::vector<Tensor> dz(static_cast<size_t>(time));
  Tensor dhRec, dcRec;
  for (int64_t s = time - 1; s >= 0; --s) {
    const Tensor& xz = xs[given || !backwards ? s : time - 1 - s];
    Tensor hz = given ? noHz : s == 0 ? zeros({batch, 4 * units}) : hzs[static_cast<size_t>(s - 1)];
    Tensor cPrev = s == 0 ? zeros({batch, units}) : cs[s - 1];
    Tensor dh = dhRec.defined() ? add(dHs[s], dhRec) : dHs[s];
    Tensor dc = dcRec.defined() ? add(dCs[s], dcRec) : dCs[s];
    std::vector<Tensor> g = runKernel("LSTMCellGrad", {xz, hz, cPrev, cs[s], dh, dc},
                                      {OutputSpec{{batch, 4 * units}, DType::float32},
                                       OutputSpec{{batch, units}, DType::float32}},
                                      attrs);
    dz[static_cast<size_t>(s)] = reshape(g[0], {1, batch, 4 * units});
    dcRec = g[1];
    if (s > 0) {
      dhRec = matMul(g[0], wr, false, true);
      if (mask.defined()) dhRec = mul(dhRec, mask);
    }
  }
  adopt(args.outputs[0], time == 1 ? dz[0] : concat(dz, 0), args.inputs);
}

}  // namespace glint
