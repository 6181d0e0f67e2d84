#pragma once
// The gl backend: tensors live in RGBA32UI textures holding the buffer's raw
// bytes (16 per texel), so every dtype is bit-exact, reshape views share one
// texture, and nothing needs EXT_color_buffer_float. Each kernel is one
// fragment-shader draw per output; shaders reinterpret words by dtype.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "glint/backend.h"
#include "src/backends/gl/context.h"
#include "src/backends/gl/gl_api.h"

namespace glint::gl {

/// Texel extent of a buffer: texel t sits at (t & (width-1), t >> shift).
/// It depends only on the byte count, so views of any shape agree.
struct Extent {
  int width = 0;   // a power of two
  int shift = 0;   // log2(width)
  int height = 0;
  int64_t texels = 0;
};
Extent extentFor(size_t bytes, int maxTextureSize);

/// One buffer: a texture (absent for 0 bytes) and its framebuffer.
struct Texture {
  GLuint tex = 0;
  GLuint fbo = 0;
  Extent extent;
  size_t bytes = 0;
};

struct Program {
  GLuint id = 0;
  GLint params = -1;  // uniform float u_params[], when the shader declares it
};

class GlBackend : public Backend {
 public:
  /// Creates the context and runs the precision self-test; null + why on failure.
  static std::unique_ptr<GlBackend> create(std::string& whyNot);
  ~GlBackend() override;

  const std::string& name() const override { return name_; }
  void* allocate(size_t bytes) override;
  void write(void* handle, const void* src, size_t bytes) override;
  void read(void* handle, void* dst, size_t bytes) override;
  void release(void* handle, size_t bytes) override;
  int64_t bytesInUse() const override { return liveBytes_ + pooledBytes_; }
  std::string description() const override;
  bool isSoftware() const override { return info_.software; }
  int64_t numAllocations() const override { return numAllocations_; }
  int64_t numPoolHits() const override { return numPoolHits_; }
  void releaseUnused() override;

  const ContextInfo& info() const { return info_; }
  /// llvmpipe silently ends a shader's outermost loop (nested ones included)
  /// after 65535 iterations: a kernel needing more per fragment fails loudly.
  void checkLoop(const std::string& kernel, int64_t iterations) const;
  Extent extent(size_t bytes) const { return extentFor(bytes, info_.maxTextureSize); }
  /// The program for a fragment shader source (compiled once, cached by source).
  const Program& program(const std::string& fragmentSource);
  /// Values for the next draw's `uniform float u_params[N]`: per-step scalars
  /// (learning rates, bias corrections) that must not become new programs.
  void setParams(std::vector<float> params) { params_ = std::move(params); }
  /// Draws `program` into `out`, inputs bound to texture units 0..n-1.
  void draw(const Program& program, const std::vector<const Texture*>& inputs, Texture& out);
  /// Starts an asynchronous read: a pixel-pack buffer and a fence.
  struct PendingRead {
    GLuint pbo = 0;
    GLsync fence = nullptr;
    size_t bytes = 0;
  };
  PendingRead startRead(const Texture& t);
  bool poll(PendingRead& r);
  void finishRead(PendingRead& r, void* dst);

  size_t pooledTextures() const;

 private:
  GlBackend() = default;
  bool init(std::string& whyNot);
  bool selfTest(std::string& whyNot);
  void ensureFramebuffer(Texture& t);
  void readInto(const Texture& t, void* dst, size_t bytes);
  void destroy(Texture* t);

  std::string name_ = "gl";
  ContextInfo info_;
  GLuint vao_ = 0;
  GLuint vertexShader_ = 0;
  GLuint dummy_ = 0;       // bound where an input has no texture (0 bytes)
  GLuint unpackPbo_ = 0;
  std::unordered_map<std::string, Program> programs_;
  // Released textures by extent, reused by the next allocation of that extent.
  std::multimap<std::pair<int, int>, Texture*> pool_;
  int64_t liveBytes_ = 0;
  int64_t pooledBytes_ = 0;
  int64_t numAllocations_ = 0;
  int64_t numPoolHits_ = 0;
  std::vector<float> params_;
  GLuint boundFbo_ = 0;
  GLuint boundProgram_ = 0;
};

/// The texture behind a tensor on the gl backend.
inline Texture& textureOf(const Tensor& t) {
  return *static_cast<Texture*>(t.impl()->storage->handle);
}
inline GlBackend& glBackend(KernelArgs& args) { return static_cast<GlBackend&>(args.backend); }

}  // namespace glint::gl
