#pragma once
// Shared argument checks and gradient helpers for op front-ends.
#include <initializer_list>
#include <string>

#include "glint/backend.h"
#include "glint/error.h"
#include "glint/tensor.h"

namespace glint::ops {

/// "float32 [2,3]".
std::string describe(const Tensor& t);
/// Throws unless t is defined and not disposed.
void checkTensor(const std::string& op, const std::string& arg, const Tensor& t);
/// Throws unless t (defined, live) has one of the allowed dtypes.
void checkDType(const std::string& op, const std::string& arg, const Tensor& t,
                std::initializer_list<DType> allowed);
/// Throws unless a and b share a dtype.
void checkSameDType(const std::string& op, const Tensor& a, const Tensor& b);
/// Sums dy over the dimensions that broadcasting added or stretched, so the
/// result has `shape` (the gradient of a broadcast operand).
Tensor sumToShape(const Tensor& dy, const Shape& shape);
/// BatchMatMul's (and _FusedMatMul's) input gradients for output gradient
/// dc, each only when ctx.needs() it.
std::vector<Tensor> matMulGrads(const Tensor& dc, const GradContext& ctx);

}  // namespace glint::ops
