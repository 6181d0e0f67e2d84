#include "src/backends/builtin.h"
#include "src/backends/webgpu/kernels.h"
#include "src/backends/webgpu/webgpu_backend.h"

namespace glint {

void registerWebGpuBackend() {
  // First choice in a browser that has a device (webgpu > gl > cpu), except
  // on a software adapter, where Engine::active prefers what measures faster.
  registerBackend("webgpu", 200, [](std::string& whyNot) -> std::unique_ptr<Backend> {
    return webgpu::WebGpuBackend::create(whyNot);
  });
  webgpu::registerElementwiseKernels();
  webgpu::registerReductionKernels();
  webgpu::registerMatMulKernels();
  webgpu::registerShapeKernels();
  webgpu::registerConvKernels();
  webgpu::registerOptimKernels();
  webgpu::registerRnnKernels();
}

}  // namespace glint
