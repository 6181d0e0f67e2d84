// One-pass optimizer updates: weights and optimizer state stay in textures.
// Multi-output kernels write all their outputs in one draw. The
// hyper-parameters are uniforms (u_params), so a learning-rate schedule or
// Adam's per-step bias corrections reuse one program.
#include "src/backends/optim_params.h"
#include "src/backends/gl/kernels.h"
#include "src/backends/gl/shader.h"

namespace glint::gl {

namespace {

/// Draws the outputs of a kernel whose update `code` sets the float locals
/// named in `outs` from element i of the inputs.
void drawOutputs(KernelArgs& a, const std::string& code, const std::vector<std::string>& outs,
                 const std::vector<float>& params) {
  GlBackend& gl = glBackend(a);
  gl.setParams(params);
  runAlignedOutputs(gl, "uniform float u_params[" + std::to_string(params.size()) + "];\n", code,
                    outs, a.inputs, a.outputs);
}

void gradientDescent(KernelArgs& a) {
  drawOutputs(a, "  float w = in0(i) - u_params[0] * in1(i);\n", {"w"}, gradientDescentParams(a.attrs));
}

void momentum(KernelArgs& a) {
  std::string code = "  float g = in2(i);\n  float next = u_params[1] * in1(i) + g;\n  float step = " +
                     std::string(a.attrs.b("useNesterov") ? "g + u_params[1] * next" : "next") +
                     ";\n  float w = in0(i) - u_params[0] * step;\n";
  drawOutputs(a, code, {"w", "next"}, momentumParams(a.attrs));
}

void adam(KernelArgs& a) {
  // u_params: adamParams (src/backends/optim_params.h).
  std::string code =
      "  float w = in0(i), g = in3(i);\n"
      "  float m = u_params[1] * in1(i) + u_params[2] * g;\n"
      "  float v = u_params[3] * in2(i) + u_params[4] * (g * g);\n"
      "  float update = (m / u_params[5]) / (sqrt(v / u_params[6]) + u_params[7]);\n"
      "  float wNew = w - u_params[8] * w - u_params[0] * update;\n";
  drawOutputs(a, code, {"wNew", "m", "v"}, adamParams(a.attrs));
}

}  // namespace

void registerOptimKernels() {
  registerKernel("ApplyGradientDescent", "gl", gradientDescent);
  registerKernel("ApplyMomentum", "gl", momentum);
  registerKernel("ApplyAdam", "gl", adam);
}

}  // namespace glint::gl
