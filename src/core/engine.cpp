#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <unordered_set>

#include "glint/error.h"
#include "src/core/engine_state.h"
#include "src/core/kernel_selection.h"
#include "src/core/running_kernel.h"

namespace glint {

ThreadState& threadState() {
  thread_local ThreadState state;
  return state;
}

Engine& Engine::get() {
  static Engine* engine = new Engine();
  // registerBuiltins registers through get(): on the thread running it, the
  // half-built engine is returned; other threads wait for it in call_once.
  thread_local bool registering = false;
  if (!engine->ready_.load(std::memory_order_acquire) && !registering) {
    std::call_once(engine->initOnce_, [] {
      registering = true;
      struct Done {
        ~Done() { registering = false; }
      } done;
      registerBuiltins();
      engine->ready_.store(true, std::memory_order_release);
    });
  }
  return *engine;
}

const KernelFn* Engine::findKernel(const std::string& kernel, const std::string& backend) {
  std::shared_lock<std::shared_mutex> lock(registryMutex);
  auto byBackend = kernels.find(kernel);
  if (byBackend == kernels.end()) return nullptr;
  auto fn = byBackend->second.find(backend);
  return fn == byBackend->second.end() ? nullptr : &fn->second;
}

const GradFn* Engine::findGradient(const std::string& kernel) {
  std::shared_lock<std::shared_mutex> lock(registryMutex);
  auto it = gradients.find(kernel);
  return it == gradients.end() ? nullptr : &it->second;
}

BackendEntry* Engine::entry(const std::string& name) {
  for (auto& e : backends)
    if (e.name == name) return &e;
  return nullptr;
}

Backend* Engine::backend(const std::string& name) {
  std::lock_guard<std::recursive_mutex> lock(backendMutex);
  BackendEntry* e = entry(name);
  if (!e) return nullptr;
  if (!e->tried) {
    e->tried = true;
    try {
      e->instance = e->factory(e->whyNot);
    } catch (const std::exception& ex) {
      e->whyNot = ex.what();
    }
    if (!e->instance && e->whyNot.empty()) e->whyNot = "its probe failed";
  }
  return e->instance.get();
}

Backend& Engine::active() {
  if (Backend* b = activeBackend.load(std::memory_order_acquire)) return *b;
  std::lock_guard<std::recursive_mutex> lock(backendMutex);
  if (Backend* b = activeBackend.load()) return *b;  // another thread chose meanwhile
  // A software renderer (llvmpipe, SwiftShader) behind a GPU API is slower
  // than the CPU backend: the automatic choice takes one only when nothing
  // else works. setBackend still selects it.
  std::string skipped;
  for (bool allowSoftware : {false, true}) {
    for (auto& e : backends) {
      Backend* b = backend(e.name);
      if (b && (allowSoftware || !b->isSoftware())) {
        activeWhy = "highest-priority backend whose probe passed" + skipped;
        activeBackend.store(b, std::memory_order_release);
        return *b;
      }
      if (!allowSoftware) {
        skipped += "; skipped " + e.name + ": " +
                   (b ? std::string("a software renderer (") + b->description() + ")" : e.whyNot);
      }
    }
  }
  fail("engine", "no backend is available", skipped);
}

void Engine::ensureOn(Backend& target, const Tensor& t) {
  Storage& s = *t.impl()->storage;
  Backend* from;
  {
    std::lock_guard<std::mutex> lock(storageMoveMutex);
    if (s.backend == &target) return;
    from = s.backend;
  }
  from->restoreIfLost();
  // One thread moves it; the others, waiting here, find it moved.
  std::lock_guard<std::mutex> lock(storageMoveMutex);
  if (s.backend == &target) return;
  std::vector<uint8_t> host(s.bytes);
  readStorage(t, host.data());
  void* handle = target.allocate(s.bytes);
  if (s.bytes) target.write(handle, host.data(), s.bytes);
  s.backend->release(s.handle, s.bytes);
  s.backend = &target;
  s.handle = handle;
}

void Engine::track(const std::shared_ptr<TensorImpl>& impl) {
  auto& scopes = threadState().scopes;
  if (!scopes.empty()) scopes.back().push_back(impl);
}

Tensor Engine::makeTensor(const Shape& shape, DType dtype, std::shared_ptr<Storage> storage) {
  auto impl = std::make_shared<TensorImpl>(shape, dtype, std::move(storage));
  track(impl);
  return Tensor(std::move(impl));
}

void Engine::recordOnTapes(const std::string& kernel, const std::vector<Tensor>& inputs,
                           const std::vector<Tensor>& outputs, const Attrs& attrs,
                           GradFn customGrad) {
  for (Tape* tape : threadState().tapes)
    tape->record(TapeNode{kernel, inputs, outputs, attrs, customGrad});
}

// ---- Storage --------------------------------------------------------------

Storage::Storage(Backend* b, void* h, size_t n) : backend(b), handle(h), bytes(n) {
  Engine& e = Engine::get();
  e.numBuffers += 1;
  int64_t total = e.numBytes += static_cast<int64_t>(n);
  for (auto& p : threadState().profiles) p->info.peakBytes = std::max(p->info.peakBytes, total);
}

Storage::~Storage() {
  Engine& e = Engine::get();
  e.numBuffers -= 1;
  e.numBytes -= static_cast<int64_t>(bytes);
  backend->release(handle, bytes);
}

// ---- Registries -------------------------------------------------------------

void registerBackend(const std::string& name, int priority, BackendFactory factory) {
  Engine& e = Engine::get();
  std::lock_guard<std::recursive_mutex> lock(e.backendMutex);
  check(e.entry(name) == nullptr, "registerBackend", "backend '", name, "' is already registered");
  e.backends.push_back(BackendEntry{name, priority, std::move(factory), nullptr, false, ""});
  std::stable_sort(
      e.backends.begin(), e.backends.end(),
      [](const BackendEntry& a, const BackendEntry& b) { return a.priority > b.priority; });
}

void registerKernel(const std::string& kernel, const std::string& backend, KernelFn fn) {
  Engine& e = Engine::get();
  std::unique_lock<std::shared_mutex> lock(e.registryMutex);
  e.kernels[kernel][backend] = std::move(fn);
}

void registerGradient(const std::string& kernel, GradFn fn) {
  Engine& e = Engine::get();
  std::unique_lock<std::shared_mutex> lock(e.registryMutex);
  e.gradients[kernel] = std::move(fn);
}

bool hasGradient(const std::string& kernel) {
  return Engine::get().findGradient(kernel) != nullptr;
}

std::vector<std::pair<std::string, std::vector<std::string>>> kernelTable() {
  std::vector<std::pair<std::string, std::vector<std::string>>> table;
  Engine& e = Engine::get();
  std::shared_lock<std::shared_mutex> lock(e.registryMutex);
  for (const auto& [kernel, byBackend] : e.kernels) {
    std::vector<std::string> names;
    for (const auto& [backend, fn] : byBackend) names.push_back(backend);
    table.emplace_back(kernel, names);
  }
  return table;
}

std::vector<std::string> registeredBackends() {
  std::vector<std::string> names;
  Engine& engine = Engine::get();
  std::lock_guard<std::recursive_mutex> lock(engine.backendMutex);
  for (const auto& e : engine.backends) names.push_back(e.name);
  return names;
}

// ---- Running kernels --------------------------------------------------------

namespace {

// Index of the first NaN or infinity of a float32 tensor, or -1.
int64_t firstNonFinite(const Tensor& t, float& value) {
  if (t.dtype() != DType::float32) return -1;
  const std::vector<float> v = t.data<float>();
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) {
      value = v[i];
      return static_cast<int64_t>(i);
    }
  return -1;
}

// Debug mode: names the first kernel whose output is not finite. Inputs are
// only read once an output is bad, to tell "made here" from "came in so".
void checkFinite(const std::string& kernel, Backend& backend, const std::vector<Tensor>& inputs,
                 const std::vector<Tensor>& outputs) {
  for (size_t o = 0; o < outputs.size(); ++o) {
    float bad = 0;
    const int64_t at = firstNonFinite(outputs[o], bad);
    if (at < 0) continue;
    std::string origin = "its inputs were finite, so this kernel made it";
    for (size_t i = 0; i < inputs.size(); ++i) {
      float inputBad = 0;
      const int64_t inputAt = firstNonFinite(inputs[i], inputBad);
      if (inputAt < 0) continue;
      origin = "input " + std::to_string(i) + " " + shapeToString(inputs[i].shape()) +
               " was already non-finite at element " + std::to_string(inputAt) +
               " (it came from data or from a kernel run outside debug mode)";
      break;
    }
    std::string inputShapes;
    for (const Tensor& t : inputs)
      inputShapes += (inputShapes.empty() ? "" : ", ") + shapeToString(t.shape());
    std::ostringstream os;
    detail::appendAll(os, "[", kernel, "] debug mode: output ", o, " ",
                      shapeToString(outputs[o].shape()), " holds ",
                      std::isnan(bad) ? "NaN" : (bad > 0 ? "+Infinity" : "-Infinity"),
                      " at element ", at, " on backend '", backend.name(), "' (inputs ",
                      inputShapes.empty() ? "none" : inputShapes, "); ", origin);
    throw NumericsError(os.str());
  }
}

}  // namespace

