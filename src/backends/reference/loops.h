#pragma once
// Index helpers shared by the reference kernels.
#include <cstdint>
#include <vector>

#include "glint/backend.h"
#include "glint/error.h"

namespace glint::reference {

/// Strides of `in` seen through broadcasting to `out` (0 on stretched or
/// missing dimensions), aligned to out's rank.
inline std::vector<int64_t> broadcastStrides(const Shape& in, const Shape& out) {
  std::vector<int64_t> strides(out.size(), 0);
  std::vector<int64_t> own = stridesOf(in);
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) strides[lead + i] = in[i] == 1 ? 0 : own[i];
  return strides;
}

/// Calls f(index) for every multi-index of `shape`, in row-major order.
template <class F>
void forEachIndex(const Shape& shape, F&& f) {
  int64_t n = shapeSize(shape);
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    f(static_cast<const std::vector<int64_t>&>(index));
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

/// Flat offset of a multi-index under the given strides.
inline int64_t offsetOf(const std::vector<int64_t>& index, const std::vector<int64_t>& strides) {
  int64_t off = 0;
  for (size_t i = 0; i < index.size(); ++i) off += index[i] * strides[i];
  return off;
}

/// Calls f(T{}) with T the C++ element type of dtype.
template <class F>
void dispatchDType(DType dtype, F&& f) {
  switch (dtype) {
    case DType::float32:
      f(float{});
      return;
    case DType::int32:
      f(int32_t{});
      return;
    case DType::boolean:
      f(uint8_t{});
      return;
  }
}

}  // namespace glint::reference
