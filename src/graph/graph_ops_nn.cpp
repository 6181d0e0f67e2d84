// Convolution, pooling, matrix products, batch norm and the fused forms the
// TF.js converter emits (_FusedConv2D, FusedDepthwiseConv2dNative,
// _FusedMatMul). NCHW nodes run as NHWC between two transposes.
#include <algorithm>
#include <cctype>

#include "glint/fused_ops.h"
#include "glint/ops.h"
#include "src/graph/graph_internal.h"

namespace glint::graph {

namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Spatial {
  bool nchw = false;
  Pair strides{1, 1}, dilations{1, 1}, window{1, 1};
  Padding padding = Padding::valid;
  bool explicitPad = false;
  std::vector<std::pair<int64_t, int64_t>> pads{};  // NHWC order, 4 pairs
};

// The (h, w) entries of a 4-long NHWC or NCHW attribute list.
Pair hw(const NodeContext& ctx, const std::string& name, bool nchw, Pair def) {
  std::vector<int64_t> v = ctx.attrInts(name);
  if (v.empty()) return def;
  opCheck(v.size() == 4, "attribute '", name, "' must hold 4 values, got ", v.size());
  return nchw ? Pair{v[2], v[3]} : Pair{v[1], v[2]};
}

Spatial spatial(const NodeContext& ctx) {
  Spatial s;
  std::string format = upper(ctx.attrString("data_format", "NHWC"));
  opCheck(format == "NHWC" || format == "NCHW", "data_format '", quoteForError(format),
          "' is not supported (NHWC or NCHW)");
  s.nchw = format == "NCHW";
  s.strides = hw(ctx, "strides", s.nchw, {1, 1});
  s.dilations = hw(ctx, "dilations", s.nchw, {1, 1});
  s.window = hw(ctx, "ksize", s.nchw, {1, 1});
  std::string padding = upper(ctx.attrString("padding", "VALID"));
  if (padding == "SAME") {
    s.padding = Padding::same;
  } else if (padding == "EXPLICIT") {
    s.explicitPad = true;
    std::vector<int64_t> p = ctx.attrInts("explicit_paddings");
    opCheck(p.size() == 8, "explicit_paddings must hold 8 values, got ", p.size());
    for (int d = 0; d < 4; ++d) s.pads.emplace_back(p[2 * d], p[2 * d + 1]);
    if (s.nchw) s.pads = {s.pads[0], s.pads[2], s.pads[3], s.pads[1]};
  } else {
    opCheck(padding == "VALID", "padding '", quoteForError(padding),
            "' is not supported (SAME, VALID, EXPLICIT)");
  }
  return s;
}

Tensor toNhwc(const Tensor& x, const Spatial& s) { return s.nchw ? transpose(x, {0, 2, 3, 1}) : x; }
Tensor fromNhwc(const Tensor& y, const Spatial& s) {
  return s.nchw ? transpose(y, {0, 3, 1, 2}) : y;
}
// Explicit paddings become a pad before a 'valid' op.
Tensor padExplicit(const Tensor& x, const Spatial& s) { return s.explicitPad ? pad(x, s.pads) : x; }

Tensor activate(const NodeContext& ctx, Tensor y, const std::string& activation,
                const Tensor& alpha) {
  std::string a = lower(activation);
  if (a.empty() || a == "linear") return y;
  if (a == "relu") return relu(y);
  if (a == "relu6") return relu6(y);
  if (a == "elu") return elu(y);
  if (a == "selu") return selu(y);
  if (a == "sigmoid") return sigmoid(y);
  if (a == "tanh") return tanh(y);
  if (a == "leakyrelu")
    return leakyRelu(y, static_cast<float>(ctx.attrFloat("leakyrelu_alpha", 0.2)));
  if (a == "prelu") {
    opCheck(alpha.defined(), "fused Prelu needs its alpha argument");
    return prelu(y, alpha);
  }
  opFail("fused activation '", quoteForError(activation), "' is not supported");
}

// The fused ops list applied to `y` (channels last): BiasAdd and
// FusedBatchNorm take their arguments from inputs 2..; then an activation.
Tensor applyFused(const NodeContext& ctx, Tensor y) {
  std::vector<std::string> fused = ctx.attrStrings("fused_ops");
  int64_t numArgs = ctx.attrInt("num_args", static_cast<int64_t>(ctx.numInputs()) - 2);
  opCheck(numArgs >= 0 && static_cast<size_t>(numArgs) + 2 <= ctx.numInputs(), "num_args is ",
          numArgs, " but the node has ", ctx.numInputs(), " inputs");
  size_t arg = 2;
  auto next = [&](const char* what) {
    opCheck(arg < 2 + static_cast<size_t>(numArgs), "fused op ", what,
            " needs more than num_args (", numArgs, ") arguments");
    return ctx.in(arg++);
  };
  for (size_t i = 0; i < fused.size(); ++i) {
    std::string op = lower(fused[i]);
    if (op == "biasadd") {
      y = add(y, next("BiasAdd"));
    } else if (op == "fusedbatchnorm") {
      Tensor scale = next("FusedBatchNorm"), offset = next("FusedBatchNorm"),
             m = next("FusedBatchNorm"), v = next("FusedBatchNorm");
      y = batchNorm(y, m, v, offset, scale, static_cast<float>(ctx.attrFloat("epsilon", 1e-4)));
    } else {
      Tensor alpha = op == "prelu" ? next("Prelu") : Tensor();
      y = activate(ctx, y, op, alpha);
    }
  }
  return y;
}

Tensor conv(NodeContext& ctx, bool depthwise) {
  ctx.needInputs(2);
  Spatial s = spatial(ctx);
  Tensor x = padExplicit(toNhwc(ctx.in(0), s), s);
  Padding p = s.explicitPad ? Padding::valid : s.padding;
  Tensor y = depthwise ? depthwiseConv2d(x, ctx.in(1), s.strides, p, s.dilations)
                       : conv2d(x, ctx.in(1), s.strides, p, s.dilations);
  return y;
}

Tensor pool(NodeContext& ctx, bool isMax) {
  ctx.needInputs(1);
  Spatial s = spatial(ctx);
  opCheck(!s.explicitPad, "explicit padding is not supported for pooling");
  Tensor x = toNhwc(ctx.in(0), s);
  Tensor y = isMax ? maxPool(x, s.window, s.strides, s.padding)
                   : avgPool(x, s.window, s.strides, s.padding);
  return fromNhwc(y, s);
}

// Parameters of shape [c] broadcast over NCHW as [c, 1, 1].
Tensor channelParam(const Tensor& p, bool nchw, int rank) {
  if (!nchw || p.rank() != 1 || rank < 3) return p;
  Shape s(static_cast<size_t>(rank - 1), 1);
  s[0] = p.shape()[0];
  return reshape(p, s);
}

}  // namespace

