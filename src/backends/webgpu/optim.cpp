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
/// (output k <- outs[k]) from element i of the inputs. Besides the kernel's
/// `params`, the element count as count / 4096 and count % 4096 (a float
/// holds integers exactly only below 2^24).
void runUpdate(KernelArgs& a, const std::string& code, const std::vector<std::string>& outs,
               ParamBlock params) {
  const int64_t n = a.outputs[0].size();
  if (n == 0) return;
  params.add("countHigh", static_cast<double>(n >> 12))
      .add("countLow", static_cast<double>(n & 4095));
  std::string s = prelude(a.inputs, static_cast<int>(outs.size())) + mainHeader() +
                  params.expand(
                      "  let count = i32($countHigh) * 4096 + i32($countLow);\n"
                      "  if (idx >= count) { return; }\n  let i = idx;\n" +
                      code);
  std::vector<Tensor*> outputs;
  for (size_t k = 0; k < outs.size(); ++k) {
    s += "  b_out" + std::to_string(k) + "[i] = bitcast<u32>(" + outs[k] + ");\n";
    outputs.push_back(&a.outputs[k]);
  }
  runShader(gpuBackend(a), s + "}\n", a.inputs, outputs, n, 64, params.values());
}

void gradientDescent(KernelArgs& a) {
  runUpdate(a, "  let w = in0(i) - $lr * in1(i);\n", {"w"}, gradientDescentParams(a.attrs));
}

void momentum(KernelArgs& a) {
  std::string code = "  let g = in2(i);\n  let next = $momentum * in1(i) + g;\n  let step = " +
                     std::string(a.attrs.b("useNesterov") ? "g + $momentum * next" : "next") +
                     ";\n  let w = in0(i) - $lr * step;\n";
  runUpdate(a, code, {"w", "next"}, momentumParams(a.attrs));
}

void adam(KernelArgs& a) {
  std::string code =
      "  let w = in0(i);\n  let g = in3(i);\n"
      "  let m = $beta1 * in1(i) + $oneMinusBeta1 * g;\n"
      "  let v = $beta2 * in2(i) + $oneMinusBeta2 * (g * g);\n"
      "  let update = (m / $biasCorrection1) / (sqrt(v / $biasCorrection2) + $epsilon);\n"
      "  let wNew = w - $decay * w - $lr * update;\n";
  runUpdate(a, code, {"wNew", "m", "v"}, adamParams(a.attrs));
}

}  // namespace

void registerOptimKernels() {
  GLINT_REGISTER(registerKernel, "ApplyGradientDescent", "webgpu", gradientDescent);
  GLINT_REGISTER(registerKernel, "ApplyMomentum", "webgpu", momentum);
  GLINT_REGISTER(registerKernel, "ApplyAdam", "webgpu", adam);
}

}  // namespace glint::webgpu
