#pragma once
// The GL context the gl backend draws with: EGL without a display natively
// (Mesa surfaceless, then the default display), a WebGL2 context in the browser.
#include <string>

namespace glint::gl {

struct ContextInfo {
  std::string renderer;  // GL_RENDERER
  std::string version;   // GL_VERSION
  int maxTextureSize = 0;
  int maxDrawBuffers = 1;         // outputs one draw can write (ES 3.0: at least 4)
  bool colorBufferFloat = false;  // EXT_color_buffer_float (not needed: we render to RGBA32UI)
  bool software = false;          // llvmpipe, SwiftShader, softpipe...
};

/// Creates the context and makes it current on this thread. Returns false and
/// says why (no EGL display, no ES 3.0, no WebGL2 in node...) on failure.
bool createContext(ContextInfo& info, std::string& whyNot);
/// Makes the context current again (other code may have switched it).
void makeCurrent();

// Context loss. In the browser a WebGL context can be lost at any time (GPU
// reset, tab in the background, WEBGL_lose_context); natively it is simulated.
/// True once the browser reports the current context lost (natively: false).
bool contextIsLost();
/// Forces a loss: WEBGL_lose_context in the browser; natively the EGL context
/// is destroyed (every object in it is gone, as after a real loss).
void forceContextLoss();
/// Lets go of a lost context before createContext makes a new one.
void destroyContext();

}  // namespace glint::gl
