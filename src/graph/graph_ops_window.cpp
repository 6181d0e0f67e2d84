// Windowed ops of graph models beyond the 2-D convolutions and pools:
// Conv1D, the 3-D convolution and pools, MaxPoolWithArgmax and Dilation2D.
// The last two walk the window one tap at a time (a strided slice of the
// padded input per tap), so they need no kernel of their own.
#include <limits>

#include "glint/ops.h"
#include "src/graph/graph_internal.h"

namespace glint::graph {

namespace {

Padding padding(const NodeContext& ctx) {
  std::string p = ctx.attrWord("padding", "VALID");
  opCheck(p == "SAME" || p == "VALID", "padding '", quoteForError(p),
          "' is not supported (SAME or VALID)");
  return p == "SAME" ? Padding::same : Padding::valid;
}

// The three spatial entries of a 5-long NDHWC (or NCDHW) attribute list.
Triple dhw(const NodeContext& ctx, const std::string& name, bool ncdhw) {
  std::vector<int64_t> v = ctx.attrInts(name);
  if (v.empty()) return {1, 1, 1};
  opCheck(v.size() == 5, "attribute '", name, "' must hold 5 values, got ", v.size());
  return ncdhw ? Triple{v[2], v[3], v[4]} : Triple{v[1], v[2], v[3]};
}

bool ncdhw(const NodeContext& ctx) {
  std::string f = ctx.attrWord("data_format", "NDHWC");
  opCheck(f == "NDHWC" || f == "NCDHW", "data_format '", quoteForError(f),
          "' is not supported (NDHWC or NCDHW)");
  return f == "NCDHW";
}

// One output dimension of a window: its size and the padding before it.
struct Extent {
  int64_t out = 0, before = 0, total = 0;
};

Extent extent(int64_t in, int64_t k, int64_t stride, int64_t rate, Padding p) {
  opCheck(k > 0 && stride > 0 && rate > 0, "window ", k, ", stride ", stride, " and rate ", rate,
          " must be positive");
  int64_t span = (k - 1) * rate + 1;
  if (p == Padding::valid) {
    opCheck(in >= span, "the window spans ", span, " but the input has ", in);
    return {(in - span) / stride + 1, 0, 0};
  }
  int64_t out = (in + stride - 1) / stride;
  int64_t total = std::max<int64_t>((out - 1) * stride + span - in, 0);
  return {out, total / 2, total};
}

// Each tap (dy, dx) of a [kh, kw] window over x [n, h, w, c]: the input
// values it reads for every output position, and where they sit in x.
struct Windows {
  Extent rows, cols;
  Tensor padded;
  Pair strides, rates;
  Tensor tap(int64_t dy, int64_t dx) const {
    const Shape& s = padded.shape();
    int64_t y0 = dy * rates[0], x0 = dx * rates[1];
    return stridedSlice(
        padded, {0, y0, x0, 0},
        {s[0], y0 + (rows.out - 1) * strides[0] + 1, x0 + (cols.out - 1) * strides[1] + 1, s[3]},
        {1, strides[0], strides[1], 1});
  }
};

Windows windows(const Tensor& x, Pair k, Pair strides, Pair rates, Padding p, float padValue) {
  opCheck(x.rank() == 4, "input must have rank 4 (NHWC), got shape ", shapeToString(x.shape()));
  Extent rows = extent(x.shape()[1], k[0], strides[0], rates[0], p);
  Extent cols = extent(x.shape()[2], k[1], strides[1], rates[1], p);
  Tensor padded = x;
  if (rows.total || cols.total)
    padded = pad(x,
                 {{0, 0},
                  {rows.before, rows.total - rows.before},
                  {cols.before, cols.total - cols.before},
                  {0, 0}},
                 padValue);
  return {rows, cols, padded, strides, rates};
}

Pair attrPair(const NodeContext& ctx, const std::string& name) {
  std::vector<int64_t> v = ctx.attrInts(name);
  if (v.empty()) return {1, 1};
  opCheck(v.size() == 4, "attribute '", name, "' must hold 4 values, got ", v.size());
  return {v[1], v[2]};
}

constexpr float kLowest = -std::numeric_limits<float>::infinity();

std::vector<Value> maxPoolWithArgmax(NodeContext& ctx) {
  ctx.needInputs(1);
  Tensor x = ctx.in(0);
  Pair k = attrPair(ctx, "ksize"), strides = attrPair(ctx, "strides");
  bool withBatch = ctx.attrBool("include_batch_in_index", false);
  Windows w = windows(x, k, strides, {1, 1}, padding(ctx), kLowest);
  int64_t n = x.shape()[0], h = x.shape()[1], wd = x.shape()[2], c = x.shape()[3];
  // TF's flat index: ((b * h + y) * w + x) * c + ch (b only with include_batch_in_index).
  std::vector<int32_t> batchTerm(static_cast<size_t>(n)), channelTerm(static_cast<size_t>(c));
  for (int64_t b = 0; b < n; ++b)
    batchTerm[static_cast<size_t>(b)] = static_cast<int32_t>(withBatch ? b * h * wd * c : 0);
  for (int64_t ch = 0; ch < c; ++ch)
    channelTerm[static_cast<size_t>(ch)] = static_cast<int32_t>(ch);
  Tensor fixed = add(tensorInt(batchTerm, {n, 1, 1, 1}), tensorInt(channelTerm, {1, 1, 1, c}));
  Tensor best, arg;
  for (int64_t dy = 0; dy < k[0]; ++dy) {
    for (int64_t dx = 0; dx < k[1]; ++dx) {
      std::vector<int32_t> at(static_cast<size_t>(w.rows.out * w.cols.out));
      for (int64_t oy = 0; oy < w.rows.out; ++oy)
        for (int64_t ox = 0; ox < w.cols.out; ++ox) {
          int64_t y = oy * strides[0] + dy - w.rows.before,
                  xx = ox * strides[1] + dx - w.cols.before;
          at[static_cast<size_t>(oy * w.cols.out + ox)] = static_cast<int32_t>((y * wd + xx) * c);
        }
      Tensor index = add(tensorInt(at, {1, w.rows.out, w.cols.out, 1}), fixed);
      Tensor v = w.tap(dy, dx);
      if (!best.defined()) {
        best = v;
        arg = index;  // [n, oh, ow, c] already: fixed broadcasts over the positions
        continue;
      }
      Tensor better = greater(v, best);  // ties keep the first tap, as TF
      best = where(better, v, best);
      arg = where(better, index, arg);
    }
  }
  return {Value(best), Value(arg)};
}

std::vector<Value> dilation2d(NodeContext& ctx) {
  ctx.needInputs(2);
  Tensor x = ctx.in(0), filter = ctx.in(1);
  opCheck(filter.rank() == 3 && x.rank() == 4 && filter.shape()[2] == x.shape()[3],
          "filter must be [height, width, channels] with the input's ",
          x.rank() == 4 ? x.shape()[3] : 0, " channels, got filter ", shapeToString(filter.shape()),
          " and input ", shapeToString(x.shape()));
  Pair k{filter.shape()[0], filter.shape()[1]};
  Windows w =
      windows(x, k, attrPair(ctx, "strides"), attrPair(ctx, "rates"), padding(ctx), kLowest);
  Tensor best;
  for (int64_t dy = 0; dy < k[0]; ++dy)
    for (int64_t dx = 0; dx < k[1]; ++dx) {
      Tensor tapFilter = slice(filter, {dy, dx, 0}, {1, 1, filter.shape()[2]});
      Tensor v = add(w.tap(dy, dx), reshape(tapFilter, {1, 1, 1, filter.shape()[2]}));
      best = best.defined() ? maximum(best, v) : v;
    }
  return one(best);
}

}  // namespace

void addWindowOps(OpTable& t) {
  t["Conv1D"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    Tensor x = ctx.in(0), filter = ctx.in(1);
    std::string format = ctx.attrWord("data_format", "NWC");
    opCheck(format == "NWC" || format == "NCW", "data_format '", quoteForError(format),
            "' is not supported (NWC or NCW)");
    opCheck(x.rank() == 3 && filter.rank() == 3, "input and filter must have rank 3, got ",
            shapeToString(x.shape()), " and ", shapeToString(filter.shape()));
    if (format == "NCW") x = transpose(x, {0, 2, 1});
    Tensor y = conv2d(expandDims(x, 1), expandDims(filter, 0), {1, ctx.attrInt("stride", 1)},
                      padding(ctx), {1, ctx.attrInt("dilation", 1)});
    y = squeeze(y, {1});
    return one(format == "NCW" ? transpose(y, {0, 2, 1}) : y);
  };
  t["Conv3D"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    bool cf = ncdhw(ctx);
    Tensor x = cf ? transpose(ctx.in(0), {0, 2, 3, 4, 1}) : ctx.in(0);
    Tensor y =
        conv3d(x, ctx.in(1), dhw(ctx, "strides", cf), padding(ctx), dhw(ctx, "dilations", cf));
    return one(cf ? transpose(y, {0, 4, 1, 2, 3}) : y);
  };
  for (const char* name : {"MaxPool3D", "AvgPool3D"}) {
    bool isMax = std::string(name) == "MaxPool3D";
    t[name] = [isMax](NodeContext& ctx) {
      ctx.needInputs(1);
      bool cf = ncdhw(ctx);
      Tensor x = cf ? transpose(ctx.in(0), {0, 2, 3, 4, 1}) : ctx.in(0);
      Triple k = dhw(ctx, "ksize", cf), s = dhw(ctx, "strides", cf);
      Tensor y = isMax ? maxPool3d(x, k, s, padding(ctx)) : avgPool3d(x, k, s, padding(ctx));
      return one(cf ? transpose(y, {0, 4, 1, 2, 3}) : y);
    };
  }
  t["MaxPoolWithArgmax"] = maxPoolWithArgmax;
  t["Dilation2D"] = dilation2d;
}

}  // namespace glint::graph
