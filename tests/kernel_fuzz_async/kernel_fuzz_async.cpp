// The kernel fuzzer (tests/kernel_fuzz) on the webgpu backend where reads
// are asynchronous only: WebGPU in node, through Dawn. The fuzzer reads its
// results synchronously, so each call runs in two halves, as
// tests/optable_async does for the op table: kfuzz_start computes it on
// reference (read at once) and on webgpu, forward and the gradients of
// sum(w * f) through the tape, and starts the webgpu reads; JS waits for them
// (Module.glintWebGPUSettled) and kfuzz_finish judges the result with the
// native fuzzer's code (differential.h: tolerances, the denormal rule).
// Shrinking is the native Shrinker, each trial one such round. Driven by
// tests/kernel_fuzz_async/fuzz_driver.mjs (run.mjs, tests/web/webgpu_fuzz.test.mjs).
#include <emscripten.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "glint/backend.h"
#include "glint/glint.h"
#include "glint/json.h"
#include "src/backends/webgpu/webgpu_backend.h"
#include "tests/kernel_fuzz/differential.h"

namespace glint::kfuzz {
namespace {

struct Tally {
  int64_t cases = 0, invalid = 0, failed = 0;
  std::map<std::string, int64_t> tags;
};
std::map<std::string, Tally> tallies;  // per generator
std::set<std::string> reached;         // kernels run on webgpu

std::unique_ptr<CaseStream> stream;
std::string message;

/// The case start and finish run: a drawn or replayed one, or a shrink trial.
struct Case {
  const Generator* g = nullptr;
  Knobs knobs;
  std::optional<Call> call;
};
Case current;

/// One webgpu tensor whose bytes are on their way.
struct Read {
  Tensor t;
  webgpu::WebGpuBackend::PendingRead pending;
};

/// The half kfuzz_start leaves for kfuzz_finish.
struct Half {
  Outcome outcome;  // reference's: invalid, or pass with its kernels
  Evaluation want;
  std::string problem;        // webgpu threw, or computed elsewhere
  std::vector<Read> results;  // output, then the gradients
  std::vector<DeviceCheck> checks;
  std::vector<Read> checkReads;
  std::set<std::string> kernels;  // run on webgpu
};
Half half;

/// Shrinking the last failed case: its trials replace `current` one by one.
std::unique_ptr<Shrinker> shrinker;
std::string shrunkDetail;  // the smallest failing call's

webgpu::WebGpuBackend& gpu() { return *webgpu::instance(); }

Read startRead(const Tensor& t) {
  Read r{t, {}};
  // A zero-size result has no GPU buffer: nothing to read.
  if (webgpu::bufferOf(t).bytes > 0) r.pending = gpu().startRead(webgpu::bufferOf(t));
  return r;
}

/// The landed bytes as floats, as Tensor::toFloats gives them.
std::vector<float> take(Read& r) {
  if (webgpu::bufferOf(r.t).bytes == 0) return {};
  std::vector<uint8_t> bytes = gpu().finishRead(r.pending);
  std::vector<float> v(static_cast<size_t>(r.t.size()));
  if (r.t.dtype() == DType::float32) {
    std::memcpy(v.data(), bytes.data(), v.size() * 4);
  } else if (r.t.dtype() == DType::int32) {
    std::vector<int32_t> i(v.size());
    std::memcpy(i.data(), bytes.data(), i.size() * 4);
    v.assign(i.begin(), i.end());
  } else {
    for (size_t k = 0; k < v.size(); ++k) v[k] = bytes[k] != 0 ? 1.0f : 0.0f;
  }
  return v;
}

bool onGpu(const Tensor& t) { return t.impl()->storage->backend == &gpu(); }

/// The webgpu half of start: evaluates and starts the reads, or says why not.
void startWebGpu(const Call& call) {
  std::string saved = getBackend();
  setBackend("webgpu");
  setKernelProfiling(true);
  takeDeviceChecks();       // none of an earlier case's
  std::vector<Tensor> all;  // the output, then the gradients
  startScope();
  try {
    OnDevice e = evaluateOnActive(call);
    all.push_back(e.y);
    all.insert(all.end(), e.grads.begin(), e.grads.end());
  } catch (const std::exception& e) {
    half.problem = std::string("threw where reference computes: ") + e.what();
  }
  endScope(all);
  for (size_t k = 0; k < all.size() && half.problem.empty(); ++k)
    if (!onGpu(all[k]))
      half.problem = (k == 0 ? "forward" : "gradient of input " + std::to_string(k - 1)) +
                     " was computed on " + all[k].backendName() + ", not webgpu";
  if (half.problem.empty())
    for (const Tensor& t : all) half.results.push_back(startRead(t));
  // Ops that validate on the device (checkOnDevice) leave their verdicts here.
  half.checks = takeDeviceChecks();
  if (half.problem.empty())
    for (const DeviceCheck& c : half.checks) half.checkReads.push_back(startRead(c.failures));
  for (const KernelProfileRow& row : kernelProfile())
    if (row.backend == "webgpu") half.kernels.insert(row.kernel);
  setKernelProfiling(false);
  setBackend(saved);
}

/// The verdict on the landed half: empty when webgpu agrees with reference.
std::string judgeHalf(const Call& call) {
  if (!half.problem.empty()) return half.problem;
  Evaluation got;
  got.shape = half.results[0].t.shape();
  got.dtype = half.results[0].t.dtype();
  got.values = take(half.results[0]);
  for (size_t k = 1; k < half.results.size(); ++k) got.grads.push_back(take(half.results[k]));
  for (size_t k = 0; k < half.checkReads.size(); ++k) {
    std::vector<float> v = take(half.checkReads[k]);
    if (!v.empty() && !(v[0] <= 0))
      return "a device check refused what reference computes: " + half.checks[k].op + ": " +
             half.checks[k].message;
  }
  return judge(call, "webgpu", got, half.want);
}

/// Counts a finished case as the native fuzzer's runOne does.
void count(const Case& c, int verdict) {
  Tally& t = tallies[c.g->name];
  if (verdict == 2) {
    ++t.invalid;
    return;
  }
  ++t.cases;
  for (const std::string& tag : c.call->tags) ++t.tags[tag];
  reached.insert(half.kernels.begin(), half.kernels.end());
  if (verdict == 1) ++t.failed;
}

bool setCase(const Generator& g, Knobs knobs) {
  current.g = &g;
  current.knobs = std::move(knobs);
  current.call = g.build(current.knobs);
  if (!current.call) ++tallies[g.name].invalid;  // as runOne counts knobs that build nothing
  return current.call.has_value();
}

}  // namespace
}  // namespace glint::kfuzz

