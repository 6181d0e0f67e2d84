#include <cstdlib>
#include <cstring>

#include "src/backends/builtin.h"
#include "src/backends/gl/gl_backend.h"
#include "src/backends/gl/kernels.h"

namespace glint {

void registerGlBackend() {
  // gl does not have every kernel yet, and the rule is every kernel on every
  // backend: until it does, it registers only when GLINT_GL=1 (the default
  // suite and kernel table stay complete). Below cpu: llvmpipe is slow.
  const char* env = std::getenv("GLINT_GL");
  if (!env || std::strcmp(env, "1") != 0) return;
  registerBackend("gl", 50, [](std::string& whyNot) -> std::unique_ptr<Backend> {
    return gl::GlBackend::create(whyNot);
  });
  gl::registerElementwiseKernels();
  gl::registerReductionKernels();
  gl::registerMatMulKernels();
  gl::registerShapeKernels();
  gl::registerConvKernels();
  gl::registerOptimKernels();
}

}  // namespace glint
