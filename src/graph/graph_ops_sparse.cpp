// Data-dependent and sparse ops of graph models: scatter, sparse-to-dense,
// unique, set difference, sorted search, bincount and sparse segment
// reductions. Indices and ids are read on the host, as TF.js's kernels read
// them, so that they are checked before use and so that outputs whose shape
// depends on them can be sized; the data itself stays on the device and is
// moved with gather / unsortedSegmentSum / where, so every backend runs them.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "glint/ops.h"
#include "src/graph/graph_internal.h"

namespace glint::graph {

HostValue readValues(const NodeContext& ctx, size_t i) {
  const Value& v = ctx.value(i);
  return v.isHost() ? v.host() : hostCopy(v.tensor());
}

namespace {

Tensor hostTensor(const std::vector<double>& v, const Shape& shape, DType dtype) {
  return Value(HostValue{shape, dtype, v}).tensor();
}

Tensor intTensor(const std::vector<int32_t>& v) {
  return tensorInt(v, {static_cast<int64_t>(v.size())});
}

std::string shapeOf(const NodeContext& ctx, size_t i) {
  return shapeToString(ctx.value(i).shape());
}

int64_t product(const Shape& s, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t d = from; d < to; ++d) n *= s[d];
  return n;
}

// Index tuples [n, k] as rows of `shape` seen as [prod(shape[:k]), prod(shape[k:])].
std::vector<int32_t> flatRows(const std::vector<double>& idx, int64_t n, int64_t k,
                              const Shape& shape, const std::string& what) {
  std::vector<int32_t> rows(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t row = 0;
    bool ok = true;
    for (int64_t j = 0; j < k; ++j) {
      double d = idx[static_cast<size_t>(i * k + j)];
      ok = ok && d >= 0 && d < static_cast<double>(shape[static_cast<size_t>(j)]);
      row = row * shape[static_cast<size_t>(j)] + static_cast<int64_t>(d);
    }
    if (!ok) {
      std::vector<int64_t> tuple(idx.begin() + i * k, idx.begin() + (i + 1) * k);
      opFail(what, "[", i, "] = ", shapeToString(tuple), " does not index into shape ",
             shapeToString(shape));
    }
    rows[static_cast<size_t>(i)] = static_cast<int32_t>(row);
  }
  return rows;
}

// Output rows of `base` [segments, slice] replaced by rows of `updates`
// [n, slice]; the last update of a row wins, as in TF.js's scatter.
Tensor replaceRows(const Tensor& base, const Tensor& updates, const std::vector<int32_t>& rows) {
  int64_t segments = base.shape()[0];
  std::vector<int32_t> from(static_cast<size_t>(segments), 0);
  std::vector<uint8_t> hit(static_cast<size_t>(segments), 0);
  for (size_t i = 0; i < rows.size(); ++i) {
    from[static_cast<size_t>(rows[i])] = static_cast<int32_t>(i);
    hit[static_cast<size_t>(rows[i])] = 1;
  }
  if (rows.empty()) return base;
  Tensor picked = gather(updates, intTensor(from));
  return where(tensorBool(hit, {segments, 1}), picked, base);
}

// Rows of `updates` [n, slice] summed into `segments` rows (ScatterNd adds duplicates).
Tensor sumRows(const Tensor& updates, const std::vector<int32_t>& rows, int64_t segments) {
  if (updates.dtype() == DType::boolean)
    return cast(sumRows(cast(updates, DType::int32), rows, segments), DType::boolean);
  return unsortedSegmentSum(updates, intTensor(rows), segments);
}

struct Scatter {
  std::vector<int32_t> rows;
  int64_t segments = 0, slice = 0;
};

// The indices input `ii` of a scatter into `shape`, checked against the
// updates input `ui` (updates.shape == indices.shape[:-1] + shape[k:]).
Scatter scatterIndices(const NodeContext& ctx, size_t ii, size_t ui, const Shape& shape) {
  const Shape& is = ctx.value(ii).shape();
  const Shape& us = ctx.value(ui).shape();
  opCheck(ctx.value(ii).dtype() == DType::int32, "indices must be int32, got ",
          dtypeName(ctx.value(ii).dtype()));
  opCheck(!is.empty() && is.back() <= static_cast<int64_t>(shape.size()), "indices of shape ",
          shapeToString(is),
          " must have rank >= 1 and a last dimension <= the rank of the output shape ",
          shapeToString(shape));
  size_t k = static_cast<size_t>(is.back());
  Shape want(is.begin(), is.end() - 1);
  want.insert(want.end(), shape.begin() + static_cast<int64_t>(k), shape.end());
  opCheck(us == want, "updates have shape ", shapeToString(us), " but indices ", shapeToString(is),
          " into shape ", shapeToString(shape), " need ", shapeToString(want));
  Scatter s;
  s.segments = product(shape, 0, k);
  s.slice = product(shape, k, shape.size());
  int64_t n = product(is, 0, is.size() - 1);
  s.rows = flatRows(readValues(ctx, ii).v, n, static_cast<int64_t>(k), shape, "indices");
  return s;
}

// A value as a set key that compares as TF.js's keys do (-0 == 0, NaN == NaN).
uint64_t valueKey(double v) {
  if (v == 0) v = 0;
  if (std::isnan(v)) v = std::nan("");
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

// Slices of x along `axis`, in order of first appearance, and each slice's
// unique index.
std::pair<std::vector<int32_t>, std::vector<int32_t>> uniqueSlices(const HostValue& x,
                                                                   int64_t axis) {
  int64_t n = x.shape[static_cast<size_t>(axis)];
  int64_t outer = product(x.shape, 0, static_cast<size_t>(axis));
  int64_t inner = product(x.shape, static_cast<size_t>(axis) + 1, x.shape.size());
  std::map<std::vector<uint64_t>, int32_t> seen;
  std::vector<int32_t> firsts, idx;
  for (int64_t j = 0; j < n; ++j) {
    std::vector<uint64_t> key;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        key.push_back(valueKey(x.v[static_cast<size_t>((o * n + j) * inner + i)]));
      }
    }
    auto [it, fresh] = seen.emplace(key, static_cast<int32_t>(firsts.size()));
    if (fresh) firsts.push_back(static_cast<int32_t>(j));
    idx.push_back(it->second);
  }
  return {firsts, idx};
}