using namespace glint;
using namespace glint::kfuzz;

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* kfuzz_message() { return message.c_str(); }

/// 1: the webgpu backend's GPU kernel forms also on a software adapter.
EMSCRIPTEN_KEEPALIVE int kfuzz_setup(int forceGpuKernels) {
  try {
    setBackend("webgpu");
    webgpu::instance()->setForceGpuKernels(forceGpuKernels != 0);
    return 1;
  } catch (const std::exception& e) {
    message = e.what();
    return 0;
  }
}

/// Starts a fuzz stream (a decimal 64-bit seed; one generator or all, ""):
/// the number of generators, or -1 with kfuzz_message() saying why.
EMSCRIPTEN_KEEPALIVE int kfuzz_select(const char* seed, const char* generator) {
  std::vector<const Generator*> gens;
  for (const Generator& g : generators())
    if (!*generator || g.name == generator) gens.push_back(&g);
  if (gens.empty()) {
    message = std::string("no generator named '") + generator + "'";
    return -1;
  }
  uint64_t s;
  try {
    s = std::stoull(seed);
  } catch (const std::exception&) {
    message = std::string("seed '") + seed + "' is not a decimal number";
    return -1;
  }
  int n = static_cast<int>(gens.size());
  stream = std::make_unique<CaseStream>(s, std::move(gens));
  return n;
}

/// The stream's next case: 1 when its knobs build a call (start it), 0 when
/// they do not (counted invalid), -1 before kfuzz_select.
EMSCRIPTEN_KEEPALIVE int kfuzz_draw() {
  if (!stream) {
    message = "kfuzz_select first";
    return -1;
  }
  Knobs k;
  const Generator& g = stream->next(k);
  return setCase(g, std::move(k)) ? 1 : 0;
}

/// A replay line ("pool:0,2,5,..."): 1 when it builds a call, 0 when not
/// (counted invalid), -1 when the line names no generator.
EMSCRIPTEN_KEEPALIVE int kfuzz_replay(const char* line) {
  const Generator* g;
  Knobs k;
  if (!parseReplay(line, g, k)) {
    message =
        std::string("bad replay line '") + line + "' (GENERATOR:K1,K2,... with a known generator)";
    return -1;
  }
  return setCase(*g, std::move(k)) ? 1 : 0;
}

