// TensorList ops (TF 2's lists, as tf.map_fn and while loops with
// TensorArrays convert to): lists live on the host as vectors of Glint
// tensors, so building and reading them moves no data. Element shapes and
// dtypes are checked as TF.js checks them, with errors naming the list
// element's and the op's shapes.
#include <algorithm>
#include <cstdlib>

#include "glint/ops.h"
#include "src/graph/graph_internal.h"

namespace glint::graph {

std::string elementShapeString(const ElementShape& s) {
  return s.rankKnown ? shapeToString(s.dims) : std::string("<unknown rank>");
}

// An index or count: host when it is a constant or a loop counter (both
// stay on the host); otherwise read back, as TF.js reads it.
std::vector<int64_t> readInts(const NodeContext& ctx, size_t i, const std::string& what) {
  const Value& v = ctx.value(i);
  opCheck(v.dtype() == DType::int32, what, " must be int32, got ", dtypeName(v.dtype()));
  HostValue h = readValues(ctx, i);
  return std::vector<int64_t>(h.v.begin(), h.v.end());
}

int64_t readInt(const NodeContext& ctx, size_t i, const std::string& what) {
  std::vector<int64_t> v = readInts(ctx, i, what);
  opCheck(v.size() == 1, what, " must hold one value, got shape ",
          shapeToString(ctx.value(i).shape()));
  return v[0];
}

// An element_shape input: a scalar (-1) means unknown rank; a vector gives
// the dims, -1 for an unknown size.
static ElementShape readElementShape(const NodeContext& ctx, size_t i) {
  const Value& v = ctx.value(i);
  std::vector<int64_t> dims = readInts(ctx, i, "element_shape");
  if (v.shape().empty()) return {};
  for (int64_t& d : dims) d = d < 0 ? -1 : d;
  return {true, dims};
}

ElementShape attrElementShape(const NodeContext& ctx, const std::string& name) {
  const Json& attr = ctx.node().attr;
  if (!attr.contains(name) || !attr[name].is_object()) return {};
  const Json& shape = attr[name].value("shape", Json::object());
  if (!shape.is_object() || shape.value("unknownRank", false)) return {};
  ElementShape s{true, {}};
  for (const Json& d : shape.value("dim", Json::array())) {
    const Json& size = d.is_object() ? d.value("size", Json("-1")) : Json("-1");
    int64_t v = size.is_string() ? std::strtoll(size.get<std::string>().c_str(), nullptr, 10)
                                 : size.get<int64_t>();
    s.dims.push_back(v < 0 ? -1 : v);
  }
  return s;
}

namespace {

bool compatible(const ElementShape& a, const Shape& b) {
  if (!a.rankKnown) return true;
  if (a.dims.size() != b.size()) return false;
  for (size_t d = 0; d < b.size(); ++d)
    if (a.dims[d] >= 0 && b[d] >= 0 && a.dims[d] != b[d]) return false;
  return true;
}

}  // namespace

void checkShape(const ElementShape& want, const Shape& got, const std::string& what) {
  opCheck(compatible(want, got), what, " has shape ", shapeToString(got),
          ", which does not match the element shape ", elementShapeString(want));
}

ElementShape mergeShapes(const ElementShape& a, const ElementShape& b) {
  if (!a.rankKnown) return b;
  if (!b.rankKnown) return a;
  opCheck(a.dims.size() == b.dims.size(), "element shapes ", shapeToString(a.dims), " and ",
          shapeToString(b.dims), " have different ranks");
  ElementShape r{true, a.dims};
  for (size_t d = 0; d < a.dims.size(); ++d) {
    opCheck(a.dims[d] < 0 || b.dims[d] < 0 || a.dims[d] == b.dims[d], "element shapes ",
            shapeToString(a.dims), " and ", shapeToString(b.dims), " do not match");
    if (r.dims[d] < 0) r.dims[d] = b.dims[d];
  }
  return r;
}

namespace {

ElementShape merge(const ElementShape& a, const ElementShape& b) { return mergeShapes(a, b); }

bool fullyDefined(const ElementShape& s) {
  return s.rankKnown && std::all_of(s.dims.begin(), s.dims.end(), [](int64_t d) { return d >= 0; });
}

// The shape elements are read back as: the list's, the op's and the items'
// shapes merged; it must end up fully defined.
Shape outputElementShape(const TensorList& l, const ElementShape& requested) {
  ElementShape s = merge(l.elementShape, requested);
  for (const Tensor& t : l.items)
    if (!fullyDefined(s) && t.defined()) s = merge(s, {true, t.shape()});
  opCheck(fullyDefined(s), "the element shape ", elementShapeString(s),
          " is not fully defined and the list has no element to take it from");
  return s.dims;
}

void checkDType(const TensorList& l, DType dtype, const std::string& what) {
  opCheck(l.dtype == dtype, what, " is ", dtypeName(dtype), " but the list holds ",
          dtypeName(l.dtype));
}

DType elementDType(const NodeContext& ctx) { return ctx.attrType("element_dtype", DType::float32); }

std::vector<Value> list(TensorList l) {
  return {Value(std::make_shared<const TensorList>(std::move(l)))};
}

const Tensor& item(const TensorList& l, int64_t i) {
  opCheck(i >= 0 && i < static_cast<int64_t>(l.items.size()), "index ", i,
          " is out of range for a list of ", l.items.size(), " elements");
  opCheck(l.items[static_cast<size_t>(i)].defined(), "element ", i, " of the list was never set");
  return l.items[static_cast<size_t>(i)];
}

TensorList fromTensor(const Tensor& t, const ElementShape& shape, DType dtype) {
  opCheck(t.rank() >= 1, "tensor must be at least a vector, got shape ", shapeToString(t.shape()));
  opCheck(t.dtype() == dtype, "tensor is ", dtypeName(t.dtype()), " but element_dtype is ",
          dtypeName(dtype));
  Shape rest(t.shape().begin() + 1, t.shape().end());
  checkShape(shape, rest, "an element of the tensor");
  TensorList l{{}, shape, dtype, -1};
  if (t.shape()[0] > 0) l.items = unstack(t, 0);
  return l;
}

Tensor stackItems(const TensorList& l, const std::vector<int64_t>& indices,
                  const ElementShape& requested) {
  Shape shape = outputElementShape(l, requested);
  if (indices.empty()) {
    Shape empty{0};
    empty.insert(empty.end(), shape.begin(), shape.end());
    return zeros(empty, l.dtype);
  }
  std::vector<Tensor> xs;
  for (int64_t i : indices) {
    opCheck(i >= 0 && i < static_cast<int64_t>(l.items.size()), "index ", i,
            " is out of range for a list of ", l.items.size(), " elements");
    const Tensor& t = l.items[static_cast<size_t>(i)];
    if (!t.defined()) {  // a slot never set: zeros, as TensorFlow reads it
      xs.push_back(zeros(shape, l.dtype));
      continue;
    }
    checkShape({true, shape}, t.shape(), "element " + std::to_string(i));
    xs.push_back(reshape(t, shape));
  }
  return stack(xs, 0);
}

std::vector<int64_t> allIndices(const TensorList& l) {
  std::vector<int64_t> idx(l.items.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int64_t>(i);
  return idx;
}

}  // namespace

void addListOps(OpTable& t) {
  t["TensorListReserve"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    int64_t n = readInt(ctx, 1, "num_elements");
    opCheck(n >= 0, "num_elements must be >= 0, got ", n);
    TensorList l{std::vector<Tensor>(static_cast<size_t>(n)), readElementShape(ctx, 0),
                 elementDType(ctx), -1};
    return list(std::move(l));
  };
  t["EmptyTensorList"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    TensorList l{
        {}, readElementShape(ctx, 0), elementDType(ctx), readInt(ctx, 1, "max_num_elements")};
    return list(std::move(l));
  };
  t["TensorListFromTensor"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    return list(fromTensor(ctx.in(0), readElementShape(ctx, 1),
                           ctx.attrType("element_dtype", ctx.in(0).dtype())));
  };
  t["TensorListSetItem"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    TensorList l = ctx.value(0).list();
    int64_t i = readInt(ctx, 1, "index");
    Tensor x = ctx.in(2);
    checkDType(l, x.dtype(), "the item");
    checkShape(l.elementShape, x.shape(), "the item");
    opCheck(i >= 0 && (l.maxElements < 0 || i < l.maxElements), "index ", i,
            " is out of range for a list of at most ", l.maxElements, " elements");
    // TF.js grows a list set past its end; TensorFlow's Reserve has made
    // every slot already, so this only matters for lists TF.js built.
    if (i >= static_cast<int64_t>(l.items.size())) l.items.resize(static_cast<size_t>(i) + 1);
    l.items[static_cast<size_t>(i)] = x;
    return list(std::move(l));
  };
  t["TensorListGetItem"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    const TensorList& l = ctx.value(0).list();
    checkDType(l, elementDType(ctx), "element_dtype");
    int64_t i = readInt(ctx, 1, "index");
    ElementShape requested = readElementShape(ctx, 2);
    opCheck(i >= 0 && i < static_cast<int64_t>(l.items.size()), "index ", i,
            " is out of range for a list of ", l.items.size(), " elements");
    if (!l.items[static_cast<size_t>(i)].defined())
      return one(zeros(outputElementShape(l, requested), l.dtype));
    // A set item is returned as it is: pieces of a split list differ in
    // their first dimension, so the list's shape need not be fully known.
    const Tensor& x = l.items[static_cast<size_t>(i)];
    checkShape(merge(l.elementShape, requested), x.shape(), "element " + std::to_string(i));
    return one(x);
  };
  t["TensorListStack"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    const TensorList& l = ctx.value(0).list();
    checkDType(l, elementDType(ctx), "element_dtype");
    int64_t n = ctx.attrInt("num_elements", -1);
    opCheck(n < 0 || n == static_cast<int64_t>(l.items.size()), "num_elements is ", n,
            " but the list has ", l.items.size(), " elements");
    return one(stackItems(l, allIndices(l), readElementShape(ctx, 1)));
  };
  t["TensorListGather"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    const TensorList& l = ctx.value(0).list();
    checkDType(l, elementDType(ctx), "element_dtype");
    return one(stackItems(l, readInts(ctx, 1, "indices"), readElementShape(ctx, 2)));
  };
  auto scatter = [](NodeContext& ctx) {
    ctx.needInputs(3);
    Tensor x = ctx.in(0);
    std::vector<int64_t> indices = readInts(ctx, 1, "indices");
    opCheck(x.rank() >= 1 && static_cast<int64_t>(indices.size()) == x.shape()[0], "indices has ",
            indices.size(), " entries but the tensor has shape ", shapeToString(x.shape()));
    int64_t n = ctx.numInputs() > 3 ? readInt(ctx, 3, "num_elements") : -1;
    int64_t top = -1;
    for (int64_t i : indices) {
      opCheck(i >= 0, "indices holds ", i);
      top = std::max(top, i);
    }
    opCheck(n < 0 || top < n, "indices holds ", top, " but num_elements is ", n);
    TensorList l{std::vector<Tensor>(static_cast<size_t>(std::max(n, top + 1))),
                 readElementShape(ctx, 2), x.dtype(), -1};
    Shape rest(x.shape().begin() + 1, x.shape().end());
    checkShape(l.elementShape, rest, "an element of the tensor");
    std::vector<Tensor> rows = indices.empty() ? std::vector<Tensor>{} : unstack(x, 0);
    for (size_t k = 0; k < indices.size(); ++k) l.items[static_cast<size_t>(indices[k])] = rows[k];
    return list(std::move(l));
  };
  t["TensorListScatter"] = scatter;
  t["TensorListScatterV2"] = scatter;
  t["TensorListLength"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    return one(hostScalar(static_cast<double>(ctx.value(0).list().items.size()), DType::int32));
  };
  t["TensorListElementShape"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    const ElementShape& s = ctx.value(0).list().elementShape;
    if (!s.rankKnown) return one(hostScalar(-1, DType::int32));
    HostValue h{{static_cast<int64_t>(s.dims.size())}, DType::int32, {}};
    for (int64_t d : s.dims) h.v.push_back(static_cast<double>(d));
    return one(std::move(h));
  };
  auto concatList = [](NodeContext& ctx) {
    ctx.needInputs(1);
    const TensorList& l = ctx.value(0).list();
    checkDType(l, elementDType(ctx), "element_dtype");
    // V2 takes the element shape as an input, V1 as an attribute.
    ElementShape requested = ctx.numInputs() > 1 ? readElementShape(ctx, 1) : attrElementShape(ctx);
    std::vector<Tensor> xs;
    HostValue lengths{{static_cast<int64_t>(l.items.size())}, DType::int32, {}};
    for (size_t i = 0; i < l.items.size(); ++i) {
      const Tensor& x = item(l, static_cast<int64_t>(i));
      opCheck(x.rank() >= 1, "element ", i, " is a scalar; TensorListConcat needs rank >= 1");
      checkShape(merge(l.elementShape, requested), x.shape(), "element " + std::to_string(i));
      xs.push_back(x);
      lengths.v.push_back(static_cast<double>(x.shape()[0]));
    }
    Tensor out;
    if (xs.empty()) {
      ElementShape s = merge(l.elementShape, requested);
      opCheck(fullyDefined(s),
              "concatenating an empty list needs a fully defined element shape, got ",
              elementShapeString(s));
      Shape empty = s.dims;
      opCheck(!empty.empty(), "element shape is a scalar; TensorListConcat needs rank >= 1");
      empty[0] = 0;
      out = zeros(empty, l.dtype);
    } else {
      out = concat(xs, 0);
    }
    return std::vector<Value>{Value(out), fromHost(std::move(lengths))};
  };
  t["TensorListConcat"] = concatList;
  t["TensorListConcatV2"] = concatList;
  t["TensorListSplit"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    Tensor x = ctx.in(0);
    ElementShape shape = readElementShape(ctx, 1);
    std::vector<int64_t> lengths = readInts(ctx, 2, "lengths");
    opCheck(x.rank() >= 1, "tensor must be at least a vector, got shape ",
            shapeToString(x.shape()));
    int64_t total = 0;
    for (int64_t n : lengths) {
      opCheck(n >= 0, "lengths holds ", n);
      total += n;
    }
    opCheck(total == x.shape()[0], "lengths sum to ", total, " but the tensor has shape ",
            shapeToString(x.shape()));
    TensorList l{{}, shape, x.dtype(), -1};
    int64_t at = 0;
    for (int64_t n : lengths) {
      std::vector<int64_t> begin(static_cast<size_t>(x.rank()), 0), size = x.shape();
      begin[0] = at;
      size[0] = n;
      Tensor piece = slice(x, begin, size);
      checkShape(shape, piece.shape(), "piece " + std::to_string(l.items.size()));
      l.items.push_back(piece);
      at += n;
    }
    return list(std::move(l));
  };
  t["TensorListPushBack"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    TensorList l = ctx.value(0).list();
    Tensor x = ctx.in(1);
    checkDType(l, x.dtype(), "the item");
    checkShape(l.elementShape, x.shape(), "the item");
    opCheck(l.maxElements < 0 || static_cast<int64_t>(l.items.size()) < l.maxElements,
            "the list is full (", l.maxElements, " elements)");
    l.items.push_back(x);
    return list(std::move(l));
  };
  t["TensorListPopBack"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    TensorList l = ctx.value(0).list();
    checkDType(l, elementDType(ctx), "element_dtype");
    opCheck(!l.items.empty(), "pops from an empty list");
    ElementShape requested = readElementShape(ctx, 1);
    Tensor out = l.items.back().defined() ? l.items.back()
                                          : zeros(outputElementShape(l, requested), l.dtype);
    checkShape(merge(l.elementShape, requested), out.shape(), "the last element");
    l.items.pop_back();
    std::vector<Value> r = list(std::move(l));
    r.emplace_back(out);
    return r;
  };
  t["TensorListResize"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    TensorList l = ctx.value(0).list();
    int64_t n = readInt(ctx, 1, "size");
    opCheck(n >= 0, "size must be >= 0, got ", n);
    opCheck(l.maxElements < 0 || n <= l.maxElements, "size ", n,
            " is more than the list's maximum ", l.maxElements);
    l.items.resize(static_cast<size_t>(n));
    return list(std::move(l));
  };
}

}  // namespace glint::graph
