// The op table (every OpCase of tests/unit, the cases GLINT_OP_CASES lists)
// on the webgpu backend where reads are asynchronous only: WebGPU in node,
// through Dawn. GoogleTest's bodies read synchronously, so this runner splits
// each case in two: optable_start computes it on reference (read at once) and
// on webgpu, forward and the gradients of sum(w * f) through the tape, and
// starts the webgpu reads; JS waits for them (Module.glintWebGPUSettled) and
// optable_finish compares, with the case's own tolerances. The gradients are
// compared with reference's (the native suite checks those against finite
// differences). Driven by tests/web/webgpu_optable.test.mjs, here on
// SwiftShader and on the H200 (docs/TESTING.md).
#include <emscripten.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "glint/glint.h"
#include "src/backends/webgpu/webgpu_backend.h"
#include "tests/unit/op_harness.h"

namespace glint::testing {
namespace {

struct Flat {
  const OpFamily* family;
  const OpCase* c;
};

std::vector<Flat>& flat() {
  static std::vector<Flat> all;
  if (all.empty())
    for (const OpFamily& f : opFamilies())
      for (const OpCase& c : f.cases) all.push_back({&f, &c});
  return all;
}

/// One webgpu result waiting for its read, and what reference says.
struct Pending {
  std::string what;  // "forward", "gradient of input 1"
  Tensor got;
  std::vector<float> want;
  Shape wantShape;
  DType wantDType = DType::float32;
  double rtol = 1e-5, atol = 1e-6;
  webgpu::WebGpuBackend::PendingRead read;
};

std::vector<Pending> pending;
std::string message;

/// The deterministic upstream gradient of a case's output.
Tensor weights(const OpCase& c, const Shape& shape) {
  std::vector<float> w(static_cast<size_t>(shapeSize(shape)));
  uint64_t s = 0x9E3779B97F4A7C15ull;
  for (char ch : c.name) s = (s ^ static_cast<uint8_t>(ch)) * 1099511628211ull;
  for (float& v : w) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<float>((s >> 40) & 0xFFFF) / 32768.0f - 1.0f;
  }
  return tensor(w, shape);
}

/// Forward and (when the case checks them) the gradients, on the active backend.
std::vector<Tensor> evaluate(const OpCase& c) {
  std::vector<Tensor> xs = makeInputs(c);
  Tensor y = c.fn(xs);
  std::vector<Tensor> out{y};
  if (!c.checkGrad || y.dtype() != DType::float32) return out;
  std::vector<Tensor> diff;
  std::vector<size_t> which;
  for (size_t i = 0; i < xs.size(); ++i)
    if (c.inputs[i].differentiable && c.inputs[i].dtype == DType::float32) {
      diff.push_back(xs[i]);
      which.push_back(i);
    }
  if (diff.empty()) return out;
  std::vector<Tensor> g = grads(
      [&](const std::vector<Tensor>& d) {
        std::vector<Tensor> all = xs;
        for (size_t k = 0; k < which.size(); ++k) all[which[k]] = d[k];
        return c.fn(all);
      },
      diff, weights(c, y.shape()));
  out.insert(out.end(), g.begin(), g.end());
  return out;
}

std::vector<float> asFloats(const std::vector<uint8_t>& bytes, DType dtype) {
  std::vector<float> v;
  if (dtype == DType::float32) {
    v.resize(bytes.size() / 4);
    std::memcpy(v.data(), bytes.data(), v.size() * 4);
  } else if (dtype == DType::int32) {
    std::vector<int32_t> i(bytes.size() / 4);
    std::memcpy(i.data(), bytes.data(), i.size() * 4);
    v.assign(i.begin(), i.end());
  } else {
    v.assign(bytes.begin(), bytes.end());
  }
  return v;
}

bool close(double a, double b, double rtol, double atol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::abs(a - b) <= atol + rtol * std::max(std::abs(a), std::abs(b));
}

}  // namespace
}  // namespace glint::testing

