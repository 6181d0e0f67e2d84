#include "src/backends/gl/gl_backend.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "glint/error.h"
#include "src/backends/gl/shader.h"
#include "src/backends/gpu/printer.h"

namespace glint::gl {

namespace {

// An attachment slot of the multi-output framebuffer that must be set again.
constexpr GLuint kStaleAttachment = ~GLuint{0};

// Released textures kept for reuse, at most this many bytes.
constexpr int64_t kPoolLimitBytes = int64_t{256} << 20;

const char* kVertexShader = R"(#version 300 es
// One triangle covering the viewport: (-1,-1), (3,-1), (-1,3).
void main() {
  vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
  gl_Position = vec4(p, 0.0, 1.0);
}
)";

int64_t extentBytes(const Extent& e) { return int64_t{e.width} * e.height * 16; }
/// GPU bytes of a texture: 16 per texel, 8 for float16 ones.
int64_t textureBytes(const Texture& t) { return extentBytes(t.extent) / (t.half ? 2 : 1); }

/// IEEE binary16 bits -> float32 (subnormals, inf and NaN included).
float halfToFloat(uint32_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    int e = -1;
    do {
      man <<= 1;
      ++e;
    } while (!(man & 0x400u));
    bits = sign | (static_cast<uint32_t>(112 - e) << 23) | ((man & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Read-back texels (4 uint32 components each) -> the buffer's bytes.
void unstage(const uint32_t* staged, bool half, void* dst, size_t bytes) {
  if (!half) {
    std::memcpy(dst, staged, bytes);
    return;
  }
  float* out = static_cast<float*>(dst);
  for (size_t i = 0; i < bytes / 4; ++i) out[i] = halfToFloat(staged[i] & 0xffffu);
}

GLuint compile(GLenum type, const std::string& source) {
  GLuint s = glCreateShader(type);
  const char* src = source.c_str();
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    GLint len = 0;
    glGetShaderiv(s, GL_INFO_LOG_LENGTH, &len);
    std::string log(static_cast<size_t>(std::max(len, 1)), '\0');
    glGetShaderInfoLog(s, len, nullptr, log.data());
    glDeleteShader(s);
    fail("gl", "shader compilation failed: ", log.c_str(), "\n", source);
  }
  return s;
}

}  // namespace

Extent extentFor(size_t bytes, int maxTextureSize) {
  Extent e;
  e.texels = static_cast<int64_t>((bytes + 15) / 16);
  if (e.texels == 0) return e;
  // Near-square keeps llvmpipe's tiles full; a power-of-two width makes the
  // texel -> (x, y) split a mask and a shift in every shader.
  int64_t side = static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(e.texels))));
  e.width = 1;
  while (e.width < side && e.width * 2 <= maxTextureSize) {
    e.width *= 2;
    ++e.shift;
  }
  int64_t height = (e.texels + e.width - 1) / e.width;
  check(height <= maxTextureSize, "gl", "a buffer of ", bytes, " bytes needs ", e.texels,
        " texels, more than fit in a ", maxTextureSize, "x", maxTextureSize, " texture");
  e.height = static_cast<int>(height);
  return e;
}

std::unique_ptr<GlBackend> GlBackend::create(std::string& whyNot) {
  std::unique_ptr<GlBackend> b(new GlBackend());
  if (!b->init(whyNot)) return nullptr;
  return b;
}

bool GlBackend::init(std::string& whyNot) {
  if (!createContext(info_, whyNot)) return false;
  if (info_.maxTextureSize < 2048) {
    whyNot = "MAX_TEXTURE_SIZE is " + std::to_string(info_.maxTextureSize) + ", need 2048";
    return false;
  }
  GLint range[2] = {0, 0}, precision = 0;
  glGetShaderPrecisionFormat(GL_FRAGMENT_SHADER, GL_HIGH_FLOAT, range, &precision);
  if (precision < 23) {
    whyNot = "fragment shaders lack highp float (precision " + std::to_string(precision) + " bits)";
    return false;
  }
  glGetShaderPrecisionFormat(GL_FRAGMENT_SHADER, GL_HIGH_INT, range, &precision);
  if (range[0] < 31) {
    whyNot = "fragment shaders lack 32-bit highp int";
    return false;
  }
  glGenVertexArrays(1, &vao_);
  glBindVertexArray(vao_);
  glDisable(GL_DITHER);
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glGenBuffers(1, &unpackPbo_);
  glGenTextures(1, &dummy_);
  glBindTexture(GL_TEXTURE_2D, dummy_);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32UI, 1, 1);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  try {
    vertexShader_ = compile(GL_VERTEX_SHADER, kVertexShader);
    return selfTest(whyNot);
  } catch (const std::exception& e) {
    whyNot = e.what();
    return false;
  }
}

