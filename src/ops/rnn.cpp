// Fused recurrent-cell ops and unpack (include/glint/rnn_ops.h). Each cell's
// gradient is one backward kernel that recomputes the gates from the saved
// inputs (cheaper than saving them: a few exp per unit against the matMuls).
#include <memory>

#include "glint/activations.h"
#include "glint/autograd.h"
#include "glint/backend.h"
#include "glint/engine.h"
#include "glint/ops.h"
#include "glint/rnn_ops.h"
#include "src/core/backend_services.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"
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

kernel_attrs::Recurrent activationAttrs(const std::string& op, const std::string& ract,
                                        const std::string& act) {
  std::string r = fusedName(ract, true), a = fusedName(act, false);
  check(!r.empty(), op, "recurrentActivation '", ract,
        "' is not supported: expected sigmoid or hardSigmoid (compose the cell from ops for"
        " other activations)");
  check(!a.empty(), op, "activation '", act,
        "' is not supported: expected tanh (compose the cell from ops for other activations)");
  return {.recurrentActivation = r, .activation = a};
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
  Attrs attrs = activationAttrs(op, recurrentActivation, activation).activations();
  OutputSpec state{{batch, units}, DType::float32};
  return runKernel("LSTMCell", {xz, hz, cPrev}, {state, state}, attrs);
}

namespace {

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
                          const std::string& recurrentActivation, const std::string& activation) {
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
  kernel_attrs::Recurrent kind = activationAttrs(op, recurrentActivation, activation);
  kind.goBackwards = goBackwards;
  const Attrs attrs = kind.sequence();
  if (time == 0) {
    LstmSequence r{returnSequences ? zeros({batch, 0, units}) : Tensor(), zeros({batch, units}),
                   zeros({batch, units})};
    return r;
  }
  // One kernel for the whole time loop: a GPU backend runs it as one
  // dispatch instead of a matMul and a cell per step (the per-dispatch cost
  // was most of an LSTM's training step on webgpu).
  std::vector<Tensor> inputs{xw, recurrentKernel};
  if (recurrentMask.defined()) inputs.push_back(recurrentMask);
  const OutputSpec states{{time, batch, units}, DType::float32};
  std::vector<OutputSpec> outputs{states, states};
  // Under a tape, every step's pre-activations too, as a third output Z
  // [time, batch, 4 * units] (z = xw_t + (h_{s-1} * mask) W_r, processing
  // order): LSTMSequenceGrad then reads them in place of xw (attr
  // preActivations) and computes no step's h * W_r again (22% of the
  // standard lstm's training multiply-adds, by count).
  if (recordingGradients()) outputs.push_back({xw.shape(), DType::float32});
  std::vector<Tensor> hc = runKernel("LSTMSequence", inputs, outputs, attrs);
  LstmSequence r;
  if (returnSequences) r.outputs = transpose(hc[0], {1, 0, 2});
  r.h = reshape(slice(hc[0], {time - 1, 0, 0}, {1, -1, -1}), {batch, units});
  r.c = reshape(slice(hc[1], {time - 1, 0, 0}, {1, -1, -1}), {batch, units});
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
  kernel_attrs::Recurrent kind = activationAttrs(op, recurrentActivation, activation);
  kind.resetAfter = resetAfter;
  Attrs attrs = kind.gru();
  return runKernel("GRUCell", {xz, hzr, hc, hPrev}, OutputSpec{{batch, units}, DType::float32},
                   attrs);
}

Tensor gruResetState(const Tensor& xz, const Tensor& hzr, const Tensor& hPrev,
                     const std::string& recurrentActivation) {
  const std::string op = "gruResetState";
  int64_t units = unitsOf(op, "xz", xz, 3), batch = xz.shape()[0];
  checkMatrix(op, "hzr", hzr, batch, 2 * units, dims(batch, 2, units));
  checkMatrix(op, "hPrev", hPrev, batch, units, dims(batch, 1, units));
  Attrs attrs = activationAttrs(op, recurrentActivation, "tanh").activations();
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
                   kernel_attrs::Axis{int64_t{ax}}.attrs());
}