void enableDebugMode(bool on) { Engine::get().debugMode = on; }
bool debugMode() { return Engine::get().debugMode; }
void setFloat16Activations(bool on) { Engine::get().float16Activations = on; }
bool float16Activations() { return Engine::get().float16Activations; }

void setKernelProfiling(bool on, int repeat) {
  check(repeat >= 1, "setKernelProfiling", "repeat must be >= 1, got ", repeat);
  Engine& e = Engine::get();
  std::lock_guard<std::mutex> lock(e.profileMutex);
  if (on && !e.profiling) e.profile.clear();
  e.profileRepeat = repeat;
  e.profiling = on;
}

std::vector<KernelProfileRow> kernelProfile() {
  std::vector<KernelProfileRow> rows;
  Engine& e = Engine::get();
  std::lock_guard<std::mutex> lock(e.profileMutex);
  for (const auto& [key, row] : e.profile) rows.push_back(row);
  std::sort(rows.begin(), rows.end(), [](const KernelProfileRow& a, const KernelProfileRow& b) {
    return a.seconds > b.seconds;
  });
  return rows;
}

namespace {

/// Runs a kernel for the open profiles: timed with the device waited for,
/// then one record in each (TF.js's tf.profile fields).
void recordForProfiles(const std::string& kernel, Backend& backend,
                       const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                       const std::function<void()>& run, int64_t bytesBefore,
                       int64_t tensorsBefore) {
  Engine& e = Engine::get();
  backend.finish();
  auto t0 = std::chrono::steady_clock::now();
  run();
  backend.finish();
  KernelRecord r;
  r.kernelTimeMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  r.name = kernel;
  r.backend = backend.name();
  for (const Tensor& t : inputs) r.inputShapes.push_back(t.shape());
  for (const Tensor& t : outputs) r.outputShapes.push_back(t.shape());
  r.totalBytesSnapshot = e.numBytes;
  r.totalTensorsSnapshot = e.numTensors;
  r.bytesAdded = r.totalBytesSnapshot - bytesBefore;
  r.tensorsAdded = r.totalTensorsSnapshot - tensorsBefore;
  for (auto& p : threadState().profiles) p->info.kernels.push_back(r);
}

}  // namespace

