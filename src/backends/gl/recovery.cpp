// Context loss. A WebGL context can vanish at any time (GPU reset, driver
// update, too many contexts, WEBGL_lose_context); every texture goes with it.
// What survives: uploads keep a host copy of their bytes, and every variable
// (weights, optimizer state) keeps a host snapshot of its value, read back
// asynchronously after each assign and collected at the next blocking read
// (each training step reads its loss) or assign. The next call into the
// backend after a loss makes a new context, re-uploads both, and marks the
// rest (kernel outputs) lost: using them throws DeviceLostError.
#include <chrono>
#include <cstring>

#include "glint/error.h"
#include "glint/gl.h"
#include "src/backends/gl/gl_backend.h"
#include "src/core/backend_services.h"

namespace glint::gl {

namespace {
/// Adds the time until it goes out of scope to `total`.
struct Timer {
  double& total;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  explicit Timer(double& t) : total(t) {}
  ~Timer() {
    total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
};
}  // namespace

bool GlBackend::contextLost() { return forcedLoss_ || contextIsLost(); }

void GlBackend::failLost(const char* what) const {
  throw DeviceLostError(std::string("[gl] ") + what + " was lost with the GL context (loss #" +
                        std::to_string(counters_.contextLosses) +
                        "): only variables and uploaded tensors are restored; compute it again "
                        "from them");
}

void GlBackend::checkThread() const {
  if (std::this_thread::get_id() == owner_) return;
  fail("gl",
       "the gl backend's GL context belongs to the thread that created it, and "
       "this call came from another thread; for work on several threads use the cpu "
       "backend (setBackend(\"cpu\")), or keep gl work on one thread (docs/CPP.md, Threads)");
}

void GlBackend::releaseOrphans() {
  if (!orphansPending_.load(std::memory_order_acquire) && !releasePoolPending_) return;
  std::vector<Texture*> orphans;
  {
    orphansPending_ = false;
    std::lock_guard<std::mutex> lock(orphansMutex_);
    orphans.swap(orphans_);
  }
  for (Texture* t : orphans) release(t, t->bytes);
  if (releasePoolPending_.exchange(false)) releaseUnused();
}

void GlBackend::ensureContext(bool duringKernel) {
  checkThread();
  releaseOrphans();
  if (!dead_ && !contextLost()) return;
  recover();  // throws when no new context could be made
  if (duringKernel)
    throw DeviceLostError("[gl] the GL context was lost while a kernel ran (loss #" +
                          std::to_string(counters_.contextLosses) +
                          "); variables were restored, run the step again");
}

void GlBackend::restoreIfLost() {
  try {
    ensureContext(false);
  } catch (const DeviceLostError&) {
    // Still no context: the caller's read (host copies) or kernel says so.
  }
}

void GlBackend::loseContext() {
  if (dead_ || forcedLoss_) return;
  forceContextLoss();
#ifndef __EMSCRIPTEN__
  forcedLoss_ = true;  // the browser reports its own loss through isContextLost()
#endif
}

void GlBackend::setRecovery(bool variableSnapshots, int interval, bool uploadCopies,
                            int64_t limitBytes) {
  variableSnapshots_ = variableSnapshots;
  snapshotInterval_ = interval;
  uploadCopies_ = uploadCopies;
  if (!variableSnapshots) {  // stale snapshots would restore old values later
    dropSnapshotReads();
    mirrors_.clear();
  }
  uploadCopyLimit_ = limitBytes;
}

void GlBackend::dropHostCopy(Texture& t) {
  if (!t.host) return;
  counters_.hostCopyBytes -= static_cast<int64_t>(t.host->size());
  t.host.reset();
}

void GlBackend::recover() {
  const bool retry = dead_;  // a retry after a failed recovery is the same loss
  if (!retry) ++counters_.contextLosses;
  ++generation_;
  // Every GL name belongs to the dead context: forget them without deleting
  // (lost textures released from here on are freed without GL calls).
  for (Texture* t : live_) t->lost = t->extent.texels > 0;  // empty buffers have no texture
  for (auto& [key, m] : mirrors_) m.hasDirty = false;
  dead_ = false;  // init() below allocates through the backend
  forcedLoss_ = false;
  for (auto& entry : pool_) delete entry.second;
  pool_.clear();
  pooledBytes_ = 0;
  programs_.clear();
  programUse_.clear();
  vao_ = vertexShader_ = dummy_ = unpackPbo_ = 0;
  boundFbo_ = boundProgram_ = outputsFbo_ = 0;
  glTextures_ = 0;
  liveBytes_ = 0;
  pboBytes_ = 0;
  snapshotReads_.clear();  // their buffers and fences died with the context
  sparePbo_ = 0;
  spareCapacity_ = 0;
  for (auto& [key, m] : mirrors_) {
    m.read.reset();
    m.pendingOf.reset();
  }
  std::vector<Texture*> old(live_.begin(), live_.end());
  destroyContext();
  std::string why;
  bool ok = false;
  if (failRecoveries_ > 0) {
    --failRecoveries_;
    why = "re-creation made to fail by a test";
  } else {
    ok = init(why);
  }
  if (!ok) {
    dead_ = true;
    deadWhy_ = why;
    if (!retry) moveVariablesAway(why);
    throw DeviceLostError("[gl] the GL context was lost and could not be re-created (" + why +
                          "); variables moved to the " + activeBackend().name() + " backend");
  }
  for (Texture* t : old) {
    if (!t->lost) continue;
    if (!t->host) {
      ++counters_.texturesLost;
      continue;
    }
    t->lost = false;
    createTexture(*t);
    upload(*t, t->host->data(), t->host->size());
    liveBytes_ += static_cast<int64_t>(t->extent.width) * t->extent.height * 16;
    ++counters_.texturesRestored;
  }
  // Variables whose value was a kernel output come back from their snapshot:
  // in place when it was read from that very buffer (views and other holders
  // see the same bytes); else (the read of the latest value had not finished)
  // the variable alone goes back one step to a new buffer, and the lost value
  // stays lost for any other holder, never silently replaced.
  for (auto it = mirrors_.begin(); it != mirrors_.end();) {
    Mirror& m = it->second;
    std::shared_ptr<TensorImpl> var = m.var.lock();
    if (!var || !var->storage) {
      it = mirrors_.erase(it);
      continue;
    }
    ++it;
    std::shared_ptr<Storage> s = var->storage;
    if (s->backend != this || !m.snapshot || m.snapshot->size() != s->bytes) continue;
    Texture* t = static_cast<Texture*>(s->handle);
    if (!t->lost) continue;
    if (m.snapshotOf.lock() == s) {
      t->lost = false;
      createTexture(*t);
      liveBytes_ += static_cast<int64_t>(t->extent.width) * t->extent.height * 16;
      --counters_.texturesLost;
    } else {
      var->storage = std::make_shared<Storage>(this, allocate(s->bytes), s->bytes);
      t = static_cast<Texture*>(var->storage->handle);
      m.snapshotOf = var->storage;
    }
    if (s->bytes) upload(*t, m.snapshot->data(), s->bytes);
    ++counters_.variablesRestored;
  }
}

void GlBackend::moveVariablesAway(const std::string& why) {
  Backend& next =
      fallBackFrom(*this, "its GL context was lost and could not be re-created: " + why);
  if (&next == this) return;  // nowhere to go
  for (auto& [key, m] : mirrors_) {
    std::shared_ptr<TensorImpl> var = m.var.lock();
    if (!var || !var->storage || var->storage->backend != this) continue;
    const size_t n = var->storage->bytes;
    if (!m.snapshot || m.snapshot->size() != n) continue;  // lost: using it throws
    auto moved = std::make_shared<Storage>(&next, next.allocate(n), n);
    if (n) next.write(moved->handle, m.snapshot->data(), n);
    var->storage = moved;
    ++counters_.variablesMoved;
  }
}

// ---- variable snapshots ------------------------------------------------------

bool GlBackend::fetch(SnapshotRead& r, bool block) {
  if (r.fetched) return true;
  if (r.generation != generation_) {  // its objects died with an older context
    r.fetched = true;
    return true;
  }
  if (!block) {
    GLenum st = glClientWaitSync(r.fence, 0, 0);
    if (st != GL_ALREADY_SIGNALED && st != GL_CONDITION_SATISFIED) return false;
  }
  while (glClientWaitSync(r.fence, GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000) == GL_TIMEOUT_EXPIRED) {
  }
  glDeleteSync(r.fence);
  r.fence = nullptr;
  r.host.resize(r.bytes);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, r.pbo);
#ifdef __EMSCRIPTEN__
  glGetBufferSubData(GL_PIXEL_PACK_BUFFER, 0, static_cast<GLsizeiptr>(r.bytes), r.host.data());
  r.ok = true;
#else
  const void* p =
      glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, static_cast<GLsizeiptr>(r.bytes), GL_MAP_READ_BIT);
  r.ok = p != nullptr;
  if (r.ok) std::memcpy(r.host.data(), p, r.bytes);
  glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
#endif
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  r.ok = r.ok && !contextLost();  // else each variable keeps its older, whole snapshot
  // The buffer serves the next read (the larger of the two is kept).
  if (r.capacity >= spareCapacity_)
    std::swap(r.pbo, sparePbo_), std::swap(r.capacity, spareCapacity_);
  if (r.pbo) glDeleteBuffers(1, &r.pbo);
  pboBytes_ -= static_cast<int64_t>(r.capacity);
  r.pbo = 0;
  r.capacity = 0;
  r.fetched = true;
  return true;
}