void registerRnnGradients() {
  GLINT_REGISTER(
      registerGradient, "LSTMCell", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
        const Tensor& xz = ctx.inputs[0];
        const Tensor& cPrev = ctx.inputs[2];
        std::vector<Tensor> g =
            lstmCellGrad(xz, ctx.inputs[1], cPrev, ctx.outputs[1], dys[0], dys[1], ctx.attrs);
        // z = xz + hz: both get dz.
        return std::vector<Tensor>{g[0], g[0], g[1]};
      });
  GLINT_REGISTER(
      registerGradient, "LSTMSequence", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
        // dys: the gradients reaching every step's h and c (zeros where none does).
        const Tensor &xw = ctx.inputs[0], &wr = ctx.inputs[1], &hs = ctx.outputs[0];
        const bool masked = ctx.inputs.size() > 2;
        // The forward kept the pre-activations (recorded, so it did): the kernel
        // reads them in place of xw and skips recomputing h * W_r.
        const bool kept = ctx.outputs.size() > 2;
        std::vector<Tensor> in{kept ? ctx.outputs[2] : xw, wr, hs, ctx.outputs[1], dys[0], dys[1]};
        if (masked) in.push_back(ctx.inputs[2]);
        kernel_attrs::Recurrent kind = kernel_attrs::Recurrent::read(ctx.attrs);
        kind.preActivations = kept;
        // dz of every step, in processing order.
        Tensor dz = runKernel("LSTMSequenceGrad", in, OutputSpec{xw.shape(), DType::float32},
                              kind.sequence());
        const int64_t time = xw.shape()[0], batch = xw.shape()[1], units = wr.shape()[0];
        std::vector<Tensor> grads{kind.goBackwards ? reverse(dz, {0}) : dz, Tensor()};
        if (ctx.needs(1)) {
          // Step s's matMul read the (masked) output of step s - 1, zeros at s = 0:
          // one product over all steps gives W_r's gradient.
          Tensor hIn =
              time == 1
                  ? zeros({1, batch, units})
                  : concat({zeros({1, batch, units}), slice(hs, {0, 0, 0}, {time - 1, -1, -1})}, 0);
          if (masked) hIn = mul(hIn, ctx.inputs[2]);
          grads[1] = matMul(reshape(hIn, {time * batch, units}),
                            reshape(dz, {time * batch, 4 * units}), true, false);
        }
        if (masked) grads.push_back(Tensor());
        return grads;
      });
  GLINT_REGISTER(registerGradient, "GRUCell",
                 [](const std::vector<Tensor>& dys, const GradContext& ctx) {
                   std::vector<OutputSpec> specs;
                   for (const Tensor& t : ctx.inputs) specs.push_back({t.shape(), DType::float32});
                   std::vector<Tensor> inputs = ctx.inputs;
                   inputs.push_back(dys[0]);
                   return runKernel("GRUCellGrad", inputs, specs, ctx.attrs);
                 });
  GLINT_REGISTER(registerGradient, "GRUResetState",
                 [](const std::vector<Tensor>& dys, const GradContext& ctx) {
                   std::vector<OutputSpec> specs;
                   for (const Tensor& t : ctx.inputs) specs.push_back({t.shape(), DType::float32});
                   std::vector<Tensor> inputs = ctx.inputs;
                   inputs.push_back(dys[0]);
                   return runKernel("GRUResetStateGrad", inputs, specs, ctx.attrs);
                 });
  GLINT_REGISTER(registerGradient, "Unpack",
                 [](const std::vector<Tensor>& dys, const GradContext& ctx) {
                   int64_t axis = kernel_attrs::Axis::read(ctx.attrs).axis;
                   std::vector<Tensor> parts;
                   parts.reserve(dys.size());
                   for (const Tensor& dy : dys) parts.push_back(expandDims(dy, axis));
                   return std::vector<Tensor>{concat(parts, axis)};
                 });
}

}  // namespace glint
