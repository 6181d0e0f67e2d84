// One-pass optimizer updates: weights and optimizer state stay in buffers, and
// one dispatch writes every output of an element (w, and the moments). The
// hyper-parameters and the element count are u_params, so a learning-rate
// schedule, Adam's per-step bias corrections and variables of any size reuse
// one pipeline per kernel.
#include "src/backends/optim_params.h"
#include "src/backends/webgpu/kernels.h"
#include "src/backends/webgpu/wgsl.h"
#include "src/core/kernel_selection.h"

namespace glint::webgpu {

namespace {

/// Dispatches an update whose `code` sets the f32 locals named in `outs`
/// (output k <- outs[k]) from element i of the inputs. u_params: `params`,
/// then the element count as count / 4096 and count % 4096 (a float holds
/// integers exactly only below 2^24).
void runUpdate(KernelArgs& a, const std::string& code, const std::vector<std::string>& outs,
               std::vector<float> params) {
  const int64_t n = a.outputs[0].size();
  if (n == 0) return;
  const std::string c = std::to_string(params.size());
  params.push_back(static_cast<float>(n >> 12));
  params.push_back(static_cast<float>(n & 4095));
  std::string s = prelude(a.inputs, static_cast<int>(outs.size())) + mainHeader() +
                  "  let count = i32(u_params[" + c + "]) * 4096 + i32(u_params[" + c +
                  " + 1]);\n  if (idx >= count) { return; }\n  let i = idx;\n" + code;
  std::vector<Tensor*> outputs;
  for (size_t k = 0; k < outs.size(); ++k) {
    s += "  b_out" + std::to_string(k) + "[i] = bitcast<u32>(" + outs[k] + ");\n";
    outputs.push_back(&a.outputs[k]);
  }
  runShader(gpuBackend(a), s + "}\n", a.inputs, outputs, n, 64, params);
}

void gradientDescent(KernelArgs& a) {
  runUpdate(a, "  let w = in0(i) - u_params[0] * in1(i);\n", {"w"}, gradientDescentParams(a.attrs));
}

void momentum(KernelArgs& a) {
  std::string code = "  let g = in2(i);\n  let next = u_params[1] * in1(i) + g;\n  let step = " +
                     std::string(a.attrs.b("useNesterov") ? "g + u_params[1] * next" : "next") +
                     ";\n  let w = in0(i) - u_params[0] * step;\n";
  runUpdate(a, code, {"w", "next"}, momentumParams(a.attrs));
}

void adam(KernelArgs& a) {
  // u_params: adamParams (src/backends/optim_params.h).
  std::string code =
      "  let w = in0(i);\n  let g = in3(i);\n"
      "  let m = u_params[1] * in1(i) + u_params[2] * g;\n"
      "  let v = u_params[3] * in2(i) + u_params[4] * (g * g);\n"
      "  let update = (m / u_params[5]) / (sqrt(v / u_params[6]) + u_params[7]);\n"
      "  let wNew = w - u_params[8] * w - u_params[0] * update;\n";
  runUpdate(a, code, {"wNew", "m", "v"}, adamParams(a.attrs));
}

}  // namespace

void registerOptimKernels() {
  GLINT_REGISTER(registerKernel, "ApplyGradientDescent", "webgpu", gradientDescent);
  GLINT_REGISTER(registerKernel, "ApplyMomentum", "webgpu", momentum);
  GLINT_REGISTER(registerKernel, "ApplyAdam", "webgpu", adam);
}

}  // namespace glint::webgpu
