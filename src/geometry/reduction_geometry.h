#pragma once
// How a reduction sees its input, shared by every backend's kernels (the
// reference's loops, cpu's, and the two GPU schedules).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "glint/shape.h"

namespace glint {

/// x's dimensions split into the kept ones (the output's, in order) and the
/// reduced ones (each output element's window), each with x's strides.
struct ReductionWindow {
  Shape kept, reduced;
  std::vector<int64_t> keptStrides, reducedStrides;
  ReductionWindow(const Shape& shape, const std::vector<int64_t>& axes) {
    const std::vector<int64_t> strides = stridesOf(shape);
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
      const bool r = std::find(axes.begin(), axes.end(), d) != axes.end();
      (r ? reduced : kept).push_back(shape[static_cast<size_t>(d)]);
      (r ? reducedStrides : keptStrides).push_back(strides[static_cast<size_t>(d)]);
    }
  }
  /// Elements in one output element's window.
  int64_t size() const { return shapeSize(reduced); }
};

/// x seen as [outer, len, inner] around one axis (arg-reductions, softmax):
/// outer * inner rows of len elements, inner apart.
struct AxisRows {
  int64_t outer = 1, len = 1, inner = 1;
  AxisRows(const Shape& shape, int64_t axis) {
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
      (d < axis ? outer : d == axis ? len : inner) *= shape[static_cast<size_t>(d)];
  }
  int64_t rows() const { return outer * inner; }
};

}  // namespace glint
