#include "src/backends/gl/shader.h"

#include <cstdio>
#include <cstring>

#include "src/backends/gpu/printer.h"

namespace glint::gl {

const char* const kKahanAdd4 =
    "{ vec4 y_ = term - comp; vec4 t_ = acc + y_; comp = mix((t_ - acc) - y_, vec4(0.0), "
    "isinf(t_));"
    " acc = t_; }";

const char* glslType(DType dtype) {
  switch (dtype) {
    case DType::float32:
      return "float";
    case DType::int32:
      return "int";
    case DType::boolean:
      return "bool";
  }
  return "float";
}

std::vector<Operand> operands(const std::vector<Tensor>& tensors) {
  std::vector<Operand> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(Operand{&textureOf(t), t.dtype()});
  return out;
}

std::string prelude(const std::vector<Tensor>& inputs) { return prelude(operands(inputs)); }

std::string prelude(const std::vector<Operand>& inputs) {
  std::string s =
      "#version 300 es\n"
      "precision highp float;\nprecision highp int;\nprecision highp usampler2D;\n"
      "const float INF = uintBitsToFloat(0x7f800000u);\n"
      "const float NAN = uintBitsToFloat(0x7fc00000u);\n"
      "uint toBits(float v) { return floatBitsToUint(v); }\n"
      "uint toBits(int v) { return uint(v); }\n"
      // packHalf2x16 of a value beyond float16's range is undefined (NaN on
      // SwiftShader): overflow goes to infinity, as IEEE rounding would.
      "uint halfBits(float v) {\n"
      "  if (isnan(v)) return 0x7e00u;\n"
      "  if (abs(v) >= 65520.0) return v > 0.0 ? 0x7c00u : 0xfc00u;\n"
      "  return packHalf2x16(vec2(v, 0.0)) & 0xffffu;\n}\n"
      // Texture geometry and sizes are uniforms (GlBackend::draw sets them):
      // one program serves every shape.
      "uniform int u_outShift;\nuniform int u_count;\n";
  if (!inputs.empty()) s += "uniform int u_inShift[" + std::to_string(inputs.size()) + "];\n";
  for (size_t k = 0; k < inputs.size(); ++k) {
    std::string n = std::to_string(k);
    const std::string shift = "u_inShift[" + n + "]";
    const std::string xy = "ivec2(t & ((1 << " + shift + ") - 1), t >> " + shift + ")";
    s += "uniform usampler2D u_in" + n + ";\n";
    s += "uvec4 texelAt" + n + "(ivec2 xy) { return texelFetch(u_in" + n + ", xy, 0); }\n";
    s += "uvec4 texel" + n + "(int t) { return texelAt" + n + "(" + xy + "); }\n";
    s += "uint word" + n + "(int w) { return texel" + n + "(w >> 2)[w & 3]; }\n";
    const bool half = inputs[k].texture->half;
    switch (inputs[k].dtype) {
      case DType::float32:
        // Float16 textures hold half bits in each 16-bit component.
        s += half ? "float in" + n + "(int i) { return unpackHalf2x16(word" + n + "(i)).x; }\n"
                  : "float in" + n + "(int i) { return uintBitsToFloat(word" + n + "(i)); }\n";
        s += half ? "vec4 ftexelAt" + n + "(ivec2 xy) { uvec4 h = texelAt" + n +
                        "(xy); return vec4(unpackHalf2x16(h.x).x, unpackHalf2x16(h.y).x, "
                        "unpackHalf2x16(h.z).x, unpackHalf2x16(h.w).x); }\n"
                  : "vec4 ftexelAt" + n + "(ivec2 xy) { return uintBitsToFloat(texelAt" + n +
                        "(xy)); }\n";
        s += "vec4 ftexel" + n + "(int t) { return ftexelAt" + n + "(" + xy + "); }\n";
        break;
      case DType::int32:
        s += "int in" + n + "(int i) { return int(word" + n + "(i)); }\n";
        break;
      case DType::boolean:
        s += "bool in" + n + "(int i) { return ((word" + n +
             "(i >> 2) >> uint((i & 3) << 3)) & 0xffu) != 0u; }\n";
        break;
    }
  }
  return s;
}

std::string intUniform(std::vector<float>& params, int64_t v) {
  params.push_back(gpu::intWord(v));
  return gpu::glsl().intParam(params.size() - 1);
}

std::string intsDeclaration(const std::vector<float>& params) {
  return params.empty() ? "" : "uniform int u_ints[" + std::to_string(params.size()) + "];\n";
}

std::string loopOver(const std::string& v, const std::string& lo, const std::string& hi) {
  std::string o = v + "_chunk";
  return "for (int " + o + " = " + lo + "; " + o + " < " + hi + "; " + o + " += 32768) for (int " +
         v + " = " + o + "; " + v + " < min(" + hi + ", " + o + " + 32768); ++" + v + ")";
}

std::string elementMain(const Tensor& out) { return elementMain(textureOf(out), out.dtype()); }

std::string elementMain(const Texture& out, DType dtype) {
  const std::string n = "u_count";
  std::string s =
      "out uvec4 o_texel;\nvoid main() {\n" + fragmentTexel() + "  uvec4 r = uvec4(0u);\n";
  if (dtype == DType::boolean) {
    s += "  for (int c = 0; c < 16; ++c) {\n    int i = t * 16 + c;\n"
         "    if (i < " +
         n + " && value(i)) r[c >> 2] |= 1u << uint((c & 3) << 3);\n  }\n";
  } else {
    // A float16 output keeps each value's half bits in the low 16 bits.
    std::string bits = out.half ? "halfBits(value(i))" : "toBits(value(i))";
    s += "  for (int c = 0; c < 4; ++c) {\n    int i = t * 4 + c;\n"
         "    if (i < " +
         n + ") r[c] = " + bits + ";\n  }\n";
  }
  return s + "  o_texel = r;\n}\n";
}

void runShader(GlBackend& gl, const std::string& source, const std::vector<Tensor>& inputs,
               Tensor& out) {
  // No draw: the parameters set for it must not reach the next one.
  if (!textureOf(out).tex) return gl.setParams({});
  gl.setCount(out.size());
  std::vector<const Texture*> textures;
  textures.reserve(inputs.size());
  for (const Tensor& t : inputs) textures.push_back(&textureOf(t));
  gl.draw(gl.program(source), textures, textureOf(out));
}

void runElementwise(GlBackend& gl, const std::string& body, const std::vector<Operand>& inputs,
                    Texture& out, DType dtype, int64_t n) {
  if (n == 0 || !out.tex) return gl.setParams({});
  std::vector<const Texture*> textures;
  for (const Operand& o : inputs) textures.push_back(o.texture);
  gl.setCount(n);
  gl.draw(gl.program(prelude(inputs) + body + elementMain(out, dtype)), textures, out);
}

void runTexels(GlBackend& gl, const std::string& body, const std::vector<Operand>& inputs,
               Texture& out, int64_t texels) {
  Texture* one = &out;
  runTexels(gl, body + "void texelValues(int t, out vec4 v0) { v0 = texelValue(t); }\n", inputs,
            std::span<Texture* const>(&one, 1), texels);
}

void runTexels(GlBackend& gl, const std::string& body, const std::vector<Operand>& inputs,
               std::span<Texture* const> outs, int64_t texels) {
  if (texels == 0 || !outs[0]->tex) return gl.setParams({});
  std::string s = prelude(inputs) + body, args, zeros, writes;
  for (size_t k = 0; k < outs.size(); ++k) {
    const std::string n = std::to_string(k), v = "v" + n;
    s += "layout(location = " + n + ") out uvec4 o_" + n + ";\n";
    args += (k ? ", " : "") + v;
    zeros += " o_" + n + " = uvec4(0u);";
    writes += "  o_" + n + " = " +
              (outs[k]->half ? "uvec4(halfBits(" + v + ".x), halfBits(" + v + ".y), halfBits(" + v +
                                   ".z), halfBits(" + v + ".w))"
                             : "floatBitsToUint(" + v + ")") +
              ";\n";
  }
  s += "void main() {\n" + fragmentTexel() + "  if (t >= u_count) {" + zeros +
       " return; }\n  vec4 " + args + ";\n  texelValues(t, " + args + ");\n" + writes + "}\n";
  std::vector<const Texture*> textures;
  for (const Operand& o : inputs) textures.push_back(o.texture);
  gl.setCount(texels);
  gl.draw(gl.program(s), textures, outs);
}

void runElementwise(GlBackend& gl, const std::string& body, const std::vector<Tensor>& inputs,
                    Tensor& out) {
  if (out.size() == 0) return gl.setParams({});
  runShader(gl, prelude(inputs) + body + elementMain(out), inputs, out);
}

}  // namespace glint::gl

