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

// The gate math is the shared IR (src/backends/gpu/cells.h), printed after
// this file's fetches into locals it reads by name.
gpu::E local(const char* name) { return gpu::ref(name, gpu::Type::f32); }
std::string statements(const gpu::Fn& body, int indent = 2) {
  return gpu::printBody(gpu::wgsl(), body, nullptr, indent);
}
std::string expr(const gpu::E& e) { return gpu::printExpr(gpu::wgsl(), e); }

/// The LSTM pre-activations z0..z3 of unit (n, j), from inputs xz, hz [b, 4u].
const char* kLstmFetch =
    "  let b4 = n * 4 * U + j;\n"
    "  let z0 = in0(b4) + in1(b4);\n  let z1 = in0(b4 + U) + in1(b4 + U);\n"
    "  let z2 = in0(b4 + 2 * U) + in1(b4 + 2 * U);\n  let z3 = in0(b4 + 3 * U) + in1(b4 + 3 * "
    "U);\n";

/// inputs xz, hz [b, 4u], cPrev [b, u]; outputs h, c.
void lstmCell(KernelArgs& a) {
  gpu::Fn body("cell", gpu::Type::f32, {});
  gpu::LstmState st = gpu::lstmStep(body, gpu::lstmGates(body), local("cPrev"));
  runCell(a, std::string(kLstmFetch) + "  let cPrev = in2(s);\n" + statements(body),
          {{expr(st.h)}, {expr(st.c)}});
}

/// inputs xz, hz, cPrev, c, dh, dc; outputs dz [b, 4u], dcPrev.
void lstmCellGrad(KernelArgs& a) {
  gpu::Fn body("cellGrad", gpu::Type::f32, {});
  gpu::LstmGrads d = gpu::lstmStepGrad(body, gpu::lstmGates(body), local("cPrev"), local("c"),
                                       local("dh"), local("dc"));
  runCell(a,
          std::string(kLstmFetch) +
              "  let cPrev = in2(s);\n  let c = in3(s);\n  let dh = in4(s);\n  let dc = in5(s);\n" +
              statements(body),
          {{expr(d.dz[0]), expr(d.dz[1]), expr(d.dz[2]), expr(d.dz[3])}, {expr(d.dcPrev)}});
}

/// The GRU gates' operands of unit (n, j) from inputs xz [b, 3u], hzr [b, 2u].
const char* kGruFetch =
    "  let b3 = n * 3 * U + j;\n  let b2 = n * 2 * U + j;\n"
    "  let xz = in0(b3);\n  let hz = in1(b2);\n  let xr = in0(b3 + U);\n  let hr = in1(b2 + U);\n"
    "  let xa = in0(b3 + 2 * U);\n";

/// inputs xz, hzr, hc, hPrev; output h.
void gruCell(KernelArgs& a) {
  gpu::Fn body("cell", gpu::Type::f32, {});
  gpu::GruGates g =
      gpu::gruGates(body, local("hc"), kernel_attrs::Recurrent::read(a.attrs).resetAfter);
  runCell(a,
          std::string(kGruFetch) + "  let hc = in2(s);\n  let hPrev = in3(s);\n" + statements(body),
          {{expr(gpu::gruOutput(g, local("hPrev")))}});
}

/// inputs xz, hzr, hc, hPrev, dh; outputs dxz [b, 3u], dhzr [b, 2u], dhc, dhPrev.
void gruCellGrad(KernelArgs& a) {
  const bool resetAfter = kernel_attrs::Recurrent::read(a.attrs).resetAfter;
  gpu::Fn body("cellGrad", gpu::Type::f32, {});
  gpu::GruGates g = gpu::gruGates(body, local("hc"), resetAfter);
  gpu::GruGrads d = gpu::gruStepGrad(body, g, local("hPrev"), local("hc"), local("dh"), resetAfter);
  const std::string dz = expr(d.dzPre), dr = expr(d.drPre), da = expr(d.daPre);
  runCell(a,
          std::string(kGruFetch) +
              "  let hc = in2(s);\n  let hPrev = in3(s);\n  let dh = in4(s);\n" + statements(body),
          {{dz, dr, da},
           {dz, dr},
           {expr(resetAfter ? d.daPre * g.r : d.daPre)},
           {expr(local("dh") * g.z)}});
}

/// inputs xz, hzr, hPrev; output r * hPrev.
void gruResetState(KernelArgs& a) {
  gpu::Fn body("reset", gpu::Type::f32, {});
  gpu::GruGates g = gpu::gruGates(body, gpu::E(0.0), false);
  runCell(a, std::string(kGruFetch) + "  let hPrev = in2(s);\n" + statements(body),
          {{expr(g.r * local("hPrev"))}});
}

