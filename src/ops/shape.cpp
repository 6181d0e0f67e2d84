// Shape ops: transpose, concat, slices, pad, tile, stacking, reverse.
// Every slice-like op (slice, stridedSlice, split, unstack, reverse, the
// gradients of concat and pad) lowers to one kernel, "StridedSlice", whose
// gradient "StridedSliceGrad" scatters dy back into zeros.
#include <algorithm>

#include "glint/backend.h"
#include "glint/ops.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"
#include "src/ops/gradients.h"
#include "src/ops/op_util.h"

namespace glint {

void registerIndexingGradients();  // src/ops/indexing.cpp

namespace {

/// out[i] = x[begin + i * strides] per dimension; begin/strides are already
/// in range for every element of `size`. An identity slice is a view.
Tensor stridedSliceKernel(const Tensor& x, const std::vector<int64_t>& begin,
                          const std::vector<int64_t>& strides, const Shape& size) {
  bool identity = size == x.shape();
  for (size_t d = 0; d < size.size() && identity; ++d) identity = begin[d] == 0 && strides[d] == 1;
  if (identity) return makeView(x, size);
  return runKernel("StridedSlice", {x}, OutputSpec{size, x.dtype()},
                   kernel_attrs::StridedSlice{begin, strides}.attrs());
}

/// The adjoint of stridedSliceKernel: dy scattered into zeros of `shape`.
Tensor stridedSliceGradKernel(const Tensor& dy, const std::vector<int64_t>& begin,
                              const std::vector<int64_t>& strides, const Shape& shape) {
  return runKernel("StridedSliceGrad", {dy}, OutputSpec{shape, dy.dtype()},
                   kernel_attrs::StridedSlice{begin, strides}.attrs());
}

/// Elements [start, start + length) of `axis`, stride 1.
Tensor sliceAlong(const Tensor& x, int axis, int64_t start, int64_t length) {
  std::vector<int64_t> begin(x.rank(), 0), strides(x.rank(), 1);
  begin[axis] = start;
  Shape size = x.shape();
  size[axis] = length;
  return stridedSliceKernel(x, begin, strides, size);
}

Shape withoutAxis(const Shape& shape, int axis) {
  Shape out = shape;
  out.erase(out.begin() + axis);
  return out;
}

/// Axis for inserting a dimension into a rank-`rank` tensor: [-(rank+1), rank].
int insertionAxis(const std::string& op, int64_t axis, int rank) {
  check(axis >= -(rank + 1) && axis <= rank, op, "axis ", axis,
        " is out of range for inserting a dimension into a tensor of rank ", rank,
        ": expected an axis in [", -(rank + 1), ", ", rank, "]");
  return static_cast<int>(axis < 0 ? axis + rank + 1 : axis);
}

bool bit(int mask, int i) { return i < 31 && ((mask >> i) & 1) != 0; }

}  // namespace

Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm) {
  ops::checkTensor("transpose", "x", x);
  int rank = x.rank();
  std::vector<int64_t> p = perm;
  if (p.empty())
    for (int d = rank - 1; d >= 0; --d) p.push_back(d);
  if (static_cast<int>(p.size()) != rank)
    fail("transpose", "perm ", shapeToString(perm), " has ", p.size(), " entries, but x ",
         ops::describe(x), " has rank ", rank);
  std::vector<bool> seen(rank, false);
  for (int64_t a : p) {
    if (!(a >= 0 && a < rank && !seen[a]))
      fail("transpose", "perm ", shapeToString(perm), " is not a permutation of 0..", rank - 1,
           " (x ", ops::describe(x), ")");
    seen[a] = true;
  }
  // When the axes longer than 1 keep their order (a batch of one moved
  // behind the time axis), the elements keep theirs: a view, no copy.
  Shape out(rank);
  bool inOrder = true;
  int64_t lastMoved = -1;
  for (int d = 0; d < rank; ++d) {
    out[d] = x.shape()[p[d]];
    if (out[d] == 1) continue;
    inOrder = inOrder && p[d] > lastMoved;
    lastMoved = p[d];
  }
  if (inOrder) return makeView(x, out);
  return runKernel("Transpose", {x}, OutputSpec{out, x.dtype()}, Attrs().set("perm", p));
}

