// BatchMatMul and _FusedMatMul. On a GPU, for operands readable as vec4s and
// enough output tiles: vecTileMatMul (128x128 or 64x64 tiles). Otherwise
// tiled, a workgroup of 8x8 invocations owns a 32x32 output tile, each invocation a
// 4x4 register block (16x16 and 2x2 when 32x32 tiles would leave too few
// workgroups to fill the GPU). K is walked 16 at a time: the workgroup stages
// a tile x 16 slice of A and a 16 x tile slice of B in workgroup memory (loads
// ordered along each operand's memory layout, so transposed operands read
// contiguous runs too); each invocation then does 16 (or 4) multiply-adds per
// 8 (or 4) reads of workgroup memory. On a software adapter: directMatMul
// below, without workgroup memory. Bias and activation are applied to the
// registers. Few tiles over a long K split K: chunks summed in a second pass.
#include "src/backends/gpu/elementwise.h"
#include "src/backends/gpu/index.h"
#include "src/backends/gpu/printer.h"
#include "src/backends/webgpu/kernels.h"
#include "src/backends/webgpu/wgsl.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"

namespace glint::webgpu {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

// A workgroup is kThreads x kThreads invocations; K slices are kSlice deep.
constexpr int kSlice = 16, kThreads = 8;
// Below this many 32x32 tiles, 16x16 tiles give a GPU 4x the workgroups to
// spread over (small batches of a dense layer: [32, 784] x [784, 128]).
constexpr int64_t kFewTiles = 32;

/// WGSL `fn mm_act(x: f32) -> f32` for _FusedMatMul's activation (NaN stays NaN).
std::string activation(const kernel_attrs::FusedMatMul& kind) {
  return gpu::activationSource(gpu::wgsl(), kind.activation, kind.leakyreluAlpha, "mm_act");
}

/// Bindings (mA, mB as vec4<u32> arrays when vecA / vecB, mBias when fused
/// with a bias, mC, u_params), mm_act, mm_bias and the batch index functions
/// of the kernels that declare their own operand layouts.
std::string header(KernelArgs& args, bool fused, bool vecA, bool vecB, const Shape& batch) {
  const Shape& sa = args.inputs[0].shape();
  const Shape& sb = args.inputs[1].shape();
  const bool bias = fused && args.inputs.size() > 2;
  std::string s;
  int binding = 0;
  auto declare = [&](const std::string& name, bool vec, bool write) {
    s += "@group(0) @binding(" + str(binding++) + ") var<storage, " +
         (write ? "read_write" : "read") + "> " + name + ": array<" + (vec ? "vec4<u32>" : "u32") +
         ">;\n";
  };
  declare("mA", vecA, false);
  declare("mB", vecB, false);
  if (bias) declare("mBias", false, false);
  declare("mC", false, true);
  declare("u_params", false, false);
  s += kSpecialValues;
  s += fused ? activation(kernel_attrs::FusedMatMul::read(args.attrs))
             : "fn mm_act(x: f32) -> f32 { return x; }\n";
  s += bias ? "fn mm_bias(j: i32) -> f32 { return bitcast<f32>(mBias[j]); }\n"
            : "fn mm_bias(j: i32) -> f32 { return 0.0; }\n";
  s += gpu::printCached(gpu::wgsl(),
                        gpu::broadcastIndex("batchA", Shape(sa.begin(), sa.end() - 2), batch));
  s += gpu::printCached(gpu::wgsl(),
                        gpu::broadcastIndex("batchB", Shape(sb.begin(), sb.end() - 2), batch));
  return s;
}

/// The matmul for a software adapter (SwiftShader, lavapipe): no workgroup
/// memory and no barriers, which such an adapter runs as plain memory and
/// costly thread switches. Each invocation owns `rows` output rows x 4
/// columns (one vec4 accumulator per row) and reads its operands straight from
/// the storage buffers, as vec4s where the layout allows: B along j, A along p
/// (row-major A, K % 4 == 0: four p per step) or along i (transposed A,
/// M % 4 == 0). SwiftShader, [64,784]x[784,128]: 20 -> 10 ms; the transposed
/// [784,64]^T x [64,128] of a dense layer's weight gradient: 44 -> 10 ms.
void directMatMul(KernelArgs& args, bool fused, const Shape& batch, int64_t m, int64_t n, int64_t k,
                  bool tA, bool tB) {
  Tensor& out = args.outputs[0];
  // Rows per invocation: 16 amortise each B load over 16 accumulators; fewer
  // for short matrices (a one-sample predict has 1).
  int rows = 16;
  while (rows > 1 && rows / 2 >= m) rows /= 2;
  const bool vecB = !tB && n % 4 == 0;
  const bool vecP = !tA && k % 4 == 0;                  // A's rows as vec4s along p
  const bool vecI = tA && m % 4 == 0 && rows % 4 == 0;  // A's columns as vec4s along i
  const int64_t n4 = (n + 3) / 4;
  int wgX = 16;
  while (wgX > 1 && wgX / 2 >= n4) wgX /= 2;
  const int wgY = 64 / wgX;
  const int64_t groupsX = (n4 + wgX - 1) / wgX, groupsY = (m + rows * wgY - 1) / (rows * wgY);
  const int64_t groups = groupsX * groupsY * shapeSize(batch);
  std::string M = str(m), N = str(n), K = str(k);

  std::string s = header(args, fused, vecP || vecI, vecB, batch);
  // B's row p, columns 4 j4 .. 4 j4 + 3 (zeros past n).
  if (vecB) {
    s += "fn loadB(base: i32, p: i32, j4: i32) -> vec4<f32> {\n"
         "  return bitcast<vec4<f32>>(mB[(base + p * " +
         N + ") / 4 + j4]);\n}\n";
  } else {
    std::string at = tB ? "j * " + K + " + p" : "p * " + N + " + j";
    s += "fn bAt(base: i32, p: i32, j: i32) -> f32 {\n"
         "  if (j >= " +
         N +
         ") { return 0.0; }\n"
         "  return bitcast<f32>(mB[base + " +
         at +
         "]);\n}\n"
         "fn loadB(base: i32, p: i32, j4: i32) -> vec4<f32> {\n"
         "  let j = j4 * 4;\n"
         "  return vec4<f32>(bAt(base, p, j), bAt(base, p, j + 1), bAt(base, p, j + 2), "
         "bAt(base, p, j + 3));\n}\n";
  }
  if (!vecP && !vecI) {
    std::string at = tA ? "p * " + M + " + i" : "i * " + K + " + p";
    s += "fn aAt(base: i32, i: i32, p: i32) -> f32 { return bitcast<f32>(mA[base + " + at +
         "]); }\n";
  }
  s += "@compute @workgroup_size(64) fn main(@builtin(workgroup_id) wid: vec3<u32>,\n"
       "    @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n"
       "  let g = i32(wid.x + wid.y * nwg.x);\n"
       "  if (g >= " +
       str(groups) +
       ") { return; }\n"
       "  let l = i32(lid);\n"
       "  let j4 = (g % " +
       str(groupsX) + ") * " + str(wgX) + " + l % " + str(wgX) +
       ";\n"
       "  let rest = g / " +
       str(groupsX) +
       ";\n"
       "  let i0 = ((rest % " +
       str(groupsY) + ") * " + str(wgY) + " + l / " + str(wgX) + ") * " + str(rows) +
       ";\n"
       "  let bi = rest / " +
       str(groupsY) +
       ";\n"
       "  if (j4 >= " +
       str(n4) + " || i0 >= " + M +
       ") { return; }\n"
       "  let aBase = batchA(bi) * " +
       str(m * k) +
       ";\n"
       "  let bBase = batchB(bi) * " +
       str(k * n) + ";\n";
  // Rows past m read row m - 1 (in bounds) and are not stored.
  for (int r = 0; r < rows; ++r)
    s += "  var acc" + str(r) + " = vec4<f32>(0.0);\n  let row" + str(r) + " = min(i0 + " + str(r) +
         ", " + str(m - 1) + ");\n";
  if (vecP) {
    s += "  for (var p = 0; p < " + K + "; p += 4) {\n";
    for (int q = 0; q < 4; ++q)
      s += "    let b" + str(q) + " = loadB(bBase, p + " + str(q) + ", j4);\n";
    for (int r = 0; r < rows; ++r)
      s += "    { let a = bitcast<vec4<f32>>(mA[(aBase + row" + str(r) + " * " + K +
           " + p) / 4]);\n      acc" + str(r) +
           " += a.x * b0 + a.y * b1 + a.z * b2 + a.w * b3; }\n";
  } else {
    s += "  for (var p = 0; p < " + K + "; p++) {\n    let bv = loadB(bBase, p, j4);\n";
    if (vecI) {
      // Rows i0 + 4 r4 .. + 3 at once; a clamped row still lands in bounds.
      for (int r4 = 0; r4 < rows / 4; ++r4) {
        std::string av = "a" + str(r4);
        s += "    let " + av + " = bitcast<vec4<f32>>(mA[(aBase + p * " + M + ") / 4 + row" +
             str(r4 * 4) + " / 4]);\n";
        for (int c = 0; c < 4; ++c)
          s += "    acc" + str(r4 * 4 + c) + " += " + av + "." + std::string(1, "xyzw"[c]) +
               " * bv;\n";
      }
    } else {
      for (int r = 0; r < rows; ++r)
        s += "    acc" + str(r) + " += aAt(aBase, row" + str(r) + ", p) * bv;\n";
    }
  }
  s += "  }\n  let outBase = bi * " + str(m * n) + ";\n";
  for (int r = 0; r < rows; ++r) {
    std::string row = "(i0 + " + str(r) + ")";
    s += "  if (" + row + " < " + M +
         ") {\n"
         "    for (var c = 0; c < 4; c++) {\n"
         "      let j = j4 * 4 + c;\n"
         "      if (j < " +
         N + ") { mC[outBase + " + row + " * " + N + " + j] = bitcast<u32>(mm_act(acc" + str(r) +
         "[c] + mm_bias(j))); }\n"
         "    }\n  }\n";
  }
  s += "}\n";
  runShader(gpuBackend(args), s, args.inputs, {&out}, groups * 64, 64);
}

/// The matmul for a GPU when the operands load as vec4s: a workgroup of 16x16
/// invocations owns a (16 per) x (16 per) output tile, each invocation a
/// per x per register block (per 8: 64 accumulators) whose rows and columns
/// come in groups of 4 strided 64 apart, so that the vec4 reads of workgroup
/// memory from neighbouring invocations hit neighbouring words. K is walked
/// kDeep at a time: the workgroup copies a tile x kDeep slice of A and of B
/// into workgroup memory, one vec4 per invocation per step, stored [p][i] and
/// [p][j]; each invocation then does per*per multiply-adds per per/2 vec4
/// reads. Needs the dimension each operand is read along to be a multiple of
/// 4 (vecReadable).
constexpr int kDeep = 8, kSide = 16;
// Workgroups that fill a large GPU: one per multiprocessor of an H200.
constexpr int64_t kWideGpu = 128;
// Split K: at most this many chunks per output tile, aiming at about this
// many workgroups (four per multiprocessor of an H200).
constexpr int64_t kMaxSplits = 16, kSplitWorkgroups = 512;

bool vecReadable(int64_t m, int64_t n, int64_t k, bool tA, bool tB) {
  return (tA ? m % 4 == 0 : k % 4 == 0) && (tB ? k % 4 == 0 : n % 4 == 0);
}

void vecTileMatMul(KernelArgs& args, bool fused, const Shape& batch, int64_t m, int64_t n,
                   int64_t k, bool tA, bool tB, int per) {
  Tensor& out = args.outputs[0];
  const int tile = kSide * per, groups4 = per / 4, threads = kSide * kSide;
  const int64_t tilesM = (m + tile - 1) / tile, tilesN = (n + tile - 1) / tile;
  const int64_t tiles = tilesM * tilesN * shapeSize(batch);
  const std::string M = str(m), N = str(n), K = str(k), T = str(tile), D = str(kDeep);
  const std::string T4 = str(tile / 4), D4 = str(kDeep / 4);
  std::string s = header(args, fused, true, true, batch);
  s += "var<workgroup> tA_: array<vec4<f32>, " + str(kDeep * tile / 4) + ">;  // [p][i / 4]\n";
  s += "var<workgroup> tB_: array<vec4<f32>, " + str(kDeep * tile / 4) + ">;  // [p][j / 4]\n";
  s += "@compute @workgroup_size(" + str(threads) +
       ") fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n"
       "    @builtin(local_invocation_index) lid: u32) {\n"
       "  let g = i32(wid.x + wid.y * nwg.x);\n"
       "  if (g >= " +
       str(tiles) +
       ") { return; }\n"
       "  let tn = g % " +
       str(tilesN) + "; let rest = g / " + str(tilesN) +
       ";\n"
       "  let row0 = (rest % " +
       str(tilesM) + ") * " + T + "; let col0 = tn * " + T + "; let bi = rest / " + str(tilesM) +
       ";\n"
       "  let aBase = batchA(bi) * " +
       str(m * k) + "; let bBase = batchB(bi) * " + str(k * n) +
       ";\n"
       "  let l = i32(lid); let tx = l % " +
       str(kSide) + "; let ty = l / " + str(kSide) + ";\n";
  for (int r = 0; r < per; ++r)
    for (int h = 0; h < groups4; ++h)
      s += "  var c" + str(r) + "_" + str(h) + " = vec4<f32>(0.0);\n";
  s += "  for (var p0 = 0; p0 < " + K + "; p0 += " + D +
       ") {\n"
       "    for (var e = l; e < " +
       str(tile * kDeep / 4) + "; e += " + str(threads) + ") {\n";
  // A's slice: rows along i, depth along p; read as vec4s along memory.
  if (tA) {
    s += "      { let p = e / " + T4 + "; let i4 = e % " + T4 +
         ";\n"
         "        var v = vec4<f32>(0.0);\n"
         "        if (row0 + i4 * 4 < " +
         M + " && p0 + p < " + K + ") { v = bitcast<vec4<f32>>(mA[(aBase + (p0 + p) * " + M +
         " + row0) / 4 + i4]); }\n"
         "        tA_[p * " +
         T4 + " + i4] = v; }\n";
  } else {
    s += "      { let i = e / " + D4 + "; let p4 = e % " + D4 +
         ";\n"
         "        var v = vec4<f32>(0.0);\n"
         "        if (row0 + i < " +
         M + " && p0 + p4 * 4 < " + K + ") { v = bitcast<vec4<f32>>(mA[(aBase + (row0 + i) * " + K +
         " + p0) / 4 + p4]); }\n"
         "        for (var q = 0; q < 4; q++) { tA_[(p4 * 4 + q) * " +
         T4 + " + i / 4][i % 4] = v[q]; } }\n";
  }
  if (tB) {
    s += "      { let j = e / " + D4 + "; let p4 = e % " + D4 +
         ";\n"
         "        var v = vec4<f32>(0.0);\n"
         "        if (col0 + j < " +
         N + " && p0 + p4 * 4 < " + K + ") { v = bitcast<vec4<f32>>(mB[(bBase + (col0 + j) * " + K +
         " + p0) / 4 + p4]); }\n"
         "        for (var q = 0; q < 4; q++) { tB_[(p4 * 4 + q) * " +
         T4 + " + j / 4][j % 4] = v[q]; } }\n";
  } else {
    s += "      { let p = e / " + T4 + "; let j4 = e % " + T4 +
         ";\n"
         "        var v = vec4<f32>(0.0);\n"
         "        if (col0 + j4 * 4 < " +
         N + " && p0 + p < " + K + ") { v = bitcast<vec4<f32>>(mB[(bBase + (p0 + p) * " + N +
         " + col0) / 4 + j4]); }\n"
         "        tB_[p * " +
         T4 + " + j4] = v; }\n";
  }
  s += "    }\n    workgroupBarrier();\n"
       "    for (var p = 0; p < " +
       D + "; p++) {\n";
  for (int g4 = 0; g4 < groups4; ++g4)
    s += "      let a" + str(g4) + " = tA_[p * " + T4 + " + " + str(g4 * kSide) + " + ty];\n";
  for (int h = 0; h < groups4; ++h)
    s += "      let b" + str(h) + " = tB_[p * " + T4 + " + " + str(h * kSide) + " + tx];\n";
  for (int g4 = 0; g4 < groups4; ++g4)
    for (int r = 0; r < 4; ++r)
      for (int h = 0; h < groups4; ++h)
        s += "      c" + str(g4 * 4 + r) + "_" + str(h) + " += a" + str(g4) + "[" + str(r) +
             "] * b" + str(h) + ";\n";
  s += "    }\n    workgroupBarrier();\n  }\n"
       "  let outBase = bi * " +
       str(m * n) + ";\n";
  for (int g4 = 0; g4 < groups4; ++g4)
    for (int r = 0; r < 4; ++r) {
      s += "  { let i = row0 + " + str(g4 * 4 * kSide) + " + ty * 4 + " + str(r) +
           ";\n"
           "    if (i < " +
           M + ") {\n";
      for (int h = 0; h < groups4; ++h)
        s += "      for (var c = 0; c < 4; c++) {\n"
             "        let j = col0 + " +
             str(h * 4 * kSide) +
             " + tx * 4 + c;\n"
             "        if (j < " +
             N + ") { mC[outBase + i * " + N + " + j] = bitcast<u32>(mm_act(c" + str(g4 * 4 + r) +
             "_" + str(h) + "[c] + mm_bias(j))); }\n      }\n";
      s += "    }\n  }\n";
    }
  s += "}\n";
  runShader(gpuBackend(args), s, args.inputs, {&out}, tiles * threads, threads);
}

/// BatchMatMul, and _FusedMatMul when `fused`: + bias[j] (input 2), then mm_act.
void matMul(KernelArgs& args, bool fused) {
  const Tensor& a = args.inputs[0];
  const Tensor& b = args.inputs[1];
  Tensor& out = args.outputs[0];
  if (out.size() == 0) return;
  const kernel_attrs::MatMul product = kernel_attrs::MatMul::read(args.attrs);
  bool tA = product.transposeA, tB = product.transposeB;
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
  if (gpu.softwareKernels()) return directMatMul(args, fused, batch, m, n, k, tA, tB);
  // 128x128 tiles where there are enough of them to give each multiprocessor
  // of a large GPU (132 on an H200) one, 64x64 where those do; smaller
  // products keep the kernel below, whose 16x16 tiles spread further (a dense
  // layer's [784,64]^T x [64,128] gradient: 26 tiles of 64 against 392 of 16).
  if (vecReadable(m, n, k, tA, tB)) {
    if (tilesOf(128) >= kWideGpu) return vecTileMatMul(args, fused, batch, m, n, k, tA, tB, 8);
    if (tilesOf(64) >= kWideGpu) return vecTileMatMul(args, fused, batch, m, n, k, tA, tB, 4);
  }
  const int tile = tilesOf(32) < kFewTiles ? 16 : 32;
  int64_t tilesM = (m + tile - 1) / tile, tilesN = (n + tile - 1) / tile;
  int64_t tiles = tilesOf(tile);
  // Split K where few tiles walk a long K (a weight gradient: [128, 1792] x
  // [1792, 512] is 64 tiles of 1792 steps): `splits` workgroups per tile each
  // sum a chunk into a scratch buffer, and a second pass adds the chunks.
  // H200, [128, 1792] x [1792, 512]: 0.98 -> 1.8 TFLOP/s with 2 chunks; a
  // short K ([64, 512] x [512, 128]) lost more to the second pass than it won.
  // (K may be 0: one chunk, no steps, zeros.)
  int64_t splits = 1, chunk = std::max<int64_t>(k, 1);
  if (tiles < kWideGpu && k >= 1024) {
    splits = std::min<int64_t>({(kSplitWorkgroups + tiles - 1) / tiles, k / 256, kMaxSplits});
    chunk = (k + splits * kSlice - 1) / (splits * kSlice) * kSlice;
    splits = (k + chunk - 1) / chunk;
  }
  const int64_t total = m * n * shapeSize(batch);
  std::string M = str(m), N = str(n), K = str(k), T = str(tile), S = str(kSlice);
  // Each invocation's block: per rows of per columns (a vecP each).
  int per = tile / kThreads;
  std::string P = str(per), vec = "vec" + P + "<f32>";
  // Slice rows padded by one word: loads that run along p then hit distinct
  // workgroup-memory banks.
  std::string R = str(tile + 1);

  bool bias = fused && args.inputs.size() > 2;
  std::string s = prelude(args.inputs);
  s += fused ? activation(kernel_attrs::FusedMatMul::read(args.attrs))
             : "fn mm_act(x: f32) -> f32 { return x; }\n";
  s += bias ? "fn mm_bias(j: i32) -> f32 { return in2(j); }\n"
            : "fn mm_bias(j: i32) -> f32 { return 0.0; }\n";
  s += gpu::printCached(gpu::wgsl(),
                        gpu::broadcastIndex("batchA", Shape(sa.begin(), sa.end() - 2), batch));
  s += gpu::printCached(gpu::wgsl(),
                        gpu::broadcastIndex("batchB", Shape(sb.begin(), sb.end() - 2), batch));
  s += "var<workgroup> mm_a: array<f32, " + str((tile + 1) * kSlice) + ">;  // [p][i]\n";
  s += "var<workgroup> mm_b: array<f32, " + str((tile + 1) * kSlice) + ">;  // [p][j]\n";
  s += "@compute @workgroup_size(" + str(kThreads * kThreads) +
       ") fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n"
       "    @builtin(local_invocation_index) lid: u32) {\n"
       // From the workgroup id alone: uniform, so the barriers below are legal.
       "  let gAll = i32(wid.x + wid.y * nwg.x);\n"
       "  if (gAll >= " +
       str(tiles * splits) +
       ") { return; }\n"
       "  let ks = gAll / " +
       str(tiles) + "; let g = gAll % " + str(tiles) +
       ";\n"
       "  let tn = g % " +
       str(tilesN) + "; let rest = g / " + str(tilesN) +
       ";\n"
       "  let row0 = (rest % " +
       str(tilesM) + ") * " + T + "; let col0 = tn * " + T + "; let bi = rest / " + str(tilesM) +
       ";\n"
       "  let aBase = batchA(bi) * " +
       str(m * k) + "; let bBase = batchB(bi) * " + str(k * n) +
       ";\n"
       "  let l = i32(lid); let tx = l % " +
       str(kThreads) + "; let ty = l / " + str(kThreads) + ";\n";
  for (int r = 0; r < per; ++r) s += "  var acc" + str(r) + " = " + vec + "(0.0);\n";
  // Slice element e: consecutive invocations take consecutive addresses of
  // the operand as it lies in memory.
  std::string loadA = tA ? "let p = e / " + T + "; let i = e % " + T + ";"
                         : "let i = e / " + S + "; let p = e % " + S + ";";
  std::string addrA = tA ? "gp * " + M + " + gi" : "gi * " + K + " + gp";
  std::string loadB = tB ? "let j = e / " + S + "; let p = e % " + S + ";"
                         : "let p = e / " + T + "; let j = e % " + T + ";";
  std::string addrB = tB ? "gj * " + K + " + gp" : "gp * " + N + " + gj";
  s += "  for (var p0 = ks * " + str(chunk) + "; p0 < min(" + K + ", ks * " + str(chunk) + " + " +
       str(chunk) + "); p0 += " + S +
       ") {\n"
       "    for (var e = l; e < " +
       str(tile * kSlice) + "; e += " + str(kThreads * kThreads) +
       ") {\n"
       "      {\n        " +
       loadA +
       "\n        let gi = row0 + i; let gp = p0 + p;\n"
       "        var v = 0.0;\n        if (gi < " +
       M + " && gp < " + K + ") { v = in0(aBase + " + addrA +
       "); }\n"
       "        mm_a[p * " +
       R +
       " + i] = v;\n      }\n"
       "      {\n        " +
       loadB +
       "\n        let gj = col0 + j; let gp = p0 + p;\n"
       "        var v = 0.0;\n        if (gj < " +
       N + " && gp < " + K + ") { v = in1(bBase + " + addrB +
       "); }\n"
       "        mm_b[p * " +
       R +
       " + j] = v;\n      }\n"
       "    }\n    workgroupBarrier();\n"
       "    for (var p = 0; p < " +
       S +
       "; p++) {\n"
       "      let o = p * " +
       R +
       ";\n"
       "      let ob = o + tx * " +
       P + ";\n      let bv = " + vec + "(mm_b[ob]";
  for (int c = 1; c < per; ++c) s += ", mm_b[ob + " + str(c) + "]";
  s += ");\n";
  for (int r = 0; r < per; ++r)
    s += "      acc" + str(r) + " += mm_a[o + ty * " + P + " + " + str(r) + "] * bv;\n";
  s += "    }\n    workgroupBarrier();\n  }\n"
       "  let outBase = ks * " +
       str(total) + " + bi * " + str(m * n) + ";\n";
  // One chunk of several: its raw sum; the second pass adds bias and activation.
  for (int r = 0; r < per; ++r) {
    std::string row = str(r);
    s += "  {\n    let i = row0 + ty * " + P + " + " + row + ";\n    if (i < " + M +
         ") {\n"
         "      for (var c = 0; c < " +
         P + "; c++) {\n        let j = col0 + tx * " + P +
         " + c;\n"
         "        if (j < " +
         N + ") { b_out0[outBase + i * " + N + " + j] = bitcast<u32>(" +
         (splits > 1 ? "acc" + row + "[c]" : "mm_act(acc" + row + "[c] + mm_bias(j))") +
         "); }\n      }\n    }\n  }\n";
  }
  s += "}\n";
  if (splits == 1) {
    runShader(gpu, s, args.inputs, {&out}, tiles * kThreads * kThreads, kThreads * kThreads);
    return;
  }
  const size_t bytes = static_cast<size_t>(total * splits) * 4;
  Buffer* partial = static_cast<Buffer*>(gpu.allocate(bytes));
  try {
    std::vector<const Buffer*> ins{&bufferOf(a), &bufferOf(b)};
    if (bias) ins.push_back(&bufferOf(args.inputs[2]));
    runShader(gpu, s, ins, {partial}, tiles * splits * kThreads * kThreads, kThreads * kThreads);
    std::vector<DType> types{DType::float32};
    std::vector<const Buffer*> ins2{partial};
    if (bias) {
      types.push_back(DType::float32);
      ins2.push_back(&bufferOf(args.inputs[2]));
    }
    std::string s2 = prelude(types);
    s2 += fused ? activation(kernel_attrs::FusedMatMul::read(args.attrs))
                : "fn mm_act(x: f32) -> f32 { return x; }\n";
    s2 += bias ? "fn mm_bias(j: i32) -> f32 { return in1(j); }\n"
               : "fn mm_bias(j: i32) -> f32 { return 0.0; }\n";
    s2 += mainHeader() + "  if (idx >= " + str(total) +
          ") { return; }\n  var acc = 0.0;\n"
          "  for (var c = 0; c < " +
          str(splits) + "; c++) { acc += in0(c * " + str(total) +
          " + idx); }\n"
          "  b_out0[idx] = bitcast<u32>(mm_act(acc + mm_bias(idx % " +
          N + ")));\n}\n";
    runShader(gpu, s2, ins2, {&bufferOf(out)}, total, 64);
  } catch (...) {
    gpu.release(partial, bytes);
    throw;
  }
  gpu.release(partial, bytes);
}

}  // namespace

void registerMatMulKernels() {
  GLINT_REGISTER(registerKernel, "BatchMatMul", "webgpu", [](KernelArgs& a) { matMul(a, false); });
  GLINT_REGISTER(registerKernel, "_FusedMatMul", "webgpu", [](KernelArgs& a) { matMul(a, true); });
}

}  // namespace glint::webgpu
