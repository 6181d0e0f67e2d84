// More element-wise math of graph models (hyperbolic and tangent functions,
// expm1, the NaN and infinity tests, safe division), running sums and
// products, norms, local response normalisation, one-hot, linspace, fake
// quantisation and Print. Composed from Glint ops, so every backend runs them.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>

#include "glint/ops.h"
#include "src/graph/graph_internal.h"

namespace glint::graph {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// TF defines these for floats only; int32 inputs compute in float32.
Tensor asFloat(const Tensor& x) {
  return x.dtype() == DType::float32 ? x : cast(x, DType::float32);
}

// exp(x) - 1 without the cancellation near 0: with u = exp(x) rounded,
// (u - 1) * x / log(u) has a relative error of a few ulps (Kahan).
Tensor expm1(const Tensor& x) {
  Tensor u = exp(x);
  Tensor um1 = sub(u, onesLike(u));
  Tensor kahan = div(mul(um1, x), log(u));
  Tensor r = where(equal(u, onesLike(u)), x, kahan);
  // Far from 0 the plain form is exact enough and avoids inf / inf and 0 / -inf.
  Tensor far = greater(abs(x), fill({}, 0.5f));
  return where(far, um1, r);
}

Tensor isNan(const Tensor& x) { return notEqual(x, x); }

// Hillis-Steele scan along `axis`: log2(n) steps, each combining x with
// itself shifted by a power of two (the identity shifted in), so every
// backend runs it with slice, concat and one binary op.
Tensor scan(Tensor x, int64_t axis, bool exclusive, bool reverseOrder, bool product) {
  int64_t n = x.shape()[static_cast<size_t>(axis)];
  if (x.size() == 0 || n == 0) return x;
  if (reverseOrder) x = reverse(x, {axis});
  auto shifted = [&](const Tensor& v, int64_t k) {
    Shape head = v.shape();
    head[static_cast<size_t>(axis)] = k;
    std::vector<int64_t> begin(static_cast<size_t>(v.rank()), 0);
    std::vector<int64_t> size(v.shape().begin(), v.shape().end());
    size[static_cast<size_t>(axis)] = n - k;
    return concat({fill(head, product ? 1.0f : 0.0f, v.dtype()), slice(v, begin, size)}, axis);
  };
  if (exclusive) x = shifted(x, 1);
  for (int64_t k = 1; k < n; k *= 2) x = product ? mul(x, shifted(x, k)) : add(x, shifted(x, k));
  return reverseOrder ? reverse(x, {axis}) : x;
}

// TF's FakeQuantWithMinMax*: the range nudged so that 0 is a grid point,
// then x clamped to it and rounded to one of 2^bits (- 1 if narrow) steps.
Tensor fakeQuant(const Tensor& x, double min, double max, int64_t bits, bool narrow) {
  opCheck(min <= max, "min ", min, " must not exceed max ", max);
  opCheck(bits >= 2 && bits <= 16, "num_bits must be in [2, 16], got ", bits);
  double qmin = narrow ? 1 : 0, qmax = std::pow(2.0, static_cast<double>(bits)) - 1;
  double scale = (max - min) / (qmax - qmin);
  if (scale == 0) return fill(x.shape(), static_cast<float>(min));
  double zero = qmin - min / scale;
  double nudgedZero = zero < qmin ? qmin : zero > qmax ? qmax : std::round(zero);
  auto lo = static_cast<float>((qmin - nudgedZero) * scale);
  auto hi = static_cast<float>((qmax - nudgedZero) * scale);
  Tensor clamped = clipByValue(x, lo, hi);
  auto step = static_cast<float>(scale);
  return floor((clamped - lo) / step + 0.5f) * step + lo;
}

// x / (bias + alpha * sum of x^2 over the 2r + 1 nearest channels)^beta.
Tensor localResponseNorm(const Tensor& x, int64_t r, float bias, float alpha, float beta) {
  opCheck(x.rank() == 4, "input must have rank 4 (NHWC), got shape ", shapeToString(x.shape()));
  opCheck(r >= 0, "depth_radius must not be negative, got ", r);
  int64_t c = x.shape()[3];
  r = std::min(r, c);  // a window wider than the channels adds only zeros
  Tensor sq = pad(square(x), {{0, 0}, {0, 0}, {0, 0}, {r, r}});
  Tensor acc;
  for (int64_t k = 0; k <= 2 * r; ++k) {
    Tensor part = slice(sq, {0, 0, 0, k}, {x.shape()[0], x.shape()[1], x.shape()[2], c});
    acc = acc.defined() ? add(acc, part) : part;
  }
  return x / pow(acc * alpha + bias, fill({}, beta));
}

std::vector<Value> unaryFloat(NodeContext& ctx, Tensor (*fn)(const Tensor&)) {
  ctx.needInputs(1);
  return one(fn(asFloat(ctx.in(0))));
}

}  // namespace

