// Fused recurrent-cell ops and unpack (include/glint/rnn_ops.h). Each cell's
// gradient is one backward kernel that recomputes the gates from the saved
// inputs (cheaper than saving them: a few exp per unit against the matMuls).
#include "glint/rnn_ops.h"

#include <memory>

#include "glint/activations.h"
#include "glint/autograd.h"
#include "glint/backend.h"
#include "glint/engine.h"
#include "glint/ops.h"
#include "src/core/custom_grad.h"
#include "src/core/engine_state.h"
#include "src/ops/op_util.h"

namespace glint {

namespace {

/// The canonical name of a supported activation, or "" when it is not fused.
std::string fusedName(const std::string& name, bool recurrent) {
  if (!activations::exists(name)) return "";
  std::string c = activations::canonicalName(name);
  if (recurrent) return c == "sigmoid" || c == "hardSigmoid" ? c : "";
  return c == "tanh" ? c : "";
}

Attrs activationAttrs(const std::string& op, const std::string& ract, const std::string& act) {
  std::string r = fusedName(ract, true), a = fusedName(act, false);
  check(!r.empty(), op, "recurrentActivation '", ract,
        "' is not supported: expected sigmoid or hardSigmoid (compose the cell from ops for"
        " other activations)");
  check(!a.empty(), op, "activation '", act,
        "' is not supported: expected tanh (compose the cell from ops for other activations)");
  return Attrs().set("recurrentActivation", r).set("activation", a);
}

/// Throws unless t is float32 [rows, cols] (rows < 0: any).
void checkMatrix(const std::string& op, const std::string& arg, const Tensor& t, int64_t rows,
                 int64_t cols, const std::string& expected) {
  ops::checkDType(op, arg, t, {DType::float32});
  check(t.rank() == 2 && (rows < 0 || t.shape()[0] == rows) && t.shape()[1] == cols, op, arg,
        " is ", ops::describe(t), ", expected ", expected);
}

/// units of a [batch, gates * units] tensor.
int64_t unitsOf(const std::string& op, const std::string& arg, const Tensor& t, int gates) {
  ops::checkDType(op, arg, t, {DType::float32});
  check(t.rank() == 2 && t.shape()[1] % gates == 0, op, arg, " is ", ops::describe(t),
        ", expected [batch, ", gates, " * units]");
  return t.shape()[1] / gates;
}

std::string dims(int64_t batch, int gates, int64_t units) {
  std::string g = gates == 1 ? "" : std::to_string(gates) + " * ";
  return "[" + std::to_string(batch) + ", " + g + std::to_string(units) + "] (batch " +
         std::to_string(batch) + ", units " + std::to_string(units) + ")";
}

}  // namespace

bool rnnCellFuses(const std::string& recurrentActivation, const std::string& activation) {
  return !fusedName(recurrentActivation, true).empty() && !fusedName(activation, false).empty();
}

std::vector<Tensor> lstmCell(const Tensor& xz, const Tensor& hz, const Tensor& cPrev,
                             const std::string& recurrentActivation,
                             const std::string& activation) {
  const std::string op = "lstmCell";
  int64_t units = unitsOf(op, "xz", xz, 4), batch = xz.shape()[0];
  checkMatrix(op, "hz", hz, batch, 4 * units, dims(batch, 4, units) + " like xz");
  checkMatrix(op, "cPrev", cPrev, batch, units, dims(batch, 1, units));
  Attrs attrs = activationAttrs(op, recurrentActivation, activation);
  OutputSpec state{{batch, units}, DType::float32};
  return runKernel("LSTMCell", {xz, hz, cPrev}, {state, state}, attrs);
}

namespace {

/// What the backward pass of lstmSequence reads, per step in processing order.
struct LstmTrace {
  std::vector<Tensor> xz, hz, c;  // c[s] is the state before step s; c[time] the last
  std::vector<Tensor> hIn;        // the (masked) output each step's matMul read, by time
};

std::vector<Tensor> lstmCellGrad(const Tensor& xz, const Tensor& hz, const Tensor& cPrev,
                                 const Tensor& c, const Tensor& dh, const Tensor& dc,
                                 const Attrs& attrs) {
  return runKernel("LSTMCellGrad", {xz, hz, cPrev, c, dh, dc},
                   {OutputSpec{xz.shape(), DType::float32}, OutputSpec{c.shape(), DType::float32}},
                   attrs);
}

}  // namespace

LstmSequence lstmSequence(const Tensor& xw, const Tensor& recurrentKernel,
                          const Tensor& recurrentMask, bool returnSequences, bool goBackwards,
                          const std::string& recurrentActivation,
                          const std::string& activation) {
  const std::string op = "lstmSequence";
  ops::checkDType(op, "xw", xw, {DType::float32});
  check(xw.rank() == 3 && xw.shape()[2] % 4 == 0, op, "xw is ", ops::describe(xw),
        ", expected [time, batch, 4 * units]");
  const int64_t time = xw.shape()[0], batch = xw.shape()[1], units = xw.shape()[2] / 4;
  checkMatrix(op, "recurrentKernel", recurrentKernel, units, 4 * units,
              "[" + std::to_string(units) + ", " + std::to_string(4 * units) + "] (units " +
                  std::to_string(units) + " from xw " + ops::describe(xw) + ")");
  if (recurrentMask.defined())
    checkMatrix(op, "recurrentMask", recurrentMask, batch, units, dims(batch, 1, units));
  const Attrs attrs = activationAttrs(op, recurrentActivation, activation);
  const int64_t state = batch * units, outSize = returnSequences ? time * state : 0;
  if (time == 0) {
    LstmSequence r{returnSequences ? zeros({batch, 0, units}) : Tensor(),
                   zeros({batch, units}), zeros({batch, units})};
    return r;
  }

  const OutputSpec stateSpec{{batch, units}, DType::float32};
  if (!Engine::get().recording()) {
    // Nothing will ask for a gradient (predict, evaluate): no trace, no
    // packing of the results into one value, and the steps' input rows
    // split off in one kernel; per step only the matMul and the cell run.
    std::vector<Tensor> xs = unpack(xw, 0);
    Tensor h = zeros({batch, units}), c = zeros({batch, units});
    std::vector<Tensor> outs;
    for (int64_t s = 0; s < time; ++s) {
      const int64_t t = goBackwards ? time - 1 - s : s;
      // The state starts at zero: the first step's product is zeros.
      Tensor hz = s == 0 ? zeros({batch, 4 * units})
                         : matMul(recurrentMask.defined() ? mul(h, recurrentMask) : h,
                                  recurrentKernel);
      std::vector<Tensor> hc = runKernel("LSTMCell", {xs[t], hz, c}, {stateSpec, stateSpec}, attrs);
      h = hc[0];
      c = hc[1];
      if (returnSequences) outs.push_back(reshape(h, {batch, 1, units}));
    }
    LstmSequence r{returnSequences ? concat(outs, 1) : Tensor(), h, c};
    return r;
  }

  std::vector<Tensor> inputs{xw, recurrentKernel};
  if (recurrentMask.defined()) inputs.push_back(recurrentMask);
  // One value for customGrad: [outputs, h, c] flattened.
  Tensor packed = firstOrderCustomGrad(
      op, [&](const std::vector<Tensor>& in) {
        const Tensor& wr = in[1];
        Tensor mask = in.size() > 2 ? in[2] : Tensor();
        auto trace = std::make_shared<LstmTrace>();
        trace->hIn.resize(static_cast<size_t>(time));
        Tensor h = zeros({batch, units}), c = zeros({batch, units});
        trace->c.push_back(c);
        std::vector<Tensor> outs, xs = unpack(in[0], 0);
        for (int64_t s = 0; s < time; ++s) {
          const int64_t t = goBackwards ? time - 1 - s : s;
          const Tensor& xz = xs[t];
          Tensor hIn = mask.defined() ? mul(h, mask) : h;
          Tensor hz = s == 0 ? zeros({batch, 4 * units}) : matMul(hIn, wr);  // h starts at 0
          std::vector<Tensor> hc = runKernel("LSTMCell", {xz, hz, c},
                                             {OutputSpec{{batch, units}, DType::float32},
                                              OutputSpec{{batch, units}, DType::float32}},
                                             attrs);
          h = hc[0];
          c = hc[1];
          trace->xz.push_back(xz);
          trace->hz.push_back(hz);
          trace->c.push_back(c);
          trace->hIn[t] = hIn;
          if (returnSequences) outs.push_back(reshape(h, {batch, 1, units}));
        }
        // Scopes must not free what the backward pass reads (references free it).
        for (auto* list : {&trace->xz, &trace->hz, &trace->c, &trace->hIn})
          for (const Tensor& t : *list) keep(t);
        std::vector<Tensor> parts;
        if (returnSequences) parts.push_back(reshape(concat(outs, 1), {outSize}));
        parts.push_back(reshape(h, {state}));
        parts.push_back(reshape(c, {state}));
        CustomGradResult r;
        r.value = concat(parts, 0);
        r.gradFunc = [=](const Tensor& dy) {
          std::vector<Tensor> dOut;
          if (returnSequences)
            dOut = unpack(reshape(slice(dy, {0}, {outSize}), {batch, time, units}), 1);
          Tensor dh = reshape(slice(dy, {outSize}, {state}), {batch, units});
          Tensor dc = reshape(slice(dy, {outSize + state}, {state}), {batch, units});
          std::vector<Tensor> dz(static_cast<size_t>(time));
          for (int64_t s = time - 1; s >= 0; --s) {
            if (returnSequences) dh = add(dh, dOut[s]);
            std::vector<Tensor> g = lstmCellGrad(trace->xz[s], trace->hz[s], trace->c[s],
                                                 trace->c[s + 1], dh, dc, attrs);
            dz[goBackwards ? time - 1 - s : s] = g[0];
            dc = g[1];
            if (s > 0) {
              dh = matMul(g[0], wr, false, true);
              if (mask.defined()) dh = mul(dh, mask);
            }
          }
          Tensor dzAll = concat(dz, 0);  // [time * batch, 4 * units], time-major like xw
          Tensor dWr = matMul(concat(trace->hIn, 0), dzAll, true, false);
          std::vector<Tensor> grads{reshape(dzAll, xw.shape()), dWr};
          if (mask.defined()) grads.push_back(Tensor());
          return grads;
        };
        return r;
      },
      inputs);
  LstmSequence r;
  if (returnSequences) r.outputs = reshape(slice(packed, {0}, {outSize}), {batch, time, units});
  r.h = reshape(slice(packed, {outSize}, {state}), {batch, units});
  r.c = reshape(slice(packed, {outSize + state}, {state}), {batch, units});
  return r;
}

Tensor gruCell(const Tensor& xz, const Tensor& hzr, const Tensor& hc, const Tensor& hPrev,
               bool resetAfter, const std::string& recurrentActivation,
               const std::string& activation) {
  const std::string op = "gruCell";
  int64_t units = unitsOf(op, "xz", xz, 3), batch = xz.shape()[0];
  checkMatrix(op, "hzr", hzr, batch, 2 * units, dims(batch, 2, units));
  checkMatrix(op, "hc", hc, batch, units, dims(batch, 1, units));
  checkMatrix(op, "hPrev", hPrev, batch, units, dims(batch, 1, units));
  Attrs attrs = activationAttrs(op, recurrentActivation, activation).set("resetAfter", resetAfter);
  return runKernel("GRUCell", {xz, hzr, hc, hPrev}, OutputSpec{{batch, units}, DType::float32},
                   attrs);
}

Tensor gruResetState(const Tensor& xz, const Tensor& hzr, const Tensor& hPrev,
                     const std::string& recurrentActivation) {
  const std::string op = "gruResetState";
  int64_t units = unitsOf(op, "xz", xz, 3), batch = xz.shape()[0];
  checkMatrix(op, "hzr", hzr, batch, 2 * units, dims(batch, 2, units));
  checkMatrix(op, "hPrev", hPrev, batch, units, dims(batch, 1, units));
  Attrs attrs = activationAttrs(op, recurrentActivation, "tanh");
  return runKernel("GRUResetState", {xz, hzr, hPrev}, OutputSpec{{batch, units}, DType::float32},
                   attrs);
}

std::vector<Tensor> unpack(const Tensor& x, int64_t axis) {
  ops::checkTensor("unpack", "x", x);
  int ax = normalizeAxis("unpack", "axis", axis, x.rank());
  Shape part = x.shape();
  part.erase(part.begin() + ax);
  const int64_t n = x.shape()[ax];
  if (n == 0) return {};
  if (n == 1) return {reshape(x, part)};
  return runKernel("Unpack", {x},
                   std::vector<OutputSpec>(static_cast<size_t>(n), OutputSpec{part, x.dtype()}),
                   Attrs().set("axis", int64_t{ax}));
}

void registerRnnGradients() {
  registerGradient("LSTMCell", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
    const Tensor& xz = ctx.inputs[0];
    const Tensor& cPrev = ctx.inputs[2];
    std::vector<Tensor> g =
        lstmCellGrad(xz, ctx.inputs[1], cPrev, ctx.outputs[1], dys[0], dys[1], ctx.attrs);
    // z = xz + hz: both get dz.
    return std::vector<Tensor>{g[0], g[0], g[1]};
  });
  registerGradient("GRUCell", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
    std::vector<OutputSpec> specs;
    for (const Tensor& t : ctx.inputs) specs.push_back({t.shape(), DType::float32});
    std::vector<Tensor> inputs = ctx.inputs;
    inputs.push_back(dys[0]);
    return runKernel("GRUCellGrad", inputs, specs, ctx.attrs);
  });
  registerGradient("GRUResetState", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
    std::vector<OutputSpec> specs;
    for (const Tensor& t : ctx.inputs) specs.push_back({t.shape(), DType::float32});
    std::vector<Tensor> inputs = ctx.inputs;
    inputs.push_back(dys[0]);
    return runKernel("GRUResetStateGrad", inputs, specs, ctx.attrs);
  });
  registerGradient("Unpack", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
    int64_t axis = ctx.attrs.i("axis");
    std::vector<Tensor> parts;
    parts.reserve(dys.size());
    for (const Tensor& dy : dys) parts.push_back(expandDims(dy, axis));
    return std::vector<Tensor>{concat(parts, axis)};
  });
}

}  // namespace glint
