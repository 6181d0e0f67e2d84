#pragma once
// The engine's public face: backend choice, memory accounting, scopes
// (the engine side of the JS tidy()), and the seeded random generator.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "glint/tensor.h"

namespace glint {

struct MemoryInfo {
  int64_t numTensors = 0;                          // live, undisposed tensors (views count)
  int64_t numBuffers = 0;                          // live backend buffers
  int64_t numBytes = 0;                            // bytes in live buffers
  std::map<std::string, int64_t> bytesPerBackend;  // what each backend holds
  bool unreliable = false;  // true when a backend can only estimate its bytes
  // Summed over backends, since start: buffers obtained from the system, and
  // requests served from a backend's pool of released buffers instead.
  int64_t numAllocations = 0;
  int64_t numPoolHits = 0;
};

struct BackendStatus {
  std::string name;
  int priority = 0;
  bool available = false;  // created and its probe passed
  std::string reason;      // why not available, or what it runs on
  bool software = false;   // e.g. llvmpipe / SwiftShader behind a GPU API
};

/// One backend's time for a calibration's step.
struct BackendTiming {
  std::string backend;
  double msPerStep = -1;  // mean over the timed runs; -1 when the step failed there
  int runs = 0;           // timed runs (after the warm-up)
  std::string error;      // why the step could not run there
};
/// What a calibration measured (calibrateBackends, Model::calibrateBackend).
struct Calibration {
  std::string what;                    // the step timed, e.g. "Sequential trainOnBatch, batch 64"
  std::vector<BackendTiming> timings;  // in the order tried
  std::string chosen;                  // the fastest, made active
};

struct BackendInfo {
  std::string active;                   // the backend that runs kernels now
  std::string why;                      // "chosen by priority" / "set by setBackend" / calibrated
  std::vector<BackendStatus> backends;  // every registered backend, by priority
  bool calibrated = false;              // true once a calibration chose the active backend
  Calibration calibration;              // the last one
};

MemoryInfo memory();
/// Disposes every live variable (layers' weights and optimizer state
/// included), as TF.js's disposeVariables; returns how many. A model whose
/// weights went fails naming them on its next use.
int64_t disposeVariables();
/// Gives the buffers that backends pool for reuse back to the system (live
/// tensors are untouched): for memory pressure, or before reading bytesPerBackend.
void releaseUnusedMemory();

/// Makes `name` the active backend (creating and probing it on first use).
/// Throws glint::Error naming the backend and why it is unavailable.
void setBackend(const std::string& name);
/// True until something chooses the backend on purpose (setBackend, a
/// calibration): the active one is then the priority guess, which a model's
/// first fit() replaces by measuring (Model::calibrateBackend).
bool backendChosenAutomatically();

struct CalibrateOptions {
  /// Backends to time; empty: every available one except reference (the
  /// oracle) and software renderers (llvmpipe, SwiftShader).
  std::vector<std::string> candidates;
  int warmup = 2;              // untimed runs first (shader compilation, pools)
  int runs = 5;                // timed runs at most on each backend
  double budgetSeconds = 0.5;  // timed runs on each backend stop past this
};
/// The backends calibrateBackends would time by default.
std::vector<std::string> calibrationCandidates();
/// Times `step` on each candidate backend, made active in turn (each run ends
/// once the backend's queued work is done), then makes the fastest active and
/// records what it measured in backendInfo(). A candidate whose step throws is
/// passed over (its error recorded); throws when none ran. The step's tensors
/// move to each backend as it reads them.
Calibration calibrateBackends(const std::function<void()>& step, const std::string& what,
                              const CalibrateOptions& options = {});
/// Makes `c.chosen` active and records `c` in backendInfo(): for callers that
/// time steps themselves (the JS API awaits asynchronous GPU reads).
void recordCalibration(const Calibration& c);

/// A check on values that are still on the device (a label out of range, say).
/// `failures` is a scalar, > 0 when the check fails. Where its backend reads
/// synchronously it is read at once and `op: message` thrown; elsewhere
/// (WebGPU in node) it is kept until the training step or evaluation that runs
/// it reads its logs, which then throw (takeDeviceChecks, raiseDeviceChecks).
void checkOnDevice(const Tensor& failures, const std::string& op, const std::string& message);
struct DeviceCheck {
  Tensor failures;
  std::string op, message;
};
/// The pending checks, handed to the caller that reads them with its logs.
std::vector<DeviceCheck> takeDeviceChecks();
/// Throws the first check whose value (read back, in order) is > 0 or NaN.
void raiseDeviceChecks(const std::vector<DeviceCheck>& checks, const float* values);

/// A backend whose probe failed is probed again at its next use (in node, a
/// WebGPU device acquired after the engine started).
void probeAgain(const std::string& name);
/// The active backend; picks the best available by priority on first call.
std::string getBackend();
BackendInfo backendInfo();
/// Names of registered backends whose probe passes.
std::vector<std::string> availableBackends();

/// Threads the cpu backend's kernels use, the calling thread included: one per
/// hardware thread by default (at most GLINT_NUM_THREADS when set). Takes
/// effect from the next kernel, on every thread; a kernel already running
/// keeps its count. In WebAssembly at most the workers the page started (1
/// without pthreads). Throws for n < 1.
void setNumThreads(int n);
int numThreads();

/// Debug mode: after every kernel, its float outputs are read back and checked;
/// the first kernel whose output holds a NaN or an infinity throws
/// glint::NumericsError naming the kernel, the output, the first bad element,
/// the backend, and whether the inputs were already non-finite (data) or the
/// kernel made them so. Off by default: each check is a read-back (a GPU sync).
void enableDebugMode(bool on = true);
bool debugMode();

/// Float16 activations (off by default): on a backend that supports them (gl:
/// RGBA16UI textures holding half bits), float32 kernel outputs are stored in
/// float16, halving their memory and bandwidth; kernels still compute in
/// float32, and variables and optimizer state stay float32 (a variable given a
/// float16 value is widened). Values beyond float16's range become infinities
/// and tiny gradients underflow: train with Optimizer::lossScale enabled. Other
/// backends ignore it.
void setFloat16Activations(bool on);
bool float16Activations();

/// Kernel profiling (off by default): while on, each kernel waits for the
/// backend's queued work before and after it runs (Backend::finish) and its
/// wall time is added to its row, so the figures say where a step goes on a
/// GPU too, at the price of running without overlap (a backend that cannot
/// wait, webgpu, times what its kernels queue). kernelProfile() gives
/// the rows since profiling was last turned on, the slowest first: one per
/// kernel, backend and input shapes. With `repeat` > 1 each kernel runs that
/// many times between the two waits and its row gets the mean: a wait's fixed
/// cost on a GPU backend (a round trip to the browser's GPU process, ~0.4 ms
/// on SwiftShader) is amortized, and the figures approach what the kernels
/// cost inside a pipelined step. Kernels are pure (fresh outputs; random
/// values are drawn on the host), so a repeat rewrites the same values.
struct KernelProfileRow {
  std::string kernel;
  std::string backend;
  std::string shapes;  // the inputs', e.g. "[64,784] [784,128]"
  int64_t calls = 0;
  double seconds = 0;
};
void setKernelProfiling(bool on, int repeat = 1);
std::vector<KernelProfileRow> kernelProfile();

/// Scopes: tensors created between startScope and endScope are disposed at
/// endScope, except `keep`-ed and returned ones, which move to the outer scope.
void startScope();
void endScope(const std::vector<Tensor>& result = {});
/// Exempts a tensor from disposal by the enclosing scopes.
void keep(const Tensor& t);
void dispose(const std::vector<Tensor>& tensors);

/// Runs fn inside a scope; a Tensor or vector<Tensor> result survives.
template <class F>
auto tidy(F&& fn) -> decltype(fn()) {
  using R = decltype(fn());
  startScope();
  try {
    if constexpr (std::is_void_v<R>) {
      fn();
      endScope();
    } else {
      R result = fn();
      if constexpr (std::is_same_v<R, Tensor> || std::is_base_of_v<Tensor, R>) {
        endScope({result});
      } else if constexpr (std::is_same_v<R, std::vector<Tensor>>) {
        endScope(result);
      } else {
        endScope();
      }
      return result;
    }
  } catch (...) {
    endScope();
    throw;
  }
}

/// Seeds the engine's random generator (random ops, dropout, initializers).
void setSeed(uint64_t seed);
/// Next 64 random bits; uniform float in [0, 1); standard normal.
uint64_t randomBits();
double randomUniform01();
double randomStandardNormal();

}  // namespace glint
