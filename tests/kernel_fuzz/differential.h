#pragma once
// Runs a generated call on reference and on every other backend and compares
// (forward values, then the tape's gradients), and shrinks a failing call.
#include <set>

#include "tests/kernel_fuzz/fuzz_case.h"

namespace glint::kfuzz {

struct Outcome {
  enum Kind { invalid, pass, fail } kind = invalid;
  std::string backend;  // the one that failed
  std::string detail;
  std::set<std::string> kernels;  // reached on reference (forward and backward)
};

/// One backend's result of a call: forward, and with gradients the upstream
/// weights w and the gradients of sum(w * f) for the differentiable float32
/// inputs (their indices in gradInputs).
struct Evaluation {
  Shape shape;
  DType dtype = DType::float32;
  std::vector<float> values;
  std::vector<float> weights;
  std::vector<std::vector<float>> grads;
  std::vector<size_t> gradInputs;
};

/// The w of sum(w * f) for a call whose output has n elements: the same on
/// every backend and in --emit.
std::vector<float> upstreamWeights(const Call& c, size_t n);

/// The call on reference (gradients when call.checkGrad); nullopt when the op
/// refuses it (not a valid call).
std::optional<Evaluation> evaluateReference(const Call& call);

Outcome runCall(const Call& call, const std::vector<std::string>& backends);

/// Lowers knobs (all but the first, which picks the op, and the last, the
/// value seed) while the call still fails; at most `attempts` builds.
Knobs shrink(const Generator& g, Knobs knobs, const std::vector<std::string>& backends,
             Outcome& outcome, int attempts = 300);

std::string knobsText(const Knobs& k);

}  // namespace glint::kfuzz
