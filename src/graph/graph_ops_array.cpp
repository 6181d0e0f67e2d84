// TensorArray V3 ops (TF 1's tf.TensorArray): the array is a resource on
// the host, changed in place by writes; each op's flow input and output
// only order the ops, so the flow is a host scalar and costs nothing. Reads
// and writes are checked as TF.js checks them: bounds, dtype, element shape,
// writing twice, reading a cleared element, using a closed array.
#include <algorithm>

#include "glint/ops.h"
#include "src/graph/graph_internal.h"

namespace glint::graph {

namespace {

Value flow() { return Value(hostScalar(0, DType::float32)); }

std::string arrayName(const TensorArray& a) {
  return a.name.empty() ? std::string("TensorArray") : "TensorArray '" + a.name + "'";
}

TensorArray& open(const NodeContext& ctx) {
  TensorArray& a = ctx.value(0).array();
  opCheck(!a.closed, arrayName(a), " has been closed");
  return a;
}

void write(TensorArray& a, int64_t i, const Tensor& t) {
  opCheck(i >= 0 && (a.dynamicSize || i < static_cast<int64_t>(a.slots.size())), arrayName(a),
          ": index ", i, " is out of range for its size ", a.slots.size(), " (not dynamic_size)");
  opCheck(t.dtype() == a.dtype, arrayName(a), ": writes ", dtypeName(t.dtype()),
          " into an array of ", dtypeName(a.dtype));
  // An array of unknown element shape takes the first element's.
  bool empty = std::none_of(a.slots.begin(), a.slots.end(),
                            [](const TensorArray::Slot& s) { return s.written; });
  if (empty && (!a.elementShape.rankKnown || a.elementShape.dims.empty()))
    a.elementShape = {true, t.shape()};
  checkShape(a.elementShape, t.shape(),
             arrayName(a) + ": the element written at index " + std::to_string(i));
  if (i >= static_cast<int64_t>(a.slots.size())) a.slots.resize(static_cast<size_t>(i) + 1);
  TensorArray::Slot& s = a.slots[static_cast<size_t>(i)];
  opCheck(!s.read, arrayName(a), ": index ", i, " was already read; it cannot be written");
  opCheck(!s.written, arrayName(a), ": index ", i, " was already written");
  s.value = t;
  s.written = true;
}

Tensor read(TensorArray& a, int64_t i) {
  opCheck(i >= 0 && i < static_cast<int64_t>(a.slots.size()), arrayName(a), ": index ", i,
          " is out of range for its size ", a.slots.size());
  TensorArray::Slot& s = a.slots[static_cast<size_t>(i)];
  opCheck(!(s.read && a.clearAfterRead), arrayName(a), ": index ", i,
          " was read before and cleared (clear_after_read)");
  opCheck(s.written, arrayName(a), ": index ", i, " was never written");
  Tensor t = s.value;
  s.read = true;
  if (a.clearAfterRead) s.value = Tensor();
  return t;
}

void checkDType(const TensorArray& a, const NodeContext& ctx) {
  DType d = ctx.attrType("dtype", a.dtype);
  opCheck(d == a.dtype, arrayName(a), " holds ", dtypeName(a.dtype), " but the op asks for ",
          dtypeName(d));
}

}  // namespace

void addArrayOps(OpTable& t) {
  t["TensorArrayV3"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    auto a = std::make_shared<TensorArray>();
    int64_t size = readInt(ctx, 0, "size");
    opCheck(size >= 0, "size must be >= 0, got ", size);
    a->slots.resize(static_cast<size_t>(size));
    a->name = ctx.attrString("tensor_array_name", "");
    a->dtype = ctx.attrType("dtype", DType::float32);
    a->elementShape = attrElementShape(ctx);
    a->dynamicSize = ctx.attrBool("dynamic_size", false);
    a->clearAfterRead = ctx.attrBool("clear_after_read", true);
    a->identicalShapes = ctx.attrBool("identical_element_shapes", false);
    return std::vector<Value>{Value(std::move(a)), flow()};
  };
  t["TensorArrayWriteV3"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    write(open(ctx), readInt(ctx, 1, "index"), ctx.in(2));
    return std::vector<Value>{flow()};
  };
  t["TensorArrayReadV3"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    TensorArray& a = open(ctx);
    checkDType(a, ctx);
    return one(read(a, readInt(ctx, 1, "index")));
  };
  t["TensorArrayGatherV3"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    TensorArray& a = open(ctx);
    checkDType(a, ctx);
    std::vector<int64_t> indices = readInts(ctx, 1, "indices");
    ElementShape shape = mergeShapes(a.elementShape, attrElementShape(ctx));
    if (indices.empty()) {
      opCheck(shape.rankKnown && std::all_of(shape.dims.begin(), shape.dims.end(),
                                             [](int64_t d) { return d >= 0; }),
              arrayName(a), ": gathering no elements needs a fully defined element shape, got ",
              elementShapeString(shape));
      Shape empty{0};
      empty.insert(empty.end(), shape.dims.begin(), shape.dims.end());
      return one(zeros(empty, a.dtype));
    }
    std::vector<Tensor> xs;
    for (int64_t i : indices) {
      xs.push_back(read(a, i));
      checkShape(shape, xs.back().shape(), arrayName(a) + ": element " + std::to_string(i));
      opCheck(xs.back().shape() == xs.front().shape(), arrayName(a), ": elements ", indices.front(),
              " and ", i, " have shapes ", shapeToString(xs.front().shape()), " and ",
              shapeToString(xs.back().shape()), "; gather stacks equal shapes");
    }
    return one(stack(xs, 0));
  };
  t["TensorArrayScatterV3"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    TensorArray& a = open(ctx);
    std::vector<int64_t> indices = readInts(ctx, 1, "indices");
    Tensor x = ctx.in(2);
    opCheck(x.rank() >= 1 && static_cast<int64_t>(indices.size()) == x.shape()[0], "indices has ",
            indices.size(), " entries but the value has shape ", shapeToString(x.shape()));
    std::vector<Tensor> rows = indices.empty() ? std::vector<Tensor>{} : unstack(x, 0);
    for (size_t k = 0; k < indices.size(); ++k) write(a, indices[k], rows[k]);
    return std::vector<Value>{flow()};
  };
  t["TensorArrayConcatV3"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    TensorArray& a = open(ctx);
    checkDType(a, ctx);
    std::vector<Tensor> xs;
    HostValue lengths{{static_cast<int64_t>(a.slots.size())}, DType::int32, {}};
    for (size_t i = 0; i < a.slots.size(); ++i) {
      xs.push_back(read(a, static_cast<int64_t>(i)));
      opCheck(xs.back().rank() >= 1, arrayName(a), ": element ", i,
              " is a scalar; concat needs rank >= 1");
      lengths.v.push_back(static_cast<double>(xs.back().shape()[0]));
    }
    opCheck(!xs.empty(), arrayName(a), " is empty; concat needs an element");
    return std::vector<Value>{Value(concat(xs, 0)), fromHost(std::move(lengths))};
  };
  t["TensorArraySplitV3"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    TensorArray& a = open(ctx);
    Tensor x = ctx.in(1);
    std::vector<int64_t> lengths = readInts(ctx, 2, "lengths");
    opCheck(x.rank() >= 1, "the value must be at least a vector, got shape ",
            shapeToString(x.shape()));
    int64_t total = 0;
    for (int64_t n : lengths) {
      opCheck(n >= 0, "lengths holds ", n);
      total += n;
    }
    opCheck(total == x.shape()[0], "lengths sum to ", total, " but the value has shape ",
            shapeToString(x.shape()));
    opCheck(a.dynamicSize || lengths.size() == a.slots.size(), arrayName(a), " has size ",
            a.slots.size(), " but ", lengths.size(), " lengths were given");
    int64_t at = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      std::vector<int64_t> begin(static_cast<size_t>(x.rank()), 0), size = x.shape();
      begin[0] = at;
      size[0] = lengths[i];
      write(a, static_cast<int64_t>(i), slice(x, begin, size));
      at += lengths[i];
    }
    return std::vector<Value>{flow()};
  };
  t["TensorArraySizeV3"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    return one(hostScalar(static_cast<double>(open(ctx).slots.size()), DType::int32));
  };
  t["TensorArrayCloseV3"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    TensorArray& a = ctx.value(0).array();
    a.closed = true;
    a.slots.clear();
    return std::vector<Value>{};
  };
}

}  // namespace glint::graph
