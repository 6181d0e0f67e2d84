// fill / zeros / ones / range: values made on the host and uploaded (no kernel).
#include <cmath>

#include "glint/ops.h"
#include "src/ops/op_util.h"

namespace glint {

Tensor fill(const Shape& shape, float value, DType dtype) {
  for (int64_t d : shape)
    if (d < 0) fail("fill", "shape ", shapeToString(shape), " has a negative dimension");
  size_t n = static_cast<size_t>(shapeSize(shape));
  switch (dtype) {
    case DType::float32:
      return tensor(std::vector<float>(n, value), shape);
    case DType::int32:
      return tensorInt(std::vector<int32_t>(n, static_cast<int32_t>(value)), shape);
    case DType::boolean:
      return tensorBool(std::vector<uint8_t>(n, value != 0.0f), shape);
  }
  return Tensor();
}

Tensor zeros(const Shape& shape, DType dtype) { return fill(shape, 0.0f, dtype); }
Tensor ones(const Shape& shape, DType dtype) { return fill(shape, 1.0f, dtype); }

Tensor zerosLike(const Tensor& x) {
  ops::checkTensor("zerosLike", "x", x);
  return fill(x.shape(), 0.0f, x.dtype());
}

Tensor onesLike(const Tensor& x) {
  ops::checkTensor("onesLike", "x", x);
  return fill(x.shape(), 1.0f, x.dtype());
}

Tensor range(float start, float stop, float step, DType dtype) {
  check(step != 0.0f, "range", "step must not be 0");
  check(dtype != DType::boolean, "range", "dtype must be float32 or int32, got bool");
  check(std::isfinite(start) && std::isfinite(stop) && std::isfinite(step), "range",
        "start, stop and step must be finite, got ", start, ", ", stop, ", ", step);
  double count = std::ceil((static_cast<double>(stop) - start) / step);
  int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
  std::vector<float> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    values[i] = static_cast<float>(start + static_cast<double>(i) * step);
  if (dtype == DType::float32) return tensor(values, {n});
  std::vector<int32_t> ints(values.begin(), values.end());
  return tensorInt(ints, {n});
}

}  // namespace glint
