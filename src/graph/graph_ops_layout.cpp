// Layout ops of graph models: blocks moved between space and depth or batch,
// broadcasting, mirrored padding, reversal, band masks and einsum. Each is a
// composition of Glint's reshape, transpose, pad, slice and matmul, so it
// runs on every backend and its gradient comes from theirs.
#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>

#include "glint/ops.h"
#include "src/graph/graph_internal.h"

namespace glint::graph {

namespace {

// Positive entries whose product stays far from overflow (a batch of blocks).
void checkBlocks(const std::vector<int64_t>& v, const char* what) {
  int64_t product = 1;
  for (int64_t d : v) {
    opCheck(d > 0 && d <= (int64_t{1} << 31) / product, what,
            " must be positive with a product below 2^31, got ",
            shapeToString(Shape(v.begin(), v.end())));
    product *= d;
  }
}

// [n, h, w, c] (or [n, c, h, w]) -> blocks of c / (b * b) channels spread
// over b x b pixels, in TF's depth-column-row order.
Tensor depthToSpace(const Tensor& x, int64_t b, bool nchw) {
  opCheck(x.rank() == 4, "input must have rank 4, got shape ", shapeToString(x.shape()));
  const Shape& s = x.shape();
  int64_t n = s[0], c = nchw ? s[1] : s[3], h = nchw ? s[2] : s[1], w = nchw ? s[3] : s[2];
  // b * b <= c, tested without forming b * b, which a hostile b overflows.
  opCheck(b >= 2 && b <= c / b, "block_size must be at least 2 and its square at most the depth ",
          c, " of shape ", shapeToString(s), ", got ", b);
  opCheck(c % (b * b) == 0, "the depth ", c, " of shape ", shapeToString(s),
          " is not divisible by block_size * block_size = ", b * b);
  int64_t d = c / (b * b);
  if (nchw)
    return reshape(transpose(reshape(x, {n, b, b, d, h, w}), {0, 3, 4, 1, 5, 2}),
                   {n, d, h * b, w * b});
  return reshape(transpose(reshape(x, {n, h, w, b, b, d}), {0, 1, 3, 2, 4, 5}),
                 {n, h * b, w * b, d});
}

// The [m, 2] pairs of SpaceToBatchND's paddings or BatchToSpaceND's crops.
std::vector<std::pair<int64_t, int64_t>> pairs(const NodeContext& ctx, size_t i, size_t m,
                                               const char* what) {
  const HostValue& h = ctx.host(i, what);
  opCheck(h.shape == Shape{static_cast<int64_t>(m), 2}, what, " must have shape [", m, ", 2] for ",
          m, " block dimensions, got ", shapeToString(h.shape));
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t k = 0; k < m; ++k) {
    auto a = static_cast<int64_t>(h.v[2 * k]), b = static_cast<int64_t>(h.v[2 * k + 1]);
    opCheck(a >= 0 && b >= 0, what, " must not be negative, got ", a, " and ", b);
    out.emplace_back(a, b);
  }
  return out;
}

std::vector<int64_t> blockShape(const NodeContext& ctx, const Tensor& x) {
  std::vector<int64_t> block = ctx.ints(1, "block_shape");
  opCheck(!block.empty() && static_cast<int64_t>(block.size()) < x.rank(), "block_shape ",
          shapeToString(Shape(block.begin(), block.end())), " needs 1 to rank - 1 = ", x.rank() - 1,
          " entries for input shape ", shapeToString(x.shape()));
  checkBlocks(block, "block_shape");
  return block;
}

// Pads the m spatial dimensions, then moves each block offset into the batch:
// [b, p1, .., pm, rest] -> [b * prod(block), p1 / b1, .., pm / bm, rest].
Tensor spaceToBatch(const NodeContext& ctx) {
  Tensor x = ctx.in(0);
  std::vector<int64_t> block = blockShape(ctx, x);
  size_t m = block.size();
  auto pads = pairs(ctx, 2, m, "paddings");
  std::vector<std::pair<int64_t, int64_t>> all(static_cast<size_t>(x.rank()), {0, 0});
  for (size_t i = 0; i < m; ++i) all[i + 1] = pads[i];
  Tensor p = pad(x, all);
  const Shape& s = p.shape();
  Shape split{s[0]};
  Shape out{s[0]};
  for (size_t i = 0; i < m; ++i) {
    opCheck(s[i + 1] % block[i] == 0, "padded size ", s[i + 1], " of dimension ", i + 1,
            " is not divisible by block_shape[", i, "] = ", block[i], " (input shape ",
            shapeToString(x.shape()), ")");
    split.push_back(s[i + 1] / block[i]);
    split.push_back(block[i]);
    out[0] *= block[i];
    out.push_back(s[i + 1] / block[i]);
  }
  std::vector<int64_t> perm;
  for (size_t i = 0; i < m; ++i) perm.push_back(static_cast<int64_t>(2 * i + 2));
  perm.push_back(0);
  for (size_t i = 0; i < m; ++i) perm.push_back(static_cast<int64_t>(2 * i + 1));
  for (size_t i = m + 1; i < s.size(); ++i) {
    split.push_back(s[i]);
    out.push_back(s[i]);
    perm.push_back(static_cast<int64_t>(split.size()) - 1);
  }
  return reshape(transpose(reshape(p, split), perm), out);
}

// The inverse: [b * prod(block), s1, .., sm, rest] -> [b, s1 * b1, .., rest],
// then the crops cut off.
Tensor batchToSpace(const NodeContext& ctx) {
  Tensor x = ctx.in(0);
  std::vector<int64_t> block = blockShape(ctx, x);
  size_t m = block.size();
  auto crops = pairs(ctx, 2, m, "crops");
  const Shape& s = x.shape();
  int64_t prod = 1;
  for (int64_t b : block) prod *= b;
  opCheck(s[0] % prod == 0, "batch ", s[0], " of shape ", shapeToString(s),
          " is not divisible by the product of block_shape, ", prod);
  Shape split(block.begin(), block.end());
  split.push_back(s[0] / prod);
  for (size_t i = 1; i < s.size(); ++i) split.push_back(s[i]);
  std::vector<int64_t> perm{static_cast<int64_t>(m)};
  Shape merged{s[0] / prod};
  for (size_t i = 0; i < m; ++i) {
    perm.push_back(static_cast<int64_t>(m + 1 + i));
    perm.push_back(static_cast<int64_t>(i));
    merged.push_back(s[i + 1] * block[i]);
  }
  for (size_t i = m + 1; i < s.size(); ++i) {
    perm.push_back(static_cast<int64_t>(m + i));
    merged.push_back(s[i]);
  }
  Tensor y = reshape(transpose(reshape(x, split), perm), merged);
  std::vector<int64_t> begin(merged.size(), 0), size(merged.begin(), merged.end());
  for (size_t i = 0; i < m; ++i) {
    auto [a, b] = crops[i];
    opCheck(a + b <= merged[i + 1], "crops ", a, " + ", b, " exceed dimension ", i + 1, " of size ",
            merged[i + 1]);
    begin[i + 1] = a;
    size[i + 1] = merged[i + 1] - a - b;
  }
  return slice(y, begin, size);
}

// x repeated along its size-1 dimensions (and new leading ones) up to `shape`.
Value broadcastTo(const Value& v, const std::vector<int64_t>& shape) {
  const Shape& s = v.shape();
  opCheck(s.size() <= shape.size(), "cannot broadcast shape ", shapeToString(s), " to ",
          shapeToString(Shape(shape.begin(), shape.end())), ": the target has lower rank");
  size_t lead = shape.size() - s.size();
  Shape padded(lead, 1);
  padded.insert(padded.end(), s.begin(), s.end());
  std::vector<int64_t> reps(shape.size(), 1);
  for (size_t i = 0; i < shape.size(); ++i) {
    opCheck(shape[i] >= 0, "shape ", shapeToString(Shape(shape.begin(), shape.end())),
            " has a negative size");
    opCheck(padded[i] == shape[i] || padded[i] == 1, "cannot broadcast shape ", shapeToString(s),
            " to ", shapeToString(Shape(shape.begin(), shape.end())));
    if (padded[i] != shape[i]) reps[i] = shape[i];
  }
  Shape target(shape.begin(), shape.end());
  if (v.isHost() && shapeSize(target) <= kMaxHostElements) {
    const HostValue& h = v.host();
    HostValue out{target, h.dtype, std::vector<double>(static_cast<size_t>(shapeSize(target)))};
    for (int64_t i = 0; i < shapeSize(target); ++i) {
      int64_t rest = i, src = 0, stride = 1;
      for (size_t d = target.size(); d-- > 0;) {
        int64_t at = rest % target[d];
        rest /= target[d];
        if (padded[d] != 1) src += at * stride;
        stride *= padded[d];
      }
      out.v[static_cast<size_t>(i)] = h.v[static_cast<size_t>(src)];
    }
    return fromHost(std::move(out));
  }
  return Value(tile(reshape(v.tensor(), padded), reps));
}

// One axis of MirrorPad: the mirrored edges joined to x along `axis`.
Tensor mirrorAxis(const Tensor& x, int64_t axis, int64_t before, int64_t after, bool reflect) {
  int64_t n = x.shape()[static_cast<size_t>(axis)];
  int64_t limit = reflect ? n - 1 : n;
  opCheck(before <= limit && after <= limit, "paddings ", before, " and ", after, " of dimension ",
          axis, " exceed ", limit, ", the most ", reflect ? "REFLECT" : "SYMMETRIC",
          " allows for size ", n);
  auto part = [&](int64_t from, int64_t count) {
    std::vector<int64_t> begin(static_cast<size_t>(x.rank()), 0);
    std::vector<int64_t> size(x.shape().begin(), x.shape().end());
    begin[static_cast<size_t>(axis)] = from;
    size[static_cast<size_t>(axis)] = count;
    return reverse(slice(x, begin, size), {axis});
  };
  std::vector<Tensor> pieces;
  int64_t skip = reflect ? 1 : 0;
  if (before > 0) pieces.push_back(part(skip, before));
  pieces.push_back(x);
  if (after > 0) pieces.push_back(part(n - skip - after, after));
  return pieces.size() == 1 ? x : concat(pieces, axis);
}

// The shape an attribute holds ({shape: {dim: [{size}]}}): -1 for unknown sizes.
std::optional<std::vector<int64_t>> attrShape(const NodeContext& ctx, const std::string& name) {
  ElementShape s = attrElementShape(ctx, name);
  if (!s.rankKnown) return std::nullopt;
  return std::vector<int64_t>(s.dims.begin(), s.dims.end());
}

// ---- Einsum ----------------------------------------------------------------

struct Operand {
  Tensor t;
  std::string labels;
};

// Sums away the labels of `a` that `keep` lacks, after checking sizes.
Operand sumOut(Operand a, const std::string& keep, std::map<char, int64_t>& sizes) {
  std::vector<int64_t> axes;
  std::string rest;
  for (size_t i = 0; i < a.labels.size(); ++i) {
    char l = a.labels[i];
    int64_t n = a.t.shape()[i];
    auto [it, fresh] = sizes.emplace(l, n);
    opCheck(fresh || it->second == n, "label '", std::string(1, l), "' has sizes ", it->second,
            " and ", n);
    if (keep.find(l) == std::string::npos) axes.push_back(static_cast<int64_t>(i));
    else rest += l;
  }
  if (!axes.empty()) a = {sum(a.t, axes), rest};
  return a;
}

// a's labels put in `order` (a permutation of them).
Tensor arrange(const Operand& a, const std::string& order) {
  std::vector<int64_t> perm;
  for (char l : order) perm.push_back(static_cast<int64_t>(a.labels.find(l)));
  bool same = true;
  for (size_t i = 0; i < perm.size(); ++i) same = same && perm[i] == static_cast<int64_t>(i);
  return same ? a.t : transpose(a.t, perm);
}

Tensor einsum(const std::string& equation, std::vector<Tensor> xs) {
  size_t arrow = equation.find("->");
  opCheck(arrow != std::string::npos, "equation '", equation,
          "' has no '->': implicit output is not supported");
  opCheck(equation.find("...") == std::string::npos, "equation '", equation,
          "' uses an ellipsis, which is not supported");
  std::string lhs = equation.substr(0, arrow), out = equation.substr(arrow + 2);
  std::vector<std::string> terms;
  for (size_t from = 0;;) {
    size_t comma = lhs.find(',', from);
    terms.push_back(
        lhs.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  opCheck(terms.size() == xs.size() && (xs.size() == 1 || xs.size() == 2), "equation '", equation,
          "' names ", terms.size(), " operands for ", xs.size(), " inputs (1 or 2 are supported)");
  std::map<char, int64_t> sizes;
  std::vector<Operand> ops;
  for (size_t k = 0; k < xs.size(); ++k) {
    const std::string& l = terms[k];
    opCheck(static_cast<int64_t>(l.size()) == xs[k].rank(), "operand ", k, " of '", equation,
            "' has ", l.size(), " labels for shape ", shapeToString(xs[k].shape()));
    for (size_t i = 0; i < l.size(); ++i)
      opCheck(std::isalpha(static_cast<unsigned char>(l[i])) && l.find(l[i]) == i, "operand ", k,
              " of '", equation, "': label '", std::string(1, l[i]),
              "' repeats or is not a letter (diagonals are not supported)");
    ops.push_back({xs[k], l});
  }
  for (char l : out)
    opCheck(lhs.find(l) != std::string::npos && out.find(l) == out.rfind(l), "output label '",
            std::string(1, l), "' of '", equation, "' is repeated or names no input label");
  std::string other = ops.size() == 2 ? ops[1].labels : "";
  // Labels only one operand has and the output lacks are summed first.
  Operand a = sumOut(ops[0], out + other, sizes);
  if (ops.size() == 1) return arrange(a, out);
  Operand b = sumOut(ops[1], out + a.labels, sizes);
  for (char l : a.labels)
    if (b.labels.find(l) != std::string::npos)
      opCheck(sizes[l] == b.t.shape()[b.labels.find(l)], "label '", std::string(1, l),
              "' has different sizes in the two operands");
  std::string batch, freeA, freeB, contracted;
  for (char l : a.labels) {
    bool inB = b.labels.find(l) != std::string::npos, inOut = out.find(l) != std::string::npos;
    (inB ? (inOut ? batch : contracted) : freeA) += l;
  }
  for (char l : b.labels)
    if (a.labels.find(l) == std::string::npos) freeB += l;
  auto product = [&](const std::string& ls) {
    int64_t p = 1;
    for (char l : ls) p *= sizes[l];
    return p;
  };
  int64_t nb = product(batch), na = product(freeA), nB = product(freeB), nc = product(contracted);
  Tensor am = reshape(arrange(a, batch + freeA + contracted), {nb, na, nc});
  Tensor bm = reshape(arrange(b, batch + contracted + freeB), {nb, nc, nB});
  Shape dims;
  for (char l : batch + freeA + freeB) dims.push_back(sizes[l]);
  return arrange({reshape(matMul(am, bm), dims), batch + freeA + freeB}, out);
}

}  // namespace

void addLayoutOps(OpTable& t) {
  t["DepthToSpace"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    std::string format = ctx.attrWord("data_format", "NHWC");
    opCheck(format == "NHWC" || format == "NCHW", "data_format '", format,
            "' is not supported (NHWC or NCHW)");
    return one(depthToSpace(ctx.in(0), ctx.attrInt("block_size", 0), format == "NCHW"));
  };
  t["SpaceToBatchND"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    return one(spaceToBatch(ctx));
  };
  t["BatchToSpaceND"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    return one(batchToSpace(ctx));
  };
  t["BroadcastTo"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    return std::vector<Value>{broadcastTo(ctx.value(0), ctx.ints(1, "shape"))};
  };
  t["BroadcastArgs"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    std::vector<int64_t> a = ctx.ints(0, "s0"), b = ctx.ints(1, "s1");
    Shape s =
        broadcastShapes("BroadcastArgs", Shape(a.begin(), a.end()), Shape(b.begin(), b.end()));
    HostValue h{{static_cast<int64_t>(s.size())}, DType::int32, {}};
    for (int64_t d : s) h.v.push_back(static_cast<double>(d));
    return std::vector<Value>{fromHost(std::move(h))};
  };
  t["MirrorPad"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    Tensor x = ctx.in(0);
    std::string mode = ctx.attrWord("mode", "REFLECT");
    opCheck(mode == "REFLECT" || mode == "SYMMETRIC", "mode '", mode,
            "' is not supported (REFLECT or SYMMETRIC)");
    auto pads = pairs(ctx, 1, static_cast<size_t>(x.rank()), "paddings");
    for (int64_t axis = 0; axis < x.rank(); ++axis) {
      auto [before, after] = pads[static_cast<size_t>(axis)];
      x = mirrorAxis(x, axis, before, after, mode == "REFLECT");
    }
    return one(x);
  };
  t["ReverseV2"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    Tensor x = ctx.in(0);
    std::vector<int64_t> axes = ctx.ints(1, "axis");
    if (axes.empty()) return one(x);  // TF: no axis reverses nothing (Glint's empty is all)
    for (int64_t& a : axes) {
      opCheck(a >= -x.rank() && a < x.rank(), "axis ", a, " is out of range for shape ",
              shapeToString(x.shape()));
      if (a < 0) a += x.rank();
    }
    return one(reverse(x, axes));
  };
  t["Reverse"] = [](NodeContext& ctx) {  // TF 1: one bool per dimension
    ctx.needInputs(2);
    Tensor x = ctx.in(0);
    const HostValue& dims = ctx.host(1, "dims");
    opCheck(static_cast<int64_t>(dims.v.size()) == x.rank(), "dims has ", dims.v.size(),
            " entries for shape ", shapeToString(x.shape()));
    std::vector<int64_t> axes;
    for (size_t i = 0; i < dims.v.size(); ++i)
      if (dims.v[i] != 0) axes.push_back(static_cast<int64_t>(i));
    return one(axes.empty() ? x : reverse(x, axes));
  };
  t["EnsureShape"] = [](NodeContext& ctx) {
    ctx.needInputs(1);
    std::optional<std::vector<int64_t>> want = attrShape(ctx, "shape");
    const Shape& got = ctx.value(0).shape();
    if (want) {
      bool ok = want->size() == got.size();
      for (size_t i = 0; ok && i < got.size(); ++i) ok = (*want)[i] < 0 || (*want)[i] == got[i];
      opCheck(ok, "the input has shape ", shapeToString(got), ", the node requires ",
              shapeToString(Shape(want->begin(), want->end())));
    }
    return std::vector<Value>{ctx.value(0)};
  };
  t["MatrixBandPart"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    Tensor x = ctx.in(0);
    opCheck(x.rank() >= 2, "input must have rank 2 or more, got shape ", shapeToString(x.shape()));
    int64_t lower = ctx.intScalar(1, "num_lower"), upper = ctx.intScalar(2, "num_upper");
    int64_t m = x.shape()[static_cast<size_t>(x.rank() - 2)];
    int64_t n = x.shape()[static_cast<size_t>(x.rank() - 1)];
    std::vector<uint8_t> keep(static_cast<size_t>(m * n));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        keep[static_cast<size_t>(i * n + j)] =
            (lower < 0 || i - j <= lower) && (upper < 0 || j - i <= upper);
    return one(where(tensorBool(keep, {m, n}), x, zerosLike(x)));
  };
  for (const char* name : {"Zeros", "Ones"}) {
    bool ones = std::string(name) == "Ones";
    t[name] = [ones](NodeContext& ctx) {
      ctx.needInputs(1);
      std::vector<int64_t> dims = ctx.ints(0, "shape");
      for (int64_t d : dims)
        opCheck(d >= 0, "shape ", shapeToString(Shape(dims.begin(), dims.end())),
                " has a negative size");
      DType dtype = ctx.attrType("T", ctx.attrType("dtype", DType::float32));
      Shape s(dims.begin(), dims.end());
      return one(ones ? glint::ones(s, dtype) : zeros(s, dtype));
    };
  }
  t["Einsum"] = [](NodeContext& ctx) {
    opCheck(ctx.numInputs() >= 1, "needs at least one input");
    std::vector<Tensor> xs;
    for (size_t i = 0; i < ctx.numInputs(); ++i) xs.push_back(ctx.in(i));
    return one(einsum(ctx.attrString("equation", ""), std::move(xs)));
  };
}

}  // namespace glint::graph