GlBackend::~GlBackend() {
  // Live textures belong to tensors that may outlive the backend at exit;
  // the context goes with the process, so only the pool is freed here.
  releaseUnused();
}

void GlBackend::destroy(Texture* t) {
  // After a loss (or a failed recovery) the names belong to a dead context.
  if (!forcedLoss_ && !dead_ && !t->lost) {
    if (t->fbo) glDeleteFramebuffers(1, &t->fbo);
    if (t->tex) {
      glDeleteTextures(1, &t->tex);
      --glTextures_;
    }
    if (boundFbo_ == t->fbo) boundFbo_ = 0;
    // The multi-output framebuffer may still hold the deleted texture (WebGL
    // then calls it incomplete): its slot is set again at the next use.
    for (GLuint& a : attached_)
      if (a == t->tex) a = kStaleAttachment;
  }
  dropHostCopy(*t);
  delete t;
}

void GlBackend::releaseUnused() {
  if (std::this_thread::get_id() != owner_) {  // releaseUnusedMemory() on another thread
    releasePoolPending_ = true;                // the owner frees the pool at its next call
    return;
  }
  for (auto& entry : pool_) destroy(entry.second);
  pool_.clear();
  pooledBytes_ = 0;
}

void GlBackend::createTexture(Texture& t) {
  const Extent& e = t.extent;
  glGenTextures(1, &t.tex);
  glBindTexture(GL_TEXTURE_2D, t.tex);
  glTexStorage2D(GL_TEXTURE_2D, 1, t.half ? GL_RGBA16UI : GL_RGBA32UI, e.width, e.height);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  GLenum err = glGetError();
  if (err != GL_NO_ERROR) {
    glDeleteTextures(1, &t.tex);
    t.tex = 0;
    fail("gl", "could not allocate a ", e.width, "x", e.height, t.half ? " RGBA16UI" : " RGBA32UI",
         " texture (GL error 0x", std::hex, err, ")");
  }
  ++glTextures_;
  t.fbo = 0;
}

std::string GlBackend::description() const {
  return info_.renderer + " (" + info_.version + ", max texture " +
         std::to_string(info_.maxTextureSize) + ", EXT_color_buffer_float " +
         (info_.colorBufferFloat ? "yes" : "no") + ")";
}

void GlBackend::checkLoop(const std::string& kernel, int64_t iterations) const {
  if (info_.renderer.find("llvmpipe") == std::string::npos) return;
  check(iterations <= 65535, kernel, "needs ", iterations,
        " loop iterations in one fragment, but llvmpipe stops shader loops after 65535 and would "
        "return wrong values; use the cpu backend for this size");
}

// ---- buffers ---------------------------------------------------------------

Texture* GlBackend::takeTexture(const Extent& e, bool half) {
  Texture* t = nullptr;
  auto it = pool_.find({e.width, e.height, half});
  if (it != pool_.end()) {
    t = it->second;
    pooledBytes_ -= textureBytes(*t);
    pool_.erase(it);
    ++numPoolHits_;
  } else {
    t = new Texture();
    t->extent = e;
    t->half = half;
    if (e.texels > 0) {
      ++numAllocations_;
      try {
        createTexture(*t);
      } catch (...) {
        delete t;
        throw;
      }
    }
  }
  t->extent = e;
  liveBytes_ += textureBytes(*t);
  live_.insert(t);
  return t;
}

void* GlBackend::allocate(size_t bytes) {
  ensureContext(false);
  Texture* t = takeTexture(extent(bytes), false);
  t->bytes = bytes;
  return t;
}

void GlBackend::swapTextures(Texture& a, Texture& b) {
  std::swap(a.tex, b.tex);
  std::swap(a.fbo, b.fbo);
  std::swap(a.half, b.half);
}

void GlBackend::toHalf(Texture& t) {
  if (t.half || !t.tex || t.lost) return;
  // The other texture takes t's float32 GL objects back to the pool.
  Texture* other = takeTexture(t.extent, true);
  swapTextures(t, *other);
  other->bytes = t.bytes;
  release(other, other->bytes);
}

