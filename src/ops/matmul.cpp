// matMul (kernel BatchMatMul) and its gradient.
#include "glint/backend.h"
#include "glint/ops.h"
#include "src/ops/gradients.h"
#include "src/ops/op_util.h"

namespace glint {

namespace {

const char* flag(bool b) { return b ? "true" : "false"; }

}  // namespace

Tensor matMul(const Tensor& a, const Tensor& b, bool transposeA, bool transposeB) {
  ops::checkDType("matMul", "a", a, {DType::float32});
  ops::checkDType("matMul", "b", b, {DType::float32});
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
  return runKernel("BatchMatMul", {a, b}, OutputSpec{out, DType::float32},
                   Attrs().set("transposeA", transposeA).set("transposeB", transposeB));
}

namespace ops {

std::vector<Tensor> matMulGrads(const Tensor& dc, const GradContext& ctx) {
  // With C = op(A) op(B): dA = dC op(B)^T and dB = op(A)^T dC, written so
  // that no operand is transposed explicitly; broadcast batch dims are summed.
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  bool tA = ctx.attrs.b("transposeA"), tB = ctx.attrs.b("transposeB");
  Tensor da, db;
  if (ctx.needs(0)) {
    da = !tA ? matMul(dc, b, false, !tB) : tB ? matMul(b, dc, true, true) : matMul(b, dc, false, true);
    da = ops::sumToShape(da, a.shape());
  }
  if (ctx.needs(1)) {
    db = !tB ? matMul(a, dc, !tA, false) : tA ? matMul(dc, a, true, true) : matMul(dc, a, true, false);
    db = ops::sumToShape(db, b.shape());
  }
  return {da, db};
}

}  // namespace ops

void registerMatMulGradients() {
  registerGradient("BatchMatMul", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
    return ops::matMulGrads(dys[0], ctx);
  });
}

}  // namespace glint
