#include "src/backends/cpu/kernels.h"
namespace glint::cpu {
void registerMatMulKernels(const std::string& backend) {}
}  // namespace glint::cpu
