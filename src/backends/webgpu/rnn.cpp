// Recurrent-cell kernels (LSTMCell, GRUCell, GRUResetState and their Grad
// kernels), the float32 WGSL form of src/backends/reference/rnn.cpp. One
// invocation per (batch, unit) pair computes the gates once and writes that
// unit's elements of every output in the same dispatch.
#include <algorithm>

#include "glint/ops.h"
#include "src/backends/gpu/cells.h"
#include "src/backends/stepwise_rnn.h"
#include "src/backends/webgpu/kernels.h"
#include "src/backends/webgpu/wgsl.h"
#include "src/core/backend_services.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"

namespace glint::webgpu {

namespace {

/// `ract`/`act` and their derivatives `ractD`/`actD` (src/backends/gpu/cells.cpp).
const std::string& activations(const Attrs& attrs) {
  return gpu::cellActivations(gpu::wgsl(),
                              kernel_attrs::Recurrent::read(attrs).recurrentActivation);
}

/// One dispatch over the units (n, j) of a [batch, units] cell: `code` defines
/// locals from n, j, s = n * U + j; output k has layout [batch, G * U] with
/// G = outs[k].size(), gate g of unit (n, j) being outs[k][g].
void runCell(KernelArgs& a, const std::string& code,
             const std::vector<std::vector<std::string>>& outs) {
  const int64_t units = a.inputs.back().shape()[1];
  const int64_t cells = a.outputs.back().size();  // batch * units
  if (cells == 0) return;
  std::string s = prelude(a.inputs, static_cast<int>(outs.size())) + activations(a.attrs) +
                  "const U: i32 = " + std::to_string(units) + ";\n" + mainHeader() +
                  "  if (idx >= " + std::to_string(cells) +
                  ") { return; }\n"
                  "  let s = idx;\n  let n = s / U;\n  let j = s - n * U;\n" +
                  code;
  std::vector<Tensor*> outputs;
  for (size_t k = 0; k < outs.size(); ++k) {
    const std::string out = "b_out" + std::to_string(k);
    const std::string row = std::to_string(outs[k].size()) + " * U";
    for (size_t g = 0; g < outs[k].size(); ++g)
      s += "  " + out + "[n * " + row + " + " + std::to_string(g) +
           " * U + j] = bitcast<u32>(f32(" + outs[k][g] + "));\n";
    outputs.push_back(&a.outputs[k]);
  }
  runShader(gpuBackend(a), s + "}\n", a.inputs, outputs, cells);
}

/// LSTM gate values of unit (n, j): inputs xz, hz [b, 4u].
const char* kLstmGates =
    "  let b4 = n * 4 * U + j;\n"
    "  let z0 = in0(b4) + in1(b4);\n  let z1 = in0(b4 + U) + in1(b4 + U);\n"
    "  let z2 = in0(b4 + 2 * U) + in1(b4 + 2 * U);\n  let z3 = in0(b4 + 3 * U) + in1(b4 + 3 * U);\n"
    "  let a0 = ract(z0);\n  let a1 = ract(z1);\n  let a2 = act(z2);\n  let a3 = ract(z3);\n";

/// inputs xz, hz [b, 4u], cPrev [b, u]; outputs h, c.
void lstmCell(KernelArgs& a) {
  std::string code = std::string(kLstmGates) + "  let c = a1 * in2(s) + a0 * a2;\n";
  runCell(a, code, {{"a3 * act(c)"}, {"c"}});
}

/// inputs xz, hz, cPrev, c, dh, dc; outputs dz [b, 4u], dcPrev.
void lstmCellGrad(KernelArgs& a) {
  std::string code = std::string(kLstmGates) +
                     "  let c = in3(s);\n  let dh = in4(s);\n"
                     "  let tc = act(c);\n"
                     "  let dct = in5(s) + dh * a3 * actD(c, tc);\n";
  runCell(a, code,
          {{"dct * a2 * ractD(z0, a0)", "dct * in2(s) * ractD(z1, a1)", "dct * a0 * actD(z2, a2)",
            "dh * tc * ractD(z3, a3)"},
           {"dct * a1"}});
}

/// GRU gates of unit (n, j): inputs xz [b, 3u], hzr [b, 2u]; `rec` the
/// recurrent candidate input (hc, or 0.0 for GRUResetState).
std::string gruGates(bool resetAfter, const std::string& rec) {
  return "  let b3 = n * 3 * U + j;\n  let b2 = n * 2 * U + j;\n"
         "  let zPre = in0(b3) + in1(b2);\n  let rPre = in0(b3 + U) + in1(b2 + U);\n"
         "  let z = ract(zPre);\n  let r = ract(rPre);\n"
         "  let aPre = in0(b3 + 2 * U) + " +
         (resetAfter ? "r * " + rec : rec) + ";\n  let a = act(aPre);\n";
}

/// inputs xz, hzr, hc, hPrev; output h.
void gruCell(KernelArgs& a) {
  std::string code = gruGates(kernel_attrs::Recurrent::read(a.attrs).resetAfter, "in2(s)");
  runCell(a, code, {{"a + z * (in3(s) - a)"}});
}

/// inputs xz, hzr, hc, hPrev, dh; outputs dxz [b, 3u], dhzr [b, 2u], dhc, dhPrev.
void gruCellGrad(KernelArgs& a) {
  const bool resetAfter = kernel_attrs::Recurrent::read(a.attrs).resetAfter;
  std::string code = gruGates(resetAfter, "in2(s)") +
                     "  let dh = in4(s);\n"
                     "  let dzPre = dh * (in3(s) - a) * ractD(zPre, z);\n"
                     "  let daPre = dh * (1.0 - z) * actD(aPre, a);\n"
                     "  let drPre = " +
                     std::string(resetAfter ? "daPre * in2(s) * ractD(rPre, r)" : "0.0") + ";\n";
  runCell(a, code,
          {{"dzPre", "drPre", "daPre"},
           {"dzPre", "drPre"},
           {resetAfter ? "daPre * r" : "daPre"},
           {"dh * z"}});
}

/// inputs xz, hzr, hPrev; output r * hPrev.
void gruResetState(KernelArgs& a) { runCell(a, gruGates(false, "0.0"), {{"r * in2(s)"}}); }

/// inputs xz, hzr, hPrev, dy; outputs dxz, dhzr (non-zero in the r part only), dhPrev.
void gruResetStateGrad(KernelArgs& a) {
  std::string code = gruGates(false, "0.0") +
                     "  let dy = in3(s);\n"
                     "  let drPre = dy * in2(s) * ractD(rPre, r);\n";
  runCell(a, code, {{"0.0", "drPre", "0.0"}, {"0.0", "drPre"}, {"dy * r"}});
}

// ---- the LSTM time loop in one dispatch --------------------------------------
// One workgroup per batch row runs every step: the row's previous output sits
// in workgroup memory, each invocation owns units j = lid + q * WG and keeps
// their c in registers, and a barrier separates the steps. Rows never talk to
// each other, so no step needs a dispatch of its own (a matMul and a cell per
// step cost a submit-side dispatch each, most of an LSTM's training step).

/// Workgroup memory every adapter has (WebGPU's default limit).
constexpr int64_t kWorkgroupBytes = 16384;

struct SeqShape {
  int64_t time, batch, units, group, per;
  explicit SeqShape(const KernelArgs& a)
      : time(a.inputs[0].shape()[0]), batch(a.inputs[0].shape()[1]), units(a.inputs[1].shape()[0]) {
    group = std::min<int64_t>(256, (units + 31) / 32 * 32);
    per = (units + group - 1) / group;
  }
  std::string constants(bool backwards) const {
    auto c = [](const char* name, int64_t v) {
      return std::string("const ") + name + ": i32 = " + std::to_string(v) + ";\n";
    };
    return c("T", time) + c("B", batch) + c("U", units) + c("WG", group) + c("PER", per) +
           "fn timeOf(s: i32) -> i32 { return " + (backwards ? "T - 1 - s" : "s") + "; }\n";
  }
  /// The header of main: row n (uniform: from the workgroup id), lane l.
  std::string header() const {
    return mainHeader(static_cast<int>(group)) +
           "  let n = i32(wid.x + wid.y * nwg.x);\n  if (n >= B) { return; }\n"
           "  let l = i32(lid);\n";
  }
};

/// z0..z3 of unit j at step s: xw's row plus hw (h_{s-1}, masked) times W_r.
const char* kSeqGates =
    "        let xr = (timeOf(s) * B + n) * 4 * U + j;\n"
    "        var z0 = in0(xr);\n        var z1 = in0(xr + U);\n"
    "        var z2 = in0(xr + 2 * U);\n        var z3 = in0(xr + 3 * U);\n"
    "        if (s > 0) {\n"
    "          for (var k = 0; k < U; k++) {\n"
    "            let hk = hw[k];\n            let w = k * 4 * U + j;\n"
    "            z0 += hk * in1(w);\n            z1 += hk * in1(w + U);\n"
    "            z2 += hk * in1(w + 2 * U);\n            z3 += hk * in1(w + 3 * U);\n"
    "          }\n        }\n"
    "        let a0 = ract(z0);\n        let a1 = ract(z1);\n"
    "        let a2 = act(z2);\n        let a3 = ract(z3);\n";

/// z0..z3 of unit j at step s, kept by the forward pass (Z, processing order).
const char* kSeqGatesGiven =
    "        let zr = (s * B + n) * 4 * U + j;\n"
    "        let z0 = in0(zr);\n        let z1 = in0(zr + U);\n"
    "        let z2 = in0(zr + 2 * U);\n        let z3 = in0(zr + 3 * U);\n"
    "        let a0 = ract(z0);\n        let a1 = ract(z1);\n"
    "        let a2 = act(z2);\n        let a3 = ract(z3);\n";

/// inputs xw [t, b, 4u], wr [u, 4u][, mask [b, u]]; outputs H, C [t, b, u][, Z [t, b, 4u]].
void lstmSequence(KernelArgs& a) {
  const SeqShape q(a);
  if (q.units * 4 > kWorkgroupBytes) return lstmSequenceStepwise(a);
  const bool masked = a.inputs.size() > 2, keepZ = a.outputs.size() > 2;
  std::string s =
      prelude(a.inputs, keepZ ? 3 : 2) + activations(a.attrs) +
      q.constants(kernel_attrs::Recurrent::read(a.attrs).goBackwards) +
      "var<workgroup> hw: array<f32, U>;\n" + q.header() +
      "  var cs: array<f32, PER>;\n  var hn: array<f32, PER>;\n"
      "  for (var q = 0; q < PER; q++) { cs[q] = 0.0; }\n"
      "  for (var s = 0; s < T; s++) {\n"
      "    for (var q = 0; q < PER; q++) {\n"
      "      let j = l + q * WG;\n      if (j < U) {\n" +
      kSeqGates +
      "        let c = a1 * cs[q] + a0 * a2;\n        cs[q] = c;\n"
      "        let h = a3 * act(c);\n"
      "        let o = (s * B + n) * U + j;\n"
      "        b_out0[o] = bitcast<u32>(h);\n        b_out1[o] = bitcast<u32>(c);\n" +
      (keepZ
           ? "        let zo = (s * B + n) * 4 * U + j;\n"
             "        b_out2[zo] = bitcast<u32>(z0);\n        b_out2[zo + U] = bitcast<u32>(z1);\n"
             "        b_out2[zo + 2 * U] = bitcast<u32>(z2);\n"
             "        b_out2[zo + 3 * U] = bitcast<u32>(z3);\n"
           : "") +
      "        hn[q] = h" + (masked ? " * in2(n * U + j)" : "") +
      ";\n"
      "      }\n    }\n"
      "    workgroupBarrier();\n"
      "    for (var q = 0; q < PER; q++) { let j = l + q * WG; if (j < U) { hw[j] = hn[q]; } }\n"
      "    workgroupBarrier();\n  }\n}\n";
  std::vector<Tensor*> outputs{&a.outputs[0], &a.outputs[1]};
  if (keepZ) outputs.push_back(&a.outputs[2]);
  runShader(gpuBackend(a), s, a.inputs, outputs, q.batch * q.group, static_cast<int>(q.group));
}

/// inputs xw (or Z: preActivations), wr, H, C, dH, dC[, mask]; output dZ [t, b, 4u] in processing order.
void lstmSequenceGrad(KernelArgs& a) {
  const SeqShape q(a);
  if (q.units * 5 * 4 > kWorkgroupBytes) return lstmSequenceGradStepwise(a);
  const std::string mask = a.inputs.size() > 6 ? " * in6(n * U + j)" : "";
  // W_r transposed, one more input: the gradient through W_r then reads
  // consecutive addresses across a workgroup's invocations (reading W_r's
  // rows, each invocation its own, took two thirds of an LSTM step's GPU time).
  std::vector<Tensor> inputs = a.inputs;
  {
    RecordingPause pause;
    inputs.push_back(transpose(a.inputs[1], {1, 0}));
  }
  const std::string wrT = "in" + std::to_string(inputs.size() - 1);
  const kernel_attrs::Recurrent kind = kernel_attrs::Recurrent::read(a.attrs);
  const bool given = kind.preActivations;
  std::string s =
      prelude(inputs, 1) + activations(a.attrs) + q.constants(kind.goBackwards) +
      "var<workgroup> hw: array<f32, U>;\nvar<workgroup> dzw: array<f32, 4 * U>;\n" + q.header() +
      // What flows back into step s from step s + 1 through h_s and c_s.
      "  var dhr: array<f32, PER>;\n  var dcr: array<f32, PER>;\n"
      "  for (var q = 0; q < PER; q++) { dhr[q] = 0.0; dcr[q] = 0.0; }\n"
      "  for (var s = T - 1; s >= 0; s--) {\n"
      "    for (var q = 0; q < PER; q++) {\n"
      "      let j = l + q * WG;\n"
      "      if (j < U) { if (s > 0) { hw[j] = in2(((s - 1) * B + n) * U + j)" +
      mask +
      "; } else { hw[j] = 0.0; } }\n"
      "    }\n    workgroupBarrier();\n"
      "    for (var q = 0; q < PER; q++) {\n"
      "      let j = l + q * WG;\n      if (j < U) {\n" +
      (given ? kSeqGatesGiven : kSeqGates) +
      "        let e = (s * B + n) * U + j;\n"
      "        let c = in3(e);\n        var cPrev = 0.0;\n"
      "        if (s > 0) { cPrev = in3(e - B * U); }\n"
      "        let dh = in4(e) + dhr[q];\n        let tc = act(c);\n"
      "        let dct = in5(e) + dcr[q] + dh * a3 * actD(c, tc);\n"
      "        let d0 = dct * a2 * ractD(z0, a0);\n"
      "        let d1 = dct * cPrev * ractD(z1, a1);\n"
      "        let d2 = dct * a0 * actD(z2, a2);\n"
      "        let d3 = dh * tc * ractD(z3, a3);\n"
      "        dcr[q] = dct * a1;\n"
      "        let zo = (s * B + n) * 4 * U + j;\n"
      "        b_out0[zo] = bitcast<u32>(d0);\n        b_out0[zo + U] = bitcast<u32>(d1);\n"
      "        b_out0[zo + 2 * U] = bitcast<u32>(d2);\n"
      "        b_out0[zo + 3 * U] = bitcast<u32>(d3);\n"
      "        dzw[j] = d0;\n        dzw[U + j] = d1;\n"
      "        dzw[2 * U + j] = d2;\n        dzw[3 * U + j] = d3;\n"
      "      }\n    }\n    workgroupBarrier();\n"
      // dz reached h_{s-1} through its matMul (W_r transposed) and the mask.
      "    if (s > 0) {\n"
      "      for (var q = 0; q < PER; q++) {\n"
      "        let j = l + q * WG;\n        if (j < U) {\n"
      "          var d = 0.0;\n"
      "          for (var m = 0; m < 4 * U; m++) { d += dzw[m] * " +
      wrT +
      "(m * U + j); }\n"
      "          dhr[q] = d" +
      mask +
      ";\n"
      "        }\n      }\n    }\n    workgroupBarrier();\n  }\n}\n";
  runShader(gpuBackend(a), s, inputs, {&a.outputs[0]}, q.batch * q.group,
            static_cast<int>(q.group));
}

}  // namespace

void registerRnnKernels() {
  GLINT_REGISTER(registerKernel, "LSTMCell", "webgpu", lstmCell);
  GLINT_REGISTER(registerKernel, "LSTMCellGrad", "webgpu", lstmCellGrad);
  GLINT_REGISTER(registerKernel, "LSTMSequence", "webgpu", lstmSequence);
  GLINT_REGISTER(registerKernel, "LSTMSequenceGrad", "webgpu", lstmSequenceGrad);
  GLINT_REGISTER(registerKernel, "GRUCell", "webgpu", gruCell);
  GLINT_REGISTER(registerKernel, "GRUCellGrad", "webgpu", gruCellGrad);
  GLINT_REGISTER(registerKernel, "GRUResetState", "webgpu", gruResetState);
  GLINT_REGISTER(registerKernel, "GRUResetStateGrad", "webgpu", gruResetStateGrad);
}

}  // namespace glint::webgpu
