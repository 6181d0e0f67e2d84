// Reductions, one dispatch each where possible. A short or strided window is
// folded by one invocation per output (neighbouring invocations then read
// neighbouring elements); a long window by a whole workgroup per output: each
// invocation folds a strided share, then a tree in workgroup memory combines
// the shares. A few very long windows fold in parts first (two dispatches).
// A software adapter (SwiftShader) always takes one invocation per output,
// where its barriers cost more than they bring. Float sums use Kahan
// compensation, so they stay close to the reference's double accumulation;
// int32 sums and products wrap through u32. Also Softmax and the fused
// softmax cross-entropy (loss and backprop in one dispatch), which walk rows
// the same two ways.
#include <algorithm>

#include "src/backends/gpu/fold.h"
#include "src/backends/gpu/math.h"
#include "src/backends/gpu/printer.h"
#include "src/backends/webgpu/kernels.h"
#include "src/backends/webgpu/wgsl.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"
#include "src/geometry/mean_scale.h"
#include "src/geometry/reduction_geometry.h"

namespace glint::webgpu {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

/// Dimensions (sizes, strides) with size-1 dimensions dropped and neighbours
/// that form one stride run merged, so most windows become one strided run.
struct Dims {
  std::vector<int64_t> size, stride;
  Dims(const Shape& sizes, const std::vector<int64_t>& strides) {
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] == 1) continue;
      if (!size.empty() && stride.back() == sizes[d] * strides[d]) {
        size.back() *= sizes[d];
        stride.back() = strides[d];
      } else {
        size.push_back(sizes[d]);
        stride.push_back(strides[d]);
      }
    }
  }
};

/// `fn name(r: i32) -> i32`: the input offset of element r (row-major) of `d`.
std::string offsetFn(const std::string& name, const Dims& d) {
  std::string s = "fn " + name + "(r0: i32) -> i32 {";
  if (d.size.empty()) return s + " return 0; }\n";
  s += " var r = r0; var off = 0;";
  int64_t own = 1;
  std::vector<int64_t> owns(d.size.size());
  for (size_t i = d.size.size(); i-- > 0;) owns[i] = own, own *= d.size[i];
  for (size_t i = 0; i + 1 < d.size.size(); ++i)
    s += " { let q = r / " + str(owns[i]) + "; r -= q * " + str(owns[i]) + "; off += q * " +
         str(d.stride[i]) + "; }";
  return s + " return off + r * " + str(d.stride.back()) + "; }\n";
}

/// How rows (or windows) are shared out: `group` == 1 gives each invocation
/// its own unit (in workgroups of 64); otherwise a workgroup of `group`
/// invocations shares each unit.
struct Walk {
  int group = 1;
  bool shared() const { return group > 1; }
  /// main() up to the opening of `if (unit < units) {`, with `lo` and
  /// `inc` this invocation's share of positions (lo, lo + inc, ...).
  std::string header(int64_t units) const {
    if (!shared())
      return mainHeader(64) + "  let unit = idx; let lo = 0; let inc = 1;\n  if (unit < " +
             str(units) + ") {\n";
    // The unit comes from the workgroup id alone, so every branch on it is
    // uniform and the trees' barriers are legal.
    return mainHeader(group) +
           "  let unit = i32(wid.x + wid.y * nwg.x); let lo = i32(lid); let inc = " + str(group) +
           ";\n  if (unit < " + str(units) + ") {\n";
  }
  int64_t invocations(int64_t units) const { return shared() ? units * group : units; }
  /// `fn name(v: T, lid: u32) -> T`: v combined over the workgroup by `merge`
  /// (an expression of a and b); the identity for one invocation per unit.
  /// Trees of one type share the workgroup array red_s_<type> (sharedArray).
  std::string tree(const std::string& name, const std::string& type,
                   const std::string& merge) const {
    std::string s = "fn " + name + "(v: " + type + ", lid: u32) -> " + type + " {";
    if (!shared()) return s + " return v; }\n";
    return s + "\n  red_s_" + type +
           "[lid] = v;\n  workgroupBarrier();\n  for (var h = " + str(group / 2) +
           "u; h > 0u; h >>= 1u) {\n    if (lid < h) { let a = red_s_" + type +
           "[lid]; let b = red_s_" + type + "[lid + h]; red_s_" + type + "[lid] = " + merge +
           "; }\n    workgroupBarrier();\n  }\n  let r = red_s_" + type +
           "[0];\n  workgroupBarrier();\n  return r;\n}\n";
  }
  std::string sharedArray(const std::string& type) const {
    return shared()
               ? "var<workgroup> red_s_" + type + ": array<" + type + ", " + str(group) + ">;\n"
               : "";
  }
};