Tensor concat(const std::vector<Tensor>& xs, int64_t axis) {
  check(!xs.empty(), "concat", "xs is empty: expected at least one tensor");
  for (size_t i = 0; i < xs.size(); ++i)
    ops::checkTensor("concat", "xs[" + std::to_string(i) + "]", xs[i]);
  const Tensor& first = xs[0];
  if (first.rank() <= 0)
    fail("concat", "cannot concatenate scalars (xs[0] is ", ops::describe(first),
         "): reshape them to rank 1 or use stack");
  int ax = normalizeAxis("concat", "axis", axis, first.rank());
  Shape out = first.shape();
  out[ax] = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const Tensor& x = xs[i];
    if (x.dtype() != first.dtype())
      fail("concat", "xs[", i, "] is ", ops::describe(x), " but xs[0] is ", ops::describe(first),
           ": every tensor must share a dtype");
    if (x.rank() != first.rank())
      fail("concat", "xs[", i, "] is ", ops::describe(x), " but xs[0] is ", ops::describe(first),
           ": every tensor must have the same rank");
    for (int d = 0; d < x.rank(); ++d)
      if (!(d == ax || x.shape()[d] == first.shape()[d]))
        fail("concat", "xs[", i, "] ", ops::describe(x), " and xs[0] ", ops::describe(first),
             " differ in dimension ", d, " (", x.shape()[d], " vs ", first.shape()[d],
             "); only axis ", ax, " may differ");
    out[ax] += x.shape()[ax];
  }
  return runKernel("Concat", xs, OutputSpec{out, first.dtype()},
                   kernel_attrs::Axis{int64_t{ax}}.attrs());
}

std::vector<Tensor> split(const Tensor& x, int64_t numSplits, int64_t axis) {
  ops::checkTensor("split", "x", x);
  int ax = normalizeAxis("split", "axis", axis, x.rank());
  int64_t dim = x.shape()[ax];
  check(numSplits > 0, "split", "numSplits must be positive, got ", numSplits);
  if (dim % numSplits != 0)
    fail("split", "numSplits (", numSplits, ") must divide x.shape[", ax, "] (", dim,
         ") evenly: x ", ops::describe(x));
  return split(x, std::vector<int64_t>(numSplits, dim / numSplits), ax);
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis) {
  ops::checkTensor("split", "x", x);
  int ax = normalizeAxis("split", "axis", axis, x.rank());
  int64_t dim = x.shape()[ax];
  check(!sizes.empty(), "split", "sizes is empty: expected at least one part");
  std::vector<int64_t> parts = sizes;
  int inferred = -1;
  int64_t known = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == -1) {
      if (inferred >= 0)
        fail("split", "sizes ", shapeToString(sizes),
             " has more than one -1: at most one size can be inferred");
      inferred = static_cast<int>(i);
    } else {
      if (parts[i] < 0)
        fail("split", "sizes ", shapeToString(sizes), " has a negative size other than -1");
      known += parts[i];
    }
  }
  if (inferred >= 0) {
    if (known > dim)
      fail("split", "sizes ", shapeToString(sizes), " add up to ", known, ", more than x.shape[",
           ax, "] (", dim, "): x ", ops::describe(x));
    parts[inferred] = dim - known;
  } else {
    if (known != dim)
      fail("split", "sizes ", shapeToString(sizes), " add up to ", known,
           ", but must add up to x.shape[", ax, "] (", dim, "): x ", ops::describe(x));
  }
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t n : parts) {
    out.push_back(sliceAlong(x, ax, start, n));
    start += n;
  }
  return out;
}

Tensor slice(const Tensor& x, const std::vector<int64_t>& begin, const std::vector<int64_t>& size) {
  ops::checkTensor("slice", "x", x);
  int rank = x.rank();
  if (!(begin.size() <= static_cast<size_t>(rank) && size.size() <= static_cast<size_t>(rank)))
    fail("slice", "begin ", shapeToString(begin), " and size ", shapeToString(size),
         " may have at most one entry per dimension of x ", ops::describe(x));
  std::vector<int64_t> b(rank), strides(rank, 1);
  Shape out(rank);
  for (int d = 0; d < rank; ++d) {
    int64_t dim = x.shape()[d];
    b[d] = d < static_cast<int>(begin.size()) ? begin[d] : 0;
    int64_t s = d < static_cast<int>(size.size()) ? size[d] : -1;
    if (!(b[d] >= 0 && b[d] <= dim))
      fail("slice", "begin[", d, "] = ", b[d], " is out of range for dimension ", d, " of x ",
           ops::describe(x), ": expected 0..", dim);
    if (s == -1) s = dim - b[d];
    check(s >= 0, "slice", "size[", d, "] = ", s,
          " is negative (only -1, meaning 'to the end',"
          " is allowed)");
    if (b[d] + s > dim)
      fail("slice", "begin[", d, "] + size[", d, "] = ", b[d] + s,
           " is out of bounds for dimension ", d, " of x ", ops::describe(x));
    out[d] = s;
  }
  return stridedSliceKernel(x, b, strides, out);
}