namespace {
thread_local const char* tRunningKernel = "";
/// Names the kernel this thread runs for its lifetime (nested kernels restore the outer one).
struct RunningKernel {
  const char* outer = tRunningKernel;
  explicit RunningKernel(const std::string& name) { tRunningKernel = name.c_str(); }
  ~RunningKernel() { tRunningKernel = outer; }
};
}  // namespace

const char* runningKernel() { return tRunningKernel; }

std::vector<Tensor> runKernel(const std::string& kernel, const std::vector<Tensor>& inputs,
                              const std::vector<OutputSpec>& outputSpecs, const Attrs& attrs) {
  Engine& e = Engine::get();
  Backend& backend = e.active();
  for (size_t i = 0; i < inputs.size(); ++i) {
    check(inputs[i].defined(), kernel, "input ", i, " is an undefined tensor");
    if (inputs[i].isDisposed()) {
      // A disposed weight (disposeVariables, model.dispose) names itself.
      if (inputs[i].impl()->isVariable)
        fail(kernel, "input ", i, ": variable '", inputs[i].impl()->name, "' ",
             shapeToString(inputs[i].shape()), " was disposed");
      fail(kernel, "input ", i, " (", shapeToString(inputs[i].shape()), ") was disposed");
    }
    e.ensureOn(backend, inputs[i]);
  }
  const KernelFn* fn = e.findKernel(kernel, backend.name());
  if (!fn) {
    // A build for one app (GLINT_KERNELS) leaves out the kernels it never runs:
    // say so, rather than blame the backend.
    if (!kernelSelected(kernel))
      fail(kernel, "this build of Glint holds only the ", kSelectedKernels.size(),
           " kernels listed in ", kKernelSelection, " (GLINT_KERNELS), and '", kernel,
           "' is not one of them: add it to the list (tools/kernels_for.mjs finds a model's "
           "kernels) and rebuild, or use the full build");
    fail(kernel, "no kernel registered for backend '", backend.name(), "'");
  }
  const int64_t bytesBefore = e.numBytes, tensorsBefore = e.numTensors;  // for profile()
  std::vector<Tensor> outputs;
  outputs.reserve(outputSpecs.size());
  bool anyElements = false;
  for (const OutputSpec& spec : outputSpecs) {
    for (int64_t d : spec.shape)
      if (d < 0)
        fail(kernel, "output shape ", shapeToString(spec.shape), " has a negative dimension");
    size_t bytes = static_cast<size_t>(shapeSize(spec.shape)) * byteSize(spec.dtype);
    anyElements = anyElements || bytes > 0;
    auto storage = std::make_shared<Storage>(&backend, backend.allocate(bytes), bytes);
    outputs.push_back(e.makeTensor(spec.shape, spec.dtype, std::move(storage)));
  }
  RunningKernel running(kernel);
  if (!threadState().profiles.empty()) {
    recordForProfiles(
        kernel, backend, inputs, outputs,
        [&] {
          if (!anyElements) return;
          KernelArgs args{kernel, backend, inputs, outputs, attrs};
          (*fn)(args);
        },
        bytesBefore, tensorsBefore);
    if (anyElements && e.debugMode) checkFinite(kernel, backend, inputs, outputs);
  } else if (anyElements) {
    KernelArgs args{kernel, backend, inputs, outputs, attrs};
    if (e.profiling) {
      backend.finish();  // earlier kernels' work is not this one's
      auto t0 = std::chrono::steady_clock::now();
      const int repeat = e.profileRepeat;
      for (int r = 0; r < repeat; ++r) (*fn)(args);
      backend.finish();
      std::string shapes;
      for (const Tensor& t : inputs)
        shapes += (shapes.empty() ? "" : " ") + shapeToString(t.shape());
      std::lock_guard<std::mutex> lock(e.profileMutex);
      KernelProfileRow& row = e.profile[kernel + " " + backend.name() + " " + shapes];
      row.kernel = kernel;
      row.backend = backend.name();
      row.shapes = shapes;
      ++row.calls;
      row.seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / repeat;
    } else {
      (*fn)(args);
    }
    if (e.debugMode) checkFinite(kernel, backend, inputs, outputs);
  }
  if (e.recording()) e.recordOnTapes(kernel, inputs, outputs, attrs);
  return outputs;
}