/// A long window gets a workgroup when its elements are contiguous or there
/// are too few units to keep the device busy otherwise. Never on a software
/// adapter: there a workgroup's barriers cost more than its parallelism
/// brings (SwiftShader: row sums of [256, 1000] 34 ms in workgroups, column
/// sums one invocation per output 2 ms).
Walk walkFor(const WebGpuBackend& gpu, int64_t window, int64_t units, bool contiguous) {
  Walk w;
  if (gpu.softwareKernels()) return w;
  bool longWindow = contiguous ? window >= 128 : window >= 1024 && units <= 2048;
  if (longWindow) w.group = window >= 4096 ? 256 : 64;
  return w;
}

// exp_ and log1p_ (log_ with it) come from the shared math library.
const std::string& redMath() {
  static const std::string s = gpu::mathFunctions(gpu::wgsl(), {"exp_", "log1p_"}) + R"(
// Kahan: c carries the low-order bits lost by each addition; none once the
// sum is infinite (inf - inf would turn it into NaN).
fn red_kahan(acc: vec2<f32>, v: f32) -> vec2<f32> {
  let y = v - acc.y;
  let s = acc.x + y;
  return vec2<f32>(s, select((s - acc.x) - y, 0.0, isinf_(s)));
}
)";
  return s;
}

// Windows this long, when there are too few of them to occupy many
// workgroups, first fold kPartLength-element parts in parallel (a scratch
// buffer of partials), then the partials: two dispatches, but the first one
// fills the device. A software adapter folds each part in one invocation.
constexpr int64_t kPartLength = 8192, kSoftwarePartLength = 1024;
constexpr int64_t kFewUnits = 64;

/// main() over `units` units writing `n` outputs, `per` to a word: `body`
/// (statements) sets `let v` to output o's value, and one invocation per
/// unit stores the word.
std::string foldMain(const Walk& w, int64_t units, int per, int64_t n, bool isBool,
                     const std::string& body) {
  std::string s = w.header(units);
  s += "    var word = 0u;\n    for (var c = 0; c < " + str(per) +
       "; c++) {\n      let o = unit * " + str(per) + " + c;\n      if (o < " + str(n) + ") {\n" +
       body;
  s += isBool ? "        if (v) { word |= 1u << (u32(c) << 3u); }\n"
              : "        word = bitcast<u32>(v);\n";
  return s + "      }\n    }\n    if (lo == 0) { b_out0[unit] = word; }\n  }\n}\n";
}

