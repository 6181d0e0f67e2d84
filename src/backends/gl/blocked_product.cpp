#include "src/backends/gl/blocked_product.h"

namespace glint::gl {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

MatrixTexels::MatrixTexels(int input, const Texture& texture, int64_t rowTexels)
    : in_(str(input)),
      rowTexels_(rowTexels),
      width_(texture.extent.width),
      shift_(texture.extent.shift) {
  auto log2Of = [](int64_t v) {
    int64_t s = 0;
    while ((int64_t{1} << s) < v) ++s;
    return (int64_t{1} << s) == v ? s : -1;
  };
  fit_ = Fit::flat;
  if (rowTexels <= 0 || width_ <= 0) return;
  if (width_ % rowTexels == 0 && log2Of(width_ / rowTexels) >= 0) {
    fit_ = Fit::rowsPerTextureRow;
    per_ = width_ / rowTexels;
    perShift_ = log2Of(per_);
  } else if (rowTexels % width_ == 0) {
    fit_ = Fit::textureRowsPerRow;
    per_ = rowTexels / width_;
  }
}

std::string MatrixTexels::rowSetup(const std::string& name, const std::string& row) const {
  switch (fit_) {
    case Fit::rowsPerTextureRow:
      return "  ivec2 " + name + " = ivec2(((" + row + ") & " + str(per_ - 1) + ") * " +
             str(rowTexels_) + ", (" + row + ") >> " + str(perShift_) + ");\n";
    case Fit::textureRowsPerRow:
      return "  int " + name + " = (" + row + ") * " + str(per_) + ";\n";
    case Fit::flat:
      break;
  }
  return "  int " + name + " = (" + row + ") * " + str(rowTexels_) + ";\n";
}

std::string MatrixTexels::rowStep() const {
  if (fit_ != Fit::textureRowsPerRow) return "";
  return "    ivec2 pw" + in_ + " = ivec2(p & " + str(width_ - 1) + ", p >> " + str(shift_) +
         ");\n";
}

std::string MatrixTexels::rowTexel(const std::string& name) const {
  switch (fit_) {
    case Fit::rowsPerTextureRow:
      return "ftexelAt" + in_ + "(ivec2(" + name + ".x + p, " + name + ".y))";
    case Fit::textureRowsPerRow:
      return "ftexelAt" + in_ + "(ivec2(pw" + in_ + ".x, " + name + " + pw" + in_ + ".y))";
    case Fit::flat:
      break;
  }
  return "ftexel" + in_ + "(" + name + " + p)";
}

std::string MatrixTexels::columnSetup(const std::string& name, const std::string& first,
                                      const std::string& col) const {
  const std::string r = "  int " + name + "r = " + first + ";\n";
  switch (fit_) {
    case Fit::rowsPerTextureRow:
      return r + "  int " + name + "c = " + col + ";\n";
    case Fit::textureRowsPerRow:
      // Texture row of (row, col): row * per + (col >> shift); x = col & mask.
      return r + "  int " + name + "x = (" + col + ") & " + str(width_ - 1) + ";\n  int " + name +
             "y = " + name + "r * " + str(per_) + " + ((" + col + ") >> " + str(shift_) + ");\n";
    case Fit::flat:
      break;
  }
  return r + "  int " + name + "f = " + name + "r * " + str(rowTexels_) + " + (" + col + ");\n";
}

std::string MatrixTexels::columnStep(const std::string& name) const {
  switch (fit_) {
    case Fit::rowsPerTextureRow:
      if (per_ == 1)  // a matrix row per texture row
        return "    ivec2 " + name + " = ivec2(" + name + "c, " + name + "r + 4 * p);\n";
      // Rows g..g+3 (g a multiple of 4) share a texture row, or start one.
      return "    int " + name + "g = " + name + "r + 4 * p;\n    ivec2 " + name + " = ivec2((" +
             name + "g & " + str(per_ - 1) + ") * " + str(rowTexels_) + " + " + name + "c, " +
             name + "g >> " + str(perShift_) + ");\n";
    case Fit::textureRowsPerRow:
      return "    int " + name + " = " + name + "y + p * " + str(4 * per_) + ";\n";
    case Fit::flat:
      break;
  }
  return "    int " + name + " = " + name + "f + p * " + str(4 * rowTexels_) + ";\n";
}

std::string MatrixTexels::columnTexel(const std::string& name, int j, int dx) const {
  switch (fit_) {
    case Fit::rowsPerTextureRow: {
      const int64_t x = (j & (per_ - 1)) * rowTexels_ + dx, y = j >> perShift_;
      return "ftexelAt" + in_ + "(ivec2(" + name + ".x + " + str(x) + ", " + name + ".y + " +
             str(y) + "))";
    }
    case Fit::textureRowsPerRow:
      return "ftexelAt" + in_ + "(ivec2(" + name + "x + " + str(dx) + ", " + name + " + " +
             str(j * per_) + "))";
    case Fit::flat:
      break;
  }
  return "ftexel" + in_ + "(" + name + " + " + str(j * rowTexels_ + dx) + ")";
}

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
  const int64_t slabs = p.batches * p.splits;           // (batch, part) pairs
  const int64_t texels = slabs * blocks * n4;
  if (texels == 0 || !out.tex) return;
  const std::string N4 = str(n4), B = str(blocks), S = str(p.splits), R = str(rows);
  ScratchTextures parts(gl, static_cast<size_t>(texels) * 4 * sizeof(float), rows);

  // Part q, texel ((bi * S + part) * B + block) * N4 + c: row block * R + q.
  std::string s = prelude(inputs) + p.funcs;
  for (int q = 0; q < rows; ++q)
    s += "layout(location = " + str(q) + ") out uvec4 o_" + str(q) + ";\n";
  s += "void main() {\n" + fragmentTexel() + "  if (t >= " + str(texels) +
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
    s += "  int j = 4 * c;\n  vec4 bias = vec4(bias_(j), bias_(j + 1), bias_(j + 2), bias_(j + "
         "3));\n";
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
  std::string g = prelude(partOps) + "out uvec4 o_texel;\nvoid main() {\n" + fragmentTexel() +
                  "  if (t >= " + str(p.batches * p.m * n4) +
                  ") { o_texel = uvec4(0u); return; }\n" + "  int c = t % " + N4 +
                  "; int rest = t / " + N4 + ";\n  int i = rest % " + str(p.m) +
                  "; int bi = rest / " + str(p.m) + ";\n";
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
    g += out.half
             ? "  o_texel = uvec4(halfBits(v.x), halfBits(v.y), halfBits(v.z), halfBits(v.w));\n"
             : "  o_texel = floatBitsToUint(v);\n";
  }
  g += "}\n";
  std::vector<const Texture*> partTextures(parts.textures.begin(), parts.textures.end());
  gl.draw(gl.program(g), partTextures, out);
}

}  // namespace glint::gl
