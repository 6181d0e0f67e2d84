// Shape and indexing kernels: the shared ones (src/backends/gpu/shape.cpp),
// and gl's own Concat and Unpack (whole texels, multiple render targets).
#include "src/backends/gpu/shape.h"

#include <algorithm>

#include "src/backends/gl/kernels.h"
#include "src/backends/gl/shader.h"
#include "src/backends/gpu/elementwise.h"
#include "src/backends/gpu/printer.h"
#include "src/backends/param_block.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"

namespace glint::gl {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

void reg(const char* name, KernelFn fn) { registerKernel(name, "gl", std::move(fn)); }

/// A kernel of the shared table (src/backends/gpu/shape.cpp), printed as GLSL.
void runShared(KernelArgs& a, gpu::ShapeKernel kernel) {
  gpu::Fn value = gpu::shapeValue(kernel, a.inputs, a.outputs[0], a.attrs, true);
  GlBackend& gl = glBackend(a);
  gl.checkLoop(a.kernel, gpu::longestRange(value));
  std::vector<float> params;
  const std::string body = gpu::printCached(gpu::glsl(), value, &params);
  if (a.outputs[0].size() == 0) return;
  const std::string source = intsDeclaration(params) + body;
  gl.setParams(std::move(params));
  runElementwise(gl, source, a.inputs, a.outputs[0]);
}

// Inputs per draw: the texture units GLES 3.0 guarantees (16), one kept for
// the previous draw's result when a concat needs several draws.
constexpr size_t kConcatPerDraw = 15;

/// Concat of more pieces than a draw binds where each piece is one run of the
/// output's texels (concat along the first axis, whole texels, one storage
/// format): a draw per piece over only the texture rows its run covers, so
/// every texel is copied once. (The lstm's gradient joins 28 steps: two full
/// passes with a 15-way branch per fragment before.) The run's start and
/// length are uniforms, so pieces of one texture extent share a program.
bool concatPieces(KernelArgs& a, int64_t rows) {
  Tensor& out = a.outputs[0];
  Texture& target = textureOf(out);
  // Uniform floats hold texel indices exactly below 2^24.
  if (rows != 1 || a.inputs.size() <= kConcatPerDraw || byteSize(out.dtype()) != 4 ||
      target.extent.texels >= (int64_t{1} << 24))
    return false;
  for (const Tensor& x : a.inputs)
    if (x.size() % 4 != 0 || textureOf(x).half != target.half) return false;
  GlBackend& gl = glBackend(a);
  int64_t start = 0;
  for (const Tensor& x : a.inputs) {
    const int64_t texels = x.size() / 4;
    if (texels == 0) continue;
    std::vector<Operand> in{Operand{&textureOf(x), x.dtype()}};
    ParamBlock p;
    p.add("start", static_cast<double>(start)).add("texels", static_cast<double>(texels));
    std::string s = prelude(in) + "uniform float u_params[" + std::to_string(p.size()) +
                    "];\nout uvec4 o_texel;\nvoid main() {\n" + fragmentTexel() +
                    p.expand(
                        "  int from = t - int($start);\n"
                        "  if (from < 0 || from >= int($texels)) discard;\n") +
                    "  o_texel = texel0(from);\n}\n";
    const int first = static_cast<int>(start >> target.extent.shift);
    const int last = static_cast<int>((start + texels - 1) >> target.extent.shift);
    gl.setParams(p.values());
    gl.drawRows(gl.program(s), {in[0].texture}, target, first, last - first + 1);
    start += texels;
  }
  return true;
}

/// Output row r (the dimensions before `axis`) is the inputs' rows in turn.
/// Many inputs: draws of up to 15, each copying the rest from the last result.
/// Concat where every piece is whole texels (4-byte elements, each input's
/// row a multiple of 4 wide, in the same storage format as the output): each
/// fragment copies its texel's bits from the one input that holds them, a
/// fetch per texel instead of per element. False where that does not hold.
bool concatTexels(KernelArgs& a, int64_t rows, int64_t outRow, const std::vector<int64_t>& starts) {
  Tensor& out = a.outputs[0];
  Texture& target = textureOf(out);
  if (byteSize(out.dtype()) != 4 || rows == 0 || outRow % 4 != 0) return false;
  for (const Tensor& x : a.inputs)
    if ((x.size() / rows) % 4 != 0 || textureOf(x).half != target.half) return false;
  GlBackend& gl = glBackend(a);
  const std::string R4 = str(outRow / 4);
  Texture* previous = nullptr;
  const size_t bytes = static_cast<size_t>(out.size()) * 4;
  for (size_t first = 0; first < a.inputs.size(); first += kConcatPerDraw) {
    const size_t last = std::min(a.inputs.size(), first + kConcatPerDraw);
    const bool final = last == a.inputs.size();
    std::vector<Operand> ops;
    std::string s = "out uvec4 o_texel;\nvoid main() {\n" + fragmentTexel() + "  int r = t / " +
                    R4 + "; int c = t % " + R4 + ";\n";
    for (size_t k = first; k < last; ++k) {
      const int64_t width4 = a.inputs[k].size() / rows / 4;
      if (width4 == 0) continue;
      const int64_t start4 = starts[k] / 4;
      const std::string slot = str(static_cast<int64_t>(ops.size()));
      s += "  if (c >= " + str(start4) + " && c < " + str(start4 + width4) + ") { o_texel = texel" +
           slot + "(r * " + str(width4) + " + c - " + str(start4) + "); return; }\n";
      ops.push_back(Operand{&textureOf(a.inputs[k]), a.inputs[k].dtype()});
    }
    if (previous) {
      s += "  o_texel = texel" + str(static_cast<int64_t>(ops.size())) + "(t);\n}\n";
      ops.push_back(Operand{previous, out.dtype()});
    } else {
      s += "  o_texel = uvec4(0u);\n}\n";
    }
    Texture* to = final ? &target : static_cast<Texture*>(gl.allocate(bytes));
    if (!final && target.half) gl.toHalf(*to);  // raw bits: the same format throughout
    std::vector<const Texture*> textures;
    for (const Operand& o : ops) textures.push_back(o.texture);
    gl.draw(gl.program(prelude(ops) + s), textures, *to);
    if (previous) gl.release(previous, bytes);
    previous = final ? nullptr : to;
  }
  return true;
}

void concatKernel(KernelArgs& a) {
  GlBackend& gl = glBackend(a);
  Tensor& out = a.outputs[0];
  int axis = static_cast<int>(kernel_attrs::Axis::read(a.attrs).axis);
  int64_t rows = 1;
  for (int d = 0; d < axis; ++d) rows *= out.shape()[d];
  int64_t outRow = rows == 0 ? 0 : out.size() / rows;
  std::vector<int64_t> starts;  // each input's first column within an output row
  int64_t col = 0;
  for (const Tensor& x : a.inputs) {
    starts.push_back(col);
    col += rows == 0 ? 0 : x.size() / rows;
  }
  if (concatPieces(a, rows) || concatTexels(a, rows, outRow, starts)) return;
  Texture* previous = nullptr;
  size_t bytes = static_cast<size_t>(out.size()) * byteSize(out.dtype());
  for (size_t first = 0; first < a.inputs.size(); first += kConcatPerDraw) {
    size_t last = std::min(a.inputs.size(), first + kConcatPerDraw);
    bool final = last == a.inputs.size();
    std::vector<Operand> ops;
    std::string s = std::string(glslType(out.dtype())) + " value(int e) {\n  int r = e / " +
                    str(outRow) + "; int c = e % " + str(outRow) + ";\n";
    for (size_t k = first; k < last; ++k) {
      int64_t width = rows == 0 ? 0 : a.inputs[k].size() / rows;
      if (width == 0) continue;
      std::string slot = str(static_cast<int64_t>(ops.size()));
      s += "  if (c >= " + str(starts[k]) + " && c < " + str(starts[k] + width) + ") return in" +
           slot + "(r * " + str(width) + " + c - " + str(starts[k]) + ");\n";
      ops.push_back(Operand{&textureOf(a.inputs[k]), a.inputs[k].dtype()});
    }
    if (previous) {
      s += "  return in" + str(static_cast<int64_t>(ops.size())) + "(e);\n}\n";
      ops.push_back(Operand{previous, out.dtype()});
    } else {
      s += "  return " + gpu::printExpr(gpu::glsl(), gpu::zero(out.dtype())) + ";\n}\n";
    }
    Texture* target = final ? &textureOf(out) : static_cast<Texture*>(gl.allocate(bytes));
    runElementwise(gl, s, ops, *target, out.dtype(), out.size());
    if (previous) gl.release(previous, bytes);
    previous = final ? nullptr : target;
  }
}

/// x as [outer, n, inner]; output k is x[:, k, :].
/// Unpack of whole texels (4-byte elements, slices a multiple of 4 wide, one
/// storage format): each draw fills up to maxOutputs() slices (render
/// targets) a texel per fetch, the first slice's index a uniform, so the
/// lstm's 28 steps take 4 draws of one program instead of 28 programs. False
/// where that does not hold.
bool unpackTexels(KernelArgs& a, int64_t n, int64_t inner) {
  const Tensor& x = a.inputs[0];
  if (byteSize(x.dtype()) != 4 || inner % 4 != 0 || x.size() == 0) return false;
  for (const Tensor& o : a.outputs)
    if (textureOf(o).half != textureOf(x).half) return false;
  GlBackend& gl = glBackend(a);
  const int64_t inner4 = inner / 4, texels = x.size() / n / 4;
  const int group = gl.maxOutputs();
  for (int64_t k0 = 0; k0 < n; k0 += group) {
    const int count = static_cast<int>(std::min<int64_t>(group, n - k0));
    std::vector<Operand> ops = operands(a.inputs);
    ParamBlock p;
    p.add("first", static_cast<double>(k0));
    std::string s = prelude(ops) + "uniform float u_params[" + str(p.size()) + "];\n";
    for (int q = 0; q < count; ++q)
      s += "layout(location = " + str(q) + ") out uvec4 o_" + str(q) + ";\n";
    s += "void main() {\n" + fragmentTexel() + "  if (t >= " + str(texels) +
         ") return;\n  int from = ((t / " + str(inner4) + ") * " + str(n) + " + int(" +
         p.expand("$first") + ")) * " + str(inner4) + " + t % " + str(inner4) + ";\n";
    for (int q = 0; q < count; ++q)
      s += "  o_" + str(q) + " = texel0(from + " + str(q * inner4) + ");\n";
    s += "}\n";
    std::vector<Texture*> targets;
    for (int q = 0; q < count; ++q)
      targets.push_back(&textureOf(a.outputs[static_cast<size_t>(k0 + q)]));
    gl.setParams(p.values());
    gl.draw(gl.program(s), {&textureOf(x)}, targets);
  }
  return true;
}

void unpackKernel(KernelArgs& a) {
  const Tensor& x = a.inputs[0];
  int axis = static_cast<int>(kernel_attrs::Axis::read(a.attrs).axis);
  int64_t n = x.shape()[axis], inner = 1;
  for (int d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
  if (unpackTexels(a, n, inner)) return;
  std::string t = glslType(x.dtype());
  for (int64_t k = 0; k < n; ++k) {
    std::string s = t + " value(int e) { return in0(((e / " + str(inner) + ") * " + str(n) + " + " +
                    str(k) + ") * " + str(inner) + " + e % " + str(inner) + "); }\n";
    runElementwise(glBackend(a), s, a.inputs, a.outputs[static_cast<size_t>(k)]);
  }
}

}  // namespace

void registerShapeKernels() {
  gpu::shapeKernels([](const char* name, gpu::ShapeKernel k) {
    reg(name, [k](KernelArgs& a) { runShared(a, k); });
  });
  GLINT_REGISTER(reg, "Concat", concatKernel);
  GLINT_REGISTER(reg, "Unpack", unpackKernel);
}

}  // namespace glint::gl
