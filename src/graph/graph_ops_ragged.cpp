// Sparse-tensor and ragged-tensor structure ops of graph models:
// SparseFillEmptyRows, SparseReshape, RaggedRange, RaggedGather and
// RaggedTensorToTensor. Their output shapes depend on index and split
// values, so those are read on the host (as TF.js's kernels read them),
// checked, and turned into gather indices; the values themselves move on
// the device with gather and where.
#include <algorithm>
#include <cmath>

#include "glint/ops.h"
#include "src/graph/graph_internal.h"

namespace glint::graph {

namespace {

Tensor intTensor(const std::vector<int32_t>& v) {
  return tensorInt(v, {static_cast<int64_t>(v.size())});
}

Value intValue(const std::vector<double>& v, Shape shape) {
  return fromHost(HostValue{std::move(shape), DType::int32, v});
}

// Rows `at` of x (along axis 0); an empty pick keeps x's inner shape.
Tensor pickRows(const Tensor& x, const std::vector<int32_t>& at) {
  if (!at.empty()) return gather(x, intTensor(at));
  Shape s = x.shape();
  s[0] = 0;
  return zeros(s, x.dtype());
}

HostValue intInput(const NodeContext& ctx, size_t i, const std::string& what) {
  HostValue h = readValues(ctx, i);
  opCheck(h.dtype == DType::int32, what, " must be int32, got ", dtypeName(h.dtype));
  return h;
}

// Checks one level of row splits over `children` elements of the next level.
void checkSplits(const std::vector<double>& s, int64_t children, const std::string& what) {
  opCheck(!s.empty() && s.front() == 0, what, " must be non-empty and start at 0");
  for (size_t i = 1; i < s.size(); ++i)
    opCheck(s[i] >= s[i - 1], what, " must be sorted ascending; [", i, "] = ", s[i], " < ",
            s[i - 1]);
  opCheck(s.back() == static_cast<double>(children), what, " end at ", s.back(), " but there are ",
          children, " elements below them");
}

std::vector<Value> sparseFillEmptyRows(NodeContext& ctx) {
  ctx.needInputs(4);
  HostValue idx = intInput(ctx, 0, "indices"), dense = intInput(ctx, 2, "dense_shape");
  Tensor values = ctx.in(1), fill = ctx.in(3);
  opCheck(idx.shape.size() == 2, "indices must be [N, rank], got shape ", shapeToString(idx.shape));
  int64_t n = idx.shape[0], rank = idx.shape[1];
  opCheck(values.shape() == Shape{n}, "values have shape ", shapeToString(values.shape()),
          " but indices have shape ", shapeToString(idx.shape));
  opCheck(dense.shape == Shape{rank}, "dense_shape has shape ", shapeToString(dense.shape),
          " but indices have shape ", shapeToString(idx.shape));
  opCheck(fill.rank() == 0 && fill.dtype() == values.dtype(),
          "default_value must be a scalar of the values' dtype, got ", shapeToString(fill.shape()),
          " ", dtypeName(fill.dtype()));
  int64_t rows = rank == 0 ? 0 : static_cast<int64_t>(dense.v[0]);
  opCheck(rows > 0 || n == 0, "dense_shape ", shapeToString(dense.shape),
          " has no rows but there are ", n, " indices");
  std::vector<int64_t> count(static_cast<size_t>(std::max<int64_t>(rows, 0)), 0);
  for (int64_t i = 0; i < n; ++i) {
    double r = idx.v[static_cast<size_t>(i * rank)];
    opCheck(r >= 0 && r < static_cast<double>(rows), "indices[", i, ", 0] = ", r,
            " is out of range for dense_shape[0] = ", rows);
    ++count[static_cast<size_t>(r)];
  }
  // Each row's entries keep their order, after the entries of earlier rows;
  // an empty row gets one default entry at column 0.
  std::vector<int64_t> start(count.size() + 1, 0);
  HostValue empty{{rows}, DType::boolean, {}};
  for (size_t r = 0; r < count.size(); ++r) {
    empty.v.push_back(count[r] == 0 ? 1 : 0);
    start[r + 1] = start[r] + std::max<int64_t>(count[r], 1);
  }
  int64_t total = start.back();
  std::vector<double> outIdx(static_cast<size_t>(total * rank), 0), reverse;
  std::vector<int32_t> from(static_cast<size_t>(total), static_cast<int32_t>(n));
  std::vector<int64_t> filled(count.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    auto r = static_cast<size_t>(idx.v[static_cast<size_t>(i * rank)]);
    int64_t at = start[r] + filled[r]++;
    std::copy_n(idx.v.begin() + i * rank, rank, outIdx.begin() + at * rank);
    from[static_cast<size_t>(at)] = static_cast<int32_t>(i);
    reverse.push_back(static_cast<double>(at));
  }
  for (size_t r = 0; r < count.size(); ++r)
    if (count[r] == 0) outIdx[static_cast<size_t>(start[r] * rank)] = static_cast<double>(r);
  // Index n picks the default value appended after the values.
  Tensor pool = concat({values, reshape(fill, {1})}, 0);
  return {intValue(outIdx, {total, rank}), Value(pickRows(pool, from)), fromHost(std::move(empty)),
          intValue(reverse, {n})};
}

std::vector<Value> sparseReshape(NodeContext& ctx) {
  ctx.needInputs(3);
  HostValue idx = intInput(ctx, 0, "input_indices"), in = intInput(ctx, 1, "input_shape");
  HostValue want = intInput(ctx, 2, "new_shape");
  opCheck(idx.shape.size() == 2 && in.shape == Shape{idx.shape[1]} && want.shape.size() == 1,
          "input_indices ", shapeToString(idx.shape), ", input_shape ", shapeToString(in.shape),
          " and new_shape ", shapeToString(want.shape), " must be [N, rank], [rank] and a vector");
  double dense = 1, known = 1;
  for (double d : in.v) dense *= d;
  int64_t unknown = -1;
  std::vector<double> out = want.v;
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == -1) {
      opCheck(unknown < 0, "new_shape ",
              shapeToString(std::vector<int64_t>(out.begin(), out.end())), " has more than one -1");
      unknown = static_cast<int64_t>(d);
    } else {
      opCheck(out[d] >= 0, "new_shape has a negative size ", out[d], " at ", d);
      known *= out[d];
    }
  }
  if (unknown >= 0) {
    opCheck(known > 0 && std::fmod(dense, known) == 0, "cannot infer the -1 of new_shape: ", dense,
            " dense elements are not a multiple of ", known);
    out[static_cast<size_t>(unknown)] = dense / known;
    known *= out[static_cast<size_t>(unknown)];
  }
  opCheck(known == dense, "input_shape ",
          shapeToString(std::vector<int64_t>(in.v.begin(), in.v.end())), " has ", dense,
          " elements but new_shape ", shapeToString(std::vector<int64_t>(out.begin(), out.end())),
          " has ", known);
  int64_t n = idx.shape[0], r = idx.shape[1], r2 = static_cast<int64_t>(out.size());
  std::vector<double> outIdx;
  for (int64_t i = 0; i < n; ++i) {
    double flat = 0;
    for (int64_t j = 0; j < r; ++j) {
      double v = idx.v[static_cast<size_t>(i * r + j)];
      opCheck(v >= 0 && v < in.v[static_cast<size_t>(j)], "input_indices[", i, ", ", j, "] = ", v,
              " is out of range for input_shape");
      flat = flat * in.v[static_cast<size_t>(j)] + v;
    }
    std::vector<double> tuple(static_cast<size_t>(r2));
    for (int64_t j = r2 - 1; j >= 0; --j) {
      double size = out[static_cast<size_t>(j)];
      tuple[static_cast<size_t>(j)] = std::fmod(flat, size);
      flat = std::floor(flat / size);
    }
    outIdx.insert(outIdx.end(), tuple.begin(), tuple.end());
  }
  return {intValue(outIdx, {n, r2}), intValue(out, {r2})};
}

