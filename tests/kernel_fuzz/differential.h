#pragma once
// Runs a generated call on reference and on every other backend and compares
// (forward values, then the tape's gradients), and shrinks a failing call.
// The pieces are public for tests/kernel_fuzz_async, which runs the same
// calls on webgpu where reads are asynchronous: it evaluates and reads in
// two halves, and judges and shrinks with the same code.
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

/// The call's output and (when it checks them) the gradients of sum(w * f)
/// on the active backend, not read; in the caller's scope. Throws what the op
/// throws. weights and gradInputs as in Evaluation.
struct OnDevice {
  Tensor y;
  std::vector<Tensor> grads;
  std::vector<float> weights;
  std::vector<size_t> gradInputs;
};
OnDevice evaluateOnActive(const Call& c);

/// Reference's half: its results and the kernels it reached (Outcome::pass),
/// or Outcome::invalid when reference refuses the call. Leaves the active
/// backend as it found it.
Outcome runReference(const Call& call, Evaluation& want);

/// `got`, backend's result, against reference's: empty when right, else what
/// differs. A GPU backend is also right where reference on the inputs with
/// denormals flushed agrees (runs that on reference, synchronously).
std::string judge(const Call& call, const std::string& backend, const Evaluation& got,
                  const Evaluation& want);

/// Lowers knobs (all but the first, which picks the op, and the last, the
/// value seed) one at a time, keeping each lowering under which the call
/// still fails; at most `attempts` builds. The caller runs each trial:
///   while (s.next(trial, call)) s.result(runs(call) == fail);
class Shrinker {
 public:
  Shrinker(const Generator& g, Knobs knobs, int attempts = 300)
      : g_(g), knobs_(std::move(knobs)), attempts_(attempts) {}
  /// The next trial (knobs that build a call), or false when done.
  bool next(Knobs& trial, Call& call);
  /// Whether the trial next() gave still fails.
  void result(bool failed);
  /// The smallest failing knobs so far.
  const Knobs& knobs() const { return knobs_; }

 private:
  const Generator& g_;
  Knobs knobs_, trial_;
  int attempts_;
  size_t knob_ = 1;    // the knob being lowered
  int candidate_ = 0;  // its next candidate value (0, 1, half, minus one)
  bool progress_ = false;
};

/// Shrinks with runCall on `backends`; `outcome` becomes the smallest call's.
Knobs shrink(const Generator& g, Knobs knobs, const std::vector<std::string>& backends,
             Outcome& outcome, int attempts = 300);

std::string knobsText(const Knobs& k);

const Generator* findGenerator(const std::string& name);
/// "pool:0,2,5,..." -> generator and knobs.
bool parseReplay(const std::string& line, const Generator*& g, Knobs& k);

/// The fuzz run's draws: round-robin over `gens`, each generator cycling
/// through its ops (Generator::ops) before they repeat.
class CaseStream {
 public:
  CaseStream(uint64_t seed, std::vector<const Generator*> gens)
      : rng_(seed), gens_(std::move(gens)) {}
  const Generator& next(Knobs& knobs);

 private:
  Rng rng_;
  std::vector<const Generator*> gens_;
  int64_t drawn_ = 0;
};

}  // namespace glint::kfuzz
