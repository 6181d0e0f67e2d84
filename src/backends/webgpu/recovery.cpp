// Device loss. WebGPU gives no synchronous way to a new device, so the page
// (the JS API) asks for one when the old is lost and hands it over as
// Module.glintWebGPU; the next call into the backend finds it and rebuilds the
// variables there from their host snapshots. Without a new device, the
// variables move to the next backend by priority and training goes on there.
//
// Snapshots: each new value of a variable is read back asynchronously
// (mapAsync), started at the next blocking read (every training step has one:
// its loss), collected when the page's event loop has run.
#include <cstring>

#include "glint/error.h"
#include "src/backends/webgpu/webgpu_api.h"
#include "src/backends/webgpu/webgpu_backend.h"
#include "src/core/backend_services.h"

namespace glint::webgpu {

void WebGpuBackend::variableChanged(const std::shared_ptr<TensorImpl>& var) {
  Mirror& m = mirrors_[var.get()];
  m.var = var;
  m.dirty = var->storage;
  m.hasDirty = true;
}

void WebGpuBackend::snapshotDirty() {
  for (auto it = mirrors_.begin(); it != mirrors_.end();) {
    Mirror& m = it->second;
    std::shared_ptr<TensorImpl> var = m.var.lock();
    if (!var) {
      if (m.pending.id) glint_wgpu_read_drop(m.pending.id);
      it = mirrors_.erase(it);
      continue;
    }
    ++it;
    if (!m.hasDirty || m.pending.id) continue;  // one read in flight per variable
    std::shared_ptr<Storage> s = m.dirty.lock();
    m.hasDirty = false;
    if (!s || s->backend != this || !static_cast<Buffer*>(s->handle)->id) continue;
    m.pending = startRead(*static_cast<Buffer*>(s->handle));
    m.pendingOf = s;
  }
}

int WebGpuBackend::startSnapshots() {
  collectSnapshots();
  snapshotDirty();
  int pending = 0;
  for (auto& [key, m] : mirrors_) pending += m.pending.id ? 1 : 0;
  return pending;
}

void WebGpuBackend::collectSnapshots() {
  for (auto& [key, m] : mirrors_) {
    if (!m.pending.id) continue;
    int state = poll(m.pending);
    if (state == 0) continue;
    if (state == 1) {
      std::vector<uint8_t> bytes(m.pending.bytes);
      // A read can fail after all when the device went in the meantime.
      if (glint_wgpu_read_take(m.pending.id, bytes.data())) {
        m.snapshot = std::move(bytes);
        m.snapshotOf = m.pendingOf;
      }
      m.pending.id = 0;
    } else {
      glint_wgpu_read_drop(m.pending.id);
      m.pending.id = 0;
    }
  }
}

bool WebGpuBackend::readFromHost(const void* handle, void* dst, size_t bytes) {
  const auto* b = static_cast<const Buffer*>(handle);
  if (b->host && b->host->size() == bytes) {
    std::memcpy(dst, b->host->data(), bytes);
    return true;
  }
  collectSnapshots();
  for (const auto& [key, m] : mirrors_) {
    std::shared_ptr<Storage> of = m.snapshotOf.lock();
    if (of && of->handle == handle && m.snapshot.size() == bytes) {
      std::memcpy(dst, m.snapshot.data(), bytes);
      return true;
    }
  }
  return false;
}

void WebGpuBackend::loseDevice() { glint_wgpu_lose(); }

void WebGpuBackend::restoreIfLost() {
  if (dead_)
    throw DeviceLostError(
        "[webgpu] the WebGPU device was lost and no new one could be had; "
        "the variables moved to the " +
        activeBackend().name() + " backend");
  if (glint_wgpu_lost()) recover();
}

void WebGpuBackend::recover() {
  if (!awaitingDevice_) {
    ++deviceLosses_;
    collectSnapshots();
    // Every buffer went with the device; the objects stay (tensors hold them)
    // with no GPU buffer, so using one throws DeviceLostError.
    for (Buffer* b : live_) {
      liveBytes_ -= static_cast<int64_t>(b->capacity);
      b->id = 0;
      b->capacity = 0;
    }
    for (auto& [cap, b] : pool_) delete b;
    pool_.clear();
    pooledBytes_ = 0;
    pipelines_.clear();
    pipelineUse_.clear();
    for (auto& [key, m] : mirrors_) {
      if (m.pending.id) glint_wgpu_read_drop(m.pending.id);
      m.pending.id = 0;
    }
  }
  int state = glint_wgpu_init();
  if (state == 2) {
    // The page is asking for a new device (asynchronously): callers see the
    // loss now, and the next call after the page's event loop ran recovers.
    awaitingDevice_ = true;
    throw DeviceLostError("[webgpu] the WebGPU device was lost; a new one is being requested");
  }
  awaitingDevice_ = false;
  std::string why;
  bool again = state == 1 && init(why);
  if (!again) {
    dead_ = true;
    Backend& next = fallBackFrom(*this, "its WebGPU device was lost and no new one was given");
    if (&next == this) return;
    for (auto& [key, m] : mirrors_) {
      std::shared_ptr<TensorImpl> var = m.var.lock();
      if (!var || !var->storage || var->storage->backend != this) continue;
      const size_t n = var->storage->bytes;
      if (m.snapshot.size() != n) continue;  // never read back: lost, using it throws
      auto moved = std::make_shared<Storage>(&next, next.allocate(n), n);
      if (n) next.write(moved->handle, m.snapshot.data(), n);
      var->storage = moved;
      next.variableChanged(var);
      ++variablesMoved_;
    }
    mirrors_.clear();
    return;
  }
  // Uploads come back from their host copies, in place.
  for (Buffer* b : live_) {
    if (!b->host || !b->bytes) continue;
    b->capacity = capacityFor(b->bytes);
    b->id = glint_wgpu_buffer_create(static_cast<double>(b->capacity));
    if (!b->id) continue;
    liveBytes_ += static_cast<int64_t>(b->capacity);
    ++numAllocations_;
    glint_wgpu_write(b->id, b->host->data(), static_cast<double>(b->bytes));
    ++buffersRestored_;
  }
  for (auto& [key, m] : mirrors_) {
    std::shared_ptr<TensorImpl> var = m.var.lock();
    if (!var || !var->storage || var->storage->backend != this) continue;
    const size_t n = var->storage->bytes;
    if (m.snapshot.size() != n) continue;
    if (static_cast<Buffer*>(var->storage->handle)->id) continue;  // restored as an upload
    // A new buffer for the variable alone: other holders of its old buffer
    // keep a lost one rather than silently a different value.
    var->storage = std::make_shared<Storage>(this, allocate(n), n);
    if (n) write(var->storage->handle, m.snapshot.data(), n);
    ++variablesRestored_;
  }
}

}  // namespace glint::webgpu
