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
