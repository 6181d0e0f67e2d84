// Recurrent-cell kernels (LSTMCell, GRUCell, GRUResetState and their Grad
// kernels), the float32 GLSL form of src/backends/reference/rnn.cpp. Every
// output element recomputes the gates of its (batch, unit) pair, and each
// output of a multi-output kernel is one draw of the same code.
#include "src/backends/gl/kernels.h"
#include "src/backends/gl/shader.h"
#include "src/backends/gpu/cells.h"
#include "src/backends/stepwise_rnn.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"

namespace glint::gl {

namespace {

/// `ract`/`act` and their derivatives `ractD`/`actD` (src/backends/gpu/cells.cpp).
const std::string& activations(const Attrs& attrs) {
  return gpu::cellActivations(gpu::glsl(),
                              kernel_attrs::Recurrent::read(attrs).recurrentActivation);
}

/// One output: its [batch, gates * units] layout and the GLSL expression of
/// its element, which may read the gate index g (0 when gates == 1).
struct Output {
  int gates;
  std::string expr;
};

/// Draws each output k from `code` (locals of the unit (n, j); s = n * units + j).
void drawCell(KernelArgs& a, int64_t units, const std::string& code,
              const std::vector<Output>& outs) {
  const std::string u = std::to_string(units);
  const std::string funcs = activations(a.attrs);
  for (size_t k = 0; k < outs.size(); ++k) {
    if (a.outputs[k].size() == 0) continue;
    const std::string w = std::to_string(outs[k].gates * units);
    std::string s = funcs + "const int U = " + u + ";\nfloat value(int i) {\n  int n = i / " + w +
                    ";\n  int g = (i - n * " + w + ") / U;\n  int j = i - n * " + w +
                    " - g * U;\n  int s = n * U + j;\n" + code + "  return " + outs[k].expr +
                    ";\n}\n";
    runElementwise(glBackend(a), s, a.inputs, a.outputs[k]);
  }
}

int64_t unitsOf(const KernelArgs& a) { return a.inputs.back().shape()[1]; }

// The gate math is the shared IR (src/backends/gpu/cells.h), printed after
// this file's fetches into locals it reads by name.
gpu::E local(const char* name, gpu::Type t = gpu::Type::f32) { return gpu::ref(name, t); }
std::string statements(const gpu::Fn& body) { return gpu::printBody(gpu::glsl(), body); }
std::string expr(const gpu::E& e) { return gpu::printExpr(gpu::glsl(), e); }

/// The LSTM pre-activations z0..z3 of unit (n, j), from inputs xz, hz [b, 4u].
const char* kLstmFetch =
    "  int b4 = n * 4 * U + j;\n"
    "  float z0 = in0(b4) + in1(b4), z1 = in0(b4 + U) + in1(b4 + U);\n"
    "  float z2 = in0(b4 + 2 * U) + in1(b4 + 2 * U), z3 = in0(b4 + 3 * U) + in1(b4 + 3 * U);\n";

// With units a multiple of 4, a fragment takes four units of one sample: the
// texel of each gate holds them, so the gates cost a fetch per 4 units instead
// of one per element, and the outputs come out of one draw (multiple render
// targets). The [b, 4u] gradient dz is gathered from a texture per gate.

/// GLSL: vec4 forms of the activations, the gates' texel base `b` of the
/// fragment's four units (sample n, units j..j+3), and z0..z3.
std::string lstmFetch4(KernelArgs& a, const Texture& grid, int64_t units) {
  const std::string U4 = std::to_string(units / 4);
  return activations(a.attrs) +
         "vec4 ract4(vec4 x) { return vec4(ract(x.x), ract(x.y), ract(x.z), ract(x.w)); }\n"
         "vec4 act4(vec4 x) { return vec4(act(x.x), act(x.y), act(x.z), act(x.w)); }\n"
         "vec4 ractD4(vec4 x, vec4 y) { return vec4(ractD(x.x, y.x), ractD(x.y, y.y), "
         "ractD(x.z, y.z), ractD(x.w, y.w)); }\n"
         "vec4 actD4(vec4 x, vec4 y) { return vec4(actD(x.x, y.x), actD(x.y, y.y), actD(x.z, y.z), "
         "actD(x.w, y.w)); }\n"
         "uint bitsOf(vec4 v, int c, bool h) { return h ? halfBits(v[c]) : floatBitsToUint(v[c]); "
         "}\n"
         "uvec4 bits(vec4 v, bool h) { return uvec4(bitsOf(v, 0, h), bitsOf(v, 1, h), "
         "bitsOf(v, 2, h), bitsOf(v, 3, h)); }\n"
         "void main() {\n" +
         fragmentTexel() + "  int n = t / " + U4 + "; int b = n * " + std::to_string(units) +
         " + t % " + U4 +
         ";\n"
         "  vec4 z0 = ftexel0(b) + ftexel1(b), z1 = ftexel0(b + " +
         U4 + ") + ftexel1(b + " + U4 + ");\n  vec4 z2 = ftexel0(b + " + std::to_string(units / 2) +
         ") + ftexel1(b + " + std::to_string(units / 2) + "), z3 = ftexel0(b + " +
         std::to_string(3 * units / 4) + ") + ftexel1(b + " + std::to_string(3 * units / 4) +
         ");\n";
}

const char* halfLit(const Tensor& t) { return textureOf(t).half ? "true" : "false"; }

std::vector<const Texture*> texturesOf(const std::vector<Tensor>& ts) {
  std::vector<const Texture*> out;
  for (const Tensor& t : ts) out.push_back(&textureOf(t));
  return out;
}

/// inputs xz, hz [b, 4u], cPrev [b, u]; outputs h, c.
void lstmCell(KernelArgs& a) {
  const int64_t units = unitsOf(a);
  GlBackend& gl = glBackend(a);
  const bool texels = units % 4 == 0 && gl.maxOutputs() >= 2 && a.outputs[0].size() != 0;
  const gpu::Type t = texels ? gpu::Type::vec4f : gpu::Type::f32;
  gpu::Fn body("cell", t, {});
  gpu::LstmState st = gpu::lstmStep(body, gpu::lstmGates(body, t), local("cPrev", t));
  if (!texels) {
    drawCell(a, units, std::string(kLstmFetch) + "  float cPrev = in2(s);\n" + statements(body),
             {{1, expr(st.h)}, {1, expr(st.c)}});
    return;
  }
  Texture& h = textureOf(a.outputs[0]);
  std::string s = prelude(a.inputs) +
                  "layout(location = 0) out uvec4 o_h;\nlayout(location = 1) out uvec4 o_c;\n" +
                  lstmFetch4(a, h, units) + "  vec4 cPrev = ftexel2(t);\n" + statements(body) +
                  "  o_h = bits(" + expr(st.h) + ", " + halfLit(a.outputs[0]) +
                  ");\n  o_c = bits(" + expr(st.c) + ", " + halfLit(a.outputs[1]) + ");\n}\n";
  Texture* outs[] = {&h, &textureOf(a.outputs[1])};
  gl.draw(gl.program(s), texturesOf(a.inputs), outs);
}

/// The step's gradient over locals cPrev, c, dh, dc (of type t).
gpu::LstmGrads lstmGrads(gpu::Fn& body, gpu::Type t) {
  return gpu::lstmStepGrad(body, gpu::lstmGates(body, t), local("cPrev", t), local("c", t),
                           local("dh", t), local("dc", t));
}

/// LSTMCellGrad as above: dz's gates into four textures of dcPrev's extent
/// (with dcPrev itself, one draw), then dz gathered from them.
bool lstmCellGrad4(KernelArgs& a) {
  const int64_t units = unitsOf(a);
  GlBackend& gl = glBackend(a);
  if (units % 4 != 0 || gl.maxOutputs() < 5 || a.outputs[1].size() == 0) return false;
  const size_t bytes = static_cast<size_t>(a.outputs[1].size()) * sizeof(float);
  ScratchTextures gates(gl, bytes, 4);
  std::vector<Texture*> targets = gates.textures;
  Texture& dcPrev = textureOf(a.outputs[1]);
  gpu::Fn body("cellGrad", gpu::Type::vec4f, {});
  gpu::LstmGrads d = lstmGrads(body, gpu::Type::vec4f);
  std::string s = prelude(a.inputs);
  for (int k = 0; k < 5; ++k)
    s += "layout(location = " + std::to_string(k) + ") out uvec4 o_" + std::to_string(k) + ";\n";
  s += lstmFetch4(a, dcPrev, units) +
       "  vec4 cPrev = ftexel2(t), c = ftexel3(t), dh = ftexel4(t), dc = ftexel5(t);\n" +
       statements(body);
  for (int k = 0; k < 4; ++k)
    s += "  o_" + std::to_string(k) + " = floatBitsToUint(" + expr(d.dz[k]) + ");\n";
  s += "  o_4 = bits(" + expr(d.dcPrev) + ", " + halfLit(a.outputs[1]) + ");\n}\n";
  targets.push_back(&dcPrev);
  gl.draw(gl.program(s), texturesOf(a.inputs), targets);

  // dz [b, 4u]: texel T holds gate g, units j..j+3 of sample n.
  Texture& dz = textureOf(a.outputs[0]);
  std::vector<Operand> parts;
  for (int g = 0; g < 4; ++g) parts.push_back(Operand{targets[g], DType::float32});
  const std::string U4 = std::to_string(units / 4);
  std::string g = prelude(parts) + "out uvec4 o_texel;\nvoid main() {\n" + fragmentTexel() +
                  "  int n = t / " + std::to_string(units) + "; int r = t % " +
                  std::to_string(units) + ";\n" +
                  gatherTexel(4, "r / " + U4, "n * " + U4 + " + r % " + U4, dz) + "}\n";
  gl.draw(gl.program(g), {targets[0], targets[1], targets[2], targets[3]}, dz);
  return true;
}

/// inputs xz, hz, cPrev, c, dh, dc; outputs dz [b, 4u], dcPrev.
void lstmCellGrad(KernelArgs& a) {
  if (lstmCellGrad4(a)) return;
  gpu::Fn body("cellGrad", gpu::Type::f32, {});
  gpu::LstmGrads d = lstmGrads(body, gpu::Type::f32);
  drawCell(a, unitsOf(a),
           std::string(kLstmFetch) +
               "  float cPrev = in2(s), c = in3(s), dh = in4(s), dc = in5(s);\n" + statements(body),
           {{4, "g == 0 ? " + expr(d.dz[0]) + " : g == 1 ? " + expr(d.dz[1]) + " : g == 2 ? " +
                    expr(d.dz[2]) + " : " + expr(d.dz[3])},
            {1, expr(d.dcPrev)}});
}

/// The GRU gates' operands of unit (n, j) from inputs xz [b, 3u], hzr [b, 2u].
const char* kGruFetch =
    "  int b3 = n * 3 * U + j, b2 = n * 2 * U + j;\n"
    "  float xz = in0(b3), hz = in1(b2), xr = in0(b3 + U), hr = in1(b2 + U), xa = in0(b3 + 2 * "
    "U);\n";

/// inputs xz, hzr, hc, hPrev; output h.
void gruCell(KernelArgs& a) {
  gpu::Fn body("cell", gpu::Type::f32, {});
  gpu::GruGates g =
      gpu::gruGates(body, local("hc"), kernel_attrs::Recurrent::read(a.attrs).resetAfter);
  drawCell(a, unitsOf(a),
           std::string(kGruFetch) + "  float hc = in2(s), hPrev = in3(s);\n" + statements(body),
           {{1, expr(gpu::gruOutput(g, local("hPrev")))}});
}

/// inputs xz, hzr, hc, hPrev, dh; outputs dxz [b, 3u], dhzr [b, 2u], dhc, dhPrev.
void gruCellGrad(KernelArgs& a) {
  const bool resetAfter = kernel_attrs::Recurrent::read(a.attrs).resetAfter;
  gpu::Fn body("cellGrad", gpu::Type::f32, {});
  gpu::GruGates g = gpu::gruGates(body, local("hc"), resetAfter);
  gpu::GruGrads d = gpu::gruStepGrad(body, g, local("hPrev"), local("hc"), local("dh"), resetAfter);
  const std::string dz = expr(d.dzPre), dr = expr(d.drPre);
  drawCell(a, unitsOf(a),
           std::string(kGruFetch) + "  float hc = in2(s), hPrev = in3(s), dh = in4(s);\n" +
               statements(body),
           {{3, "g == 0 ? " + dz + " : g == 1 ? " + dr + " : " + expr(d.daPre)},
            {2, "g == 0 ? " + dz + " : " + dr},
            {1, expr(resetAfter ? d.daPre * g.r : d.daPre)},
            {1, expr(local("dh") * g.z)}});
}

/// inputs xz, hzr, hPrev; output r * hPrev.
void gruResetState(KernelArgs& a) {
  gpu::Fn body("reset", gpu::Type::f32, {});
  gpu::GruGates g = gpu::gruGates(body, gpu::E(0.0), false);
  drawCell(a, unitsOf(a), std::string(kGruFetch) + "  float hPrev = in2(s);\n" + statements(body),
           {{1, expr(g.r * local("hPrev"))}});
}

/// inputs xz, hzr, hPrev, dy; outputs dxz, dhzr (non-zero in the r part only), dhPrev.
void gruResetStateGrad(KernelArgs& a) {
  gpu::Fn body("resetGrad", gpu::Type::f32, {});
  gpu::GruGates g = gpu::gruGates(body, gpu::E(0.0), false);
  const std::string dr = expr(gpu::gruResetStateGrad(body, g, local("hPrev"), local("dy")));
  drawCell(a, unitsOf(a),
           std::string(kGruFetch) + "  float hPrev = in2(s), dy = in3(s);\n" + statements(body),
           {{3, "g == 1 ? " + dr + " : 0.0"},
            {2, "g == 1 ? " + dr + " : 0.0"},
            {1, expr(local("dy") * g.r)}});
}

}  // namespace

void registerRnnKernels() {
  GLINT_REGISTER(registerKernel, "LSTMCell", "gl", lstmCell);
  GLINT_REGISTER(registerKernel, "LSTMCellGrad", "gl", lstmCellGrad);
  // The time loop: per step the matMul and the cell above.
  GLINT_REGISTER(registerKernel, "LSTMSequence", "gl", lstmSequenceStepwise);
  GLINT_REGISTER(registerKernel, "LSTMSequenceGrad", "gl", lstmSequenceGradStepwise);
  GLINT_REGISTER(registerKernel, "GRUCell", "gl", gruCell);
  GLINT_REGISTER(registerKernel, "GRUCellGrad", "gl", gruCellGrad);
  GLINT_REGISTER(registerKernel, "GRUResetState", "gl", gruResetState);
  GLINT_REGISTER(registerKernel, "GRUResetStateGrad", "gl", gruResetStateGrad);
}

}  // namespace glint::gl