Tensor stridedSlice(const Tensor& x, const std::vector<int64_t>& begin,
                    const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                    int beginMask, int endMask, int ellipsisMask, int newAxisMask,
                    int shrinkAxisMask) {
  const std::string op = "stridedSlice";
  ops::checkTensor(op, "x", x);
  std::vector<int64_t> st = strides.empty() ? std::vector<int64_t>(begin.size(), 1) : strides;
  if (!(begin.size() == end.size() && begin.size() == st.size()))
    fail(op, "begin ", shapeToString(begin), ", end ", shapeToString(end), " and strides ",
         shapeToString(st), " must have the same length");
  const int n = static_cast<int>(begin.size());
  check(n <= 30, op, "at most 30 slice entries are supported, got ", n);
  int ellipses = 0, newAxesAfterEllipsis = 0;
  for (int i = 0; i < n; ++i) {
    if (ellipses > 0 && bit(newAxisMask, i)) ++newAxesAfterEllipsis;
    if (bit(ellipsisMask, i)) ++ellipses;
  }
  check(ellipses <= 1, op, "ellipsisMask ", ellipsisMask,
        " has more than one bit set: at most one ellipsis is allowed");
  // Without an ellipsis, an implicit one at the end keeps the trailing dimensions.
  const int entries = ellipses ? n : n + 1;

  // Dense spec: one entry per dimension of x; `kept` lists the result's
  // dimensions (-1 = a new axis), shrunk dimensions dropped.
  const int rank = x.rank();
  struct Dense {
    int64_t begin = 0, end = 0, stride = 1;
    bool beginMasked = true, endMasked = true, shrink = false;
    int entry = -1;
  };
  std::vector<Dense> dense(rank);
  std::vector<int> kept;
  int full = 0;
  for (int i = 0; i < entries; ++i) {
    if (i == n || bit(ellipsisMask, i)) {
      int next = std::min(rank - (entries - i) + 1 + newAxesAfterEllipsis, rank);
      for (; full < next; ++full) kept.push_back(full);
    } else if (bit(newAxisMask, i)) {
      kept.push_back(-1);
    } else {
      if (full >= rank)
        fail(op, "begin ", shapeToString(begin), " indexes more dimensions than x ",
             ops::describe(x), " has (masks: ellipsis ", ellipsisMask, ", newAxis ", newAxisMask,
             ")");
      check(st[i] != 0, op, "strides[", i, "] is 0: strides must be non-zero");
      dense[full] = Dense{
          begin[i], end[i], st[i], bit(beginMask, i), bit(endMask, i), bit(shrinkAxisMask, i), i};
      if (!dense[full].shrink) kept.push_back(full);
      ++full;
    }
  }

  std::vector<int64_t> outBegin(rank), outStrides(rank);
  Shape size(rank);
  for (int d = 0; d < rank; ++d) {
    const Dense& s = dense[d];
    int64_t dim = x.shape()[d];
    outStrides[d] = s.stride;
    if (s.shrink) {
      check(s.stride > 0, op, "strides[", s.entry, "] = ", s.stride,
            " must be positive where shrinkAxisMask is set");
      int64_t b = s.begin < 0 ? s.begin + dim : s.begin;
      if (!(b >= 0 && b < dim))
        fail(op, "begin[", s.entry, "] = ", s.begin, " is out of range for dimension ", d, " of x ",
             ops::describe(x), " (shrinkAxisMask selects one index): expected ", -dim, "..",
             dim - 1);
      outBegin[d] = b;
      size[d] = 1;
      continue;
    }
    // TF's canonicalization: masked ends take the full range in the stride's
    // direction; others count from the end when negative, then clamp.
    const int64_t lo = s.stride > 0 ? 0 : -1, hi = s.stride > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t v, bool masked, bool isEnd) {
      if (masked) return (s.stride > 0) == isEnd ? hi : lo;
      return std::clamp(v < 0 ? v + dim : v, lo, hi);
    };
    int64_t b = canonical(s.begin, s.beginMasked, false);
    int64_t e = canonical(s.end, s.endMasked, true);
    int64_t len = e - b;
    int64_t count = (len == 0 || (len < 0) != (s.stride < 0))
                        ? 0
                        : len / s.stride + (len % s.stride != 0 ? 1 : 0);
    outBegin[d] = count > 0 ? b : 0;
    size[d] = count;
  }
  Shape finalShape;
  for (int d : kept) finalShape.push_back(d < 0 ? 1 : size[d]);
  Tensor y = stridedSliceKernel(x, outBegin, outStrides, size);
  return finalShape == size ? y : reshape(y, finalShape);
}