void GlBackend::toFull(Texture& t, bool keepContents) {
  if (!t.half || !t.tex || t.lost) return;
  Texture* other = takeTexture(t.extent, false);
  other->bytes = t.bytes;
  if (keepContents) {
    // The prelude widens float16 inputs; the output is float32.
    std::string source = prelude(std::vector<Operand>{Operand{&t, DType::float32}}) +
                         "float value(int i) { return in0(i); }\n" +
                         elementMain(*other, DType::float32);
    setCount(static_cast<int64_t>(t.bytes / 4));
    draw(program(source), {&t}, *other);
  }
  swapTextures(t, *other);
  release(other, other->bytes);
}

void GlBackend::release(void* handle, size_t) {
  Texture* t = static_cast<Texture*>(handle);
  if (!t) return;
  if (std::this_thread::get_id() != owner_) {  // a destructor must not throw
    std::lock_guard<std::mutex> lock(orphansMutex_);
    orphans_.push_back(t);
    orphansPending_.store(true, std::memory_order_release);
    return;
  }
  live_.erase(t);
  int64_t size = textureBytes(*t);
  if (t->lost || forcedLoss_ || dead_) {  // its memory went with the context
    if (!t->lost) liveBytes_ -= size;
    t->lost = true;
    destroy(t);
    return;
  }
  liveBytes_ -= size;
  dropHostCopy(*t);
  if (t->tex && pooledBytes_ + size <= kPoolLimitBytes) {
    pool_.emplace(std::make_tuple(t->extent.width, t->extent.height, t->half), t);
    pooledBytes_ += size;
    return;
  }
  destroy(t);
}

size_t GlBackend::pooledTextures() const { return pool_.size(); }

void GlBackend::ensureFramebuffer(Texture& t) {
  if (t.fbo) return;
  glGenFramebuffers(1, &t.fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, t.fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t.tex, 0);
  boundFbo_ = t.fbo;
  GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  check(status == GL_FRAMEBUFFER_COMPLETE, "gl", "an RGBA32UI framebuffer is incomplete (0x",
        std::hex, status, ")");
}

void GlBackend::write(void* handle, const void* src, size_t bytes) {
  ensureContext(false);
  Texture& t = *static_cast<Texture*>(handle);
  if (t.lost) failLost("a buffer being written");
  if (bytes == 0 || !t.tex) return;
  toFull(t, false);
  upload(t, src, bytes);
  // A host copy restores uploads (data, weights set from the host) after a loss.
  if (uploadCopies_ && counters_.hostCopyBytes + static_cast<int64_t>(bytes) <= uploadCopyLimit_) {
    const uint8_t* p = static_cast<const uint8_t*>(src);
    t.host = std::make_shared<const std::vector<uint8_t>>(p, p + bytes);
    counters_.hostCopyBytes += static_cast<int64_t>(bytes);
  }
}

void GlBackend::upload(Texture& t, const void* src, size_t bytes) {
  const Extent& e = t.extent;
  int rows = static_cast<int>((e.texels + e.width - 1) / e.width);
  // Whole rows go up; the tail past `bytes` in the last row is left undefined.
  size_t staged = static_cast<size_t>(rows) * e.width * 16;
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, unpackPbo_);
  glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(staged), nullptr, GL_STREAM_DRAW);
  glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(bytes), src);
  glBindTexture(GL_TEXTURE_2D, t.tex);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, e.width, rows, GL_RGBA_INTEGER, GL_UNSIGNED_INT, nullptr);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}

void GlBackend::readInto(const Texture& t, void* dst, size_t bytes) {
  const Extent& e = t.extent;
  int rows = static_cast<int>((e.texels + e.width - 1) / e.width);
  std::vector<uint32_t> staged(static_cast<size_t>(rows) * e.width * 4);
  glBindFramebuffer(GL_FRAMEBUFFER, t.fbo);
  boundFbo_ = t.fbo;
  glReadPixels(0, 0, e.width, rows, GL_RGBA_INTEGER, GL_UNSIGNED_INT, staged.data());
  unstage(staged.data(), t.half, dst, bytes);
}

