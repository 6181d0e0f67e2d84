#include "src/backends/gpu/shape.h"

#include "src/backends/gpu/elementwise.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"

namespace glint::gpu {

namespace {

// Sizes, strides and offsets as i32 parameters (where shapeValue() is asked
// for them), numbered in the order the kernel asks for them (the same for
// every call of one structure): one program for every shape.
thread_local bool sizesAsParams = false;
thread_local int nextSize = 0;
E num(int64_t v) {
  return sizesAsParams ? iparam("n" + std::to_string(nextSize++), v) : E(static_cast<int>(v));
}
/// A literal: loop bounds stay literals, which gl checks against llvmpipe's
/// per-loop limit (longestRange).
E lit(int64_t v) { return E(static_cast<int>(v)); }

E input(int k, DType d, E at) {
  return external("in" + std::to_string(k), irType(d), {std::move(at)});
}

/// `v` as a value of dtype d.
E fill(DType d, double v) {
  switch (d) {
    case DType::float32:
      return E(v);
    case DType::int32:
      return E(static_cast<int>(v));
    case DType::boolean:
      return E(v != 0);
  }
  return E(v);
}

/// Lets c0.. = the coordinates of flat index i in `shape`.
std::vector<E> coords(Fn& f, const Shape& shape) {
  std::vector<int64_t> strides = stridesOf(shape);
  std::vector<E> c;
  E rest = f.arg(0);
  for (size_t d = 0; d < shape.size(); ++d) {
    std::string name = "c" + std::to_string(d);
    if (d + 1 == shape.size()) {
      c.push_back(f.let(name, rest));
    } else {
      c.push_back(f.let(name, idiv(rest, num(strides[d]))));
      rest = f.let(name + "_rest", rest - c.back() * num(strides[d]));
    }
  }
  return c;
}

/// One output axis of a strided copy: its extent and how many input elements
/// one step along it moves.
struct Axis {
  int64_t size;
  int64_t step;
};

/// value(i) = in0(base + sum c_d * step_d) over the output coordinates c.
/// Size-1 axes are dropped and neighbours that walk the input contiguously
/// merged, so a copy of contiguous runs costs one division per run level
/// (an identity transpose or a slice of whole rows none).
void stridedCopy(Fn& f, DType dtype, int64_t base, const std::vector<Axis>& axes) {
  std::vector<Axis> merged;
  for (const Axis& ax : axes) {
    if (ax.size == 1) continue;
    if (!merged.empty() && merged.back().step == ax.size * ax.step)
      merged.back() = Axis{merged.back().size * ax.size, ax.step};
    else merged.push_back(ax);
  }
  int64_t inner = 1;
  for (const Axis& ax : merged) inner *= ax.size;
  E rest = f.arg(0);
  E off = num(base);
  for (size_t d = 0; d < merged.size(); ++d) {
    inner /= merged[d].size;
    if (d + 1 == merged.size()) {
      off = off + (merged[d].step == 1 ? rest : rest * num(merged[d].step));
    } else {
      E q = f.let("q" + std::to_string(d), idiv(rest, num(inner)));
      rest = f.let("r" + std::to_string(d), rest - q * num(inner));
      off = off + q * num(merged[d].step);
    }
  }
  f.ret(input(0, dtype, off));
}

void transpose(Fn& f, const ShapeArgs& a) {
  const auto& perm = a.attrs.ints("perm");
  std::vector<int64_t> xs = stridesOf(a.in[0]);
  std::vector<Axis> axes;
  for (size_t d = 0; d < perm.size(); ++d) axes.push_back({a.out[d], xs[perm[d]]});
  stridedCopy(f, a.outType, 0, axes);
}

void stridedSlice(Fn& f, const ShapeArgs& a) {
  const kernel_attrs::StridedSlice slice = kernel_attrs::StridedSlice::read(a.attrs);
  const std::vector<int64_t>& begin = slice.begin;
  const std::vector<int64_t>& strides = slice.strides;
  std::vector<int64_t> xs = stridesOf(a.in[0]);
  int64_t base = 0;
  std::vector<Axis> axes;
  for (size_t d = 0; d < begin.size(); ++d) {
    base += begin[d] * xs[d];
    axes.push_back({a.out[d], strides[d] * xs[d]});
  }
  stridedCopy(f, a.outType, base, axes);
}

/// Zeros of the input shape, dy where the slice read: coordinate c came from
/// dy index (c - begin) / stride when that divides exactly and is in range.
/// (A zero fill plus a scatter would race on packed bools; each output
/// element deciding for itself does not.)
void stridedSliceGrad(Fn& f, const ShapeArgs& a) {
  const Shape& dy = a.in[0];
  const kernel_attrs::StridedSlice slice = kernel_attrs::StridedSlice::read(a.attrs);
  const std::vector<int64_t>& begin = slice.begin;
  const std::vector<int64_t>& strides = slice.strides;
  std::vector<int64_t> ds = stridesOf(dy);
  std::vector<E> c = coords(f, a.out);
  E off = f.var("off", 0);
  for (size_t d = 0; d < begin.size(); ++d) {
    int64_t st = strides[d];
    // Distances measured along the stride's direction stay non-negative.
    E delta =
        f.let("delta" + std::to_string(d), st > 0 ? c[d] - num(begin[d]) : num(begin[d]) - c[d]);
    E as = num(st > 0 ? st : -st);
    f.ifReturn(delta < 0 || imod(delta, as) != 0, zero(a.dtypes[0]));
    E q = f.let("q" + std::to_string(d), idiv(delta, as));
    f.ifReturn(q >= num(dy[d]), zero(a.dtypes[0]));
    f.assign(off, off + q * num(ds[d]));
  }
  f.ret(input(0, a.dtypes[0], off));
}

void pad(Fn& f, const ShapeArgs& a) {
  const Shape& x = a.in[0];
  const auto& paddings = a.attrs.ints("paddings");
  E value = fill(a.dtypes[0], a.attrs.f("constantValue"));
  std::vector<int64_t> xs = stridesOf(x);
  std::vector<E> c = coords(f, a.out);
  E off = f.var("off", 0);
  for (size_t d = 0; d < x.size(); ++d) {
    E p = f.let("p" + std::to_string(d), c[d] - num(paddings[2 * d]));
    f.ifReturn(p < 0 || p >= num(x[d]), value);
    f.assign(off, off + p * num(xs[d]));
  }
  f.ret(input(0, a.dtypes[0], off));
}

void tile(Fn& f, const ShapeArgs& a) {
  const Shape& x = a.in[0];
  std::vector<int64_t> xs = stridesOf(x);
  std::vector<E> c = coords(f, a.out);
  E off = num(0);
  for (size_t d = 0; d < x.size(); ++d)
    if (x[d] != 1) off = off + imod(c[d], num(x[d])) * num(xs[d]);
  f.ret(input(0, a.dtypes[0], off));
}

/// x as [outer, n, inner], out as [outer, m, inner]; out-of-range indices give 0.
void gather(Fn& f, const ShapeArgs& a) {
  const Shape& x = a.in[0];
  int axis = static_cast<int>(kernel_attrs::Axis::read(a.attrs).axis);
  int64_t m = shapeSize(a.in[1]), n = x[axis], inner = 1;
  for (size_t d = axis + 1; d < x.size(); ++d) inner *= x[d];
  E e = f.arg(0);
  E q = f.let("q", idiv(e, num(inner)));
  E k = f.let("k", e - q * num(inner));
  E o = f.let("o", idiv(q, num(m)));
  E j = f.let("j", q - o * num(m));
  E row = f.let("row", input(1, a.dtypes[1], j));
  f.ifReturn(row < 0 || row >= num(n), zero(a.dtypes[0]));
  f.ret(input(0, a.dtypes[0], (o * num(n) + row) * num(inner) + k));
}

/// out[s, k] sums the rows j of x whose id is s (Kahan-compensated for
/// floats). Each output element loops over the ids: no float atomics are
/// needed, and the order is deterministic.
void unsortedSegmentSum(Fn& f, const ShapeArgs& a) {
  int64_t segments = a.attrs.i("numSegments");
  int64_t inner = segments == 0 ? 0 : shapeSize(a.out) / segments;
  bool isFloat = a.dtypes[0] == DType::float32;
  E e = f.arg(0);
  E seg = f.let("seg", idiv(e, num(inner)));
  E k = f.let("k", e - seg * num(inner));
  E acc = f.var("acc", zero(a.dtypes[0]));
  E comp = isFloat ? f.var("comp", 0.0) : E();
  f.forRange("j", 0, lit(shapeSize(a.in[1])), [&](E j) {
    f.ifElse(input(1, a.dtypes[1], j) == seg, [&] {
      E v = input(0, a.dtypes[0], j * num(inner) + k);
      if (!isFloat) return f.assign(acc, acc + v);  // wraps (GLSL: through uint)
      E y = f.let("y", v - comp);
      E t = f.let("t", acc + y);
      f.assign(comp, (t - acc) - y);
      f.assign(acc, t);
    });
  });
  f.ret(acc);
}

void oneHot(Fn& f, const ShapeArgs& a) {
  int64_t depth = a.attrs.i("depth");
  E e = f.arg(0);
  E j = f.let("j", idiv(e, num(depth)));
  f.ret(select(input(0, a.dtypes[0], j) == e - j * num(depth), E(a.attrs.f("onValue")),
               E(a.attrs.f("offValue"))));
}

}  // namespace

Fn shapeValue(ShapeKernel kernel, const std::vector<Tensor>& inputs, const Tensor& out,
              const Attrs& attrs, bool asParams) {
  ShapeArgs args{{}, {}, out.shape(), out.dtype(), attrs};
  for (const Tensor& t : inputs) {
    args.in.push_back(t.shape());
    args.dtypes.push_back(t.dtype());
  }
  Fn value("value", irType(out.dtype()), {{"i", Type::i32}});
  sizesAsParams = asParams;
  nextSize = 0;
  kernel(value, args);
  return value;
}

void shapeKernels(const std::function<void(const char*, ShapeKernel)>& add) {
  GLINT_REGISTER(add, "Transpose", transpose);
  GLINT_REGISTER(add, "StridedSlice", stridedSlice);
  GLINT_REGISTER(add, "StridedSliceGrad", stridedSliceGrad);
  GLINT_REGISTER(add, "PadV2", pad);
  GLINT_REGISTER(add, "Tile", tile);
  GLINT_REGISTER(add, "GatherV2", gather);
  GLINT_REGISTER(add, "UnsortedSegmentSum", unsortedSegmentSum);
  GLINT_REGISTER(add, "OneHot", oneHot);
}

}  // namespace glint::gpu
