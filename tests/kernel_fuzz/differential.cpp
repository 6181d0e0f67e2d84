// Differential runs (differential.h).
#include "tests/kernel_fuzz/differential.h"

#include <cmath>
#include <sstream>

namespace glint::kfuzz {

namespace {

bool close(double got, double want, double rtol, double atol) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (std::isinf(got) || std::isinf(want)) return got == want;
  return std::abs(got - want) <= atol + rtol * std::max(std::abs(got), std::abs(want));
}

std::vector<Tensor> makeTensors(const Call& c) {
  std::vector<Tensor> out;
  for (const InputData& d : c.inputs) {
    if (d.dtype == DType::int32) {
      std::vector<int32_t> v(d.values.begin(), d.values.end());
      out.push_back(tensorInt(v, d.shape));
    } else if (d.dtype == DType::boolean) {
      std::vector<uint8_t> v;
      for (float x : d.values) v.push_back(x != 0.0f ? 1 : 0);
      out.push_back(tensorBool(v, d.shape));
    } else {
      out.push_back(tensor(d.values, d.shape));
    }
  }
  return out;
}

/// Forward and gradients on the active backend, read. Throws what the op throws.
Evaluation evaluate(const Call& c) {
  startScope();
  Evaluation r;
  try {
    OnDevice e = evaluateOnActive(c);
    r.shape = e.y.shape();
    r.dtype = e.y.dtype();
    r.values = e.y.toFloats();
    r.weights = std::move(e.weights);
    r.gradInputs = std::move(e.gradInputs);
    for (const Tensor& t : e.grads) r.grads.push_back(t.toFloats());
  } catch (...) {
    endScope();
    throw;
  }
  endScope();
  return r;
}

std::string compare(const std::vector<float>& got, const std::vector<float>& want, double rtol,
                    double atol, const std::string& what,
                    const std::function<bool(size_t, float)>& alsoRight = nullptr) {
  if (got.size() != want.size())
    return what + ": " + std::to_string(got.size()) + " elements vs reference's " +
           std::to_string(want.size());
  for (size_t i = 0; i < want.size(); ++i)
    if (!close(got[i], want[i], rtol, atol) && !(alsoRight && alsoRight(i, got[i]))) {
      std::ostringstream os;
      os.precision(9);
      os << what << " element " << i << ": " << got[i] << " vs reference " << want[i];
      return os.str();
    }
  return "";
}

/// The call with denormal inputs flushed to zero (sign kept), or nullopt
/// when it has none. GPUs may flush denormals (WebGL and WebGPU allow it,
/// and SwiftShader and NVIDIA do): a backend's result is also right when it
/// is reference's on the flushed inputs.
std::optional<Call> flushedDenormals(const Call& c) {
  Call out = c;
  bool any = false;
  for (InputData& d : out.inputs) {
    if (d.dtype != DType::float32) continue;
    for (float& v : d.values)
      if (std::fpclassify(v) == FP_SUBNORMAL) {
        v = std::copysign(0.0f, v);
        any = true;
      }
  }
  if (!any) return std::nullopt;
  return out;
}

std::string compareResults(const Call& call, const Evaluation& got, const Evaluation& want) {
  if (got.shape != want.shape)
    return "shape " + shapeText(got.shape) + " vs reference " + shapeText(want.shape);
  if (got.dtype != want.dtype) return "dtype differs from reference's";
  std::string problem =
      compare(got.values, want.values, call.rtol, call.atol, "forward", call.alsoRight);
  for (size_t i = 0; problem.empty() && i < want.grads.size(); ++i)
    problem = compare(i < got.grads.size() ? got.grads[i] : std::vector<float>{}, want.grads[i],
                      call.rtol * call.gradScale, call.atol * call.gradScale,
                      "gradient of input " + std::to_string(i));
  return problem;
}

}  // namespace

std::vector<float> upstreamWeights(const Call& c, size_t n) {
  std::vector<float> w(n);
  Rng rng(std::hash<std::string>{}(c.describe));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& v : w) v = u(rng);
  return w;
}

std::optional<Evaluation> evaluateReference(const Call& call) {
  std::string saved = getBackend();
  setBackend("reference");
  std::optional<Evaluation> out;
  try {
    out = evaluate(call);
  } catch (const Error&) {
  }
  setBackend(saved);
  return out;
}

std::string knobsText(const Knobs& k) {
  std::string s;
  for (size_t i = 0; i < k.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(k[i]);
  }
  return s;
}

OnDevice evaluateOnActive(const Call& c) {
  OnDevice e;
  std::vector<Tensor> xs = makeTensors(c);
  e.y = c.fn(xs);
  if (!c.checkGrad || e.y.dtype() != DType::float32 || e.y.size() == 0) return e;
  e.weights = upstreamWeights(c, static_cast<size_t>(e.y.size()));
  Tensor dy = tensor(e.weights, e.y.shape());
  std::vector<Tensor> diff;
  for (size_t i = 0; i < xs.size(); ++i)
    if (c.inputs[i].differentiable && c.inputs[i].dtype == DType::float32) {
      diff.push_back(xs[i]);
      e.gradInputs.push_back(i);
    }
  if (diff.empty()) return e;
  e.grads = grads(
      [&](const std::vector<Tensor>& d) {
        std::vector<Tensor> all = xs;
        for (size_t k = 0; k < e.gradInputs.size(); ++k) all[e.gradInputs[k]] = d[k];
        return c.fn(all);
      },
      diff, dy);
  return e;
}

