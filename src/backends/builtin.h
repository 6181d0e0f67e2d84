#pragma once
// Backends compiled into this build. Each registers itself and its kernels.
namespace glint {
void registerReferenceBackend();
void registerCpuBackend();
void registerGlBackend();      // unless GLINT_GL=0 (src/backends/gl/gl_register.cpp)
void registerWebGpuBackend();  // browsers (src/backends/webgpu/webgpu_register.cpp)
}  // namespace glint