void GlBackend::read(void* handle, void* dst, size_t bytes) {
  Texture& t = *static_cast<Texture*>(handle);
  try {
    ensureContext(false);
  } catch (const DeviceLostError&) {
    // No context: an upload is still readable from its host copy, so tensors
    // can move to another backend.
    if (!dead_ || !t.host || t.host->size() < bytes) throw;
    std::memcpy(dst, t.host->data(), bytes);
    return;
  }
  if (t.lost) failLost("the tensor being read");
  if (bytes == 0 || !t.tex) return;
  startSnapshots();
  ensureFramebuffer(t);
  readInto(t, dst, bytes);
  // This read waited for all earlier GPU work, so collecting the snapshot
  // reads queued before it costs a copy, not a wait.
  collectSnapshots(true);
}

GlBackend::PendingRead GlBackend::startRead(const Texture& tc) {
  ensureContext(false);
  Texture& t = const_cast<Texture&>(tc);
  if (t.lost) failLost("the tensor being read");
  PendingRead r;
  r.bytes = t.bytes;
  r.generation = generation_;
  r.half = t.half;
  if (!t.tex || t.bytes == 0) return r;
  ensureFramebuffer(t);
  const Extent& e = t.extent;
  int rows = static_cast<int>((e.texels + e.width - 1) / e.width);
  glGenBuffers(1, &r.pbo);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, r.pbo);
  glBufferData(GL_PIXEL_PACK_BUFFER, static_cast<GLsizeiptr>(rows) * e.width * 16, nullptr,
               GL_STREAM_READ);
  glBindFramebuffer(GL_FRAMEBUFFER, t.fbo);
  boundFbo_ = t.fbo;
  glReadPixels(0, 0, e.width, rows, GL_RGBA_INTEGER, GL_UNSIGNED_INT, nullptr);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  r.fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  glFlush();
  return r;
}

bool GlBackend::poll(PendingRead& r) {
  if (!r.fence || r.generation != generation_ || contextLost()) return true;
  GLenum s = glClientWaitSync(r.fence, 0, 0);
  return s == GL_ALREADY_SIGNALED || s == GL_CONDITION_SATISFIED;
}

void GlBackend::finishRead(PendingRead& r, void* dst) {
  if ((r.pbo || r.fence) && (r.generation != generation_ || contextLost() || dead_)) {
    r = PendingRead{};  // its buffer and fence died with the context
    if (dst) throw DeviceLostError("[readAsync] the GL context was lost before this read finished");
    return;
  }
  if (r.fence) {
    while (glClientWaitSync(r.fence, GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000) ==
           GL_TIMEOUT_EXPIRED) {
    }
    glDeleteSync(r.fence);
    r.fence = nullptr;
  }
  if (!r.pbo) return;
  glBindBuffer(GL_PIXEL_PACK_BUFFER, r.pbo);
  if (dst) {  // null: the read is abandoned
    // A float16 texture's words hold half bits: widened after the copy.
    std::vector<uint32_t> staged(r.half ? r.bytes / 4 : 0);
    void* to = r.half ? static_cast<void*>(staged.data()) : dst;
#ifdef __EMSCRIPTEN__
    glGetBufferSubData(GL_PIXEL_PACK_BUFFER, 0, static_cast<GLsizeiptr>(r.bytes), to);
#else
    const void* p = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, static_cast<GLsizeiptr>(r.bytes),
                                     GL_MAP_READ_BIT);
    if (p) std::memcpy(to, p, r.bytes);
    glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
#endif
    if (r.half) unstage(staged.data(), true, dst, r.bytes);
  }
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glDeleteBuffers(1, &r.pbo);
  r.pbo = 0;
}

// ---- programs and draws ------------------------------------------------------

