// Generators for shape and indexing kernels (transpose, concat, stack and
// unstack, slices with strides and masks, pad, tile, gather, oneHot,
// segment sums), logic, the fused kernels (fusedMatMul with every fusable
// activation, softmax cross-entropy, argMaxEqual), the recurrent cells and
// the optimizer updates.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "glint/fused_ops.h"
#include "glint/optim_ops.h"
#include "glint/rnn_ops.h"
#include "tests/kernel_fuzz/fuzz_case.h"

namespace glint::kfuzz {

namespace {

Tensor flat(const Tensor& t) { return reshape(t, {-1}); }

Shape shapeFrom(const Knobs& k, size_t at, int64_t rank) {
  return Shape(k.begin() + static_cast<std::ptrdiff_t>(at),
               k.begin() + static_cast<std::ptrdiff_t>(at) + rank);
}
bool positive(const Shape& s) {
  return std::all_of(s.begin(), s.end(), [](int64_t d) { return d >= 1; });
}

const char* kShapeOps[] = {"transpose",    "concat", "stack", "unstack", "slice",
                           "stridedSlice", "pad",    "tile",  "gather",  "reverse"};

// knobs: op, rank, d0..d5, a, b, c (op arguments drawn as integers), valueClass, seed
const Register shapeOps({
    "shape",
    {"Transpose", "Concat", "Unpack", "StridedSlice", "StridedSliceGrad", "PadV2", "Tile",
     "GatherV2", "UnsortedSegmentSum"},
    [](Rng& r) {
      int64_t rank = drawInt(r, 1, 6);
      Knobs k{drawInt(r, 0, static_cast<int64_t>(std::size(kShapeOps)) - 1), rank};
      Shape s;
      for (int64_t i = 0; i < rank; ++i) s.push_back(drawSize(r, i + 1 == rank ? 40 : 7));
      while (numElements(s) > 4096)
        for (auto& d : s) d = std::max<int64_t>(1, d / 2);
      for (int64_t i = 0; i < 6; ++i) k.push_back(i < rank ? s[i] : 1);
      k.push_back(static_cast<int64_t>(r() >> 33));
      k.push_back(static_cast<int64_t>(r() >> 33));
      k.push_back(static_cast<int64_t>(r() >> 33));
      k.push_back(drawInt(r, 0, 1));
      k.push_back(static_cast<int64_t>(r() >> 1));
      return k;
    },
    [](const Knobs& k) -> std::optional<Call> {
      if (k[0] < 0 || k[0] >= static_cast<int64_t>(std::size(kShapeOps))) return std::nullopt;
      int64_t rank = k[1];
      if (rank < 1 || rank > 6) return std::nullopt;
      Shape s = shapeFrom(k, 2, rank);
      if (!positive(s)) return std::nullopt;
      std::string op = kShapeOps[k[0]];
      uint64_t p = static_cast<uint64_t>(k[8]), q = static_cast<uint64_t>(k[9]),
               u = static_cast<uint64_t>(k[10]);
      int64_t axis = static_cast<int64_t>(p % static_cast<uint64_t>(rank));
      bool negAxis = q & 1;
      int64_t signedAxis = negAxis ? axis - rank : axis;
      uint64_t seed = static_cast<uint64_t>(k[12]);
      Call call;
      call.inputs = {floats(s, k[11] ? kQuarters : kUniform, seed)};
      call.tags = {"rank" + std::to_string(rank)};
      if (negAxis) call.tags.push_back("negativeAxis");
      std::string args;
      if (op == "transpose") {
        std::vector<int64_t> perm(static_cast<size_t>(rank));
        std::iota(perm.begin(), perm.end(), 0);
        Rng pr(p);
        std::shuffle(perm.begin(), perm.end(), pr);
        call.fn = [perm](const std::vector<Tensor>& x) { return transpose(x[0], perm); };
        for (int64_t v : perm) args += std::to_string(v) + " ";
        call.spec = {{"op", "transpose"}, {"attrs", {{"perm", perm}}}};
      } else if (op == "concat" || op == "stack") {
        int64_t pieces = 1 + static_cast<int64_t>(u % 20);  // many pieces: gl's multi-piece path
        for (int64_t i = 1; i < pieces; ++i) {
          Shape si = s;
          if (op == "concat")
            si[static_cast<size_t>(axis)] = 1 + static_cast<int64_t>((q >> (i % 16)) % 5);
          call.inputs.push_back(floats(si, kUniform, seed + static_cast<uint64_t>(i)));
        }
        int64_t stackAxis = static_cast<int64_t>(p % static_cast<uint64_t>(rank + 1));
        call.fn = [op, signedAxis, stackAxis](const std::vector<Tensor>& x) {
          return op == "concat" ? concat(x, signedAxis) : stack(x, stackAxis);
        };
        args = std::to_string(pieces) + " pieces axis " +
               std::to_string(op == "concat" ? signedAxis : stackAxis);
        if (pieces > 15) call.tags.push_back("manyPieces");
        call.spec = {{"op", op}, {"attrs", {{"axis", op == "concat" ? signedAxis : stackAxis}}}};
      } else if (op == "unstack") {
        bool kernel = q & 2;  // the Unpack kernel (rnn_ops' unpack), or the op's slices
        call.fn = [signedAxis, kernel](const std::vector<Tensor>& x) {
          std::vector<Tensor> parts = kernel ? unpack(x[0], signedAxis) : unstack(x[0], signedAxis);
          std::vector<Tensor> flats;
          for (const Tensor& t : parts)
            flats.push_back(flat(t) * static_cast<float>(flats.size() + 1));
          return concat(flats, 0);
        };
        args = std::string(kernel ? "unpack" : "unstack") + " axis " + std::to_string(signedAxis);
        // The parts come back as one tensor: concat of part i flattened times i + 1.
        call.spec = {
            {"op", "unstack"}, {"attrs", {{"axis", signedAxis}}}, {"post", "concatFlatScaled"}};
      } else if (op == "slice" || op == "stridedSlice" || op == "reverse") {
        std::vector<int64_t> begin, end, size, strides, revAxes;
        Rng sr(p);
        for (int64_t d : s) {
          int64_t b = drawInt(sr, 0, d - 1), e = drawInt(sr, b + 1, d);
          begin.push_back(b);
          size.push_back(coin(sr, 0.2) ? -1 : e - b);
          int64_t st = drawInt(sr, 1, 3) * (coin(sr, 0.3) ? -1 : 1);
          if (st < 0) std::swap(b, e), b = b - 1, e = e - 1 < b ? e - 1 : e;
          strides.push_back(st);
          end.push_back(st < 0 ? std::max<int64_t>(-1, begin.back() - 1 - drawInt(sr, 0, d)) : e);
          if (coin(sr)) revAxes.push_back(static_cast<int64_t>(revAxes.size()));
        }
        if (op == "stridedSlice") {
          std::vector<int64_t> sb = begin;
          for (size_t i = 0; i < sb.size(); ++i)
            if (strides[i] < 0)
              sb[i] = std::min(s[i] - 1, end[i] + 1 + static_cast<int64_t>(q % 3));
          int beginMask = static_cast<int>(u & ((1u << rank) - 1)) & 0x15;
          int endMask = static_cast<int>(q & ((1u << rank) - 1)) & 0x2a;
          int shrink = coin(sr, 0.2) ? 1 : 0;
          call.fn = [=](const std::vector<Tensor>& x) {
            return stridedSlice(x[0], sb, end, strides, beginMask, endMask, 0, 0, shrink);
          };
          args = "begin " + shapeText(sb) + " end " + shapeText(end) + " strides " +
                 shapeText(strides) + " masks " + std::to_string(beginMask) + "," +
                 std::to_string(endMask) + "," + std::to_string(shrink);
          call.spec = {{"op", "stridedSlice"},
                       {"attrs",
                        {{"begin", sb},
                         {"end", end},
                         {"strides", strides},
                         {"beginMask", beginMask},
                         {"endMask", endMask},
                         {"ellipsisMask", 0},
                         {"newAxisMask", 0},
                         {"shrinkAxisMask", shrink}}}};
          call.tags.push_back("strided");
          if (std::any_of(strides.begin(), strides.end(), [](int64_t v) { return v < 0; }))
            call.tags.push_back("negativeStrides");
        } else if (op == "slice") {
          call.fn = [=](const std::vector<Tensor>& x) { return slice(x[0], begin, size); };
          args = "begin " + shapeText(begin) + " size " + shapeText(size);
          call.spec = {{"op", "slice"}, {"attrs", {{"begin", begin}, {"size", size}}}};
        } else {
          std::vector<int64_t> axes;
          for (int64_t a = 0; a < rank; ++a)
            if (p >> a & 1) axes.push_back(negAxis ? a - rank : a);
          call.fn = [=](const std::vector<Tensor>& x) { return reverse(x[0], axes); };
          args = "axes " + shapeText(axes);
          // No axes reverses every axis, as TF.js's axis left out.
          call.spec = {{"op", "reverse"},
                       {"attrs", {{"axis", axes.empty() ? Json(nullptr) : Json(axes)}}}};
        }
      } else if (op == "pad") {
        std::vector<std::pair<int64_t, int64_t>> pads;
        for (int64_t i = 0; i < rank; ++i)
          pads.push_back(
              {static_cast<int64_t>((p >> (2 * i)) % 4), static_cast<int64_t>((q >> (2 * i)) % 4)});
        float value = static_cast<float>(static_cast<int64_t>(u % 7) - 3) / 2;
        call.fn = [=](const std::vector<Tensor>& x) { return pad(x[0], pads, value); };
        args = "value " + std::to_string(value);
        Json paddings = Json::array();
        for (const auto& [before, after] : pads) paddings.push_back({before, after});
        call.spec = {{"op", "pad"}, {"attrs", {{"paddings", paddings}, {"constantValue", value}}}};
      } else if (op == "tile") {
        std::vector<int64_t> reps;
        for (int64_t i = 0; i < rank; ++i)
          reps.push_back(1 + static_cast<int64_t>((p >> (2 * i)) % (i + 1 == rank ? 4 : 2)));
        call.fn = [=](const std::vector<Tensor>& x) { return tile(x[0], reps); };
        args = "reps " + shapeText(reps);
        call.spec = {{"op", "tile"}, {"attrs", {{"reps", reps}}}};
      } else {  // gather
        int64_t n = s[static_cast<size_t>(axis)];
        Shape is{1 + static_cast<int64_t>(q % 9)};
        if (u & 1) is.push_back(1 + static_cast<int64_t>(u % 4));
        call.inputs.push_back(ints(is, 0, static_cast<int>(n - 1), seed + 7));
        call.fn = [signedAxis](const std::vector<Tensor>& x) {
          return gather(x[0], x[1], signedAxis);
        };
        args = "indices " + shapeText(is) + " axis " + std::to_string(signedAxis);
        call.spec = {{"op", "gather"}, {"attrs", {{"axis", signedAxis}, {"batchDims", 0}}}};
      }
      call.describe = op + " x " + shapeText(s) + " " + args;
      return call;
    },
    static_cast<int64_t>(std::size(kShapeOps)),
});

// knobs: op (0 oneHot, 1 segmentSum, 2 logical, 3 any/all, 4 where), n, m, depth, variant, seed
const Register indexing({
    "index",
    {"OneHot", "UnsortedSegmentSum", "LogicalAnd", "LogicalOr", "LogicalXor", "LogicalNot", "Any",
     "All", "Select"},
    [](Rng& r) {
      return Knobs{drawInt(r, 0, 4), drawSize(r, 40),  drawSize(r, 33),
                   drawSize(r, 20),  drawInt(r, 0, 7), static_cast<int64_t>(r() >> 1)};
    },
    [](const Knobs& k) -> std::optional<Call> {
      int64_t op = k[0], n = k[1], m = k[2], depth = k[3], variant = k[4];
      if (op < 0 || op > 4 || std::min({n, m, depth}) < 1 || variant < 0) return std::nullopt;
      uint64_t seed = static_cast<uint64_t>(k[5]);
      Call call;
      auto boolInput = [&](const Shape& s, uint64_t sd) {
        InputData d = ints(s, 0, 1, sd);
        d.dtype = DType::boolean;
        return d;
      };
      if (op == 0) {
        call.inputs = {ints({n, variant % 2 ? 2 : 1}, -1, static_cast<int>(depth), seed)};
        call.fn = [depth](const std::vector<Tensor>& x) {
          return oneHot(x[0], depth, 2.5f, -0.5f);
        };
        call.describe =
            "oneHot indices " + shapeText(call.inputs[0].shape) + " depth " + std::to_string(depth);
        call.tags = {"outOfRangeIndices"};
        // TF.js's oneHot refuses depth 1: torch's form (a comparison with arange) then.
        call.spec = {
            {depth < 2 ? "torch" : "op", "oneHot"},
            {"attrs",
             {{"depth", depth}, {"onValue", 2.5}, {"offValue", -0.5}, {"dtype", "float32"}}}};
      } else if (op == 1) {
        call.inputs = {floats({n, m}, kUniform, seed),
                       ints({n}, 0, static_cast<int>(depth - 1), seed + 1)};
        call.fn = [depth](const std::vector<Tensor>& x) {
          return unsortedSegmentSum(x[0], x[1], depth);
        };
        call.describe =
            "unsortedSegmentSum x " + shapeText({n, m}) + " segments " + std::to_string(depth);
        call.spec = {{"op", "unsortedSegmentSum"}, {"attrs", {{"numSegments", depth}}}};
      } else if (op == 2 || op == 3) {
        Shape s{n, m};
        call.inputs = {boolInput(s, seed), boolInput(variant & 4 ? Shape{m} : s, seed + 1)};
        call.fn = [op, variant](const std::vector<Tensor>& x) -> Tensor {
          if (op == 3)
            return variant & 1 ? any(x[0], {variant & 2 ? 1 : 0})
                               : all(x[0], {variant & 2 ? -1 : 0}, true);
          switch (variant % 4) {
            case 0:
              return logicalAnd(x[0], x[1]);
            case 1:
              return logicalOr(x[0], x[1]);
            case 2:
              return logicalXor(x[0], x[1]);
            default:
              return logicalNot(x[0]);
          }
        };
        call.describe = std::string(op == 3 ? "any/all" : "logical") + " variant " +
                        std::to_string(variant) + " x " + shapeText(s);
        if (variant & 4) call.tags.push_back("broadcast");
        const char* logical[] = {"logicalAnd", "logicalOr", "logicalXor", "logicalNot"};
        if (op == 3 && variant & 1)
          call.spec = {{"op", "any"},
                       {"attrs", {{"axis", variant & 2 ? 1 : 0}, {"keepDims", false}}}};
        else if (op == 3)
          call.spec = {{"op", "all"},
                       {"attrs", {{"axis", variant & 2 ? -1 : 0}, {"keepDims", true}}}};
        else call.spec = {{"op", logical[variant % 4]}, {"attrs", Json::object()}};
      } else {
        Shape s{n, m};
        call.inputs = {boolInput(variant & 1 ? Shape{m} : s, seed), floats(s, kSpecials, seed + 1),
                       floats(variant & 2 ? Shape{1, m} : s, kUniform, seed + 2)};
        call.fn = [](const std::vector<Tensor>& x) { return where(x[0], x[1], x[2]); };
        call.describe = "where cond " + shapeText(call.inputs[0].shape) + " a " + shapeText(s) +
                        " b " + shapeText(call.inputs[2].shape);
        call.checkGrad = false;
        call.tags = {"specials"};
        call.spec = {{"op", "where"}, {"attrs", Json::object()}};
      }
      return call;
    },
    5,
});

const char* kActivations[] = {"linear", "relu",      "relu6",    "elu",  "selu", "sigmoid",
                              "tanh",   "leakyrelu", "softplus", "gelu", "swish"};

// True when a pre-activation of fusedMatMul (a b + bias, in double) lies
// within float32 rounding of a kink of the activation (0; relu6's 6 too):
// there backends that round the sum differently take different sides, and
// the gradients differ by a whole term (a relu6 sum of 5.999999 went to 6.0
// on wasm's cpu backend and gl, 1e-6 from the kink).
bool nearKink(const std::string& activation, const std::vector<InputData>& in, bool ta, bool tb,
              int64_t m, int64_t kk, int64_t n) {
  std::vector<double> kinks;
  if (activation == "relu" || activation == "leakyrelu" || activation == "elu" ||
      activation == "selu")
    kinks = {0};
  if (activation == "relu6") kinks = {0, 6};
  if (kinks.empty()) return false;
  const std::vector<float>& a = in[0].values;
  const std::vector<float>& b = in[1].values;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0, magnitude = 0;
      for (int64_t p = 0; p < kk; ++p) {
        double term =
            static_cast<double>(a[ta ? p * m + i : i * kk + p]) * b[tb ? j * kk + p : p * n + j];
        sum += term;
        magnitude += std::abs(term);
      }
      if (in.size() > 2) {
        double bias = in[2].values[in[2].shape.size() == 1 ? j : i * n + j];
        sum += bias;
        magnitude += std::abs(bias);
      }
      // A float32 sum of kk terms is off by about sqrt(kk) ulps of its
      // magnitude (kk at worst): 8 of those. Wider would skip most large calls.
      double slack = 8.0 * std::sqrt(static_cast<double>(kk + 1)) * 6e-8 * magnitude + 1e-7;
      for (double kink : kinks)
        if (std::abs(sum - kink) <= slack) return true;
    }
  }
  return false;
}

