#pragma once
// OpenGL ES 3.0 natively (EGL), WebGL2 under Emscripten: the same entry points.
// Natively they are pointers loaded at run time (gl_loader.h).
#ifndef __EMSCRIPTEN__
#include "src/backends/gl/gl_loader.h"
#else
#include <GLES3/gl3.h>
#include <webgl/webgl2.h>  // glGetBufferSubData: WebGL2 has no glMapBufferRange

// WebGL forbids client waits with a timeout (INVALID_OPERATION, which later
// GL error checks would blame on something else) and signals fences only
// between tasks, so a blocking wait could never end: it returns at once there,
// and the read that follows (glGetBufferSubData) blocks until the data is ready.
inline GLenum glintClientWaitSync(GLsync sync, GLbitfield flags, GLuint64 timeout) {
  return timeout == 0 ? glClientWaitSync(sync, flags, 0) : GL_CONDITION_SATISFIED;
}
#define glClientWaitSync glintClientWaitSync
#endif
