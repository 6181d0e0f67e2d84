// conv2d, depthwiseConv2d, conv2dTranspose and their gradients (NHWC).
#include "glint/backend.h"
#include "glint/ops.h"
#include "src/geometry/conv_geometry.h"
#include "src/ops/gradients.h"
#include "src/ops/op_util.h"

namespace glint {

void registerPoolGradients();  // src/ops/pool.cpp

namespace conv {

Attrs windowAttrs(const std::string& op, const Describe& xDesc, const Shape& x,
                  const Describe& window, int64_t fh, int64_t fw,
                  const std::vector<int64_t>& strides, bool same,
                  const std::vector<int64_t>& dilations, int64_t& outH, int64_t& outW,
                  bool emptyOk) {
  // Messages are built only on failure: this runs on every conv and pool
  // call, one-sample predicts included.
  auto s = [&] { return shapeToString(strides); };
  auto d = [&] { return shapeToString(dilations); };
  if (!(strides[0] >= 1 && strides[1] >= 1)) fail(op, "strides ", s(), " must be >= 1");
  if (!(dilations[0] >= 1 && dilations[1] >= 1)) fail(op, "dilations ", d(), " must be >= 1");
  bool strided = strides[0] > 1 || strides[1] > 1;
  bool dilated = dilations[0] > 1 || dilations[1] > 1;
  if (strided && dilated)
    fail(op, "strides ", s(), " and dilations ", d(),
         " cannot both be > 1 (TF.js semantics): use strides [1,1] or dilations [1,1]");
  Dim h = windowDim(x[1], fh, strides[0], dilations[0], same);
  Dim w = windowDim(x[2], fw, strides[1], dilations[1], same);
  if (h.out < 0 || w.out < 0 || (!emptyOk && (h.out == 0 || w.out == 0))) {
    std::string dilatedTo =
        !dilated ? ""
                 : " (dilated to " + std::to_string((fh - 1) * dilations[0] + 1) + "x" +
                       std::to_string((fw - 1) * dilations[1] + 1) + " by dilations " + d() + ")";
    fail(op, window(), dilatedTo, " does not fit in ", xDesc(),
         " with valid padding: the output would be ", h.out, "x", w.out,
         "; use a smaller window, a larger input or padding same");
  }
  outH = h.out;
  outW = w.out;
  return Attrs()
      .set("strides", strides)
      .set("pads", std::vector<int64_t>{h.padBefore, h.padAfter, w.padBefore, w.padAfter})
      .set("dilations", dilations)
      .set("filterSize", std::vector<int64_t>{fh, fw});
}

}  // namespace conv

namespace {

std::vector<int64_t> vec(Pair p) { return {p[0], p[1]}; }

void checkRank4(const std::string& op, const std::string& arg, const Tensor& t,
                const char* layout) {
  ops::checkDType(op, arg, t, {DType::float32});
  if (t.rank() != 4) fail(op, arg, " must be rank 4 ", layout, ", got ", ops::describe(t));
}

/// The window attrs only, so gradient kernels get a clean cache key.
Attrs windowOnly(const Attrs& a) {
  return Attrs()
      .set("strides", a.ints("strides"))
      .set("pads", a.ints("pads"))
      .set("dilations", a.ints("dilations"))
      .set("filterSize", a.ints("filterSize"));
}

Tensor backpropInput(const std::string& kernel, const Tensor& dy, const Tensor& filter,
                     const Shape& inputShape, const Attrs& attrs) {
  return runKernel(kernel, {dy, filter}, OutputSpec{inputShape, DType::float32},
                   windowOnly(attrs).set("inputShape", inputShape));
}

Tensor backpropFilter(const std::string& kernel, const Tensor& x, const Tensor& dy,
                      const Shape& filterShape, const Attrs& attrs) {
  return runKernel(kernel, {x, dy}, OutputSpec{filterShape, DType::float32},
                   windowOnly(attrs).set("filterShape", filterShape));
}

/// Shared by conv2d and depthwiseConv2d: both check filter.shape[2] == x's channels.
Tensor convForward(const std::string& op, const std::string& kernel, const Tensor& x,
                   const Tensor& filter, Pair strides, Padding padding, Pair dilations,
                   bool depthwise) {
  checkRank4(op, "x", x, "[batch,height,width,channels]");
  checkRank4(
      op, "filter", filter,
      depthwise ? "[height,width,channels,multiplier]" : "[height,width,inChannels,outChannels]");
  const Shape& xs = x.shape();
  const Shape& fs = filter.shape();
  if (fs[2] != xs[3])
    fail(op, "x channels (x.shape[3] = ", xs[3], ") must equal filter.shape[2] (", fs[2],
         "): got x ", ops::describe(x), ", filter ", ops::describe(filter));
  if (!(fs[0] >= 1 && fs[1] >= 1))
    fail(op, "filter height and width must be >= 1, got filter ", ops::describe(filter));
  int64_t oh = 0, ow = 0;
  Attrs attrs = conv::windowAttrs(
      op, [&] { return "x " + ops::describe(x); }, xs,
      [&] { return "filter " + ops::describe(filter); }, fs[0], fs[1], vec(strides),
      padding == Padding::same, vec(dilations), oh, ow);
  int64_t outC = depthwise ? fs[2] * fs[3] : fs[3];
  return runKernel(kernel, {x, filter}, OutputSpec{{xs[0], oh, ow, outC}, DType::float32}, attrs);
}

}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& filter, Pair strides, Padding padding,
              Pair dilations) {
  return convForward("conv2d", "Conv2D", x, filter, strides, padding, dilations, false);
}