// True when a cell's gate or candidate pre-activation (in double, by
// rnn_ops.h's equations) lies within float32 rounding of a kink: hardSigmoid's
// at +-2.5 (0.2f is not 0.2: float32 moves them too), relu's at 0 (the
// candidate, and an LSTM's new cell state under h = o * relu(c)). An hour on
// wasm's cpu backend met one: an LSTM gate at 2.5 within 1e-7.
bool nearCellKink(int64_t cell, bool hardSigmoid, bool relu, const std::vector<InputData>& in,
                  int64_t b, int64_t u) {
  auto near = [](double v, double kink, double scale) {
    return std::abs(v - kink) <= 1e-6 * (1.0 + scale);
  };
  auto gateNear = [&](double z, double scale) {
    return hardSigmoid && (near(z, 2.5, scale) || near(z, -2.5, scale));
  };
  auto ract = [&](double z) {
    return hardSigmoid ? std::clamp(0.2 * z + 0.5, 0.0, 1.0) : 1.0 / (1.0 + std::exp(-z));
  };
  const std::vector<float>& x = in[0].values;
  const std::vector<float>& h = in[1].values;
  for (int64_t row = 0; row < b; ++row) {
    for (int64_t j = 0; j < u; ++j) {
      if (cell == 0) {
        double z[4], scale[4];
        for (int g = 0; g < 4; ++g) {
          int64_t at = row * 4 * u + g * u + j;
          z[g] = static_cast<double>(x[at]) + h[at];
          scale[g] = std::abs(x[at]) + std::abs(h[at]);
        }
        if (gateNear(z[0], scale[0]) || gateNear(z[1], scale[1]) || gateNear(z[3], scale[3]))
          return true;
        if (relu) {
          double c = ract(z[1]) * in[2].values[row * u + j] + ract(z[0]) * std::max(0.0, z[2]);
          if (near(z[2], 0, scale[2]) || near(c, 0, scale[2] + 2)) return true;
        }
      } else {
        int64_t xr = row * 3 * u, hr = row * 2 * u;
        double zz = static_cast<double>(x[xr + j]) + h[hr + j];
        double zr = static_cast<double>(x[xr + u + j]) + h[hr + u + j];
        double sz = std::abs(x[xr + j]) + std::abs(h[hr + j]),
               sr = std::abs(x[xr + u + j]) + std::abs(h[hr + u + j]);
        if (gateNear(zr, sr) || (cell != 3 && gateNear(zz, sz))) return true;
        if (cell != 3 && relu) {
          double hc = in[2].values[row * u + j];
          double pre = static_cast<double>(x[xr + 2 * u + j]) + (cell == 2 ? ract(zr) * hc : hc);
          if (near(pre, 0, std::abs(x[xr + 2 * u + j]) + std::abs(hc))) return true;
        }
      }
    }
  }
  return false;
}

