// One-pass optimizer updates: weights and optimizer state stay in textures.
// Multi-output kernels write all their outputs in one draw, a texel of each
// per fragment. The hyper-parameters are uniforms (u_params), so a
// learning-rate schedule or Adam's per-step bias corrections reuse one
// program.
#include "src/backends/gl/kernels.h"
#include "src/backends/gl/shader.h"
#include "src/backends/optim_params.h"
#include "src/core/kernel_selection.h"

namespace glint::gl {

namespace {

/// Draws the outputs of a kernel whose update `code` sets the vec4 locals
/// named in `outs` from x0, x1... (texel t of each input). The ops give every
/// input and output one shape, so a fragment updates a texel's 4 elements in
/// vector arithmetic (the same operations per lane as one element at a
/// time; mlp training on SwiftShader ~10% faster than the element loop).
void drawOutputs(KernelArgs& a, const std::string& code, const std::vector<std::string>& outs,
                 const ParamBlock& params) {
  GlBackend& gl = glBackend(a);
  gl.setParams(params.values());
  std::vector<Texture*> targets;
  for (Tensor& t : a.outputs) targets.push_back(&textureOf(t));
  std::string s =
      "uniform float u_params[" + std::to_string(params.size()) + "];\nvoid texelValues(int t";
  for (size_t k = 0; k < outs.size(); ++k) s += ", out vec4 v" + std::to_string(k);
  s += ") {\n";
  for (size_t k = 0; k < a.inputs.size(); ++k)
    s += "  vec4 x" + std::to_string(k) + " = ftexel" + std::to_string(k) + "(t);\n";
  s += params.expand(code);
  for (size_t k = 0; k < outs.size(); ++k) s += "  v" + std::to_string(k) + " = " + outs[k] + ";\n";
  s += "}\n";
  const int64_t texels = (a.outputs[0].size() + 3) / 4;
  runTexels(gl, s, operands(a.inputs), targets, texels);
  gl.setParams({});  // not consumed when nothing was drawn
}

void gradientDescent(KernelArgs& a) {
  drawOutputs(a, "  vec4 w = x0 - $lr * x1;\n", {"w"}, gradientDescentParams(a.attrs));
}

void momentum(KernelArgs& a) {
  std::string code = "  vec4 g = x2;\n  vec4 next = $momentum * x1 + g;\n  vec4 step = " +
                     std::string(a.attrs.b("useNesterov") ? "g + $momentum * next" : "next") +
                     ";\n  vec4 w = x0 - $lr * step;\n";
  drawOutputs(a, code, {"w", "next"}, momentumParams(a.attrs));
}

void adam(KernelArgs& a) {
  std::string code =
      "  vec4 w = x0, g = x3;\n"
      "  vec4 m = $beta1 * x1 + $oneMinusBeta1 * g;\n"
      "  vec4 v = $beta2 * x2 + $oneMinusBeta2 * (g * g);\n"
      "  vec4 update = (m / $biasCorrection1) / (sqrt(v / $biasCorrection2) + $epsilon);\n"
      "  vec4 wNew = w - $decay * w - $lr * update;\n";
  drawOutputs(a, code, {"wNew", "m", "v"}, adamParams(a.attrs));
}

}  // namespace

void registerOptimKernels() {
  GLINT_REGISTER(registerKernel, "ApplyGradientDescent", "gl", gradientDescent);
  GLINT_REGISTER(registerKernel, "ApplyMomentum", "gl", momentum);
  GLINT_REGISTER(registerKernel, "ApplyAdam", "gl", adam);
}

}  // namespace glint::gl
