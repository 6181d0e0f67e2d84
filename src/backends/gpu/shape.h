#pragma once
// The shape and indexing kernels of both GPU backends that compute each
// output element on its own (Transpose, StridedSlice and its gradient,
// PadV2, Tile, GatherV2, UnsortedSegmentSum, OneHot), written once: each
// builds `T value(int i)`, which finds the input element output element i
// copies (or a fill value) from its coordinates. Concat and Unpack, whose
// draws and dispatches differ per backend, stay in the backends.
#include <functional>
#include <string>
#include <vector>

#include "glint/attrs.h"
#include "glint/dtype.h"
#include "glint/shape.h"
#include "glint/tensor.h"
#include "src/backends/gpu/ir.h"

namespace glint::gpu {

/// What a shape kernel sees of its call.
struct ShapeArgs {
  std::vector<Shape> in;
  std::vector<DType> dtypes;
  Shape out;
  DType outType;
  const Attrs& attrs;
};

/// Builds the body of `value` (T value(int i), reading input k as in<k>(j)).
using ShapeKernel = void (*)(Fn& value, const ShapeArgs& a);

/// `T value(int i)` of `kernel` for a call with these tensors; with
/// `sizesAsParams` its sizes and strides are i32 parameters (print it with
/// the parameters' words), else literals.
Fn shapeValue(ShapeKernel kernel, const std::vector<Tensor>& inputs, const Tensor& out,
              const Attrs& attrs, bool sizesAsParams);

/// Calls `add` for every such kernel this build holds.
void shapeKernels(const std::function<void(const char*, ShapeKernel)>& add);

}  // namespace glint::gpu