// knobs: op (0 fusedMatMul, 1 softmaxCE, 2 argMaxEqual), m, k, n, activation, bias(0/1/2),
//        transA, transB, valueClass, seed
const Register fused({
    "fused",
    {"_FusedMatMul", "SoftmaxCrossEntropyWithLogits", "_ArgMaxEqual"},
    [](Rng& r) {
      return Knobs{drawInt(r, 0, 2),
                   drawSize(r, 70),
                   drawSize(r, 130),
                   drawSize(r, 70),
                   drawInt(r, 0, static_cast<int64_t>(std::size(kActivations)) - 1),
                   drawInt(r, 0, 2),
                   drawInt(r, 0, 1),
                   drawInt(r, 0, 1),
                   drawInt(r, 0, 1),
                   static_cast<int64_t>(r() >> 1)};
    },
    [](const Knobs& k) -> std::optional<Call> {
      int64_t op = k[0], m = k[1], kk = k[2], n = k[3], act = k[4];
      if (op < 0 || op > 2 || std::min({m, kk, n}) < 1 || act < 0 ||
          act >= static_cast<int64_t>(std::size(kActivations)))
        return std::nullopt;
      bool ta = k[6] != 0, tb = k[7] != 0;
      int64_t vc = k[8];
      uint64_t seed = static_cast<uint64_t>(k[9]);
      Call call;
      if (op == 0) {
        std::string a = kActivations[act];
        if (!isFusableActivation(a)) return std::nullopt;
        Shape as = ta ? Shape{kk, m} : Shape{m, kk}, bs = tb ? Shape{n, kk} : Shape{kk, n};
        call.inputs = {floats(as, vc, seed), floats(bs, vc, seed + 1)};
        int64_t biasKind = k[5];
        if (biasKind)
          call.inputs.push_back(floats(biasKind == 1 ? Shape{n} : Shape{m, n}, vc, seed + 2));
        call.fn = [=](const std::vector<Tensor>& x) {
          return fusedMatMul(x[0], x[1], x.size() > 2 ? x[2] : Tensor(), a, ta, tb);
        };
        call.describe = "fusedMatMul a " + shapeText(as) + " b " + shapeText(bs) + " " + a +
                        (biasKind ? biasKind == 1 ? " bias [n]" : " bias [m,n]" : "") +
                        (ta ? " transposeA" : "") + (tb ? " transposeB" : "");
        call.atol = 1e-6 + 8e-7 * static_cast<double>(kk);
        call.rtol = 3.2e-5;
        call.tags = {a};
        // TF.js's fused.matMul has no tanh: then matMul, add, tanh.
        call.spec = {
            {a == "tanh" ? "compose" : "op", a == "tanh" ? "fusedMatMul" : "fused.matMul"},
            {"attrs",
             {{"transposeA", ta}, {"transposeB", tb}, {"activation", a}, {"leakyreluAlpha", 0.2}}}};
        // Activations' kinks: quarters land sums on them exactly, uniform
        // values only rarely near them (nearKink): gradients on uniform values
        // away from the kinks.
        call.checkGrad = vc == kUniform && !nearKink(a, call.inputs, ta, tb, m, kk, n);
      } else {
        call.inputs = {floats({m, n}, kPositive, seed), floats({m, n}, vc, seed + 1)};
        if (op == 2) {
          call.inputs[0] = floats({m, n}, kQuarters, seed);
          call.fn = [](const std::vector<Tensor>& x) { return argMaxEqual(x[0], x[1]); };
          call.describe = "argMaxEqual a, b " + shapeText({m, n});
          call.tags = {"ties"};
          call.spec = {{"compose", "argMaxEqual"}, {"attrs", Json::object()}};
        } else {
          call.inputs[0].differentiable = false;
          call.fn = [](const std::vector<Tensor>& x) {
            Tensor labels = div(x[0], sum(x[0], {1}, true));
            return softmaxCrossEntropyWithLogits(labels, x[1]);
          };
          call.describe = "softmaxCrossEntropyWithLogits labels, logits " + shapeText({m, n});
          // labels = x0 / sum(x0, 1), then per row; TF.js's losses.softmaxCrossEntropy
          // with Reduction.NONE.
          call.spec = {{"op", "losses.softmaxCrossEntropy"},
                       {"attrs", {{"reduction", "none"}}},
                       {"pre", "normalizeLabels"}};
          call.rtol = 3.2e-5;
          call.atol = 1e-5;
        }
      }
      return call;
    },
    3,
});

