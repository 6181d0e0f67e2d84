#include "src/backends/reference/kernels.h"
namespace glint::reference {
void registerShapeKernels(const std::string& backend) {}
}  // namespace glint::reference
