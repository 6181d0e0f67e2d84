// One-pass optimizer updates (src/backends/gpu/optim.cpp, shared with
// webgpu): weights and optimizer state stay in textures. Multi-output
// kernels write all their outputs in one draw, a texel of each per
// fragment. The hyper-parameters are uniforms (u_params), so a learning-rate
// schedule or Adam's per-step bias corrections reuse one program.
#include "src/backends/gpu/optim.h"

#include "src/backends/gl/kernels.h"
#include "src/backends/gl/shader.h"
#include "src/backends/gpu/printer.h"

namespace glint::gl {

namespace {

/// The ops give every input and output one shape, so a fragment updates a
/// texel's 4 elements in vector arithmetic (the same operations per lane as
/// one element at a time; mlp training on SwiftShader ~10% faster than the
/// element loop): the update printed over vec4 inputs x0, x1...
void run(KernelArgs& a, gpu::OptimizerUpdate update) {
  GlBackend& gl = glBackend(a);
  gpu::Fn body("update", gpu::Type::vec4f, {});
  std::vector<gpu::E> in;
  for (size_t k = 0; k < a.inputs.size(); ++k)
    in.push_back(gpu::ref("x" + std::to_string(k), gpu::Type::vec4f));
  std::vector<gpu::E> outs = update(body, in, a.attrs);
  std::vector<float> params;
  std::string code = gpu::printBodyCached(gpu::glsl(), body, &params);
  std::string s =
      "uniform float u_params[" + std::to_string(params.size()) + "];\nvoid texelValues(int t";
  for (size_t k = 0; k < outs.size(); ++k) s += ", out vec4 v" + std::to_string(k);
  s += ") {\n";
  for (size_t k = 0; k < a.inputs.size(); ++k)
    s += "  vec4 x" + std::to_string(k) + " = ftexel" + std::to_string(k) + "(t);\n";
  s += code;
  for (size_t k = 0; k < outs.size(); ++k)
    s += "  v" + std::to_string(k) + " = " + gpu::localName(outs[k]) + ";\n";
  s += "}\n";
  gl.setParams(params);
  std::vector<Texture*> targets;
  for (Tensor& t : a.outputs) targets.push_back(&textureOf(t));
  const int64_t texels = (a.outputs[0].size() + 3) / 4;
  runTexels(gl, s, operands(a.inputs), targets, texels);
  gl.setParams({});  // not consumed when nothing was drawn
}

}  // namespace

void registerOptimKernels() {
  gpu::optimizerKernels([](const char* name, gpu::OptimizerUpdate update) {
    registerKernel(name, "gl", [update](KernelArgs& a) { run(a, update); });
  });
}

}  // namespace glint::gl