Tensor gatherOrEmpty(const Tensor& x, const std::vector<int32_t>& at, int64_t axis) {
  if (!at.empty()) return gather(x, intTensor(at), axis);
  Shape s = x.shape();
  s[static_cast<size_t>(axis)] = 0;
  return zeros(s, x.dtype());
}

std::vector<Value> unique(NodeContext& ctx, int64_t axis) {
  HostValue x = readValues(ctx, 0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  opCheck(axis >= -rank && axis < rank, "axis ", axis, " is out of range for x of shape ",
          shapeToString(x.shape));
  if (axis < 0) axis += rank;
  auto [firsts, idx] = uniqueSlices(x, axis);
  HostValue index{{static_cast<int64_t>(idx.size())}, DType::int32, {idx.begin(), idx.end()}};
  return {Value(gatherOrEmpty(ctx.in(0), firsts, axis)), fromHost(std::move(index))};
}

// LowerBound / UpperBound: for sorted rows, the insertion point of a value is
// the number of row elements below it (or at most it), a count that runs as
// one broadcast comparison and a sum on any backend. As in TF.js, leading
// dims are flattened: the output is [rows, values per row].
OpFn searchSorted(bool upper) {
  return [upper](NodeContext& ctx) {
    ctx.needInputs(2);
    Tensor seq = ctx.in(0), values = ctx.in(1);
    const Shape &ss = seq.shape(), &vs = values.shape();
    opCheck(!ss.empty() && !vs.empty(), "sorted_sequence ", shapeToString(ss), " and values ",
            shapeToString(vs), " must have rank >= 1");
    int64_t n = ss.back(), m = vs.back();
    int64_t b = product(ss, 0, ss.size() - 1), bv = product(vs, 0, vs.size() - 1);
    opCheck(b == bv, "sorted_sequence ", shapeToString(ss), " and values ", shapeToString(vs),
            " must have the same number of rows");
    opCheck(seq.dtype() == values.dtype(), "sorted_sequence is ", dtypeName(seq.dtype()),
            " but values are ", dtypeName(values.dtype()));
    if (n == 0 || m == 0 || b == 0) return one(zeros({b, m}, DType::int32));
    Tensor s3 = reshape(seq, {b, 1, n}), v3 = reshape(values, {b, m, 1});
    Tensor below = upper ? lessEqual(s3, v3) : less(s3, v3);
    return one(sum(cast(below, DType::int32), {2}));
  };
}

// Bincount / DenseBincount: ids [n] or [rows, n] (`batched`), out [.., size].
std::vector<Value> bincount(NodeContext& ctx, bool batched, bool binary) {
  ctx.needInputs(3);
  HostValue ids = readValues(ctx, 0);
  int64_t size = readInt(ctx, 1, "size");
  const Value& w = ctx.value(2);
  opCheck(ids.dtype == DType::int32, "arr must be int32, got ", dtypeName(ids.dtype));
  opCheck(size >= 0, "size must be non-negative, got ", size);
  opCheck(!batched || ids.shape.size() <= 2, "input must be rank 1 or 2, got shape ",
          shapeToString(ids.shape));
  bool weighted = shapeSize(w.shape()) > 0;
  opCheck(!weighted || w.shape() == ids.shape, "weights have shape ", shapeToString(w.shape()),
          " but arr has shape ", shapeToString(ids.shape), "; they must match or weights be empty");
  int64_t rows = batched && ids.shape.size() == 2 ? ids.shape[0] : 1;
  int64_t n = rows == 0 ? 0 : static_cast<int64_t>(ids.v.size()) / rows;
  // Ids >= size are dropped, as TF does; negative ones are an error.
  std::vector<int32_t> keep, bins;
  std::vector<double> counts(static_cast<size_t>(rows * size), 0);
  for (int64_t i = 0; i < static_cast<int64_t>(ids.v.size()); ++i) {
    double id = ids.v[static_cast<size_t>(i)];
    opCheck(id >= 0, "arr[", i, "] = ", id, " is negative; bins must be non-negative");
    if (id >= static_cast<double>(size)) continue;
    int32_t bin = static_cast<int32_t>((i / std::max<int64_t>(n, 1)) * size + id);
    keep.push_back(static_cast<int32_t>(i));
    bins.push_back(bin);
    counts[static_cast<size_t>(bin)] = binary ? 1 : counts[static_cast<size_t>(bin)] + 1;
  }
  Shape out = batched && ids.shape.size() == 2 ? Shape{rows, size} : Shape{size};
  if (!weighted || binary || keep.empty())
    return {fromHost(HostValue{out, w.dtype(), std::move(counts)})};
  Tensor flat = reshape(w.tensor(), {shapeSize(w.shape())});
  if (keep.size() != static_cast<size_t>(flat.size())) flat = gather(flat, intTensor(keep));
  return one(reshape(unsortedSegmentSum(flat, intTensor(bins), rows * size), out));
}

// SparseSegmentSum / Mean: rows data[indices[i]] summed into segment
// segment_ids[i] (sorted); out has segment_ids[-1] + 1 rows, 0 for empty ones.
std::vector<Value> sparseSegment(NodeContext& ctx, bool mean) {
  ctx.needInputs(3);
  Tensor data = ctx.in(0);
  HostValue indices = readValues(ctx, 1), ids = readValues(ctx, 2);
  opCheck(data.rank() >= 1, "data must have rank >= 1, got shape ", shapeToString(data.shape()));
  opCheck(indices.dtype == DType::int32 && ids.dtype == DType::int32,
          "indices and segment_ids must be int32");
  opCheck(indices.shape.size() == 1 && ids.shape == indices.shape, "indices ",
          shapeToString(indices.shape), " and segment_ids ", shapeToString(ids.shape),
          " must be vectors of one length");
  int64_t n = static_cast<int64_t>(ids.v.size()), rows = data.shape()[0];
  // Every id and index checked before any is used: the last id sizes the output.
  for (int64_t i = 0; i < n; ++i) {
    double id = ids.v[static_cast<size_t>(i)], at = indices.v[static_cast<size_t>(i)];
    opCheck(id >= 0 && (i == 0 || id >= ids.v[static_cast<size_t>(i - 1)]), "segment_ids[", i,
            "] = ", id, ": segment ids must be non-negative and sorted ascending");
    opCheck(at >= 0 && at < static_cast<double>(rows), "indices[", i, "] = ", at,
            " is out of range for data of shape ", shapeToString(data.shape()));
  }
  int64_t segments = n == 0 ? 0 : static_cast<int64_t>(ids.v.back()) + 1;
  std::vector<double> counts(static_cast<size_t>(segments), 0);
  for (double id : ids.v) counts[static_cast<size_t>(id)] += 1;
  Shape out = data.shape();
  out[0] = segments;
  if (n == 0) return one(zeros(out, data.dtype()));
  std::vector<int32_t> at(indices.v.begin(), indices.v.end()), seg(ids.v.begin(), ids.v.end());
  Tensor summed = unsortedSegmentSum(gather(data, intTensor(at)), intTensor(seg), segments);
  if (!mean) return one(summed);
  for (double& c : counts) c = std::max(c, 1.0);
  Shape cs(out.size(), 1);
  cs[0] = segments;
  return one(div(summed, hostTensor(counts, cs, DType::float32)));
}

}  // namespace