Tensor pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& paddings,
           float constantValue) {
  ops::checkTensor("pad", "x", x);
  if (paddings.size() != static_cast<size_t>(x.rank()))
    fail("pad", "paddings has ", paddings.size(), " entries, but x ", ops::describe(x),
         " has rank ", x.rank(), ": expected one (before, after) pair per dimension");
  std::vector<int64_t> flat;
  Shape out = x.shape();
  for (size_t d = 0; d < paddings.size(); ++d) {
    auto [before, after] = paddings[d];
    if (!(before >= 0 && after >= 0))
      fail("pad", "paddings[", d, "] = (", before, ", ", after,
           ") is negative: padding must be >= 0 (x ", ops::describe(x), ")");
    flat.push_back(before);
    flat.push_back(after);
    out[d] += before + after;
  }
  return runKernel("PadV2", {x}, OutputSpec{out, x.dtype()},
                   Attrs().set("paddings", flat).set("constantValue", constantValue));
}

Tensor tile(const Tensor& x, const std::vector<int64_t>& reps) {
  ops::checkTensor("tile", "x", x);
  if (reps.size() != static_cast<size_t>(x.rank()))
    fail("tile", "reps ", shapeToString(reps), " has ", reps.size(), " entries, but x ",
         ops::describe(x), " has rank ", x.rank());
  Shape out = x.shape();
  for (size_t d = 0; d < reps.size(); ++d) {
    if (reps[d] < 0)
      fail("tile", "reps[", d, "] = ", reps[d], " is negative: reps ", shapeToString(reps));
    out[d] *= reps[d];
  }
  return runKernel("Tile", {x}, OutputSpec{out, x.dtype()}, Attrs().set("reps", reps));
}

Tensor expandDims(const Tensor& x, int64_t axis) {
  ops::checkTensor("expandDims", "x", x);
  int ax = insertionAxis("expandDims", axis, x.rank());
  Shape out = x.shape();
  out.insert(out.begin() + ax, 1);
  return reshape(x, out);
}

Tensor squeeze(const Tensor& x, const std::vector<int64_t>& axes) {
  ops::checkTensor("squeeze", "x", x);
  std::vector<int> drop;
  if (axes.empty()) {
    for (int d = 0; d < x.rank(); ++d)
      if (x.shape()[d] == 1) drop.push_back(d);
  } else {
    drop = normalizeAxes("squeeze", "axes", axes, x.rank());
    for (int d : drop)
      if (x.shape()[d] != 1)
        fail("squeeze", "cannot squeeze axis ", d, " of x ", ops::describe(x), ": its size is ",
             x.shape()[d], ", not 1");
  }
  Shape out;
  for (int d = 0; d < x.rank(); ++d)
    if (std::find(drop.begin(), drop.end(), d) == drop.end()) out.push_back(x.shape()[d]);
  return reshape(x, out);
}

Tensor stack(const std::vector<Tensor>& xs, int64_t axis) {
  check(!xs.empty(), "stack", "xs is empty: expected at least one tensor");
  for (size_t i = 0; i < xs.size(); ++i) {
    ops::checkTensor("stack", "xs[" + std::to_string(i) + "]", xs[i]);
    if (!(xs[i].shape() == xs[0].shape() && xs[i].dtype() == xs[0].dtype()))
      fail("stack", "xs[", i, "] is ", ops::describe(xs[i]), " but xs[0] is ", ops::describe(xs[0]),
           ": every tensor must have the same shape and dtype");
  }
  int ax = insertionAxis("stack", axis, xs[0].rank());
  std::vector<Tensor> expanded;
  for (const Tensor& x : xs) expanded.push_back(expandDims(x, ax));
  return expanded.size() == 1 ? expanded[0] : concat(expanded, ax);
}