Tensor depthwiseConv2d(const Tensor& x, const Tensor& filter, Pair strides, Padding padding,
                       Pair dilations) {
  return convForward("depthwiseConv2d", "DepthwiseConv2dNative", x, filter, strides, padding,
                     dilations, true);
}

Tensor conv2dTranspose(const Tensor& x, const Tensor& filter, const Shape& outputShape,
                       Pair strides, Padding padding) {
  const std::string op = "conv2dTranspose";
  checkRank4(op, "x", x, "[batch,height,width,inChannels]");
  checkRank4(op, "filter", filter, "[height,width,outChannels,inChannels]");
  const Shape& xs = x.shape();
  const Shape& fs = filter.shape();
  std::string os = shapeToString(outputShape);
  check(outputShape.size() == 4, op, "outputShape ", os,
        " must have 4 entries [batch,height,width,outChannels]");
  for (int64_t d : outputShape) check(d >= 0, op, "outputShape ", os, " has a negative dimension");
  if (xs[3] != fs[3])
    fail(op, "x channels (x.shape[3] = ", xs[3], ") must equal filter.shape[3] (", fs[3],
         "): got x ", ops::describe(x), ", filter ", ops::describe(filter));
  if (outputShape[3] != fs[2])
    fail(op, "outputShape[3] (", outputShape[3], ") must equal filter.shape[2] (", fs[2],
         "): got outputShape ", os, ", filter ", ops::describe(filter));
  if (outputShape[0] != xs[0])
    fail(op, "outputShape[0] (", outputShape[0], ") must equal the batch of x (", xs[0],
         "): got outputShape ", os, ", x ", ops::describe(x));
  if (!(fs[0] >= 1 && fs[1] >= 1))
    fail(op, "filter height and width must be >= 1, got filter ", ops::describe(filter));
  // The forward conv2d of outputShape must produce x's spatial size.
  int64_t oh = 0, ow = 0;
  Attrs attrs = conv::windowAttrs(
      op, [&] { return "outputShape " + os; }, outputShape,
      [&] { return "filter " + ops::describe(filter); }, fs[0], fs[1], vec(strides),
      padding == Padding::same, {1, 1}, oh, ow);
  if (!(oh == xs[1] && ow == xs[2]))
    fail(op, "outputShape ", os, " is inconsistent with x ", ops::describe(x), ", filter ",
         ops::describe(filter), ", strides ", shapeToString(vec(strides)), " and padding ",
         padding == Padding::same ? "same" : "valid", ": a conv2d over outputShape gives height ",
         oh, " and width ", ow, ", but x has ", xs[1], " and ", xs[2]);
  return runKernel("Conv2DBackpropInput", {x, filter}, OutputSpec{outputShape, DType::float32},
                   attrs.set("inputShape", outputShape));
}

void registerConvGradients() {
  for (const char* prefix : {"Conv2D", "DepthwiseConv2dNative"}) {
    std::string fwd = prefix;
    std::string bpInput = fwd + "BackpropInput", bpFilter = fwd + "BackpropFilter";
    registerGradient(fwd, [=](const std::vector<Tensor>& dys, const GradContext& ctx) {
      const Tensor& x = ctx.inputs[0];
      const Tensor& f = ctx.inputs[1];
      Tensor dx, df;
      if (ctx.needs(0)) dx = backpropInput(bpInput, dys[0], f, x.shape(), ctx.attrs);
      if (ctx.needs(1)) df = backpropFilter(bpFilter, x, dys[0], f.shape(), ctx.attrs);
      return std::vector<Tensor>{dx, df};
    });
    // Both backprops are bilinear, and <g, backprop(a, b)> is <dy, fwd(x, f)>
    // with g standing in for the operand it replaces: their adjoints are the
    // forward conv and the other backprop. conv2dTranspose differentiates
    // through BackpropInput; grad of grad through both.
    registerGradient(bpInput, [=](const std::vector<Tensor>& dys, const GradContext& ctx) {
      const Tensor& dy = ctx.inputs[0];
      const Tensor& f = ctx.inputs[1];
      const Tensor& g = dys[0];
      Tensor dDy, df;
      if (ctx.needs(0))
        dDy = runKernel(fwd, {g, f}, OutputSpec{dy.shape(), DType::float32}, windowOnly(ctx.attrs));
      if (ctx.needs(1)) df = backpropFilter(bpFilter, g, dy, f.shape(), ctx.attrs);
      return std::vector<Tensor>{dDy, df};
    });
    registerGradient(bpFilter, [=](const std::vector<Tensor>& dys, const GradContext& ctx) {
      const Tensor& x = ctx.inputs[0];
      const Tensor& dy = ctx.inputs[1];
      const Tensor& g = dys[0];
      Tensor dx, dDy;
      if (ctx.needs(0)) dx = backpropInput(bpInput, dy, g, x.shape(), ctx.attrs);
      if (ctx.needs(1))
        dDy = runKernel(fwd, {x, g}, OutputSpec{dy.shape(), DType::float32}, windowOnly(ctx.attrs));
      return std::vector<Tensor>{dx, dDy};
    });
  }
  registerPoolGradients();
}

}  // namespace glint
