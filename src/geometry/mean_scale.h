#pragma once
// The Mean kernel's factor, shared by its op's gradient and every backend:
// each sums its window as Sum does and multiplies the result by this.
#include <cstdint>
#include <limits>
#include <vector>

#include "glint/shape.h"

namespace glint {

/// 1 / (elements of `shape` along `axes`); NaN for an empty window, like
/// TF.js (0 * NaN).
inline double meanScale(const Shape& shape, const std::vector<int64_t>& axes) {
  int64_t n = 1;
  for (int64_t a : axes) n *= shape[static_cast<size_t>(a)];
  return n == 0 ? std::numeric_limits<double>::quiet_NaN() : 1.0 / static_cast<double>(n);
}

}  // namespace glint
