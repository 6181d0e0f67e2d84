#include "src/backends/gl/blocked_product.h"

namespace glint::gl {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

std::string transposedRow(int q) {
  const char* lane[4] = {"x", "y", "z", "w"};
  std::string v = "vec4(";
  for (int pp = 0; pp < 4; ++pp)
    v += std::string(pp ? ", " : "") + (q < 4 ? "l" : "h") + str(pp) + "." + lane[q % 4];
  return v + ")";
}

int productRows(const GlBackend& gl, int64_t m) {
  const int rows = gl.maxOutputs() >= 8 ? 8 : 4;
  return m >= rows ? rows : 0;
}

void runBlockedProduct(GlBackend& gl, const BlockedProduct& p, const std::vector<Operand>& inputs,
                       Texture& out) {
  const int rows = p.rows;
  const int64_t blocks = (p.m + rows - 1) / rows;  // row blocks per batch
  const int64_t n4 = p.n / 4, k4 = p.k / 4;
  const int64_t span = (k4 + p.splits - 1) / p.splits;  // K texels per part
  const int64_t slabs = p.batches * p.splits;          // (batch, part) pairs
  const int64_t texels = slabs * blocks * n4;
  if (texels == 0 || !out.tex) return;
  const std::string N4 = str(n4), B = str(blocks), S = str(p.splits), R = str(rows);
  ScratchTextures parts(gl, static_cast<size_t>(texels) * 4 * sizeof(float), rows);

  // Part q, texel ((bi * S + part) * B + block) * N4 + c: row block * R + q.
  std::string s = prelude(inputs) + p.funcs;
  for (int q = 0; q < rows; ++q)
    s += "layout(location = " + str(q) + ") out uvec4 o_" + str(q) + ";\n";
  s += "void main() {\n" + fragmentTexel(*parts.textures[0]) + "  if (t >= " + str(texels) +
       ") return;\n  int c = t % " + N4 + "; int rest = t / " + N4 + ";\n  int i0 = (rest % " + B +
       ") * " + R + "; int slab = rest / " + B + ";\n  int bi = slab / " + S +
       "; int part = slab % " + S + ";\n" + p.setup;
  for (int q = 0; q < rows; ++q) s += "  vec4 acc" + str(q) + " = vec4(0.0);\n";
  s += "  int pEnd = min(" + str(k4) + ", part * " + str(span) + " + " + str(span) +
       ");\n  for (int p = part * " + str(span) + "; p < pEnd; ++p) {\n" + p.step + p.bTexels;
  const std::string product = p.dotB ? "vec4(dot(a, b0), dot(a, b1), dot(a, b2), dot(a, b3))"
                                     : "a.x * b0 + a.y * b1 + a.z * b2 + a.w * b3";
  for (int q = 0; q < rows; ++q)
    s += "    { vec4 a = " + p.aRow(q) + "; acc" + str(q) + " += " + product + "; }\n";
  s += "  }\n";
  if (p.splits == 1) {
    s += "  int j = 4 * c;\n  vec4 bias = vec4(bias_(j), bias_(j + 1), bias_(j + 2), bias_(j + 3));\n";
    for (int q = 0; q < rows; ++q) {
      std::string a = "acc" + str(q);
      s += "  " + a + " += bias;\n  " + a + " = vec4(act_(" + a + ".x), act_(" + a + ".y), act_(" +
           a + ".z), act_(" + a + ".w));\n";
    }
  }
  for (int q = 0; q < rows; ++q) s += "  o_" + str(q) + " = floatBitsToUint(acc" + str(q) + ");\n";
  s += "}\n";
  std::vector<const Texture*> textures;
  for (const Operand& o : inputs) textures.push_back(o.texture);
  gl.draw(gl.program(s), textures, parts.textures);

  // Output texel (bi, i, c) from part i % R: one texel, or the sum of the
  // splits' texels.
  std::vector<Operand> partOps;
  for (Texture* t : parts.textures) partOps.push_back(Operand{t, DType::float32});
  std::string g = prelude(partOps) + "out uvec4 o_texel;\nvoid main() {\n" + fragmentTexel(out) +
                  "  if (t >= " + str(p.batches * p.m * n4) + ") { o_texel = uvec4(0u); return; }\n" +
                  "  int c = t % " + N4 + "; int rest = t / " + N4 + ";\n  int i = rest % " +
                  str(p.m) + "; int bi = rest / " + str(p.m) + ";\n";
  const std::string from = "(bi * " + S + " * " + B + " + i / " + R + ") * " + N4 + " + c";
  if (p.splits == 1) {
    g += gatherTexel(rows, "i % " + R, from, out);
  } else {
    g += "  vec4 v = vec4(0.0);\n  int from = " + from + ";\n  switch (i % " + R + ") {\n";
    for (int q = 0; q < rows; ++q)
      g += "    " + (q + 1 < rows ? "case " + str(q) + ":" : std::string("default:")) +
           " for (int s = 0; s < " + S + "; ++s) v += ftexel" + str(q) + "(from + s * " +
           str(blocks * n4) + "); break;\n";
    g += "  }\n";
    g += out.half ? "  o_texel = uvec4(halfBits(v.x), halfBits(v.y), halfBits(v.z), halfBits(v.w));\n"
                  : "  o_texel = floatBitsToUint(v);\n";
  }
  g += "}\n";
  std::vector<const Texture*> partTextures(parts.textures.begin(), parts.textures.end());
  gl.draw(gl.program(g), partTextures, out);
}

}  // namespace glint::gl
