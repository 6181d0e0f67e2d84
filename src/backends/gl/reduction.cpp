// Reductions: each output element walks its window in one fragment; long
// windows first fold ~sqrt(window) partials in parallel. Float sums use Kahan
// compensation, so they stay close to the reference's double accumulation;
// int32 sums and products wrap through uint. Also Softmax and the fused
// softmax cross-entropy (loss and backprop in one kernel, two draws).
#include <algorithm>

#include "src/backends/gl/kernels.h"
#include "src/backends/gl/shader.h"
#include "src/backends/gpu/fold.h"
#include "src/backends/gpu/math.h"
#include "src/backends/gpu/printer.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"
#include "src/geometry/mean_scale.h"
#include "src/geometry/reduction_geometry.h"

namespace glint::gl {

namespace {

/// `int name(int r)`: the input offset of element r of a window, the window
/// being `dims` (sizes) at `strides`, row-major; sizes as uniforms (params).
std::string offsetFn(const std::string& name, const Shape& dims,
                     const std::vector<int64_t>& strides, std::vector<float>& params) {
  std::string s = "int " + name + "(int r) { int off = 0; int q;";
  std::vector<int64_t> own = stridesOf(dims);
  for (size_t d = 0; d < dims.size(); ++d) {
    std::string st = intUniform(params, strides[d]);
    if (d + 1 == dims.size()) {
      s += " off += r * " + st + ";";
    } else {
      std::string os = intUniform(params, own[d]);
      s += " q = r / " + os + "; r -= q * " + os + "; off += q * " + st + ";";
    }
  }
  return s + " return off; }\n";
}

// Windows at least this long reduce in two passes: ~sqrt(window) partials per
// output first, in parallel, then the partials (a tree of depth 2).
constexpr int64_t kTwoPassWindow = 4096;

/// value(o) folding elements [lo, hi) of output o's window by `f` (the
/// shared fold, src/backends/gpu/fold.h), read through `fetch` (a GLSL
/// expression of the window position r).
std::string foldBody(const gpu::Fold& f, const std::string& outType, const std::string& inType,
                     const std::string& setup, const std::string& lo, const std::string& hi,
                     const std::string& fetch) {
  const gpu::Dialect& d = gpu::glsl();
  return gpu::print(d, f.fns()) + outType + " value(int o) {\n  " + setup + "\n  " + d.type(f.acc) +
         " acc = " + gpu::printExpr(d, f.init) + ";\n  " + loopOver("r", lo, hi) + " {\n    " +
         inType + " v = " + fetch + ";\n    acc = fstep(acc, v);\n  }\n" +
         "  return fresult(fdone(acc));\n}\n";
}

/// Folds each output's window by `f`; where a long window takes two passes,
/// the second folds the first's results by `last` (Mean's scaled sum: the
/// scale applies once, at the end).
void reduce(KernelArgs& a, const gpu::Fold& f, const gpu::Fold& last) {
  const Tensor& x = a.inputs[0];
  Tensor& out = a.outputs[0];
  const ReductionWindow w(x.shape(), kernel_attrs::Reduce::read(a.attrs).axes);
  const int64_t window = w.size();
  std::string t = glslType(x.dtype());
  std::string outType = glslType(out.dtype());
  // Sizes as uniforms (u_ints): one program per fold and window rank.
  std::vector<float> params;
  std::string index = offsetFn("baseOf", w.kept, w.keptStrides, params) +
                      offsetFn("offOf", w.reduced, w.reducedStrides, params);
  GlBackend& gl = glBackend(a);
  if (window < kTwoPassWindow) {
    const std::string R = intUniform(params, window);
    const std::string body =
        intsDeclaration(params) + index +
        foldBody(last, outType, t, "int base = baseOf(o);", "0", R, "in0(base + offOf(r))");
    gl.setParams(std::move(params));
    runElementwise(gl, body, a.inputs, out);
    return;
  }
  // Pass 1: partial p of output o folds window positions [p * len, (p+1) * len).
  int64_t parts = 1;
  while (parts * parts < window) ++parts;
  int64_t len = (window + parts - 1) / parts;
  const std::string P = intUniform(params, parts), L = intUniform(params, len),
                    R = intUniform(params, window);
  int64_t count = out.size() * parts;
  size_t bytes = static_cast<size_t>(count) * byteSize(out.dtype());
  Texture* partial = static_cast<Texture*>(gl.allocate(bytes));
  try {
    const std::string first =
        intsDeclaration(params) + index +
        foldBody(f, outType, t, "int p = o % " + P + "; int base = baseOf(o / " + P + ");",
                 "p * " + L, "min(" + R + ", p * " + L + " + " + L + ")", "in0(base + offOf(r))");
    gl.setParams(std::move(params));
    runElementwise(gl, first, operands(a.inputs), *partial, out.dtype(), count);
    // Pass 2 folds an output's partials, which already hold that fold.
    std::vector<float> params2;
    const std::string P2 = intUniform(params2, parts);
    const std::string second =
        intsDeclaration(params2) +
        foldBody(last, outType, outType, "", "o * " + P2, "o * " + P2 + " + " + P2, "in0(r)");
    gl.setParams(std::move(params2));
    runElementwise(gl, second, {Operand{partial, out.dtype()}}, textureOf(out), out.dtype(),
                   out.size());
  } catch (...) {
    gl.release(partial, bytes);
    throw;
  }
  gl.release(partial, bytes);
}

void reduce(KernelArgs& a, gpu::Reduction r) {
  const gpu::Fold& f = gpu::fold(r, a.inputs[0].dtype());
  reduce(a, f, f);
}

/// A float32 Sum over leading axes whose kept part (the trailing axes, a
/// bias gradient's [C]) comes in whole texels: x is [rows, K] and output
/// texel c sums texel c of every row, a texel at a time (Kahan per lane),
/// split as reduce() splits long windows; `scale` as for reduce().
bool sumLeadingTexels(KernelArgs& a, const std::string& scale = "") {
  const Tensor& x = a.inputs[0];
  Tensor& out = a.outputs[0];
  std::vector<int64_t> axes = kernel_attrs::Reduce::read(a.attrs).axes;
  std::sort(axes.begin(), axes.end());
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != static_cast<int64_t>(i)) return false;
  const int64_t kept = out.size();
  if (x.dtype() != DType::float32 || kept % 4 != 0 || kept == 0 || x.size() == 0) return false;
  const int64_t rows = x.size() / kept, k4 = kept / 4;
  int64_t parts = 1;  // a second pass (a draw) only for long windows, as reduce()
  if (rows >= kTwoPassWindow)
    while (parts * parts < rows) ++parts;
  const int64_t len = (rows + parts - 1) / parts;
  GlBackend& gl = glBackend(a);
  gl.checkLoop(a.kernel, std::max(len, parts));
  const std::string K4 = std::to_string(k4), P = std::to_string(parts), L = std::to_string(len);
  const std::string times = scale.empty() ? "" : " * " + scale;
  std::string s = "vec4 texelValue(int o) {\n  int c = o % " + K4 + "; int p = o / " + K4 +
                  ";\n  vec4 acc = vec4(0.0), comp = vec4(0.0);\n  int end = min(" +
                  std::to_string(rows) + ", p * " + L + " + " + L +
                  ");\n"
                  "  for (int r = p * " +
                  L + "; r < end; ++r) {\n    vec4 term = ftexel0(r * " + K4 + " + c);\n    " +
                  kKahanAdd4 + "\n  }\n  return acc" + (parts == 1 ? times : "") + ";\n}\n";
  if (parts == 1) {
    runTexels(gl, s, operands(a.inputs), textureOf(out), k4);
    return true;
  }
  // Partial texel p * K4 + c; the second pass adds each texel's parts.
  ScratchTextures partial(gl, static_cast<size_t>(parts * kept) * sizeof(float), 1);
  runTexels(gl, s, operands(a.inputs), *partial.textures[0], parts * k4);
  std::string sum =
      "vec4 texelValue(int c) {\n  vec4 acc = vec4(0.0), comp = vec4(0.0);\n"
      "  for (int p = 0; p < " +
      P + "; ++p) {\n    vec4 term = ftexel0(p * " + K4 + " + c);\n    " + kKahanAdd4 +
      "\n  }\n  return acc" + times + ";\n}\n";
  runTexels(gl, sum, {Operand{partial.textures[0], DType::float32}}, textureOf(out), k4);
  return true;
}

/// x seen as [outer, len, inner] around `axis`, with its GLSL.
struct AxisPlan : AxisRows {
  using AxisRows::AxisRows;
  /// GLSL: `int base` of output/row element o (o indexes [outer, inner]).
  std::string base(const std::string& o) const {
    std::string in = std::to_string(inner);
    return "int base = (" + o + " / " + in + ") * " + std::to_string(len * inner) + " + " + o +
           " % " + in + ";";
  }
};

/// GLSL condition: `v` replaces the best so far `bv` along an arg-reduction.
/// Strictly better only, so ties keep the first and NaN never takes over
/// (spelled out: llvmpipe folds a NaN compare into its negation).
std::string argBetter(const std::string& cmp, DType dtype, const std::string& v,
                      const std::string& bv) {
  return v + " " + cmp + " " + bv +
         (dtype == DType::float32 ? " && !isnan(" + v + ") && !isnan(" + bv + ")" : "");
}

void argKernel(KernelArgs& a, const std::string& cmp) {
  const Tensor& x = a.inputs[0];
  AxisPlan p(x.shape(), kernel_attrs::Axis::read(a.attrs).axis);
  glBackend(a).checkLoop(a.kernel, p.len);
  std::string t = glslType(x.dtype());
  std::string in = std::to_string(p.inner);
  std::string s = "int value(int o) {\n  " + p.base("o") + "\n  int best = 0;\n  " + t +
                  " bv = in0(base);\n  " + loopOver("i", "1", std::to_string(p.len)) + " {\n    " +
                  t + " v = in0(base + i * " + in + ");\n    if (" +
                  argBetter(cmp, x.dtype(), "v", "bv") +
                  ") { bv = v; best = i; }\n  }\n  return best;\n}\n";
  runElementwise(glBackend(a), s, a.inputs, a.outputs[0]);
}

void softmaxKernel(KernelArgs& a) {
  const Tensor& x = a.inputs[0];
  AxisPlan p(x.shape(), kernel_attrs::Axis::read(a.attrs).axis);
  glBackend(a).checkLoop(a.kernel, p.len);
  std::string in = std::to_string(p.inner), len = std::to_string(p.len);
  // Element o sits at row (o / (len*inner), o % inner), position (o / inner) % len.
  // exp_: the renderer's exp loses ~|x| 5e-8 relative, the tail probabilities' precision.
  std::string s = gpu::mathFunctions(gpu::glsl(), {"exp_", "log1p_"}) +
                  "float value(int o) {\n  int row = (o / " + std::to_string(p.len * p.inner) +
                  ") * " + in + " + o % " + in + ";\n  " + p.base("row") +
                  "\n  float m = -INF;\n  " + loopOver("i", "0", len) +
                  " m = max(m, in0(base + i * " + in + "));\n  vec2 acc = vec2(0.0);\n  " +
                  loopOver("i", "0", len) + " {\n    float y = exp_(in0(base + i * " + in +
                  ") - m) - acc.y; float t = acc.x + y; acc.y = (t - acc.x) - y; acc.x = t;\n  }\n"
                  "  return exp_(in0(o) - m) / acc.x;\n}\n";
  runElementwise(glBackend(a), s, a.inputs, a.outputs[0]);
}

/// (labels, logits) [rows, classes] -> loss [rows], backprop [rows, classes]:
/// loss = -sum(y * logp), backprop = softmax(x) * sum(y) - y.
void softmaxCrossEntropyKernel(KernelArgs& a) {
  glBackend(a).checkLoop(a.kernel, a.inputs[1].shape()[1]);
  std::string C = std::to_string(a.inputs[1].shape()[1]);
  std::string row =
      "float mx = -INF;\n  for (int j = 0; j < " + C +
      "; ++j) mx = max(mx, in1(base + j));\n"
      // log(sum e^(x - mx)) as log1p of the terms but the max's 1: a confident
      // row's loss is that small sum, which 1 + it would round away.
      "  float rest = 0.0, labelSum = 0.0;\n  bool seen = false;\n  for (int j = 0; j < " +
      C +
      "; ++j) {\n    float v = in1(base + j);\n    labelSum += in0(base + j);\n"
      "    if (!seen && v == mx) seen = true; else rest += exp_(v - mx);\n  }\n"
      "  float logTotal = log1p_(rest);\n";
  std::string loss =
      gpu::mathFunctions(gpu::glsl(), {"exp_", "log1p_"}) +
      "float value(int r) {\n  int base = r * " + C + ";\n  " + row +
      "  float l = 0.0;\n  for (int j = 0; j < " + C +
      "; ++j) l -= in0(base + j) * (in1(base + j) - mx - logTotal);\n  return l;\n}\n";
  std::string backprop = gpu::mathFunctions(gpu::glsl(), {"exp_", "log1p_"}) +
                         "float value(int e) {\n  int base = (e / " + C + ") * " + C + ";\n  " +
                         row + "  return exp_(in1(e) - mx - logTotal) * labelSum - in0(e);\n}\n";
  runElementwise(glBackend(a), loss, a.inputs, a.outputs[0]);
  runElementwise(glBackend(a), backprop, a.inputs, a.outputs[1]);
}

}  // namespace

