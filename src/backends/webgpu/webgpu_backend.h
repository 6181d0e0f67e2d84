#pragma once
// The webgpu backend: tensors live in storage buffers holding their raw bytes
// (bools one byte each, buffers padded to 4 bytes), so every dtype is
// bit-exact and reshape views share a buffer. Each kernel is one or more
// WGSL compute dispatches, recorded into one pass and submitted together;
// only reads wait for the GPU.
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "glint/backend.h"
#include "src/backends/webgpu/self_test_verdict.h"

namespace glint::webgpu {

struct Buffer {
  int id = 0;           // 0: no GPU buffer (0 bytes, or lost with its device)
  size_t bytes = 0;     // what the tensor uses
  size_t capacity = 0;  // the GPU buffer's size (a multiple of 4)
  /// The bytes it was uploaded with (write): uploaded again after a device loss.
  std::shared_ptr<const std::vector<uint8_t>> host;
};

struct Pipeline {
  int id = 0;
  int numInputs = 0;
  int numOutputs = 0;
};

/// The GPU buffer size for a tensor of `bytes` (rounded so the pool finds matches).
size_t capacityFor(size_t bytes);

/// Workgroup counts of a dispatch.
struct Grid {
  int x = 1, y = 1, z = 1;
};

/// What the adapter offers (glint_wgpu_info's JSON).
struct DeviceInfo {
  std::string vendor, architecture, device, description;
  bool software = false;
  bool f16 = false;
  int maxStorageBuffers = 8;
  int maxWorkgroupsPerDimension = 65535;
  int maxInvocationsPerWorkgroup = 256;
  int64_t maxBindingBytes = 128 << 20;
  /// Allowed differences the precision self-test saw (backendInfo reports them).
  std::vector<std::string> selfTestDeviations;
};

class WebGpuBackend : public Backend {
 public:
  /// Needs the device the page acquired (navigator.gpu is asynchronous);
  /// runs a precision self-test. Null + why when anything fails.
  static std::unique_ptr<WebGpuBackend> create(std::string& whyNot);
  ~WebGpuBackend() override;

  const std::string& name() const override { return name_; }
  void* allocate(size_t bytes) override;
  void write(void* handle, const void* src, size_t bytes) override;
  void read(void* handle, void* dst, size_t bytes) override;
  bool readsSynchronously() const override { return syncReads_; }
  void release(void* handle, size_t bytes) override;
  int64_t bytesInUse() const override { return liveBytes_ + pooledBytes_; }
  std::string description() const override;
  bool isSoftware() const override { return info_.software; }
  int64_t numAllocations() const override { return numAllocations_; }
  int64_t numPoolHits() const override { return numPoolHits_; }
  void releaseUnused() override;
  void variableChanged(const std::shared_ptr<TensorImpl>& var) override;
  void restoreIfLost() override;

  const DeviceInfo& info() const { return info_; }
  /// Kernels choose their software-adapter forms (no workgroup memory) here;
  /// tests force the GPU forms on SwiftShader so that they run in CI too.
  bool softwareKernels() const { return info_.software && !forceGpuKernels_; }
  void setForceGpuKernels(bool on) { forceGpuKernels_ = on; }
  /// GPU timing (timestamp queries): while on, each dispatch is timed on the
  /// GPU under the name of the kernel that made it. Returns whether it is on
  /// (false where the device has no timestamp-query).
  bool setTiming(bool on);
  /// Most inputs + outputs one dispatch can bind (one binding holds the parameters).
  int maxBuffers() const { return info_.maxStorageBuffers - 1; }
  /// The pipeline for a complete WGSL source, compiled once and cached by
  /// source: the kPipelineCache most recently used. Sources carry shapes, so
  /// a program of ever-new shapes must not grow the cache (and the driver's
  /// compiled code) without end.
  Pipeline pipeline(const std::string& source, int numInputs, int numOutputs);
  static constexpr size_t kPipelineCache = 512;
  /// Released buffers wait in a pool for a request of their size, up to this
  /// many bytes (or the live bytes, if more): sizes that never come back
  /// would otherwise pile up.
  static constexpr int64_t kPoolBytes = int64_t{256} << 20;
  /// Records a dispatch; `params` land in the shader's u_params array.
  void dispatch(const Pipeline& p, const std::vector<const Buffer*>& inputs,
                const std::vector<Buffer*>& outputs, Grid grid,
                const std::vector<float>& params = {});
  /// `invocations` threads in workgroups of `groupSize`, spread over x and y
  /// (WGSL: wgsl.h's flatIndex gives each its number).
  Grid grid1D(int64_t invocations, int groupSize) const;
  /// Submits the recorded work.
  void flush();
  size_t pooledBuffers() const { return pool_.size(); }
  int64_t pooledBytes() const { return pooledBytes_; }
  size_t pipelinesCached() const { return pipelines_.size(); }
  int64_t liveBuffers() const { return static_cast<int64_t>(live_.size()); }

