// Shape, slicing, joining and creation ops of graph models. Their shape
// arguments come from host values; when the data itself is a small host
// value (a Shape result, a constant) the op folds on the host, so shape
// arithmetic chains never touch the device.
#include <algorithm>
#include <numeric>

#include "glint/ops.h"
#include "src/graph/graph_internal.h"

namespace glint::graph {

namespace {

std::vector<Value> passThrough(NodeContext& ctx) {
  std::vector<Value> out;
  for (size_t i = 0; i < ctx.numInputs(); ++i) out.push_back(ctx.value(i));
  return out;
}

HostValue hostOfShape(const Shape& s) {
  HostValue h{{static_cast<int64_t>(s.size())}, DType::int32, {}};
  for (int64_t d : s) h.v.push_back(static_cast<double>(d));
  return h;
}

int64_t normAxis(int64_t axis, int64_t rank, const char* what) {
  opCheck(axis >= -rank && axis < rank, what, " ", axis, " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

// Reshape's target with one -1 resolved against `size` elements.
Shape resolveShape(std::vector<int64_t> dims, int64_t size) {
  int64_t known = 1, unknown = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      opCheck(unknown < 0, "shape ", shapeToString(dims), " has more than one -1");
      unknown = static_cast<int64_t>(i);
    } else {
      known *= dims[i];
    }
  }
  if (unknown >= 0) {
    opCheck(known > 0 && size % known == 0, "cannot reshape ", size, " elements to ",
            shapeToString(dims));
    dims[unknown] = size / known;
  }
  opCheck(shapeSize(dims) == size, "cannot reshape ", size, " elements to ", shapeToString(dims));
  return Shape(dims.begin(), dims.end());
}

bool smallHost(const Value& v) {
  return v.isHost() && static_cast<int64_t>(v.host().v.size()) <= kMaxHostElements;
}

// StridedSlice on a rank-1 host vector (TF semantics for one axis).
std::optional<HostValue> hostStridedSlice(const HostValue& x, int64_t b, int64_t e, int64_t s,
                                          int beginMask, int endMask, int shrink) {
  int64_t n = static_cast<int64_t>(x.v.size());
  opCheck(s != 0, "strides must be non-zero");
  HostValue out{{}, x.dtype, {}};
  if (shrink & 1) {
    int64_t i = b < 0 ? b + n : b;
    opCheck(i >= 0 && i < n, "index ", b, " is out of range for a dimension of size ", n);
    out.v.push_back(x.v[static_cast<size_t>(i)]);
    return out;
  }
  auto clampIndex = [&](int64_t i, bool isBegin, bool masked) {
    if (masked) return s > 0 ? (isBegin ? int64_t{0} : n) : (isBegin ? n - 1 : int64_t{-1});
    if (i < 0) i += n;
    return s > 0 ? std::clamp<int64_t>(i, 0, n) : std::clamp<int64_t>(i, -1, n - 1);
  };
  int64_t from = clampIndex(b, true, beginMask & 1), to = clampIndex(e, false, endMask & 1);
  for (int64_t i = from; s > 0 ? i < to : i > to; i += s)
    out.v.push_back(x.v[static_cast<size_t>(i)]);
  out.shape = {static_cast<int64_t>(out.v.size())};
  return out;
}

std::vector<Value> concatOp(NodeContext& ctx, size_t first, size_t count, size_t axisInput) {
  int64_t axis = ctx.intScalar(axisInput, "axis");
  bool host = true;
  for (size_t i = first; i < first + count; ++i)
    host = host && smallHost(ctx.value(i)) && ctx.value(i).shape().size() == 1;
  if (host && (axis == 0 || axis == -1)) {
    HostValue out{{0}, ctx.value(first).dtype(), {}};
    for (size_t i = first; i < first + count; ++i) {
      const HostValue& h = ctx.value(i).host();
      opCheck(h.dtype == out.dtype, "inputs have dtypes ", dtypeName(out.dtype), " and ",
              dtypeName(h.dtype));
      out.v.insert(out.v.end(), h.v.begin(), h.v.end());
    }
    out.shape = {static_cast<int64_t>(out.v.size())};
    return {fromHost(std::move(out))};
  }
  std::vector<Tensor> xs;
  for (size_t i = first; i < first + count; ++i) xs.push_back(ctx.in(i));
  return one(concat(xs, axis));
}

}  // namespace

void addShapeOps(OpTable& t) {
  for (const char* name : {"Identity", "IdentityN", "StopGradient", "Snapshot", "NoOp"})
    t[name] = passThrough;

  t["Shape"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    return one(hostOfShape(ctx.value(0).shape()));
  };
  t["ShapeN"] = [](NodeContext& ctx) {
    std::vector<Value> out;
    for (size_t i = 0; i < ctx.numInputs(); ++i)
      out.emplace_back(hostOfShape(ctx.value(i).shape()));
    return out;
  };
  t["Size"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    return one(hostScalar(static_cast<double>(shapeSize(ctx.value(0).shape())), DType::int32));
  };
  t["Rank"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    return one(hostScalar(static_cast<double>(ctx.value(0).shape().size()), DType::int32));
  };

  t["Reshape"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    std::vector<int64_t> dims = ctx.ints(1, "shape");
    const Value& x = ctx.value(0);
    Shape shape = resolveShape(dims, shapeSize(x.shape()));
    if (x.isHost()) {
      HostValue h = x.host();
      h.shape = shape;
      return one(std::move(h));
    }
    return one(reshape(x.tensor(), shape));
  };
  t["Squeeze"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    std::vector<int64_t> axes = ctx.attrInts("squeeze_dims");
    if (axes.empty()) axes = ctx.attrInts("axis");
    const Value& x = ctx.value(0);
    if (x.isHost()) {
      Shape s = x.shape(), out;
      int64_t r = static_cast<int64_t>(s.size());
      for (int64_t& a : axes) a = normAxis(a, r, "squeeze axis");
      for (int64_t d = 0; d < r; ++d) {
        bool drop = axes.empty() ? s[d] == 1 : std::count(axes.begin(), axes.end(), d) > 0;
        opCheck(!drop || s[d] == 1, "cannot squeeze axis ", d, " of size ", s[d]);
        if (!drop) out.push_back(s[d]);
      }
      HostValue h = x.host();
      h.shape = out;
      return one(std::move(h));
    }
    return one(squeeze(x.tensor(), axes));
  };
  t["ExpandDims"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    int64_t axis = ctx.intScalar(1, "axis");
    const Value& x = ctx.value(0);
    if (x.isHost()) {
      Shape s = x.shape();
      int64_t a = normAxis(axis, static_cast<int64_t>(s.size()) + 1, "axis");
      s.insert(s.begin() + a, 1);
      HostValue h = x.host();
      h.shape = s;
      return one(std::move(h));
    }
    return one(expandDims(x.tensor(), axis));
  };
  t["ConcatV2"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    return concatOp(ctx, 0, ctx.numInputs() - 1, ctx.numInputs() - 1);
  };
  t["Concat"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    return concatOp(ctx, 1, ctx.numInputs() - 1, 0);
  };
  t["Pack"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    int64_t axis = ctx.attrInt("axis", 0);
    bool scalars = true;
    for (size_t i = 0; i < ctx.numInputs(); ++i)
      scalars = scalars && ctx.value(i).isHost() && ctx.value(i).shape().empty();
    if (scalars && (axis == 0 || axis == -1)) {
      HostValue out{{static_cast<int64_t>(ctx.numInputs())}, ctx.value(0).dtype(), {}};
      for (size_t i = 0; i < ctx.numInputs(); ++i) {
        opCheck(ctx.value(i).dtype() == out.dtype, "inputs have dtypes ", dtypeName(out.dtype),
                " and ", dtypeName(ctx.value(i).dtype()));
        out.v.push_back(ctx.value(i).host().v[0]);
      }
      return std::vector<Value>{fromHost(std::move(out))};
    }
    std::vector<Tensor> xs;
    for (size_t i = 0; i < ctx.numInputs(); ++i) xs.push_back(ctx.in(i));
    return one(stack(xs, axis));
  };
  t["Unpack"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    std::vector<Value> out;
    for (Tensor& x : unstack(ctx.in(0), ctx.attrInt("axis", 0))) out.emplace_back(x);
    return out;
  };
  t["Transpose"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    return one(transpose(ctx.in(0), ctx.ints(1, "perm")));
  };
  auto padOp = [](NodeContext& ctx) {
    ctx.needInputs(2);
    std::vector<int64_t> p = ctx.ints(1, "paddings");
    opCheck(p.size() % 2 == 0, "paddings must have shape [rank, 2], got ",
            shapeToString(ctx.value(1).shape()));
    std::vector<std::pair<int64_t, int64_t>> pairs;
    for (size_t i = 0; i < p.size(); i += 2) pairs.emplace_back(p[i], p[i + 1]);
    float value = ctx.numInputs() > 2 ? static_cast<float>(ctx.scalar(2, "constant_values")) : 0.0f;
    return one(pad(ctx.in(0), pairs, value));
  };
  t["Pad"] = padOp;
  t["PadV2"] = padOp;

  t["StridedSlice"] = [](NodeContext& ctx) {
    ctx.needInputs(4);
    std::vector<int64_t> begin = ctx.ints(1, "begin"), end = ctx.ints(2, "end"),
                         strides = ctx.ints(3, "strides");
    int beginMask = static_cast<int>(ctx.attrInt("begin_mask", 0));
    int endMask = static_cast<int>(ctx.attrInt("end_mask", 0));
    int ellipsis = static_cast<int>(ctx.attrInt("ellipsis_mask", 0));
    int newAxis = static_cast<int>(ctx.attrInt("new_axis_mask", 0));
    int shrink = static_cast<int>(ctx.attrInt("shrink_axis_mask", 0));
    const Value& x = ctx.value(0);
    if (smallHost(x) && x.shape().size() == 1 && begin.size() == 1 && end.size() == 1 &&
        strides.size() == 1 && ellipsis == 0 && newAxis == 0)
      return one(
          *hostStridedSlice(x.host(), begin[0], end[0], strides[0], beginMask, endMask, shrink));
    return one(stridedSlice(x.tensor(), begin, end, strides, beginMask, endMask, ellipsis, newAxis,
                            shrink));
  };
  t["Slice"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    std::vector<int64_t> begin = ctx.ints(1, "begin"), size = ctx.ints(2, "size");
    const Value& x = ctx.value(0);
    if (smallHost(x) && x.shape().size() == 1 && begin.size() == 1 && size.size() == 1) {
      int64_t n = x.shape()[0], b = begin[0], s = size[0] < 0 ? n - b : size[0];
      opCheck(b >= 0 && s >= 0 && b + s <= n, "slice begin ", b, " size ", size[0], " exceeds ", n,
              " elements");
      HostValue h{
          {s}, x.dtype(), std::vector<double>(x.host().v.begin() + b, x.host().v.begin() + b + s)};
      return one(std::move(h));
    }
    return one(slice(x.tensor(), begin, size));
  };
  t["Split"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    std::vector<Value> out;
    for (Tensor& x : split(ctx.in(1), ctx.attrInt("num_split", 1), ctx.intScalar(0, "axis")))
      out.emplace_back(x);
    return out;
  };
  t["SplitV"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    std::vector<Value> out;
    for (Tensor& x : split(ctx.in(0), ctx.ints(1, "size_splits"), ctx.intScalar(2, "axis")))
      out.emplace_back(x);
    return out;
  };

  t["Fill"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    std::vector<int64_t> dims = ctx.ints(0, "dims");
    const HostValue& v = ctx.host(1, "value");
    opCheck(v.v.size() == 1, "value must be a scalar, got shape ", shapeToString(v.shape));
    Shape shape(dims.begin(), dims.end());
    for (int64_t d : shape) opCheck(d >= 0, "dims ", shapeToString(shape), " has a negative size");
    if (shapeSize(shape) <= kMaxHostElements)
      return one(HostValue{shape, v.dtype,
                           std::vector<double>(static_cast<size_t>(shapeSize(shape)), v.v[0])});
    return one(fill(shape, static_cast<float>(v.v[0]), v.dtype));
  };
  t["Tile"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    return one(tile(ctx.in(0), ctx.ints(1, "multiples")));
  };
  auto gatherOp = [](NodeContext& ctx) {
    ctx.needInputs(2);
    opCheck(ctx.attrInt("batch_dims", 0) == 0, "batch_dims ", ctx.attrInt("batch_dims", 0),
            " is not supported");
    int64_t axis = ctx.numInputs() > 2 ? ctx.intScalar(2, "axis") : 0;
    const Value& x = ctx.value(0);
    const Value& idx = ctx.value(1);
    if (smallHost(x) && smallHost(idx) && x.shape().size() == 1 && (axis == 0 || axis == -1) &&
        idx.dtype() == DType::int32) {
      HostValue h{idx.shape(), x.dtype(), {}};
      int64_t n = x.shape()[0];
      for (double i : idx.host().v) {
        opCheck(i >= 0 && i < n, "index ", i, " is out of range [0, ", n, ")");
        h.v.push_back(x.host().v[static_cast<size_t>(i)]);
      }
      return one(std::move(h));
    }
    return one(gather(x.tensor(), idx.tensor(), axis));
  };
  t["GatherNd"] = [](NodeContext& ctx) {
    // indices [..., k] address the first k dimensions of params: a gather of
    // the flattened leading dimensions at sum(index_j * stride_j).
    ctx.needInputs(2);
    Tensor params = ctx.in(0), indices = ctx.in(1);
    opCheck(indices.dtype() == DType::int32 && indices.rank() >= 1,
            "indices must be int32 of rank >= 1, got ", dtypeName(indices.dtype()), " ",
            shapeToString(indices.shape()));
    int64_t k = indices.shape().back();
    opCheck(k >= 1 && k <= params.rank(), "indices' last dimension (", k, ") must be in [1, ",
            params.rank(), "] for params ", shapeToString(params.shape()));
    Shape p = params.shape();
    std::vector<int32_t> strides(static_cast<size_t>(k));
    int64_t stride = 1;
    for (int64_t d = k - 1; d >= 0; --d) {
      strides[static_cast<size_t>(d)] = static_cast<int32_t>(stride);
      stride *= p[static_cast<size_t>(d)];
    }
    Shape flat{stride};
    flat.insert(flat.end(), p.begin() + k, p.end());
    Tensor linear = sum(mul(indices, tensorInt(strides, {k})), {-1});
    return one(gather(reshape(params, flat), linear, 0));
  };
  t["GatherV2"] = gatherOp;
  t["Gather"] = gatherOp;
  t["Range"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    double start = ctx.scalar(0, "start"), limit = ctx.scalar(1, "limit"),
           delta = ctx.scalar(2, "delta");
    opCheck(delta != 0, "delta must be non-zero");
    DType dtype = ctx.value(0).dtype();
    HostValue h{{0}, dtype, {}};
    for (double v = start; delta > 0 ? v < limit : v > limit; v += delta) {
      h.v.push_back(roundToDType(v, dtype));
      opCheck(h.v.size() <= (1u << 28), "range is too long");
    }
    h.shape = {static_cast<int64_t>(h.v.size())};
    return std::vector<Value>{fromHost(std::move(h))};
  };
  auto like = [](double value) {
    return [value](NodeContext& ctx) {
      ctx.needInputs(1);
      const Value& x = ctx.value(0);
      if (smallHost(x))
        return one(HostValue{x.shape(), x.dtype(), std::vector<double>(x.host().v.size(), value)});
      return one(value == 0 ? zerosLike(x.tensor()) : onesLike(x.tensor()));
    };
  };
  t["ZerosLike"] = like(0);
  t["OnesLike"] = like(1);
}

}  // namespace glint::graph