void GlBackend::collect(Mirror& m, bool block) {
  if (!m.read || !fetch(*m.read, block)) return;
  const SnapshotRead& r = *m.read;
  if (r.ok && !contextLost()) {
    const size_t n = m.readBytes;
    // The previous snapshot's buffer, when nothing else holds it, takes the new one.
    std::shared_ptr<std::vector<uint8_t>> bytes;
    if (m.snapshot && m.snapshot.use_count() == 1 && m.snapshot->size() == n)
      bytes = std::const_pointer_cast<std::vector<uint8_t>>(m.snapshot);
    else bytes = std::make_shared<std::vector<uint8_t>>(n);
    std::memcpy(bytes->data(), r.host.data() + m.offset, n);
    m.snapshot = std::move(bytes);
    m.snapshotOf = m.pendingOf;
  }
  m.read.reset();
  m.pendingOf.reset();
}

void GlBackend::collectSnapshots(bool block) {
  if (contextLost() || dead_ || mirrors_.empty()) return;
  Timer timer(counters_.snapshotSeconds);
  for (auto it = mirrors_.begin(); it != mirrors_.end();) {
    Mirror& m = it->second;
    if (m.var.expired()) {  // the variable is gone
      it = mirrors_.erase(it);
      continue;
    }
    collect(m, block);
    ++it;
  }
  // Reads nobody waits for any more (their variables died) still free their buffer.
  for (auto& r : snapshotReads_)
    if (!r->fetched && (block || r.use_count() == 1)) fetch(*r, block);
  std::erase_if(snapshotReads_, [](const auto& r) { return r->fetched; });
}

