#pragma once
// Broadcasting as rows: the output's dimensions are collapsed (size-1 dims
// dropped, neighbours merged where every operand is contiguous or stretched
// across both), so a kernel runs one contiguous or stride-0 inner loop per
// row and moves offsets once per row, never per element.
#include <array>
#include <cstdint>
#include <vector>

#include "glint/shape.h"

namespace glint::cpu {

template <int N>
struct BroadcastRows {
  std::vector<int64_t> dims;                    // collapsed output dims; the last is the row
  std::array<std::vector<int64_t>, N> strides;  // per operand, 0 where stretched
  int64_t rowLen = 1, rows = 1;

  BroadcastRows(const Shape& out, const std::array<const Shape*, N>& ins) {
    size_t rank = out.size();
    std::array<std::vector<int64_t>, N> own;
    for (int k = 0; k < N; ++k) {
      const Shape& s = *ins[k];
      own[k].assign(rank, 0);
      int64_t stride = 1;
      for (size_t i = s.size(); i-- > 0;) {
        own[k][rank - s.size() + i] = s[i] == 1 ? 0 : stride;
        stride *= s[i];
      }
    }
    for (size_t d = 0; d < rank; ++d) {
      if (out[d] == 1) continue;
      bool merge = !dims.empty();
      for (int k = 0; k < N && merge; ++k) merge = strides[k].back() == own[k][d] * out[d];
      if (merge) {
        dims.back() *= out[d];
        for (int k = 0; k < N; ++k) strides[k].back() = own[k][d];
      } else {
        dims.push_back(out[d]);
        for (int k = 0; k < N; ++k) strides[k].push_back(own[k][d]);
      }
    }
    if (dims.empty()) {
      dims.push_back(1);
      for (int k = 0; k < N; ++k) strides[k].push_back(0);
    }
    rowLen = dims.back();
    for (size_t d = 0; d + 1 < dims.size(); ++d) rows *= dims[d];
  }

  /// Inner stride (0 or 1) of operand k.
  int64_t innerStride(int k) const { return strides[k].back(); }

  /// Calls row(offsets of each operand, output offset) for every row, in order.
  template <class Row>
  void forEachRow(Row&& row) const {
    int64_t outer = static_cast<int64_t>(dims.size()) - 1;
    std::vector<int64_t> index(static_cast<size_t>(outer), 0);
    std::array<int64_t, N> off{};
    for (int64_t r = 0; r < rows; ++r) {
      row(off, r * rowLen);
      for (int64_t d = outer - 1; d >= 0; --d) {
        for (int k = 0; k < N; ++k) off[k] += strides[k][d];
        if (++index[d] < dims[d]) break;
        for (int k = 0; k < N; ++k) off[k] -= strides[k][d] * dims[d];
        index[d] = 0;
      }
    }
  }
};

}  // namespace glint::cpu
