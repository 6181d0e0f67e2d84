#pragma once
// The GL context the gl backend draws with: EGL without a display natively
// (Mesa surfaceless, then the default display), a WebGL2 context in the browser.
#include <string>

namespace glint::gl {

struct ContextInfo {
  std::string renderer;       // GL_RENDERER
  std::string version;        // GL_VERSION
  int maxTextureSize = 0;
  bool colorBufferFloat = false;  // EXT_color_buffer_float (not needed: we render to RGBA32UI)
  bool software = false;          // llvmpipe, SwiftShader, softpipe...
};

/// Creates the context and makes it current on this thread. Returns false and
/// says why (no EGL display, no ES 3.0, no WebGL2 in node...) on failure.
bool createContext(ContextInfo& info, std::string& whyNot);
/// Makes the context current again (other code may have switched it).
void makeCurrent();

}  // namespace glint::gl