/// inputs xz, hzr, hPrev, dy; outputs dxz, dhzr (non-zero in the r part only), dhPrev.
void gruResetStateGrad(KernelArgs& a) {
  gpu::Fn body("resetGrad", gpu::Type::f32, {});
  gpu::GruGates g = gpu::gruGates(body, gpu::E(0.0), false);
  const std::string dr = expr(gpu::gruResetStateGrad(body, g, local("hPrev"), local("dy")));
  runCell(a,
          std::string(kGruFetch) + "  let hPrev = in2(s);\n  let dy = in3(s);\n" + statements(body),
          {{"0.0", dr, "0.0"}, {"0.0", dr}, {expr(local("dy") * g.r)}});
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

/// z0..z3 of unit j at step s: xw's row plus hw (h_{s-1}, masked) times W_r
/// (the gates and the step's math then come from the shared IR).
const char* kSeqGates =
    "        let xr = (timeOf(s) * B + n) * 4 * U + j;\n"
    "        var z0 = in0(xr);\n        var z1 = in0(xr + U);\n"
    "        var z2 = in0(xr + 2 * U);\n        var z3 = in0(xr + 3 * U);\n"
    "        if (s > 0) {\n"
    "          for (var k = 0; k < U; k++) {\n"
    "            let hk = hw[k];\n            let w = k * 4 * U + j;\n"
    "            z0 += hk * in1(w);\n            z1 += hk * in1(w + U);\n"
    "            z2 += hk * in1(w + 2 * U);\n            z3 += hk * in1(w + 3 * U);\n"
    "          }\n        }\n";

/// z0..z3 of unit j at step s, kept by the forward pass (Z, processing order).
const char* kSeqGatesGiven =
    "        let zr = (s * B + n) * 4 * U + j;\n"
    "        let z0 = in0(zr);\n        let z1 = in0(zr + U);\n"
    "        let z2 = in0(zr + 2 * U);\n        let z3 = in0(zr + 3 * U);\n";

/// inputs xw [t, b, 4u], wr [u, 4u][, mask [b, u]]; outputs H, C [t, b, u][, Z [t, b, 4u]].
void lstmSequence(KernelArgs& a) {
  const SeqShape q(a);
  if (q.units * 4 > kWorkgroupBytes) return lstmSequenceStepwise(a);
  const bool masked = a.inputs.size() > 2, keepZ = a.outputs.size() > 2;
  gpu::Fn step("step", gpu::Type::f32, {});
  gpu::LstmState st = gpu::lstmStep(step, gpu::lstmGates(step), local("cPrev"));
  std::string s =
      prelude(a.inputs, keepZ ? 3 : 2) + activations(a.attrs) +
      q.constants(kernel_attrs::Recurrent::read(a.attrs).goBackwards) +
      "var<workgroup> hw: array<f32, U>;\n" + q.header() +
      "  var cs: array<f32, PER>;\n  var hn: array<f32, PER>;\n"
      "  for (var q = 0; q < PER; q++) { cs[q] = 0.0; }\n"
      "  for (var s = 0; s < T; s++) {\n"
      "    for (var q = 0; q < PER; q++) {\n"
      "      let j = l + q * WG;\n      if (j < U) {\n" +
      kSeqGates + "        let cPrev = cs[q];\n" + statements(step, 8) +
      "        cs[q] = " + expr(st.c) +
      ";\n"
      "        let o = (s * B + n) * U + j;\n"
      "        b_out0[o] = bitcast<u32>(" +
      expr(st.h) + ");\n        b_out1[o] = bitcast<u32>(" + expr(st.c) + ");\n" +
      (keepZ
           ? "        let zo = (s * B + n) * 4 * U + j;\n"
             "        b_out2[zo] = bitcast<u32>(z0);\n        b_out2[zo + U] = bitcast<u32>(z1);\n"
             "        b_out2[zo + 2 * U] = bitcast<u32>(z2);\n"
             "        b_out2[zo + 3 * U] = bitcast<u32>(z3);\n"
           : "") +
      "        hn[q] = " + expr(st.h) + (masked ? " * in2(n * U + j)" : "") +
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
  gpu::Fn step("stepGrad", gpu::Type::f32, {});
  gpu::LstmGrads d = gpu::lstmStepGrad(step, gpu::lstmGates(step), local("cPrev"), local("c"),
                                       local("dh"), local("dc"));
  // Each gate's gradient to dZ and, for the step's matMul below, to dzw.
  std::string writes;
  for (int k = 0; k < 4; ++k) {
    const std::string at = k == 0 ? "" : std::to_string(k) + " * U + ";
    writes += "        b_out0[" + at + "zo] = bitcast<u32>(" + expr(d.dz[k]) + ");\n";
    writes += "        dzw[" + at + "j] = " + expr(d.dz[k]) + ";\n";
  }
  std::string s = prelude(inputs, 1) + activations(a.attrs) + q.constants(kind.goBackwards) +
                  "var<workgroup> hw: array<f32, U>;\nvar<workgroup> dzw: array<f32, 4 * U>;\n" +
                  q.header() +
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
                  "        let dh = in4(e) + dhr[q];\n        let dc = in5(e) + dcr[q];\n" +
                  statements(step, 8) + "        dcr[q] = " + expr(d.dcPrev) +
                  ";\n"
                  "        let zo = (s * B + n) * 4 * U + j;\n" +
                  writes +
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
