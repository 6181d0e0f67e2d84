#include "glint/shape.h"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "glint/error.h"

namespace glint {

int64_t shapeSize(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Called while validating every op (its result is an argument of check()), so
// it avoids ostringstream, whose locale set-up cost more than small kernels.
std::string shapeToString(const Shape& shape) {
  std::string out = "[";
  char digits[24];
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ',';
    auto end = std::to_chars(digits, digits + sizeof digits, shape[i]).ptr;
    out.append(digits, end);
  }
  out += ']';
  return out;
}

std::vector<int64_t> stridesOf(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

Shape broadcastShapes(const std::string& op, const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      fail(op, "operands could not be broadcast together: shapes ", shapeToString(a), " and ",
           shapeToString(b), " differ in dimension ", i, " (", da, " vs ", db,
           "); each pair of dimensions must be equal or 1");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int normalizeAxis(const std::string& op, const std::string& arg, int64_t axis, int rank) {
  if (axis < -rank || axis >= std::max(rank, 0) || (rank == 0))
    fail(op, arg, " ", axis, " is out of range for a tensor of rank ", rank,
         ": expected an axis in [", -rank, ", ", rank, ")");
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::vector<int> normalizeAxes(const std::string& op, const std::string& arg,
                               const std::vector<int64_t>& axes, int rank) {
  std::vector<int> out;
  if (axes.empty()) {
    for (int i = 0; i < rank; ++i) out.push_back(i);
    return out;
  }
  for (int64_t a : axes) out.push_back(normalizeAxis(op, arg, a, rank));
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end())
    fail(op, arg, " lists an axis twice: expected distinct axes");
  return out;
}

std::vector<int64_t> broadcastedAxes(const Shape& inShape, const Shape& outShape) {
  std::vector<int64_t> axes;
  size_t lead = outShape.size() - inShape.size();
  for (size_t i = 0; i < outShape.size(); ++i) {
    if (i < lead || (inShape[i - lead] == 1 && outShape[i] != 1))
      axes.push_back(static_cast<int64_t>(i));
  }
  return axes;
}

}  // namespace glint