// knobs: cell (0 lstm, 1 gru, 2 gru resetAfter, 3 gruResetState), batch, units,
//        recurrentActivation (0 hardSigmoid, 1 sigmoid), activation (0 tanh, 1 relu), seed
const Register cells({
    "cells",
    {"LSTMCell", "LSTMCellGrad", "GRUCell", "GRUCellGrad", "GRUResetState", "GRUResetStateGrad"},
    [](Rng& r) {
      return Knobs{drawInt(r, 0, 3), drawSize(r, 33),  drawSize(r, 70),
                   drawInt(r, 0, 1), drawInt(r, 0, 1), static_cast<int64_t>(r() >> 1)};
    },
    [](const Knobs& k) -> std::optional<Call> {
      int64_t cell = k[0], b = k[1], u = k[2];
      if (cell < 0 || cell > 3 || b < 1 || u < 1) return std::nullopt;
      std::string ract = k[3] ? "sigmoid" : "hardSigmoid", act = k[4] ? "relu" : "tanh";
      uint64_t seed = static_cast<uint64_t>(k[5]);
      Call call;
      if (cell == 0) {
        call.inputs = {floats({b, 4 * u}, kUniform, seed), floats({b, 4 * u}, kUniform, seed + 1),
                       floats({b, u}, kUniform, seed + 2)};
        call.fn = [=](const std::vector<Tensor>& x) {
          std::vector<Tensor> hc = lstmCell(x[0], x[1], x[2], ract, act);
          return concat({flat(hc[0]), flat(hc[1]) * 0.5f}, 0);
        };
        call.describe = "lstmCell batch " + std::to_string(b) + " units " + std::to_string(u);
      } else {
        call.inputs = {floats({b, 3 * u}, kUniform, seed), floats({b, 2 * u}, kUniform, seed + 1),
                       floats({b, u}, kUniform, seed + 2), floats({b, u}, kUniform, seed + 3)};
        bool resetAfter = cell == 2;
        call.fn = [=](const std::vector<Tensor>& x) {
          if (cell == 3) return gruResetState(x[0], x[1], x[3], ract);
          return gruCell(x[0], x[1], x[2], x[3], resetAfter, ract, act);
        };
        call.describe = std::string(cell == 3 ? "gruResetState" : "gruCell") + " batch " +
                        std::to_string(b) + " units " + std::to_string(u) +
                        (resetAfter ? " resetAfter" : "");
      }
      call.describe += " " + ract + "/" + act;
      // TF.js has the layers, not the pointwise step: the scripts compose it
      // from TF.js ops by rnn_ops.h's (Keras's) equations.
      const char* cellName[] = {"lstmCell", "gruCell", "gruCell", "gruResetState"};
      call.spec = {
          {"compose", cellName[cell]},
          {"attrs",
           {{"recurrentActivation", ract}, {"activation", act}, {"resetAfter", cell == 2}}}};
      call.tags = {ract, act};
      call.rtol = 3.2e-5;
      // hardSigmoid's and relu's kinks: uniform values never land on them, but
      // come within rounding of them now and then (nearCellKink).
      call.checkGrad = !nearCellKink(cell, ract == "hardSigmoid", act == "relu", call.inputs, b, u);
      return call;
    },
    4,
});

