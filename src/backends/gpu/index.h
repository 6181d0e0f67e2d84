#pragma once
// Index maps both GPU backends print into their element programs.
#include <string>
#include <vector>

#include "glint/shape.h"
#include "src/backends/gpu/ir.h"

namespace glint::gpu {

/// `int name(int i)`: the flat index in `in` of output element i, `in`
/// broadcast (NumPy rules) to `out`. The strides are literals, or with
/// `stridesAsParams` i32 parameters named `<name>_o<d>` / `<name>_s<d>`
/// (one program for every shape of the same broadcast pattern).
Fn broadcastIndex(const std::string& name, const Shape& in, const Shape& out,
                  bool stridesAsParams = false);

/// The maps names[k] of each input k broadcast to `out`, over out's dims
/// merged where every input broadcasts alike, so fewer divisions per element
/// ([2,3,4] + [3,4] indexes as [2,12] + [12]; same shapes need none).
std::vector<Fn> broadcastIndices(const std::vector<std::string>& names,
                                 const std::vector<Shape>& inputs, const Shape& out,
                                 bool stridesAsParams = false);

}  // namespace glint::gpu