Program GlBackend::program(const std::string& source) {
  ensureContext(true);
  if (auto it = programs_.find(source); it != programs_.end()) {
    programUse_.splice(programUse_.begin(), programUse_, it->second.use);
    return it->second.program;
  }
  if (programs_.size() >= kProgramCache) {
    // The least recently used: never the one a draw in progress holds.
    auto victim = programs_.find(programUse_.back());
    if (boundProgram_ == victim->second.program.id) {
      glUseProgram(0);
      boundProgram_ = 0;
    }
    glDeleteProgram(victim->second.program.id);
    programs_.erase(victim);
    programUse_.pop_back();
  }
  gpu::dumpShader("gl", source);
  GLuint fs = compile(GL_FRAGMENT_SHADER, source);
  GLuint p = glCreateProgram();
  glAttachShader(p, vertexShader_);
  glAttachShader(p, fs);
  glLinkProgram(p);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    GLint len = 0;
    glGetProgramiv(p, GL_INFO_LOG_LENGTH, &len);
    std::string log(static_cast<size_t>(std::max(len, 1)), '\0');
    glGetProgramInfoLog(p, len, nullptr, log.data());
    glDeleteProgram(p);
    fail("gl", "program link failed: ", log.c_str());
  }
  // Samplers u_in0..u_inN read texture units 0..N, set once here.
  glUseProgram(p);
  boundProgram_ = p;
  for (int k = 0; k < 16; ++k) {
    GLint loc = glGetUniformLocation(p, ("u_in" + std::to_string(k)).c_str());
    if (loc >= 0) glUniform1i(loc, k);
  }
  Program made{p,
               glGetUniformLocation(p, "u_params"),
               glGetUniformLocation(p, "u_ints"),
               glGetUniformLocation(p, "u_inShift"),
               glGetUniformLocation(p, "u_outShift"),
               glGetUniformLocation(p, "u_count")};
  programUse_.push_front(source);
  programs_.emplace(source, CachedProgram{made, programUse_.begin()});
  return made;
}

void GlBackend::draw(const Program& program, const std::vector<const Texture*>& inputs,
                     Texture& out) {
  Texture* one = &out;  // no vector per draw: this is every kernel's path
  draw(program, inputs, std::span<Texture* const>(&one, 1));
}

void GlBackend::drawRows(const Program& program, const std::vector<const Texture*>& inputs,
                         Texture& out, int firstRow, int rows) {
  check(firstRow >= 0 && rows >= 0 && firstRow + rows <= out.extent.height, "gl",
        "a draw into rows ", firstRow, "..", firstRow + rows, " of a texture of ",
        out.extent.height, " rows");
  if (rows == 0) return;
  bandFirst_ = firstRow;
  bandRows_ = rows;
  draw(program, inputs, out);
}

void GlBackend::bindOutputs(std::span<Texture* const> outs) {
  const int n = static_cast<int>(outs.size());
  check(n <= maxOutputs(), "gl", "a draw into ", n, " outputs; this context allows ", maxOutputs());
  if (!outputsFbo_) {
    glGenFramebuffers(1, &outputsFbo_);
    std::fill(std::begin(attached_), std::end(attached_), 0u);
  }
  if (boundFbo_ != outputsFbo_) {
    glBindFramebuffer(GL_FRAMEBUFFER, outputsFbo_);
    boundFbo_ = outputsFbo_;
  }
  GLenum buffers[8];
  for (int k = 0; k < 8; ++k) {
    GLuint want = k < n ? outs[k]->tex : 0;
    if (attached_[k] != want) {
      glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0 + k, GL_TEXTURE_2D, want, 0);
      attached_[k] = want;
    }
    if (k < n) buffers[k] = GL_COLOR_ATTACHMENT0 + k;
  }
  glDrawBuffers(n, buffers);
}

void GlBackend::draw(const Program& program, const std::vector<const Texture*>& inputs,
                     std::span<Texture* const> outs) {
  const int bandFirst = bandFirst_, bandRows = bandRows_;  // this draw's only
  bandRows_ = -1;
  ensureContext(true);
  for (const Texture* o : outs)
    if (o->lost) failLost("a kernel output");
  for (const Texture* in : inputs)
    if (in->lost) failLost("a kernel input");
  if (outs.empty() || !outs[0]->tex) {
    params_.clear();
    count_ = -1;
    return;
  }
  Texture& out = *outs[0];
  if (outs.size() > 1) {
    bindOutputs(outs);
  } else {
    ensureFramebuffer(out);
    if (boundFbo_ != out.fbo) {
      glBindFramebuffer(GL_FRAMEBUFFER, out.fbo);
      boundFbo_ = out.fbo;
    }
  }
  // gl_FragCoord stays in window coordinates: a band's fragments see their own rows.
  if (bandRows >= 0) glViewport(0, bandFirst, out.extent.width, bandRows);
  else glViewport(0, 0, out.extent.width, out.extent.height);
  if (boundProgram_ != program.id) {
    glUseProgram(program.id);
    boundProgram_ = program.id;
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(k));
    glBindTexture(GL_TEXTURE_2D, inputs[k]->tex ? inputs[k]->tex : dummy_);
  }
  if (!params_.empty() && program.params >= 0)
    glUniform1fv(program.params, static_cast<GLsizei>(params_.size()), params_.data());
  // The words of i32 parameters (gpu::paramWord), read by the driver as ints.
  if (!params_.empty() && program.ints >= 0)
    glUniform1iv(program.ints, static_cast<GLsizei>(params_.size()),
                 reinterpret_cast<const GLint*>(params_.data()));
  params_.clear();
  if (program.inShift >= 0) {
    GLint shifts[16];
    const size_t n = std::min<size_t>(inputs.size(), 16);
    for (size_t k = 0; k < n; ++k) shifts[k] = inputs[k]->extent.shift;
    glUniform1iv(program.inShift, static_cast<GLsizei>(n), shifts);
  }
  if (program.outShift >= 0) glUniform1i(program.outShift, out.extent.shift);
  if (program.count >= 0) {
    check(count_ >= 0 && count_ <= INT32_MAX, "gl",
          "a draw of a program that reads u_count, given ", count_);
    glUniform1i(program.count, static_cast<GLint>(count_));
  }
  count_ = -1;
  glDrawArrays(GL_TRIANGLES, 0, 3);
}

