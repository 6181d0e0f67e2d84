#include "src/backends/gl/context.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "src/backends/gl/gl_api.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/em_js.h>
#include <emscripten/html5.h>
#else
#include <EGL/eglext.h>  // egl.h came through gl_api.h, without prototypes
#endif

namespace glint::gl {

namespace {

bool contains(const char* list, const char* word) {
  if (!list) return false;
  size_t n = std::strlen(word);
  for (const char* p = std::strstr(list, word); p; p = std::strstr(p + 1, word))
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

bool hasGlExtension(const char* name) {
  GLint n = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &n);
  for (GLint i = 0; i < n; ++i) {
    const char* e = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, i));
    if (e && std::strcmp(e, name) == 0) return true;
  }
  return false;
}

std::string glString(GLenum name) {
  const char* s = reinterpret_cast<const char*>(glGetString(name));
  return s ? s : "";
}

#ifdef __EMSCRIPTEN__

// A WebGL2 context on an OffscreenCanvas (workers, pages) or a page canvas,
// handed to Emscripten's GL layer. Node has neither: 0 means "no WebGL here".
// JavaScript inside: clang-format would split its !== and ===.
// clang-format off
EM_JS(int, glint_create_webgl2, (), {
  var canvas = null;
  if (typeof OffscreenCanvas !== 'undefined') canvas = new OffscreenCanvas(1, 1);
  else if (typeof document !== 'undefined') canvas = document.createElement('canvas');
  if (!canvas) return 0;
  var attrs = {alpha: true, antialias: false, depth: false, stencil: false,
               premultipliedAlpha: false, preserveDrawingBuffer: false};
  var ctx = canvas.getContext('webgl2', attrs);
  if (!ctx) return -1;
  return GL.registerContext(ctx, {majorVersion: 2, minorVersion: 0,
                                  enableExtensionsByDefault: true});
});
// clang-format on

// The real renderer behind the browser's "WebKit WebGL" (SwiftShader, ANGLE...).
// JavaScript inside: clang-format would split its !== and ===.
// clang-format off
EM_JS(char*, glint_unmasked_renderer, (), {
  var gl = GL.currentContext ? GL.currentContext.GLctx : null;
  var s = '';
  if (gl) {
    var ext = gl.getExtension('WEBGL_debug_renderer_info');
    if (ext) s = gl.getParameter(ext.UNMASKED_RENDERER_WEBGL) || '';
  }
  var n = lengthBytesUTF8(s) + 1;
  var p = _malloc(n);
  stringToUTF8(s, p, n);
  return p;
});
// clang-format on

int gHandle = 0;

// preventDefault lets the browser restore the context; Glint makes a new one
// at once instead (a synchronous training step cannot wait for the event).
// JavaScript inside: clang-format would split its !== and ===.
// clang-format off
EM_JS(void, glint_watch_context_loss, (), {
  var gl = GL.currentContext ? GL.currentContext.GLctx : null;
  if (!gl || !gl.canvas || !gl.canvas.addEventListener) return;
  gl.canvas.addEventListener('webglcontextlost', function(e) {
    e.preventDefault();
    Module['glintContextLosses'] = (Module['glintContextLosses'] || 0) + 1;
  }, false);
});
// clang-format on

// JavaScript inside: clang-format would split its !== and ===.
// clang-format off
EM_JS(int, glint_context_is_lost, (), {
  var gl = GL.currentContext ? GL.currentContext.GLctx : null;
  return gl && gl.isContextLost() ? 1 : 0;
});
// clang-format on

// JavaScript inside: clang-format would split its !== and ===.
// clang-format off
EM_JS(void, glint_lose_context, (), {
  var gl = GL.currentContext ? GL.currentContext.GLctx : null;
  var ext = gl ? gl.getExtension('WEBGL_lose_context') : null;
  if (ext) ext.loseContext();
});
// clang-format on

bool createPlatformContext(std::string& whyNot) {
  int handle = glint_create_webgl2();
  if (handle == 0) {
    whyNot = "no WebGL in this environment (no OffscreenCanvas or document, e.g. node)";
    return false;
  }
  if (handle < 0) {
    whyNot = "the browser refused a WebGL2 context";
    return false;
  }
  gHandle = handle;
  if (emscripten_webgl_make_context_current(handle) != EMSCRIPTEN_RESULT_SUCCESS) {
    whyNot = "could not make the WebGL2 context current";
    return false;
  }
  glint_watch_context_loss();
  return true;
}

std::string platformRenderer() {
  char* s = glint_unmasked_renderer();
  std::string r = s ? s : "";
  std::free(s);
  return r;
}

#else

EGLDisplay gDisplay = EGL_NO_DISPLAY;
EGLContext gContext = EGL_NO_CONTEXT;
EGLSurface gSurface = EGL_NO_SURFACE;

