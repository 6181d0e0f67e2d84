#pragma once
// The gl backend: tensors live in RGBA32UI textures holding the buffer's raw
// bytes (16 per texel), so every dtype is bit-exact, reshape views share one
// texture, and nothing needs EXT_color_buffer_float. Each kernel is one
// fragment-shader draw per output; shaders reinterpret words by dtype.
#include <atomic>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "glint/backend.h"
#include "src/backends/gl/context.h"
#include "src/backends/gl/gl_api.h"

namespace glint::gl {

/// Texel extent of a buffer: texel t sits at (t & (width-1), t >> shift).
/// It depends only on the byte count, so views of any shape agree.
struct Extent {
  int width = 0;  // a power of two
  int shift = 0;  // log2(width)
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
  /// Its context was lost and nothing could restore it: any use throws DeviceLostError.
  bool lost = false;
  /// The bytes it was uploaded with (write): re-uploaded after a context loss.
  std::shared_ptr<const std::vector<uint8_t>> host;
  /// RGBA16UI holding float16 bits, 4 elements per texel as ever (float16
  /// activations): same extent, half the memory; reads give float32.
  bool half = false;
};

/// Figures of the context-loss machinery (glint::gl::stats() adds the texture counts).
struct RecoveryCounters {
  int64_t contextLosses = 0;      // losses detected (and recovered from)
  int64_t texturesRestored = 0;   // re-uploaded from their host copy
  int64_t variablesRestored = 0;  // rebuilt from their last host snapshot
  int64_t texturesLost = 0;       // marked lost (kernel outputs without a host copy)
  int64_t variablesMoved = 0;     // moved to another backend when no context could be made
  int64_t variableReads = 0;      // asynchronous snapshot reads started
  int64_t hostCopyBytes = 0;      // bytes held in host copies of uploads
  double snapshotSeconds = 0;     // spent starting and collecting snapshot reads
};

struct Program {
  GLuint id = 0;
  GLint params = -1;  // uniform float u_params[], when the shader declares it
  // Sizes as uniforms, so that a new shape does not compile a new program:
  GLint ints = -1;      // uniform int u_ints[]: the same words as u_params, read as ints
  GLint inShift = -1;   // uniform int u_inShift[]: log2 of each input texture's width
  GLint outShift = -1;  // uniform int u_outShift: the same of the output's
  GLint count = -1;     // uniform int u_count: elements (texels) the draw writes
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
  /// Textures (live and pooled) and the pixel-pack buffers of variable snapshots.
  int64_t bytesInUse() const override { return liveBytes_ + pooledBytes_ + pboBytes_; }
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
  /// The program for a fragment shader source, compiled once and cached by
  /// source: the kProgramCache most recently used. Sources carry shapes, so
  /// a program of ever-new shapes must not grow the cache (and the driver's
  /// compiled code: 6 GB in an hour of the kernel fuzzer) without end.
  Program program(const std::string& fragmentSource);
  static constexpr size_t kProgramCache = 512;
  size_t programsCached() const { return programs_.size(); }
  /// Values for the next draw's `uniform float u_params[N]`: per-step scalars
  /// (learning rates, bias corrections) that must not become new programs.
  void setParams(std::vector<float> params) { params_ = std::move(params); }
  /// The next draw's u_count (elementMain's elements, runTexels' texels).
  void setCount(int64_t count) { count_ = count; }
  const std::vector<float>& params() const { return params_; }
  /// Draws `program` into `out`, inputs bound to texture units 0..n-1.
  void draw(const Program& program, const std::vector<const Texture*>& inputs, Texture& out);
  /// The same into several outputs of one extent (the shader's `layout(location
  /// = k) out`), at most maxOutputs(): one pass where a kernel has several
  /// results per element, or computes a block of outputs per fragment.
  void draw(const Program& program, const std::vector<const Texture*>& inputs,
            std::span<Texture* const> outs);
  /// draw() into texture rows [firstRow, firstRow + rows) of `out` only; the
  /// other rows keep their texels (a kernel filling its output piece by piece).
  void drawRows(const Program& program, const std::vector<const Texture*>& inputs, Texture& out,
                int firstRow, int rows);
  int maxOutputs() const { return info_.maxDrawBuffers; }
  /// Starts an asynchronous read: a pixel-pack buffer and a fence.
  struct PendingRead {
    GLuint pbo = 0;
    GLsync fence = nullptr;
    size_t bytes = 0;
    uint32_t generation = 0;  // the context it was started in
    bool half = false;        // float16 bits to widen on the way out
  };
  PendingRead startRead(const Texture& t);
  bool poll(PendingRead& r);
  void finishRead(PendingRead& r, void* dst);

