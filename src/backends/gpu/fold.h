#pragma once
// The reductions of both GPU backends as folds, written once: what a
// reduction computes (Sum with Kahan compensation, int32 sums and products
// wrapping through u32, NaN winning Max and Min, Any/All) is here; how a
// window is walked is each backend's (gl: a fragment per output, long
// windows in two draws; webgpu: an invocation or a workgroup tree per
// output, long windows in two dispatches).
#include <vector>

#include "glint/dtype.h"
#include "src/backends/gpu/ir.h"

namespace glint::gpu {

enum class Reduction { sum, prod, max, min, any, all };

/// A reduction as a fold. The accumulator (of type `acc`) starts at `init`
/// and takes each element v through fstep(acc, v); the fold of a share of
/// the window leaves as fdone(acc), a 32-bit value of type `part`; shares
/// combine by fmerge(a, b) (fdone(init) is its identity); fresult(part) is
/// the output value. A share's part is also a valid element of the same
/// fold where `part` is the element type (gl's second draw folds the first
/// draw's results again).
struct Fold {
  Type acc, part;
  E init;
  Fn step, done, merge, result;
  /// The four functions, to print before the kernel that calls them.
  std::vector<const Fn*> fns() const { return {&step, &done, &merge, &result}; }
};

/// The fold of `r` over elements of `dtype` (float32 or int32; boolean for
/// any and all), built once.
const Fold& fold(Reduction r, DType dtype);

/// Mean: the float32 sum's fold whose result is multiplied by `scale` (1 /
/// the window's size; NaN for an empty window, which stays NaN: a GPU
/// compiler may fold 0 * NaN to 0).
Fold meanFold(double scale);

}  // namespace glint::gpu