void GlBackend::finish() {
  if (dead_ || contextLost()) return;
#ifdef __EMSCRIPTEN__
  // WebGL's finish() does not wait in Chromium; a read-back does.
  if (boundFbo_) {
    uint32_t texel[4];
    glReadPixels(0, 0, 1, 1, GL_RGBA_INTEGER, GL_UNSIGNED_INT, texel);
  }
#else
  glFinish();
#endif
}

// ---- probe ---------------------------------------------------------------

bool GlBackend::selfTest(std::string& whyNot) {
  // Known floats through a float-typed identity and a 64-term sum: llvmpipe and
  // real GPUs must give them back bit-exact (integers below 2^24 sum exactly).
  const int n = 64;
  std::vector<float> values(n);
  for (int i = 0; i < n; ++i) values[i] = static_cast<float>(i + 1) * (i % 2 ? -0.5f : 0.25f);
  values[1] = std::numeric_limits<float>::max();
  values[2] = std::numeric_limits<float>::min();
  values[3] = -1.0f / 3.0f;
  std::vector<float> ints(n);
  for (int i = 0; i < n; ++i) ints[i] = static_cast<float>(i * 1000 + 7);
  const char* identity = R"(#version 300 es
precision highp float; precision highp int; precision highp usampler2D;
uniform usampler2D u_in0;
out uvec4 o;
void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec4 v = uintBitsToFloat(texelFetch(u_in0, p, 0));
  o = floatBitsToUint(v * 1.0);
}
)";
  const char* sum = R"(#version 300 es
precision highp float; precision highp int; precision highp usampler2D;
uniform usampler2D u_in0;
out uvec4 o;
void main() {
  float s = 0.0;
  for (int t = 0; t < 16; ++t) {
    vec4 v = uintBitsToFloat(texelFetch(u_in0, ivec2(t & 3, t >> 2), 0));
    s += v.x + v.y + v.z + v.w;
  }
  o = uvec4(floatBitsToUint(s), 0u, 0u, 0u);
}
)";
  Texture* in = static_cast<Texture*>(allocate(n * 4));
  Texture* out = static_cast<Texture*>(allocate(n * 4));
  Texture* in2 = static_cast<Texture*>(allocate(n * 4));
  Texture* out2 = static_cast<Texture*>(allocate(16));
  bool ok = true;
  write(in, values.data(), n * 4);
  draw(program(identity), {in}, *out);
  std::vector<float> back(n);
  read(out, back.data(), n * 4);
  if (std::memcmp(back.data(), values.data(), n * 4) != 0) {
    whyNot = "precision self-test failed: a float32 identity shader changed values";
    ok = false;
  }
  write(in2, ints.data(), n * 4);
  draw(program(sum), {in2}, *out2);
  float total[4] = {0, 0, 0, 0};
  read(out2, total, 16);
  double expected = 0;
  for (float v : ints) expected += v;
  if (ok && total[0] != static_cast<float>(expected)) {
    whyNot = "precision self-test failed: a 64-term float32 sum gave " + std::to_string(total[0]) +
             ", expected " + std::to_string(expected);
    ok = false;
  }
  for (Texture* t : {in, out, in2, out2}) release(t, 0);
  GLenum err = glGetError();
  if (ok && err != GL_NO_ERROR) {
    whyNot = "GL error during the self-test: " + std::to_string(err);
    ok = false;
  }
  return ok;
}

}  // namespace glint::gl