Tensor runKernel(const std::string& kernel, const std::vector<Tensor>& inputs,
                 const OutputSpec& output, const Attrs& attrs) {
  return runKernel(kernel, inputs, std::vector<OutputSpec>{output}, attrs)[0];
}

Tensor makeView(const Tensor& t, const Shape& shape) {
  check(t.defined() && !t.isDisposed(), "reshape", "input is undefined or disposed");
  if (shapeSize(shape) != t.size())
    fail("reshape", "cannot view ", shapeToString(t.shape()), " as ", shapeToString(shape));
  Engine& e = Engine::get();
  Tensor view = e.makeTensor(shape, t.dtype(), t.impl()->storage);
  if (e.recording()) e.recordOnTapes("Reshape", {t}, {view}, Attrs().set("shape", Shape(shape)));
  return view;
}

// ---- Public engine API ------------------------------------------------------

MemoryInfo memory() {
  Engine& e = Engine::get();
  MemoryInfo info;
  info.numTensors = e.numTensors;
  info.numBuffers = e.numBuffers;
  info.numBytes = e.numBytes;
  std::lock_guard<std::recursive_mutex> lock(e.backendMutex);
  for (auto& entry : e.backends) {
    if (!entry.instance) continue;
    info.bytesPerBackend[entry.name] = entry.instance->bytesInUse();
    info.unreliable = info.unreliable || entry.instance->memoryUnreliable();
    info.numAllocations += entry.instance->numAllocations();
    info.numPoolHits += entry.instance->numPoolHits();
  }
  return info;
}

