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

Outcome runCall(const Call& call, const std::vector<std::string>& backends);

/// Lowers knobs (all but the first, which picks the op, and the last, the
/// value seed) while the call still fails; at most `attempts` builds.
Knobs shrink(const Generator& g, Knobs knobs, const std::vector<std::string>& backends,
             Outcome& outcome, int attempts = 300);

std::string knobsText(const Knobs& k);

}  // namespace glint::kfuzz