std::vector<Value> raggedRange(NodeContext& ctx) {
  ctx.needInputs(3);
  HostValue in[3] = {readValues(ctx, 0), readValues(ctx, 1), readValues(ctx, 2)};
  const char* names[3] = {"starts", "limits", "deltas"};
  int64_t rows = -1;
  for (int k = 0; k < 3; ++k) {
    opCheck(in[k].shape.size() <= 1, names[k], " must be a scalar or vector, got shape ",
            shapeToString(in[k].shape));
    opCheck(in[k].dtype == in[0].dtype, names[k], " is ", dtypeName(in[k].dtype), " but starts is ",
            dtypeName(in[0].dtype));
    if (in[k].shape.empty()) continue;
    opCheck(rows < 0 || rows == in[k].shape[0], "starts ", shapeToString(in[0].shape), ", limits ",
            shapeToString(in[1].shape), " and deltas ", shapeToString(in[2].shape),
            " must have one length");
    rows = in[k].shape[0];
  }
  if (rows < 0) rows = 1;  // all scalars: one row
  auto at = [&](int k, int64_t r) { return in[k].v[in[k].shape.empty() ? 0 : r]; };
  std::vector<double> splits{0}, values;
  for (int64_t r = 0; r < rows; ++r) {
    double start = at(0, r), limit = at(1, r), delta = at(2, r);
    opCheck(delta != 0, "deltas[", r, "] is 0");
    double size = (delta > 0 && limit < start) || (delta < 0 && limit > start)
                      ? 0
                      : std::ceil(std::fabs((limit - start) / delta));
    opCheck(size <= 2147483647.0, "row ", r, " would have ", size, " values");
    for (double i = 0, v = start; i < size; ++i, v += delta)
      values.push_back(roundToDType(v, in[0].dtype));
    splits.push_back(splits.back() + size);
  }
  Shape vs{static_cast<int64_t>(values.size())};
  return {intValue(splits, {rows + 1}), fromHost(HostValue{vs, in[0].dtype, std::move(values)})};
}

