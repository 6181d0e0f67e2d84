// BatchMatMul for the cpu backend: one packed GEMM (gemm.h) per batch entry,
// transposes handled by the packing, broadcast batch dimensions by offsets.
#include <algorithm>
#include <vector>

#include "src/backends/cpu/gemm.h"
#include "src/backends/cpu/kernels.h"
#include "src/backends/reference/loops.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"

namespace glint::cpu {

void registerMatMulKernels(const std::string& backend) {
  GLINT_REGISTER(registerKernel, "BatchMatMul", backend, [](KernelArgs& args) {
    const Tensor& a = args.inputs[0];
    const Tensor& b = args.inputs[1];
    Tensor& out = args.outputs[0];
    const kernel_attrs::MatMul product = kernel_attrs::MatMul::read(args.attrs);
    bool tA = product.transposeA, tB = product.transposeB;
    const Shape& sa = a.shape();
    const Shape& sb = b.shape();
    const Shape& so = out.shape();
    int64_t m = so[so.size() - 2], n = so[so.size() - 1];
    int64_t k = tA ? sa[sa.size() - 2] : sa[sa.size() - 1];
    float* po = hostData<float>(out);
    if (m == 0 || n == 0) return;

    Shape batch(so.begin(), so.end() - 2);
    std::vector<int64_t> stepA =
        reference::broadcastStrides(Shape(sa.begin(), sa.end() - 2), batch);
    std::vector<int64_t> stepB =
        reference::broadcastStrides(Shape(sb.begin(), sb.end() - 2), batch);
    const float* pa = hostData<float>(a);
    const float* pb = hostData<float>(b);
    reference::forEachIndex(batch, [&](const std::vector<int64_t>& index) {
      const float* ma = pa + reference::offsetOf(index, stepA) * m * k;
      const float* mb = pb + reference::offsetOf(index, stepB) * k * n;
      gemm(tA, tB, m, n, k, 1.0f, ma, tA ? m : k, mb, tB ? k : n, 0.0f, po, n);
      po += m * n;
    });
  });
}

}  // namespace glint::cpu
