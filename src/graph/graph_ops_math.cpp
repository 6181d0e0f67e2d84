// Element-wise math, comparisons, logic, casts and reductions of graph
// models. Small host values (shape arithmetic) fold on the host with the
// same rules; everything else runs as Glint ops.
#include <cmath>
#include <limits>

#include "glint/ops.h"
#include "src/graph/graph_internal.h"

namespace glint::graph {

namespace {

using Unary = Tensor (*)(const Tensor&);
using Binary = Tensor (*)(const Tensor&, const Tensor&);
using HostFn = double (*)(double, double);

// out[i] = fn(a[ia], b[ib]) with NumPy broadcasting, then rounded to `dtype`.
HostValue hostBinary(const HostValue& a, const HostValue& b, DType dtype, HostFn fn) {
  Shape out = broadcastShapes("graph", a.shape, b.shape);
  HostValue r{out, dtype, std::vector<double>(static_cast<size_t>(shapeSize(out)))};
  int rank = static_cast<int>(out.size());
  std::vector<int64_t> idx(out.size(), 0);
  auto offset = [&](const HostValue& v) {
    int64_t off = 0, stride = 1;
    int vr = static_cast<int>(v.shape.size());
    for (int d = vr - 1; d >= 0; --d) {
      int64_t size = v.shape[d];
      int64_t i = size == 1 ? 0 : idx[d + rank - vr];
      off += i * stride;
      stride *= size;
    }
    return off;
  };
  for (size_t i = 0; i < r.v.size(); ++i) {
    r.v[i] = roundToDType(fn(a.v[offset(a)], b.v[offset(b)]), dtype);
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
  return r;
}

bool small(const NodeContext& ctx) {
  if (!ctx.allHost()) return false;
  for (size_t i = 0; i < ctx.numInputs(); ++i)
    if (static_cast<int64_t>(ctx.value(i).host().v.size()) > kMaxHostElements) return false;
  return true;
}

void checkSameDType(const NodeContext& ctx) {
  for (size_t i = 1; i < ctx.numInputs(); ++i)
    opCheck(ctx.value(i).dtype() == ctx.value(0).dtype(), "inputs 0 and ", i, " have dtypes ",
            dtypeName(ctx.value(0).dtype()), " and ", dtypeName(ctx.value(i).dtype()));
}

double floorDivHost(double a, double b) { return b == 0 ? 0 : std::floor(a / b); }

void binary(OpTable& t, const std::string& name, Binary op, HostFn host, bool boolResult = false) {
  t[name] = [op, host, boolResult](NodeContext& ctx) {
    ctx.needInputs(2);
    checkSameDType(ctx);
    if (host && small(ctx)) {
      DType dtype = boolResult ? DType::boolean : ctx.value(0).dtype();
      return one(hostBinary(ctx.value(0).host(), ctx.value(1).host(), dtype, host));
    }
    return one(op(ctx.in(0), ctx.in(1)));
  };
}

// TF.js divides int32 by int32 with floor division (tf.div); Glint's div
// always gives float32, so int32 takes floorDiv here.
Tensor divide(const Tensor& a, const Tensor& b) {
  if (a.dtype() == DType::int32 && b.dtype() == DType::int32) return floorDiv(a, b);
  return div(a, b);
}

void unary(OpTable& t, const std::string& name, Unary op, double (*host)(double) = nullptr) {
  t[name] = [op, host](NodeContext& ctx) {
    ctx.needInputs(1);
    if (host && small(ctx)) {
      HostValue h = ctx.value(0).host();
      for (double& v : h.v) v = roundToDType(host(v), h.dtype);
      return one(std::move(h));
    }
    return one(op(ctx.in(0)));
  };
}

void reduction(OpTable& t, const std::string& name,
               Tensor (*op)(const Tensor&, const std::vector<int64_t>&, bool)) {
  t[name] = [op, name](NodeContext& ctx) {
    ctx.needInputs(2);
    std::vector<int64_t> axes = ctx.ints(1, "axis");
    bool keepDims = ctx.attrBool("keep_dims", ctx.attrBool("keepDims", false));
    const Value& x = ctx.value(0);
    // The common shape-arithmetic case: Prod/Sum of a host vector.
    if (x.isHost() && x.shape().size() == 1 && (name == "Prod" || name == "Sum") &&
        x.dtype() == DType::int32) {
      double acc = name == "Prod" ? 1 : 0;
      for (double v : x.host().v) acc = name == "Prod" ? acc * v : acc + v;
      HostValue h = hostScalar(acc, DType::int32);
      if (keepDims) h.shape = {1};
      return one(std::move(h));
    }
    Tensor in = x.tensor();
    if (in.rank() == 0) return one(in);  // nothing to reduce (TF allows axis 0 / -1 here)
    // An empty axis list reduces nothing in TF (Glint's empty means all).
    if (axes.empty()) return one(in);
    return one(op(in, axes, keepDims));
  };
}

}  // namespace

Tensor prelu(const Tensor& x, const Tensor& alpha) {
  // x where x > 0, alpha * x elsewhere (TF.js prelu).
  return add(relu(x), mul(alpha, minimum(x, zerosLike(x))));
}

void addMathOps(OpTable& t) {
  unary(t, "Relu", relu);
  unary(t, "Relu6", relu6);
  unary(t, "Elu", elu);
  unary(t, "Selu", selu);
  unary(t, "Sigmoid", sigmoid);
  unary(t, "Tanh", tanh);
  unary(t, "Softplus", softplus);
  unary(t, "Rsqrt", rsqrt);
  unary(t, "Sqrt", sqrt, [](double v) { return std::sqrt(v); });
  unary(t, "Square", square, [](double v) { return v * v; });
  unary(t, "Exp", exp);
  unary(t, "Log", log);
  unary(t, "Log1p", log1p);
  unary(t, "Neg", neg, [](double v) { return -v; });
  unary(t, "Abs", abs, [](double v) { return std::fabs(v); });
  unary(t, "Floor", floor, [](double v) { return std::floor(v); });
  unary(t, "Ceil", ceil, [](double v) { return std::ceil(v); });
  unary(t, "Round", round, [](double v) { return std::nearbyint(v); });
  unary(t, "Sign", sign, [](double v) { return static_cast<double>((v > 0) - (v < 0)); });
  unary(t, "Reciprocal", reciprocal);
  unary(t, "Sin", sin);
  unary(t, "Cos", cos);
  unary(t, "Asin", asin);
  unary(t, "Acos", acos);
  unary(t, "Atan", atan);
  unary(t, "Asinh", asinh);
  unary(t, "Acosh", acosh);
  unary(t, "Atanh", atanh);
  unary(t, "Erf", erf);
  unary(t, "LogicalNot", logicalNot, [](double v) { return v != 0 ? 0.0 : 1.0; });

  auto addH = [](double a, double b) { return a + b; };
  binary(t, "Add", add, addH);
  binary(t, "AddV2", add, addH);
  binary(t, "Sub", sub, [](double a, double b) { return a - b; });
  binary(t, "Mul", mul, [](double a, double b) { return a * b; });
  binary(t, "RealDiv", divide, nullptr);
  binary(t, "Div", divide, nullptr);
  binary(t, "FloorDiv", floorDiv, floorDivHost);
  binary(t, "FloorMod", mod,
         [](double a, double b) { return b == 0 ? 0 : a - std::floor(a / b) * b; });
  binary(t, "Maximum", maximum, [](double a, double b) { return std::fmax(a, b); });
  binary(t, "Minimum", minimum, [](double a, double b) { return std::fmin(a, b); });
  binary(t, "SquaredDifference", squaredDifference, nullptr);
  binary(t, "Pow", pow, nullptr);
  binary(t, "Atan2", atan2, nullptr);
  binary(
      t, "Less", less, [](double a, double b) { return double(a < b); }, true);
  binary(
      t, "LessEqual", lessEqual, [](double a, double b) { return double(a <= b); }, true);
  binary(
      t, "Greater", greater, [](double a, double b) { return double(a > b); }, true);
  binary(
      t, "GreaterEqual", greaterEqual, [](double a, double b) { return double(a >= b); }, true);
  binary(
      t, "Equal", equal, [](double a, double b) { return double(a == b); }, true);
  binary(
      t, "NotEqual", notEqual, [](double a, double b) { return double(a != b); }, true);
  binary(
      t, "LogicalAnd", logicalAnd, [](double a, double b) { return double(a != 0 && b != 0); },
      true);
  binary(
      t, "LogicalOr", logicalOr, [](double a, double b) { return double(a != 0 || b != 0); }, true);
  // Host division where both are host: float32 or floor division for int32.
  for (const char* name : {"RealDiv", "Div"}) {
    OpFn device = t[name];
    t[name] = [device](NodeContext& ctx) {
      ctx.needInputs(2);
      if (small(ctx) && ctx.value(0).dtype() == ctx.value(1).dtype()) {
        DType dtype = ctx.value(0).dtype();
        HostFn fn = dtype == DType::int32 ? floorDivHost : [](double a, double b) { return a / b; };
        return one(hostBinary(ctx.value(0).host(), ctx.value(1).host(), dtype, fn));
      }
      return device(ctx);
    };
  }

  t["AddN"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    Tensor acc = ctx.in(0);
    for (size_t i = 1; i < ctx.numInputs(); ++i) acc = add(acc, ctx.in(i));
    return one(acc);
  };
  t["Prelu"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    return one(prelu(ctx.in(0), ctx.in(1)));
  };
  t["LeakyRelu"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    return one(leakyRelu(ctx.in(0), static_cast<float>(ctx.attrFloat("alpha", 0.2))));
  };
  t["Cast"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    DType to = ctx.attrType("DstT", DType::float32);
    if (small(ctx)) {
      HostValue h = ctx.value(0).host();
      for (double& v : h.v) v = roundToDType(v, to);
      h.dtype = to;
      return one(std::move(h));
    }
    Tensor x = ctx.in(0);
    return one(x.dtype() == to ? x : cast(x, to));
  };
  t["ClipByValue"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    return one(clipByValue(ctx.in(0), static_cast<float>(ctx.scalar(1, "clip_value_min")),
                           static_cast<float>(ctx.scalar(2, "clip_value_max"))));
  };
  auto select = [](NodeContext& ctx) {
    ctx.needInputs(3);
    Tensor c = ctx.in(0), a = ctx.in(1), b = ctx.in(2);
    // Select (v1) picks whole rows with a rank-1 condition.
    if (ctx.node().op == "Select" && c.rank() == 1 && a.rank() > 1) {
      Shape s(static_cast<size_t>(a.rank()), 1);
      s[0] = c.shape()[0];
      c = reshape(c, s);
    }
    return one(where(c, a, b));
  };
  t["Select"] = select;
  t["SelectV2"] = select;

  t["Softmax"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    return one(softmax(ctx.in(0), -1));
  };
  t["LogSoftmax"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    return one(logSoftmax(ctx.in(0), -1));
  };

  reduction(t, "Mean", mean);
  reduction(t, "Sum", sum);
  reduction(t, "Max", max);
  reduction(t, "Min", min);
  reduction(t, "Prod", prod);
  reduction(t, "All", all);
  reduction(t, "Any", any);
  auto arg = [](Tensor (*op)(const Tensor&, int64_t)) {
    return [op](NodeContext& ctx) {
      ctx.needInputs(2);
      return one(op(ctx.in(0), ctx.intScalar(1, "dimension")));
    };
  };
  t["ArgMax"] = arg(argMax);
  t["ArgMin"] = arg(argMin);
}

}  // namespace glint::graph
