#include "src/backends/reference/kernels.h"
namespace glint::reference {
void registerConvKernels(const std::string& backend) {}
}  // namespace glint::reference
