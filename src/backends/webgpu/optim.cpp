// One-pass optimizer updates (src/backends/gpu/optim.cpp, shared with gl):
// weights and optimizer state stay in buffers, and one dispatch writes every
// output of an element (w, and the moments). The hyper-parameters and the
// element count are u_params, so a learning-rate schedule, Adam's per-step
// bias corrections and variables of any size reuse one pipeline per kernel.
#include "src/backends/gpu/optim.h"

#include "src/backends/gpu/printer.h"
#include "src/backends/webgpu/kernels.h"
#include "src/backends/webgpu/wgsl.h"

namespace glint::webgpu {

namespace {

/// The update of element i; besides the kernel's parameters, the element
/// count as count / 4096 and count % 4096 (a float holds integers exactly
/// only below 2^24).
void run(KernelArgs& a, gpu::OptimizerUpdate update) {
  const int64_t n = a.outputs[0].size();
  if (n == 0) return;
  gpu::Fn body("update", gpu::Type::f32, {});
  gpu::E count =
      body.let("count", gpu::cast(gpu::Type::i32, gpu::param("countHigh", n >> 12)) * 4096 +
                            gpu::cast(gpu::Type::i32, gpu::param("countLow", n & 4095)));
  body.ifElse(gpu::ref("idx", gpu::Type::i32) >= count, [&] { body.retVoid(); });
  std::vector<gpu::E> in;
  for (size_t k = 0; k < a.inputs.size(); ++k)
    in.push_back(
        gpu::external("in" + std::to_string(k), gpu::Type::f32, {gpu::ref("idx", gpu::Type::i32)}));
  std::vector<gpu::E> outs = update(body, in, a.attrs);
  std::vector<float> params;
  std::string code = gpu::printBodyCached(gpu::wgsl(), body, &params);
  std::string s = prelude(a.inputs, static_cast<int>(outs.size())) + mainHeader() + code;
  std::vector<Tensor*> outputs;
  for (size_t k = 0; k < outs.size(); ++k) {
    s += "  b_out" + std::to_string(k) + "[idx] = bitcast<u32>(" + gpu::localName(outs[k]) + ");\n";
    outputs.push_back(&a.outputs[k]);
  }
  runShader(gpuBackend(a), s + "}\n", a.inputs, outputs, n, 64, params);
}

}  // namespace

void registerOptimKernels() {
  gpu::optimizerKernels([](const char* name, gpu::OptimizerUpdate update) {
    registerKernel(name, "webgpu", [update](KernelArgs& a) { run(a, update); });
  });
}

}  // namespace glint::webgpu