/// Folds each output's window by `f` (the shared fold, src/backends/gpu/fold.h).
void reduce(KernelArgs& a, const gpu::Fold& f) {
  const Tensor& x = a.inputs[0];
  Tensor& out = a.outputs[0];
  if (out.size() == 0) return;
  WebGpuBackend& gpu = gpuBackend(a);
  const ReductionWindow rw(x.shape(), kernel_attrs::Reduce::read(a.attrs).axes);
  const int64_t window = rw.size();
  Dims keptDims(rw.kept, rw.keptStrides), win(rw.reduced, rw.reducedStrides);
  bool isBool = out.dtype() == DType::boolean;
  // A bool output is written a word (4 outputs) at a time, by one invocation.
  int per = isBool ? 4 : 1;
  int64_t units = (out.size() + per - 1) / per;
  bool contiguous = window > 0 && !win.stride.empty() && win.stride.back() == 1;
  bool software = gpu.softwareKernels();
  int64_t parts =
      units < kFewUnits
          ? std::min<int64_t>(window / (software ? kSoftwarePartLength : kPartLength), 1024)
          : 1;
  Walk w = window == 0 ? Walk{}
           : parts > 1 ? Walk{software ? 1 : 256}
                       : walkFor(gpu, window, units, contiguous);

  const gpu::Dialect& d = gpu::wgsl();
  const std::string part = d.type(f.part), init = gpu::printExpr(d, f.init);
  std::string fns = redMath() + gpu::print(d, f.fns());
  std::string s = prelude(a.inputs) + fns + w.sharedArray(part) +
                  w.tree("fall", part, "fmerge(a, b)") + offsetFn("baseOf", keptDims);
  std::string loop;
  if (!w.shared() && parts <= 1 && win.size.size() > 1) {
    // Nested loops walk a whole multi-dimensional window without div/mod.
    std::string off = "base";
    for (size_t d = 0; d < win.size.size(); ++d) {
      std::string r = "r" + str(d);
      loop += std::string(d * 2 + 8, ' ') + "for (var " + r + " = 0; " + r + " < " +
              str(win.size[d]) + "; " + r + "++) {\n";
      off += " + " + r + " * " + str(win.stride[d]);
    }
    loop += std::string(win.size.size() * 2 + 8, ' ') + "acc = fstep(acc, in0(" + off + "));\n";
    for (size_t d = win.size.size(); d-- > 0;) loop += std::string(d * 2 + 8, ' ') + "}\n";
  } else {
    s += offsetFn("offOf", win);
    loop =
        "        for (var r = lo + start; r < end; r += inc) { acc = fstep(acc, in0(base + "
        "offOf(r))); }\n";
  }
  std::string acc = "        var acc: " + d.type(f.acc) + " = " + init + ";\n";
  if (parts <= 1) {
    s += foldMain(w, units, per, out.size(), isBool,
                  "        let base = baseOf(o); let start = 0; let end = " + str(window) + ";\n" +
                      acc + loop + "        let v = fresult(fall(fdone(acc), lid));\n");
    runShader(gpu, s, a.inputs, {&out}, w.invocations(units), w.shared() ? w.group : 64);
    return;
  }
  // Pass 1: partial o of output o / parts folds its part of the window.
  std::string P = str(parts), L = str((window + parts - 1) / parts);
  int64_t count = out.size() * parts;
  s += foldMain(w, count, 1, count, false,
                "        let base = baseOf(o / " + P + "); let start = (o % " + P + ") * " + L +
                    "; let end = min(" + str(window) + ", start + " + L + ");\n" + acc + loop +
                    "        let v = fall(fdone(acc), lid);\n");
  size_t bytes = static_cast<size_t>(count) * 4;
  Buffer* partial = static_cast<Buffer*>(gpu.allocate(bytes));
  try {
    runShader(gpu, s, std::vector<const Buffer*>{&bufferOf(x)}, {partial}, w.invocations(count),
              w.shared() ? w.group : 64);
    // Pass 2: output o merges its partials (read as raw words).
    Walk w2 = walkFor(gpu, parts, units, true);
    std::string s2 =
        prelude(std::vector<DType>{DType::int32}) + fns + w2.sharedArray(part) +
        w2.tree("fall", part, "fmerge(a, b)") +
        foldMain(w2, units, per, out.size(), isBool,
                 "        var acc = fdone(" + init + ");\n        for (var r = lo; r < " + P +
                     "; r += inc) { acc = fmerge(acc, bitcast<" + part + ">(word0(o * " + P +
                     " + r))); }\n        let v = fresult(fall(acc, lid));\n");
    runShader(gpu, s2, std::vector<const Buffer*>{partial}, {&bufferOf(out)}, w2.invocations(units),
              w2.shared() ? w2.group : 64);
  } catch (...) {
    gpu.release(partial, bytes);
    throw;
  }
  gpu.release(partial, bytes);
}

