// Shape and indexing kernels: the shared ones (src/backends/gpu/shape.cpp),
// and webgpu's own Concat and Unpack (groups of bindings, several outputs).
#include "src/backends/gpu/shape.h"

#include <algorithm>

#include "src/backends/gpu/elementwise.h"
#include "src/backends/gpu/printer.h"
#include "src/backends/webgpu/kernels.h"
#include "src/backends/webgpu/wgsl.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"

namespace glint::webgpu {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

void reg(const char* name, KernelFn fn) { registerKernel(name, "webgpu", std::move(fn)); }

/// A kernel of the shared table (src/backends/gpu/shape.cpp), printed as WGSL.
void runShared(KernelArgs& a, gpu::ShapeKernel kernel) {
  gpu::Fn value = gpu::shapeValue(kernel, a.inputs, a.outputs[0], a.attrs, false);
  runElementwise(gpuBackend(a), gpu::printCached(gpu::wgsl(), value), a.inputs, a.outputs[0]);
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
  int axis = static_cast<int>(kernel_attrs::Axis::read(a.attrs).axis);
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
  int axis = static_cast<int>(kernel_attrs::Axis::read(a.attrs).axis);
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
  gpu::shapeKernels([](const char* name, gpu::ShapeKernel k) {
    reg(name, [k](KernelArgs& a) { runShared(a, k); });
  });
  GLINT_REGISTER(reg, "Concat", concatKernel);
  GLINT_REGISTER(reg, "Unpack", unpackKernel);
}

}  // namespace glint::webgpu
