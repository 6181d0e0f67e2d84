// BatchMatMul and _FusedMatMul as one tiled dispatch: a workgroup of 8x8
// invocations owns a 32x32 output tile, each invocation a 4x4 register block
// (16x16 and 2x2 when 32x32 tiles would leave too few workgroups to fill a
// GPU). K is walked 16 at a time: the workgroup stages a tile x 16 slice
// of A and a 16 x tile slice of B in workgroup memory (loads ordered along
// each operand's memory layout, so transposed operands read contiguous runs
// too); each invocation then does 16 (or 4) multiply-adds per 8 (or 4) reads
// of workgroup memory. Bias and activation are applied to the registers.
#include "src/backends/webgpu/kernels.h"
#include "src/backends/webgpu/wgsl.h"

namespace glint::webgpu {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

// A workgroup is kThreads x kThreads invocations; K slices are kSlice deep.
constexpr int kSlice = 16, kThreads = 8;
// Below this many 32x32 tiles, 16x16 tiles give a GPU 4x the workgroups to
// spread over (small batches of a dense layer: [32, 784] x [784, 128]). Not
// on a software adapter: its few CPU threads are busy with 32x32 tiles
// already, which do 4x the arithmetic per load and barrier (SwiftShader:
// [32, 784] x [784, 128] 29 -> 7.5 ms).
constexpr int64_t kFewTiles = 32;


/// WGSL `fn mm_act(x: f32) -> f32` for _FusedMatMul's activation (NaN stays NaN).
std::string activation(const std::string& name, double alpha) {
  std::string expr = "x";
  if (name == "relu") expr = "select(0.0, x, x > 0.0)";
  else if (name == "relu6") expr = "clamp(x, 0.0, 6.0)";
  else if (name == "elu") expr = "select(expm1_(x), x, x > 0.0)";
  else if (name == "leakyrelu") expr = "select(" + floatLit(alpha) + " * x, x, x > 0.0)";
  else if (name == "sigmoid") expr = "sigmoid_(x)";
  else if (name == "tanh") expr = "tanh_(x)";
  return std::string(kMathWgsl) + "fn mm_act(x: f32) -> f32 { if (isnan_(x)) { return x; } return " +
         expr + "; }\n";
}

/// BatchMatMul, and _FusedMatMul when `fused`: + bias[j] (input 2), then mm_act.
void matMul(KernelArgs& args, bool fused) {
  const Tensor& a = args.inputs[0];
  const Tensor& b = args.inputs[1];
  Tensor& out = args.outputs[0];
  if (out.size() == 0) return;
  bool tA = args.attrs.b("transposeA"), tB = args.attrs.b("transposeB");
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  const Shape& so = out.shape();
  int64_t m = so[so.size() - 2], n = so[so.size() - 1];
  int64_t k = tA ? sa[sa.size() - 2] : sa[sa.size() - 1];
  Shape batch(so.begin(), so.end() - 2);
  auto tilesOf = [&](int64_t t) {
    return ((m + t - 1) / t) * ((n + t - 1) / t) * shapeSize(batch);
  };
  WebGpuBackend& gpu = gpuBackend(args);
  const int tile = !gpu.isSoftware() && tilesOf(32) < kFewTiles ? 16 : 32;
  int64_t tilesM = (m + tile - 1) / tile, tilesN = (n + tile - 1) / tile;
  int64_t tiles = tilesOf(tile);
  std::string M = str(m), N = str(n), K = str(k), T = str(tile), S = str(kSlice);
  // Each invocation's block: per rows of per columns (a vecP each).
  int per = tile / kThreads;
  std::string P = str(per), vec = "vec" + P + "<f32>";
  // Slice rows padded by one word: loads that run along p then hit distinct
  // workgroup-memory banks.
  std::string R = str(tile + 1);

  bool bias = fused && args.inputs.size() > 2;
  std::string s = prelude(args.inputs);
  s += fused ? activation(args.attrs.s("activation"), args.attrs.f("leakyreluAlpha"))
             : "fn mm_act(x: f32) -> f32 { return x; }\n";
  s += bias ? "fn mm_bias(j: i32) -> f32 { return in2(j); }\n"
            : "fn mm_bias(j: i32) -> f32 { return 0.0; }\n";
  s += broadcastIndex("batchA", Shape(sa.begin(), sa.end() - 2), batch);
  s += broadcastIndex("batchB", Shape(sb.begin(), sb.end() - 2), batch);
  s += "var<workgroup> mm_a: array<f32, " + str((tile + 1) * kSlice) + ">;  // [p][i]\n";
  s += "var<workgroup> mm_b: array<f32, " + str((tile + 1) * kSlice) + ">;  // [p][j]\n";
  s += "@compute @workgroup_size(" + str(kThreads * kThreads) +
       ") fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n"
       "    @builtin(local_invocation_index) lid: u32) {\n"
       // From the workgroup id alone: uniform, so the barriers below are legal.
       "  let g = i32(wid.x + wid.y * nwg.x);\n"
       "  if (g >= " + str(tiles) + ") { return; }\n"
       "  let tn = g % " + str(tilesN) + "; let rest = g / " + str(tilesN) + ";\n"
       "  let row0 = (rest % " + str(tilesM) + ") * " + T + "; let col0 = tn * " + T +
       "; let bi = rest / " + str(tilesM) + ";\n"
       "  let aBase = batchA(bi) * " + str(m * k) + "; let bBase = batchB(bi) * " + str(k * n) + ";\n"
       "  let l = i32(lid); let tx = l % " + str(kThreads) + "; let ty = l / " + str(kThreads) + ";\n";
  for (int r = 0; r < per; ++r) s += "  var acc" + str(r) + " = " + vec + "(0.0);\n";
  // Slice element e: consecutive invocations take consecutive addresses of
  // the operand as it lies in memory.
  std::string loadA = tA ? "let p = e / " + T + "; let i = e % " + T + ";"
                         : "let i = e / " + S + "; let p = e % " + S + ";";
  std::string addrA = tA ? "gp * " + M + " + gi" : "gi * " + K + " + gp";
  std::string loadB = tB ? "let j = e / " + S + "; let p = e % " + S + ";"
                         : "let p = e / " + T + "; let j = e % " + T + ";";
  std::string addrB = tB ? "gj * " + K + " + gp" : "gp * " + N + " + gj";
  s += "  for (var p0 = 0; p0 < " + K + "; p0 += " + S + ") {\n"
       "    for (var e = l; e < " + str(tile * kSlice) + "; e += " + str(kThreads * kThreads) + ") {\n"
       "      {\n        " + loadA + "\n        let gi = row0 + i; let gp = p0 + p;\n"
       "        var v = 0.0;\n        if (gi < " + M + " && gp < " + K + ") { v = in0(aBase + " + addrA + "); }\n"
       "        mm_a[p * " + R + " + i] = v;\n      }\n"
       "      {\n        " + loadB + "\n        let gj = col0 + j; let gp = p0 + p;\n"
       "        var v = 0.0;\n        if (gj < " + N + " && gp < " + K + ") { v = in1(bBase + " + addrB + "); }\n"
       "        mm_b[p * " + R + " + j] = v;\n      }\n"
       "    }\n    workgroupBarrier();\n"
       "    for (var p = 0; p < " + S + "; p++) {\n"
       "      let o = p * " + R + ";\n"
       "      let ob = o + tx * " + P + ";\n      let bv = " + vec + "(mm_b[ob]";
  for (int c = 1; c < per; ++c) s += ", mm_b[ob + " + str(c) + "]";
  s += ");\n";
  for (int r = 0; r < per; ++r)
    s += "      acc" + str(r) + " += mm_a[o + ty * " + P + " + " + str(r) + "] * bv;\n";
  s += "    }\n    workgroupBarrier();\n  }\n"
       "  let outBase = bi * " + str(m * n) + ";\n";
  for (int r = 0; r < per; ++r) {
    std::string row = str(r);
    s += "  {\n    let i = row0 + ty * " + P + " + " + row + ";\n    if (i < " + M + ") {\n"
         "      for (var c = 0; c < " + P + "; c++) {\n        let j = col0 + tx * " + P + " + c;\n"
         "        if (j < " + N + ") { b_out0[outBase + i * " + N + " + j] = bitcast<u32>(mm_act(acc" + row +
         "[c] + mm_bias(j))); }\n      }\n    }\n  }\n";
  }
  s += "}\n";
  runShader(gpu, s, args.inputs, {&out}, tiles * kThreads * kThreads,
            kThreads * kThreads);
}

}  // namespace

void registerMatMulKernels() {
  registerKernel("BatchMatMul", "webgpu", [](KernelArgs& a) { matMul(a, false); });
  registerKernel("_FusedMatMul", "webgpu", [](KernelArgs& a) { matMul(a, true); });
}

}  // namespace glint::webgpu