  /// Float16 activations (setFloat16Activations): a float32 kernel output is
  /// drawn into a half texture instead (its contents are about to be drawn).
  void toHalf(Texture& t);
  /// Back to float32, the values widened when keepContents (a variable must
  /// not stay in float16: optimizers update it in float32).
  void toFull(Texture& t, bool keepContents);

  size_t pooledTextures() const;
  /// GL texture objects this backend holds now: live buffers and the pool.
  int64_t textureCount() const { return glTextures_; }

  // ---- context loss (recovery.cpp) ----
  /// Keeps a host snapshot of every variable on this backend: each new value
  /// is read back at the next blocking read (every training step has one: the
  /// loss value), or when the variable gets its next value.
  void variableChanged(const std::shared_ptr<TensorImpl>& var) override;
  /// Forces a loss: natively destroys the EGL context (a test hook), in the
  /// browser WEBGL_lose_context. The next call into the backend recovers.
  void loseContext();
  void restoreIfLost() override;
  void finish() override;
  /// Test hook: the next `n` context re-creations fail (as a browser that
  /// refuses new contexts), so variables move to the next backend.
  void failNextRecoveries(int n) { failRecoveries_ = n; }
  const RecoveryCounters& recovery() const { return counters_; }
  /// What survives a loss: variable snapshots (every `interval`-th value),
  /// host copies of uploads (up to limitBytes).
  void setRecovery(bool variableSnapshots, int interval, bool uploadCopies, int64_t limitBytes);

 private:
  GlBackend() = default;
  bool init(std::string& whyNot);
  bool selfTest(std::string& whyNot);
  void ensureFramebuffer(Texture& t);
  void readInto(const Texture& t, void* dst, size_t bytes);
  void destroy(Texture* t);
  void createTexture(Texture& t);
  void upload(Texture& t, const void* src, size_t bytes);
  /// Binds the framebuffer of multi-output draws with `outs` attached.
  void bindOutputs(std::span<Texture* const> outs);
  // context loss (recovery.cpp)
  /// One read-back of several variables' new values: each is copied into its
  /// range of one pixel-pack buffer, behind one fence, and fetched to the host
  /// in one piece (a fence and a buffer read per variable cost a GPU flush and
  /// a round trip each in the browser).
  struct SnapshotRead {
    GLuint pbo = 0;
    size_t capacity = 0;  // pbo's size
    GLsync fence = nullptr;
    size_t bytes = 0;  // used
    uint32_t generation = 0;
    bool fetched = false;  // host holds the bytes (or ok is false)
    bool ok = false;
    std::vector<uint8_t> host;
  };
  struct Mirror {
    std::weak_ptr<TensorImpl> var;
    std::shared_ptr<const std::vector<uint8_t>> snapshot;  // the last value read back whole
    std::weak_ptr<Storage> snapshotOf;                     // the buffer it was read from
    std::weak_ptr<Storage> dirty;  // the value to read back at the next blocking read
    bool hasDirty = false;
    std::weak_ptr<Storage> pendingOf;    // the value being read back
    std::shared_ptr<SnapshotRead> read;  // ... by this read: its bytes at offset
    size_t offset = 0;
    size_t readBytes = 0;
    int64_t values = 0;  // values seen, for the snapshot interval
  };
  /// True when the context is gone (forced, or the browser lost it).
  bool contextLost();
  /// Detects a loss and recovers; `duringKernel`: a kernel was under way, so
  /// its outputs are lost: throws DeviceLostError after recovering.
  void ensureContext(bool duringKernel);
  /// GL contexts are current on one thread: the one that created the backend
  /// owns it; any other is refused with an error (docs/CPP.md, "Threads").
  void checkThread() const;
  /// Frees the textures other threads released (their tensors died there).
  void releaseOrphans();
  void recover();
  void failLost(const char* what) const;
  /// Starts the reads of values not read back yet (at a blocking read, when
  /// the step's work is queued: on llvmpipe a read waits for it).
  void startSnapshots();
  /// One SnapshotRead of the dirty values of `mirrors`.
  void startSnapshotRead(const std::vector<Mirror*>& mirrors);
  /// Collects finished snapshot reads (block: wait for them).
  void collectSnapshots(bool block);
  void collect(Mirror& m, bool block);
  /// Brings a read's bytes to the host; false if not finished and !block.
  bool fetch(SnapshotRead& r, bool block);
  /// Deletes the GL objects of reads in flight (when the context is alive).
  void dropSnapshotReads();
  void dropHostCopy(Texture& t);
  void moveVariablesAway(const std::string& why);

