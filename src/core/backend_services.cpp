// The engine's declared services for backends and ops (backend_services.h),
// over its internal state.
#include "src/core/backend_services.h"

#include "src/core/engine_state.h"

namespace glint {

Backend* backendNamed(const std::string& name) { return Engine::get().backend(name); }

std::string whyBackendUnavailable(const std::string& name) {
  Engine& e = Engine::get();
  std::lock_guard<std::recursive_mutex> lock(e.backendMutex);
  const BackendEntry* entry = e.entry(name);
  return entry ? entry->whyNot : "not registered";
}

Backend& activeBackend() { return Engine::get().active(); }

bool recordingGradients() { return threadState().recording(); }

RecordingPause::RecordingPause() { ++threadState().recordingPaused; }
RecordingPause::~RecordingPause() { --threadState().recordingPaused; }

void wrapKernels(const std::string& backend,
                 const std::function<KernelFn(const std::string& kernel, KernelFn run)>& wrap) {
  Engine& e = Engine::get();
  std::unique_lock<std::shared_mutex> lock(e.registryMutex);
  for (auto& [kernel, byBackend] : e.kernels) {
    auto it = byBackend.find(backend);
    if (it != byBackend.end()) it->second = wrap(kernel, it->second);
  }
}

}  // namespace glint
