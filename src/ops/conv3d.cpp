// conv3d, conv3dTranspose, maxPool3d and avgPool3d (NDHWC), composed from the
// 2-D window ops: no backend needs a 3-D kernel, and autograd comes from the
// parts. Output sizes and padding follow TF.js 4.22, whose 3-D 'same'
// padding differs from its 2-D one where a stride exceeds the window (see
// sameOverhang).
#include "glint/ops.h"
#include "src/geometry/conv_geometry.h"
#include "src/ops/op_util.h"

namespace glint {

namespace {

std::string tripleString(Triple t) { return shapeToString(Shape{t[0], t[1], t[2]}); }

void checkRank5(const std::string& op, const std::string& arg, const Tensor& t,
                const char* layout) {
  ops::checkDType(op, arg, t, {DType::float32});
  if (t.rank() != 5) fail(op, arg, " must be rank 5 ", layout, ", got ", ops::describe(t));
}

/// The output sizes of a window of `filter` over in's depth, height and width,
/// with every check the 2-D ops make, but in terms of the 3-D arguments.
std::array<conv::Dim, 3> windowDims(const std::string& op, const Shape& in,
                                    const std::string& inDesc, Triple filter,
                                    const std::string& filterDesc, Triple strides, bool same,
                                    Triple dilations, bool emptyOk = false) {
  for (int i = 0; i < 3; ++i) {
    if (filter[i] < 1) fail(op, filterDesc, ": window depth, height and width must be >= 1");
    if (strides[i] < 1) fail(op, "strides ", tripleString(strides), " must be >= 1");
    if (dilations[i] < 1) fail(op, "dilations ", tripleString(dilations), " must be >= 1");
  }
  auto anyAbove1 = [](Triple t) { return t[0] > 1 || t[1] > 1 || t[2] > 1; };
  if (anyAbove1(strides) && anyAbove1(dilations))
    fail(op, "strides ", tripleString(strides), " and dilations ", tripleString(dilations),
         " cannot both be > 1 (TF.js semantics): use strides [1,1,1] or dilations [1,1,1]");
  std::array<conv::Dim, 3> dims{};
  for (int i = 0; i < 3; ++i)
    dims[i] = conv::windowDim(in[1 + i], filter[i], strides[i], dilations[i], same);
  bool negative = dims[0].out < 0 || dims[1].out < 0 || dims[2].out < 0;
  bool empty = dims[0].out == 0 || dims[1].out == 0 || dims[2].out == 0;
  if (negative || (empty && !emptyOk))
    fail(op, filterDesc, anyAbove1(dilations) ? " with dilations " + tripleString(dilations) : "",
         " does not fit in ", inDesc, " with valid padding: the output would be ", dims[0].out, "x",
         dims[1].out, "x", dims[2].out, "; use a smaller window, a larger input or padding same");
  return dims;
}

/// Elements to drop (before, after) along depth, height and width.
using Overhang = std::array<std::pair<int64_t, int64_t>, 3>;

/// TF.js computes 3-D 'same' padding as (out-1)*stride + window - in without
/// clamping it at zero, as its 2-D ops do, and puts floor(total/2) before:
/// where the stride exceeds the window the total is negative and the first
/// window starts inside the input. Dropping those elements leaves an input
/// where the clamped 2-D arithmetic (windowDim) gives TF.js's windows.
Overhang sameOverhang(const Shape& in, Triple window, Triple strides, Triple dilations, bool same) {
  Overhang drop{};
  if (!same) return drop;
  for (int i = 0; i < 3; ++i) {
    int64_t out = (in[1 + i] + strides[i] - 1) / strides[i];
    int64_t total = (out - 1) * strides[i] + (window[i] - 1) * dilations[i] + 1 - in[1 + i];
    if (total >= 0) continue;
    int64_t before = total % 2 == 0 ? total / 2 : (total - 1) / 2;  // floor(total / 2)
    drop[i] = {-before, before - total};
  }
  return drop;
}

bool any(const Overhang& o) {
  for (const auto& [before, after] : o)
    if (before > 0 || after > 0) return true;
  return false;
}

Shape shrunk(Shape s, const Overhang& o) {
  for (int i = 0; i < 3; ++i) s[1 + i] -= o[i].first + o[i].second;
  return s;
}

Tensor crop(const Tensor& x, const Overhang& o) {
  if (!any(o)) return x;
  return slice(x, {0, o[0].first, o[1].first, o[2].first, 0}, shrunk(x.shape(), o));
}

/// filter [fd,fh,fw,a,b] -> [fh,fw,fd*a,b]: the depth taps side by side along
/// the third axis, tap-major, matching planes concatenated along channels.
Tensor depthTapsAsChannels(const Tensor& filter) {
  const Shape& f = filter.shape();
  return reshape(transpose(filter, {1, 2, 0, 3, 4}), {f[1], f[2], f[0] * f[3], f[4]});
}

Tensor pool3d(const std::string& op, bool isMax, const Tensor& x, Triple filterSize, Triple strides,
              Padding padding) {
  checkRank5(op, "x", x, "[batch,depth,height,width,channels]");
  bool same = padding == Padding::same;
  auto given = windowDims(op, x.shape(), "x " + ops::describe(x), filterSize,
                          "filterSize " + tripleString(filterSize), strides, same, {1, 1, 1},
                          /*emptyOk=*/true);
  // A window one larger than the input: empty, as TF.js (a slice of x: gradients reach it).
  if (given[0].out == 0 || given[1].out == 0 || given[2].out == 0) {
    const Shape& s = x.shape();
    return slice(x, {0, 0, 0, 0, 0}, {s[0], given[0].out, given[1].out, given[2].out, s[4]});
  }
  Tensor in = crop(x, sameOverhang(x.shape(), filterSize, strides, {1, 1, 1}, same));
  const Shape& xs = in.shape();
  auto dims = windowDims(op, xs, "", filterSize, "", strides, same, {1, 1, 1});
  auto pool2d = [&](const Tensor& t, Pair f, Pair s) {
    return isMax ? maxPool(t, f, s, padding) : avgPool(t, f, s, padding);
  };
  // A window is a box, and both the maximum and the mean over its in-bounds
  // part factor over the axes: pool height and width in every depth plane,
  // then depth (over the flattened plane positions).
  int64_t n = xs[0], c = xs[4], oh = dims[1].out, ow = dims[2].out;
  Tensor t = reshape(in, {n * xs[1], xs[2], xs[3], c});
  t = pool2d(t, {filterSize[1], filterSize[2]}, {strides[1], strides[2]});
  t = reshape(t, {n, xs[1], oh * ow, c});
  t = pool2d(t, {filterSize[0], 1}, {strides[0], 1});
  return reshape(t, {n, dims[0].out, oh, ow, c});
}

}  // namespace

Tensor conv3d(const Tensor& x, const Tensor& filter, Triple strides, Padding padding,
              Triple dilations) {
  const std::string op = "conv3d";
  checkRank5(op, "x", x, "[batch,depth,height,width,channels]");
  checkRank5(op, "filter", filter, "[depth,height,width,inChannels,outChannels]");
  const Shape& fs = filter.shape();
  if (fs[3] != x.shape()[4])
    fail(op, "x channels (x.shape[4] = ", x.shape()[4], ") must equal filter.shape[3] (", fs[3],
         "): got x ", ops::describe(x), ", filter ", ops::describe(filter));
  bool same = padding == Padding::same;
  Triple window{fs[0], fs[1], fs[2]};
  windowDims(op, x.shape(), "x " + ops::describe(x), window, "filter " + ops::describe(filter),
             strides, same, dilations);
  Tensor in = crop(x, sameOverhang(x.shape(), window, strides, dilations, same));
  const Shape& xs = in.shape();
  auto dims = windowDims(op, xs, "", window, "", strides, same, dilations);
  int64_t n = xs[0], c = xs[4], fd = fs[0], od = dims[0].out;
  Tensor xp = in;
  if (dims[0].padBefore > 0 || dims[0].padAfter > 0)
    xp = pad(in, {{0, 0}, {dims[0].padBefore, dims[0].padAfter}, {0, 0}, {0, 0}, {0, 0}});
  // Depth tap k of output plane i reads padded plane i*sd + k*dd. Gathering,
  // for every tap, the planes it reads and putting the taps side by side as
  // channels turns the whole convolution into one conv2d over n*od images.
  std::vector<Tensor> taps;
  for (int64_t k = 0; k < fd; ++k) {
    int64_t begin = k * dilations[0];
    taps.push_back(stridedSlice(xp, {0, begin, 0, 0, 0},
                                {n, begin + (od - 1) * strides[0] + 1, xs[2], xs[3], c},
                                {1, strides[0], 1, 1, 1}));
  }
  Tensor planes = fd == 1 ? taps[0] : concat(taps, 4);
  planes = reshape(planes, {n * od, xs[2], xs[3], fd * c});
  Tensor y = conv2d(planes, depthTapsAsChannels(filter), {strides[1], strides[2]}, padding,
                    {dilations[1], dilations[2]});
  return reshape(y, {n, od, dims[1].out, dims[2].out, fs[4]});
}

Tensor conv3dTranspose(const Tensor& x, const Tensor& filter, const Shape& outputShape,
                       Triple strides, Padding padding) {
  const std::string op = "conv3dTranspose";
  checkRank5(op, "x", x, "[batch,depth,height,width,inChannels]");
  checkRank5(op, "filter", filter, "[depth,height,width,outChannels,inChannels]");
  const Shape& xs = x.shape();
  const Shape& fs = filter.shape();
  std::string osText = shapeToString(outputShape);
  const Shape& os = outputShape;
  check(os.size() == 5, op, "outputShape ", osText,
        " must have 5 entries [batch,depth,height,width,outChannels]");
  for (int64_t d : os) check(d >= 0, op, "outputShape ", osText, " has a negative dimension");
  if (xs[4] != fs[4])
    fail(op, "x channels (x.shape[4] = ", xs[4], ") must equal filter.shape[4] (", fs[4],
         "): got x ", ops::describe(x), ", filter ", ops::describe(filter));
  if (os[4] != fs[3])
    fail(op, "outputShape[4] (", os[4], ") must equal filter.shape[3] (", fs[3],
         "): got outputShape ", osText, ", filter ", ops::describe(filter));
  if (os[0] != xs[0])
    fail(op, "outputShape[0] (", os[0], ") must equal the batch of x (", xs[0],
         "): got outputShape ", osText, ", x ", ops::describe(x));
  // The forward conv3d over outputShape must produce x's spatial size.
  bool same = padding == Padding::same;
  Triple window{fs[0], fs[1], fs[2]};
  auto dims = windowDims(op, os, "outputShape " + osText, window, "filter " + ops::describe(filter),
                         strides, same, {1, 1, 1});
  if (dims[0].out != xs[1] || dims[1].out != xs[2] || dims[2].out != xs[3])
    fail(op, "outputShape ", osText, " is inconsistent with x ", ops::describe(x), ", filter ",
         ops::describe(filter), ", strides ", tripleString(strides), " and padding ",
         padding == Padding::same ? "same" : "valid", ": a conv3d over outputShape gives ",
         dims[0].out, "x", dims[1].out, "x", dims[2].out, ", not ", xs[1], "x", xs[2], "x", xs[3]);
  // The forward conv3d drops TF.js's overhang first: transpose onto the rest,
  // then give the dropped elements back as zeros.
  Overhang drop = sameOverhang(os, window, strides, {1, 1, 1}, same);
  Shape inner = shrunk(os, drop);
  dims = windowDims(op, inner, "", window, "", strides, same, {1, 1, 1});
  int64_t n = xs[0], d = xs[1], oc = os[4], fd = fs[0], sd = strides[0];
  int64_t oh = inner[2], ow = inner[3];
  // Every input plane through every depth tap at once: one conv2dTranspose
  // with the taps side by side as output channels.
  Tensor planes =
      conv2dTranspose(reshape(x, {n * d, xs[2], xs[3], xs[4]}), depthTapsAsChannels(filter),
                      {n * d, oh, ow, fd * oc}, {strides[1], strides[2]}, padding);
  planes = reshape(planes, {n, d, oh, ow, fd, oc});
  // Input plane i, tap k lands on padded output plane i*sd + k: space the
  // input planes sd apart, then shift each tap by k and add.
  int64_t spaced = (d - 1) * sd + 1;
  if (sd > 1) {
    Tensor gaps = zeros({n, d, sd - 1, oh, ow, fd, oc});
    planes = concat({reshape(planes, {n, d, 1, oh, ow, fd, oc}), gaps}, 2);
    planes = slice(reshape(planes, {n, d * sd, oh, ow, fd, oc}), {0, 0, 0, 0, 0, 0},
                   {n, spaced, oh, ow, fd, oc});
  }
  int64_t full = std::max(spaced + fd - 1, dims[0].padBefore + inner[1]);
  Tensor sum;
  for (int64_t k = 0; k < fd; ++k) {
    Tensor tap = reshape(slice(planes, {0, 0, 0, 0, k, 0}, {n, spaced, oh, ow, 1, oc}),
                         {n, spaced, oh, ow, oc});
    tap = pad(tap, {{0, 0}, {k, full - k - spaced}, {0, 0}, {0, 0}, {0, 0}});
    sum = k == 0 ? tap : add(sum, tap);
  }
  Tensor y = slice(sum, {0, dims[0].padBefore, 0, 0, 0}, inner);
  if (!any(drop)) return y;
  return pad(y, {{0, 0}, drop[0], drop[1], drop[2], {0, 0}});
}

Tensor maxPool3d(const Tensor& x, Triple filterSize, Triple strides, Padding padding) {
  return pool3d("maxPool3d", true, x, filterSize, strides, padding);
}

Tensor avgPool3d(const Tensor& x, Triple filterSize, Triple strides, Padding padding) {
  return pool3d("avgPool3d", false, x, filterSize, strides, padding);
}

}  // namespace glint