/// x seen as [outer, len, inner] around `axis`, with its WGSL.
struct AxisPlan : AxisRows {
  using AxisRows::AxisRows;
  /// WGSL: `let base` of row `unit` (rows index [outer, inner]); element i
  /// of the row is at base + i * inner.
  std::string base() const {
    if (inner == 1) return "    let base = unit * " + str(len) + ";\n";
    return "    let base = (unit / " + str(inner) + ") * " + str(len * inner) + " + unit % " +
           str(inner) + ";\n";
  }
  std::string at(const std::string& i) const {
    return inner == 1 ? "base + " + i : "base + " + i + " * " + str(inner);
  }
};

/// WGSL condition: `v` replaces the best so far `bv` along an arg-reduction.
/// Strictly better only, so ties keep the first and NaN never takes over.
std::string argBetter(const std::string& cmp, bool isFloat, const std::string& v,
                      const std::string& bv) {
  return v + " " + cmp + " " + bv +
         (isFloat ? " && !isnan_(" + v + ") && !isnan_(" + bv + ")" : "");
}

void argKernel(KernelArgs& a, const std::string& cmp) {
  const Tensor& x = a.inputs[0];
  Tensor& out = a.outputs[0];
  if (out.size() == 0) return;
  AxisPlan p(x.shape(), kernel_attrs::Axis::read(a.attrs).axis);
  Walk w = walkFor(gpuBackend(a), p.len, p.rows(), p.inner == 1);
  std::string t = wgslType(x.dtype());
  bool isFloat = x.dtype() == DType::float32;
  std::string better = argBetter(cmp, isFloat, "v", "bv");
  std::string s = prelude(a.inputs);
  if (w.shared()) {
    // Shares skip NaN (start from none: index -1); the tree keeps the better
    // value, the lower index on ties; a NaN first element wins as in the
    // sequential walk, where nothing beats it.
    s += "var<workgroup> red_v: array<" + t + ", " + str(w.group) +
         ">;\n"
         "var<workgroup> red_i: array<i32, " +
         str(w.group) + ">;\n";
    s += w.header(p.rows()) + p.base() + "    var bi = -1;\n    var bv: " + t + " = in0(base);\n" +
         "    for (var i = lo; i < " + str(p.len) + "; i += inc) {\n      let v = in0(" +
         p.at("i") + ");\n" + (isFloat ? "      if (isnan_(v)) { continue; }\n" : "") +
         "      if (bi < 0 || v " + cmp + " bv) { bv = v; bi = i; }\n    }\n" +
         "    red_v[lid] = bv; red_i[lid] = bi;\n    workgroupBarrier();\n" +
         "    for (var h = " + str(w.group / 2) + "u; h > 0u; h >>= 1u) {\n      if (lid < h) {\n" +
         "        let ai = red_i[lid]; let bj = red_i[lid + h]; let av = red_v[lid]; let bw = "
         "red_v[lid + h];\n" +
         "        if (bj >= 0 && (ai < 0 || bw " + cmp +
         " av || (bw == av && bj < ai))) { red_v[lid] = bw; red_i[lid] = bj; }\n" +
         "      }\n      workgroupBarrier();\n    }\n" +
         "    if (lid == 0u) {\n      var best = max(red_i[0], 0);\n" +
         (isFloat ? "      if (isnan_(in0(base))) { best = 0; }\n" : "") +
         "      b_out0[unit] = bitcast<u32>(best);\n    }\n  }\n}\n";
  } else {
    s += w.header(p.rows()) + p.base() + "    var best = 0;\n    var bv: " + t + " = in0(base);\n" +
         "    for (var i = 1; i < " + str(p.len) + "; i++) {\n      let v = in0(" + p.at("i") +
         ");\n" + "      if (" + better + ") { bv = v; best = i; }\n    }\n" +
         "    b_out0[unit] = bitcast<u32>(best);\n  }\n}\n";
  }
  runShader(gpuBackend(a), s, a.inputs, {&out}, w.invocations(p.rows()), w.shared() ? w.group : 64);
}