/// True when a pre-activation of the LSTM time loop comes within float32
/// rounding of hardSigmoid's kinks (+-2.5): the loop run in double, as
/// reference runs it, h and c rounded to float as the kernels store them.
bool nearSequenceKink(const std::vector<InputData>& in, int64_t t, int64_t b, int64_t u,
                      bool backwards) {
  const std::vector<float>& xw = in[0].values;
  const std::vector<float>& wr = in[1].values;
  const float* mask = in.size() > 2 ? in[2].values.data() : nullptr;
  auto ract = [](double z) { return std::clamp(0.2 * z + 0.5, 0.0, 1.0); };
  for (int64_t n = 0; n < b; ++n) {
    std::vector<float> h(static_cast<size_t>(u), 0.0f), c(static_cast<size_t>(u), 0.0f);
    for (int64_t s = 0; s < t; ++s) {
      const int64_t time = backwards ? t - 1 - s : s;
      std::vector<float> hNext(h.size()), cNext(c.size());
      for (int64_t j = 0; j < u; ++j) {
        double z[4], scale[4];
        for (int g = 0; g < 4; ++g) {
          const double x = xw[static_cast<size_t>((time * b + n) * 4 * u + g * u + j)];
          z[g] = x;
          scale[g] = std::abs(x);
          for (int64_t k = 0; k < u; ++k) {
            double hk = static_cast<double>(h[k]) * (mask ? mask[n * u + k] : 1.0f);
            double term = hk * wr[static_cast<size_t>(k * 4 * u + g * u + j)];
            z[g] += term;
            scale[g] += std::abs(term);
          }
          if (g != 2 &&
              std::min(std::abs(z[g] - 2.5), std::abs(z[g] + 2.5)) <= 1e-6 * (1.0 + scale[g]))
            return true;
        }
        double cc = ract(z[1]) * c[j] + ract(z[0]) * std::tanh(z[2]);
        cNext[j] = static_cast<float>(cc);
        hNext[j] = static_cast<float>(ract(z[3]) * std::tanh(static_cast<double>(cNext[j])));
      }
      h.swap(hNext);
      c.swap(cNext);
    }
  }
  return false;
}

