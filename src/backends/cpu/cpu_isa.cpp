#include "src/backends/cpu/cpu_isa.h"

#include <cstdlib>
#include <string>

#include "glint/error.h"

namespace glint::cpu {

namespace {

// Widest first; an ISA's rank is its index from the end.
int rank(std::string_view isa) {
  if (isa == "avx512" || isa == "avx512-ymm") return 2;
  if (isa == "avx2") return 1;
  if (isa == "generic") return 0;
  return -1;
}

bool hardwareRuns(std::string_view isa) {
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__EMSCRIPTEN__)
  if (rank(isa) == 2)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
  if (rank(isa) == 1) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  return isa == "generic";
}

int cap() {
  static const int value = [] {
    const char* env = std::getenv("GLINT_CPU_ISA");
    if (!env || !*env) return 2;
    int r = rank(env);
    if (r < 0 || std::string_view(env) == "avx512-ymm")
      fail("GLINT_CPU_ISA", "'", env, "' is not one of avx512, avx2, generic");
    return r;
  }();
  return value;
}

}  // namespace

bool cpuRuns(std::string_view isa) {
  int r = rank(isa);
  return r >= 0 && r <= cap() && hardwareRuns(isa);
}

}  // namespace glint::cpu
