#include "src/backends/builtin.h"
#include "src/backends/host/host_backend.h"
#include "src/backends/reference/kernels.h"

namespace glint {

void registerReferenceBackend() {
  // Lowest priority: the oracle is chosen only when asked for, or as a last resort.
  registerBackend("reference", 0, [](std::string&) {
    return std::make_unique<HostBackend>("reference", "plain scalar loops (test oracle)");
  });
  reference::registerAllKernels("reference");
}

}  // namespace glint