std::vector<Value> raggedGather(NodeContext& ctx) {
  ctx.needInputs(3);
  size_t levels = ctx.numInputs() - 2;
  std::vector<HostValue> splits;
  for (size_t i = 0; i < levels; ++i) splits.push_back(intInput(ctx, i, "params_nested_splits"));
  Tensor values = ctx.in(levels);
  HostValue idx = intInput(ctx, levels + 1, "indices");
  opCheck(values.rank() >= 1, "params_dense_values must have rank >= 1");
  for (size_t d = 0; d < levels; ++d) {
    opCheck(splits[d].shape.size() == 1, "params_nested_splits[", d, "] must be a vector");
    int64_t children =
        d + 1 < levels ? static_cast<int64_t>(splits[d + 1].v.size()) - 1 : values.shape()[0];
    checkSplits(splits[d].v, children, "params_nested_splits[" + std::to_string(d) + "]");
  }
  auto params = static_cast<double>(splits[0].v.size() - 1);
  for (size_t i = 0; i < idx.v.size(); ++i)
    opCheck(idx.v[i] >= 0 && idx.v[i] < params, "indices[", i, "] = ", idx.v[i], " is not in [0, ",
            params, ")");
  // Dense dims of indices become uniform splits, then each picked row adds
  // its nested row lengths level by level (TF's RaggedGather).
  int64_t idxRank = static_cast<int64_t>(idx.shape.size());
  // Scalar indices drop the outermost level: levels - 1 output splits.
  int64_t outLevels = idxRank - 1 + static_cast<int64_t>(levels);
  opCheck(outLevels >= 0, "indices must be at least a vector, got shape ",
          shapeToString(idx.shape));
  std::vector<std::vector<double>> out(static_cast<size_t>(outLevels), {0});
  int64_t nrows = 1;
  for (int64_t d = 0; d + 1 < idxRank; ++d) {
    nrows *= idx.shape[static_cast<size_t>(d)];
    for (int64_t i = 1; i <= nrows; ++i)
      out[static_cast<size_t>(d)].push_back(static_cast<double>(i * idx.shape[d + 1]));
  }
  std::vector<int32_t> picked;
  for (double i : idx.v) {
    auto start = static_cast<int64_t>(i), limit = start + 1;
    for (size_t d = 0; d < levels; ++d) {
      const std::vector<double>& s = splits[d].v;
      int64_t level = idxRank - 1 + static_cast<int64_t>(d);
      if (level >= 0) {
        std::vector<double>& o = out[static_cast<size_t>(level)];
        double delta = o.back() - s[static_cast<size_t>(start)];
        for (int64_t j = start; j < limit; ++j) o.push_back(s[static_cast<size_t>(j + 1)] + delta);
      }
      start = static_cast<int64_t>(s[static_cast<size_t>(start)]);
      limit = static_cast<int64_t>(s[static_cast<size_t>(limit)]);
    }
    for (int64_t j = start; j < limit; ++j) picked.push_back(static_cast<int32_t>(j));
  }
  int64_t want = ctx.attrInt("OUTPUT_RAGGED_RANK", static_cast<int64_t>(out.size()));
  opCheck(want == static_cast<int64_t>(out.size()), "OUTPUT_RAGGED_RANK is ", want, " but indices ",
          shapeToString(idx.shape), " into ", levels, " ragged levels give ", out.size());
  std::vector<Value> result;
  for (const std::vector<double>& o : out)
    result.push_back(intValue(o, {static_cast<int64_t>(o.size())}));
  result.emplace_back(pickRows(values, picked));
  return result;
}

