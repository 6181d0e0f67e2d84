#include "src/backends/webgpu/webgpu_backend.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "glint/error.h"
#include "src/backends/gpu/printer.h"
#include "src/backends/webgpu/self_test_verdict.h"
#include "src/backends/webgpu/webgpu_api.h"
#include "src/backends/webgpu/wgsl.h"
#include "src/core/backend_services.h"
#include "src/core/running_kernel.h"

namespace glint::webgpu {

// GPU buffers come in few sizes, so the pool finds matches: up to 4 KiB in
// 256-byte steps, then 1/8 of the next power of two.
size_t capacityFor(size_t bytes) {
  size_t b = std::max<size_t>(bytes, 4);
  if (b <= 4096) return (b + 255) & ~size_t{255};
  size_t p = 4096;
  while (p < b) p <<= 1;
  size_t step = p / 8;
  return (b + step - 1) / step * step;
}

WebGpuBackend* instance() { return dynamic_cast<WebGpuBackend*>(backendNamed("webgpu")); }

std::unique_ptr<WebGpuBackend> WebGpuBackend::create(std::string& whyNot) {
  std::unique_ptr<WebGpuBackend> b(new WebGpuBackend());
  if (!b->init(whyNot)) return nullptr;
  return b;
}

WebGpuBackend::~WebGpuBackend() {
  for (auto& [cap, buf] : pool_) destroy(buf);
}

bool WebGpuBackend::init(std::string& whyNot) {
  if (!glint_wgpu_init()) {
    whyNot =
        "no WebGPU device was handed to the engine (in a page: navigator.gpu is missing or "
        "disabled; in node: setBackend('webgpu') or glint.ready({webgpu: true}) acquires "
        "one, with the npm package webgpu)";
    return false;
  }
  int need = glint_wgpu_info(nullptr, 0);
  std::string json(static_cast<size_t>(need), '\0');
  glint_wgpu_info(json.data(), need);
  json.resize(std::strlen(json.c_str()));
  try {
    nlohmann::json j = nlohmann::json::parse(json);
    info_.vendor = j.value("vendor", "");
    info_.architecture = j.value("architecture", "");
    info_.device = j.value("device", "");
    info_.description = j.value("description", "");
    info_.f16 = j.value("f16", false);
    info_.maxStorageBuffers = std::min(16, j.value("maxStorageBuffersPerShaderStage", 8));
    info_.maxWorkgroupsPerDimension = j.value("maxComputeWorkgroupsPerDimension", 65535);
    info_.maxInvocationsPerWorkgroup = j.value("maxComputeInvocationsPerWorkgroup", 256);
    info_.maxBindingBytes = j.value("maxStorageBufferBindingSize", int64_t{128} << 20);
    std::string all =
        info_.vendor + " " + info_.architecture + " " + info_.device + " " + info_.description;
    std::transform(all.begin(), all.end(), all.begin(), ::tolower);
    info_.software = j.value("fallback", false) || all.find("swiftshader") != std::string::npos ||
                     all.find("llvmpipe") != std::string::npos ||
                     all.find("lavapipe") != std::string::npos;
  } catch (const std::exception& e) {
    whyNot = std::string("the WebGPU adapter info did not parse: ") + e.what();
    return false;
  }
  syncReads_ = glint_wgpu_can_read_sync() != 0;
  if (info_.maxStorageBuffers < 8) {
    whyNot = "the WebGPU device binds " + std::to_string(info_.maxStorageBuffers) +
             " storage buffers per shader stage; kernels need 8";
    return false;
  }
  return selfTest(whyNot);
}

// Known float32 bits (denormal, NaN, inf, the extremes) through an identity
// kernel and a sum kernel, read back: bit-exact, and the sum within 1 ulp.
bool WebGpuBackend::selfTest(std::string& whyNot) {
  // Run where the device was acquired (web/package/src/webgpu.js), with async
  // reads: the only kind node has. The blocking run below serves pages that
  // hand over a device of their own.
  std::vector<uint32_t> sent(64), got(64);
  float jsSum = 0;
  if (int n = glint_wgpu_self_test(sent.data(), got.data(), 64, &jsSum)) {
    sent.resize(static_cast<size_t>(n));
    got.resize(static_cast<size_t>(n));
    return acceptSelfTest(classifySelfTest(sent, got, jsSum), whyNot);
  }
  if (!syncReads_) {
    whyNot =
        "the WebGPU device came without its precision self-test, and it cannot be run "
        "here (no blocking reads): acquire the device through glint.ready()";
    return false;
  }
  const std::vector<uint32_t> bits = {0x00000000u, 0x80000000u, 0x3f800000u, 0x00000001u,
                                      0x7f7fffffu, 0xff800000u, 0x7fc00000u, 0x3eaaaaabu,
                                      0x40490fdbu, 0xc2c80000u, 0x33d6bf95u, 0x4b800001u};
  size_t bytes = bits.size() * 4;
  auto* in = static_cast<Buffer*>(allocate(bytes));
  auto* copy = static_cast<Buffer*>(allocate(bytes));
  auto* sum = static_cast<Buffer*>(allocate(4));
  write(in, bits.data(), bytes);
  std::string id = prelude(std::vector<DType>{DType::float32}) +
                   "fn value(i: i32) -> f32 { return in0(i); }\n" +
                   elementMain(DType::float32, static_cast<int64_t>(bits.size()));
  runShader(*this, id, {in}, {copy}, static_cast<int64_t>(bits.size()));
  // 1 + 2 + ... + 1000 = 500500 exactly, summed in a loop.
  std::vector<float> ramp(1000);
  for (int i = 0; i < 1000; ++i) ramp[i] = static_cast<float>(i + 1);
  auto* r = static_cast<Buffer*>(allocate(4000));
  write(r, ramp.data(), 4000);
  std::string sumSrc = prelude(std::vector<DType>{DType::float32}) +
                       "fn value(i: i32) -> f32 { var s = 0.0; for (var k = 0; k < 1000; k++) { "
                       "s += in0(k); } return s; }\n" +
                       elementMain(DType::float32, 1);
  runShader(*this, sumSrc, {r}, {sum}, 1);
  std::vector<uint32_t> back(bits.size());
  read(copy, back.data(), bytes);
  float total = 0;
  read(sum, &total, 4);
  release(in, bytes);
  release(copy, bytes);
  release(sum, 4);
  release(r, 4000);
  // A lost sign of zero or a flushed denormal is recorded, not disqualifying
  // (WGSL allows both); a wrong number that matters is (self_test_verdict.h).
  return acceptSelfTest(classifySelfTest(bits, back, total), whyNot);
}

bool WebGpuBackend::acceptSelfTest(const SelfTestVerdict& verdict, std::string& whyNot) {
  info_.selfTestDeviations = verdict.deviations;
  if (!verdict.usable) {
    whyNot = verdict.why;
    return false;
  }
  return true;
}

std::string WebGpuBackend::description() const {
  std::string s = "WebGPU";
  std::string who = info_.vendor;
  if (!info_.architecture.empty()) who += (who.empty() ? "" : " ") + info_.architecture;
  if (!info_.description.empty()) who += (who.empty() ? "" : " ") + info_.description;
  if (!who.empty()) s += " (" + who + ")";
  s += info_.software ? ", software adapter" : "";
  s += ", " + std::to_string(info_.maxStorageBuffers) + " storage buffers per stage";
  s += info_.f16 ? ", shader-f16" : ", no shader-f16";
  for (const std::string& d : info_.selfTestDeviations) s += "; self-test: " + d;
  return s;
}

void* WebGpuBackend::allocate(size_t bytes) {
  restoreIfLost();
  auto* b = new Buffer();
  b->bytes = bytes;
  if (bytes > 0) {
    if (static_cast<int64_t>(bytes) > info_.maxBindingBytes) {
      delete b;
      throw Error("[webgpu] allocate: " + std::to_string(bytes) +
                  " bytes is more than one storage buffer binding may hold (" +
                  std::to_string(info_.maxBindingBytes) + ")");
    }
    size_t cap = capacityFor(bytes);
    auto it = pool_.find(cap);
    if (it != pool_.end()) {
      Buffer* reused = it->second;
      pool_.erase(it);
      pooledBytes_ -= static_cast<int64_t>(cap);
      b->id = reused->id;
      delete reused;
      ++numPoolHits_;
    } else {
      b->id = glint_wgpu_buffer_create(static_cast<double>(cap));
      if (!b->id) {
        delete b;
        throw Error("[webgpu] allocate: the device refused a buffer of " + std::to_string(cap) +
                    " bytes");
      }
      ++numAllocations_;
    }
    b->capacity = cap;
    liveBytes_ += static_cast<int64_t>(cap);
  }
  live_.insert(b);
  return b;
}

void WebGpuBackend::write(void* handle, const void* src, size_t bytes) {
  restoreIfLost();
  auto* b = static_cast<Buffer*>(handle);
  if (bytes == 0 || !b->id) return;
  glint_wgpu_write(b->id, src, static_cast<double>(bytes));
  // Uploads (data sets, inputs) survive a device loss from this copy, up to a limit.
  dropHostCopy(b);
  if (hostCopyBytes_ + static_cast<int64_t>(bytes) <= kHostCopyLimit) {
    const auto* p = static_cast<const uint8_t*>(src);
    b->host = std::make_shared<const std::vector<uint8_t>>(p, p + bytes);
    hostCopyBytes_ += static_cast<int64_t>(bytes);
  }
}

void WebGpuBackend::read(void* handle, void* dst, size_t bytes) {
  restoreIfLost();
  auto* b = static_cast<Buffer*>(handle);
  if (bytes == 0) return;
  if (!b->id) throw DeviceLostError("[webgpu] read: the buffer was lost with its device");
  if (!syncReads_) {
    if (readFromHost(handle, dst, bytes)) return;
    throw HostReadPending(
        "[webgpu] read: a synchronous read (dataSync, arraySync, print, or an op that "
        "needs values on the host) is not possible here: WebGPU outside a page has no "
        "blocking read. Use await tensor.data() or await tensor.array()");
  }
  // Every training step reads its loss: the moment to start the snapshots of
  // the variables it changed (their copies queue behind the step's work).
  snapshotDirty();
  glint_wgpu_read(b->id, dst, static_cast<double>(bytes));
  collectSnapshots();
  if (glint_wgpu_lost()) {
    restoreIfLost();
    throw DeviceLostError("[webgpu] read: the device was lost while reading");
  }
}

void WebGpuBackend::keepHostCopy(const Buffer& buffer, std::vector<uint8_t> bytes) {
  auto* b = const_cast<Buffer*>(&buffer);
  check(live_.count(b) && bytes.size() == b->bytes, "webgpu",
        "keepHostCopy: the bytes are not those of a live buffer");
  dropHostCopy(b);
  // Past the upload limit too: a waiting graph run needs exactly these bytes.
  hostCopyBytes_ += static_cast<int64_t>(bytes.size());
  b->host = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
}

void WebGpuBackend::dropHostCopy(Buffer* b) {
  if (!b->host) return;
  hostCopyBytes_ -= static_cast<int64_t>(b->host->size());
  b->host.reset();
}

void WebGpuBackend::release(void* handle, size_t bytes) {
  auto* b = static_cast<Buffer*>(handle);
  live_.erase(b);
  dropHostCopy(b);
  if (!b->id) {
    delete b;
    return;
  }
  liveBytes_ -= static_cast<int64_t>(b->capacity);
  pooledBytes_ += static_cast<int64_t>(b->capacity);
  pool_.emplace(b->capacity, b);
  // Past the pool's bound the largest go first: the fewest buffers freed.
  while (pooledBytes_ > std::max(kPoolBytes, liveBytes_) && !pool_.empty()) {
    auto largest = std::prev(pool_.end());
    pooledBytes_ -= static_cast<int64_t>(largest->first);
    destroy(largest->second);
    pool_.erase(largest);
  }
}

void WebGpuBackend::destroy(Buffer* b) {
  if (b->id) glint_wgpu_buffer_destroy(b->id);
  delete b;
}

void WebGpuBackend::releaseUnused() {
  for (auto& [cap, b] : pool_) destroy(b);
  pool_.clear();
  pooledBytes_ = 0;
}

Pipeline WebGpuBackend::pipeline(const std::string& source, int numInputs, int numOutputs) {
  if (auto it = pipelines_.find(source); it != pipelines_.end()) {
    pipelineUse_.splice(pipelineUse_.begin(), pipelineUse_, it->second.use);
    return it->second.pipeline;
  }
  if (numInputs + numOutputs > maxBuffers())
    throw Error("[webgpu] a kernel binds " + std::to_string(numInputs + numOutputs) +
                " buffers; this device allows " + std::to_string(maxBuffers()));
  if (pipelines_.size() >= kPipelineCache) {
    // Dispatches already recorded keep the pipeline they set alive.
    auto victim = pipelines_.find(pipelineUse_.back());
    glint_wgpu_pipeline_release(victim->second.pipeline.id);
    pipelines_.erase(victim);
    pipelineUse_.pop_back();
  }
  gpu::dumpShader("webgpu", source);
  Pipeline p{glint_wgpu_pipeline(source.c_str(), numInputs, numOutputs), numInputs, numOutputs};
  pipelineUse_.push_front(source);
  pipelines_.emplace(source, CachedPipeline{p, pipelineUse_.begin()});
  return p;
}

Grid WebGpuBackend::grid1D(int64_t invocations, int groupSize) const {
  int64_t groups = (invocations + groupSize - 1) / groupSize;
  int64_t x = std::min<int64_t>(groups, info_.maxWorkgroupsPerDimension);
  int64_t y = x ? (groups + x - 1) / x : 0;
  return Grid{static_cast<int>(x), static_cast<int>(y), 1};
}

void WebGpuBackend::dispatch(const Pipeline& p, const std::vector<const Buffer*>& inputs,
                             const std::vector<Buffer*>& outputs, Grid grid,
                             const std::vector<float>& params) {
  if (grid.x <= 0 || grid.y <= 0 || grid.z <= 0) return;
  if (params.size() > 64) throw Error("[webgpu] a dispatch takes at most 64 parameters");
  if (inputs.size() + outputs.size() > 16)
    throw Error("[webgpu] a dispatch binds at most 16 buffers");
  restoreIfLost();
  int32_t ids[16];
  int n = 0;
  for (const Buffer* b : inputs) {
    if (b->bytes && !b->id)
      throw DeviceLostError("[webgpu] a kernel input was lost with the device");
    ids[n++] = b->id;
  }
  for (const Buffer* b : outputs) {
    if (b->bytes && !b->id)
      throw DeviceLostError("[webgpu] a kernel output was lost with the device");
    ids[n++] = b->id;
  }
  if (timing_) glint_wgpu_timing_label(runningKernel());
  glint_wgpu_dispatch(p.id, ids, params.data(), static_cast<int>(params.size()), grid.x, grid.y,
                      grid.z);
}

bool WebGpuBackend::setTiming(bool on) {
  timing_ = glint_wgpu_timing(on ? 1 : 0) != 0;
  return timing_;
}

void WebGpuBackend::flush() { glint_wgpu_flush(); }

WebGpuBackend::PendingRead WebGpuBackend::startRead(const Buffer& b) {
  return PendingRead{glint_wgpu_read_start(b.id, static_cast<double>(b.bytes)), b.bytes};
}

int WebGpuBackend::poll(const PendingRead& r) const { return glint_wgpu_read_poll(r.id); }

std::vector<uint8_t> WebGpuBackend::finishRead(PendingRead& r) {
  std::vector<uint8_t> out(r.bytes);
  int ok = glint_wgpu_read_take(r.id, out.data());
  r.id = 0;
  if (!ok) throw DeviceLostError("[webgpu] read: the device was lost before the read finished");
  return out;
}

}  // namespace glint::webgpu