void GlBackend::dropSnapshotReads() {
  const bool alive = !contextLost() && !dead_;
  for (auto& r : snapshotReads_) {
    if (alive && r->generation == generation_ && !r->fetched) {
      if (r->fence) glDeleteSync(r->fence);
      if (r->pbo) glDeleteBuffers(1, &r->pbo);
    }
    if (!r->fetched) pboBytes_ -= static_cast<int64_t>(r->capacity);
    r->fetched = true;
    r->ok = false;
  }
  snapshotReads_.clear();
  if (alive && sparePbo_) glDeleteBuffers(1, &sparePbo_);
  pboBytes_ -= static_cast<int64_t>(spareCapacity_);
  sparePbo_ = 0;
  spareCapacity_ = 0;
  for (auto& [key, m] : mirrors_) {
    m.read.reset();
    m.pendingOf.reset();
  }
}

void GlBackend::variableChanged(const std::shared_ptr<TensorImpl>& var) {
  if (dead_ || !var->storage || var->storage->backend != this) return;
  // Variables stay float32 under float16 activations (an initializer's output,
  // or an update made of ordinary ops, arrives in float16).
  Texture& own = *static_cast<Texture*>(var->storage->handle);
  if (own.half) toFull(own, true);
  if (!variableSnapshots_) return;
  ensureContext(false);
  auto found = mirrors_.find(var.get());
  if (found != mirrors_.end() && found->second.var.lock() != var) {
    // The address of a dead variable, reused: start over (a read in flight
    // for it is freed by collectSnapshots).
    mirrors_.erase(found);
    found = mirrors_.end();
  }
  if (found == mirrors_.end()) found = mirrors_.emplace(var.get(), Mirror{}).first;
  Mirror& m = found->second;
  m.var = var;
  if (m.values++ % snapshotInterval_ != 0) return;  // the snapshot lags up to `interval` values
  // The previous value was never read back (no blocking read since): read it
  // now, and collect every read, so all snapshots stay one consistent step.
  // If it is gone already, this loop has no blocking reads: read each value
  // as soon as it is made instead.
  bool eager = false;
  if (m.hasDirty) {
    eager = m.dirty.expired();
    startSnapshots();
    collectSnapshots(true);
  }
  Texture& t = *static_cast<Texture*>(var->storage->handle);
  if (t.lost) return;
  if (t.host || t.bytes == 0 || !t.tex) {  // an upload: its host copy is the snapshot
    m.snapshot = t.host ? t.host : std::make_shared<const std::vector<uint8_t>>();
    m.snapshotOf = var->storage;
    return;
  }
  m.dirty = var->storage;
  m.hasDirty = true;
  if (eager) {
    Timer timer(counters_.snapshotSeconds);
    startSnapshotRead({&m});
  }
}

