#include "src/backends/gl/conv_blocked.h"

#include "src/backends/gl/blocked_product.h"

namespace glint::gl {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

const char* kIdentity = "float act_(float x) { return x; }\nfloat bias_(int j) { return 0.0; }\n";

/// GLSL `vec4 xTexel(n, ih, iw, c4)`: texel c4 of x's pixel, zeros outside
/// (padding); x is input 0 with C % 4 == 0.
const char* kXTexel =
    "vec4 xTexel(int n, int ih, int iw, int c4) {\n"
    "  if (ih < 0 || ih >= H || iw < 0 || iw >= W) return vec4(0.0);\n"
    "  return ftexel0(((n * H + ih) * W + iw) * (C / 4) + c4);\n}\n";

/// Statements: the rows i0..i0+R-1 (clamped to m - 1) as pixels of an NHWC
/// grid [N, R, S]: n<q>, r<q>, s<q>.
std::string pixelRows(int rows, int64_t m, const std::string& R, const std::string& S,
                      const char* r, const char* s) {
  std::string o;
  for (int q = 0; q < rows; ++q) {
    const std::string Q = str(q), i = "row" + Q;
    o += "  int " + i + " = min(i0 + " + Q + ", " + str(m - 1) + "); int " + s + Q + " = " + i +
         " % " + S + "; int " + r + Q + " = (" + i + " / " + S + ") % " + R + "; int n" + Q +
         " = " + i + " / (" + S + " * " + R + ");\n";
  }
  return o;
}

/// B [k, n] row-major (input 1): b_j = row 4p + j's four columns.
std::string rowMajorB(const std::string& N4) {
  return "    int r = 4 * p * " + N4 + " + c;\n    vec4 b0 = ftexel1(r), b1 = ftexel1(r + " + N4 +
         "), b2 = ftexel1(r + 2 * " + N4 + "), b3 = ftexel1(r + 3 * " + N4 + ");\n";
}

std::vector<Operand> ops(const KernelArgs& a) { return operands(a.inputs); }

/// Blocks take two programs and two draws: below about a million
/// multiply-adds (a one-sample predict) the texel kernels finish sooner, and
/// a fresh model's first predict compiles fewer shaders.
bool worthBlocks(const BlockedProduct& bp) { return bp.m * bp.n * bp.k >= (int64_t{1} << 20); }

/// Sizes `bp` as a product over output pixels (m rows) and says whether the
/// row blocks apply: channels in whole texels on both sides, at least a
/// block of rows, enough work.
bool pixelProduct(KernelArgs& a, const conv::Geometry& g, int64_t m, int64_t n, int64_t k,
                  BlockedProduct& bp) {
  GlBackend& gl = glBackend(a);
  bp.m = m;
  bp.n = n;
  bp.k = k;
  bp.rows = productRows(gl, m);
  if (g.inC % 4 != 0 || g.outC % 4 != 0 || bp.rows == 0 || !worthBlocks(bp)) return false;
  gl.checkLoop(a.kernel, k / 4);
  return true;
}

}  // namespace

// y [N*OH*OW, OC] = im2col(x) [.., FH*FW*C] * f [FH*FW*C, OC]: K texel p is
// tap p / (C/4), channel texel p % (C/4), read from x in place.
bool conv2dBlocked(KernelArgs& a, const conv::Geometry& g) {
  BlockedProduct bp;
  if (!pixelProduct(a, g, g.batch * g.outH * g.outW, g.outC, g.fh * g.fw * g.inC, bp)) return false;
  bp.funcs = convConstants(g) + kIdentity + kXTexel;
  bp.setup = pixelRows(bp.rows, bp.m, "OH", "OW", "oh", "ow");
  bp.step =
      "    int c4 = p % (C / 4); int tap = p / (C / 4);\n"
      "    int dh = (tap / FW) * DH - PT, dw = (tap % FW) * DW - PL;\n";
  bp.aRow = [](int q) {
    const std::string Q = str(q);
    return "xTexel(n" + Q + ", oh" + Q + " * SH + dh, ow" + Q + " * SW + dw, c4)";
  };
  bp.bTexels = rowMajorB("(OC / 4)");
  runBlockedProduct(glBackend(a), bp, ops(a), textureOf(a.outputs[0]));
  return true;
}

