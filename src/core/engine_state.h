#pragma once
// The engine's internal state: one per process, never destroyed (tensors held
// in user statics may outlive everything else at exit).
//
// Threads (docs/CPP.md, "Threads"): what a computation builds up as it goes
// (scopes, gradient tapes, pending device checks) belongs to the thread that
// runs it (ThreadState); what all threads share (registries, backends, the
// active choice, counters, flags, the generator) is locked or atomic here.
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "glint/backend.h"
#include "glint/engine.h"
#include "glint/profile.h"
#include "src/core/backend_services.h"
#include "src/core/random.h"

namespace glint {

struct TapeNode {
  std::string kernel;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  Attrs attrs;
  GradFn customGrad;  // set by customGrad(); else the registry's
};

/// Records kernel calls while a gradient function runs.
class Tape {
 public:
  Tape();
  ~Tape();
  Tape(const Tape&) = delete;
  Tape& operator=(const Tape&) = delete;
  void record(TapeNode node);
  const std::vector<TapeNode>& nodes() const { return nodes_; }
  /// Stops recording (the tape keeps what it has). Its backward pass then
  /// runs on the tapes around it, if any: that is how grad of grad works.
  void close();

 private:
  std::vector<TapeNode> nodes_;
};

struct BackendEntry {
  std::string name;
  int priority = 0;
  BackendFactory factory;
  std::unique_ptr<Backend> instance;
  bool tried = false;
  std::string whyNot;
};

/// An open profile() (src/core/profile.cpp): runKernel appends to it.
struct ProfileRecorder {
  int64_t startBytes = 0, startTensors = 0;
  ProfileInfo info;
};

/// One thread's computation state: tidy() scopes, the tapes recording it.
struct ThreadState {
  std::vector<std::unique_ptr<ProfileRecorder>> profiles;  // open profiles, innermost last
  std::vector<std::vector<std::weak_ptr<TensorImpl>>> scopes;
  std::vector<Tape*> tapes;
  int recordingPaused = 0;
  /// checkOnDevice's checks waiting for a read (backends without synchronous reads).
  std::vector<DeviceCheck> deviceChecks;
  bool recording() const { return !tapes.empty() && recordingPaused == 0; }
};
/// The calling thread's state.
ThreadState& threadState();

class Engine {
 public:
  static Engine& get();

  Backend& active();
  /// Creates (once) and returns the backend, or null with entry.whyNot set.
  Backend* backend(const std::string& name);
  BackendEntry* entry(const std::string& name);

  void ensureOn(Backend& target, const Tensor& t);
  Tensor makeTensor(const Shape& shape, DType dtype, std::shared_ptr<Storage> storage);
  void track(const std::shared_ptr<TensorImpl>& impl);
  void recordOnTapes(const std::string& kernel, const std::vector<Tensor>& inputs,
                     const std::vector<Tensor>& outputs, const Attrs& attrs,
                     GradFn customGrad = nullptr);
  bool recording() const { return threadState().recording(); }
  /// The kernel registered for (kernel, backend), or null.
  const KernelFn* findKernel(const std::string& kernel, const std::string& backend);
  /// The gradient registered for a kernel, or null.
  const GradFn* findGradient(const std::string& kernel);

  // Backends: entries, their creation and the active choice, under backendMutex.
  // activeBackend is also read without it (every kernel call).
  std::recursive_mutex backendMutex;
  std::vector<BackendEntry> backends;  // sorted by priority, highest first
  std::atomic<Backend*> activeBackend{nullptr};
  std::string activeWhy;
  bool chosenOnPurpose = false;  // setBackend or a calibration chose the active backend
  bool calibrated = false;
  Calibration calibration;  // the last one (backendInfo)
  // Registries: written at start-up (and by users' registerKernel), read by
  // every kernel call; map nodes never move, so a found function stays valid.
  std::shared_mutex registryMutex;
  std::map<std::string, std::map<std::string, KernelFn>> kernels;
  std::map<std::string, GradFn> gradients;

  std::atomic<int64_t> numTensors{0};
  std::atomic<int64_t> numBuffers{0};
  // Every variable made (layers' weights, optimizer slots, tf.variable), for
  // disposeVariables; expired entries are pruned as the list grows.
  std::mutex variablesMutex;
  std::vector<std::weak_ptr<TensorImpl>> variables;
  size_t variablesPruneAt = 64;
  std::atomic<int64_t> numBytes{0};

  std::atomic<bool> debugMode{
      false};  // enableDebugMode: every kernel's outputs checked for NaN/Inf
  std::atomic<bool> float16Activations{false};  // setFloat16Activations
  std::atomic<bool> profiling{false};           // setKernelProfiling
  std::atomic<int> profileRepeat{1};            // ... its runs of each kernel
  std::mutex profileMutex;
  std::map<std::string, KernelProfileRow> profile;  // by kernel, backend and input shapes
  std::mutex rngMutex;
  Rng rng;
  // Moves of a tensor's storage to another backend (ensureOn): threads that
  // first use one tensor after a backend switch must not each move it (each
  // releasing the buffer the other just made: ASan saw matMul read a pooled,
  // poisoned buffer in Threads.SetNumThreadsAnyTime).
  std::mutex storageMoveMutex;

 private:
  Engine() = default;
  std::once_flag initOnce_;
  std::atomic<bool> ready_{false};
};

/// The id the next tensor gets: ids only grow, so a tensor made after this
/// call has an id at or above it (customGrad tells f's own results so).
int64_t tensorIdWatermark();

/// Registers gradients and the backends this build has (src/builtin.cpp).
void registerBuiltins();

/// Reads t's whole buffer into dst (t's storage bytes). A backend that can
/// only read asynchronously throws HostReadPending; this names the tensor in it.
void readStorage(const Tensor& t, void* dst);

}  // namespace glint
