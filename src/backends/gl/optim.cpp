// One-pass optimizer updates: weights and optimizer state stay in textures.
// Multi-output kernels draw once per output with the same update code.
#include "src/backends/gl/kernels.h"
#include "src/backends/gl/shader.h"

namespace glint::gl {

namespace {

/// Draws output k of a kernel whose update `code` sets the float locals named
/// in `outs` from element i of the inputs.
void drawOutputs(KernelArgs& a, const std::string& code, const std::vector<std::string>& outs) {
  for (size_t k = 0; k < outs.size(); ++k) {
    std::string s = "float value(int i) {\n" + code + "  return " + outs[k] + ";\n}\n";
    runAligned(glBackend(a), s, a.inputs, a.outputs[k]);
  }
}

void gradientDescent(KernelArgs& a) {
  drawOutputs(a, "  float w = in0(i) - " + floatLit(a.attrs.f("lr")) + " * in1(i);\n", {"w"});
}

void momentum(KernelArgs& a) {
  std::string mom = floatLit(a.attrs.f("momentum"));
  std::string code = "  float g = in2(i);\n  float next = " + mom + " * in1(i) + g;\n  float step = " +
                     (a.attrs.b("useNesterov") ? "g + " + mom + " * next" : std::string("next")) +
                     ";\n  float w = in0(i) - " + floatLit(a.attrs.f("lr")) + " * step;\n";
  drawOutputs(a, code, {"w", "next"});
}

void adam(KernelArgs& a) {
  const Attrs& t = a.attrs;
  auto lit = [&](const char* key) { return floatLit(t.f(key)); };
  std::string code =
      "  float w = in0(i), g = in3(i);\n"
      "  float m = " + lit("beta1") + " * in1(i) + " + floatLit(1 - t.f("beta1")) + " * g;\n"
      "  float v = " + lit("beta2") + " * in2(i) + " + floatLit(1 - t.f("beta2")) + " * (g * g);\n"
      "  float update = (m / " + lit("biasCorrection1") + ") / (sqrt(v / " + lit("biasCorrection2") +
      ") + " + lit("epsilon") + ");\n"
      "  float wNew = w - " + floatLit(t.f("lr") * t.f("weightDecay")) + " * w - " + lit("lr") +
      " * update;\n";
  drawOutputs(a, code, {"wNew", "m", "v"});
}

}  // namespace

void registerOptimKernels() {
  registerKernel("ApplyGradientDescent", "gl", gradientDescent);
  registerKernel("ApplyMomentum", "gl", momentum);
  registerKernel("ApplyAdam", "gl", adam);
}

}  // namespace glint::gl