void registerReductionKernels() {
  auto reg = [](const char* name, KernelFn fn) { registerKernel(name, "gl", std::move(fn)); };
  GLINT_REGISTER(reg, "Sum", [](KernelArgs& a) {
    if (!sumLeadingTexels(a)) reduce(a, gpu::Reduction::sum);
  });
  GLINT_REGISTER(reg, "Mean", [](KernelArgs& a) {  // float32 (the op casts int32)
    const double scale = meanScale(a.inputs[0].shape(), kernel_attrs::Reduce::read(a.attrs).axes);
    if (!sumLeadingTexels(a, gpu::printExpr(gpu::glsl(), gpu::E(static_cast<float>(scale)))))
      reduce(a, gpu::fold(gpu::Reduction::sum, DType::float32), gpu::meanFold(scale));
  });
  GLINT_REGISTER(reg, "Prod", [](KernelArgs& a) { reduce(a, gpu::Reduction::prod); });
  GLINT_REGISTER(reg, "Max", [](KernelArgs& a) { reduce(a, gpu::Reduction::max); });
  GLINT_REGISTER(reg, "Min", [](KernelArgs& a) { reduce(a, gpu::Reduction::min); });
  GLINT_REGISTER(reg, "Any", [](KernelArgs& a) { reduce(a, gpu::Reduction::any); });
  GLINT_REGISTER(reg, "All", [](KernelArgs& a) { reduce(a, gpu::Reduction::all); });
  GLINT_REGISTER(reg, "ArgMax", [](KernelArgs& a) { argKernel(a, ">"); });
  GLINT_REGISTER(reg, "ArgMin", [](KernelArgs& a) { argKernel(a, "<"); });
  GLINT_REGISTER(reg, "_ArgMaxEqual", [](KernelArgs& a) {  // [rows, classes] x 2 -> [rows]
    const std::string C = std::to_string(a.inputs[0].shape()[1]);
    glBackend(a).checkLoop(a.kernel, a.inputs[0].shape()[1]);
    // ArgMax's rule on both rows at once.
    std::string s = "float value(int r) {\n  int base = r * " + C +
                    ";\n  int ia = 0, ib = 0;\n  float va = in0(base), vb = in1(base);\n"
                    "  for (int i = 1; i < " +
                    C +
                    "; ++i) {\n"
                    "    float x = in0(base + i), y = in1(base + i);\n"
                    "    if (" +
                    argBetter(">", DType::float32, "x", "va") +
                    ") { va = x; ia = i; }\n"
                    "    if (" +
                    argBetter(">", DType::float32, "y", "vb") +
                    ") { vb = y; ib = i; }\n  }\n"
                    "  return ia == ib ? 1.0 : 0.0;\n}\n";
    runElementwise(glBackend(a), s, a.inputs, a.outputs[0]);
  });
  GLINT_REGISTER(reg, "Softmax", softmaxKernel);
  GLINT_REGISTER(reg, "SoftmaxCrossEntropyWithLogits", softmaxCrossEntropyKernel);
}

}  // namespace glint::gl
