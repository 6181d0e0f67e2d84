// Convolutions and pooling, NHWC. Software adapters (SwiftShader, where
// these kernels were measured) pay most for storage loads and spill past a
// couple of dozen live floats a lane, so tensors are bound as runs of J
// adjacent channels (vec4/vec2/f32: J = 4, 2 or 1, what divides the channel
// count, so runs are aligned) and each load serves several products:
// - forward: an invocation computes R runs of output channels at P adjacent
//   columns (a filter run is loaded once for P columns);
// - input backprop: an invocation computes a run of input channels at P
//   adjacent columns (a dy run serves the run of channels, a filter run the
//   P columns);
// - filter backprop: a workgroup per filter tile (row, taps, input and output
//   channel runs) splits the long batch x positions sum over its lanes and
//   adds their partials in workgroup memory;
// - pooling: an invocation per run of channels, component-wise; MaxPoolGrad
//   over windows that cannot overlap writes each window's cell once.
#include <algorithm>
#include <string>
#include <vector>

#include "src/backends/webgpu/kernels.h"
#include "src/backends/webgpu/wgsl.h"
#include "src/core/kernel_selection.h"
#include "src/geometry/conv_geometry.h"

namespace glint::webgpu {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

void reg(const char* name, KernelFn fn) { registerKernel(name, "webgpu", std::move(fn)); }

/// WGSL constants of a window geometry (x [N,H,W,C] -> y [N,OH,OW,OC]).
std::string geometry(const conv::Geometry& g) {
  return "const H = " + str(g.inH) + "; const W = " + str(g.inW) + "; const C = " + str(g.inC) +
         "; const OH = " + str(g.outH) + "; const OW = " + str(g.outW) +
         "; const OC = " + str(g.outC) + "; const N = " + str(g.batch) +
         ";\nconst FH = " + str(g.fh) + "; const FW = " + str(g.fw) +
         "; const SH = " + str(g.strideH) + "; const SW = " + str(g.strideW) +
         "; const DH = " + str(g.dilH) + "; const DW = " + str(g.dilW) +
         "; const PT = " + str(g.padTop) + "; const PL = " + str(g.padLeft) + ";\n";
}

/// The widest run of adjacent channels (4, 2, 1) that divides `k`.
int runOf(int64_t k) { return k % 4 == 0 ? 4 : k % 2 == 0 ? 2 : 1; }

/// The WGSL type of a run of j values of scalar type `s`.
std::string typeOf(int j, const std::string& s = "f32") {
  return j == 1 ? s : "vec" + str(j) + "<" + s + ">";
}

/// Bindings: input k an array of runs of ins[k] floats, output k of outs[k]
/// (u_params, unused here, is left out: the layout may hold more than the shader uses).
std::string bindings(const std::vector<int>& ins, const std::vector<int>& outs) {
  std::string s;
  int binding = 0;
  for (size_t k = 0; k < ins.size(); ++k)
    s += "@group(0) @binding(" + str(binding++) + ") var<storage, read> b_in" + str(k) +
         ": array<" + typeOf(ins[k]) + ">;\n";
  for (size_t k = 0; k < outs.size(); ++k)
    s += "@group(0) @binding(" + str(binding++) + ") var<storage, read_write> b_out" + str(k) +
         ": array<" + typeOf(outs[k]) + ">;\n";
  return s;
}

/// The run of `j` floats at flat float index `i` (a multiple of j) of a j-run array.
std::string at(const std::string& array, int j, const std::string& i) {
  return array + "[" + (j == 1 ? i : "(" + i + ") >> " + str(j == 4 ? 2 : 1) + "u") + "]";
}

/// Statements: `let` the digits of index `flat` in the mixed radix `dims`
/// (innermost first: {name, size}); the last name takes the rest.
std::string decompose(const std::string& flat,
                      const std::vector<std::pair<std::string, std::string>>& dims,
                      const std::string& last) {
  std::string s, rest = flat;
  for (size_t d = 0; d < dims.size(); ++d) {
    std::string t = "t" + str(d) + "_";
    s += "  let " + dims[d].first + " = " + rest + " % " + dims[d].second + "; let " + t + " = " +
         rest + " / " + dims[d].second + ";\n";
    rest = t;
  }
  return s + "  let " + last + " = " + rest + ";\n";
}

/// Component k of a run value (the value itself for a scalar).
std::string comp(const std::string& v, int j, int k) { return j == 1 ? v : v + "[" + str(k) + "]"; }

/// Statements looping over the windows (oh, ow) that contain input (ih, iw),
/// with kh, kw the tap that lands on it; `body` runs for each. The ranges of
/// oh and ow are computed (no search over taps with a test each).
std::string forEachWindowOf(const conv::Geometry& g, const std::string& body) {
  std::string s =
      "  let aH = ih + PT - (FH - 1) * DH; let ohLo = select(0, (aH + SH - 1) / SH, aH > 0);\n"
      "  let ohHi = min(OH - 1, (ih + PT) / SH);\n"
      "  let aW = iw + PL - (FW - 1) * DW; let owLo = select(0, (aW + SW - 1) / SW, aW > 0);\n"
      "  let owHi = min(OW - 1, (iw + PL) / SW);\n"
      "  for (var oh = ohLo; oh <= ohHi; oh++) {\n    let rh = ih + PT - oh * SH;\n";
  s += g.dilH > 1 ? "    if (rh % DH != 0) { continue; }\n    let kh = rh / DH;\n"
                  : "    let kh = rh;\n";
  s += "    for (var ow = owLo; ow <= owHi; ow++) {\n      let rw = iw + PL - ow * SW;\n";
  s += g.dilW > 1 ? "      if (rw % DW != 0) { continue; }\n      let kw = rw / DW;\n"
                  : "      let kw = rw;\n";
  return s + "      " + body + "\n    }\n  }\n";
}

/// A complete WGSL source and its dispatch (grid1D of `invocations` in groups of `group`).
struct Program {
  std::string source;
  int64_t invocations;
  int group;
};

/// Dispatches p over the kernel's inputs into its output (nothing for an empty output).
void run(KernelArgs& a, const Program& p) {
  if (a.outputs[0].size() == 0) return;
  runShader(gpuBackend(a), p.source, a.inputs, {&a.outputs[0]}, p.invocations, p.group);
}

/// x [N,H,W,C] * f [FH,FW,C,Q] -> y; depthwise: y channel oc = c * Q + q.
/// Invocation: R runs of J output channels (oc .. oc+R*J-1) at P adjacent
/// columns of row (n, oh); the last column block repeats column OW-1 where it
/// runs past (not stored). Per tap and input channel: P x loads, R filter run
/// loads, P x R x J products. (x runs of 4 channels measured slower on
/// SwiftShader: more live registers than its SIMD lanes hold.)
Program forwardProgram(const conv::Geometry& g, int64_t q, bool depthwise) {
  const int j = runOf(q);                  // q = OC for a full convolution
  const int R = q % (2 * j) == 0 ? 2 : 1;  // runs stay inside one depthwise channel
  const int P = static_cast<int>(std::min<int64_t>(4, g.outW));
  const int64_t blocks = (g.outW + P - 1) / P;
  const int64_t invocations = g.batch * g.outH * blocks * (g.outC / (j * R));
  // Columns can fall into the padding: those taps are skipped (a select, not
  // a product with 0, which would turn an infinite weight into NaN).
  const bool check =
      g.padLeft > 0 || (g.outW - 1) * g.strideW + (g.fw - 1) * g.dilW - g.padLeft >= g.inW;
  const std::string T = typeOf(j);
  std::string s =
      bindings({1, j}, {j}) + geometry(g) + "const Q = " + str(q) + "; const J = " + str(j) +
      "; const R = " + str(R) + "; const B = OC / (J * R); const OWB = " + str(blocks) + ";\n" +
      mainHeader(64) + "  if (idx >= " + str(invocations) + ") { return; }\n" +
      decompose("idx", {{"b", "B"}, {"owb", "OWB"}, {"oh", "OH"}}, "n") + "  let oc = b * J * R;\n";
  // Depthwise: the one input channel c0 of these outputs; else every channel.
  s += depthwise ? "  let c0 = oc / Q; let q0 = oc % Q; let cEnd = c0 + 1;\n"
                 : "  let c0 = 0; let q0 = oc; let cEnd = C;\n";
  auto acc = [](int p, int r) { return "acc" + str(p) + "_" + str(r); };
  for (int p = 0; p < P; ++p) {
    s += "  let ow" + str(p) + " = min(owb * " + str(P) + " + " + str(p) + ", OW - 1);";
    for (int r = 0; r < R; ++r) s += " var " + acc(p, r) + " = " + T + "(0.0);";
    s += "\n";
  }
  s += "  for (var kh = 0; kh < FH; kh++) {\n    let ih = oh * SH + kh * DH - PT;\n"
       "    if (ih < 0 || ih >= H) { continue; }\n    let row = (n * H + ih) * W;\n"
       "    for (var kw = 0; kw < FW; kw++) {\n      let fb = (kh * FW + kw) * C;\n";
  for (int p = 0; p < P; ++p) {
    std::string P_ = str(p);
    s += "      let iw" + P_ + " = ow" + P_ + " * SW + kw * DW - PL;\n";
    if (check)
      s += "      let ok" + P_ + " = iw" + P_ + " >= 0 && iw" + P_ + " < W;\n      let xb" + P_ +
           " = (row + clamp(iw" + P_ + ", 0, W - 1)) * C;\n";
    else s += "      let xb" + P_ + " = (row + iw" + P_ + ") * C;\n";
  }
  auto add = [&](int p, int r, const std::string& product) {
    return check ? acc(p, r) + " += select(" + T + "(0.0), " + product + ", ok" + str(p) + "); "
                 : acc(p, r) + " += " + product + "; ";
  };
  s += "      for (var c = c0; c < cEnd; c++) {\n";
  for (int p = 0; p < P; ++p)
    s += "        let x" + str(p) + " = " + at("b_in0", 1, "xb" + str(p) + " + c") + ";\n";
  for (int r = 0; r < R; ++r) {
    s += "        let f" + str(r) + " = " + at("b_in1", j, "(fb + c) * Q + q0 + " + str(r * j)) +
         ";\n        ";
    for (int p = 0; p < P; ++p) s += add(p, r, "x" + str(p) + " * f" + str(r));
    s += "\n";
  }
  s += "      }\n";
  s += "    }\n  }\n";
  for (int p = 0; p < P; ++p) {
    s += "  if (owb * " + str(P) + " + " + str(p) + " < OW) {";
    for (int r = 0; r < R; ++r)
      s += " " +
           at("b_out0", j, "((n * OH + oh) * OW + ow" + str(p) + ") * OC + oc + " + str(r * j)) +
           " = " + acc(p, r) + ";";
    s += " }\n";
  }
  return {s + "}\n", invocations, 64};
}

void forward(KernelArgs& a, bool depthwise) {
  conv::Geometry g(a.inputs[0].shape(), a.outputs[0].shape(), a.attrs);
  run(a, forwardProgram(g, a.inputs[1].shape()[3], depthwise));
}

/// (dy, f) -> dx: invocation per run of JC input channels at P adjacent
/// columns (n, ih, iw0 .. iw0+P-1): the outputs whose windows put tap (kh, kw)
/// on each, the channel sum J at a time; a filter run serves the P columns, a
/// dy run the JC channels. Columns past W repeat W-1 (not stored).
Program backpropInputProgram(const conv::Geometry& g, int64_t q, bool depthwise) {
  const int j = runOf(q);
  const int jc = depthwise ? 1 : runOf(g.inC);
  const int P = static_cast<int>(std::min<int64_t>(4, g.inW));
  const int64_t blocks = (g.inW + P - 1) / P;
  const int64_t invocations = g.batch * g.inH * blocks * (g.inC / jc);
  const std::string dot = j == 1 ? "a * b" : "dot(a, b)";
  std::string s =
      bindings({j, j}, {jc}) + geometry(g) + "const Q = " + str(q) + "; const J = " + str(j) +
      "; const JC = " + str(jc) + "; const B = C / JC; const IWB = " + str(blocks) +
      ";\nfn dotRun(a: " + typeOf(j) + ", b: " + typeOf(j) + ") -> f32 { return " + dot + "; }\n" +
      mainHeader(64) + "  if (idx >= " + str(invocations) + ") { return; }\n" +
      decompose("idx", {{"cb", "B"}, {"iwb", "IWB"}, {"ih", "H"}}, "n") + "  let c = cb * JC;\n";
  for (int p = 0; p < P; ++p) {
    s += "  let iw" + str(p) + " = min(iwb * " + str(P) + " + " + str(p) + ", W - 1);";
    for (int k = 0; k < jc; ++k) s += " var acc" + str(p) + "_" + str(k) + " = 0.0;";
    s += "\n";
  }
  s += "  for (var kh = 0; kh < FH; kh++) {\n    let rh = ih + PT - kh * DH;\n    if (rh < 0) { "
       "continue; }\n";
  s += g.strideH > 1 ? "    if (rh % SH != 0) { continue; }\n" : "";
  s += "    let oh = rh / SH;\n    if (oh >= OH) { continue; }\n    let row = (n * OH + oh) * OW;\n"
       "    for (var kw = 0; kw < FW; kw++) {\n      let fb = ((kh * FW + kw) * C + c) * Q;\n";
  for (int p = 0; p < P; ++p) {
    std::string P_ = str(p);
    s += "      let rw" + P_ + " = iw" + P_ + " + PL - kw * DW; let ok" + P_ + " = rw" + P_ +
         " >= 0 && rw" + P_ + " < OW * SW" +
         (g.strideW > 1 ? " && rw" + P_ + " % SW == 0" : std::string()) + ";\n      let yb" + P_ +
         " = (row + clamp(rw" + P_ + " / SW, 0, OW - 1)) * OC" + (depthwise ? " + c * Q" : "") +
         ";\n";
  }
  s += "      for (var k = 0; k < Q; k += J) {\n";
  for (int p = 0; p < P; ++p)
    s += "        let d" + str(p) + " = " + at("b_in0", j, "yb" + str(p) + " + k") + ";\n";
  for (int k = 0; k < jc; ++k) {
    s += "        let f" + str(k) + " = " + at("b_in1", j, "fb + " + str(k) + " * Q + k") +
         ";\n        ";
    for (int p = 0; p < P; ++p)
      s += "acc" + str(p) + "_" + str(k) + " += select(0.0, dotRun(d" + str(p) + ", f" + str(k) +
           "), ok" + str(p) + "); ";
    s += "\n";
  }
  s += "      }\n    }\n  }\n";
  for (int p = 0; p < P; ++p) {
    std::string v = typeOf(jc) + "(";
    for (int k = 0; k < jc; ++k) v += (k ? ", acc" : "acc") + str(p) + "_" + str(k);
    s += "  if (iwb * " + str(P) + " + " + str(p) + " < W) { " +
         at("b_out0", jc, "((n * H + ih) * W + iw" + str(p) + ") * C + c") + " = " + v + "); }\n";
  }
  return {s + "}\n", invocations, 64};
}

void backpropInput(KernelArgs& a, bool depthwise) {
  conv::Geometry g(a.outputs[0].shape(), a.inputs[0].shape(), a.attrs);
  run(a, backpropInputProgram(g, a.inputs[1].shape()[3], depthwise));
}

/// (x, dy) -> df [FH,FW,C,Q]: sums x * dy over batch and output positions.
/// A filter has few elements and each sums N*OH*OW terms (72 elements of
/// 43,264 terms for the cnn's first layer at batch 64): one invocation per
/// element would leave the GPU nearly idle. One workgroup per filter tile
/// (row kh, KT taps kw, JC input channels, J output channels): its lanes
/// take rows (n, oh) in turn and walk the row's output columns, a term being
/// KT x runs and one dy run (KT x JC x J products); a tree in workgroup
/// memory adds the lanes' partials. One dispatch.
Program backpropFilterProgram(const conv::Geometry& g, int64_t q, bool depthwise) {
  const int j = runOf(q);
  const int kt = g.fw % 3 == 0 ? 3 : g.fw % 2 == 0 ? 2 : 1;
  // At most 24 accumulated floats a lane (measured: more spill on SwiftShader).
  int jc = depthwise ? 1 : runOf(g.inC);
  while (jc > 1 && kt * jc * j > 24) jc /= 2;
  const int slots = kt * jc;  // partial sums per lane, J floats each
  const std::string T = typeOf(j);
  // 16 lanes: on SwiftShader a workgroup runs on one thread and 64 lanes with
  // barriers measured ~1.7x slower (16 did as well as 4 or 8); a GPU still
  // gets FH*FW*C*Q/(KT*JC*J) workgroups of 16, each lane summing a 1/16 share.
  const int lanes = 16;
  const int64_t groups = g.fh * (g.fw / kt) * (g.inC / jc) * (q / j);
  // Columns can fall into the padding: those terms are skipped by a select.
  const bool check =
      g.padLeft > 0 || (g.outW - 1) * g.strideW + (g.fw - 1) * g.dilW - g.padLeft >= g.inW;
  const bool slide = !check && kt > 1 && g.strideW == g.dilW;
  std::string s =
      bindings({jc, j}, {j}) + geometry(g) + "const Q = " + str(q) + "; const J = " + str(j) +
      "; const JC = " + str(jc) + "; const KT = " + str(kt) +
      "; const BQ = Q / J; const BC = C / JC; const BW = FW / KT; const L = " + str(lanes) + ";\n" +
      "var<workgroup> part: array<" + T + ", " + str(lanes * slots) + ">;\n" + mainHeader(lanes) +
      // The workgroup's number: uniform, so returning on it keeps the barriers uniform.
      "  let e = i32(wid.x + wid.y * nwg.x);\n  if (e >= " + str(groups) + ") { return; }\n" +
      decompose("e", {{"b", "BQ"}, {"cb", "BC"}, {"kwb", "BW"}}, "kh") +
      "  let c = cb * JC; let kw0 = kwb * KT;\n";
  s += depthwise ? "  let oc = c * Q + b * J;\n" : "  let oc = b * J;\n";
  for (int t = 0; t < slots; ++t) s += "  var acc" + str(t) + " = " + T + "(0.0);\n";
  s += "  for (var r = i32(lid); r < N * OH; r += L) {\n"
       "    let oh = r % OH; let n = r / OH;\n    let ih = oh * SH + kh * DH - PT;\n"
       "    if (ih < 0 || ih >= H) { continue; }\n    let row = (n * H + ih) * W;\n"
       "";
  if (slide) {
    // Stride = dilation: tap t + 1 at column ow is tap t at ow + 1, so a
    // column's KT x runs are the previous column's shifted by one new load.
    auto x = [&](const std::string& col) {
      return at("b_in0", jc, "(row + (" + col + ") * SW) * C + c");
    };
    for (int t = 0; t + 1 < kt; ++t)
      s += "    var x" + str(t) + " = " + x("kw0 + " + str(t)) + ";\n";
    s += "    for (var ow = 0; ow < OW; ow++) {\n"
         "      let d = " +
         at("b_in1", j, "(r * OW + ow) * OC + oc") +
         ";\n"
         "      let x" +
         str(kt - 1) + "_ = " + x("ow + kw0 + " + str(kt - 1)) + ";\n      ";
    for (int t = 0; t < kt; ++t) {
      std::string xv = "x" + str(t) + (t + 1 == kt ? "_" : "");
      for (int k = 0; k < jc; ++k)
        s += "acc" + str(t * jc + k) + " += " + comp(xv, jc, k) + " * d; ";
    }
    s += "\n      ";
    for (int t = 0; t + 1 < kt; ++t)
      s += "x" + str(t) + " = x" + str(t + 1) + (t + 2 == kt ? "_" : "") + "; ";
    s += "\n";
  } else {
    s += "    for (var ow = 0; ow < OW; ow++) {\n"
         "      let d = " +
         at("b_in1", j, "(r * OW + ow) * OC + oc") + ";\n";
    for (int t = 0; t < kt; ++t) {
      std::string t_ = str(t);
      s += "      let iw" + t_ + " = ow * SW + (kw0 + " + t_ + ") * DW - PL;\n";
      if (check) s += "      let ok" + t_ + " = iw" + t_ + " >= 0 && iw" + t_ + " < W;\n";
      s += "      let x" + t_ + " = " +
           at("b_in0", jc,
              "(row + " + (check ? "clamp(iw" + t_ + ", 0, W - 1)" : "iw" + t_) + ") * C + c") +
           ";\n      ";
      for (int k = 0; k < jc; ++k) {
        std::string product = comp("x" + t_, jc, k) + " * d";
        std::string a = "acc" + str(t * jc + k);
        s += check ? a + " += select(" + T + "(0.0), " + product + ", ok" + t_ + "); "
                   : a + " += " + product + "; ";
      }
      s += "\n";
    }
  }
  s += "    }\n  }\n";
  for (int t = 0; t < slots; ++t)
    s += "  part[" + str(t * lanes) + " + i32(lid)] = acc" + str(t) + ";\n";
  s += "  workgroupBarrier();\n"
       "  for (var w = u32(L / 2); w > 0u; w >>= 1u) {\n    if (lid < w) {\n";
  for (int t = 0; t < slots; ++t)
    s += "      part[" + str(t * lanes) + "u + lid] += part[" + str(t * lanes) + "u + lid + w];\n";
  s += "    }\n    workgroupBarrier();\n  }\n  if (lid == 0u) {\n";
  for (int t = 0; t < kt; ++t)
    for (int k = 0; k < jc; ++k)
      s += "    " +
           at("b_out0", j,
              "((kh * FW + kw0 + " + str(t) + ") * C + c + " + str(k) + ") * Q + b * J") +
           " = part[" + str((t * jc + k) * lanes) + "];\n";
  return {s + "  }\n}\n", groups * lanes, lanes};
}

void backpropFilter(KernelArgs& a, bool depthwise) {
  conv::Geometry g(a.inputs[0].shape(), a.inputs[1].shape(), a.attrs);
  run(a, backpropFilterProgram(g, a.outputs[0].shape()[3], depthwise));
}

/// Pooling: bindings, geometry and run helpers for runs of J channels.
std::string poolHeader(const conv::Geometry& g, int j, int inputs) {
  std::string T = typeOf(j), TU = typeOf(j, "u32");
  return bindings(std::vector<int>(static_cast<size_t>(inputs), j), {j}) + geometry(g) +
         "const J = " + str(j) +
         "; const B = C / J;\n"
         "fn nanv(x: " +
         T + ") -> " + typeOf(j, "bool") + " { return (bitcast<" + TU + ">(x) & " + TU +
         "(0x7fffffffu)) > " + TU + "(0x7f800000u); }\n";
}

/// WGSL: `fn argMax(n, oh, ow, c) -> Best`: per channel of the run at c, the
/// window's first maximum (value and tap kh * FW + kw) of input `slot`;
/// found = false when no tap is in bounds. A NaN never replaces the first tap
/// and is never replaced (the reference's `>`).
std::string argMax(int j, const std::string& slot) {
  std::string T = typeOf(j), TI = typeOf(j, "i32");
  return "struct Best { v: " + T + ", t: " + TI +
         ", found: bool }\n"
         "fn argMax(n: i32, oh: i32, ow: i32, c: i32) -> Best {\n"
         "  var b: Best; b.v = " +
         T + "(0.0); b.t = " + TI +
         "(-1); b.found = false;\n"
         "  for (var kh = 0; kh < FH; kh++) {\n    let ih = oh * SH + kh * DH - PT;\n"
         "    if (ih < 0 || ih >= H) { continue; }\n    for (var kw = 0; kw < FW; kw++) {\n"
         "      let iw = ow * SW + kw * DW - PL;\n      if (iw < 0 || iw >= W) { continue; }\n"
         "      let v = " +
         at("b_in" + slot, j, "((n * H + ih) * W + iw) * C + c") +
         ";\n"
         "      let tap = " +
         TI +
         "(kh * FW + kw);\n"
         "      if (!b.found) { b.v = v; b.t = tap; b.found = true; }\n"
         "      else { let m = (v > b.v) & !(nanv(v) | nanv(b.v)); b.v = select(b.v, v, m); b.t = "
         "select(b.t, tap, m); }\n"
         "    }\n  }\n  return b;\n}\n";
}

/// x -> y, an invocation per output run.
Program maxPoolProgram(const conv::Geometry& g) {
  const int j = runOf(g.inC);
  const int64_t invocations = g.batch * g.outH * g.outW * g.outC / j;
  std::string s = poolHeader(g, j, 1) + argMax(j, "0") + mainHeader(64) +
                  "  if (idx >= " + str(invocations) + ") { return; }\n" +
                  decompose("idx", {{"cb", "B"}, {"ow", "OW"}, {"oh", "OH"}}, "n") +
                  "  let best = argMax(n, oh, ow, cb * J);\n"
                  "  b_out0[idx] = select(" +
                  typeOf(j) + "(0.0), best.v, best.found);\n}\n";
  return {s, invocations, 64};
}

/// x -> y, an invocation per output run.
Program avgPoolProgram(const conv::Geometry& g) {
  const int j = runOf(g.inC);
  const int64_t invocations = g.batch * g.outH * g.outW * g.outC / j;
  std::string T = typeOf(j);
  std::string s = poolHeader(g, j, 1) + mainHeader(64) + "  if (idx >= " + str(invocations) +
                  ") { return; }\n" +
                  decompose("idx", {{"cb", "B"}, {"ow", "OW"}, {"oh", "OH"}}, "n") +
                  "  let c = cb * J;\n  var acc = " + T +
                  "(0.0); var count = 0;\n"
                  "  for (var kh = 0; kh < FH; kh++) {\n"
                  "    let ih = oh * SH + kh * DH - PT;\n    if (ih < 0 || ih >= H) { continue; }\n"
                  "    for (var kw = 0; kw < FW; kw++) {\n      let iw = ow * SW + kw * DW - PL;\n"
                  "      if (iw < 0 || iw >= W) { continue; }\n"
                  "      acc += " +
                  at("b_in0", j, "((n * H + ih) * W + iw) * C + c") +
                  ";\n      count++;\n"
                  "    }\n  }\n"
                  "  b_out0[idx] = select(" +
                  T + "(0.0), acc / f32(max(count, 1)), count > 0);\n}\n";
  return {s, invocations, 64};
}

/// (dy, x) -> dx: dy of every window whose first maximum is this element.
/// Windows that cannot overlap (stride >= window, the usual 2x2 / 2): an
/// invocation per window run finds its maximum once and writes its whole
/// stride cell (the last row and column of cells reach to the input's end),
/// so every element is written once. Otherwise an invocation per input run
/// gathers the windows that contain it.
Program maxPoolGradProgram(const conv::Geometry& g) {
  const int j = runOf(g.inC);
  std::string T = typeOf(j), TI = typeOf(j, "i32");
  const bool cells = (g.fh - 1) * g.dilH + 1 <= g.strideH && (g.fw - 1) * g.dilW + 1 <= g.strideW &&
                     g.outH > 0 && g.outW > 0;
  if (cells) {
    const int64_t invocations = g.batch * g.outH * g.outW * g.outC / j;
    std::string s = poolHeader(g, j, 2) + argMax(j, "1") + mainHeader(64) +
                    "  if (idx >= " + str(invocations) + ") { return; }\n" +
                    decompose("idx", {{"cb", "B"}, {"ow", "OW"}, {"oh", "OH"}}, "n") +
                    "  let c = cb * J;\n  let best = argMax(n, oh, ow, c);\n"
                    "  let dy = " +
                    at("b_in0", j, "((n * OH + oh) * OW + ow) * OC + c") +
                    ";\n"
                    "  let top = oh * SH - PT; let left = ow * SW - PL;\n"
                    "  let hEnd = select(min(H, top + SH), H, oh == OH - 1);\n"
                    "  let wEnd = select(min(W, left + SW), W, ow == OW - 1);\n"
                    "  for (var ih = max(top, 0); ih < hEnd; ih++) {\n    let rh = ih - top;\n";
    s += g.dilH > 1 ? "    let inH = rh % DH == 0 && rh / DH < FH; let kh = rh / DH;\n"
                    : "    let inH = rh < FH; let kh = rh;\n";
    s += "    for (var iw = max(left, 0); iw < wEnd; iw++) {\n      let rw = iw - left;\n";
    s += g.dilW > 1 ? "      let inW = rw % DW == 0 && rw / DW < FW; let kw = rw / DW;\n"
                    : "      let inW = rw < FW; let kw = rw;\n";
    s += "      let hit = (best.t == " + TI + "(kh * FW + kw)) & " + typeOf(j, "bool") +
         "(inH && inW);\n      " + at("b_out0", j, "((n * H + ih) * W + iw) * C + c") +
         " = select(" + T + "(0.0), dy, hit);\n    }\n  }\n}\n";
    return {s, invocations, 64};
  }
  const int64_t invocations = g.batch * g.inH * g.inW * g.inC / j;
  std::string s =
      poolHeader(g, j, 2) + argMax(j, "1") + mainHeader(64) + "  if (idx >= " + str(invocations) +
      ") { return; }\n" + decompose("idx", {{"cb", "B"}, {"iw", "W"}, {"ih", "H"}}, "n") +
      "  let c = cb * J;\n  var acc = " + T + "(0.0);\n" +
      forEachWindowOf(g, "let best = argMax(n, oh, ow, c);\n      acc += select(" + T + "(0.0), " +
                             at("b_in0", j, "((n * OH + oh) * OW + ow) * OC + c") +
                             ", best.t == " + TI + "(kh * FW + kw));") +
      "  b_out0[idx] = acc;\n}\n";
  return {s, invocations, 64};
}

/// (dy) -> dx: each window's dy shared equally by its in-bounds taps.
Program avgPoolGradProgram(const conv::Geometry& g) {
  const int j = runOf(g.inC);
  const int64_t invocations = g.batch * g.inH * g.inW * g.inC / j;
  std::string T = typeOf(j);
  std::string s =
      poolHeader(g, j, 1) +
      "fn tapCount(oh: i32, ow: i32) -> i32 {\n  var rows = 0; var cols = 0;\n"
      "  for (var kh = 0; kh < FH; kh++) { let ih = oh * SH + kh * DH - PT; if (ih >= 0 && ih < H) "
      "{ rows++; } }\n"
      "  for (var kw = 0; kw < FW; kw++) { let iw = ow * SW + kw * DW - PL; if (iw >= 0 && iw < W) "
      "{ cols++; } }\n"
      "  return rows * cols;\n}\n" +
      mainHeader(64) + "  if (idx >= " + str(invocations) + ") { return; }\n" +
      decompose("idx", {{"cb", "B"}, {"iw", "W"}, {"ih", "H"}}, "n") +
      "  let c = cb * J;\n  var acc = " + T + "(0.0);\n" +
      forEachWindowOf(g, "acc += " + at("b_in0", j, "((n * OH + oh) * OW + ow) * OC + c") +
                             " / f32(tapCount(oh, ow));") +
      "  b_out0[idx] = acc;\n}\n";
  return {s, invocations, 64};
}

void maxPool(KernelArgs& a) {
  run(a, maxPoolProgram(conv::Geometry(a.inputs[0].shape(), a.outputs[0].shape(), a.attrs)));
}
void avgPool(KernelArgs& a) {
  run(a, avgPoolProgram(conv::Geometry(a.inputs[0].shape(), a.outputs[0].shape(), a.attrs)));
}
void maxPoolGrad(KernelArgs& a) {
  run(a, maxPoolGradProgram(conv::Geometry(a.inputs[1].shape(), a.inputs[0].shape(), a.attrs)));
}
void avgPoolGrad(KernelArgs& a) {
  run(a, avgPoolGradProgram(conv::Geometry(a.outputs[0].shape(), a.inputs[0].shape(), a.attrs)));
}

}  // namespace

void registerConvKernels() {
  GLINT_REGISTER(reg, "Conv2D", [](KernelArgs& a) { forward(a, false); });
  GLINT_REGISTER(reg, "Conv2DBackpropInput", [](KernelArgs& a) { backpropInput(a, false); });
  GLINT_REGISTER(reg, "Conv2DBackpropFilter", [](KernelArgs& a) { backpropFilter(a, false); });
  GLINT_REGISTER(reg, "DepthwiseConv2dNative", [](KernelArgs& a) { forward(a, true); });
  GLINT_REGISTER(reg, "DepthwiseConv2dNativeBackpropInput",
                 [](KernelArgs& a) { backpropInput(a, true); });
  GLINT_REGISTER(reg, "DepthwiseConv2dNativeBackpropFilter",
                 [](KernelArgs& a) { backpropFilter(a, true); });
  GLINT_REGISTER(reg, "MaxPool", maxPool);
  GLINT_REGISTER(reg, "MaxPoolGrad", maxPoolGrad);
  GLINT_REGISTER(reg, "AvgPool", avgPool);
  GLINT_REGISTER(reg, "AvgPoolGrad", avgPoolGrad);
}

}  // namespace glint::webgpu
