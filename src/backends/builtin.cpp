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
}

}  // namespace glint
