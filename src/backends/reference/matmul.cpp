#include "src/backends/reference/kernels.h"
namespace glint::reference {
void registerMatMulKernels(const std::string& backend) {}
}  // namespace glint::reference
