#include <cstdlib>
#include <cstring>

#include "src/backends/builtin.h"
#include "src/backends/gl/gl_backend.h"
#include "src/backends/gl/kernels.h"

namespace glint {

void registerGlBackend() {
  // GLINT_GL=0 leaves it out (no EGL/WebGL probe at start-up). Below cpu
  // natively: on llvmpipe it is far slower; a browser build raises it.
  const char* env = std::getenv("GLINT_GL");
  if (env && std::strcmp(env, "0") == 0) return;
  registerBackend("gl", 50, [](std::string& whyNot) -> std::unique_ptr<Backend> {
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