/// The trees softmax and its cross-entropy need (max skips NaN as the
/// reference's std::max does).
std::string rowTrees(const Walk& w) {
  return redMath() + w.sharedArray("f32") + w.tree("red_max", "f32", "select(a, b, b > a)") +
         w.tree("red_sum", "f32", "a + b");
}

void softmaxKernel(KernelArgs& a) {
  const Tensor& x = a.inputs[0];
  Tensor& out = a.outputs[0];
  if (out.size() == 0) return;
  AxisPlan p(x.shape(), kernel_attrs::Axis::read(a.attrs).axis);
  Walk w = walkFor(gpuBackend(a), p.len, p.rows(), p.inner == 1);
  std::string L = str(p.len), e = p.at("i");
  std::string s = prelude(a.inputs) + rowTrees(w) + w.header(p.rows()) + p.base() +
                  "    var m = -inf_();\n    for (var i = lo; i < " + L +
                  "; i += inc) { let v = in0(" + e +
                  "); if (v > m) { m = v; } }\n"
                  "    m = red_max(m, lid);\n    var acc = vec2<f32>(0.0);\n"
                  // The exps wait in the output for their total: the last
                  // walk rereads what this same invocation wrote.
                  "    for (var i = lo; i < " +
                  L + "; i += inc) {\n      let v = exp_(in0(" + e + ") - m);\n      b_out0[" + e +
                  "] = bitcast<u32>(v);\n      acc = red_kahan(acc, v);\n    }\n"
                  "    let total = red_sum(acc.x, lid);\n"
                  "    for (var i = lo; i < " +
                  L + "; i += inc) { b_out0[" + e + "] = bitcast<u32>(bitcast<f32>(b_out0[" + e +
                  "]) / total); }\n  }\n}\n";
  runShader(gpuBackend(a), s, a.inputs, {&out}, w.invocations(p.rows()), w.shared() ? w.group : 64);
}

/// (labels, logits) [rows, classes] -> loss [rows], backprop [rows, classes]:
/// loss = -sum(y * logp), backprop = softmax(x) * sum(y) - y, in one dispatch.
void softmaxCrossEntropyKernel(KernelArgs& a) {
  int64_t rows = a.inputs[1].shape()[0], classes = a.inputs[1].shape()[1];
  if (rows == 0) return;
  if (classes == 0) {
    // Every loss is a sum of nothing. (Empty tensors all bind the one dummy
    // buffer, which cannot be an input and the backprop output at once.)
    std::string s = prelude(std::vector<DType>{}) + mainHeader(64) + "  if (idx < " + str(rows) +
                    ") { b_out0[idx] = 0u; }\n}\n";
    runShader(gpuBackend(a), s, std::vector<Tensor>{}, {&a.outputs[0]}, rows, 64);
    return;
  }
  Walk w = walkFor(gpuBackend(a), classes, rows, true);
  std::string C = str(classes);
  std::string loop = "    for (var j = lo; j < " + C + "; j += inc) ";
  std::string s =
      prelude(a.inputs, 2) + rowTrees(w) + w.header(rows) + "    let base = unit * " + C +
      ";\n    var mx = -inf_();\n" + loop +
      "{ let v = in1(base + j); if (v > mx) { mx = v; } }\n"
      "    mx = red_max(mx, lid);\n    var labelSum = 0.0; var rest = 0.0; var ties = 0.0;\n" +
      loop +
      "{\n      let d = in1(base + j) - mx; let ev = exp_(d);\n"
      // Kept in the backprop output until the total is known.
      "      b_out1[base + j] = bitcast<u32>(ev);\n      labelSum += in0(base + j);\n"
      "      if (d == 0.0) { ties += 1.0; } else { rest += ev; }\n    }\n"
      "    labelSum = red_sum(labelSum, lid);\n    rest = red_sum(rest, lid);\n"
      "    ties = red_sum(ties, lid);\n    let total = rest + ties;\n"
      // log(total) as log1p of the terms but one max's 1: a confident
      // row's loss is that small sum, which 1 + it would round away.
      "    let logTotal = log1p_(rest + (ties - 1.0));\n    var l = 0.0;\n" +
      loop +
      "{\n      let e = base + j; let logp = in1(e) - mx - logTotal;\n"
      "      l -= in0(e) * logp;\n"
      "      b_out1[e] = bitcast<u32>(bitcast<f32>(b_out1[e]) / total * labelSum - in0(e));\n    "
      "}\n"
      "    l = red_sum(l, lid);\n    if (lo == 0) { b_out0[unit] = bitcast<u32>(l); }\n  }\n}\n";
  runShader(gpuBackend(a), s, a.inputs, {&a.outputs[0], &a.outputs[1]}, w.invocations(rows),
            w.shared() ? w.group : 64);
}

}  // namespace

