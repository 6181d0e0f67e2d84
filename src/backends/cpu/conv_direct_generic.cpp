// Direct convolution kernels for the compiler's baseline: SSE2 on x86-64,
// SIMD128 in WebAssembly, NEON on ARM (4-float vectors, 16 registers).
#include <string>
#include <vector>

#define GLINT_CONV_REGISTERS 16
#include "src/backends/cpu/conv_direct_kernels.h"
#include "src/backends/cpu/cpu_isa.h"

namespace glint::cpu::conv_direct {

KernelSet kernelsGeneric() { return {"generic", kWidth, &forwardDispatch, &filterGradDispatch}; }

const KernelSet* pick(int64_t inC, int64_t outC, const char* isa) {
  if (inC > kMaxInChannels) return nullptr;
  static const std::vector<KernelSet> sets = [] {
    std::vector<KernelSet> out;  // widest first
    for (KernelSet s : {kernelsAvx512(), kernelsAvx512Ymm(), kernelsAvx2(), kernelsGeneric()})
      if (s.width > 0 && cpuRuns(s.isa)) out.push_back(s);
    return out;
  }();
  for (const KernelSet& s : sets) {
    if (isa && std::string(isa) != s.isa) continue;
    if (outC > 0 && outC % s.width == 0 && outC / s.width <= kMaxVectors) return &s;
  }
  return nullptr;
}

}  // namespace glint::cpu::conv_direct
