// Convolutions and pooling, NHWC, one output element per invocation of
// value(): the forward kernels gather their window; the backprops gather every
// output that read an element (dx) or walk batch and output positions (dfilter).
#include <algorithm>

#include "src/backends/gl/kernels.h"
#include "src/backends/gl/shader.h"
#include "src/ops/conv_util.h"

namespace glint::gl {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

void reg(const char* name, KernelFn fn) { registerKernel(name, "gl", std::move(fn)); }

/// GLSL constants of a window geometry (x [N,H,W,C] -> y [N,OH,OW,OC]).
std::string geometry(const conv::Geometry& g) {
  return "const int H = " + str(g.inH) + ", W = " + str(g.inW) + ", C = " + str(g.inC) +
         ", OH = " + str(g.outH) + ", OW = " + str(g.outW) + ", OC = " + str(g.outC) +
         ", N = " + str(g.batch) + ";\nconst int FH = " + str(g.fh) + ", FW = " + str(g.fw) +
         ", SH = " + str(g.strideH) + ", SW = " + str(g.strideW) + ", DH = " + str(g.dilH) +
         ", DW = " + str(g.dilW) + ", PT = " + str(g.padTop) + ", PL = " + str(g.padLeft) + ";\n";
}

/// Statements: decompose NHWC flat index e of [N, R, S, CH] into n, r, s, ch.
std::string nhwc(const std::string& e, const std::string& R, const std::string& S,
                 const std::string& CH, const char* r, const char* s, const char* ch) {
  return "int " + std::string(ch) + " = " + e + " % " + CH + "; int " + s + " = (" + e + " / " + CH +
         ") % " + S + "; int " + r + " = (" + e + " / (" + CH + " * " + S + ")) % " + R +
         "; int n = " + e + " / (" + CH + " * " + S + " * " + R + ");\n";
}

/// Kahan-compensated float accumulation into vec2 acc.
const char* kAdd = "float y_ = term - acc.y; float t_ = acc.x + y_; acc.y = (t_ - acc.x) - y_; acc.x = t_;";

/// x [N,H,W,C] * f [FH,FW,C,Q] -> y; depthwise: y channel oc = c * Q + q.
void forward(KernelArgs& a, bool depthwise) {
  conv::Geometry g(a.inputs[0].shape(), a.outputs[0].shape(), a.attrs);
  glBackend(a).checkLoop(a.kernel, g.fh * g.fw * (depthwise ? 1 : g.inC + 1));
  int64_t q = a.inputs[1].shape()[3];
  std::string s = geometry(g) + "const int Q = " + str(q) + ";\nfloat value(int e) {\n  " +
                  nhwc("e", "OH", "OW", "OC", "oh", "ow", "oc");
  s += depthwise ? "  int c0 = oc / Q, q = oc % Q;\n" : "";
  s += "  float acc = 0.0;\n  for (int kh = 0; kh < FH; ++kh) {\n    int ih = oh * SH + kh * DH - PT;\n"
       "    if (ih < 0 || ih >= H) continue;\n    for (int kw = 0; kw < FW; ++kw) {\n"
       "      int iw = ow * SW + kw * DW - PL;\n      if (iw < 0 || iw >= W) continue;\n"
       "      int xb = ((n * H + ih) * W + iw) * C;\n      int fb = (kh * FW + kw) * C;\n";
  s += depthwise ? "      acc += in0(xb + c0) * in1((fb + c0) * Q + q);\n"
                 : "      for (int c = 0; c < C; ++c) acc += in0(xb + c) * in1((fb + c) * Q + oc);\n";
  s += "    }\n  }\n  return acc;\n}\n";
  runElementwise(glBackend(a), s, a.inputs, a.outputs[0]);
}

/// (dy, f) -> dx: every output position (oh, ow) whose window put tap (kh, kw) on (ih, iw).
void backpropInput(KernelArgs& a, bool depthwise) {
  conv::Geometry g(a.outputs[0].shape(), a.inputs[0].shape(), a.attrs);
  int64_t q = a.inputs[1].shape()[3];
  std::string s = geometry(g) + "const int Q = " + str(q) + ";\nfloat value(int e) {\n  " +
                  nhwc("e", "H", "W", "C", "ih", "iw", "c");
  s += "  vec2 acc = vec2(0.0);\n  for (int kh = 0; kh < FH; ++kh) {\n"
       "    int rh = ih + PT - kh * DH;\n    if (rh < 0 || rh % SH != 0 || rh / SH >= OH) continue;\n"
       "    int oh = rh / SH;\n    for (int kw = 0; kw < FW; ++kw) {\n"
       "      int rw = iw + PL - kw * DW;\n      if (rw < 0 || rw % SW != 0 || rw / SW >= OW) continue;\n"
       "      int ow = rw / SW;\n      int yb = ((n * OH + oh) * OW + ow) * OC;\n"
       "      int fb = ((kh * FW + kw) * C + c) * Q;\n";
  s += depthwise ? "      for (int j = 0; j < Q; ++j) { float term = in0(yb + c * Q + j) * in1(fb + j); "
                 : "      for (int j = 0; j < OC; ++j) { float term = in0(yb + j) * in1(fb + j); ";
  s += std::string(kAdd) + " }\n    }\n  }\n  return acc.x;\n}\n";
  runElementwise(glBackend(a), s, a.inputs, a.outputs[0]);
}

/// (x, dy) -> df [FH,FW,C,Q]: sums x * dy over batch and output positions.
/// A filter has few elements and each sums N*OH*OW terms: one fragment per
/// element would leave a GPU nearly idle (72 fragments for a 3x3x1x8 filter,
/// each a serial sum of 43,264 terms at batch 64 on 26x26). Long sums are
/// split: pass 1 writes ~sqrt(window) partial sums per element, each over a
/// contiguous range of (n, oh, ow), all in parallel; pass 2 adds each
/// element's partials.
void backpropFilter(KernelArgs& a, bool depthwise) {
  conv::Geometry g(a.inputs[0].shape(), a.inputs[1].shape(), a.attrs);
  const int64_t window = g.batch * g.outH * g.outW;
  int64_t parts = 1;
  if (window >= 4096)
    while (parts * parts < window) ++parts;
  const int64_t len = (window + parts - 1) / parts;
  GlBackend& gl = glBackend(a);
  gl.checkLoop(a.kernel, std::max(len, parts));
  Tensor& out = a.outputs[0];
  int64_t q = out.shape()[3];
  std::string s = geometry(g) + "const int Q = " + str(q) + ", P = " + str(parts) +
                  ", L = " + str(len) + ", R = " + str(window) +
                  ";\nfloat value(int o) {\n  int p = o % P; int e = o / P;\n"
                  "  int j = e % Q; int c = (e / Q) % C; int kw = (e / (Q * C)) % FW;"
                  " int kh = e / (Q * C * FW);\n";
  s += depthwise ? "  int oc = c * Q + j;\n" : "  int oc = j;\n";
  s += "  vec2 acc = vec2(0.0);\n  int end = min(R, p * L + L);\n"
       "  for (int r = p * L; r < end; ++r) {\n"
       "    int ow = r % OW; int oh = (r / OW) % OH; int n = r / (OW * OH);\n"
       "    int ih = oh * SH + kh * DH - PT;\n    if (ih < 0 || ih >= H) continue;\n"
       "    int iw = ow * SW + kw * DW - PL;\n    if (iw < 0 || iw >= W) continue;\n"
       "    float term = in0(((n * H + ih) * W + iw) * C + c) * in1(((n * OH + oh) * OW + ow) * OC + oc);\n    ";
  s += std::string(kAdd) + "\n  }\n  return acc.x;\n}\n";
  if (parts == 1) {
    runElementwise(gl, s, a.inputs, out);
    return;
  }
  const int64_t count = out.size() * parts;
  const size_t bytes = static_cast<size_t>(count) * sizeof(float);
  Texture* partial = static_cast<Texture*>(gl.allocate(bytes));
  try {
    runElementwise(gl, s, operands(a.inputs), *partial, DType::float32, count);
    std::string sum = "const int P = " + str(parts) +
                      ";\nfloat value(int o) {\n  vec2 acc = vec2(0.0);\n"
                      "  for (int r = o * P; r < o * P + P; ++r) { float term = in0(r); " +
                      std::string(kAdd) + " }\n  return acc.x;\n}\n";
    runElementwise(gl, sum, {Operand{partial, DType::float32}}, textureOf(out), DType::float32,
                   out.size());
  } catch (...) {
    gl.release(partial, bytes);
    throw;
  }
  gl.release(partial, bytes);
}

/// GLSL: `int argMaxTap(n, oh, ow, c)`: flat x index of the window's first
/// maximum (-1 when no tap is in bounds), x being input `slot`.
std::string argMaxTap(const std::string& slot) {
  return "int argMaxTap(int n, int oh, int ow, int c) {\n  int best = -1; float bv = 0.0;\n"
         "  for (int kh = 0; kh < FH; ++kh) {\n    int ih = oh * SH + kh * DH - PT;\n"
         "    if (ih < 0 || ih >= H) continue;\n    for (int kw = 0; kw < FW; ++kw) {\n"
         "      int iw = ow * SW + kw * DW - PL;\n      if (iw < 0 || iw >= W) continue;\n"
         "      int xi = ((n * H + ih) * W + iw) * C + c;\n      float v = in" + slot + "(xi);\n"
         "      if (best < 0 || (v > bv && !isnan(v) && !isnan(bv))) { best = xi; bv = v; }\n"
         "    }\n  }\n  return best;\n}\n";
}

/// Taps of window (oh, ow) inside the input.
const char* kCount =
    "int tapCount(int oh, int ow) {\n  int count = 0;\n  for (int kh = 0; kh < FH; ++kh)\n"
    "    for (int kw = 0; kw < FW; ++kw) {\n      int ih = oh * SH + kh * DH - PT, iw = ow * SW + kw * DW - PL;\n"
    "      if (ih >= 0 && ih < H && iw >= 0 && iw < W) ++count;\n    }\n  return count;\n}\n";

void maxPool(KernelArgs& a) {
  conv::Geometry g(a.inputs[0].shape(), a.outputs[0].shape(), a.attrs);
  std::string s = geometry(g) + argMaxTap("0") + "float value(int e) {\n  " +
                  nhwc("e", "OH", "OW", "OC", "oh", "ow", "c") +
                  "  int best = argMaxTap(n, oh, ow, c);\n  return best < 0 ? 0.0 : in0(best);\n}\n";
  runElementwise(glBackend(a), s, a.inputs, a.outputs[0]);
}

void avgPool(KernelArgs& a) {
  conv::Geometry g(a.inputs[0].shape(), a.outputs[0].shape(), a.attrs);
  std::string s = geometry(g) + "float value(int e) {\n  " +
                  nhwc("e", "OH", "OW", "OC", "oh", "ow", "c") +
                  "  float acc = 0.0; int count = 0;\n  for (int kh = 0; kh < FH; ++kh) {\n"
                  "    int ih = oh * SH + kh * DH - PT;\n    if (ih < 0 || ih >= H) continue;\n"
                  "    for (int kw = 0; kw < FW; ++kw) {\n      int iw = ow * SW + kw * DW - PL;\n"
                  "      if (iw < 0 || iw >= W) continue;\n      acc += in0(((n * H + ih) * W + iw) * C + c);\n"
                  "      ++count;\n    }\n  }\n  return count == 0 ? 0.0 : acc / float(count);\n}\n";
  runElementwise(glBackend(a), s, a.inputs, a.outputs[0]);
}

/// Statements looping over the windows (oh, ow) that contain input (ih, iw);
/// `body` runs for each.
std::string forEachWindowOf(const std::string& body) {
  return "  for (int kh = 0; kh < FH; ++kh) {\n    int rh = ih + PT - kh * DH;\n"
         "    if (rh < 0 || rh % SH != 0 || rh / SH >= OH) continue;\n    int oh = rh / SH;\n"
         "    for (int kw = 0; kw < FW; ++kw) {\n      int rw = iw + PL - kw * DW;\n"
         "      if (rw < 0 || rw % SW != 0 || rw / SW >= OW) continue;\n      int ow = rw / SW;\n"
         "      " + body + "\n    }\n  }\n";
}

/// (dy, x) -> dx: dy of every window whose first maximum is this element.
void maxPoolGrad(KernelArgs& a) {
  conv::Geometry g(a.inputs[1].shape(), a.inputs[0].shape(), a.attrs);
  std::string s = geometry(g) + argMaxTap("1") + "float value(int e) {\n  " +
                  nhwc("e", "H", "W", "C", "ih", "iw", "c") + "  float acc = 0.0;\n" +
                  forEachWindowOf("if (argMaxTap(n, oh, ow, c) == e) acc += in0(((n * OH + oh) * OW + ow) * OC + c);") +
                  "  return acc;\n}\n";
  runElementwise(glBackend(a), s, a.inputs, a.outputs[0]);
}

/// (dy) -> dx: each window's dy shared equally by its in-bounds taps.
void avgPoolGrad(KernelArgs& a) {
  conv::Geometry g(a.outputs[0].shape(), a.inputs[0].shape(), a.attrs);
  std::string s = geometry(g) + kCount + "float value(int e) {\n  " +
                  nhwc("e", "H", "W", "C", "ih", "iw", "c") + "  float acc = 0.0;\n" +
                  forEachWindowOf("acc += in0(((n * OH + oh) * OW + ow) * OC + c) / float(tapCount(oh, ow));") +
                  "  return acc;\n}\n";
  runElementwise(glBackend(a), s, a.inputs, a.outputs[0]);
}

}  // namespace

void registerConvKernels() {
  reg("Conv2D", [](KernelArgs& a) { forward(a, false); });
  reg("Conv2DBackpropInput", [](KernelArgs& a) { backpropInput(a, false); });
  reg("Conv2DBackpropFilter", [](KernelArgs& a) { backpropFilter(a, false); });
  reg("DepthwiseConv2dNative", [](KernelArgs& a) { forward(a, true); });
  reg("DepthwiseConv2dNativeBackpropInput", [](KernelArgs& a) { backpropInput(a, true); });
  reg("DepthwiseConv2dNativeBackpropFilter", [](KernelArgs& a) { backpropFilter(a, true); });
  reg("MaxPool", maxPool);
  reg("MaxPoolGrad", maxPoolGrad);
  reg("AvgPool", avgPool);
  reg("AvgPoolGrad", avgPoolGrad);
}

}  // namespace glint::gl
