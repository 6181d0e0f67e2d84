// Matmul GFLOP/s on the gl backend's renderer (Mesa llvmpipe here, a GPU
// elsewhere): sizes in whole texels (N % 4 == 0: the row-block product, four
// values per texel read) next to odd ones (N, K off whole texels: large
// products run on zero-padded copies, small ones one value per fetch). Each
// figure: 5 products after one that compiles the shader and warms the
// texture pool, each read back to the host.
//
// Usage: glint_gl_matmul_bench
#include <chrono>
#include <cstdio>

#include "glint/glint.h"

using namespace glint;

int main() {
  setBackend("gl");
  for (const BackendStatus& b : backendInfo().backends)
    if (b.name == "gl") std::printf("{\"what\":\"renderer\",\"info\":\"%s\"}\n", b.reason.c_str());
  for (int64_t n : {256, 255, 512, 511}) {
    Tensor a = randomUniform({n, n}, -1, 1);
    Tensor b = randomUniform({n, n}, -1, 1);
    matMul(a, b).data<float>();
    const int reps = 5;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) matMul(a, b).data<float>();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("{\"what\":\"gl_matmul\",\"n\":%lld,\"path\":\"%s\",\"gflops\":%.3f}\n",
                static_cast<long long>(n), n % 4 == 0 ? "packed" : "padded",
                2.0 * n * n * n * reps / s * 1e-9);
  }
  return 0;
}