void addNnOps(OpTable& t) {
  t["Conv2D"] = [](NodeContext& ctx) {
    Spatial s = spatial(ctx);
    return one(fromNhwc(conv(ctx, false), s));
  };
  t["DepthwiseConv2dNative"] = [](NodeContext& ctx) {
    Spatial s = spatial(ctx);
    return one(fromNhwc(conv(ctx, true), s));
  };
  t["DepthwiseConv2d"] = t["DepthwiseConv2dNative"];
  t["_FusedConv2D"] = [](NodeContext& ctx) {
    Spatial s = spatial(ctx);
    return one(fromNhwc(applyFused(ctx, conv(ctx, false)), s));
  };
  t["FusedDepthwiseConv2dNative"] = [](NodeContext& ctx) {
    Spatial s = spatial(ctx);
    return one(fromNhwc(applyFused(ctx, conv(ctx, true)), s));
  };
  t["Conv2DBackpropInput"] = [](NodeContext& ctx) {
    ctx.needInputs(3);
    Spatial s = spatial(ctx);
    opCheck(!s.nchw && !s.explicitPad,
            "Conv2DBackpropInput runs NHWC with SAME or VALID padding only");
    opCheck(s.dilations == Pair{1, 1}, "Conv2DBackpropInput with dilations is not supported");
    std::vector<int64_t> size = ctx.ints(0, "input_sizes");
    return one(conv2dTranspose(ctx.in(2), ctx.in(1), Shape(size.begin(), size.end()), s.strides,
                               s.padding));
  };
  t["MaxPool"] = [](NodeContext& ctx) { return one(pool(ctx, true)); };
  t["AvgPool"] = [](NodeContext& ctx) { return one(pool(ctx, false)); };

  t["MatMul"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    return one(matMul(ctx.in(0), ctx.in(1), ctx.attrBool("transpose_a", false),
                      ctx.attrBool("transpose_b", false)));
  };
  auto batchMatMul = [](NodeContext& ctx) {
    ctx.needInputs(2);
    return one(
        matMul(ctx.in(0), ctx.in(1), ctx.attrBool("adj_x", false), ctx.attrBool("adj_y", false)));
  };
  t["BatchMatMul"] = batchMatMul;
  t["BatchMatMulV2"] = batchMatMul;
  t["_FusedMatMul"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    bool ta = ctx.attrBool("transpose_a", false), tb = ctx.attrBool("transpose_b", false);
    std::vector<std::string> fused = ctx.attrStrings("fused_ops");
    // One kernel for the usual [BiasAdd, activation] pair.
    if (fused.size() <= 2 && !fused.empty() && lower(fused[0]) == "biasadd" &&
        ctx.numInputs() == 3) {
      std::string act = fused.size() == 2 ? lower(fused[1]) : "linear";
      Tensor bias = ctx.in(2);
      if (isFusableActivation(act) && bias.rank() == 1)
        return one(fusedMatMul(ctx.in(0), ctx.in(1), bias, act, ta, tb,
                               static_cast<float>(ctx.attrFloat("leakyrelu_alpha", 0.2))));
    }
    return one(applyFused(ctx, matMul(ctx.in(0), ctx.in(1), ta, tb)));
  };

  t["BiasAdd"] = [](NodeContext& ctx) {
    ctx.needInputs(2);
    bool nchw = upper(ctx.attrString("data_format", "NHWC")) == "NCHW";
    Tensor x = ctx.in(0);
    return one(add(x, channelParam(ctx.in(1), nchw, x.rank())));
  };
  auto batchNormOp = [](NodeContext& ctx) {
    ctx.needInputs(5);
    bool nchw = upper(ctx.attrString("data_format", "NHWC")) == "NCHW";
    Tensor x = ctx.in(0);
    int r = x.rank();
    Tensor scale = channelParam(ctx.in(1), nchw, r), offset = channelParam(ctx.in(2), nchw, r);
    Tensor m = channelParam(ctx.in(3), nchw, r), v = channelParam(ctx.in(4), nchw, r);
    Tensor y =
        batchNorm(x, m, v, offset, scale, static_cast<float>(ctx.attrFloat("epsilon", 1e-3)));
    return std::vector<Value>{Value(y), ctx.value(3), ctx.value(4)};
  };
  t["FusedBatchNorm"] = batchNormOp;
  t["FusedBatchNormV2"] = batchNormOp;
  t["FusedBatchNormV3"] = batchNormOp;
}

}  // namespace glint::graph
