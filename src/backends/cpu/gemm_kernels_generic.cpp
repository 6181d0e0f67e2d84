// GEMM kernels for the compiler's baseline: SSE2 on x86-64, SIMD128 in
// WebAssembly, NEON on ARM (4-float vectors; a 6 x 8 tile keeps 12
// accumulators, 2 B vectors and a broadcast in 16 registers).
#define GLINT_GEMM_MR 6
#define GLINT_GEMM_NV 2
#include "src/backends/cpu/gemm_kernels.h"
#include "src/backends/cpu/gemm_small.h"

namespace glint::cpu::gemm_detail {
KernelSet kernelsGeneric() { return {"generic", kMR, kNR, &block, &smallBlock}; }
}  // namespace glint::cpu::gemm_detail