  /// Asynchronous read of a buffer: mapAsync on a copy. ready() turns true
  /// only after the page's event loop ran.
  struct PendingRead {
    int id = 0;
    size_t bytes = 0;
  };
  PendingRead startRead(const Buffer& b);
  /// 1 ready, 0 not yet, -1 failed (device lost).
  int poll(const PendingRead& r) const;
  std::vector<uint8_t> finishRead(PendingRead& r);
  /// Keeps bytes an asynchronous read returned as the buffer's host copy, so
  /// that synchronous reads of it succeed (GraphRun retries the node that
  /// waited for them). Buffers are immutable while they hold a tensor, and the
  /// copy goes when the buffer is released.
  void keepHostCopy(const Buffer& b, std::vector<uint8_t> bytes);

  // ---- device loss (recovery.cpp) ----
  /// Starts the snapshot reads of the variables changed since the last ones;
  /// returns the reads in flight (the page awaits them between batches).
  int startSnapshots();
  /// Test hook: destroys the device; the next call into the backend recovers.
  void loseDevice();
  int64_t deviceLosses() const { return deviceLosses_; }
  int64_t variablesRestored() const { return variablesRestored_; }
  int64_t variablesMoved() const { return variablesMoved_; }
  int64_t buffersRestored() const { return buffersRestored_; }
  int64_t hostCopyBytes() const { return hostCopyBytes_; }

 private:
  WebGpuBackend() = default;
  bool init(std::string& whyNot);
  bool selfTest(std::string& whyNot);
  bool acceptSelfTest(const SelfTestVerdict& verdict, std::string& whyNot);
  void destroy(Buffer* b);
  void dropHostCopy(Buffer* b);
  void recover();
  void snapshotDirty();
  /// Takes the snapshot reads that have landed (never waits: they land only
  /// after the page's event loop ran).
  void collectSnapshots();

  std::string name_ = "webgpu";
  DeviceInfo info_;
  struct CachedPipeline {
    Pipeline pipeline;
    std::list<std::string>::iterator use;
  };
  std::unordered_map<std::string, CachedPipeline> pipelines_;
  std::list<std::string> pipelineUse_;   // sources, most recently used first
  std::multimap<size_t, Buffer*> pool_;  // released buffers by capacity
  std::unordered_set<Buffer*> live_;
  int64_t liveBytes_ = 0;
  int64_t pooledBytes_ = 0;
  int64_t numAllocations_ = 0;
  int64_t numPoolHits_ = 0;
  // Device loss: every variable's last value read back whole, by tensor.
  struct Mirror {
    std::weak_ptr<TensorImpl> var;
    std::vector<uint8_t> snapshot;
    std::weak_ptr<Storage> dirty;  // a value not read back yet
    bool hasDirty = false;
    PendingRead pending;
    std::weak_ptr<Storage> pendingOf, snapshotOf;  // the buffers read and snapshot come from
  };
  std::unordered_map<const TensorImpl*, Mirror> mirrors_;
  /// Reads that can wait for the GPU (a canvas: a page or a worker), not in node.
  bool syncReads_ = true;
  bool forceGpuKernels_ = false;
  bool timing_ = false;
  /// Without synchronous reads: the bytes from an upload's host copy or a
  /// variable's landed snapshot, when one holds this buffer's value.
  bool readFromHost(const void* handle, void* dst, size_t bytes);
  bool dead_ = false;
  bool awaitingDevice_ = false;  // lost; the page is asking for a new device
  int64_t deviceLosses_ = 0;
  int64_t buffersRestored_ = 0;
  int64_t hostCopyBytes_ = 0;
  static constexpr int64_t kHostCopyLimit = int64_t{256} << 20;
  int64_t variablesRestored_ = 0;
  int64_t variablesMoved_ = 0;
};

/// The engine's webgpu backend; null when it is not available.
WebGpuBackend* instance();

inline Buffer& bufferOf(const Tensor& t) {
  return *static_cast<Buffer*>(t.impl()->storage->handle);
}
inline WebGpuBackend& gpuBackend(KernelArgs& args) {
  return static_cast<WebGpuBackend&>(args.backend);
}

}  // namespace glint::webgpu
