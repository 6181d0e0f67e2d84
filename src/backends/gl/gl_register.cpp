#include <cstdlib>
#include <cstring>

#include "src/backends/builtin.h"
#include "src/backends/gl/gl_backend.h"
#include "src/backends/gl/kernels.h"

namespace glint {

void registerGlBackend() {
  // GLINT_GL=0 leaves it out (no EGL/WebGL probe at start-up). In a browser
  // a GPU beats wasm, so gl ranks first there (webgpu > webgl > wasm); natively
  // cpu ranks first: small models train faster on the host than through
  // fragment shaders. Software renderers are never picked automatically
  // while cpu works (Engine::active).
#ifdef __EMSCRIPTEN__
  constexpr int kPriority = 150;
#else
  constexpr int kPriority = 50;
#endif
  const char* env = std::getenv("GLINT_GL");
  if (env && std::strcmp(env, "0") == 0) return;
  registerBackend("gl", kPriority, [](std::string& whyNot) -> std::unique_ptr<Backend> {
    return gl::GlBackend::create(whyNot);
  });
  gl::registerElementwiseKernels();
  gl::registerReductionKernels();
  gl::registerMatMulKernels();
  gl::registerShapeKernels();
  gl::registerConvKernels();
  gl::registerOptimKernels();
  gl::registerRnnKernels();
}

}  // namespace glint