using namespace glint;
using namespace glint::testing;

extern "C" {

EMSCRIPTEN_KEEPALIVE int optable_count() { return static_cast<int>(flat().size()); }

EMSCRIPTEN_KEEPALIVE const char* optable_name(int i) {
  static std::string name;
  name = flat()[static_cast<size_t>(i)].family->name + "." + flat()[static_cast<size_t>(i)].c->name;
  return name.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* optable_message() { return message.c_str(); }

/// 1: the webgpu backend's GPU kernel forms also on a software adapter.
EMSCRIPTEN_KEEPALIVE int optable_setup(int forceGpuKernels) {
  try {
    setBackend("webgpu");
    webgpu::instance()->setForceGpuKernels(forceGpuKernels != 0);
    return 1;
  } catch (const std::exception& e) {
    message = e.what();
    return 0;
  }
}

/// Runs case i on reference and on webgpu and starts the webgpu reads: the
/// number of reads (JS awaits them), or -1 with optable_message() saying why.
EMSCRIPTEN_KEEPALIVE int optable_start(int i) {
  pending.clear();
  message.clear();
  const OpCase& c = *flat()[static_cast<size_t>(i)].c;
  try {
    setBackend("reference");
    std::vector<Tensor> want = evaluate(c);
    setBackend("webgpu");
    std::vector<Tensor> got = evaluate(c);
    if (got.size() != want.size()) {
      message = "webgpu gave " + std::to_string(got.size()) + " results, reference " +
                std::to_string(want.size());
      return -1;
    }
    webgpu::WebGpuBackend& gpu = *webgpu::instance();
    for (size_t k = 0; k < got.size(); ++k) {
      Pending p;
      p.what = k == 0 ? "forward" : "gradient " + std::to_string(k - 1);
      p.got = got[k];
      p.want = want[k].toFloats();
      p.wantShape = want[k].shape();
      p.wantDType = want[k].dtype();
      p.rtol = k == 0 ? c.valueTol : c.gradTol;
      p.atol = k == 0 ? 1e-6 : c.gradTol;
      if (got[k].impl()->storage->backend != &gpu) {
        message = p.what + " was computed on " + got[k].backendName() + ", not webgpu";
        return -1;
      }
      p.read = gpu.startRead(webgpu::bufferOf(got[k]));
      pending.push_back(std::move(p));
    }
    return static_cast<int>(pending.size());
  } catch (const std::exception& e) {
    message = e.what();
    pending.clear();
    return -1;
  }
}

/// After the reads landed: 0 when every result is within tolerance, 1 with
/// optable_message() naming the first that is not.
EMSCRIPTEN_KEEPALIVE int optable_finish() {
  try {
    webgpu::WebGpuBackend& gpu = *webgpu::instance();
    for (Pending& p : pending) {
      if (p.got.shape() != p.wantShape || p.got.dtype() != p.wantDType) {
        message = p.what + ": " + shapeToString(p.got.shape()) + " vs reference " +
                  shapeToString(p.wantShape);
        return 1;
      }
      std::vector<float> have = asFloats(gpu.finishRead(p.read), p.got.dtype());
      for (size_t e = 0; e < p.want.size(); ++e) {
        double tolScale = p.what == "forward" ? 1.0 : std::max(1.0, std::abs(double(p.want[e])));
        if (!close(have[e], p.want[e], p.what == "forward" ? p.rtol : 0.0, p.atol * tolScale)) {
          message = p.what + " element " + std::to_string(e) + ": " + std::to_string(have[e]) +
                    " vs reference " + std::to_string(p.want[e]);
          return 1;
        }
      }
    }
    pending.clear();
    return 0;
  } catch (const std::exception& e) {
    message = e.what();
    pending.clear();
    return 1;
  }
}

}  // extern "C"

// The runtime stays up for JS to call the exports (EXIT_RUNTIME is off for this target).
int main() { return 0; }