Outcome runReference(const Call& call, Evaluation& want) {
  Outcome out;
  std::string saved = getBackend();
  setBackend("reference");
  setKernelProfiling(true);
  try {
    want = evaluate(call);
  } catch (const Error&) {
    setKernelProfiling(false);
    setBackend(saved);
    return out;  // the op refuses these arguments everywhere: not a valid call
  }
  for (const KernelProfileRow& row : kernelProfile()) out.kernels.insert(row.kernel);
  setKernelProfiling(false);
  setBackend(saved);
  out.kind = Outcome::pass;
  return out;
}

std::string judge(const Call& call, const std::string& backend, const Evaluation& got,
                  const Evaluation& want) {
  std::string problem = compareResults(call, got, want);
  if (problem.empty() || backend == "cpu") return problem;
  std::optional<Call> flushed = flushedDenormals(call);
  if (!flushed) return problem;
  std::string saved = getBackend();
  setBackend("reference");
  Evaluation wantFlushed;
  try {
    wantFlushed = evaluate(*flushed);
  } catch (...) {
    setBackend(saved);
    throw;
  }
  setBackend(saved);
  std::string again = compareResults(call, got, wantFlushed);
  if (again.empty()) return "";
  return problem + " (with denormal inputs flushed to zero: " + again + ")";
}

Outcome runCall(const Call& call, const std::vector<std::string>& backends) {
  std::string saved = getBackend();
  Evaluation want;
  Outcome out = runReference(call, want);
  if (out.kind == Outcome::invalid) return out;
  for (const std::string& b : backends) {
    if (b == "reference") continue;
    setBackend(b);
    std::string problem;
    try {
      problem = judge(call, b, evaluate(call), want);
    } catch (const std::exception& e) {
      problem = std::string("threw where reference computes: ") + e.what();
    }
    if (!problem.empty()) {
      out.kind = Outcome::fail;
      out.backend = b;
      out.detail = problem;
      break;
    }
  }
  setBackend(saved);
  return out;
}

bool Shrinker::next(Knobs& trial, Call& call) {
  for (;;) {
    if (knob_ + 1 >= knobs_.size() || attempts_ <= 0) {  // the end of a pass over the knobs
      if (!progress_ || attempts_ <= 0) return false;
      progress_ = false;
      knob_ = 1;
      candidate_ = 0;
      continue;
    }
    int64_t v = knobs_[knob_];
    if (candidate_ == 4) {
      ++knob_;
      candidate_ = 0;
      continue;
    }
    const int64_t candidates[] = {0, 1, v / 2, v - 1};
    int64_t c = candidates[candidate_++];
    if (c >= v || c < 0 || attempts_-- <= 0) continue;
    trial_ = knobs_;
    trial_[knob_] = c;
    std::optional<Call> built = g_.build(trial_);
    if (!built) continue;
    trial = trial_;
    call = std::move(*built);
    return true;
  }
}

void Shrinker::result(bool failed) {
  if (!failed) return;
  knobs_ = trial_;
  progress_ = true;
  ++knob_;
  candidate_ = 0;
}

Knobs shrink(const Generator& g, Knobs knobs, const std::vector<std::string>& backends,
             Outcome& outcome, int attempts) {
  Shrinker s(g, std::move(knobs), attempts);
  Knobs trial;
  Call call;
  while (s.next(trial, call)) {
    Outcome o = runCall(call, backends);
    if (o.kind == Outcome::fail) outcome = o;
    s.result(o.kind == Outcome::fail);
  }
  return s.knobs();
}

const Generator* findGenerator(const std::string& name) {
  for (const Generator& g : generators())
    if (g.name == name) return &g;
  return nullptr;
}

bool parseReplay(const std::string& line, const Generator*& g, Knobs& k) {
  size_t colon = line.find(':');
  if (colon == std::string::npos) return false;
  g = findGenerator(line.substr(0, colon));
  if (!g) return false;
  k.clear();
  std::stringstream in(line.substr(colon + 1));
  for (std::string v; std::getline(in, v, ',');) {
    if (v.empty()) continue;
    try {
      k.push_back(std::stoll(v));
    } catch (const std::exception&) {
      return false;
    }
  }
  return true;
}

const Generator& CaseStream::next(Knobs& knobs) {
  const auto n = static_cast<int64_t>(gens_.size());
  const Generator& g = *gens_[static_cast<size_t>(drawn_ % n)];
  knobs = g.sample(rng_);
  if (g.ops > 0) knobs[0] = (drawn_ / n) % g.ops;
  ++drawn_;
  return g;
}

}  // namespace glint::kfuzz
