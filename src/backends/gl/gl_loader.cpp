#ifndef __EMSCRIPTEN__  // WebGL2 is called directly

#include "src/backends/gl/gl_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace glint {

#define GLINT_GL_DEFINE(type, name) type name = nullptr;
GLINT_EGL_FUNCTIONS(GLINT_GL_DEFINE)
GLINT_GLES_FUNCTIONS(GLINT_GL_DEFINE)
#undef GLINT_GL_DEFINE

namespace gl {
namespace {

struct Library {
  void* handle = nullptr;
  std::string name;  // the file that was opened, for messages
};

/// The file named by `envVar` if set (only it), else the first of `names`
/// that opens. On failure `why` names each file tried and dlerror's answer.
Library openLibrary(const char* envVar, std::vector<const char*> names, std::string& why) {
  const char* custom = std::getenv(envVar);
  if (custom && *custom) names = {custom};
  std::string tried, errors;
  for (const char* name : names) {
    // RTLD_LOCAL: the driver's symbols stay out of the program's namespace.
    if (void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return {h, name};
    const char* e = dlerror();
    tried += (tried.empty() ? "" : " or ") + std::string(name);
    errors += (errors.empty() ? "" : "; ") + std::string(e ? e : name);
  }
  why = "cannot load " + tried;
  if (custom && *custom) why += std::string(" (set by ") + envVar + ")";
  why += ": " + errors;
  return {};
}

template <class Fn>
bool resolve(const Library& lib, const char* symbol, Fn& fn, std::string& why) {
  void* p = dlsym(lib.handle, symbol);
  // Some installs hand out entry points only through eglGetProcAddress.
  if (!p && eglGetProcAddress) p = reinterpret_cast<void*>(eglGetProcAddress(symbol));
  fn = reinterpret_cast<Fn>(p);
  if (!p) why = lib.name + " has no " + symbol + " (needs EGL 1.4 and OpenGL ES 3.0)";
  return p != nullptr;
}

void clear() {
#define GLINT_GL_CLEAR(type, name) name = nullptr;
  GLINT_EGL_FUNCTIONS(GLINT_GL_CLEAR)
  GLINT_GLES_FUNCTIONS(GLINT_GL_CLEAR)
#undef GLINT_GL_CLEAR
}

/// Empty on success, else why not.
std::string load() {
  std::string why;
  Library egl = openLibrary("GLINT_EGL_LIBRARY", {"libEGL.so.1", "libEGL.so"}, why);
  if (!egl.handle) return why;
  Library gles = openLibrary("GLINT_GLES_LIBRARY", {"libGLESv2.so.2", "libGLESv2.so"}, why);
  bool ok = gles.handle != nullptr;
#define GLINT_GL_RESOLVE_EGL(type, name) ok = ok && resolve(egl, #name, name, why);
#define GLINT_GL_RESOLVE_GLES(type, name) ok = ok && resolve(gles, #name, name, why);
  GLINT_EGL_FUNCTIONS(GLINT_GL_RESOLVE_EGL)
  GLINT_GLES_FUNCTIONS(GLINT_GL_RESOLVE_GLES)
#undef GLINT_GL_RESOLVE_EGL
#undef GLINT_GL_RESOLVE_GLES
  if (ok) return "";  // the libraries stay loaded for the process's life
  clear();
  if (gles.handle) dlclose(gles.handle);
  dlclose(egl.handle);
  return why;
}

}  // namespace

bool loadLibraries(std::string& whyNot) {
  static std::once_flag once;
  static std::string error;
  std::call_once(once, [] { error = load(); });
  if (!error.empty()) whyNot = error;
  return error.empty();
}

}  // namespace gl
}  // namespace glint

#endif  // __EMSCRIPTEN__
