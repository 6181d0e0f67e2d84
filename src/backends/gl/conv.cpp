// Convolutions and pooling, NHWC. The forward kernels gather their window; the
// backprops gather every output that read an element (dx) or walk batch and
// output positions (dfilter). Where the channels come in whole texels (a
// multiple of 4), a fragment computes a texel of 4 channels with vector
// arithmetic on whole input texels: a software renderer is bound by texel
// fetches and index arithmetic, which this cuts 4-16 times (the cnn's
// convolutions on SwiftShader: ~5x). From a million multiply-adds those
// convolutions run as row-block products instead (conv_blocked.h, another
// 2-4x). Other shapes take one output element per invocation of value().
#include <algorithm>

#include "src/backends/gl/conv_blocked.h"
#include "src/backends/gl/kernels.h"
#include "src/backends/gl/shader.h"
#include "src/core/kernel_selection.h"
#include "src/geometry/conv_geometry.h"

namespace glint::gl {

std::string convConstants(const conv::Geometry& g) {
  auto str = [](int64_t v) { return std::to_string(v); };
  return "const int H = " + str(g.inH) + ", W = " + str(g.inW) + ", C = " + str(g.inC) +
         ", OH = " + str(g.outH) + ", OW = " + str(g.outW) + ", OC = " + str(g.outC) +
         ", N = " + str(g.batch) + ";\nconst int FH = " + str(g.fh) + ", FW = " + str(g.fw) +
         ", SH = " + str(g.strideH) + ", SW = " + str(g.strideW) + ", DH = " + str(g.dilH) +
         ", DW = " + str(g.dilW) + ", PT = " + str(g.padTop) + ", PL = " + str(g.padLeft) + ";\n";
}

namespace {

std::string str(int64_t v) { return std::to_string(v); }

void reg(const char* name, KernelFn fn) { registerKernel(name, "gl", std::move(fn)); }

/// Statements: decompose NHWC flat index e of [N, R, S, CH] into n, r, s, ch.
std::string nhwc(const std::string& e, const std::string& R, const std::string& S,
                 const std::string& CH, const char* r, const char* s, const char* ch) {
  return "int " + std::string(ch) + " = " + e + " % " + CH + "; int " + s + " = (" + e + " / " +
         CH + ") % " + S + "; int " + r + " = (" + e + " / (" + CH + " * " + S + ")) % " + R +
         "; int n = " + e + " / (" + CH + " * " + S + " * " + R + ");\n";
}

/// Kahan-compensated float accumulation into vec2 acc.
const char* kAdd =
    "float y_ = term - acc.y; float t_ = acc.x + y_; acc.y = (t_ - acc.x) - y_; acc.x = t_;";

/// GLSL statements: decompose texel t of an NHWC tensor [N, R, S, 4 * CH4]
/// into n, r, s and the channel texel ch4.
std::string nhwcTexel(const std::string& R, const std::string& S, const std::string& CH4,
                      const char* r, const char* s, const char* ch4) {
  return nhwc("t", R, S, CH4, r, s, ch4);
}

/// Conv2D with OC % 4 == 0: a texel of 4 output channels per fragment; with
/// C % 4 == 0 too, the window is read a texel of 4 input channels at a time
/// (1 texel of x and 4 of f per 16 multiply-adds).
void forwardTexels(KernelArgs& a, const conv::Geometry& g) {
  GlBackend& gl = glBackend(a);
  gl.checkLoop(a.kernel, g.fh * g.fw * (g.inC + 1));
  std::string s = convConstants(g) + "const int OC4 = OC / 4;\nvec4 texelValue(int t) {\n  " +
                  nhwcTexel("OH", "OW", "OC4", "oh", "ow", "oc4") +
                  "  vec4 acc = vec4(0.0);\n  for (int kh = 0; kh < FH; ++kh) {\n"
                  "    int ih = oh * SH + kh * DH - PT;\n    if (ih < 0 || ih >= H) continue;\n"
                  "    for (int kw = 0; kw < FW; ++kw) {\n      int iw = ow * SW + kw * DW - PL;\n"
                  "      if (iw < 0 || iw >= W) continue;\n"
                  "      int xb = ((n * H + ih) * W + iw) * C;\n"
                  "      int fr = (kh * FW + kw) * C * OC4 + oc4;\n";
  s += g.inC % 4 == 0
           ? "      for (int c = 0; c < C; c += 4) {\n        vec4 x = ftexel0((xb + c) >> 2);\n"
             "        int f = fr + c * OC4;\n        acc += x.x * ftexel1(f) + x.y * ftexel1(f + "
             "OC4) +"
             " x.z * ftexel1(f + 2 * OC4) + x.w * ftexel1(f + 3 * OC4);\n      }\n"
           : "      for (int c = 0; c < C; ++c) acc += in0(xb + c) * ftexel1(fr + c * OC4);\n";
  s += "    }\n  }\n  return acc;\n}\n";
  runTexels(gl, s, operands(a.inputs), textureOf(a.outputs[0]), a.outputs[0].size() / 4);
}

/// x [N,H,W,C] * f [FH,FW,C,Q] -> y; depthwise: y channel oc = c * Q + q.
void forward(KernelArgs& a, bool depthwise) {
  conv::Geometry g(a.inputs[0].shape(), a.outputs[0].shape(), a.attrs);
  if (!depthwise && g.outC % 4 == 0) {
    if (conv2dBlocked(a, g)) return;
    return forwardTexels(a, g);
  }
  glBackend(a).checkLoop(a.kernel, g.fh * g.fw * (depthwise ? 1 : g.inC + 1));
  int64_t q = a.inputs[1].shape()[3];
  std::string s = convConstants(g) + "const int Q = " + str(q) + ";\nfloat value(int e) {\n  " +
                  nhwc("e", "OH", "OW", "OC", "oh", "ow", "oc");
  s += depthwise ? "  int c0 = oc / Q, q = oc % Q;\n" : "";
  s += "  float acc = 0.0;\n  for (int kh = 0; kh < FH; ++kh) {\n    int ih = oh * SH + kh * DH - "
       "PT;\n"
       "    if (ih < 0 || ih >= H) continue;\n    for (int kw = 0; kw < FW; ++kw) {\n"
       "      int iw = ow * SW + kw * DW - PL;\n      if (iw < 0 || iw >= W) continue;\n"
       "      int xb = ((n * H + ih) * W + iw) * C;\n      int fb = (kh * FW + kw) * C;\n";
  s += depthwise
           ? "      acc += in0(xb + c0) * in1((fb + c0) * Q + q);\n"
           : "      for (int c = 0; c < C; ++c) acc += in0(xb + c) * in1((fb + c) * Q + oc);\n";
  s += "    }\n  }\n  return acc;\n}\n";
  runElementwise(glBackend(a), s, a.inputs, a.outputs[0]);
}

/// Conv2DBackpropInput with C % 4 == 0 and OC % 4 == 0: a texel of 4 input
/// channels per fragment, dy and f read a texel of 4 output channels at a time.
void backpropInputTexels(KernelArgs& a, const conv::Geometry& g) {
  GlBackend& gl = glBackend(a);
  std::string s = convConstants(g) +
                  "const int C4 = C / 4, OC4 = OC / 4;\nvec4 texelValue(int t) {\n  " +
                  nhwcTexel("H", "W", "C4", "ih", "iw", "c4") +
                  "  vec4 acc = vec4(0.0), comp = vec4(0.0);\n  for (int kh = 0; kh < FH; ++kh) {\n"
                  "    int rh = ih + PT - kh * DH;\n"
                  "    if (rh < 0 || rh % SH != 0 || rh / SH >= OH) continue;\n"
                  "    int oh = rh / SH;\n    for (int kw = 0; kw < FW; ++kw) {\n"
                  "      int rw = iw + PL - kw * DW;\n"
                  "      if (rw < 0 || rw % SW != 0 || rw / SW >= OW) continue;\n"
                  "      int ow = rw / SW;\n      int y = ((n * OH + oh) * OW + ow) * OC4;\n"
                  "      int f = ((kh * FW + kw) * C + 4 * c4) * OC4;\n"
                  "      for (int o = 0; o < OC4; ++o) {\n        vec4 d = ftexel0(y + o);\n"
                  "        vec4 term = vec4(dot(d, ftexel1(f + o)), dot(d, ftexel1(f + OC4 + o)),"
                  " dot(d, ftexel1(f + 2 * OC4 + o)), dot(d, ftexel1(f + 3 * OC4 + o)));\n"
                  "        " +
                  std::string(kKahanAdd4) + "\n      }\n    }\n  }\n  return acc;\n}\n";
  runTexels(gl, s, operands(a.inputs), textureOf(a.outputs[0]), a.outputs[0].size() / 4);
}

/// (dy, f) -> dx: every output position (oh, ow) whose window put tap (kh, kw) on (ih, iw).
void backpropInput(KernelArgs& a, bool depthwise) {
  conv::Geometry g(a.outputs[0].shape(), a.inputs[0].shape(), a.attrs);
  if (!depthwise && g.inC % 4 == 0 && g.outC % 4 == 0) {
    if (conv2dBackpropInputBlocked(a, g)) return;
    return backpropInputTexels(a, g);
  }
  int64_t q = a.inputs[1].shape()[3];
  std::string s = convConstants(g) + "const int Q = " + str(q) + ";\nfloat value(int e) {\n  " +
                  nhwc("e", "H", "W", "C", "ih", "iw", "c");
  s += "  vec2 acc = vec2(0.0);\n  for (int kh = 0; kh < FH; ++kh) {\n"
       "    int rh = ih + PT - kh * DH;\n    if (rh < 0 || rh % SH != 0 || rh / SH >= OH) "
       "continue;\n"
       "    int oh = rh / SH;\n    for (int kw = 0; kw < FW; ++kw) {\n"
       "      int rw = iw + PL - kw * DW;\n      if (rw < 0 || rw % SW != 0 || rw / SW >= OW) "
       "continue;\n"
       "      int ow = rw / SW;\n      int yb = ((n * OH + oh) * OW + ow) * OC;\n"
       "      int fb = ((kh * FW + kw) * C + c) * Q;\n";
  s += depthwise
           ? "      for (int j = 0; j < Q; ++j) { float term = in0(yb + c * Q + j) * in1(fb + j); "
           : "      for (int j = 0; j < OC; ++j) { float term = in0(yb + j) * in1(fb + j); ";
  s += std::string(kAdd) + " }\n    }\n  }\n  return acc.x;\n}\n";
  runElementwise(glBackend(a), s, a.inputs, a.outputs[0]);
}

/// Conv2DBackpropFilter with OC % 4 == 0: a texel of 4 output channels of
/// df per fragment (x * a texel of dy per step), the sum split as in
/// backpropFilter below, the parts over whole output rows (n, oh) so that
/// the inner loop runs along ow without index division.
void backpropFilterTexels(KernelArgs& a, const conv::Geometry& g) {
  GlBackend& gl = glBackend(a);
  const int64_t rows = g.batch * g.outH, window = rows * g.outW;
  int64_t len = rows;  // rows per part
  if (window >= 4096) {
    int64_t root = 1;
    while (root * root < window) ++root;
    len = std::max<int64_t>(1, root / g.outW);
  }
  const int64_t parts = (rows + len - 1) / len;
  gl.checkLoop(a.kernel, std::max({len, parts, g.outW}));
  Tensor& out = a.outputs[0];
  const int64_t texels = out.size() / 4;
  std::string s = convConstants(g) + "const int OC4 = OC / 4, P = " + str(parts) +
                  ", L = " + str(len) + ", ROWS = " + str(rows) +
                  ";\nvec4 texelValue(int o) {\n"
                  "  int p = o % P; int t = o / P;\n  int oc4 = t % OC4; int e = t / OC4;\n"
                  "  int c = e % C; int kw = (e / C) % FW; int kh = e / (C * FW);\n"
                  "  vec4 acc = vec4(0.0), comp = vec4(0.0);\n  int end = min(ROWS, p * L + L);\n"
                  "  for (int u = p * L; u < end; ++u) {\n    int oh = u % OH; int n = u / OH;\n"
                  "    int ih = oh * SH + kh * DH - PT;\n    if (ih < 0 || ih >= H) continue;\n"
                  "    int x = (n * H + ih) * W * C + c;\n    int y = u * OW * OC4 + oc4;\n"
                  "    for (int ow = 0; ow < OW; ++ow) {\n      int iw = ow * SW + kw * DW - PL;\n"
                  "      if (iw < 0 || iw >= W) continue;\n"
                  "      vec4 term = in0(x + iw * C) * ftexel1(y + ow * OC4);\n      " +
                  std::string(kKahanAdd4) + "\n    }\n  }\n  return acc;\n}\n";
  if (parts == 1) return runTexels(gl, s, operands(a.inputs), textureOf(out), texels);
  // Partial texel (t, p) at t * P + p; the second pass adds each texel's P.
  ScratchTextures partial(gl, static_cast<size_t>(texels * parts) * 4 * sizeof(float), 1);
  runTexels(gl, s, operands(a.inputs), *partial.textures[0], texels * parts);
  std::string sum = "const int P = " + str(parts) +
                    ";\nvec4 texelValue(int t) {\n  vec4 acc = vec4(0.0), comp = vec4(0.0);\n"
                    "  for (int r = t * P; r < t * P + P; ++r) { vec4 term = ftexel0(r); " +
                    std::string(kKahanAdd4) + " }\n  return acc;\n}\n";
  runTexels(gl, sum, {Operand{partial.textures[0], DType::float32}}, textureOf(out), texels);
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
  if (!depthwise && g.outC % 4 == 0) {
    if (conv2dBackpropFilterBlocked(a, g)) return;
    return backpropFilterTexels(a, g);
  }
  const int64_t window = g.batch * g.outH * g.outW;
  int64_t parts = 1;
  if (window >= 4096)
    while (parts * parts < window) ++parts;
  const int64_t len = (window + parts - 1) / parts;
  GlBackend& gl = glBackend(a);
  gl.checkLoop(a.kernel, std::max(len, parts));
  Tensor& out = a.outputs[0];
  int64_t q = out.shape()[3];
  std::string s = convConstants(g) + "const int Q = " + str(q) + ", P = " + str(parts) +
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
       "    float term = in0(((n * H + ih) * W + iw) * C + c) * in1(((n * OH + oh) * OW + ow) * OC "
       "+ oc);\n    ";
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
         "      int xi = ((n * H + ih) * W + iw) * C + c;\n      float v = in" +
         slot +
         "(xi);\n"
         "      if (best < 0 || (v > bv && !isnan(v) && !isnan(bv))) { best = xi; bv = v; }\n"
         "    }\n  }\n  return best;\n}\n";
}

/// Taps of window (oh, ow) inside the input.
const char* kCount =
    "int tapCount(int oh, int ow) {\n  int count = 0;\n  for (int kh = 0; kh < FH; ++kh)\n"
    "    for (int kw = 0; kw < FW; ++kw) {\n      int ih = oh * SH + kh * DH - PT, iw = ow * SW + "
    "kw * DW - PL;\n"
    "      if (ih >= 0 && ih < H && iw >= 0 && iw < W) ++count;\n    }\n  return count;\n}\n";

/// GLSL: `ivec4 argMaxTaps(n, oh, ow, c4, out vec4 m)`: per channel of
/// texel c4, the tap (kh * FW + kw) of the window's first maximum (-1 when no
/// tap is in bounds) and that maximum in m (0 then), x being input `slot` with
/// C % 4 == 0. Component by component, unrolled: a software renderer takes
/// a dynamically indexed vector through memory.
std::string argMaxTaps(const std::string& slot) {
  std::string take;
  for (const char* j : {"x", "y", "z", "w"})
    take += std::string("        if (v.") + j + " > m." + j + " && !isnan(v." + j +
            ") && !isnan(m." + j + ")) { best." + j + " = tap; m." + j + " = v." + j + "; }\n";
  return "ivec4 argMaxTaps(int n, int oh, int ow, int c4, out vec4 m) {\n"
         "  ivec4 best = ivec4(-1); m = vec4(0.0);\n"
         "  for (int kh = 0; kh < FH; ++kh) {\n    int ih = oh * SH + kh * DH - PT;\n"
         "    if (ih < 0 || ih >= H) continue;\n    for (int kw = 0; kw < FW; ++kw) {\n"
         "      int iw = ow * SW + kw * DW - PL;\n      if (iw < 0 || iw >= W) continue;\n"
         "      int tap = kh * FW + kw;\n"
         "      vec4 v = ftexel" +
         slot +
         "(((n * H + ih) * W + iw) * (C / 4) + c4);\n"
         "      if (best.x < 0) { best = ivec4(tap); m = v; }\n      else {\n" +
         take + "      }\n    }\n  }\n  return best;\n}\n";
}

void maxPool(KernelArgs& a) {
  conv::Geometry g(a.inputs[0].shape(), a.outputs[0].shape(), a.attrs);
  if (g.inC % 4 == 0) {
    std::string s = convConstants(g) + argMaxTaps("0") + "vec4 texelValue(int t) {\n  " +
                    nhwcTexel("OH", "OW", "(C / 4)", "oh", "ow", "c4") +
                    "  vec4 m;\n  argMaxTaps(n, oh, ow, c4, m);\n  return m;\n}\n";
    return runTexels(glBackend(a), s, operands(a.inputs), textureOf(a.outputs[0]),
                     a.outputs[0].size() / 4);
  }
  std::string s =
      convConstants(g) + argMaxTap("0") + "float value(int e) {\n  " +
      nhwc("e", "OH", "OW", "OC", "oh", "ow", "c") +
      "  int best = argMaxTap(n, oh, ow, c);\n  return best < 0 ? 0.0 : in0(best);\n}\n";
  runElementwise(glBackend(a), s, a.inputs, a.outputs[0]);
}

void avgPool(KernelArgs& a) {
  conv::Geometry g(a.inputs[0].shape(), a.outputs[0].shape(), a.attrs);
  std::string s =
      convConstants(g) + "float value(int e) {\n  " + nhwc("e", "OH", "OW", "OC", "oh", "ow", "c") +
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
         "      " +
         body + "\n    }\n  }\n";
}

/// MaxPoolGrad with C % 4 == 0, a texel of 4 channels per fragment. Where
/// windows do not overlap and their taps fit the render targets (a 2x2 pool
/// of stride 2), each window is visited once instead of once per element:
/// one pass writes each tap's share of dy into that tap's texture, a second
/// gathers every element from its window's tap (or zero).
void maxPoolGradTexels(KernelArgs& a, const conv::Geometry& g) {
  GlBackend& gl = glBackend(a);
  Tensor& out = a.outputs[0];
  const int taps = static_cast<int>(g.fh * g.fw);
  const bool tiled = g.strideH >= (g.fh - 1) * g.dilH + 1 && g.strideW >= (g.fw - 1) * g.dilW + 1 &&
                     taps > 1 && taps <= gl.maxOutputs() && textureOf(out).tex;
  const std::string head = convConstants(g) + argMaxTaps("1");
  if (!tiled) {
    std::string s = head + "vec4 texelValue(int t) {\n  " +
                    nhwcTexel("H", "W", "(C / 4)", "ih", "iw", "c4") + "  vec4 acc = vec4(0.0);\n" +
                    forEachWindowOf(
                        "vec4 m; ivec4 best = argMaxTaps(n, oh, ow, c4, m); "
                        "vec4 d = ftexel0(((n * OH + oh) * OW + ow) * (C / 4) + c4); "
                        "int tap = kh * FW + kw; "
                        "if (best.x == tap) acc.x += d.x; if (best.y == tap) acc.y += d.y; "
                        "if (best.z == tap) acc.z += d.z; if (best.w == tap) acc.w += d.w;") +
                    "  return acc;\n}\n";
    return runTexels(gl, s, operands(a.inputs), textureOf(out), out.size() / 4);
  }
  const int64_t windows = a.inputs[0].size() / 4;  // dy texels
  ScratchTextures shares(gl, static_cast<size_t>(a.inputs[0].size()) * sizeof(float), taps);
  std::string s = prelude(a.inputs) + head;
  for (int k = 0; k < taps; ++k)
    s += "layout(location = " + str(k) + ") out uvec4 o_" + str(k) + ";\n";
  s += "void main() {\n" + fragmentTexel() + "  if (t >= " + str(windows) + ") return;\n  " +
       nhwcTexel("OH", "OW", "(C / 4)", "oh", "ow", "c4") +
       "  vec4 m;\n  ivec4 best = argMaxTaps(n, oh, ow, c4, m);\n  vec4 d = ftexel0(t);\n";
  for (int k = 0; k < taps; ++k) {
    const std::string K = str(k);
    s += "  o_" + K + " = floatBitsToUint(vec4(best.x == " + K + " ? d.x : 0.0, best.y == " + K +
         " ? d.y : 0.0, best.z == " + K + " ? d.z : 0.0, best.w == " + K + " ? d.w : 0.0));\n";
  }
  s += "}\n";
  gl.draw(gl.program(s), {&textureOf(a.inputs[0]), &textureOf(a.inputs[1])}, shares.textures);

  std::vector<Operand> parts;
  for (Texture* t : shares.textures) parts.push_back(Operand{t, DType::float32});
  Texture& target = textureOf(out);
  std::string gather =
      prelude(parts) + convConstants(g) + "out uvec4 o_texel;\nvoid main() {\n" + fragmentTexel() +
      "  if (t >= " + str(out.size() / 4) + ") { o_texel = uvec4(0u); return; }\n  " +
      nhwcTexel("H", "W", "(C / 4)", "ih", "iw", "c4") +
      "  int oh = (ih + PT) / SH, ow = (iw + PL) / SW;\n"
      "  int kh = ih + PT - oh * SH, kw = iw + PL - ow * SW;\n"
      "  if (oh >= OH || ow >= OW || kh % DH != 0 || kw % DW != 0 || kh / DH >= FH ||"
      " kw / DW >= FW) { o_texel = uvec4(0u); return; }\n" +
      gatherTexel(taps, "(kh / DH) * FW + kw / DW", "((n * OH + oh) * OW + ow) * (C / 4) + c4",
                  target) +
      "}\n";
  std::vector<const Texture*> partTextures(shares.textures.begin(), shares.textures.end());
  gl.draw(gl.program(gather), partTextures, target);
}

/// (dy, x) -> dx: dy of every window whose first maximum is this element.
void maxPoolGrad(KernelArgs& a) {
  conv::Geometry g(a.inputs[1].shape(), a.inputs[0].shape(), a.attrs);
  if (g.inC % 4 == 0) return maxPoolGradTexels(a, g);
  std::string s =
      convConstants(g) + argMaxTap("1") + "float value(int e) {\n  " +
      nhwc("e", "H", "W", "C", "ih", "iw", "c") + "  float acc = 0.0;\n" +
      forEachWindowOf(
          "if (argMaxTap(n, oh, ow, c) == e) acc += in0(((n * OH + oh) * OW + ow) * OC + c);") +
      "  return acc;\n}\n";
  runElementwise(glBackend(a), s, a.inputs, a.outputs[0]);
}

/// (dy) -> dx: each window's dy shared equally by its in-bounds taps.
void avgPoolGrad(KernelArgs& a) {
  conv::Geometry g(a.outputs[0].shape(), a.inputs[0].shape(), a.attrs);
  std::string s =
      convConstants(g) + kCount + "float value(int e) {\n  " +
      nhwc("e", "H", "W", "C", "ih", "iw", "c") + "  float acc = 0.0;\n" +
      forEachWindowOf("acc += in0(((n * OH + oh) * OW + ow) * OC + c) / float(tapCount(oh, ow));") +
      "  return acc;\n}\n";
  runElementwise(glBackend(a), s, a.inputs, a.outputs[0]);
}

}  // namespace

void registerConvKernels() {
  GLINT_REGISTER(reg, "Conv2D", [](KernelArgs& a) { forward(a, false); });
  GLINT_REGISTER(reg, "Conv2DBackpropInput", [](KernelArgs& a) { backpropInput(a, false); });
  GLINT_REGISTER(reg, "Conv2DBackpropFilter", [](KernelArgs& a) { backpropFilter(a, false); });
  GLINT_REGISTER(reg, "DepthwiseConv2dNative", [](KernelArgs& a) { forward(a, true); });
  GLINT_REGISTER(reg, "DepthwiseConv2dNativeBackpropInput",
                 [](KernelArgs& a) { backpropInput(a, true); });
  GLINT_REGISTER(reg, "DepthwiseConv2dNativeBackpropFilter",
                 [](KernelArgs& a) { backpropFilter(a, true); });
  GLINT_REGISTER(reg, "MaxPool", maxPool);
  GLINT_REGISTER(reg, "MaxPoolGrad", maxPoolGrad);
  GLINT_REGISTER(reg, "AvgPool", avgPool);
  GLINT_REGISTER(reg, "AvgPoolGrad", avgPoolGrad);
}

}  // namespace glint::gl
