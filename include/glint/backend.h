#pragma once
// For backend and kernel authors: the Backend interface, the kernel and
// gradient registries, and Engine::runKernel. Ops call runKernel; backends
// register one KernelFn per kernel name; gradients are registered once per
// kernel name, written with ops, so they run on every backend.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "glint/attrs.h"
#include "glint/tensor.h"

namespace glint {

/// Owns buffers. A handle is opaque to the engine (host pointer, texture...).
class Backend {
 public:
  virtual ~Backend() = default;
  virtual const std::string& name() const = 0;
  /// Uninitialized buffer of `bytes` (may be 0).
  virtual void* allocate(size_t bytes) = 0;
  virtual void write(void* handle, const void* src, size_t bytes) = 0;
  /// Blocking read of the whole buffer.
  virtual void read(void* handle, void* dst, size_t bytes) = 0;
  /// (optional) false where read() cannot wait for the device (WebGPU in node
  /// has no synchronous read): there, values a step needs on the host travel
  /// with its logs (checkOnDevice) and callers read with startRead-style APIs.
  virtual bool readsSynchronously() const { return true; }
  virtual void release(void* handle, size_t bytes) = 0;
  /// Bytes this backend holds (pools included).
  virtual int64_t bytesInUse() const = 0;
  /// (optional) true when bytesInUse is an estimate.
  virtual bool memoryUnreliable() const { return false; }
  /// (optional) Buffers obtained from the system (malloc, texture creation)
  /// since the backend started, and allocate() calls served from a pool of
  /// released buffers instead; 0 when the backend does not count them.
  virtual int64_t numAllocations() const { return 0; }
  virtual int64_t numPoolHits() const { return 0; }
  /// (optional) Frees the buffers a pool keeps for reuse (live ones stay).
  virtual void releaseUnused() {}
  /// (optional) what it runs on, for backendInfo().
  virtual std::string description() const { return ""; }
  /// (optional) true for software renderers (llvmpipe, SwiftShader).
  virtual bool isSoftware() const { return false; }
  /// (optional) Called when variable `var`, held on this backend, gets a value
  /// (creation, assign). A backend whose device can vanish (a lost GL context)
  /// keeps a host snapshot to restore it from.
  virtual void variableChanged(const std::shared_ptr<TensorImpl>& /*var*/) {}
  /// (optional) Detects a lost device and restores what it can (which may
  /// give variables new buffers): called before a tensor's buffer is read.
  virtual void restoreIfLost() {}
  /// (optional) Waits until the work queued so far has run (GPU backends);
  /// kernel profiling calls it around each kernel.
  virtual void finish() {}
};

/// A backend buffer shared by a tensor and its views; frees itself.
struct Storage {
  Storage(Backend* backend, void* handle, size_t bytes);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  Backend* backend;
  void* handle;
  size_t bytes;
};

/// For a backend whose device is gone (a GL context that cannot be re-created):
/// when it is the active one, the next available backend by priority becomes
/// active (backendInfo().why says why). Returns the active backend.
Backend& fallBackFrom(Backend& lost, const std::string& why);

/// Creates a backend, or returns null and says why in `whyNot` (the probe).
using BackendFactory = std::function<std::unique_ptr<Backend>(std::string& whyNot)>;
/// Higher priority wins the automatic choice.
void registerBackend(const std::string& name, int priority, BackendFactory factory);

struct KernelArgs {
  const std::string& kernel;
  Backend& backend;
  const std::vector<Tensor>& inputs;  // on `backend`
  std::vector<Tensor>& outputs;       // allocated on `backend`, to be filled
  const Attrs& attrs;
};
using KernelFn = std::function<void(KernelArgs&)>;
void registerKernel(const std::string& kernel, const std::string& backend, KernelFn fn);
/// kernel name -> backends that implement it (sorted).
std::vector<std::pair<std::string, std::vector<std::string>>> kernelTable();
/// Every registered backend name, available or not, by priority.
std::vector<std::string> registeredBackends();

struct OutputSpec {
  Shape shape;
  DType dtype;
};
/// Moves inputs to the active backend, allocates outputs, runs the kernel and
/// records it on active gradient tapes. Ops validate before calling this.
std::vector<Tensor> runKernel(const std::string& kernel, const std::vector<Tensor>& inputs,
                              const std::vector<OutputSpec>& outputs, const Attrs& attrs = {});
Tensor runKernel(const std::string& kernel, const std::vector<Tensor>& inputs,
                 const OutputSpec& output, const Attrs& attrs = {});
/// A tensor sharing `t`'s buffer under a new shape of the same size (reshape);
/// recorded on tapes as kernel "Reshape".
Tensor makeView(const Tensor& t, const Shape& shape);

/// What a gradient sees of the recorded kernel call.
struct GradContext {
  const std::vector<Tensor>& inputs;
  const std::vector<Tensor>& outputs;
  const Attrs& attrs;
  /// Which inputs the caller wants a gradient for (null: all). A model's
  /// input batch needs none, and its matMul / conv gradient is a third of a
  /// dense or conv layer's backward work: rules skip what is not needed.
  const std::vector<bool>* needed = nullptr;
  bool needs(size_t i) const { return !needed || (*needed)[i]; }
};
/// dys: one per output (zeros where an output did not reach the result).
/// Returns one gradient per input; an undefined Tensor means "no gradient"
/// (integer inputs, indices, or an input that ctx.needs() says is not wanted).
using GradFn =
    std::function<std::vector<Tensor>(const std::vector<Tensor>& dys, const GradContext& ctx)>;
void registerGradient(const std::string& kernel, GradFn fn);
bool hasGradient(const std::string& kernel);

/// Host pointer of a tensor on a host-memory backend (reference, cpu).
template <class T>
T* hostData(const Tensor& t) {
  return static_cast<T*>(t.impl()->storage->handle);
}

}  // namespace glint
