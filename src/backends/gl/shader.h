#pragma once
// A small GLSL builder: the common prelude (typed fetch of element i of each
// input, index helpers) so that each kernel is a few lines of GLSL.
//
// A kernel's body defines `T value(int i)`: output element i (flat, row-major)
// of GLSL type T (float, int or bool for float32, int32, bool outputs), reading
// inputs through `in0(j)`, `in1(j)`... (element j of input k, typed by its
// dtype). elementMain() writes the texel each fragment owns (4 elements, or 16
// bools) from value().
#include <span>
#include <string>
#include <vector>

#include "glint/backend.h"
#include "src/backends/gl/gl_backend.h"

namespace glint::gl {

/// "float", "int" or "bool".
const char* glslType(DType dtype);
/// A shader input: a texture read as elements of `dtype`.
struct Operand {
  const Texture* texture;
  DType dtype;
};
std::vector<Operand> operands(const std::vector<Tensor>& tensors);
/// Header, samplers, and in<k>(j) / word<k>(w) / texel<k>(t) for every input
/// (texelAt<k>(ivec2) / ftexelAt<k>(ivec2) by texture coordinates). Texture
/// widths are uniforms (u_inShift, u_outShift) and so is u_count: a program
/// serves every shape, and GlBackend::draw sets them from its textures.
std::string prelude(const std::vector<Operand>& inputs);
std::string prelude(const std::vector<Tensor>& inputs);
/// Sizes and strides as uniforms: the GLSL reading `v` from `uniform int
/// u_ints[]`, `v`'s word appended to `params` (the draw's GlBackend::
/// setParams; printed IR numbers its i32 parameters the same way), so that a
/// program serves every shape.
std::string intUniform(std::vector<float>& params, int64_t v);
/// `uniform int u_ints[N]` for a program whose parameters are `params`, or "".
std::string intsDeclaration(const std::vector<float>& params);
/// `for` header(s) running int `v` over [lo, hi). llvmpipe silently stops any
/// single loop after 65535 iterations, so long ranges become two nested loops.
std::string loopOver(const std::string& v, const std::string& lo, const std::string& hi);
/// main(): fills this fragment's texel of `out` (u_count elements of dtype:
/// GlBackend::setCount) from value(i).
std::string elementMain(const Texture& out, DType dtype);
std::string elementMain(const Tensor& out);
/// GLSL statement declaring `int t`: the texel of the draw's output this
/// fragment writes (its width a uniform, u_outShift, that draw() sets).
std::string fragmentTexel();
/// GLSL statements of a gather draw's main(): `o_texel` = texel `src` of input
/// `part` (inputs 0..parts-1, float32 textures), as half bits when `out` is
/// float16. Multi-output kernels that write one texture per part of their
/// result (row blocks, gates) use it to lay the parts out row-major.
std::string gatherTexel(int parts, const std::string& part, const std::string& src,
                        const Texture& out);
/// Textures taken from the backend for one kernel, released when it returns
/// (or throws).
struct ScratchTextures {
  GlBackend& gl;
  size_t bytes;
  std::vector<Texture*> textures;
  ScratchTextures(GlBackend& gl, size_t bytes, int count);
  ~ScratchTextures();
  ScratchTextures(const ScratchTextures&) = delete;
  ScratchTextures& operator=(const ScratchTextures&) = delete;
};
/// Compiles (once) and draws prelude + body + elementMain into `out`.
void runElementwise(GlBackend& gl, const std::string& body, const std::vector<Tensor>& inputs,
                    Tensor& out);
/// The same for element-wise kernels whose value(i) reads only element i of
/// each input: inputs of out's shape and element size are fetched once per
/// texel (one texelFetch for 4 floats instead of four).
void runAligned(GlBackend& gl, const std::string& body, const std::vector<Tensor>& inputs,
                Tensor& out);
/// GLSL statement: Kahan-compensated `acc += term` on vec4 sums, the lost
/// low-order bits carried in `comp` (none once a lane is infinite: inf - inf
/// would make it NaN). The kernels' locals acc, comp and term must exist.
extern const char* const kKahanAdd4;
/// Kernels that compute a whole float32 output texel at once (4 values of
/// the innermost axis, vector arithmetic on whole input texels) define
/// `vec4 texelValue(int t)`; this draws prelude + body into the first
/// `texels` texels of `out` (zeros past them, half bits for a float16 texture).
void runTexels(GlBackend& gl, const std::string& body, const std::vector<Operand>& inputs,
               Texture& out, int64_t texels);
/// The same for several outputs of one extent, one per render target (at
/// most maxOutputs()): the body defines `void texelValues(int t, out vec4 v0,
/// out vec4 v1, ...)`.
void runTexels(GlBackend& gl, const std::string& body, const std::vector<Operand>& inputs,
               std::span<Texture* const> outs, int64_t texels);
/// Raw form: operands in, `n` elements of `dtype` out.
void runElementwise(GlBackend& gl, const std::string& body, const std::vector<Operand>& inputs,
                    Texture& out, DType dtype, int64_t n);
/// Draws a complete fragment shader source into `out`.
void runShader(GlBackend& gl, const std::string& source, const std::vector<Tensor>& inputs,
               Tensor& out);

}  // namespace glint::gl
