#pragma once
// Natively libEGL and libGLESv2 are loaded at run time (dlopen), so a program
// linking libglint.a needs neither to link or run; without them gl is just
// unavailable. Every entry point the gl backend uses is a pointer in namespace
// glint, found unqualified by the call sites (glGenBuffers(...)) as before.
// Under Emscripten (WebGL2) the calls stay direct: this header is empty there.
#ifndef __EMSCRIPTEN__

#include <string>

// No global prototypes: nothing may reference libEGL/libGLESv2 at link time.
#ifndef GL_GLES_PROTOTYPES
#define GL_GLES_PROTOTYPES 0
#endif
#ifndef EGL_EGL_PROTOTYPES
#define EGL_EGL_PROTOTYPES 0
#endif
#ifndef EGL_NO_X11
#define EGL_NO_X11  // older eglplatform.h would pull in Xlib.h's macros
#endif
#include <EGL/egl.h>
#include <GLES3/gl3.h>

// X(pointer type, name): the EGL 1.4 entry points used (context.cpp);
// extensions go through eglGetProcAddress there.
#define GLINT_EGL_FUNCTIONS(X)                               \
  X(PFNEGLGETPROCADDRESSPROC, eglGetProcAddress)             \
  X(PFNEGLBINDAPIPROC, eglBindAPI)                           \
  X(PFNEGLCHOOSECONFIGPROC, eglChooseConfig)                 \
  X(PFNEGLCREATECONTEXTPROC, eglCreateContext)               \
  X(PFNEGLCREATEPBUFFERSURFACEPROC, eglCreatePbufferSurface) \
  X(PFNEGLDESTROYCONTEXTPROC, eglDestroyContext)             \
  X(PFNEGLDESTROYSURFACEPROC, eglDestroySurface)             \
  X(PFNEGLGETDISPLAYPROC, eglGetDisplay)                     \
  X(PFNEGLINITIALIZEPROC, eglInitialize)                     \
  X(PFNEGLMAKECURRENTPROC, eglMakeCurrent)                   \
  X(PFNEGLQUERYSTRINGPROC, eglQueryString)

// The OpenGL ES 3.0 entry points used by src/backends/gl.
#define GLINT_GLES_FUNCTIONS(X)                                    \
  X(PFNGLACTIVETEXTUREPROC, glActiveTexture)                       \
  X(PFNGLATTACHSHADERPROC, glAttachShader)                         \
  X(PFNGLBINDBUFFERPROC, glBindBuffer)                             \
  X(PFNGLBINDFRAMEBUFFERPROC, glBindFramebuffer)                   \
  X(PFNGLBINDTEXTUREPROC, glBindTexture)                           \
  X(PFNGLBINDVERTEXARRAYPROC, glBindVertexArray)                   \
  X(PFNGLBUFFERDATAPROC, glBufferData)                             \
  X(PFNGLBUFFERSUBDATAPROC, glBufferSubData)                       \
  X(PFNGLCHECKFRAMEBUFFERSTATUSPROC, glCheckFramebufferStatus)     \
  X(PFNGLCLIENTWAITSYNCPROC, glClientWaitSync)                     \
  X(PFNGLCOMPILESHADERPROC, glCompileShader)                       \
  X(PFNGLCREATEPROGRAMPROC, glCreateProgram)                       \
  X(PFNGLCREATESHADERPROC, glCreateShader)                         \
  X(PFNGLDELETEBUFFERSPROC, glDeleteBuffers)                       \
  X(PFNGLDELETEFRAMEBUFFERSPROC, glDeleteFramebuffers)             \
  X(PFNGLDELETEPROGRAMPROC, glDeleteProgram)                       \
  X(PFNGLDELETESHADERPROC, glDeleteShader)                         \
  X(PFNGLDELETESYNCPROC, glDeleteSync)                             \
  X(PFNGLDELETETEXTURESPROC, glDeleteTextures)                     \
  X(PFNGLDISABLEPROC, glDisable)                                   \
  X(PFNGLDRAWARRAYSPROC, glDrawArrays)                             \
  X(PFNGLDRAWBUFFERSPROC, glDrawBuffers)                           \
  X(PFNGLFENCESYNCPROC, glFenceSync)                               \
  X(PFNGLFINISHPROC, glFinish)                                     \
  X(PFNGLFLUSHPROC, glFlush)                                       \
  X(PFNGLFRAMEBUFFERTEXTURE2DPROC, glFramebufferTexture2D)         \
  X(PFNGLGENBUFFERSPROC, glGenBuffers)                             \
  X(PFNGLGENFRAMEBUFFERSPROC, glGenFramebuffers)                   \
  X(PFNGLGENTEXTURESPROC, glGenTextures)                           \
  X(PFNGLGENVERTEXARRAYSPROC, glGenVertexArrays)                   \
  X(PFNGLGETERRORPROC, glGetError)                                 \
  X(PFNGLGETINTEGERVPROC, glGetIntegerv)                           \
  X(PFNGLGETPROGRAMINFOLOGPROC, glGetProgramInfoLog)               \
  X(PFNGLGETPROGRAMIVPROC, glGetProgramiv)                         \
  X(PFNGLGETSHADERINFOLOGPROC, glGetShaderInfoLog)                 \
  X(PFNGLGETSHADERPRECISIONFORMATPROC, glGetShaderPrecisionFormat) \
  X(PFNGLGETSHADERIVPROC, glGetShaderiv)                           \
  X(PFNGLGETSTRINGPROC, glGetString)                               \
  X(PFNGLGETSTRINGIPROC, glGetStringi)                             \
  X(PFNGLGETUNIFORMLOCATIONPROC, glGetUniformLocation)             \
  X(PFNGLLINKPROGRAMPROC, glLinkProgram)                           \
  X(PFNGLMAPBUFFERRANGEPROC, glMapBufferRange)                     \
  X(PFNGLPIXELSTOREIPROC, glPixelStorei)                           \
  X(PFNGLREADPIXELSPROC, glReadPixels)                             \
  X(PFNGLSHADERSOURCEPROC, glShaderSource)                         \
  X(PFNGLTEXPARAMETERIPROC, glTexParameteri)                       \
  X(PFNGLTEXSTORAGE2DPROC, glTexStorage2D)                         \
  X(PFNGLTEXSUBIMAGE2DPROC, glTexSubImage2D)                       \
  X(PFNGLUNIFORM1FVPROC, glUniform1fv)                             \
  X(PFNGLUNIFORM1IPROC, glUniform1i)                               \
  X(PFNGLUNIFORM1IVPROC, glUniform1iv)                             \
  X(PFNGLUNMAPBUFFERPROC, glUnmapBuffer)                           \
  X(PFNGLUSEPROGRAMPROC, glUseProgram)                             \
  X(PFNGLVIEWPORTPROC, glViewport)

namespace glint {

#define GLINT_GL_DECLARE(type, name) extern type name;
GLINT_EGL_FUNCTIONS(GLINT_GL_DECLARE)
GLINT_GLES_FUNCTIONS(GLINT_GL_DECLARE)
#undef GLINT_GL_DECLARE

namespace gl {

/// Loads libEGL and libGLESv2 and resolves every pointer above, once per
/// process (thread-safe; later calls give the first call's answer). False with
/// the reason (library and dlerror, or the first missing symbol) on failure.
/// GLINT_EGL_LIBRARY / GLINT_GLES_LIBRARY name other files to load instead.
bool loadLibraries(std::string& whyNot);

}  // namespace gl
}  // namespace glint

#endif  // __EMSCRIPTEN__
