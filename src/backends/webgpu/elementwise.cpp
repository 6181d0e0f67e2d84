// Element-wise kernels: the shared table (src/backends/gpu/elementwise.cpp)
// printed as WGSL, one value per output element, inputs broadcast through
// generated index maps; one dispatch each. Scalars that may change between
// calls (LeakyRelu's alpha, ClipByValue's bounds) go through u_params, so
// that they do not compile new pipelines.
#include "src/backends/gpu/elementwise.h"

#include "src/backends/webgpu/kernels.h"
#include "src/backends/webgpu/wgsl.h"

namespace glint::webgpu {

namespace {

void run(const gpu::ElementwiseKernel& k, KernelArgs& a) {
  std::vector<float> params;
  std::string s = gpu::elementwiseSource(gpu::wgsl(), k, a.inputs, a.outputs[0], a.attrs, params);
  runElementwise(gpuBackend(a), s, a.inputs, a.outputs[0], params);
}

}  // namespace

void registerElementwiseKernels() {
  gpu::elementwiseKernels([](const char* name, gpu::ElementwiseKernel k) {
    registerKernel(name, "webgpu", [k](KernelArgs& a) { run(k, a); });
  });
}

}  // namespace glint::webgpu