void addSparseOps(OpTable& t) {
  t["ScatterNd"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    std::vector<int64_t> dims = readInts(ctx, 2, "shape");
    for (int64_t d : dims) opCheck(d >= 0, "shape ", shapeToString(dims), " has a negative size");
    Shape shape(dims.begin(), dims.end());
    Scatter s = scatterIndices(ctx, 0, 1, shape);
    Tensor updates = ctx.in(1);
    if (s.segments * s.slice == 0 || s.rows.empty()) return one(zeros(shape, updates.dtype()));
    return one(reshape(sumRows(reshape(updates, {-1, s.slice}), s.rows, s.segments), shape));
  };
  t["TensorScatterUpdate"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    Tensor x = ctx.in(0), updates = ctx.in(2);
    opCheck(x.dtype() == updates.dtype(), "tensor is ", dtypeName(x.dtype()), " but updates are ",
            dtypeName(updates.dtype()));
    Scatter s = scatterIndices(ctx, 1, 2, x.shape());
    if (s.segments * s.slice == 0 || s.rows.empty()) return one(x);
    Tensor base = reshape(x, {s.segments, s.slice});
    return one(reshape(replaceRows(base, reshape(updates, {-1, s.slice}), s.rows), x.shape()));
  };
  t["SparseToDense"] = [](NodeContext& ctx) {
    ctx.needInputs(4);
    std::vector<int64_t> dims = readInts(ctx, 1, "output_shape");
    Shape shape(dims.begin(), dims.end());
    HostValue idx = readValues(ctx, 0);
    Tensor values = ctx.in(2), fill = ctx.in(3);
    opCheck(idx.dtype == DType::int32, "sparse_indices must be int32");
    opCheck(idx.shape.size() <= 2, "sparse_indices must have rank <= 2, got shape ",
            shapeToString(idx.shape));
    int64_t n = idx.shape.empty() ? 1 : idx.shape[0];
    int64_t k = idx.shape.size() < 2 ? 1 : idx.shape[1];
    opCheck(k == static_cast<int64_t>(shape.size()), "sparse_indices of shape ",
            shapeToString(idx.shape), " do not index into output_shape ", shapeToString(shape));
    opCheck(values.rank() == 0 || values.shape() == Shape{n}, "sparse_values have shape ",
            shapeToString(values.shape()), " but there are ", n, " indices");
    opCheck(fill.rank() == 0, "default_value must be a scalar, got shape ",
            shapeToString(fill.shape()));
    if (fill.dtype() != values.dtype()) fill = cast(fill, values.dtype());
    std::vector<int32_t> rows = flatRows(idx.v, n, k, shape, "sparse_indices");
    int64_t size = shapeSize(shape);
    if (size == 0) return one(zeros(shape, values.dtype()));
    Tensor base = reshape(tile(reshape(fill, {1}), {size}), {size, 1});
    Tensor updates =
        values.rank() == 0 ? tile(reshape(values, {1, 1}), {n, 1}) : reshape(values, {n, 1});
    return one(reshape(replaceRows(base, updates, rows), shape));
  };
  t["Unique"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    opCheck(ctx.value(0).shape().size() == 1, "x must be a vector, got shape ", shapeOf(ctx, 0));
    return unique(ctx, 0);
  };
  t["UniqueV2"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    std::vector<int64_t> axis = readInts(ctx, 1, "axis");
    opCheck(axis.size() == 1, "axis must hold one value, got shape ", shapeOf(ctx, 1));
    return unique(ctx, axis[0]);
  };
  t["ListDiff"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    HostValue x = readValues(ctx, 0), y = readValues(ctx, 1);
    opCheck(x.shape.size() == 1 && y.shape.size() == 1, "x ", shapeToString(x.shape), " and y ",
            shapeToString(y.shape), " must be vectors");
    opCheck(x.dtype == y.dtype, "x is ", dtypeName(x.dtype), " but y is ", dtypeName(y.dtype));
    std::set<uint64_t> drop;
    for (double v : y.v) drop.insert(valueKey(v));
    std::vector<int32_t> keep;
    for (size_t i = 0; i < x.v.size(); ++i)
      if (!drop.count(valueKey(x.v[i]))) keep.push_back(static_cast<int32_t>(i));
    HostValue idx{{static_cast<int64_t>(keep.size())}, DType::int32, {keep.begin(), keep.end()}};
    return std::vector<Value>{Value(gatherOrEmpty(ctx.in(0), keep, 0)), fromHost(std::move(idx))};
  };
  t["LowerBound"] = searchSorted(false);
  t["UpperBound"] = searchSorted(true);
  t["Bincount"] = [](NodeContext& ctx) { return bincount(ctx, false, false); };
  t["DenseBincount"] = [](NodeContext& ctx) {
    return bincount(ctx, true, ctx.attrBool("binary_output", false));
  };
  t["SparseSegmentSum"] = [](NodeContext& ctx) { return sparseSegment(ctx, false); };
  t["SparseSegmentMean"] = [](NodeContext& ctx) { return sparseSegment(ctx, true); };
}

}  // namespace glint::graph
