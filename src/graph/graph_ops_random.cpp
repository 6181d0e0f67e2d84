// Random ops of graph models: RandomUniform, RandomStandardNormal,
// TruncatedNormal, RandomUniformInt and Multinomial. Values come from
// Glint's generators, not TF's (no model can rely on TF's exact streams),
// but the seed attrs keep TF's meaning: seed = seed2 = 0 draws fresh values
// from the engine's generator, any other pair gives the same tensor on every
// run and backend.
#include <cmath>

#include "glint/ops.h"
#include "src/graph/graph_internal.h"

namespace glint::graph {

namespace {

std::optional<uint64_t> seedOf(const NodeContext& ctx) {
  auto seed = static_cast<uint64_t>(ctx.attrInt("seed", 0));
  auto seed2 = static_cast<uint64_t>(ctx.attrInt("seed2", 0));
  if (seed == 0 && seed2 == 0) return std::nullopt;
  return (seed << 32) ^ seed2 ^ (seed >> 32);
}

Shape shapeInput(const NodeContext& ctx) {
  std::vector<int64_t> dims = readInts(ctx, 0, "shape");
  opCheck(ctx.value(0).shape().size() <= 1, "shape must be a vector, got shape ",
          shapeToString(ctx.value(0).shape()));
  for (int64_t d : dims) opCheck(d >= 0, "shape ", shapeToString(dims), " has a negative size");
  return Shape(dims.begin(), dims.end());
}

void checkFloat(const NodeContext& ctx) {
  DType d = ctx.attrType("dtype", DType::float32);
  opCheck(d == DType::float32, "dtype must be a float type, got ", dtypeName(d));
}

// A bound of RandomUniformInt: TF's graphs give it as an input, TF.js reads
// an attr of the same name; either is taken.
double bound(const NodeContext& ctx, size_t i, const std::string& name) {
  if (ctx.numInputs() > i) {
    std::vector<int64_t> v = readInts(ctx, i, name);
    opCheck(v.size() == 1, name, " must be a scalar, got shape ",
            shapeToString(ctx.value(i).shape()));
    return static_cast<double>(v[0]);
  }
  opCheck(ctx.has(name), name, " is neither an input nor an attr");
  return static_cast<double>(ctx.attrInt(name, 0));
}

// Running sums along the last axis of [rows, n] in log2(n) shifted adds
// (Glint has no cumsum op; this runs on every backend).
Tensor cumulativeSum(Tensor x) {
  int64_t rows = x.shape()[0], n = x.shape()[1];
  for (int64_t shift = 1; shift < n; shift *= 2)
    x = add(x, pad(slice(x, {0, 0}, {rows, n - shift}), {{0, 0}, {shift, 0}}));
  return x;
}

}  // namespace

void addRandomOps(OpTable& t) {
  t["RandomUniform"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    checkFloat(ctx);
    // TF's op draws from [0, 1); TF.js also reads minval / maxval attrs.
    auto lo = static_cast<float>(ctx.attrFloat("minval", 0));
    auto hi = static_cast<float>(ctx.attrFloat("maxval", 1));
    return one(randomUniform(shapeInput(ctx), lo, hi, seedOf(ctx)));
  };
  t["RandomStandardNormal"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    checkFloat(ctx);
    return one(randomNormal(shapeInput(ctx), 0, 1, seedOf(ctx)));
  };
  t["TruncatedNormal"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    checkFloat(ctx);
    // TF's op is standard; TF.js also reads means / stddev attrs.
    auto mean = static_cast<float>(ctx.attrFloat("means", 0));
    auto stddev = static_cast<float>(ctx.attrFloat("stddev", 1));
    return one(truncatedNormal(shapeInput(ctx), mean, stddev, seedOf(ctx)));
  };
  t["RandomUniformInt"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    Shape shape = shapeInput(ctx);
    double lo = bound(ctx, 1, "minval"), hi = bound(ctx, 2, "maxval");
    opCheck(lo < hi, "minval ", lo, " must be below maxval ", hi);
    // floor of a uniform draw in [0, hi - lo); the minimum guards the float
    // draw rounding up to the range's end.
    auto range = static_cast<float>(hi - lo);
    Tensor k = cast(floor(randomUniform(shape, 0, range, seedOf(ctx))), DType::int32);
    k = minimum(k, scalar(range - 1, DType::int32));
    return one(add(k, scalar(static_cast<float>(lo), DType::int32)));
  };
  t["Multinomial"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    Tensor logits = ctx.in(0);
    int64_t samples = readInt(ctx, 1, "num_samples");
    opCheck(logits.dtype() == DType::float32, "logits must be float32, got ",
            dtypeName(logits.dtype()));
    opCheck(logits.rank() == 2 || logits.rank() == 1,
            "logits must be [batch, classes] (or [classes]), got shape ",
            shapeToString(logits.shape()));
    opCheck(samples >= 0, "num_samples must be non-negative, got ", samples);
    bool vector = logits.rank() == 1;
    if (vector) logits = reshape(logits, {1, logits.shape()[0]});
    int64_t rows = logits.shape()[0], classes = logits.shape()[1];
    opCheck(classes > 0, "logits have no classes: shape ", shapeToString(ctx.value(0).shape()));
    Shape out = vector ? Shape{samples} : Shape{rows, samples};
    if (rows * samples == 0) return one(zeros(out, DType::int32));
    // Inverse CDF sampling: a class is drawn when u falls in its slice of
    // the cumulative probabilities; the count of boundaries at or below u
    // is its index (the minimum guards u >= a last sum rounded below 1).
    Tensor cdf = reshape(cumulativeSum(softmax(logits, -1)), {rows, 1, classes});
    Tensor u = randomUniform({rows, samples, 1}, 0, 1, seedOf(ctx));
    Tensor k = sum(cast(greaterEqual(u, cdf), DType::int32), {2});
    k = minimum(k, scalar(static_cast<float>(classes - 1), DType::int32));
    return one(reshape(k, out));
  };
}

}  // namespace glint::graph
