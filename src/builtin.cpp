// The composition root: registers the gradients (src/ops) and every backend
// compiled into this build. The one file of src/ that sits above both ops and
// backends (scripts/check_layers.mjs); the engine calls it once, on first use.
#include "src/backends/builtin.h"

#include "src/core/engine_state.h"
#include "src/ops/gradients.h"

namespace glint {

void registerBuiltins() {
  registerAllGradients();
  registerReferenceBackend();
  registerCpuBackend();
#ifdef GLINT_WITH_GL
  registerGlBackend();
#endif
#ifdef GLINT_WITH_WEBGPU
  registerWebGpuBackend();
#endif
}

}  // namespace glint