namespace glint::gl {

namespace {

/// The prelude, with in<k>(i) of each input aligned with `out` (same shape and
/// element size: its texel t holds exactly the elements of out's texel t)
/// read from pre<k>, which `fetches` (statements) loads once per fragment.
std::string alignedPrelude(const std::vector<Tensor>& inputs, const Tensor& out,
                           std::string& fetches) {
  std::string s = prelude(inputs);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Tensor& in = inputs[k];
    if (in.shape() != out.shape() || byteSize(in.dtype()) != byteSize(out.dtype())) continue;
    std::string n = std::to_string(k);
    s += "uvec4 pre" + n + ";\n";
    fetches += "  pre" + n + " = texel" + n + "(t);\n";
    std::string word = out.dtype() == DType::boolean
                           ? "((pre" + n + "[((i) >> 2) & 3] >> uint(((i) & 3) << 3)) & 0xffu)"
                           : "pre" + n + "[(i) & 3]";
    switch (in.dtype()) {
      case DType::float32:
        s += textureOf(in).half ? "#define in" + n + "(i) unpackHalf2x16(" + word + ").x\n"
                                : "#define in" + n + "(i) uintBitsToFloat(" + word + ")\n";
        break;
      case DType::int32:
        s += "#define in" + n + "(i) int(" + word + ")\n";
        break;
      case DType::boolean:
        s += "#define in" + n + "(i) (" + word + " != 0u)\n";
        break;
    }
  }
  return s;
}

}  // namespace