void releaseUnusedMemory() {
  Engine& e = Engine::get();
  std::lock_guard<std::recursive_mutex> lock(e.backendMutex);
  for (auto& entry : e.backends)
    if (entry.instance) entry.instance->releaseUnused();
}

void setBackend(const std::string& name) {
  Engine& e = Engine::get();
  std::lock_guard<std::recursive_mutex> lock(e.backendMutex);
  BackendEntry* entry = e.entry(name);
  if (!entry) {
    std::string known;
    for (const auto& b : e.backends) known += (known.empty() ? "" : ", ") + b.name;
    fail("setBackend", "unknown backend '", name, "': registered backends are ", known);
  }
  Backend* b = e.backend(name);
  if (!b) {
    std::string usable;
    for (const auto& other : e.backends)
      if (other.name != name && e.backend(other.name))
        usable += (usable.empty() ? "" : ", ") + other.name;
    fail("setBackend", "backend '", name, "' is not available: ", entry->whyNot,
         "; available: ", usable);
  }
  e.activeWhy = "set by setBackend";
  e.chosenOnPurpose = true;
  e.calibrated = false;
  e.activeBackend.store(b, std::memory_order_release);
}

void probeAgain(const std::string& name) {
  Engine& e = Engine::get();
  std::lock_guard<std::recursive_mutex> lock(e.backendMutex);
  BackendEntry* entry = e.entry(name);
  if (!entry || entry->instance) return;
  entry->tried = false;
  entry->whyNot.clear();
}

std::string getBackend() { return Engine::get().active().name(); }

Backend& fallBackFrom(Backend& lost, const std::string& why) {
  Engine& e = Engine::get();
  std::lock_guard<std::recursive_mutex> lock(e.backendMutex);
  if (e.activeBackend != &lost) return e.active();
  for (auto& entry : e.backends) {
    Backend* b = e.backend(entry.name);
    if (!b || b == &lost) continue;
    e.activeWhy = lost.name() + " fell back to " + b->name() + ": " + why;
    e.calibrated = false;  // the calibration's choice is gone
    e.activeBackend.store(b, std::memory_order_release);
    break;
  }
  return e.active();
}

