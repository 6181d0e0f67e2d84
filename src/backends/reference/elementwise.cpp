// Element-wise kernels as plain loops over broadcast indices.
#include "src/backends/reference/kernels.h"
#include "src/backends/reference/loops.h"

namespace glint::reference {

namespace {

template <class Op>
void binaryKernel(KernelArgs& args, Op op) {
  const Tensor& a = args.inputs[0];
  const Tensor& b = args.inputs[1];
  Tensor& out = args.outputs[0];
  dispatchDType(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* pa = hostData<T>(a);
    const T* pb = hostData<T>(b);
    T* po = hostData<T>(out);
    auto sa = broadcastStrides(a.shape(), out.shape());
    auto sb = broadcastStrides(b.shape(), out.shape());
    int64_t i = 0;
    forEachIndex(out.shape(), [&](const std::vector<int64_t>& index) {
      po[i++] = static_cast<T>(op(pa[offsetOf(index, sa)], pb[offsetOf(index, sb)]));
    });
  });
}

}  // namespace

void registerElementwiseKernels(const std::string& backend) {
  registerKernel("Add", backend, [](KernelArgs& a) { binaryKernel(a, [](auto x, auto y) { return x + y; }); });
  registerKernel("Mul", backend, [](KernelArgs& a) { binaryKernel(a, [](auto x, auto y) { return x * y; }); });
}

}  // namespace glint::reference
