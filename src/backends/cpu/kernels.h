#pragma once
#include <string>

namespace glint::cpu {

/// Kernels that replace reference loops on the cpu backend, one family each.
void registerMatMulKernels(const std::string& backend);
void registerConvKernels(const std::string& backend);
void registerElementwiseKernels(const std::string& backend);
void registerReductionKernels(const std::string& backend);

inline void registerFastKernels(const std::string& backend) {
  registerMatMulKernels(backend);
  registerConvKernels(backend);
  registerElementwiseKernels(backend);
  registerReductionKernels(backend);
}

}  // namespace glint::cpu