void GlBackend::startSnapshots() {
  std::vector<Mirror*> dirty;
  for (auto& [key, m] : mirrors_)
    if (m.hasDirty) dirty.push_back(&m);
  if (dirty.empty()) return;
  Timer timer(counters_.snapshotSeconds);
  startSnapshotRead(dirty);
}

void GlBackend::startSnapshotRead(const std::vector<Mirror*>& mirrors) {
  struct Part {
    Mirror* m;
    std::shared_ptr<Storage> storage;
    size_t staged;
  };
  std::vector<Part> parts;
  size_t total = 0;
  for (Mirror* m : mirrors) {
    std::shared_ptr<Storage> storage = m->dirty.lock();
    m->dirty.reset();
    m->hasDirty = false;
    if (!storage || storage->backend != this) continue;
    Texture& t = *static_cast<Texture*>(storage->handle);
    if (t.lost || !t.tex) continue;
    if (m->read) collect(*m, true);  // one read per variable in flight
    const Extent& e = t.extent;
    const size_t rows = static_cast<size_t>((e.texels + e.width - 1) / e.width);
    parts.push_back({m, storage, rows * e.width * 16});
    total += parts.back().staged;
  }
  if (parts.empty()) return;
  auto r = std::make_shared<SnapshotRead>();
  r->bytes = total;
  r->generation = generation_;
  const bool reuse = sparePbo_ && spareCapacity_ >= total;
  if (reuse) {
    r->pbo = sparePbo_;
    r->capacity = spareCapacity_;
    sparePbo_ = 0;
    spareCapacity_ = 0;
  } else {
    glGenBuffers(1, &r->pbo);
    r->capacity = total;
    pboBytes_ += static_cast<int64_t>(total);
  }
  glBindBuffer(GL_PIXEL_PACK_BUFFER, r->pbo);
  if (!reuse)
    glBufferData(GL_PIXEL_PACK_BUFFER, static_cast<GLsizeiptr>(total), nullptr, GL_STREAM_READ);
  size_t offset = 0;
  for (const Part& part : parts) {
    Texture& t = *static_cast<Texture*>(part.storage->handle);
    ensureFramebuffer(t);
    glBindFramebuffer(GL_FRAMEBUFFER, t.fbo);
    boundFbo_ = t.fbo;
    const Extent& e = t.extent;
    const int rows = static_cast<int>((e.texels + e.width - 1) / e.width);
    glReadPixels(0, 0, e.width, rows, GL_RGBA_INTEGER, GL_UNSIGNED_INT,
                 reinterpret_cast<void*>(offset));
    part.m->read = r;
    part.m->offset = offset;
    part.m->readBytes = t.bytes;
    part.m->pendingOf = part.storage;
    offset += part.staged;
    ++counters_.variableReads;
  }
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  r->fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  snapshotReads_.push_back(r);
}

// ---- public API (glint/gl.h) -------------------------------------------------

namespace {
GlBackend* instance() { return dynamic_cast<GlBackend*>(backendNamed("gl")); }
GlBackend& require(const char* op) {
  GlBackend* b = instance();
  if (!b) fail(op, "the gl backend is not available: ", whyBackendUnavailable("gl"));
  return *b;
}
}  // namespace

Stats stats() {
  Stats s;
  GlBackend* b = instance();
  if (!b) return s;
  s.textures = b->textureCount();
  s.pooledTextures = static_cast<int64_t>(b->pooledTextures());
  const RecoveryCounters& c = b->recovery();
  s.contextLosses = c.contextLosses;
  s.texturesRestored = c.texturesRestored;
  s.variablesRestored = c.variablesRestored;
  s.texturesLost = c.texturesLost;
  s.variablesMoved = c.variablesMoved;
  s.variableReads = c.variableReads;
  s.hostCopyBytes = c.hostCopyBytes;
  s.snapshotSeconds = c.snapshotSeconds;
  return s;
}

void loseContext() { require("gl.loseContext").loseContext(); }

void setRecoveryOptions(const RecoveryOptions& o) {
  check(o.uploadCopyLimit >= 0, "gl.setRecoveryOptions", "uploadCopyLimit must be >= 0, got ",
        o.uploadCopyLimit);
  check(o.snapshotInterval >= 1, "gl.setRecoveryOptions", "snapshotInterval must be >= 1, got ",
        o.snapshotInterval);
  require("gl.setRecoveryOptions")
      .setRecovery(o.variableSnapshots, o.snapshotInterval, o.uploadCopies, o.uploadCopyLimit);
}

}  // namespace glint::gl
