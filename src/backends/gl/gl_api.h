#pragma once
// OpenGL ES 3.0 natively (EGL), WebGL2 under Emscripten: the same entry points.
#include <GLES3/gl3.h>
#ifdef __EMSCRIPTEN__
#include <webgl/webgl2.h>  // glGetBufferSubData: WebGL2 has no glMapBufferRange
#endif