  std::string name_ = "gl";
  ContextInfo info_;
  GLuint vao_ = 0;
  GLuint vertexShader_ = 0;
  GLuint dummy_ = 0;  // bound where an input has no texture (0 bytes)
  GLuint unpackPbo_ = 0;
  struct CachedProgram {
    Program program;
    std::list<std::string>::iterator use;
  };
  std::unordered_map<std::string, CachedProgram> programs_;
  std::list<std::string> programUse_;  // sources, most recently used first
  // Released textures by (width, height, half), reused by the next allocation of that extent.
  std::multimap<std::tuple<int, int, bool>, Texture*> pool_;
  /// A texture of extent e and format from the pool, or a new one.
  Texture* takeTexture(const Extent& e, bool half);
  /// Swaps the GL objects (and format) of a and b.
  static void swapTextures(Texture& a, Texture& b);
  int64_t liveBytes_ = 0;
  int64_t pooledBytes_ = 0;
  int64_t numAllocations_ = 0;
  int64_t numPoolHits_ = 0;
  std::vector<float> params_;
  int64_t count_ = -1;
  int bandFirst_ = 0, bandRows_ = -1;  // drawRows' band for the next draw (-1: all rows)
  GLuint boundFbo_ = 0;
  GLuint outputsFbo_ = 0;    // multi-output draws' framebuffer
  GLuint attached_[8] = {};  // the textures attached to it now
  GLuint boundProgram_ = 0;
  int64_t glTextures_ = 0;
  int64_t pboBytes_ = 0;
  std::vector<std::shared_ptr<SnapshotRead>> snapshotReads_;  // in flight
  GLuint sparePbo_ = 0;  // a fetched read's buffer, kept for the next one
  size_t spareCapacity_ = 0;
  std::unordered_set<Texture*> live_;  // every texture handed out and not yet released
  std::unordered_map<const TensorImpl*, Mirror> mirrors_;
  bool forcedLoss_ = false;
  std::thread::id owner_ = std::this_thread::get_id();
  std::mutex orphansMutex_;
  std::vector<Texture*> orphans_;                // released on other threads, freed on owner_
  std::atomic<bool> orphansPending_{false};      // orphans_ is not empty
  std::atomic<bool> releasePoolPending_{false};  // releaseUnused() asked on another thread
  bool dead_ = false;  // no new context could be made: calls retry, then throw
  int failRecoveries_ = 0;
  std::string deadWhy_;
  uint32_t generation_ = 0;  // bumps at each recovery; stale PendingReads are refused
  bool variableSnapshots_ = true;
  int snapshotInterval_ = 1;
  bool uploadCopies_ = true;
  int64_t uploadCopyLimit_ = int64_t{256} << 20;
  RecoveryCounters counters_;
};

/// The texture behind a tensor on the gl backend.
inline Texture& textureOf(const Tensor& t) {
  return *static_cast<Texture*>(t.impl()->storage->handle);
}
inline GlBackend& glBackend(KernelArgs& args) { return static_cast<GlBackend&>(args.backend); }

}  // namespace glint::gl
