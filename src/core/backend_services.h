#pragma once
// What backends and ops may ask of the engine, declared in one place: the
// backends by name, the active one, gradient recording on the calling thread,
// and the kernel registry's entries of one backend. The rest of the engine's
// state (src/core/engine_state.h) is core's own: scripts/check_layers.mjs
// fails on a file outside core that includes it.
#include <functional>
#include <string>

#include "glint/backend.h"

namespace glint {

/// The backend registered as `name`, created on first use; null when none is
/// registered or its probe failed (whyBackendUnavailable says which).
Backend* backendNamed(const std::string& name);

/// Why backendNamed(name) gives null: its probe's reason, or "not registered".
std::string whyBackendUnavailable(const std::string& name);

/// The backend kernels run on now (the engine chooses one on first use).
Backend& activeBackend();

/// True while a gradient tape on this thread records kernel calls: an op whose
/// gradient needs an extra output asks for it only then.
bool recordingGradients();

/// Pauses tape recording on this thread for its lifetime: a kernel made of
/// other kernels (an LSTM sequence as steps) is recorded once, as itself.
struct RecordingPause {
  RecordingPause();
  ~RecordingPause();
  RecordingPause(const RecordingPause&) = delete;
  RecordingPause& operator=(const RecordingPause&) = delete;
};

/// Replaces every kernel registered for `backend` by wrap(kernelName, kernel)
/// (which may return it unchanged). For a backend's start-up, after its kernels
/// are registered and before any runs.
void wrapKernels(const std::string& backend,
                 const std::function<KernelFn(const std::string& kernel, KernelFn run)>& wrap);

}  // namespace glint