BackendInfo backendInfo() {
  Engine& e = Engine::get();
  std::lock_guard<std::recursive_mutex> lock(e.backendMutex);
  BackendInfo info;
  info.active = e.active().name();
  info.why = e.activeWhy;
  info.calibrated = e.calibrated;
  info.calibration = e.calibration;
  for (auto& entry : e.backends) {
    BackendStatus s;
    s.name = entry.name;
    s.priority = entry.priority;
    Backend* b = e.backend(entry.name);
    s.available = b != nullptr;
    s.reason = b ? b->description() : entry.whyNot;
    s.software = b && b->isSoftware();
    info.backends.push_back(s);
  }
  return info;
}

std::vector<std::string> availableBackends() {
  std::vector<std::string> names;
  Engine& e = Engine::get();
  std::lock_guard<std::recursive_mutex> lock(e.backendMutex);
  for (auto& entry : e.backends)
    if (e.backend(entry.name)) names.push_back(entry.name);
  return names;
}

void startScope() { threadState().scopes.emplace_back(); }

void endScope(const std::vector<Tensor>& result) {
  Engine& e = Engine::get();
  auto& scopes = threadState().scopes;
  check(!scopes.empty(), "endScope", "called without a matching startScope");
  std::vector<std::weak_ptr<TensorImpl>> tracked = std::move(scopes.back());
  scopes.pop_back();
  std::unordered_set<const TensorImpl*> keepSet;
  for (const Tensor& t : result)
    if (t.defined()) keepSet.insert(t.impl());
  for (auto& weak : tracked) {
    std::shared_ptr<TensorImpl> impl = weak.lock();
    if (!impl || !impl->storage || impl->kept || impl->isVariable) continue;
    if (keepSet.count(impl.get()) || impl->tapeRefs > 0) {
      e.track(impl);  // survives into the enclosing scope
    } else {
      Tensor(impl).dispose();
    }
  }
}

void checkOnDevice(const Tensor& failures, const std::string& op, const std::string& message) {
  check(failures.defined() && failures.size() == 1, "checkOnDevice", "failures must be a scalar");
  if (failures.impl()->storage->backend->readsSynchronously()) {
    if (!(failures.item() <= 0)) fail(op, message);
    return;
  }
  keep(failures);
  threadState().deviceChecks.push_back(DeviceCheck{failures, op, message});
}

std::vector<DeviceCheck> takeDeviceChecks() {
  std::vector<DeviceCheck> out;
  out.swap(threadState().deviceChecks);
  return out;
}

void raiseDeviceChecks(const std::vector<DeviceCheck>& checks, const float* values) {
  for (size_t i = 0; i < checks.size(); ++i)
    if (!(values[i] <= 0)) fail(checks[i].op, checks[i].message);
}

void keep(const Tensor& t) {
  if (t.defined()) t.impl()->kept = true;
}

void dispose(const std::vector<Tensor>& tensors) {
  for (const Tensor& t : tensors)
    if (t.defined()) t.dispose();
}

// One process-wide stream: seeded programs on one thread repeat exactly; with
// several threads drawing, who gets which number depends on scheduling.
void setSeed(uint64_t seed) {
  Engine& e = Engine::get();
  std::lock_guard<std::mutex> lock(e.rngMutex);
  e.rng.seed_(seed);
}
uint64_t randomBits() {
  Engine& e = Engine::get();
  std::lock_guard<std::mutex> lock(e.rngMutex);
  return e.rng.next();
}
double randomUniform01() {
  Engine& e = Engine::get();
  std::lock_guard<std::mutex> lock(e.rngMutex);
  return e.rng.uniform01();
}
double randomStandardNormal() {
  Engine& e = Engine::get();
  std::lock_guard<std::mutex> lock(e.rngMutex);
  return e.rng.standardNormal();
}

}  // namespace glint
