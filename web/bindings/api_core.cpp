// Engine, tensors and read-back for the JS API (see handles.h).
#include <emscripten.h>

#include <cstring>

#include "glint/backend.h"
#include "glint/gl.h"
#include "glint/profile.h"
#include "src/backends/webgpu/self_test_verdict.h"
#include "src/backends/webgpu/webgpu_api.h"
#include "src/backends/webgpu/webgpu_backend.h"
#include "src/core/engine_state.h"
#include "web/bindings/handles.h"

namespace glint::web {

HandleTable<Tensor>& tensorHandles() {
  static HandleTable<Tensor> t;
  return t;
}
HandleTable<LayerPtr>& layerHandles() {
  static HandleTable<LayerPtr> t;
  return t;
}
HandleTable<SymbolicTensorPtr>& symbolicHandles() {
  static HandleTable<SymbolicTensorPtr> t;
  return t;
}
HandleTable<std::shared_ptr<Optimizer>>& optimizerHandles() {
  static HandleTable<std::shared_ptr<Optimizer>> t;
  return t;
}

std::vector<Tensor> tensorsFrom(const int32_t* ids, int32_t n) {
  std::vector<Tensor> out;
  out.reserve(n);
  for (int32_t i = 0; i < n; ++i) out.push_back(tensorHandles().get(ids[i], "tensor"));
  return out;
}

int32_t putTensors(const std::vector<Tensor>& ts, int32_t* out, int32_t maxOut) {
  check(static_cast<int32_t>(ts.size()) <= maxOut, "glint", "a call returned ", ts.size(),
        " tensors where at most ", maxOut, " were expected");
  for (size_t i = 0; i < ts.size(); ++i) out[i] = ts[i].defined() ? tensorHandles().put(ts[i]) : 0;
  return static_cast<int32_t>(ts.size());
}

std::shared_ptr<Model> modelFrom(int32_t id) {
  auto model = std::dynamic_pointer_cast<Model>(layerHandles().get(id, "layer or model"));
  if (!model) fail("glint", "handle ", id, " is a layer, not a model");
  return model;
}

namespace {
std::string gError;
bool gDeviceLost = false;
std::string gString;
std::vector<uint8_t> gBytes;
}  // namespace

void setError(const std::string& message, bool deviceLost) {
  gError = message;
  gDeviceLost = deviceLost;
}

namespace {
// A pointer for JS even when there are no bytes: an empty vector's data() is
// null, which JS reads as "the call failed" (and then found no message: a
// zero-sample tensor's dataSync() threw an empty error).
const uint8_t* lastBytes(int32_t* length) {
  static const uint8_t kNoBytes = 0;
  *length = static_cast<int32_t>(gBytes.size());
  return gBytes.empty() ? &kNoBytes : gBytes.data();
}
}  // namespace

const char* returnString(std::string s) {
  gString = std::move(s);
  return gString.c_str();
}

const uint8_t* returnBytes(std::vector<uint8_t> bytes, int32_t* length) {
  gBytes = std::move(bytes);
  return lastBytes(length);
}

Json parseJson(const char* text, const char* what) {
  if (!text || !*text) return Json::object();
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    fail("glint", what, " is not valid JSON: ", std::string(text).substr(0, 200));
  return j;
}

namespace {

Json statusJson(const BackendStatus& s) {
  return {{"name", s.name},
          {"priority", s.priority},
          {"available", s.available},
          {"reason", s.reason},
          {"software", s.software}};
}

Shape shapeFrom(const int32_t* dims, int32_t rank) {
  Shape s(rank);
  for (int32_t i = 0; i < rank; ++i) s[i] = dims[i];
  return s;
}

struct PendingReadEntry {
  gl::PendingRead read;
  // A tensor on webgpu: mapAsync on a copy, done once the page's event loop ran.
  webgpu::WebGpuBackend* gpu = nullptr;
  webgpu::WebGpuBackend::PendingRead gpuRead;
  // Set for a graph run's read: the tensor, whose buffer keeps the bytes as
  // its host copy once read (the waiting node then reads them synchronously).
  Tensor keep{};
};
HandleTable<std::shared_ptr<PendingReadEntry>>& pendingReads() {
  static HandleTable<std::shared_ptr<PendingReadEntry>> t;
  return t;
}

}  // namespace

int32_t startRead(const Tensor& t, bool keepOnHost) {
  auto entry = std::make_shared<PendingReadEntry>();
  check(t.defined() && !t.isDisposed(), "data", "the tensor is undefined or disposed");
  Storage& s = *t.impl()->storage;
  s.backend->restoreIfLost();
  if (s.backend->name() == "webgpu") {
    entry->gpu = static_cast<webgpu::WebGpuBackend*>(t.impl()->storage->backend);
    const auto& buffer = *static_cast<webgpu::Buffer*>(t.impl()->storage->handle);
    if (s.bytes && !buffer.id)
      throw DeviceLostError("[data] the tensor was lost with the WebGPU device");
    entry->gpuRead = entry->gpu->startRead(buffer);
    if (keepOnHost) entry->keep = t;
  } else {
    entry->read = gl::readAsync(t);
  }
  return pendingReads().put(entry);
}

}  // namespace glint::web

