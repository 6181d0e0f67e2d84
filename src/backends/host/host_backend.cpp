#include "src/backends/host/host_backend.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "glint/error.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GLINT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define GLINT_ASAN 1
#endif
#if defined(GLINT_ASAN)
#include <sanitizer/asan_interface.h>
// A pooled buffer is poisoned, so a kernel or tensor touching a released
// buffer is still reported as a use after free would be.
#define GLINT_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define GLINT_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define GLINT_POISON(p, n) ((void)(p), (void)(n))
#define GLINT_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace glint {

// 64-byte alignment: one cache line, and the widest SIMD register (AVX-512).
static constexpr size_t kAlignment = 64;

size_t HostBackend::sizeClass(size_t bytes) {
  if (bytes <= 4096) return (bytes + kAlignment - 1) / kAlignment * kAlignment;
  // 2^k < bytes <= 2^(k+1): steps of 2^k / 4 (k >= 12, so 64-byte multiples).
  int k = 63 - __builtin_clzll(static_cast<unsigned long long>(bytes - 1));
  size_t step = size_t{1} << (k - 2);
  return (bytes + step - 1) / step * step;
}

HostBackend::~HostBackend() { releaseUnused(); }

void* HostBackend::allocate(size_t bytes) {
  if (bytes == 0) return nullptr;
  const size_t size = sizeClass(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = free_.find(size);
  if (it != free_.end() && !it->second.empty()) {
    void* p = it->second.back();
    it->second.pop_back();
    pooledBytes_ -= static_cast<int64_t>(size);
    numPoolHits_ += 1;
    GLINT_UNPOISON(p, size);
    return p;
  }
  void* p = std::aligned_alloc(kAlignment, size);
  if (!p && pooledBytes_ > 0) {  // memory pressure: give the pool back, then retry
    releaseUnusedLocked();
    p = std::aligned_alloc(kAlignment, size);
  }
  if (!p) throw std::bad_alloc();
  numAllocations_ += 1;
  bytesHeld_ += static_cast<int64_t>(size);
  return p;
}

void HostBackend::write(void* handle, const void* src, size_t bytes) {
  if (bytes) std::memcpy(handle, src, bytes);
  if (asyncReadsOnly_ && bytes) keepHostCopy(handle, bytes);
}

void HostBackend::read(void* handle, void* dst, size_t bytes) {
  if (!bytes) return;
  if (asyncReadsOnly_) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = hostCopies_.find(handle);
    if (it == hostCopies_.end() || it->second.size() != bytes)
      throw HostReadPending("[" + name_ +
                            "] read: only asynchronous reads here (setAsyncReadsOnly)");
    // From the copy, not the buffer: a copy gone stale would show.
    std::memcpy(dst, it->second.data(), bytes);
    return;
  }
  std::memcpy(dst, handle, bytes);
}

void HostBackend::setAsyncReadsOnly(bool on) {
  asyncReadsOnly_ = on;
  if (on) return;
  std::lock_guard<std::mutex> lock(mutex_);
  hostCopies_.clear();
}

void HostBackend::keepHostCopy(const void* handle, size_t bytes) {
  const auto* p = static_cast<const uint8_t*>(handle);
  std::vector<uint8_t> copy(p, p + bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  hostCopies_[handle] = std::move(copy);
}

void HostBackend::release(void* handle, size_t bytes) {
  if (!handle) return;
  const size_t size = sizeClass(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!hostCopies_.empty()) hostCopies_.erase(handle);
  if (pooledBytes_ + static_cast<int64_t>(size) > poolCap_) {
    std::free(handle);
    bytesHeld_ -= static_cast<int64_t>(size);
    return;
  }
  try {
    free_[size].push_back(handle);
  } catch (const std::bad_alloc&) {  // release runs in destructors: never throw
    std::free(handle);
    bytesHeld_ -= static_cast<int64_t>(size);
    return;
  }
  GLINT_POISON(handle, size);
  pooledBytes_ += static_cast<int64_t>(size);
}

void HostBackend::releaseUnused() {
  std::lock_guard<std::mutex> lock(mutex_);
  releaseUnusedLocked();
}

void HostBackend::releaseUnusedLocked() {
  for (auto& [size, buffers] : free_) {
    for (void* p : buffers) {
      GLINT_UNPOISON(p, size);
      std::free(p);
    }
    bytesHeld_ -= static_cast<int64_t>(size * buffers.size());
    pooledBytes_ -= static_cast<int64_t>(size * buffers.size());
  }
  free_.clear();
}

void HostBackend::setPoolCap(int64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  poolCap_ = bytes < 0 ? 0 : bytes;
  if (pooledBytes_ > poolCap_) releaseUnusedLocked();
}

}  // namespace glint