void addNumericOps(OpTable& t) {
  t["Cosh"] = [](NodeContext& ctx) {
    return unaryFloat(ctx, [](const Tensor& x) { return (exp(x) + exp(-x)) * 0.5f; });
  };
  t["Sinh"] = [](NodeContext& ctx) {
    return unaryFloat(ctx, [](const Tensor& x) { return (exp(x) - exp(-x)) * 0.5f; });
  };
  t["Tan"] = [](NodeContext& ctx) {
    return unaryFloat(ctx, [](const Tensor& x) { return div(sin(x), cos(x)); });
  };
  t["Expm1"] = [](NodeContext& ctx) { return unaryFloat(ctx, expm1); };
  t["IsNan"] = [](NodeContext& ctx) { return unaryFloat(ctx, isNan); };
  t["IsInf"] = [](NodeContext& ctx) {
    return unaryFloat(ctx, [](const Tensor& x) { return equal(abs(x), fill({}, kInf)); });
  };
  t["IsFinite"] = [](NodeContext& ctx) {  // NaN compares false, so it is not finite either
    return unaryFloat(ctx, [](const Tensor& x) { return less(abs(x), fill({}, kInf)); });
  };
  t["DivNoNan"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    Tensor a = asFloat(ctx.in(0)), b = asFloat(ctx.in(1));
    Tensor zero = equal(b, zerosLike(b));
    Tensor q = div(a, where(zero, onesLike(b), b));
    return one(where(zero, zerosLike(q), q));
  };
  t["Mod"] = [](NodeContext& ctx) {  // TF.js runs Mod as its floor-mod tf.mod
    ctx.needInputs(2);
    return one(mod(ctx.in(0), ctx.in(1)));
  };
  t["BitwiseAnd"] = [](NodeContext& ctx) {
    // No backend has a bitwise kernel: the ints are read back and combined
    // on the host, as TF.js's cpu backend does.
    ctx.needInputs(2);
    Tensor a = ctx.in(0), b = ctx.in(1);
    opCheck(a.dtype() == DType::int32 && b.dtype() == DType::int32, "inputs must be int32, got ",
            dtypeName(a.dtype()), " and ", dtypeName(b.dtype()));
    opCheck(a.shape() == b.shape(), "inputs must have one shape, got ", shapeToString(a.shape()),
            " and ", shapeToString(b.shape()));
    std::vector<int64_t> x = readInts(ctx, 0, "x"), y = readInts(ctx, 1, "y");
    std::vector<int32_t> out(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      out[i] = static_cast<int32_t>(x[i]) & static_cast<int32_t>(y[i]);
    return one(tensorInt(out, a.shape()));
  };
  t["EuclideanNorm"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    Tensor x = asFloat(ctx.in(0));
    std::vector<int64_t> axes = ctx.ints(1, "axis");
    bool keep = ctx.attrBool("keep_dims", false);
    if (axes.empty() || x.rank() == 0) return one(x.rank() == 0 ? abs(x) : x);
    return one(sqrt(sum(square(x), axes, keep)));
  };
  for (const char* name : {"Cumsum", "Cumprod"}) {
    bool product = std::string(name) == "Cumprod";
    t[name] = [product](NodeContext& ctx) {
      ctx.needInputs(2);
      Tensor x = ctx.in(0);
      int64_t axis = ctx.intScalar(1, "axis");
      opCheck(x.rank() > 0 && axis >= -x.rank() && axis < x.rank(), "axis ", axis,
              " is out of range for shape ", shapeToString(x.shape()));
      opCheck(x.dtype() != DType::boolean, "input must be numeric, got bool");
      if (axis < 0) axis += x.rank();
      return one(
          scan(x, axis, ctx.attrBool("exclusive", false), ctx.attrBool("reverse", false), product));
    };
  }
  t["LinSpace"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    double start = ctx.scalar(0, "start"), stop = ctx.scalar(1, "stop");
    int64_t num = ctx.intScalar(2, "num");
    opCheck(num > 0, "num must be positive, got ", num);
    std::vector<float> v(static_cast<size_t>(num));
    double step = num > 1 ? (stop - start) / static_cast<double>(num - 1) : 0;
    for (int64_t i = 0; i < num; ++i)
      v[static_cast<size_t>(i)] = static_cast<float>(start + step * static_cast<double>(i));
    return one(tensor(v, {num}));
  };
  for (const char* name : {"FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxArgs"}) {
    t[name] = [](NodeContext& ctx) {
      ctx.needInputs(1);
      // ...Vars takes min and max as inputs, ...Args as attributes.
      bool inputs = ctx.numInputs() >= 3;
      double lo = inputs ? ctx.scalar(1, "min") : ctx.attrFloat("min", -6);
      double hi = inputs ? ctx.scalar(2, "max") : ctx.attrFloat("max", 6);
      return one(fakeQuant(asFloat(ctx.in(0)), lo, hi, ctx.attrInt("num_bits", 8),
                           ctx.attrBool("narrow_range", false)));
    };
  }
  t["LRN"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    return one(localResponseNorm(asFloat(ctx.in(0)), ctx.attrInt("depth_radius", 5),
                                 static_cast<float>(ctx.attrFloat("bias", 1)),
                                 static_cast<float>(ctx.attrFloat("alpha", 1)),
                                 static_cast<float>(ctx.attrFloat("beta", 0.5))));
  };
  t["OneHot"] = [](NodeContext& ctx) {
    ctx.needInputs(4);
    Tensor indices = ctx.in(0);
    opCheck(indices.dtype() == DType::int32, "indices must be int32, got ",
            dtypeName(indices.dtype()));
    int64_t depth = ctx.intScalar(1, "depth");
    opCheck(depth >= 0, "depth must not be negative, got ", depth);
    Tensor y = oneHot(indices, depth, static_cast<float>(ctx.scalar(2, "on_value")),
                      static_cast<float>(ctx.scalar(3, "off_value")));
    int64_t axis = ctx.attrInt("axis", -1), rank = y.rank();
    opCheck(axis >= -1 && axis < rank, "axis ", axis, " is out of range for output rank ", rank);
    if (axis >= 0 && axis != rank - 1) {
      std::vector<int64_t> perm;
      for (int64_t i = 0; i < rank - 1; ++i) {
        if (i == axis) perm.push_back(rank - 1);
        perm.push_back(i);
      }
      y = transpose(y, perm);
    }
    DType want = ctx.attrType("T", DType::float32);
    return one(want == y.dtype() ? y : cast(y, want));
  };
  t["Print"] = [](NodeContext& ctx) {
    // What tf.print asks for, on stderr: the message, then the first
    // `summarize` values of each data input (TF.js logs the same).
    ctx.needInputs(1);
    auto summarize = static_cast<size_t>(std::max<int64_t>(0, ctx.attrInt("summarize", 3)));
    std::cerr << ctx.attrString("message", "") << "\n";
    for (size_t i = 1; i < ctx.numInputs(); ++i) {
      std::vector<float> v = ctx.in(i).toFloats();
      std::cerr << "[";
      for (size_t k = 0; k < v.size() && k < summarize; ++k) std::cerr << (k ? ", " : "") << v[k];
      std::cerr << (v.size() > summarize ? ", ...]\n" : "]\n");
    }
    return std::vector<Value>{ctx.value(0)};
  };
}

}  // namespace glint::graph
