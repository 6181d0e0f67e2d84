#pragma once
// Single-precision GEMM for the cpu backend, BLAS-style on row-major storage:
//   C[m, n] = alpha * op(A) * op(B) + beta * C,  op(X) = X or X^T.
// Goto/BLIS structure: B is packed into kc x nc blocks of NR-wide panels,
// A into MR-row slivers, and a register-tiled micro-kernel (simd.h) does the
// arithmetic. Kernels are compiled for AVX-512, AVX2+FMA and the baseline
// (SSE2 / WebAssembly SIMD128 / NEON); the best one the CPU runs is chosen
// at run time. Large products are split across the shared thread pool.
#include <cstdint>
#include <string>
#include <vector>

namespace glint::cpu {

/// Work applied to each finished tile of C (bias, activation, ...) while the
/// tile is still in L1, instead of as extra passes over C. fn gets the tile
/// C[i0:i0+rows, j0:j0+cols] at `c` (row stride ldc); it runs on the thread
/// that computed the tile, so it must only touch that tile.
struct GemmEpilogue {
  void (*fn)(const void* ctx, float* c, int64_t ldc, int64_t i0, int64_t j0, int64_t rows,
             int64_t cols) = nullptr;
  const void* ctx = nullptr;
};

struct GemmOptions {
  /// Tasks to split C into: 0 picks by size (1 below a measured threshold,
  /// else the pool's thread count); n > 0 forces n (tests, benchmarks).
  int threads = 0;
  /// Kernel set by name ("avx512", "avx2", "generic"); empty = the best one.
  std::string isa;
  /// Runs once on every element of C after its final value is computed.
  GemmEpilogue epilogue;
};

/// lda/ldb/ldc are row strides of the stored matrices: A is stored m x k
/// (k x m if transA), B k x n (n x k if transB), C m x n. beta == 0 ignores
/// C's old contents (NaN included). Sizes may be 0.
void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
          const GemmOptions& options = {});

/// Kernel sets this CPU can run, best first.
std::vector<std::string> gemmIsas();

namespace gemm_detail {

/// One product, as passed to the per-ISA kernels.
struct Problem {
  bool transA, transB;
  int64_t m, n, k;
  float alpha;
  const float* a;
  int64_t lda;
  const float* b;
  int64_t ldb;
  float beta;
  float* c;
  int64_t ldc;
  GemmEpilogue epilogue;
};

/// Computes the block C[i0:i1, j0:j1] of a product (k > 0).
using BlockFn = void (*)(const Problem&, int64_t i0, int64_t i1, int64_t j0, int64_t j1);

struct KernelSet {
  const char* isa;
  int mr, nr;  // register tile
  BlockFn block;
  BlockFn small;  // products of at most kSmallRows rows: B is read unpacked
};

/// Up to this many rows of C, packing B costs more than it saves.
constexpr int64_t kSmallRows = 4;

KernelSet kernelsAvx512();
KernelSet kernelsAvx2();
KernelSet kernelsGeneric();

/// This thread's scratch memory, 64-byte aligned, reused across calls.
float* workspace(size_t floats);

}  // namespace gemm_detail

}  // namespace glint::cpu