/// Candidate displays, most specific first: Mesa surfaceless, the first EGL
/// device (NVIDIA headless), then the default display.
std::vector<EGLDisplay> candidateDisplays() {
  std::vector<EGLDisplay> out;
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  auto getPlatformDisplay = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
      eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (getPlatformDisplay && contains(client, "EGL_MESA_platform_surfaceless")) {
    EGLDisplay d = getPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (d != EGL_NO_DISPLAY) out.push_back(d);
  }
  auto queryDevices =
      reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  if (getPlatformDisplay && queryDevices && contains(client, "EGL_EXT_platform_device")) {
    EGLDeviceEXT devices[8];
    EGLint n = 0;
    if (queryDevices(8, devices, &n) && n > 0) {
      EGLDisplay d = getPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, devices[0], nullptr);
      if (d != EGL_NO_DISPLAY) out.push_back(d);
    }
  }
  EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
  if (d != EGL_NO_DISPLAY) out.push_back(d);
  return out;
}

bool tryDisplay(EGLDisplay d, std::string& why) {
  EGLint major = 0, minor = 0;
  if (!eglInitialize(d, &major, &minor)) {
    why = "eglInitialize failed";
    return false;
  }
  const char* ext = eglQueryString(d, EGL_EXTENSIONS);
  if (!eglBindAPI(EGL_OPENGL_ES_API)) {
    why = "EGL has no OpenGL ES API";
    return false;
  }
  const EGLint configAttrs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE,
                                EGL_PBUFFER_BIT, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint count = 0;
  eglChooseConfig(d, configAttrs, &config, 1, &count);
  bool surfaceless = contains(ext, "EGL_KHR_surfaceless_context");
  if (count == 0) {
    if (!contains(ext, "EGL_KHR_no_config_context") || !surfaceless) {
      why = "no EGL config for OpenGL ES 3 and no configless surfaceless context";
      return false;
    }
    config = EGL_NO_CONFIG_KHR;
  }
  const EGLint contextAttrs[] = {EGL_CONTEXT_CLIENT_VERSION, 3, EGL_NONE};
  EGLContext ctx = eglCreateContext(d, config, EGL_NO_CONTEXT, contextAttrs);
  if (ctx == EGL_NO_CONTEXT) {
    why = "eglCreateContext(OpenGL ES 3) failed";
    return false;
  }
  EGLSurface surface = EGL_NO_SURFACE;
  if (!surfaceless) {
    const EGLint pbufferAttrs[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    surface = eglCreatePbufferSurface(d, config, pbufferAttrs);
  }
  if (!eglMakeCurrent(d, surface, surface, ctx)) {
    eglDestroyContext(d, ctx);
    why = "eglMakeCurrent failed";
    return false;
  }
  gDisplay = d;
  gContext = ctx;
  gSurface = surface;
  return true;
}

bool createPlatformContext(std::string& whyNot) {
  // libEGL / libGLESv2 missing: gl is unavailable with the reason, cpu runs.
  if (!loadLibraries(whyNot)) return false;
  std::vector<EGLDisplay> displays = candidateDisplays();
  if (displays.empty()) {
    whyNot = "no EGL display";
    return false;
  }
  std::string reasons;
  for (EGLDisplay d : displays) {
    std::string why;
    if (tryDisplay(d, why)) return true;
    reasons += (reasons.empty() ? "" : "; ") + why;
  }
  whyNot = "no OpenGL ES 3 context through EGL: " + reasons;
  return false;
}

std::string platformRenderer() { return ""; }

#endif

}  // namespace

bool createContext(ContextInfo& info, std::string& whyNot) {
  if (!createPlatformContext(whyNot)) return false;
  info.renderer = platformRenderer();
  if (info.renderer.empty()) info.renderer = glString(GL_RENDERER);
  info.version = glString(GL_VERSION);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &info.maxTextureSize);
  GLint drawBuffers = 1, attachments = 1;
  glGetIntegerv(GL_MAX_DRAW_BUFFERS, &drawBuffers);
  glGetIntegerv(GL_MAX_COLOR_ATTACHMENTS, &attachments);
  info.maxDrawBuffers = std::max(1, std::min({drawBuffers, attachments, 8}));
  info.colorBufferFloat =
      hasGlExtension("GL_EXT_color_buffer_float") || hasGlExtension("EXT_color_buffer_float");
  for (const char* soft : {"llvmpipe", "softpipe", "SwiftShader", "swiftshader", "Software"})
    if (info.renderer.find(soft) != std::string::npos) info.software = true;
  return true;
}

#ifdef __EMSCRIPTEN__
bool contextIsLost() { return gHandle && glint_context_is_lost(); }
void forceContextLoss() {
  if (gHandle) glint_lose_context();
}
void destroyContext() {
  if (gHandle) emscripten_webgl_destroy_context(gHandle);
  gHandle = 0;
}
#else
bool contextIsLost() { return false; }
void forceContextLoss() { destroyContext(); }
void destroyContext() {
  if (gContext == EGL_NO_CONTEXT) return;
  eglMakeCurrent(gDisplay, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (gSurface != EGL_NO_SURFACE) eglDestroySurface(gDisplay, gSurface);
  eglDestroyContext(gDisplay, gContext);
  gContext = EGL_NO_CONTEXT;
  gSurface = EGL_NO_SURFACE;
}
#endif

void makeCurrent() {
#ifdef __EMSCRIPTEN__
  if (gHandle) emscripten_webgl_make_context_current(gHandle);
#else
  if (gContext != EGL_NO_CONTEXT) eglMakeCurrent(gDisplay, gSurface, gSurface, gContext);
#endif
}

}  // namespace glint::gl