// knobs: time, batch, units, recurrentActivation (0 hardSigmoid, 1 sigmoid),
//        masked, goBackwards, returnSequences, seed
const Register lstmLoop({
    "lstmseq",
    {"LSTMSequence", "LSTMSequenceGrad"},
    [](Rng& r) {
      return Knobs{
          drawSize(r, 9),   drawSize(r, 17),  drawSize(r, 40),  drawInt(r, 0, 1),
          drawInt(r, 0, 1), drawInt(r, 0, 1), drawInt(r, 0, 1), static_cast<int64_t>(r() >> 1)};
    },
    [](const Knobs& k) -> std::optional<Call> {
      const int64_t t = k[0], b = k[1], u = k[2];
      if (t < 1 || b < 1 || u < 1) return std::nullopt;
      const std::string ract = k[3] ? "sigmoid" : "hardSigmoid";
      const bool masked = k[4] != 0, backwards = k[5] != 0, sequences = k[6] != 0;
      const uint64_t seed = static_cast<uint64_t>(k[7]);
      Call call;
      call.inputs = {floats({t, b, 4 * u}, kUniform, seed), floats({u, 4 * u}, kUniform, seed + 1)};
      // W_r scaled by 1/sqrt(units), as initializers keep it: otherwise the
      // pre-activations grow with the units, the gates saturate and the
      // backward pass sums large terms of opposite signs (float32 then loses
      // digits that reference's double keeps).
      for (float& v : call.inputs[1].values) v /= std::sqrt(static_cast<float>(u));
      if (masked) {
        call.inputs.push_back(floats({b, u}, kPositive, seed + 2));
        call.inputs.back().differentiable = false;
      }
      call.fn = [=](const std::vector<Tensor>& x) {
        LstmSequence r =
            lstmSequence(x[0], x[1], masked ? x[2] : Tensor(), sequences, backwards, ract);
        std::vector<Tensor> parts;
        if (sequences) parts.push_back(flat(r.outputs));
        parts.push_back(flat(r.h));
        parts.push_back(flat(r.c) * 0.5f);
        return concat(parts, 0);
      };
      call.describe = "lstmSequence time " + std::to_string(t) + " batch " + std::to_string(b) +
                      " units " + std::to_string(u) + " " + ract + (masked ? " masked" : "") +
                      (backwards ? " goBackwards" : "") + (sequences ? " returnSequences" : "");
      call.spec = {{"compose", "lstmSequence"},
                   {"attrs",
                    {{"recurrentActivation", ract},
                     {"activation", "tanh"},
                     {"goBackwards", backwards},
                     {"returnSequences", sequences}}}};
      call.tags = {ract};
      if (masked) call.tags.push_back("masked");
      if (backwards) call.tags.push_back("backwards");
      // Steps compound float32 rounding: each reads the last one's rounded h.
      call.rtol = 1e-4;
      call.atol = 1e-5;
      call.checkGrad = ract == "sigmoid" || !nearSequenceKink(call.inputs, t, b, u, backwards);
      return call;
    },
    0,  // knobs[0] is the time, not an op to cycle through
});

