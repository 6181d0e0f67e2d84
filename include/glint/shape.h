#pragma once
// Shapes are row-major lists of dimension sizes; rank 0 is a scalar.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace glint {

using Shape = std::vector<int64_t>;

/// Number of elements (1 for a scalar, 0 if any dimension is 0).
int64_t shapeSize(const Shape& shape);
/// "[2,3]"; a scalar prints as "[]".
std::string shapeToString(const Shape& shape);
/// Row-major strides in elements.
std::vector<int64_t> stridesOf(const Shape& shape);
/// NumPy broadcasting of two shapes; throws naming `op` and both shapes.
Shape broadcastShapes(const std::string& op, const Shape& a, const Shape& b);
/// Maps a possibly negative axis into [0, rank); throws naming `op` and `arg`.
int normalizeAxis(const std::string& op, const std::string& arg, int64_t axis, int rank);
/// Normalizes a list of axes (empty list = all axes), sorted, no duplicates.
std::vector<int> normalizeAxes(const std::string& op, const std::string& arg,
                               const std::vector<int64_t>& axes, int rank);
/// Axes along which `inShape` was broadcast to reach `outShape`.
std::vector<int64_t> broadcastedAxes(const Shape& inShape, const Shape& outShape);

}  // namespace glint