// dx [N*H*W, C] = dy taps [.., FH*FW*OC] * f^T: row (n, ih, iw) at tap (kh,
// kw) reads dy at the output pixel whose window put that tap on (ih, iw)
// (zeros where none did); f [FH,FW,C,OC] holds, per tap, B^T [C, OC].
bool conv2dBackpropInputBlocked(KernelArgs& a, const conv::Geometry& g) {
  BlockedProduct bp;
  if (!pixelProduct(a, g, g.batch * g.inH * g.inW, g.inC, g.fh * g.fw * g.outC, bp)) return false;
  bp.funcs = convConstants(g) + kIdentity +
             "vec4 dyTexel(int n, int rh, int rw, int o4) {\n"
             "  if (rh < 0 || rw < 0 || rh % SH != 0 || rw % SW != 0) return vec4(0.0);\n"
             "  int oh = rh / SH, ow = rw / SW;\n"
             "  if (oh >= OH || ow >= OW) return vec4(0.0);\n"
             "  return ftexel0(((n * OH + oh) * OW + ow) * (OC / 4) + o4);\n}\n";
  bp.setup = pixelRows(bp.rows, bp.m, "H", "W", "ih", "iw");
  bp.step =
      "    int o4 = p % (OC / 4); int tap = p / (OC / 4);\n"
      "    int dh = PT - (tap / FW) * DH, dw = PL - (tap % FW) * DW;\n";
  bp.aRow = [](int q) {
    const std::string Q = str(q);
    return "dyTexel(n" + Q + ", ih" + Q + " + dh, iw" + Q + " + dw, o4)";
  };
  bp.bTexels =
      "    int r = (tap * C + 4 * c) * (OC / 4) + o4;\n"
      "    vec4 b0 = ftexel1(r), b1 = ftexel1(r + OC / 4), b2 = ftexel1(r + 2 * (OC / 4)),"
      " b3 = ftexel1(r + 3 * (OC / 4));\n";
  bp.dotB = true;
  runBlockedProduct(glBackend(a), bp, ops(a), textureOf(a.outputs[0]));
  return true;
}

// df [FH*FW*C, OC] = im2col(x)^T * dy [N*OH*OW, OC]: a block's R rows are R
// channels of one tap (C % R == 0), so a step of K (an output pixel) reads
// R / 4 texels of x; K is split so that all cores share the long sum.
bool conv2dBackpropFilterBlocked(KernelArgs& a, const conv::Geometry& g) {
  GlBackend& gl = glBackend(a);
  BlockedProduct bp;
  bp.m = g.fh * g.fw * g.inC;
  bp.n = g.outC;
  bp.k = g.batch * g.outH * g.outW;
  bp.rows = productRows(gl, bp.m);
  if (bp.rows == 8 && g.inC % 8 != 0) bp.rows = 4;
  if (g.inC % 4 != 0 || g.outC % 4 != 0 || bp.k % 4 != 0 || bp.rows == 0 || bp.m < bp.rows ||
      !worthBlocks(bp))
    return false;
  const int64_t k4 = bp.k / 4;
  if (k4 >= 64)
    while (bp.splits * bp.splits < k4) ++bp.splits;
  gl.checkLoop(a.kernel, (k4 + bp.splits - 1) / bp.splits);
  bp.funcs = convConstants(g) + kIdentity + kXTexel;
  bp.setup =
      "  int tap = i0 / C; int c4 = (i0 % C) / 4;\n"
      "  int dh = (tap / FW) * DH - PT, dw = (tap % FW) * DW - PL;\n";
  const bool high = bp.rows > 4;
  for (int pp = 0; pp < 4; ++pp) {
    const std::string P = str(pp), r = "r" + P;
    bp.step += "    int " + r + " = 4 * p + " + P + "; int ow" + P + " = " + r + " % OW; int oh" +
               P + " = (" + r + " / OW) % OH; int n" + P + " = " + r + " / (OW * OH);\n";
    const std::string at = "(n" + P + ", oh" + P + " * SH + dh, ow" + P + " * SW + dw, c4";
    bp.step += "    vec4 l" + P + " = xTexel" + at + ");\n";
    if (high) bp.step += "    vec4 h" + P + " = xTexel" + at + " + 1);\n";
  }
  bp.aRow = transposedRow;
  bp.bTexels = rowMajorB("(OC / 4)");
  runBlockedProduct(gl, bp, ops(a), textureOf(a.outputs[0]));
  return true;
}

}  // namespace glint::gl
