#include "src/backends/builtin.h"
#include "src/backends/cpu/kernels.h"
#include "src/backends/host/host_backend.h"
#include "src/backends/reference/kernels.h"

namespace glint {

void registerCpuBackend() {
  registerBackend("cpu", 100,
                  [](std::string&) { return std::make_unique<HostBackend>("cpu", "host CPU"); });
  // Starts from the reference loops; the families below replace them with
  // faster kernels (the cpu backend issue replaces the rest).
  reference::registerAllKernels("cpu");
  cpu::registerFastKernels("cpu");
}

}  // namespace glint