using namespace glint;
using namespace glint::web;

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* glint_last_error() { return gError.c_str(); }
/// 1 when the last error was a lost GPU context (glint::DeviceLostError).
EMSCRIPTEN_KEEPALIVE int32_t glint_last_error_device_lost() { return gDeviceLost ? 1 : 0; }

// ---- gl: context loss (tests, doctor) -------------------------------------------

EMSCRIPTEN_KEEPALIVE int32_t glint_gl_lose_context() {
  return guarded(-1, [&] {
    gl::loseContext();
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE const char* glint_gl_stats() {
  return guarded<const char*>(nullptr, [&] {
    gl::Stats s = gl::stats();
    Json j = {{"textures", s.textures},
              {"pooledTextures", s.pooledTextures},
              {"contextLosses", s.contextLosses},
              {"texturesRestored", s.texturesRestored},
              {"variablesRestored", s.variablesRestored},
              {"texturesLost", s.texturesLost},
              {"variablesMoved", s.variablesMoved},
              {"variableReads", s.variableReads},
              {"hostCopyBytes", s.hostCopyBytes},
              {"snapshotSeconds", s.snapshotSeconds}};
    return returnString(j.dump());
  });
}

// ---- webgpu: device loss (tests), counters ------------------------------------

EMSCRIPTEN_KEEPALIVE int32_t glint_webgpu_lose_device() {
  return guarded(-1, [&] {
    webgpu::WebGpuBackend* gpu = webgpu::instance();
    if (!gpu) throw Error("[webgpu.loseDevice] the webgpu backend is not available");
    gpu->loseDevice();
    return 0;
  });
}

/// Tensor.dataToGPU: a new tensor on the webgpu backend holding a copy of the
/// tensor's bytes in a GPU buffer of its own, which JS gets as
/// Module.__glintGpuBuffer (the work recorded before is submitted first). The
/// buffer lives while that tensor does. Other backends have no GPU buffer to give.
EMSCRIPTEN_KEEPALIVE int32_t glint_tensor_to_gpu(int32_t id) {
  return guarded(-1, [&] {
    const char* op = "Tensor.dataToGPU";
    const Tensor& t = tensorHandles().get(id, "tensor");
    check(t.defined() && !t.isDisposed(), op, "the tensor is disposed");
    Engine& e = Engine::get();
    Backend& active = e.active();
    webgpu::WebGpuBackend* gpu = webgpu::instance();
    check(gpu != nullptr && &active == static_cast<Backend*>(gpu), op, "the ", active.name(),
          " backend has no GPU buffer to give ('readToGPU' is not supported by it, as by TF.js's "
          "cpu and wasm ",
          "backends): on the webgpu backend (setBackend('webgpu')) dataToGPU copies the tensor "
          "into a GPUBuffer");
    e.ensureOn(active, t);
    const size_t bytes = t.impl()->storage->bytes;
    void* handle = gpu->allocate(bytes);
    auto* dst = static_cast<webgpu::Buffer*>(handle);
    if (bytes) glint_wgpu_copy(webgpu::bufferOf(t).id, dst->id, static_cast<double>(bytes));
    Tensor copy = e.makeTensor(t.shape(), t.dtype(), std::make_shared<Storage>(gpu, handle, bytes));
    glint_wgpu_export(dst->id);
    return tensorHandles().put(copy);
  });
}

/// Tests: the GPU forms of the kernels on a software adapter too (1), or the usual choice (0).
EMSCRIPTEN_KEEPALIVE int32_t glint_webgpu_force_gpu_kernels(int32_t on) {
  return guarded(-1, [&] {
    webgpu::WebGpuBackend* gpu = webgpu::instance();
    if (!gpu) throw Error("[webgpu.forceGpuKernels] the webgpu backend is not available");
    gpu->setForceGpuKernels(on != 0);
    return 0;
  });
}

/// GPU timing of each dispatch by kernel (1 on, 0 off); 1 when on (timestamp-query).
EMSCRIPTEN_KEEPALIVE int32_t glint_webgpu_timing(int32_t on) {
  return guarded(-1, [&] {
    webgpu::WebGpuBackend* gpu = webgpu::instance();
    if (!gpu) throw Error("[webgpu.startKernelTiming] the webgpu backend is not available");
    return gpu->setTiming(on != 0) ? 1 : 0;
  });
}

/// Starts the snapshot reads of variables changed on webgpu; the reads in flight.
EMSCRIPTEN_KEEPALIVE int32_t glint_webgpu_snapshot() {
  return guarded(-1, [&] {
    webgpu::WebGpuBackend* gpu = webgpu::instance();
    return gpu && getBackend() == "webgpu" ? gpu->startSnapshots() : 0;
  });
}

/// The precision self-test's classification of n read-back values (and the
/// GPU's sum of 1..1000), as the backend makes it: for tests without a GPU.
EMSCRIPTEN_KEEPALIVE const char* glint_webgpu_classify_self_test(const uint32_t* sent,
                                                                 const uint32_t* back, int32_t n,
                                                                 double sum) {
  return guarded<const char*>(nullptr, [&] {
    webgpu::SelfTestVerdict v =
        webgpu::classifySelfTest(std::vector<uint32_t>(sent, sent + n),
                                 std::vector<uint32_t>(back, back + n), static_cast<float>(sum));
    Json j = {{"usable", v.usable}, {"why", v.why}, {"deviations", v.deviations}};
    return returnString(j.dump());
  });
}

EMSCRIPTEN_KEEPALIVE const char* glint_webgpu_stats() {
  return guarded<const char*>(nullptr, [&] {
    Json j = {{"available", false}};
    if (webgpu::WebGpuBackend* gpu = webgpu::instance()) {
      j = {{"available", true},
           {"buffers", gpu->liveBuffers()},
           {"pooledBuffers", static_cast<int64_t>(gpu->pooledBuffers())},
           {"pooledBytes", gpu->pooledBytes()},
           {"pipelinesCached", static_cast<int64_t>(gpu->pipelinesCached())},
           {"bytes", gpu->bytesInUse()},
           {"deviceLosses", gpu->deviceLosses()},
           {"variablesRestored", gpu->variablesRestored()},
           {"variablesMoved", gpu->variablesMoved()}};
    }
    return returnString(j.dump());
  });
}

// ---- Engine -------------------------------------------------------------------

EMSCRIPTEN_KEEPALIVE int32_t glint_set_backend(const char* name) {
  return guarded(-1, [&] {
    setBackend(name);
    return 0;
  });
}

/// 1 when the active backend's reads can wait for the device (all but WebGPU in node).
EMSCRIPTEN_KEEPALIVE int32_t glint_backend_reads_sync() {
  return guarded(-1, [&] { return Engine::get().active().readsSynchronously() ? 1 : 0; });
}

/// After JS acquired a device for a backend whose probe had failed.
EMSCRIPTEN_KEEPALIVE int32_t glint_backend_probe_again(const char* name) {
  return guarded(-1, [&] {
    probeAgain(name);
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_set_debug_mode(int32_t on) {
  return guarded(-1, [&] {
    enableDebugMode(on != 0);
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_set_float16_activations(int32_t on) {
  return guarded(-1, [&] {
    setFloat16Activations(on != 0);
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE const char* glint_get_backend() {
  return guarded<const char*>(nullptr, [&] { return returnString(getBackend()); });
}

namespace {
Json calibrationJson(const Calibration& c) {
  Json timings = Json::array();
  for (const BackendTiming& t : c.timings)
    timings.push_back(
        {{"backend", t.backend}, {"msPerStep", t.msPerStep}, {"runs", t.runs}, {"error", t.error}});
  return {{"what", c.what}, {"timings", timings}, {"chosen", c.chosen}};
}
}  // namespace

EMSCRIPTEN_KEEPALIVE const char* glint_backend_info() {
  return guarded<const char*>(nullptr, [&] {
    BackendInfo info = backendInfo();
    Json backends = Json::array();
    for (const auto& b : info.backends) backends.push_back(statusJson(b));
    Json j = {{"active", info.active},
              {"why", info.why},
              {"backends", backends},
              {"calibrated", info.calibrated},
              {"chosenAutomatically", backendChosenAutomatically()},
              {"calibrationCandidates", calibrationCandidates()}};
    if (!info.calibration.chosen.empty()) j["calibration"] = calibrationJson(info.calibration);
    return returnString(j.dump());
  });
}

/// Records a calibration JS measured: {what, timings: [{backend, msPerStep, runs, error}], chosen}.
EMSCRIPTEN_KEEPALIVE int32_t glint_record_calibration(const char* json) {
  return guarded(-1, [&] {
    Json j = Json::parse(json);
    Calibration c;
    c.what = j.at("what").get<std::string>();
    c.chosen = j.at("chosen").get<std::string>();
    for (const Json& t : j.at("timings"))
      c.timings.push_back(BackendTiming{t.at("backend").get<std::string>(),
                                        t.at("msPerStep").get<double>(), t.at("runs").get<int>(),
                                        t.value("error", std::string())});
    recordCalibration(c);
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE const char* glint_memory() {
  return guarded<const char*>(nullptr, [&] {
    MemoryInfo m = memory();
    Json per = Json::object();
    for (const auto& [name, bytes] : m.bytesPerBackend) per[name] = bytes;
    Json j = {{"numTensors", m.numTensors},   {"numDataBuffers", m.numBuffers},
              {"numBytes", m.numBytes},       {"unreliable", m.unreliable},
              {"bytesPerBackend", per},       {"numAllocations", m.numAllocations},
              {"numPoolHits", m.numPoolHits}, {"numHandles", tensorHandles().size()}};
    return returnString(j.dump());
  });
}

/// tf.disposeVariables(): every live variable, model weights included.
EMSCRIPTEN_KEEPALIVE int32_t glint_dispose_variables() {
  return guarded(-1, [&] { return static_cast<int32_t>(disposeVariables()); });
}

/// 1 when the tensor behind a handle has been disposed (a variable freed by
/// disposeVariables while JS still holds it), else 0.
EMSCRIPTEN_KEEPALIVE int32_t glint_tensor_is_disposed(int32_t id) {
  return guarded(-1, [&] { return tensorHandles().get(id, "tensor").isDisposed() ? 1 : 0; });
}

/// What memory() leaves out for a part of a complex64 tensor (TF.js counts
/// the complex tensor alone): the part's bytes when the tensor and its buffer
/// are the part's own; -3 when only the tensor is (its buffer is shared);
/// -2 when another handle holds the same tensor (a user's real or imag).
EMSCRIPTEN_KEEPALIVE int32_t glint_tensor_unshared_bytes(int32_t id) {
  return guarded(-1, [&] {
    const Tensor& t = tensorHandles().get(id, "tensor");
    if (t.isDisposed() || t.implPtr().use_count() > 1) return -2;
    if (t.impl()->storage.use_count() > 1) return -3;
    return static_cast<int32_t>(t.impl()->storage->bytes);
  });
}

// tf.profile (web/package/src/profile.js): JS code, sync or async, runs
// between the two calls.
EMSCRIPTEN_KEEPALIVE int32_t glint_profile_start() {
  return guarded(-1, [&] {
    startProfile();
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE const char* glint_profile_end() {
  return guarded<const char*>(nullptr, [&] {
    ProfileInfo info = endProfile();
    Json kernels = Json::array();
    for (const KernelRecord& k : info.kernels)
      kernels.push_back({{"name", k.name},
                         {"backend", k.backend},
                         {"inputShapes", k.inputShapes},
                         {"outputShapes", k.outputShapes},
                         {"bytesAdded", k.bytesAdded},
                         {"totalBytesSnapshot", k.totalBytesSnapshot},
                         {"tensorsAdded", k.tensorsAdded},
                         {"totalTensorsSnapshot", k.totalTensorsSnapshot},
                         {"kernelTimeMs", k.kernelTimeMs}});
    Json j = {{"newBytes", info.newBytes},
              {"newTensors", info.newTensors},
              {"peakBytes", info.peakBytes},
              {"kernels", kernels}};
    return returnString(j.dump());
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_release_unused() {
  return guarded(-1, [&] {
    releaseUnusedMemory();
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE void glint_set_seed(double seed) { setSeed(static_cast<uint64_t>(seed)); }

EMSCRIPTEN_KEEPALIVE int32_t glint_set_num_threads(int32_t n) {
  return guarded(-1, [&] {
    setNumThreads(n);
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_num_threads() {
  return guarded(-1, [&] { return numThreads(); });
}

EMSCRIPTEN_KEEPALIVE const char* glint_kernel_table() {
  return guarded<const char*>(nullptr, [&] {
    Json j = Json::object();
    for (const auto& [kernel, backends] : kernelTable()) j[kernel] = backends;
    return returnString(j.dump());
  });
}

// ---- Tensors ------------------------------------------------------------------

/// data: the values in the dtype's storage layout (float32 / int32 / one byte per bool).
EMSCRIPTEN_KEEPALIVE int32_t glint_tensor(const void* data, int32_t dtype, const int32_t* shape,
                                          int32_t rank) {
  return guarded(-1, [&] {
    check(dtype >= 0 && dtype <= 2, "tensor", "dtype code ", dtype, " is not 0, 1 or 2");
    Tensor t = fromBytes(data, shapeFrom(shape, rank), static_cast<DType>(dtype));
    return tensorHandles().put(t);
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_variable(int32_t id, int32_t trainable, const char* name) {
  return guarded(-1, [&] {
    Variable v = variable(tensorHandles().get(id, "tensor"), trainable != 0, name ? name : "");
    return tensorHandles().put(v);
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_variable_assign(int32_t varId, int32_t valueId) {
  return guarded(-1, [&] {
    const Tensor& v = tensorHandles().get(varId, "variable");
    check(v.impl()->isVariable, "assign", "the tensor (handle ", varId, ") is not a variable");
    Variable(v.implPtr()).assign(tensorHandles().get(valueId, "tensor"));
    return 0;
  });
}

/// rank, then dims into `shape` (up to maxRank), dtype code into *dtype.
EMSCRIPTEN_KEEPALIVE int32_t glint_tensor_shape(int32_t id, int32_t* shape, int32_t maxRank,
                                                int32_t* dtype) {
  return guarded(-1, [&] {
    const Tensor& t = tensorHandles().get(id, "tensor");
    check(t.rank() <= maxRank, "shape", "rank ", t.rank(), " exceeds ", maxRank);
    for (int i = 0; i < t.rank(); ++i) shape[i] = static_cast<int32_t>(t.shape()[i]);
    *dtype = static_cast<int32_t>(t.dtype());
    return t.rank();
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_tensor_is_variable(int32_t id) {
  return guarded(-1, [&] {
    const Tensor& t = tensorHandles().get(id, "tensor");
    return t.impl()->isVariable ? 1 : 0;
  });
}

/// Another handle to the same tensor (JS clone(): disposing one keeps the other).
EMSCRIPTEN_KEEPALIVE int32_t glint_tensor_clone(int32_t id) {
  return guarded(-1, [&] { return tensorHandles().put(tensorHandles().get(id, "tensor")); });
}

/// Drops the handle; the data is freed when nothing else uses it.
EMSCRIPTEN_KEEPALIVE int32_t glint_tensor_release(int32_t id) {
  return guarded(-1, [&] { return tensorHandles().erase(id) ? 0 : 1; });
}

/// Blocking read: a pointer to the bytes, valid until the next read.
EMSCRIPTEN_KEEPALIVE const uint8_t* glint_tensor_read(int32_t id, int32_t* length) {
  return guarded<const uint8_t*>(nullptr, [&] {
    const Tensor& t = tensorHandles().get(id, "tensor");
    std::vector<uint8_t> bytes(t.size() * byteSize(t.dtype()));
    switch (t.dtype()) {
      case DType::float32: {
        auto v = t.data<float>();
        std::memcpy(bytes.data(), v.data(), bytes.size());
        break;
      }
      case DType::int32: {
        auto v = t.data<int32_t>();
        std::memcpy(bytes.data(), v.data(), bytes.size());
        break;
      }
      case DType::boolean: {
        auto v = t.data<uint8_t>();
        std::memcpy(bytes.data(), v.data(), bytes.size());
        break;
      }
    }
    return returnBytes(std::move(bytes), length);
  });
}

/// Starts a non-blocking read (a GPU fence on gl); poll, then take.
EMSCRIPTEN_KEEPALIVE int32_t glint_read_start(int32_t id) {
  return guarded(-1, [&] { return startRead(tensorHandles().get(id, "tensor"), false); });
}

/// The WebGPU read behind a pending read (0: another backend's), for JS to await.
EMSCRIPTEN_KEEPALIVE int32_t glint_read_gpu_id(int32_t readId) {
  return guarded(0, [&] {
    auto entry = pendingReads().get(readId, "read");
    return entry->gpu ? entry->gpuRead.id : 0;
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_read_poll(int32_t readId) {
  return guarded(-1, [&] {
    auto entry = pendingReads().get(readId, "read");
    if (!entry->gpu) return entry->read.ready() ? 1 : 0;
    int state = entry->gpu->poll(entry->gpuRead);
    if (state < 0) {
      pendingReads().erase(readId);
      throw DeviceLostError("[data] the WebGPU device was lost during the read");
    }
    return state;
  });
}

EMSCRIPTEN_KEEPALIVE const uint8_t* glint_read_take(int32_t readId, int32_t* length) {
  return guarded<const uint8_t*>(nullptr, [&] {
    auto entry = pendingReads().get(readId, "read");
    pendingReads().erase(readId);
    if (entry->gpu) {
      std::vector<uint8_t> bytes = entry->gpu->finishRead(entry->gpuRead);
      if (entry->keep.defined() && !entry->keep.isDisposed())
        entry->gpu->keepHostCopy(*static_cast<webgpu::Buffer*>(entry->keep.impl()->storage->handle),
                                 bytes);
      return returnBytes(std::move(bytes), length);
    }
    return returnBytes(entry->read.bytes(), length);
  });
}

EMSCRIPTEN_KEEPALIVE const char* glint_tensor_to_string(int32_t id) {
  return guarded<const char*>(
      nullptr, [&] { return returnString(tensorHandles().get(id, "tensor").toString()); });
}

}  // extern "C"

extern "C" {
/// The bytes a call left behind (e.g. a model's weights after glint_model_to_artifacts).
EMSCRIPTEN_KEEPALIVE const uint8_t* glint_last_bytes(int32_t* length) { return lastBytes(length); }
}  // extern "C"

extern "C" {
/// A variable's name ("dense_1/kernel"); "" for other tensors.
EMSCRIPTEN_KEEPALIVE const char* glint_tensor_name(int32_t id) {
  return guarded<const char*>(
      nullptr, [&] { return returnString(tensorHandles().get(id, "tensor").impl()->name); });
}
}  // extern "C"