std::vector<Value> raggedTensorToTensor(NodeContext& ctx) {
  ctx.needInputs(4);
  std::vector<std::string> types = ctx.attrStrings("row_partition_types");
  size_t parts = ctx.numInputs() - 3;
  opCheck(types.size() == parts, "row_partition_types has ", types.size(), " entries for ", parts,
          " row_partition_tensors");
  bool firstDim = types[0] == "FIRST_DIM_SIZE";
  size_t ragged = parts - (firstDim ? 1 : 0);
  opCheck(ragged >= 1, "row_partition_types ", types[0], " needs a partition after it");
  Tensor values = ctx.in(1), fill = ctx.in(2);
  opCheck(values.rank() >= 1, "values must have rank >= 1");
  opCheck(fill.dtype() == values.dtype(), "default_value is ", dtypeName(fill.dtype()),
          " but values are ", dtypeName(values.dtype()));
  Shape inner(values.shape().begin() + 1, values.shape().end());
  size_t rank = ragged + 1 + inner.size();
  HostValue shapeIn = intInput(ctx, 0, "shape");
  std::vector<double> want(rank, -1);
  if (!shapeIn.shape.empty()) {
    opCheck(shapeIn.v.size() == rank, "shape ", shapeToString(shapeIn.shape), " must have ", rank,
            " entries for the output's rank");
    want = shapeIn.v;
  }
  for (size_t d = 0; d < inner.size(); ++d)
    opCheck(want[ragged + 1 + d] < 0 || want[ragged + 1 + d] == inner[d], "shape's dimension ",
            ragged + 1 + d, " is ", want[ragged + 1 + d], " but values have shape ",
            shapeToString(values.shape()));
  // parent[j]: the row (at the level above) of element j of each level.
  std::vector<std::vector<int64_t>> parent(ragged);
  std::vector<int64_t> levelSize(ragged + 1);
  size_t p = 0;
  if (firstDim) {
    HostValue n = intInput(ctx, 3, "row_partition_tensors[0]");
    opCheck(n.v.size() == 1 && n.v[0] >= 0, "FIRST_DIM_SIZE must be a non-negative scalar");
    levelSize[0] = static_cast<int64_t>(n.v[0]);
    p = 1;
  }
  for (size_t d = 0; d < ragged; ++d, ++p) {
    std::string what = "row_partition_tensors[" + std::to_string(p) + "] (" + types[p] + ")";
    HostValue t = intInput(ctx, 3 + p, what);
    int64_t children = d + 1 < ragged ? -1 : values.shape()[0];
    if (types[p] == "ROW_SPLITS") {
      opCheck(t.shape.size() == 1, what, " must be a vector");
      int64_t rows = static_cast<int64_t>(t.v.size()) - 1;
      opCheck(d > 0 || !firstDim || rows == levelSize[0], what, " has ", rows, " rows");
      if (d == 0) levelSize[0] = rows;
      opCheck(d == 0 || rows == levelSize[d], what, " has ", rows, " rows but the level above has ",
              levelSize[d], " elements");
      checkSplits(t.v, children >= 0 ? children : static_cast<int64_t>(t.v.back()), what);
      for (int64_t r = 0; r < rows; ++r)
        for (double j = t.v[static_cast<size_t>(r)]; j < t.v[static_cast<size_t>(r) + 1]; ++j)
          parent[d].push_back(r);
    } else {
      opCheck(
          types[p] == "VALUE_ROWIDS" && (d > 0 || firstDim), what,
          ": row_partition_types must be ROW_SPLITS..., or FIRST_DIM_SIZE then VALUE_ROWIDS...");
      opCheck(t.shape.size() == 1, what, " must be a vector");
      for (size_t j = 0; j < t.v.size(); ++j) {
        opCheck(t.v[j] >= 0 && t.v[j] < static_cast<double>(levelSize[d]) &&
                    (j == 0 || t.v[j] >= t.v[j - 1]),
                what, "[", j, "] = ", t.v[j], " must be sorted and in [0, ", levelSize[d], ")");
        parent[d].push_back(static_cast<int64_t>(t.v[j]));
      }
      opCheck(children < 0 || static_cast<int64_t>(t.v.size()) == children, what, " has ",
              t.v.size(), " entries for ", children, " values");
    }
    levelSize[d + 1] = static_cast<int64_t>(parent[d].size());
  }
  // Output dims: given ones, else the number of rows and the longest rows.
  Shape out(rank);
  out[0] = want[0] >= 0 ? static_cast<int64_t>(want[0]) : levelSize[0];
  for (size_t d = 0; d < ragged; ++d) {
    std::vector<int64_t> len(static_cast<size_t>(levelSize[d]), 0);
    int64_t longest = 0;
    for (int64_t q : parent[d]) longest = std::max(longest, ++len[static_cast<size_t>(q)]);
    out[d + 1] = want[d + 1] >= 0 ? static_cast<int64_t>(want[d + 1]) : longest;
  }
  std::copy(inner.begin(), inner.end(), out.begin() + static_cast<int64_t>(ragged) + 1);
  // pos[j]: element j's row in the output's leading ragged + 1 dims, or -1
  // where the output shape cuts it off.
  std::vector<int64_t> pos(static_cast<size_t>(levelSize[0]));
  for (int64_t r = 0; r < levelSize[0]; ++r) pos[static_cast<size_t>(r)] = r < out[0] ? r : -1;
  for (size_t d = 0; d < ragged; ++d) {
    std::vector<int64_t> next, seen(static_cast<size_t>(levelSize[d]), 0);
    for (int64_t q : parent[d]) {
      int64_t k = seen[static_cast<size_t>(q)]++, up = pos[static_cast<size_t>(q)];
      next.push_back(up >= 0 && k < out[d + 1] ? up * out[d + 1] + k : -1);
    }
    pos = std::move(next);
  }
  int64_t outRows = 1;
  for (size_t d = 0; d <= ragged; ++d) outRows *= out[d];
  std::vector<int32_t> from(static_cast<size_t>(outRows), 0);
  std::vector<uint8_t> hit(static_cast<size_t>(outRows), 0);
  for (size_t j = 0; j < pos.size(); ++j)
    if (pos[j] >= 0) {
      from[static_cast<size_t>(pos[j])] = static_cast<int32_t>(j);
      hit[static_cast<size_t>(pos[j])] = 1;
    }
  Shape rowShape{outRows};
  rowShape.insert(rowShape.end(), inner.begin(), inner.end());
  Shape maskShape(rowShape.size(), 1);
  maskShape[0] = outRows;
  if (shapeSize(out) == 0) return one(zeros(out, values.dtype()));
  Tensor picked =
      values.shape()[0] == 0 ? zeros(rowShape, values.dtype()) : gather(values, intTensor(from));
  return one(reshape(where(tensorBool(hit, maskShape), picked, fill), out));
}

}  // namespace

void addRaggedOps(OpTable& t) {
  t["SparseFillEmptyRows"] = sparseFillEmptyRows;
  t["SparseReshape"] = sparseReshape;
  t["RaggedRange"] = raggedRange;
  t["RaggedGather"] = raggedGather;
  t["RaggedTensorToTensor"] = raggedTensorToTensor;
}

}  // namespace glint::graph
