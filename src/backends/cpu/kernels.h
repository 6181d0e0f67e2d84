#pragma once
#include <string>

namespace glint::cpu {

/// Kernels that replace reference loops on the cpu backend.
void registerMatMulKernels(const std::string& backend);
void registerConvKernels(const std::string& backend);

inline void registerFastKernels(const std::string& backend) {
  registerMatMulKernels(backend);
  registerConvKernels(backend);
}

}  // namespace glint::cpu