std::string fragmentTexel() {
  return "  int t = (int(gl_FragCoord.y) << u_outShift) | int(gl_FragCoord.x);\n";
}

std::string gatherTexel(int parts, const std::string& part, const std::string& src,
                        const Texture& out) {
  std::string g = "  uvec4 v;\n  int from = " + src + ";\n  switch (" + part + ") {\n";
  for (int q = 0; q < parts; ++q)
    g += "    " + (q + 1 < parts ? "case " + std::to_string(q) + ":" : std::string("default:")) +
         " v = texel" + std::to_string(q) + "(from); break;\n";
  g += "  }\n";
  return g + (out.half ? "  vec4 f = uintBitsToFloat(v);\n  o_texel = uvec4(halfBits(f.x), "
                         "halfBits(f.y), halfBits(f.z), halfBits(f.w));\n"
                       : "  o_texel = v;\n");
}

ScratchTextures::ScratchTextures(GlBackend& gl, size_t bytes, int count) : gl(gl), bytes(bytes) {
  for (int i = 0; i < count; ++i) textures.push_back(static_cast<Texture*>(gl.allocate(bytes)));
}

ScratchTextures::~ScratchTextures() {
  for (Texture* t : textures) gl.release(t, bytes);
}

void runAligned(GlBackend& gl, const std::string& body, const std::vector<Tensor>& inputs,
                Tensor& out) {
  if (out.size() == 0) return gl.setParams({});
  std::string fetches;
  std::string s = alignedPrelude(inputs, out, fetches);
  if (fetches.empty()) return runElementwise(gl, body, inputs, out);
  std::string main = elementMain(out);
  std::string anchor = "uvec4 r = uvec4(0u);\n";
  main.replace(main.find(anchor), anchor.size(), anchor + fetches);
  runShader(gl, s + body + main, inputs, out);
}

}  // namespace glint::gl
