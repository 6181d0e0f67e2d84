// Shape and indexing kernels: each output element (or word of 4 bools) finds
// the input element it copies (or a fill value) from its coordinates.
#include <algorithm>

#include "src/backends/webgpu/kernels.h"
#include "src/backends/webgpu/wgsl.h"
#include "src/core/kernel_selection.h"

namespace glint::webgpu {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

void reg(const char* name, KernelFn fn) { registerKernel(name, "webgpu", std::move(fn)); }

/// value(i) that declares c0.. (output coordinates), runs `stmts` and returns `expr`.
std::string byCoords(const Tensor& out, const std::string& stmts, const std::string& expr) {
  return "fn value(i: i32) -> " + std::string(wgslType(out.dtype())) + " {\n  " +
         coords(out.shape(), "i", "c") + "  " + stmts + "\n  return " + expr + ";\n}\n";
}

/// A typed WGSL literal for a fill value.
std::string literal(DType dtype, double v) {
  switch (dtype) {
    case DType::float32:
      return floatLit(v);
    case DType::int32:
      return "i32(" + str(static_cast<int64_t>(v)) + ")";
    case DType::boolean:
      return v != 0 ? "true" : "false";
  }
  return "0";
}

/// One output axis of a strided copy: its extent and how many input elements
/// one step along it moves.
struct Axis {
  int64_t size;
  int64_t step;
};

/// value(i) = in0(base + sum c_d * step_d) over the output coordinates c.
/// Size-1 axes are dropped and neighbours that walk the input contiguously
/// merged, so a copy of contiguous runs costs one division per run level
/// (an identity transpose or a slice of whole rows none).
std::string stridedCopy(DType dtype, int64_t base, const std::vector<Axis>& axes) {
  std::vector<Axis> merged;
  for (const Axis& ax : axes) {
    if (ax.size == 1) continue;
    if (!merged.empty() && merged.back().step == ax.size * ax.step) {
      merged.back() = Axis{merged.back().size * ax.size, ax.step};
    } else {
      merged.push_back(ax);
    }
  }
  std::string s = "fn value(i: i32) -> " + std::string(wgslType(dtype)) +
                  " {\n  var r = i; var off = " + str(base) + ";";
  int64_t inner = 1;
  for (const Axis& ax : merged) inner *= ax.size;
  for (size_t d = 0; d < merged.size(); ++d) {
    inner /= merged[d].size;
    if (d + 1 == merged.size()) {
      s += merged[d].step == 1 ? " off += r;" : " off += r * " + str(merged[d].step) + ";";
    } else {
      s += " { let q = r / " + str(inner) + "; r -= q * " + str(inner) + "; off += q * " +
           str(merged[d].step) + "; }";
    }
  }
  return s + "\n  return in0(off);\n}\n";
}

void transposeKernel(KernelArgs& a) {
  const auto& perm = a.attrs.ints("perm");
  const Tensor& out = a.outputs[0];
  std::vector<int64_t> xs = stridesOf(a.inputs[0].shape());
  std::vector<Axis> axes;
  for (size_t d = 0; d < perm.size(); ++d) axes.push_back({out.shape()[d], xs[perm[d]]});
  runElementwise(gpuBackend(a), stridedCopy(out.dtype(), 0, axes), a.inputs, a.outputs[0]);
}

void stridedSliceKernel(KernelArgs& a) {
  const auto& begin = a.attrs.ints("begin");
  const auto& strides = a.attrs.ints("strides");
  const Tensor& out = a.outputs[0];
  std::vector<int64_t> xs = stridesOf(a.inputs[0].shape());
  int64_t base = 0;
  std::vector<Axis> axes;
  for (size_t d = 0; d < begin.size(); ++d) {
    base += begin[d] * xs[d];
    axes.push_back({out.shape()[d], strides[d] * xs[d]});
  }
  runElementwise(gpuBackend(a), stridedCopy(out.dtype(), base, axes), a.inputs, a.outputs[0]);
}

/// Zeros of the input shape, dy where the slice read: coordinate c came from
/// dy index (c - begin) / stride when that divides exactly and is in range.
/// (A zero fill plus a scatter would race on bool words; each output element
/// deciding for itself does not.)
void stridedSliceGradKernel(KernelArgs& a) {
  const Tensor& dy = a.inputs[0];
  const auto& begin = a.attrs.ints("begin");
  const auto& strides = a.attrs.ints("strides");
  std::vector<int64_t> ds = stridesOf(dy.shape());
  std::string zero = zeroOf(dy.dtype());
  std::string stmts = "var off = 0;";
  for (size_t d = 0; d < begin.size(); ++d) {
    std::string c = "c" + str(d);
    int64_t st = strides[d];
    // Distances measured along the stride's direction stay non-negative.
    std::string delta =
        st > 0 ? "(" + c + " - " + str(begin[d]) + ")" : "(" + str(begin[d]) + " - " + c + ")";
    std::string as = str(st > 0 ? st : -st);
    std::string q = "q" + str(d);
    stmts += "\n  let " + q + " = " + delta + " / " + as + ";" + " if (" + delta + " < 0 || " + q +
             " * " + as + " != " + delta + " || " + q + " >= " + str(dy.shape()[d]) +
             ") { return " + zero + "; } off += " + q + " * " + str(ds[d]) + ";";
  }
  runElementwise(gpuBackend(a), byCoords(a.outputs[0], stmts, "in0(off)"), a.inputs, a.outputs[0]);
}

void padKernel(KernelArgs& a) {
  const Tensor& x = a.inputs[0];
  const auto& paddings = a.attrs.ints("paddings");
  std::string fill = literal(x.dtype(), a.attrs.f("constantValue"));
  std::vector<int64_t> xs = stridesOf(x.shape());
  std::string stmts = "var off = 0;";
  for (int d = 0; d < x.rank(); ++d) {
    std::string p = "p" + str(d);
    stmts += "\n  let " + p + " = c" + str(d) + " - " + str(paddings[2 * d]) + "; if (" + p +
             " < 0 || " + p + " >= " + str(x.shape()[d]) + ") { return " + fill +
             "; } off += " + p + " * " + str(xs[d]) + ";";
  }
  runElementwise(gpuBackend(a), byCoords(a.outputs[0], stmts, "in0(off)"), a.inputs, a.outputs[0]);
}

void tileKernel(KernelArgs& a) {
  const Shape& xShape = a.inputs[0].shape();
  std::vector<int64_t> xs = stridesOf(xShape);
  std::string off = "0";
  for (size_t d = 0; d < xShape.size(); ++d)
    if (xShape[d] != 1) off += " + (c" + str(d) + " % " + str(xShape[d]) + ") * " + str(xs[d]);
  runElementwise(gpuBackend(a), byCoords(a.outputs[0], "", "in0(" + off + ")"), a.inputs,
                 a.outputs[0]);
}

/// x as [outer, n, inner], out as [outer, m, inner]; out-of-range indices give 0.
void gatherKernel(KernelArgs& a) {
  const Tensor& x = a.inputs[0];
  int axis = static_cast<int>(a.attrs.i("axis"));
  int64_t m = a.inputs[1].size(), n = x.shape()[axis], inner = 1;
  for (int d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
  std::string s = "fn value(e: i32) -> " + std::string(wgslType(x.dtype())) + " {\n  let q = e / " +
                  str(inner) + "; let k = e - q * " + str(inner) + "; let o = q / " + str(m) +
                  "; let j = q - o * " + str(m) +
                  ";\n  let row = in1(j);\n  if (row < 0 || row >= " + str(n) + ") { return " +
                  zeroOf(x.dtype()) + "; }\n  return in0((o * " + str(n) + " + row) * " +
                  str(inner) + " + k);\n}\n";
  runElementwise(gpuBackend(a), s, a.inputs, a.outputs[0]);
}

/// out[s, k] sums the rows j of x whose id is s (Kahan-compensated for
/// floats). Each output element loops over the ids: WGSL has no float
/// atomics, and this order is deterministic.
void unsortedSegmentSumKernel(KernelArgs& a) {
  const Tensor& x = a.inputs[0];
  int64_t segments = a.attrs.i("numSegments");
  int64_t inner = segments == 0 ? 0 : a.outputs[0].size() / segments;
  int64_t ids = a.inputs[1].size();
  bool isFloat = x.dtype() == DType::float32;
  std::string s = "fn value(e: i32) -> " + std::string(wgslType(x.dtype())) +
                  " {\n  let seg = e / " + str(inner) + "; let k = e - seg * " + str(inner) +
                  ";\n  " + (isFloat ? "var acc = 0.0; var comp = 0.0;" : "var acc = 0;") +
                  "\n  for (var j = 0; j < " + str(ids) +
                  "; j++) {\n    if (in1(j) != seg) { continue; }\n    " +
                  (isFloat ? "let y = in0(j * " + str(inner) +
                                 " + k) - comp; let t = acc + y; comp = (t - acc) - y; acc = t;"
                           : "acc += in0(j * " + str(inner) + " + k);") +  // i32 wraps in WGSL
                  "\n  }\n  return acc;\n}\n";
  runElementwise(gpuBackend(a), s, a.inputs, a.outputs[0]);
}

void oneHotKernel(KernelArgs& a) {
  int64_t depth = a.attrs.i("depth");
  std::string s = "fn value(e: i32) -> f32 { let j = e / " + str(depth) + "; return select(" +
                  floatLit(a.attrs.f("offValue")) + ", " + floatLit(a.attrs.f("onValue")) +
                  ", in0(j) == e - j * " + str(depth) + "); }\n";
  runElementwise(gpuBackend(a), s, a.inputs, a.outputs[0]);
}

/// Output row r (the dimensions before `axis`) is the inputs' rows in turn.
/// f32/i32: one dispatch per group of inputs that fit the bindings, each
/// writing only its inputs' columns (one word per element: no two dispatches
/// share a word). Bools pack 4 per word, and a word may straddle two groups,
/// so each later dispatch writes every word, copying the columns of earlier
/// groups from the previous result (as gl's draws do).
void concatKernel(KernelArgs& a) {
  WebGpuBackend& gpu = gpuBackend(a);
  Tensor& out = a.outputs[0];
  if (out.size() == 0) return;
  int axis = static_cast<int>(a.attrs.i("axis"));
  int64_t rows = 1;
  for (int d = 0; d < axis; ++d) rows *= out.shape()[d];
  int64_t outRow = out.size() / rows;
  struct Part {
    const Tensor* x;
    int64_t start, width;  // columns within an output row
  };
  std::vector<Part> parts;
  int64_t col = 0;
  for (const Tensor& x : a.inputs) {
    int64_t width = x.size() / rows;
    if (width > 0) parts.push_back({&x, col, width});
    col += width;
  }
  auto perDispatch = static_cast<size_t>(gpu.maxBuffers() - 1);

  if (out.dtype() != DType::boolean) {
    for (size_t first = 0; first < parts.size(); first += perDispatch) {
      size_t last = std::min(parts.size(), first + perDispatch);
      int64_t c0 = parts[first].start;
      int64_t cols = parts[last - 1].start + parts[last - 1].width - c0;
      std::vector<Tensor> inputs;
      std::string pick;
      for (size_t k = first; k < last; ++k) {
        const Part& p = parts[k];
        std::string slot = str(static_cast<int64_t>(k - first));
        std::string read =
            "word" + slot + "(r * " + str(p.width) + " + c - " + str(p.start - c0) + ")";
        if (k + 1 == last) {
          pick += (k == first ? "v = " : " else { v = ") + read + (k == first ? ";" : "; }");
        } else {
          pick += (k == first ? "" : " else ") + std::string("if (c < ") +
                  str(p.start + p.width - c0) + ") { v = " + read + "; }";
        }
        inputs.push_back(*p.x);
      }
      std::string src = prelude(inputs) + mainHeader() + "  if (idx >= " + str(rows * cols) +
                        ") { return; }\n  let r = idx / " + str(cols) + "; let c = idx - r * " +
                        str(cols) + ";\n  var v = 0u;\n  " + pick + "\n  b_out0[r * " +
                        str(outRow) + " + " + str(c0) + " + c] = v;\n}\n";
      runShader(gpu, src, inputs, {&out}, rows * cols);
    }
    return;
  }

  size_t bytes = static_cast<size_t>(out.size());
  Buffer* previous = nullptr;
  for (size_t first = 0; first < parts.size();) {
    size_t last = std::min(parts.size(), first + perDispatch - (previous ? 1 : 0));
    bool final = last == parts.size();
    std::vector<const Buffer*> inputs;
    std::vector<DType> dtypes;
    std::string s = "fn value(e: i32) -> bool {\n  let r = e / " + str(outRow) +
                    "; let c = e - r * " + str(outRow) + ";\n";
    for (size_t k = first; k < last; ++k) {
      const Part& p = parts[k];
      std::string slot = str(static_cast<int64_t>(inputs.size()));
      s += "  if (c >= " + str(p.start) + " && c < " + str(p.start + p.width) + ") { return in" +
           slot + "(r * " + str(p.width) + " + c - " + str(p.start) + "); }\n";
      inputs.push_back(&bufferOf(*p.x));
      dtypes.push_back(DType::boolean);
    }
    if (previous) {
      s += "  return in" + str(static_cast<int64_t>(inputs.size())) + "(e);\n}\n";
      inputs.push_back(previous);
      dtypes.push_back(DType::boolean);
    } else {
      s += "  return false;\n}\n";
    }
    Buffer* target = final ? &bufferOf(out) : static_cast<Buffer*>(gpu.allocate(bytes));
    runShader(gpu, prelude(dtypes) + s + elementMain(DType::boolean, out.size()), inputs, {target},
              wordsOf(DType::boolean, out.size()));
    if (previous) gpu.release(previous, bytes);
    previous = final ? nullptr : target;
    first = last;
  }
}

/// x as [outer, n, inner]; output k is x[:, k, :]. One dispatch writes as
/// many outputs as the bindings allow, each invocation one word of each.
void unpackKernel(KernelArgs& a) {
  WebGpuBackend& gpu = gpuBackend(a);
  const Tensor& x = a.inputs[0];
  int axis = static_cast<int>(a.attrs.i("axis"));
  int64_t n = x.shape()[axis], inner = 1;
  for (int d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
  int64_t size = a.outputs[0].size();
  if (size == 0) return;
  bool isBool = x.dtype() == DType::boolean;
  std::string base =
      "let o = e / " + str(inner) + "; let b = e + o * " + str((n - 1) * inner) + ";";
  auto perDispatch = static_cast<int64_t>(gpu.maxBuffers() - 1);
  for (int64_t first = 0; first < n; first += perDispatch) {
    int64_t last = std::min(n, first + perDispatch);
    std::vector<Tensor*> outs;
    std::string s = prelude({x}, static_cast<int>(last - first)) + mainHeader();
    if (!isBool) {
      s += "  if (idx >= " + str(size) + ") { return; }\n  let e = idx; " + base + "\n";
      for (int64_t k = first; k < last; ++k)
        s += "  b_out" + str(k - first) + "[idx] = word0(b + " + str(k * inner) + ");\n";
    } else {
      s += "  if (idx >= " + str(wordsOf(DType::boolean, size)) + ") { return; }\n";
      for (int64_t k = first; k < last; ++k) s += "  var r" + str(k - first) + " = 0u;\n";
      s += "  for (var c = 0; c < 4; c++) {\n    let e = idx * 4 + c;\n    if (e >= " + str(size) +
           ") { break; }\n    " + base + "\n    let bit = 1u << (u32(c) << 3u);\n";
      for (int64_t k = first; k < last; ++k)
        s += "    if (in0(b + " + str(k * inner) + ")) { r" + str(k - first) + " |= bit; }\n";
      s += "  }\n";
      for (int64_t k = first; k < last; ++k)
        s += "  b_out" + str(k - first) + "[idx] = r" + str(k - first) + ";\n";
    }
    s += "}\n";
    for (int64_t k = first; k < last; ++k) outs.push_back(&a.outputs[static_cast<size_t>(k)]);
    runShader(gpu, s, a.inputs, outs, wordsOf(x.dtype(), size));
  }
}

}  // namespace

void registerShapeKernels() {
  GLINT_REGISTER(reg, "Transpose", transposeKernel);
  GLINT_REGISTER(reg, "Concat", concatKernel);
  GLINT_REGISTER(reg, "StridedSlice", stridedSliceKernel);
  GLINT_REGISTER(reg, "StridedSliceGrad", stridedSliceGradKernel);
  GLINT_REGISTER(reg, "PadV2", padKernel);
  GLINT_REGISTER(reg, "Tile", tileKernel);
  GLINT_REGISTER(reg, "GatherV2", gatherKernel);
  GLINT_REGISTER(reg, "UnsortedSegmentSum", unsortedSegmentSumKernel);
  GLINT_REGISTER(reg, "OneHot", oneHotKernel);
  GLINT_REGISTER(reg, "Unpack", unpackKernel);
}

}  // namespace glint::webgpu
