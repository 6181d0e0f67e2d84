// GEMM kernels for the compiler's baseline: SSE2 on x86-64, SIMD128 in
// WebAssembly, NEON on ARM (4-float vectors; a 6 x 8 tile keeps 12
// accumulators, 2 B vectors and a broadcast in 16 registers).
// In WebAssembly a 2 x 16 tile: V8 keeps a scratch register of the 16 and
// wants another for each product before its add, so the 6 x 8 tile spilled
// 5 accumulators every step (its micro-kernel ran at half the mul + add
// peak; tiles of 8 accumulators run near it). Of those, 2 x 16 measured
// fastest on 512^3 (85-91% of the peak probe against 4 x 8's 77-85%).
#ifndef GLINT_GEMM_MR
#if defined(__wasm__)
#define GLINT_GEMM_MR 2
#define GLINT_GEMM_NV 4
#else
#define GLINT_GEMM_MR 6
#define GLINT_GEMM_NV 2
#endif
#endif
#include "src/backends/cpu/gemm_kernels.h"
#include "src/backends/cpu/gemm_small.h"

namespace glint::cpu::gemm_detail {
KernelSet kernelsGeneric() { return {"generic", kMR, kNR, &block, &smallBlock}; }
}  // namespace glint::cpu::gemm_detail
