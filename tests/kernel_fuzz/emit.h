#pragma once
// glint_kernel_fuzz --emit: each valid call and reference's results as one
// JSON line, for the independent checks (check_tfjs.mjs, check_torch.py).
#include <ostream>

#include "tests/kernel_fuzz/differential.h"

namespace glint::kfuzz {

/// One line: generator, replay, describe, spec, inputs, the upstream weights
/// w, reference's output and gradients of sum(w * f), the tolerances.
/// Floats are written so they parse back to the same float32: 9 significant
/// digits, -0 as -0.0, "NaN", "Infinity" and "-Infinity" as strings.
void emitCall(std::ostream& out, const Generator& g, const Knobs& knobs, const Call& call,
              const Evaluation& reference);

}  // namespace glint::kfuzz