std::vector<Tensor> unstack(const Tensor& x, int64_t axis) {
  ops::checkTensor("unstack", "x", x);
  int ax = normalizeAxis("unstack", "axis", axis, x.rank());
  Shape partShape = withoutAxis(x.shape(), ax);
  std::vector<Tensor> out;
  for (int64_t i = 0; i < x.shape()[ax]; ++i)
    out.push_back(reshape(sliceAlong(x, ax, i, 1), partShape));
  return out;
}

Tensor reverse(const Tensor& x, const std::vector<int64_t>& axes) {
  ops::checkTensor("reverse", "x", x);
  std::vector<int> flip = normalizeAxes("reverse", "axes", axes, x.rank());
  std::vector<int64_t> begin(x.rank(), 0), strides(x.rank(), 1);
  for (int d : flip) {
    // An empty dimension stays empty; begin 0 keeps the attrs in range.
    begin[d] = std::max<int64_t>(x.shape()[d] - 1, 0);
    strides[d] = -1;
  }
  return stridedSliceKernel(x, begin, strides, x.shape());
}

void registerShapeGradients() {
  GLINT_REGISTER(registerGradient, "Transpose",
                 [](const std::vector<Tensor>& dys, const GradContext& ctx) {
                   const std::vector<int64_t>& perm = ctx.attrs.ints("perm");
                   std::vector<int64_t> inverse(perm.size());
                   for (size_t d = 0; d < perm.size(); ++d)
                     inverse[perm[d]] = static_cast<int64_t>(d);
                   return std::vector<Tensor>{transpose(dys[0], inverse)};
                 });
  GLINT_REGISTER(registerGradient, "Concat",
                 [](const std::vector<Tensor>& dys, const GradContext& ctx) {
                   int axis = static_cast<int>(kernel_attrs::Axis::read(ctx.attrs).axis);
                   std::vector<Tensor> out;
                   int64_t start = 0;
                   for (const Tensor& x : ctx.inputs) {
                     out.push_back(sliceAlong(dys[0], axis, start, x.shape()[axis]));
                     start += x.shape()[axis];
                   }
                   return out;
                 });
  GLINT_REGISTER(
      registerGradient, "StridedSlice", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
        const kernel_attrs::StridedSlice slice = kernel_attrs::StridedSlice::read(ctx.attrs);
        return std::vector<Tensor>{
            stridedSliceGradKernel(dys[0], slice.begin, slice.strides, ctx.inputs[0].shape())};
      });
  // Linear in dy: its adjoint is the slice itself (grad of grad).
  GLINT_REGISTER(registerGradient, "StridedSliceGrad",
                 [](const std::vector<Tensor>& dys, const GradContext& ctx) {
                   const kernel_attrs::StridedSlice slice =
                       kernel_attrs::StridedSlice::read(ctx.attrs);
                   return std::vector<Tensor>{stridedSliceKernel(dys[0], slice.begin, slice.strides,
                                                                 ctx.inputs[0].shape())};
                 });
  GLINT_REGISTER(
      registerGradient, "PadV2", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
        const std::vector<int64_t>& paddings = ctx.attrs.ints("paddings");
        const Tensor& x = ctx.inputs[0];
        std::vector<int64_t> begin(x.rank()), strides(x.rank(), 1);
        for (int d = 0; d < x.rank(); ++d) begin[d] = paddings[2 * d];
        return std::vector<Tensor>{stridedSliceKernel(dys[0], begin, strides, x.shape())};
      });
  GLINT_REGISTER(
      registerGradient, "Tile", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
        // dy viewed as [r0, d0, r1, d1, ...]: summing the r axes adds up the copies.
        const Tensor& x = ctx.inputs[0];
        const std::vector<int64_t>& reps = ctx.attrs.ints("reps");
        if (x.rank() == 0) return std::vector<Tensor>{dys[0]};
        Shape split;
        std::vector<int64_t> repAxes;
        for (int d = 0; d < x.rank(); ++d) {
          repAxes.push_back(static_cast<int64_t>(split.size()));
          split.push_back(reps[d]);
          split.push_back(x.shape()[d]);
        }
        return std::vector<Tensor>{reshape(sum(reshape(dys[0], split), repAxes), x.shape())};
      });
  registerIndexingGradients();
}

}  // namespace glint
