#pragma once
// Which instruction sets the cpu backend's hand-built kernels may use.

#include <string_view>

namespace glint::cpu {

/// Whether kernels built for `isa` ("avx512", "avx512-ymm", "avx2",
/// "generic") run on this CPU. GLINT_CPU_ISA=avx2 or =generic caps the choice
/// below what the CPU has (like oneDNN's ONEDNN_MAX_CPU_ISA): the narrower
/// kernels are what users' older CPUs run, and a test machine with AVX-512
/// would otherwise never execute them.
bool cpuRuns(std::string_view isa);

}  // namespace glint::cpu
