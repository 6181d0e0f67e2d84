#include <cstdlib>
#include <cstring>

#include "glint/engine.h"
#include "src/backends/builtin.h"
#include "src/backends/gl/gl_backend.h"
#include "src/backends/gl/kernels.h"
#include "src/core/backend_services.h"

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
  // Float16 activations: every gl kernel's float32 outputs are drawn into
  // half textures, but the optimizer updates', which are variables and their
  // state (kept in float32: small updates vanish in float16).
  wrapKernels("gl", [](const std::string& kernel, KernelFn run) -> KernelFn {
    if (kernel.rfind("Apply", 0) == 0) return run;
    return [run](KernelArgs& args) {
      if (float16Activations())
        for (Tensor& out : args.outputs)
          if (out.dtype() == DType::float32)
            static_cast<gl::GlBackend&>(args.backend).toHalf(gl::textureOf(out));
      run(args);
    };
  });
}

}  // namespace glint
