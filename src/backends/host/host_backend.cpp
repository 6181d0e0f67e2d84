#include "src/backends/host/host_backend.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace glint {

// 64-byte alignment: one cache line, and the widest SIMD register (AVX-512).
static constexpr size_t kAlignment = 64;

void* HostBackend::allocate(size_t bytes) {
  if (bytes == 0) return nullptr;
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (!p) throw std::bad_alloc();
  bytesInUse_ += static_cast<int64_t>(bytes);
  return p;
}

void HostBackend::write(void* handle, const void* src, size_t bytes) {
  if (bytes) std::memcpy(handle, src, bytes);
}

void HostBackend::read(void* handle, void* dst, size_t bytes) {
  if (bytes) std::memcpy(dst, handle, bytes);
}

void HostBackend::release(void* handle, size_t bytes) {
  if (!handle) return;
  std::free(handle);
  bytesInUse_ -= static_cast<int64_t>(bytes);
}

}  // namespace glint
