// One-pass optimizer updates: weights and optimizer state stay in textures.
// Multi-output kernels write all their outputs in one draw, a texel of each
// per fragment. The hyper-parameters are uniforms (u_params), so a
// learning-rate schedule or Adam's per-step bias corrections reuse one
// program.
#include "src/backends/optim_params.h"
#include "src/backends/gl/kernels.h"
#include "src/backends/gl/shader.h"

namespace glint::gl {

namespace {

/// Draws the outputs of a kernel whose update `code` sets the vec4 locals
/// named in `outs` from x0, x1... (texel t of each input). The ops give every
/// input and output one shape, so a fragment updates a texel's 4 elements in
/// vector arithmetic (the same operations per lane as one element at a
/// time, a quarter of the instructions for SwiftShader to run).
void drawOutputs(KernelArgs& a, const std::string& code, const std::vector<std::string>& outs,
                 const std::vector<float>& params) {
  GlBackend& gl = glBackend(a);
  gl.setParams(params);
  const int64_t count = (a.outputs[0].size() + 3) / 4;
  std::vector<Texture*> targets;
  for (Tensor& t : a.outputs) targets.push_back(&textureOf(t));
  if (count == 0 || !targets[0]->tex) {
    gl.setParams({});
    return;
  }
  std::string s = prelude(operands(a.inputs)) + "uniform float u_params[" +
                  std::to_string(params.size()) + "];\n";
  for (size_t k = 0; k < outs.size(); ++k)
    s += "layout(location = " + std::to_string(k) + ") out uvec4 o_" + std::to_string(k) + ";\n";
  s += "void main() {\n" + fragmentTexel(*targets[0]) + "  if (t >= " + std::to_string(count) + ") {\n";
  for (size_t k = 0; k < outs.size(); ++k) s += "    o_" + std::to_string(k) + " = uvec4(0u);\n";
  s += "    return;\n  }\n";
  for (size_t k = 0; k < a.inputs.size(); ++k)
    s += "  vec4 x" + std::to_string(k) + " = ftexel" + std::to_string(k) + "(t);\n";
  s += code;
  for (size_t k = 0; k < outs.size(); ++k) {
    const std::string& v = outs[k];
    s += "  o_" + std::to_string(k) + " = " +
         (targets[k]->half ? "uvec4(halfBits(" + v + ".x), halfBits(" + v + ".y), halfBits(" + v +
                                 ".z), halfBits(" + v + ".w))"
                           : "floatBitsToUint(" + v + ")") +
         ";\n";
  }
  s += "}\n";
  std::vector<const Texture*> textures;
  for (const Tensor& t : a.inputs) textures.push_back(&textureOf(t));
  gl.draw(gl.program(s), textures, targets);
}

void gradientDescent(KernelArgs& a) {
  drawOutputs(a, "  vec4 w = x0 - u_params[0] * x1;\n", {"w"}, gradientDescentParams(a.attrs));
}

void momentum(KernelArgs& a) {
  std::string code = "  vec4 g = x2;\n  vec4 next = u_params[1] * x1 + g;\n  vec4 step = " +
                     std::string(a.attrs.b("useNesterov") ? "g + u_params[1] * next" : "next") +
                     ";\n  vec4 w = x0 - u_params[0] * step;\n";
  drawOutputs(a, code, {"w", "next"}, momentumParams(a.attrs));
}

void adam(KernelArgs& a) {
  // u_params: adamParams (src/backends/optim_params.h).
  std::string code =
      "  vec4 w = x0, g = x3;\n"
      "  vec4 m = u_params[1] * x1 + u_params[2] * g;\n"
      "  vec4 v = u_params[3] * x2 + u_params[4] * (g * g);\n"
      "  vec4 update = (m / u_params[5]) / (sqrt(v / u_params[6]) + u_params[7]);\n"
      "  vec4 wNew = w - u_params[8] * w - u_params[0] * update;\n";
  drawOutputs(a, code, {"wNew", "m", "v"}, adamParams(a.attrs));
}

}  // namespace

void registerOptimKernels() {
  registerKernel("ApplyGradientDescent", "gl", gradientDescent);
  registerKernel("ApplyMomentum", "gl", momentum);
  registerKernel("ApplyAdam", "gl", adam);
}

}  // namespace glint::gl
