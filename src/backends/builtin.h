#pragma once
// Backends compiled into this build. Each registers itself and its kernels.
namespace glint {
void registerReferenceBackend();
void registerCpuBackend();
void registerGlBackend();  // only when GLINT_GL=1 (src/backends/gl/gl_register.cpp)
}  // namespace glint
