// Reductions as plain loops: every output element walks its reduced window.
#include "src/backends/reference/kernels.h"
#include "src/backends/reference/loops.h"

namespace glint::reference {

namespace {

/// Splits x's shape into the kept part (output order) and the reduced part.
struct ReductionPlan {
  Shape keptShape, reducedShape;
  std::vector<int64_t> keptStrides, reducedStrides;
  ReductionPlan(const Shape& shape, const std::vector<int64_t>& axes) {
    std::vector<int64_t> strides = stridesOf(shape);
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
      bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
      (reduced ? reducedShape : keptShape).push_back(shape[d]);
      (reduced ? reducedStrides : keptStrides).push_back(strides[d]);
    }
  }
};

template <class Acc, class Init, class Step>
void reduceKernel(KernelArgs& args, Init init, Step step) {
  const Tensor& x = args.inputs[0];
  ReductionPlan plan(x.shape(), args.attrs.ints("axes"));
  dispatchDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = hostData<T>(x);
    T* po = hostData<T>(args.outputs[0]);
    int64_t o = 0;
    forEachIndex(plan.keptShape, [&](const std::vector<int64_t>& kept) {
      int64_t base = offsetOf(kept, plan.keptStrides);
      Acc acc = init;
      forEachIndex(plan.reducedShape, [&](const std::vector<int64_t>& r) {
        acc = step(acc, static_cast<Acc>(px[base + offsetOf(r, plan.reducedStrides)]));
      });
      po[o++] = static_cast<T>(acc);
    });
  });
}

}  // namespace

void registerReductionKernels(const std::string& backend) {
  // Sums accumulate in double so the oracle is more exact than what it checks.
  registerKernel("Sum", backend, [](KernelArgs& a) {
    reduceKernel<double>(a, 0.0, [](double acc, double v) { return acc + v; });
  });
}

}  // namespace glint::reference
