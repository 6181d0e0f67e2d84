#pragma once
// The engine's internal state: one per process, never destroyed (tensors held
// in user statics may outlive everything else at exit).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "glint/backend.h"
#include "glint/engine.h"
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
  bool recording() const { return !tapes.empty() && recordingPaused == 0; }

  std::vector<BackendEntry> backends;  // sorted by priority, highest first
  Backend* activeBackend = nullptr;
  std::string activeWhy;
  std::map<std::string, std::map<std::string, KernelFn>> kernels;
  std::map<std::string, GradFn> gradients;

  int64_t numTensors = 0;
  int64_t numBuffers = 0;
  int64_t numBytes = 0;

  std::vector<std::vector<std::weak_ptr<TensorImpl>>> scopes;
  std::vector<Tape*> tapes;
  int recordingPaused = 0;
  bool debugMode = false;  // enableDebugMode: every kernel's outputs checked for NaN/Inf
  bool float16Activations = false;  // setFloat16Activations
  bool profiling = false;           // setKernelProfiling
  int profileRepeat = 1;            // ... its runs of each kernel
  std::map<std::string, KernelProfileRow> profile;  // by kernel, backend and input shapes
  Rng rng;
  /// checkOnDevice's checks waiting for a read (backends without synchronous reads).
  std::vector<DeviceCheck> deviceChecks;

 private:
  Engine() = default;
  bool initialized_ = false;
};

/// Pauses tape recording for its lifetime (backprop, customGrad internals).
struct RecordingPause {
  RecordingPause() { ++Engine::get().recordingPaused; }
  ~RecordingPause() { --Engine::get().recordingPaused; }
};

/// Registers gradients and the backends this build has (src/backends/builtin.cpp).
void registerBuiltins();

}  // namespace glint
