// Element-wise kernels: the shared table (src/backends/gpu/elementwise.cpp)
// printed as GLSL, one value per output element, inputs broadcast through
// index maps (src/backends/gpu/index.cpp). Float binary ops whose operands line up in whole
// texels take a texel per fragment instead.
#include "src/backends/gpu/elementwise.h"

#include "src/backends/gl/kernels.h"
#include "src/backends/gl/shader.h"
#include "src/backends/gpu/printer.h"

namespace glint::gl {

namespace {

/// GLSL: texel t's 4 values of input k, which has out's shape or repeats
/// along out's leading axes (a bias [C] of [N, H, W, C]) in whole texels, or
/// is a single value; "" when it is none of those. The repeat's length is a
/// parameter appended to `params`.
std::string texelOf(const Tensor& in, int k, const Shape& out, std::vector<float>& params) {
  const std::string f = "ftexel" + std::to_string(k);
  if (in.shape() == out) return f + "(t)";
  if (in.size() == 1) return f + "(0).xxxx";
  const Shape& s = in.shape();
  if (in.size() % 4 != 0 || s.size() > out.size()) return "";
  for (size_t d = 0; d < s.size(); ++d)
    if (s[d] != out[out.size() - s.size() + d]) return "";
  return f + "(t % " + intUniform(params, in.size() / 4) + ")";
}

/// Float binary ops whose operands read in whole texels (texelOf): a texel
/// per fragment, no index arithmetic per element. False when they do not.
bool binaryTexels(KernelArgs& a, const gpu::ElementwiseKernel& k) {
  const Tensor& out = a.outputs[0];
  if (out.dtype() != DType::float32 || a.inputs[0].dtype() != DType::float32 ||
      a.inputs[1].dtype() != DType::float32 || out.size() % 4 != 0)
    return false;
  std::vector<float> params;
  const std::string op = gpu::floatFunctionSource(gpu::glsl(), k, a.attrs, "op_", &params);
  const std::string ta = texelOf(a.inputs[0], 0, out.shape(), params);
  const std::string tb = texelOf(a.inputs[1], 1, out.shape(), params);
  if (ta.empty() || tb.empty()) return false;
  std::string s =
      intsDeclaration(params) + op + "vec4 texelValue(int t) {\n  vec4 a = " + ta + ", b = " + tb +
      ";\n  return vec4(op_(a.x, b.x), op_(a.y, b.y), op_(a.z, b.z), op_(a.w, b.w));\n}\n";
  GlBackend& gl = glBackend(a);
  gl.setParams(std::move(params));
  runTexels(gl, s, operands(a.inputs), textureOf(a.outputs[0]), out.size() / 4);
  return true;
}

void run(const gpu::ElementwiseKernel& k, KernelArgs& a) {
  const Tensor& out = a.outputs[0];
  if (out.size() == 0) return;
  if (k.arity == 2 && out.dtype() == DType::float32 && binaryTexels(a, k)) return;
  std::vector<float> params;
  std::string s = gpu::elementwiseSource(gpu::glsl(), k, a.inputs, out, a.attrs, params);
  s = intsDeclaration(params) + s;
  GlBackend& gl = glBackend(a);
  gl.setParams(std::move(params));
  runAligned(gl, s, a.inputs, a.outputs[0]);
}

}  // namespace

void registerElementwiseKernels() {
  gpu::elementwiseKernels([](const char* name, gpu::ElementwiseKernel k) {
    registerKernel(name, "gl", [k](KernelArgs& a) { run(k, a); });
  });
}

}  // namespace glint::gl