void registerReductionKernels() {
  auto reg = [](const char* name, KernelFn fn) { registerKernel(name, "webgpu", std::move(fn)); };
  auto fold = [](gpu::Reduction r) {
    return [r](KernelArgs& a) { reduce(a, gpu::fold(r, a.inputs[0].dtype())); };
  };
  GLINT_REGISTER(reg, "Sum", fold(gpu::Reduction::sum));
  GLINT_REGISTER(reg, "Mean", [](KernelArgs& a) {  // float32 (the op casts int32)
    reduce(a,
           gpu::meanFold(meanScale(a.inputs[0].shape(), kernel_attrs::Reduce::read(a.attrs).axes)));
  });
  GLINT_REGISTER(reg, "Prod", fold(gpu::Reduction::prod));
  GLINT_REGISTER(reg, "Max", fold(gpu::Reduction::max));
  GLINT_REGISTER(reg, "Min", fold(gpu::Reduction::min));
  GLINT_REGISTER(reg, "Any", fold(gpu::Reduction::any));
  GLINT_REGISTER(reg, "All", fold(gpu::Reduction::all));
  GLINT_REGISTER(reg, "ArgMax", [](KernelArgs& a) { argKernel(a, ">"); });
  GLINT_REGISTER(reg, "ArgMin", [](KernelArgs& a) { argKernel(a, "<"); });
  GLINT_REGISTER(reg, "_ArgMaxEqual", [](KernelArgs& a) {  // [rows, classes] x 2 -> [rows]
    const std::string C = str(a.inputs[0].shape()[1]);
    // ArgMax's rule on both rows at once.
    std::string s = "fn value(r: i32) -> f32 {\n  let base = r * " + C +
                    ";\n  var ia = 0; var ib = 0;\n  var va = in0(base); var vb = in1(base);\n"
                    "  for (var i = 1; i < " +
                    C +
                    "; i++) {\n"
                    "    let x = in0(base + i); let y = in1(base + i);\n"
                    "    if (" +
                    argBetter(">", true, "x", "va") +
                    ") { va = x; ia = i; }\n"
                    "    if (" +
                    argBetter(">", true, "y", "vb") +
                    ") { vb = y; ib = i; }\n  }\n"
                    "  return select(0.0, 1.0, ia == ib);\n}\n";
    runElementwise(gpuBackend(a), s, a.inputs, a.outputs[0]);
  });
  GLINT_REGISTER(reg, "Softmax", softmaxKernel);
  GLINT_REGISTER(reg, "SoftmaxCrossEntropyWithLogits", softmaxCrossEntropyKernel);
}

}  // namespace glint::webgpu