/// The current case's replay text (GENERATOR:knobs) and its call.
EMSCRIPTEN_KEEPALIVE const char* kfuzz_case() {
  static std::string s;
  s = current.g ? current.g->name + ":" + knobsText(current.knobs) : "";
  return s.c_str();
}
EMSCRIPTEN_KEEPALIVE const char* kfuzz_describe() {
  return current.call ? current.call->describe.c_str() : "";
}

/// Runs the current case on reference and on webgpu and starts the webgpu
/// reads: how many (JS awaits them; 0 when reference refuses the call), or
/// -1 when webgpu threw (kfuzz_message says; kfuzz_finish reports it).
EMSCRIPTEN_KEEPALIVE int kfuzz_start() {
  half = Half{};
  message.clear();
  if (!current.call) {
    message = "no case to start: draw or replay one that builds a call first";
    return -1;
  }
  const Call& call = *current.call;
  try {
    half.outcome = runReference(call, half.want);
    if (half.outcome.kind == Outcome::invalid) return 0;
    startWebGpu(call);
  } catch (const std::exception& e) {
    // Not the op's refusal (a glint::Error on reference makes the call
    // invalid): the harness itself went wrong. A failure, not a crash.
    half.outcome.kind = Outcome::fail;
    half.problem = std::string("the fuzzer's own step threw: ") + e.what();
  }
  if (!half.problem.empty()) {
    message = half.problem;
    return -1;
  }
  return static_cast<int>(half.results.size() + half.checkReads.size());
}

/// After the reads landed: 0 pass, 1 fail (kfuzz_message says what differs),
/// 2 invalid (reference refuses the call). Counted in the tallies, except a
/// shrink trial's, which goes to the shrinker.
EMSCRIPTEN_KEEPALIVE int kfuzz_finish() {
  int verdict = 2;
  if (half.outcome.kind != Outcome::invalid) {
    try {
      message = judgeHalf(*current.call);
    } catch (const std::exception& e) {
      message = std::string("reading webgpu's results: ") + e.what();
    }
    verdict = message.empty() ? 0 : 1;
  }
  if (shrinker) {
    if (verdict == 1) shrunkDetail = message;
    shrinker->result(verdict == 1);
  } else {
    count(current, verdict);
  }
  half = Half{};
  return verdict;
}

/// Shrinks the current case, which just failed (kfuzz_message holds why).
EMSCRIPTEN_KEEPALIVE void kfuzz_shrink_begin() {
  shrinker = std::make_unique<Shrinker>(*current.g, current.knobs);
  shrunkDetail = message;
}

/// 1: the current case is the next trial (start, await, finish it); 0: done,
/// the current case is the smallest that fails and kfuzz_message says how.
EMSCRIPTEN_KEEPALIVE int kfuzz_shrink_next() {
  Knobs trial;
  Call call;
  if (shrinker->next(trial, call)) {
    current.knobs = std::move(trial);
    current.call = std::move(call);
    return 1;
  }
  current.knobs = shrinker->knobs();
  current.call = current.g->build(current.knobs);
  message = shrunkDetail;
  shrinker.reset();
  return 0;
}

/// The run so far as JSON: per generator {cases, invalid, failed, tags},
/// the kernels run on webgpu, and the registry's webgpu kernels.
EMSCRIPTEN_KEEPALIVE const char* kfuzz_tallies() {
  static std::string s;
  Json out;
  out["generators"] = Json::object();
  for (const Generator& g : generators()) {
    const Tally& t = tallies[g.name];
    Json tags = Json::object();
    for (const auto& [tag, n] : t.tags) tags[tag] = n;
    out["generators"][g.name] = {
        {"cases", t.cases}, {"invalid", t.invalid}, {"failed", t.failed}, {"tags", tags}};
  }
  out["reached"] = std::vector<std::string>(reached.begin(), reached.end());
  std::vector<std::string> registered;
  for (const auto& [kernel, backends] : kernelTable())
    if (std::find(backends.begin(), backends.end(), "webgpu") != backends.end())
      registered.push_back(kernel);
  out["webgpuKernels"] = registered;
  s = out.dump();
  return s.c_str();
}

}  // extern "C"

// The runtime stays up for JS to call the exports (EXIT_RUNTIME is off for this target).
int main() { return 0; }
