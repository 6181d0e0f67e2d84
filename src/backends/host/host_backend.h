#pragma once
// A backend whose buffers are plain host memory (reference and cpu share it;
// kernels reach the memory through glint::hostData<T>).
//
// Released buffers go to a pool, one free list per size class, and allocate
// takes from it before asking the system: steady-state training then makes no
// system allocations. Size classes are 64-byte multiples up to 4 KiB, then
// four per power of two (at most 25% slack). The pool holds at most
// kDefaultPoolCap bytes (a release beyond that frees), and gives everything
// back on releaseUnused(), on a failed system allocation, and at destruction.
// Threads allocate and release at once (docs/CPP.md, "Threads"): the pool is
// locked, the counters atomic.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "glint/backend.h"

namespace glint {

class HostBackend : public Backend {
 public:
  static constexpr int64_t kDefaultPoolCap = int64_t{256} << 20;

  HostBackend(std::string name, std::string description)
      : name_(std::move(name)), description_(std::move(description)) {}
  ~HostBackend() override;
  const std::string& name() const override { return name_; }
  void* allocate(size_t bytes) override;
  void write(void* handle, const void* src, size_t bytes) override;
  void read(void* handle, void* dst, size_t bytes) override;
  void release(void* handle, size_t bytes) override;
  /// Live buffers and pooled ones, each counted at its size class.
  int64_t bytesInUse() const override { return bytesHeld_; }
  int64_t numAllocations() const override { return numAllocations_; }
  int64_t numPoolHits() const override { return numPoolHits_; }
  void releaseUnused() override;
  std::string description() const override { return description_; }

  /// Bytes in the pool now (part of bytesInUse).
  int64_t pooledBytes() const { return pooledBytes_; }
  /// The most the pool keeps; lowering it trims the pool at once.
  void setPoolCap(int64_t bytes);

  /// The capacity a request of `bytes` (> 0) gets: its size class.
  static size_t sizeClass(size_t bytes);

  /// Test hook: reads as WebGPU outside a page does (no blocking read). read()
  /// serves only buffers with a host copy (uploads, and what keepHostCopy
  /// took) and throws HostReadPending for the others; readsSynchronously() is
  /// false meanwhile. Kernels read their inputs as ever. Off drops the copies.
  void setAsyncReadsOnly(bool on);
  /// What a landed asynchronous read leaves on WebGPU: the buffer's bytes as
  /// they are now, kept as its host copy until the buffer is released.
  void keepHostCopy(const void* handle, size_t bytes);
  bool readsSynchronously() const override { return !asyncReadsOnly_; }

 private:
  std::string name_;
  std::string description_;
  void releaseUnusedLocked();

  std::mutex mutex_;                                     // guards free_ and poolCap_
  std::unordered_map<size_t, std::vector<void*>> free_;  // size class -> free buffers
  int64_t poolCap_ = kDefaultPoolCap;
  std::atomic<int64_t> bytesHeld_{0};
  std::atomic<int64_t> pooledBytes_{0};
  std::atomic<int64_t> numAllocations_{0};
  std::atomic<int64_t> numPoolHits_{0};
  std::atomic<bool> asyncReadsOnly_{false};
  std::unordered_map<const void*, std::vector<uint8_t>> hostCopies_;  // guarded by mutex_
};

}  // namespace glint
