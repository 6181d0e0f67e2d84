#pragma once
// Backends compiled into this build. Each registers itself and its kernels.
namespace glint {
void registerReferenceBackend();
void registerCpuBackend();
}  // namespace glint
