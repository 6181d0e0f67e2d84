// matMul (kernel BatchMatMul) and its gradient.
#include "glint/backend.h"
#include "glint/ops.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"
#include "src/ops/gradients.h"
#include "src/ops/op_util.h"

namespace glint {

namespace {

const char* flag(bool b) { return b ? "true" : "false"; }

/// Offsets of each batch of `out` in an operand with batch shape `batch`
/// (right-aligned, size-1 dimensions broadcast), in matrices.
std::vector<int64_t> batchOffsets(const Shape& batch, const Shape& out) {
  int64_t count = shapeSize(out);
  std::vector<int64_t> offsets(static_cast<size_t>(count));
  const size_t lead = out.size() - batch.size();
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rest = flat, offset = 0, stride = 1;
    for (size_t i = out.size(); i-- > 0;) {
      int64_t idx = rest % out[i];
      rest /= out[i];
      if (i >= lead) {
        int64_t d = batch[i - lead];
        offset += (d == 1 ? 0 : idx) * stride;
        stride *= d;
      }
    }
    offsets[static_cast<size_t>(flat)] = offset;
  }
  return offsets;
}

/// int32 operands, as TF.js's CPU kernel computes them: exact products and
/// sums, stored as int32 (wrapping past its range). No backend has an
/// integer MatMul kernel, so this runs on the host.
Tensor intMatMul(const Tensor& a, const Tensor& b, bool tA, bool tB, const Shape& outShape) {
  const int64_t m = a.dim(tA ? -1 : -2), k = a.dim(tA ? -2 : -1), n = b.dim(tB ? -2 : -1);
  Shape batch(outShape.begin(), outShape.end() - 2);
  std::vector<int64_t> offA = batchOffsets(Shape(a.shape().begin(), a.shape().end() - 2), batch);
  std::vector<int64_t> offB = batchOffsets(Shape(b.shape().begin(), b.shape().end() - 2), batch);
  std::vector<int32_t> av = a.data<int32_t>(), bv = b.data<int32_t>();
  std::vector<int32_t> out(static_cast<size_t>(shapeSize(outShape)));
  for (size_t t = 0; t < offA.size(); ++t) {
    const int32_t* pa = av.data() + offA[t] * m * k;
    const int32_t* pb = bv.data() + offB[t] * k * n;
    int32_t* pc = out.data() + static_cast<int64_t>(t) * m * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        int64_t sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          int64_t x = tA ? pa[p * m + i] : pa[i * k + p];
          int64_t y = tB ? pb[j * k + p] : pb[p * n + j];
          sum += x * y;
        }
        pc[i * n + j] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum)));
      }
    }
  }
  return tensorInt(out, outShape);
}

}  // namespace

Tensor matMul(const Tensor& a0, const Tensor& b0, bool transposeA, bool transposeB) {
  ops::checkDType("matMul", "a", a0, {DType::float32, DType::int32});
  ops::checkDType("matMul", "b", b0, {DType::float32, DType::int32});
  // int32 with float32 computes in float32, as TF.js upcasts the pair.
  const bool ints = a0.dtype() == DType::int32 && b0.dtype() == DType::int32;
  const Tensor a = ints || a0.dtype() == DType::float32 ? a0 : cast(a0, DType::float32);
  const Tensor b = ints || b0.dtype() == DType::float32 ? b0 : cast(b0, DType::float32);
  if (a.rank() < 2)
    fail("matMul", "a must have rank >= 2 ([..., m, k]), got ", ops::describe(a),
         "; reshape a rank-1 operand to a matrix first");
  if (b.rank() < 2)
    fail("matMul", "b must have rank >= 2 ([..., k, n]), got ", ops::describe(b),
         "; reshape a rank-1 operand to a matrix first");
  int64_t m = a.dim(transposeA ? -1 : -2), kA = a.dim(transposeA ? -2 : -1);
  int64_t kB = b.dim(transposeB ? -1 : -2), n = b.dim(transposeB ? -2 : -1);
  if (kA != kB)
    fail("matMul", "inner dimensions differ: a ", ops::describe(a), " gives k = ", kA, ", b ",
         ops::describe(b), " gives k = ", kB, " (transposeA=", flag(transposeA),
         ", transposeB=", flag(transposeB), ")");

  Shape batchA(a.shape().begin(), a.shape().end() - 2);
  Shape batchB(b.shape().begin(), b.shape().end() - 2);
  size_t rank = std::max(batchA.size(), batchB.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - batchA.size() ? 1 : batchA[i - (rank - batchA.size())];
    int64_t db = i < rank - batchB.size() ? 1 : batchB[i - (rank - batchB.size())];
    if (!(da == db || da == 1 || db == 1))
      fail("matMul", "batch dimensions ", shapeToString(batchA), " of a ", ops::describe(a),
           " and ", shapeToString(batchB), " of b ", ops::describe(b),
           " do not broadcast: each pair must be equal or 1");
    out[i] = da == 1 ? db : da;
  }
  out.push_back(m);
  out.push_back(n);
  if (ints) return intMatMul(a, b, transposeA, transposeB, out);
  return runKernel("BatchMatMul", {a, b}, OutputSpec{out, DType::float32},
                   kernel_attrs::MatMul{transposeA, transposeB}.attrs());
}

namespace ops {

std::vector<Tensor> matMulGrads(const Tensor& dc, const GradContext& ctx) {
  // With C = op(A) op(B): dA = dC op(B)^T and dB = op(A)^T dC, written so
  // that no operand is transposed explicitly; broadcast batch dims are summed.
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  const kernel_attrs::MatMul product = kernel_attrs::MatMul::read(ctx.attrs);
  bool tA = product.transposeA, tB = product.transposeB;
  Tensor da, db;
  if (ctx.needs(0)) {
    da = !tA  ? matMul(dc, b, false, !tB)
         : tB ? matMul(b, dc, true, true)
              : matMul(b, dc, false, true);
    da = ops::sumToShape(da, a.shape());
  }
  if (ctx.needs(1)) {
    db = !tB  ? matMul(a, dc, !tA, false)
         : tA ? matMul(dc, a, true, true)
              : matMul(dc, a, true, false);
    db = ops::sumToShape(db, b.shape());
  }
  return {da, db};
}

}  // namespace ops

void registerMatMulGradients() {
  GLINT_REGISTER(registerGradient, "BatchMatMul",
                 [](const std::vector<Tensor>& dys, const GradContext& ctx) {
                   return ops::matMulGrads(dys[0], ctx);
                 });
}

}  // namespace glint
