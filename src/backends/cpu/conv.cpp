#include "src/backends/cpu/kernels.h"
namespace glint::cpu {
void registerConvKernels(const std::string& backend) {}
}  // namespace glint::cpu