// knobs: op (0 sgd, 1 momentum, 2 nesterov, 3 adam, 4 adamw), n, seed
const Register optim({
    "optim",
    {"ApplyGradientDescent", "ApplyMomentum", "ApplyAdam"},
    [](Rng& r) {
      return Knobs{drawInt(r, 0, 4), drawSize(r, 5000), static_cast<int64_t>(r() >> 1)};
    },
    [](const Knobs& k) -> std::optional<Call> {
      int64_t op = k[0], n = k[1];
      if (op < 0 || op > 4 || n < 1) return std::nullopt;
      uint64_t seed = static_cast<uint64_t>(k[2]);
      Call call;
      call.inputs = {floats({n}, kUniform, seed), floats({n}, kUniform, seed + 1),
                     floats({n}, kPositive, seed + 2), floats({n}, kUniform, seed + 3)};
      for (auto& in : call.inputs) in.differentiable = false;
      call.checkGrad = false;
      call.fn = [op](const std::vector<Tensor>& x) -> Tensor {
        if (op == 0) return applyGradientDescent(x[0], x[3], 0.05f);
        if (op <= 2) {
          MomentumUpdate u = applyMomentum(x[0], x[1], x[3], 0.05f, 0.9f, op == 2);
          return concat({u.w, u.accum}, 0);
        }
        AdamUpdate u = applyAdam(x[0], x[1], x[2], x[3], 0.01f, 0.9f, 0.999f, 1e-7f, 0.1f, 0.001f,
                                 op == 4 ? 0.01f : 0.0f);
        return concat({u.w, u.m, u.v}, 0);
      };
      const char* names[] = {"applyGradientDescent", "applyMomentum", "applyMomentum nesterov",
                             "applyAdam", "applyAdam weightDecay"};
      call.describe = std::string(names[op]) + " n " + std::to_string(n);
      // TF.js keeps its optimizers' state inside: composed from TF.js ops by
      // optim_ops.h's equations, with these arguments.
      const char* composeName[] = {"applyGradientDescent", "applyMomentum", "applyMomentum",
                                   "applyAdam", "applyAdam"};
      Json attrs = {{"lr", 0.05}};
      if (op == 1 || op == 2) attrs = {{"lr", 0.05}, {"momentum", 0.9}, {"nesterov", op == 2}};
      if (op >= 3)
        attrs = {{"lr", 0.01},
                 {"beta1", 0.9},
                 {"beta2", 0.999},
                 {"epsilon", 1e-7},
                 {"c1", 0.1},
                 {"c2", 0.001},
                 {"weightDecay", op == 4 ? 0.01 : 0.0}};
      call.spec = {{"compose", composeName[op]}, {"attrs", attrs}};
      call.rtol = 3.2e-5;
      return call;
    },
    5,
});

}  // namespace
}  // namespace glint::kfuzz
