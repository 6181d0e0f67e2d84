// Recurrent-cell kernels (LSTMCell, GRUCell, GRUResetState and their Grad
// kernels), the float32 WGSL form of src/backends/reference/rnn.cpp. One
// invocation per (batch, unit) pair computes the gates once and writes that
// unit's elements of every output in the same dispatch.
#include "src/backends/webgpu/kernels.h"
#include "src/backends/webgpu/wgsl.h"

namespace glint::webgpu {

namespace {


/// WGSL `ract`/`act` and their derivatives `ractD`/`actD` (given x and y = f(x)).
std::string activations(const Attrs& attrs) {
  std::string s = kMathWgsl;  // exp_, tanh_, sigmoid_ with IEEE special values
  if (attrs.s("recurrentActivation") == "hardSigmoid") {
    // TF.js's float32 slope; the ends of the linear part count as inside.
    std::string slope = floatLit(0.2f);
    s += "fn ract(x: f32) -> f32 { return clamp(" + slope + " * x + 0.5, 0.0, 1.0); }\n"
         "fn ractD(x: f32, y: f32) -> f32 { let p = " + slope +
         " * x + 0.5; return select(0.0, " + slope + ", p >= 0.0 && p <= 1.0); }\n";
  } else {
    s += "fn ract(x: f32) -> f32 { return sigmoid_(x); }\n"
         "fn ractD(x: f32, y: f32) -> f32 { return y * (1.0 - y); }\n";
  }
  // tanh is the only fused activation (see src/ops/rnn.cpp).
  s += "fn act(x: f32) -> f32 { return tanh_(x); }\n"
       "fn actD(x: f32, y: f32) -> f32 { return 1.0 - y * y; }\n";
  return s;
}

/// One dispatch over the units (n, j) of a [batch, units] cell: `code` defines
/// locals from n, j, s = n * U + j; output k has layout [batch, G * U] with
/// G = outs[k].size(), gate g of unit (n, j) being outs[k][g].
void runCell(KernelArgs& a, const std::string& code, const std::vector<std::vector<std::string>>& outs) {
  const int64_t units = a.inputs.back().shape()[1];
  const int64_t cells = a.outputs.back().size();  // batch * units
  if (cells == 0) return;
  std::string s = prelude(a.inputs, static_cast<int>(outs.size())) + activations(a.attrs) +
                  "const U: i32 = " + std::to_string(units) + ";\n" + mainHeader() +
                  "  if (idx >= " + std::to_string(cells) + ") { return; }\n"
                  "  let s = idx;\n  let n = s / U;\n  let j = s - n * U;\n" + code;
  std::vector<Tensor*> outputs;
  for (size_t k = 0; k < outs.size(); ++k) {
    const std::string out = "b_out" + std::to_string(k);
    const std::string row = std::to_string(outs[k].size()) + " * U";
    for (size_t g = 0; g < outs[k].size(); ++g)
      s += "  " + out + "[n * " + row + " + " + std::to_string(g) + " * U + j] = bitcast<u32>(f32(" +
           outs[k][g] + "));\n";
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
  std::string code = gruGates(a.attrs.b("resetAfter"), "in2(s)");
  runCell(a, code, {{"a + z * (in3(s) - a)"}});
}

/// inputs xz, hzr, hc, hPrev, dh; outputs dxz [b, 3u], dhzr [b, 2u], dhc, dhPrev.
void gruCellGrad(KernelArgs& a) {
  const bool resetAfter = a.attrs.b("resetAfter");
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

}  // namespace

void registerRnnKernels() {
  registerKernel("LSTMCell", "webgpu", lstmCell);
  registerKernel("LSTMCellGrad", "webgpu", lstmCellGrad);
  registerKernel("GRUCell", "webgpu", gruCell);
  registerKernel("GRUCellGrad", "webgpu", gruCellGrad);
  registerKernel("GRUResetState", "webgpu", gruResetState);
  registerKernel("GRUResetStateGrad", "webgpu", gruResetStateGrad);
}

}  // namespace glint::webgpu
