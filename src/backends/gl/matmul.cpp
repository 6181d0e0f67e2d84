// BatchMatMul. When N % 4 == 0 and K % 4 == 0, with enough rows, in row
// blocks (blocked_product.h: SwiftShader 2-3x faster for the mlp's
// [64,784]x[784,128] with R = 8 rows per fragment). Otherwise, when N % 4 ==
// 0, each fragment computes the 4 outputs of its texel (one row, 4 columns),
// walking K four at a time in whole texels where K % 4 == 0. Other shapes
// take a scalar dot product per element.
#include <algorithm>
#include <memory>

#include "src/backends/gl/blocked_product.h"
#include "src/backends/gl/kernels.h"
#include "src/backends/gl/shader.h"
#include "src/backends/gpu/elementwise.h"
#include "src/backends/gpu/index.h"
#include "src/backends/gpu/printer.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"

namespace glint::gl {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

/// GLSL `float act_(float x)` for _FusedMatMul's activation (NaN stays NaN).
std::string activation(const kernel_attrs::FusedMatMul& kind) {
  return gpu::activationSource(gpu::glsl(), kind.activation, kind.leakyreluAlpha, "act_");
}

/// One product as the shaders see it: A [..., m, k] ([..., k, m] when tA),
/// B [..., k, n] ([..., n, k] when tB), out [..., m, n]; operands A, B and
/// (fused) the bias.
struct Problem {
  Shape sa, sb, so;
  std::vector<Operand> ops;
  bool tA = false, tB = false;
  Texture* out = nullptr;
  bool fused = false;  // bias_ and act_ applied
};
void matMulOn(GlBackend& gl, const std::string& kernel, const Problem& pr,
              const std::string& actBias);
void blockedMatMul(GlBackend& gl, const Problem& pr, const std::string& funcs, int rows);
/// Rows per fragment of the row-block path (4 or 8: a transposed A's texels
/// then hold whole blocks), 0 where it does not apply.
int rowBlock(GlBackend& gl, int64_t m, int64_t n, int64_t k, bool tA) {
  if (n % 4 != 0 || k % 4 != 0 || (tA && m % 4 != 0)) return 0;
  return productRows(gl, m);
}

/// A transposed ([..., k, m] -> [..., m, k]) into `dst`, one draw.
void transposeInto(GlBackend& gl, const Tensor& a, int64_t m, int64_t k, Texture& dst) {
  std::string M = str(m), K = str(k), MK = str(m * k);
  std::string s = "float value(int e) {\n  int r = e % " + MK + "; int b = e / " + MK +
                  ";\n  return in0(b * " + MK + " + (r % " + K + ") * " + M + " + r / " + K +
                  ");\n}\n";
  runElementwise(gl, s, operands({a}), dst, DType::float32, a.size());
}

int64_t round4(int64_t v) { return (v + 3) / 4 * 4; }

/// `in` ([batch, r, c]) copied into `dst` as [batch, rp, cp], the new rows
/// and columns zero.
void padInto(GlBackend& gl, const Operand& in, int64_t batch, int64_t r, int64_t c, int64_t rp,
             int64_t cp, Texture& dst) {
  const std::string R = str(r), C = str(c), RP = str(rp), CP = str(cp);
  std::string s = "float value(int e) {\n  int col = e % " + CP + "; int row = (e / " + CP +
                  ") % " + RP + "; int b = e / " + str(rp * cp) + ";\n  return row < " + R +
                  " && col < " + C + " ? in0((b * " + R + " + row) * " + C + " + col) : 0.0;\n}\n";
  runElementwise(gl, s, {in}, dst, DType::float32, batch * rp * cp);
}

// Below this many multiply-adds the padding's extra draws cost more than the
// scalar product saves (SwiftShader, the standard models' Dense 10 heads).
constexpr int64_t kPadFrom = int64_t{1} << 17;

/// A product whose N or K is not a multiple of 4 runs the texel and row-block
/// paths on copies padded with zeros to whole texels (the inputs' padding
/// adds nothing, the output's extra columns are dropped): a classifier's
/// Dense 10 in its three products. False (nothing drawn) where it does not
/// pay or does not apply.
bool paddedMatMul(GlBackend& gl, const std::string& kernel, const Problem& pr,
                  const std::string& actBias) {
  const Shape& so = pr.so;
  const int64_t m = so[so.size() - 2], n = so.back(), k = pr.sb[pr.sb.size() - (pr.tB ? 1 : 2)];
  if ((n % 4 == 0 && k % 4 == 0) || shapeSize(so) * k < kPadFrom || !pr.out->tex) return false;
  const int64_t np = round4(n), kp = round4(k);
  Problem padded = pr;
  // Each operand [batch, rows, cols] as stored, padded to [batch, rows', cols'].
  auto pad = [&](size_t slot, Shape& shape, int64_t rowsP,
                 int64_t colsP) -> std::unique_ptr<ScratchTextures> {
    const int64_t rows = shape[shape.size() - 2], cols = shape.back();
    if (rows == rowsP && cols == colsP) return nullptr;
    const int64_t batch = shapeSize(shape) / (rows * cols);
    auto t =
        std::make_unique<ScratchTextures>(gl, static_cast<size_t>(batch * rowsP * colsP) * 4, 1);
    padInto(gl, pr.ops[slot], batch, rows, cols, rowsP, colsP, *t->textures[0]);
    shape[shape.size() - 2] = rowsP;
    shape.back() = colsP;
    padded.ops[slot] = Operand{t->textures[0], DType::float32};
    return t;
  };
  auto aPad = pad(0, padded.sa, pr.tA ? kp : m, pr.tA ? m : kp);
  auto bPad = pad(1, padded.sb, pr.tB ? np : kp, pr.tB ? kp : np);
  padded.so.back() = np;
  const int64_t rows = shapeSize(so) / n;
  std::unique_ptr<ScratchTextures> outPad;
  if (np != n) {
    outPad = std::make_unique<ScratchTextures>(gl, static_cast<size_t>(rows * np) * 4, 1);
    padded.out = outPad->textures[0];
  }
  matMulOn(gl, kernel, padded, actBias);
  if (outPad) {
    const std::string N = str(n), NP = str(np);
    runElementwise(
        gl, "float value(int e) { return in0((e / " + N + ") * " + NP + " + e % " + N + "); }\n",
        {Operand{padded.out, DType::float32}}, *pr.out, DType::float32, shapeSize(so));
  }
  return true;
}

/// BatchMatMul, and _FusedMatMul when `fused`: + bias[j] (input 2), then act_.
void matMul(KernelArgs& args, bool fused) {
  const Tensor& a = args.inputs[0];
  const Tensor& b = args.inputs[1];
  Tensor& out = args.outputs[0];
  const kernel_attrs::MatMul product = kernel_attrs::MatMul::read(args.attrs);
  bool tA = product.transposeA, tB = product.transposeB;
  GlBackend& gl = glBackend(args);
  std::vector<Operand> ops = operands(args.inputs);
  Shape sa = a.shape(), sb = b.shape();
  const bool empty = out.size() == 0 || a.size() == 0;
  const int64_t m = out.rank() >= 2 ? out.shape()[out.rank() - 2] : 0;
  const int64_t n = out.shape().back(), k = sa[sa.size() - (tA ? 2 : 1)];
  // A narrow product (N % 4 != 0, too small to pad: a classifier head's in
  // training) dots whole texels of A's rows with whole texels of B^T's rows,
  // each operand copied into that layout where it is not: 2 fetches per 4
  // steps of K and output instead of 8. A few rows (a one-sample predict)
  // do not pay for the copy's draw.
  const bool narrow =
      !empty && m >= 8 && n % 4 != 0 && k % 4 == 0 && shapeSize(out.shape()) * k < kPadFrom;
  std::unique_ptr<ScratchTextures> aCopy, bCopy;
  auto swapLast = [](Shape& s) { std::swap(s[s.size() - 1], s[s.size() - 2]); };
  // A transposed would cost 4 texel fetches per 4 steps of K instead of one
  // (a dense layer's weight gradient, x^T dy): transposing it first, one
  // fetch per element, is cheaper.
  if (tA && !empty && (narrow || (n % 4 == 0 && k % 4 == 0 && !rowBlock(gl, m, n, k, true)))) {
    aCopy = std::make_unique<ScratchTextures>(gl, static_cast<size_t>(a.size()) * sizeof(float), 1);
    transposeInto(gl, a, m, k, *aCopy->textures[0]);
    ops[0] = Operand{aCopy->textures[0], DType::float32};
    swapLast(sa);
    tA = false;
  }
  if (narrow && !tB) {
    bCopy = std::make_unique<ScratchTextures>(gl, static_cast<size_t>(b.size()) * sizeof(float), 1);
    transposeInto(gl, b, n, k, *bCopy->textures[0]);
    ops[1] = Operand{bCopy->textures[0], DType::float32};
    swapLast(sb);
    tB = true;
  }
  bool bias = fused && args.inputs.size() > 2;
  std::string actBias = fused ? activation(kernel_attrs::FusedMatMul::read(args.attrs))
                              : "float act_(float x) { return x; }\n";
  // Guarded: a padded product reads columns past the bias.
  actBias += bias ? "float bias_(int j) { return j < " + str(n) + " ? in2(j) : 0.0; }\n"
                  : "float bias_(int j) { return 0.0; }\n";
  Problem pr{sa, sb, out.shape(), ops, tA, tB, &textureOf(out), fused};
  if (!paddedMatMul(gl, args.kernel, pr, actBias)) matMulOn(gl, args.kernel, pr, actBias);
}

/// The matmul of `pr`; `actBias` defines act_ and bias_.
void matMulOn(GlBackend& gl, const std::string& kernel, const Problem& pr,
              const std::string& actBias) {
  const Shape& sa = pr.sa;
  const Shape& sb = pr.sb;
  const Shape& so = pr.so;
  const bool tA = pr.tA, tB = pr.tB;
  const std::vector<Operand>& ops = pr.ops;
  Texture& target = *pr.out;
  const int64_t outSize = shapeSize(so);
  int64_t m = so[so.size() - 2], n = so[so.size() - 1];
  int64_t k = sb[sb.size() - (tB ? 1 : 2)];
  Shape batch(so.begin(), so.end() - 2);
  std::string M = str(m), N = str(n), K = str(k);
  gl.checkLoop(kernel, n % 4 == 0 && k % 4 == 0 ? k / 4 : k);

  std::string s = actBias;
  s += gpu::printCached(gpu::glsl(),
                        gpu::broadcastIndex("batchA", Shape(sa.begin(), sa.end() - 2), batch));
  s += gpu::printCached(gpu::glsl(),
                        gpu::broadcastIndex("batchB", Shape(sb.begin(), sb.end() - 2), batch));
  s += "float A(int base, int i, int p) { return in0(base + " +
       (tA ? "p * " + M + " + i" : "i * " + K + " + p") + "); }\n";
  s += "float B(int base, int p, int j) { return in1(base + " +
       (tB ? "j * " + K + " + p" : "p * " + N + " + j") + "); }\n";
  s += "vec4 tex1(int e) { return ftexel1(e >> 2); }\n";

  // Row blocks pay from a few rows on.
  if (int rows = rowBlock(gl, m, n, k, tA); rows && target.tex) {
    blockedMatMul(gl, pr, s, rows);
    return;
  }
  if (n % 4 != 0) {
    s += "float value(int e) {\n  int j = e % " + N + "; int rest = e / " + N +
         "; int i = rest % " + M + "; int bi = rest / " + M + ";\n";
    if (k % 4 == 0 && !tA && tB) {  // matMul's narrow products: rows of A and B^T in texels
      const std::string K4 = str(k / 4);
      s += "  int ar = (batchA(bi) * " + M + " + i) * " + K4 + "; int br = (batchB(bi) * " + N +
           " + j) * " + K4 + ";\n  vec4 acc = vec4(0.0);\n  " + loopOver("p", "0", K4) +
           " acc += ftexel0(ar + p) * ftexel1(br + p);\n"
           "  return act_((acc.x + acc.y) + (acc.z + acc.w) + bias_(j));\n}\n";
    } else {
      s += "  int aBase = batchA(bi) * " + str(m * k) + "; int bBase = batchB(bi) * " + str(k * n) +
           ";\n  float acc = 0.0;\n  " + loopOver("p", "0", K) +
           " acc += A(aBase, i, p) * B(bBase, p, j);\n  return act_(acc + bias_(j));\n}\n";
    }
    runElementwise(gl, s, ops, target, DType::float32, outSize);
    return;
  }
  const Extent& e = target.extent;
  s += "out uvec4 o_texel;\nvoid main() {\n  int t = (int(gl_FragCoord.y) << " + str(e.shift) +
       ") | int(gl_FragCoord.x);\n  int e = t * 4;\n  if (e >= " + str(outSize) +
       ") { o_texel = uvec4(0u); return; }\n  int j = e % " + N + "; int rest = e / " + N +
       "; int i = rest % " + M + "; int bi = rest / " + M + ";\n  vec4 acc = vec4(0.0);\n";
  const bool walks = k % 4 == 0 && !tA;  // MatrixTexels walks: no element bases
  if (!walks)
    s += "  int aBase = batchA(bi) * " + str(m * k) + "; int bBase = batchB(bi) * " + str(k * n) +
         ";\n";
  if (walks) {
    // A's row and B's columns in 2D texture coordinates (MatrixTexels) where
    // the rows line up: the one-sample predict's product, a few fragments
    // each walking all of K, took 0.55-1.24 ms with flat indices and
    // 0.18-0.34 ms with 2D ones on SwiftShader (scratch WebGL2 page,
    // [1,784]x[784,128]).
    MatrixTexels ma(0, *ops[0].texture, k / 4), mb(1, *ops[1].texture, (tB ? k : n) / 4);
    s += ma.rowSetup("ar", "batchA(bi) * " + M + " + i");
    if (tB) {
      for (int q = 0; q < 4; ++q)
        s += mb.rowSetup("b" + str(q) + "r", "batchB(bi) * " + N + " + j + " + str(q));
    } else {
      s += mb.columnSetup("bw", "batchB(bi) * " + K, "j >> 2");
    }
    s += "  for (int p = 0; p < " + str(k / 4) + "; ++p) {\n" + ma.rowStep() +
         (tB ? mb.rowStep() : mb.columnStep("bw")) + "    vec4 av = " + ma.rowTexel("ar") + ";\n";
    if (tB) {
      s += "    acc += vec4(dot(av, " + mb.rowTexel("b0r") + "), dot(av, " + mb.rowTexel("b1r") +
           "), dot(av, " + mb.rowTexel("b2r") + "), dot(av, " + mb.rowTexel("b3r") + "));\n";
    } else {
      s += "    acc += av.x * " + mb.columnTexel("bw", 0) + " + av.y * " + mb.columnTexel("bw", 1) +
           " + av.z * " + mb.columnTexel("bw", 2) + " + av.w * " + mb.columnTexel("bw", 3) + ";\n";
    }
    s += "  }\n";
  } else if (k % 4 == 0) {  // A transposed (matMul transposes it first where this would run)
    s += "  for (int p = 0; p < " + K +
         "; p += 4) {\n"
         "    vec4 av = vec4(A(aBase, i, p), A(aBase, i, p + 1), A(aBase, i, p + 2), A(aBase, i, p "
         "+ 3));\n";
    if (tB) {
      s += "    int r = bBase + j * " + K +
           " + p;\n"
           "    acc += vec4(dot(av, tex1(r)), dot(av, tex1(r + " +
           K + ")), dot(av, tex1(r + " + str(2 * k) + ")), dot(av, tex1(r + " + str(3 * k) +
           ")));\n";
    } else {
      s += "    int r = bBase + p * " + N +
           " + j;\n"
           "    acc += av.x * tex1(r) + av.y * tex1(r + " +
           N + ") + av.z * tex1(r + " + str(2 * n) + ") + av.w * tex1(r + " + str(3 * n) + ");\n";
    }
    s += "  }\n";
  } else {
    s += "  " + loopOver("p", "0", K) + " {\n    float av = A(aBase, i, p);\n";
    s += tB ? "    acc += av * vec4(B(bBase, p, j), B(bBase, p, j + 1), B(bBase, p, j + 2), "
              "B(bBase, p, j + 3));\n"
            : "    acc += av * tex1(bBase + p * " + N + " + j);\n";
    s += "  }\n";
  }
  if (pr.fused)
    s += "  acc += vec4(bias_(j), bias_(j + 1), bias_(j + 2), bias_(j + 3));\n"
         "  acc = vec4(act_(acc.x), act_(acc.y), act_(acc.z), act_(acc.w));\n";
  s += target.half ? "  o_texel = uvec4(halfBits(acc.x), halfBits(acc.y), halfBits(acc.z), "
                     "halfBits(acc.w));\n}\n"
                   : "  o_texel = floatBitsToUint(acc);\n}\n";
  if (!target.tex) return;
  std::vector<const Texture*> textures;
  for (const Operand& o : ops) textures.push_back(o.texture);
  gl.draw(gl.program(prelude(ops) + s), textures, target);
}

/// Rows of `rowTexels` texels of `in` (all `rows` of them, batches included)
/// copied `pitch` texels apart (a power of two), the gaps zero, so that
/// MatrixTexels reads them by 2D coordinates instead of flat indices.
std::unique_ptr<ScratchTextures> pitchedCopy(GlBackend& gl, const Operand& in, int64_t rows,
                                             int64_t rowTexels, int64_t pitch) {
  auto t = std::make_unique<ScratchTextures>(gl, static_cast<size_t>(rows * pitch) * 16, 1);
  int shift = 0;
  while ((int64_t{1} << shift) < pitch) ++shift;
  runTexels(gl,
            "vec4 texelValue(int t) {\n  int c = t & " + str(pitch - 1) + ";\n  return c < " +
                str(rowTexels) + " ? ftexel0((t >> " + str(shift) + ") * " + str(rowTexels) +
                " + c) : vec4(0.0);\n}\n",
            {in}, *t->textures[0], rows * pitch);
  return t;
}

// A pitched copy of A pays where each of its texels is fetched this many
// times (once per column texel of the output) and the product is large: the
// mlp's [64,784]x[784,128] and x^T dy, whose 196-texel rows would be read
// by flat index (SwiftShader: ~a fifth of a product's time, blocked_product.h).
constexpr int64_t kPitchFromColumnTexels = 8;
constexpr int64_t kPitchFromFetches = int64_t{1} << 17;

/// The row-block path (see blocked_product.h): `funcs` defines act_, bias_,
/// batchA, batchB; N % 4 == K % 4 == 0 (and M % 4 == 0 when A is transposed:
/// A^T's row p then holds a block's rows in whole texels).
void blockedMatMul(GlBackend& gl, const Problem& pr, const std::string& funcs, int rows) {
  const Shape& so = pr.so;
  const bool tA = pr.tA, tB = pr.tB;
  BlockedProduct bp;
  bp.m = so[so.size() - 2];
  bp.n = so[so.size() - 1];
  bp.k = pr.sb[pr.sb.size() - (tB ? 1 : 2)];
  bp.batches = shapeSize(so) / (bp.m * bp.n);
  bp.rows = rows;
  bp.funcs = funcs;
  bp.dotB = tB;
  const int64_t m = bp.m, n = bp.n, k = bp.k;
  const std::string M = str(m), N = str(n), K = str(k);
  std::vector<Operand> ops = pr.ops;
  int64_t aPitch = tA ? m / 4 : k / 4;  // texels from one row of A as stored to the next
  std::unique_ptr<ScratchTextures> pitched;
  const int64_t aTexels = shapeSize(pr.sa) / 4;
  if (MatrixTexels(0, *ops[0].texture, aPitch).flat() && n / 4 >= kPitchFromColumnTexels &&
      aTexels * (n / 4) >= kPitchFromFetches) {
    int64_t pitch = 1;
    while (pitch < aPitch) pitch *= 2;
    pitched = pitchedCopy(gl, ops[0], aTexels / aPitch, aPitch, pitch);
    ops[0] = Operand{pitched->textures[0], DType::float32};
    aPitch = pitch;
  }
  if (tA) {
    // A^T [k, m]: rows 4p..4p+3, texels i0/4 (block rows 0-3) and the next
    // (rows 4-7), clamped to the row where a ragged last block ends early.
    MatrixTexels a(0, *ops[0].texture, aPitch);
    const bool ragged = rows > 4 && m % rows != 0;
    const std::string first = "batchA(bi) * " + K;
    bp.setup += a.columnSetup("al", first, "i0 >> 2");
    if (ragged)
      bp.setup += a.columnSetup("ah", first, "min((i0 >> 2) + 1, " + str(m / 4 - 1) + ")");
    bp.step += a.columnStep("al");
    if (ragged) bp.step += a.columnStep("ah");
    for (int pp = 0; pp < 4; ++pp) {
      bp.step += "    vec4 l" + str(pp) + " = " + a.columnTexel("al", pp) + ";\n";
      if (rows > 4)
        bp.step += "    vec4 h" + str(pp) + " = " +
                   (ragged ? a.columnTexel("ah", pp) : a.columnTexel("al", pp, 1)) + ";\n";
    }
    bp.aRow = transposedRow;
  } else {
    // Rows past M (the last block of a ragged M) read row M - 1.
    MatrixTexels a(0, *ops[0].texture, aPitch);
    for (int q = 0; q < rows; ++q)
      bp.setup += a.rowSetup(
          "a" + str(q), "batchA(bi) * " + M + " + min(i0 + " + str(q) + ", " + str(m - 1) + ")");
    bp.step += a.rowStep();
    bp.aRow = [a](int q) { return a.rowTexel("a" + str(q)); };
  }
  // B^T [n, k] holds four steps of K of column j in row j, texel p; B [k, n]
  // four columns of row 4p + j in texel c.
  if (tB) {
    MatrixTexels b(1, *pr.ops[1].texture, k / 4);
    for (int j = 0; j < 4; ++j)
      bp.setup += b.rowSetup("b" + str(j) + "r", "batchB(bi) * " + N + " + 4 * c + " + str(j));
    bp.bTexels = b.rowStep();
    for (int j = 0; j < 4; ++j)
      bp.bTexels += "    vec4 b" + str(j) + " = " + b.rowTexel("b" + str(j) + "r") + ";\n";
  } else {
    MatrixTexels b(1, *pr.ops[1].texture, n / 4);
    bp.setup += b.columnSetup("bw", "batchB(bi) * " + K, "c");
    bp.bTexels = b.columnStep("bw");
    for (int j = 0; j < 4; ++j)
      bp.bTexels += "    vec4 b" + str(j) + " = " + b.columnTexel("bw", j) + ";\n";
  }
  runBlockedProduct(gl, bp, ops, *pr.out);
}

}  // namespace

void registerMatMulKernels() {
  GLINT_REGISTER(registerKernel, "BatchMatMul", "gl", [](KernelArgs& a) { matMul(a, false); });
  GLINT_REGISTER(registerKernel, "_FusedMatMul", "gl", [](KernelArgs& a) { matMul(a, true); });
}

}  // namespace glint::gl
