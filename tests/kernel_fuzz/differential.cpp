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

using Result = Evaluation;

/// Forward and gradients on the current backend. Throws what the op throws.
Result evaluate(const Call& c, bool withGrads) {
  startScope();
  Result r;
  try {
    std::vector<Tensor> xs = makeTensors(c);
    Tensor y = c.fn(xs);
    r.shape = y.shape();
    r.dtype = y.dtype();
    r.values = y.toFloats();
    if (withGrads && y.dtype() == DType::float32 && y.size() > 0) {
      r.weights = upstreamWeights(c, static_cast<size_t>(y.size()));
      Tensor dy = tensor(r.weights, y.shape());
      std::vector<Tensor> diff;
      std::vector<size_t> which;
      for (size_t i = 0; i < xs.size(); ++i)
        if (c.inputs[i].differentiable && c.inputs[i].dtype == DType::float32) {
          diff.push_back(xs[i]);
          which.push_back(i);
          r.gradInputs.push_back(i);
        }
      if (!diff.empty()) {
        std::vector<Tensor> g = grads(
            [&](const std::vector<Tensor>& d) {
              std::vector<Tensor> all = xs;
              for (size_t k = 0; k < which.size(); ++k) all[which[k]] = d[k];
              return c.fn(all);
            },
            diff, dy);
        for (const Tensor& t : g) r.grads.push_back(t.toFloats());
      }
    }
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

std::string compareResults(const Call& call, const Result& got, const Result& want) {
  if (got.shape != want.shape)
    return "shape " + shapeText(got.shape) + " vs reference " + shapeText(want.shape);
  if (got.dtype != want.dtype) return "dtype differs from reference's";
  std::string problem = compare(got.values, want.values, call.rtol, call.atol, "forward", call.alsoRight);
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
    out = evaluate(call, call.checkGrad);
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

Outcome runCall(const Call& call, const std::vector<std::string>& backends) {
  Outcome out;
  std::string saved = getBackend();
  Result want;
  setBackend("reference");
  setKernelProfiling(true);
  try {
    want = evaluate(call, call.checkGrad);
  } catch (const Error&) {
    setKernelProfiling(false);
    setBackend(saved);
    return out;  // the op refuses these arguments everywhere: not a valid call
  }
  for (const KernelProfileRow& row : kernelProfile()) out.kernels.insert(row.kernel);
  setKernelProfiling(false);
  out.kind = Outcome::pass;
  for (const std::string& b : backends) {
    if (b == "reference") continue;
    setBackend(b);
    std::string problem;
    try {
      Result got = evaluate(call, call.checkGrad);
      problem = compareResults(call, got, want);
      if (!problem.empty() && b != "cpu") {
        if (std::optional<Call> flushed = flushedDenormals(call)) {
          setBackend("reference");
          Result wantFlushed = evaluate(*flushed, call.checkGrad);
          setBackend(b);
          std::string again = compareResults(call, got, wantFlushed);
          if (again.empty()) problem.clear();
          else problem += " (with denormal inputs flushed to zero: " + again + ")";
        }
      }
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

Knobs shrink(const Generator& g, Knobs knobs, const std::vector<std::string>& backends,
             Outcome& outcome, int attempts) {
  bool progress = true;
  while (progress && attempts > 0) {
    progress = false;
    for (size_t i = 1; i + 1 < knobs.size() && attempts > 0; ++i) {
      int64_t v = knobs[i];
      for (int64_t candidate : {int64_t{0}, int64_t{1}, v / 2, v - 1}) {
        if (candidate >= v || candidate < 0 || attempts-- <= 0) continue;
        Knobs trial = knobs;
        trial[i] = candidate;
        std::optional<Call> call = g.build(trial);
        if (!call) continue;
        Outcome o = runCall(*call, backends);
        if (o.kind == Outcome::fail) {
          knobs = trial;
          outcome = o;
          progress = true;
          break;
        }
      }
    }
  }
  return knobs;
}

}  // namespace glint::kfuzz
