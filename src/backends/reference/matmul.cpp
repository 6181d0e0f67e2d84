// BatchMatMul as the textbook triple loop per batch, accumulated in double.
#include "src/backends/reference/kernels.h"
#include "src/backends/reference/loops.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"

namespace glint::reference {

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
    Shape batch(so.begin(), so.end() - 2);
    // Batch strides in whole matrices; 0 where a batch dimension is broadcast.
    std::vector<int64_t> stepA = broadcastStrides(Shape(sa.begin(), sa.end() - 2), batch);
    std::vector<int64_t> stepB = broadcastStrides(Shape(sb.begin(), sb.end() - 2), batch);
    const float* pa = hostData<float>(a);
    const float* pb = hostData<float>(b);
    float* po = hostData<float>(out);
    forEachIndex(batch, [&](const std::vector<int64_t>& index) {
      const float* ma = pa + offsetOf(index, stepA) * m * k;
      const float* mb = pb + offsetOf(index, stepB) * k * n;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double acc = 0;
          for (int64_t p = 0; p < k; ++p) {
            float av = tA ? ma[p * m + i] : ma[i * k + p];
            float bv = tB ? mb[j * k + p] : mb[p * n + j];
            acc += static_cast<double>(av) * bv;
          }
          *po++ = static_cast<float>(acc);
        }
    });
  });
}

}  // namespace glint::reference
