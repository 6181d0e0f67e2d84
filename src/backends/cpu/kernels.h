#pragma once
#include <string>

namespace glint::cpu {

/// Kernels that replace reference loops on the cpu backend, one family each.
void registerMatMulKernels(const std::string& backend);
void registerConvKernels(const std::string& backend);
void registerPoolKernels(const std::string& backend);  // MaxPool, AvgPool and their grads
void registerElementwiseKernels(const std::string& backend);
void registerReductionKernels(const std::string& backend);
void registerRnnKernels(const std::string& backend);    // LSTM/GRU cells and their grads
void registerSliceKernels(const std::string& backend);  // StridedSlice(Grad), Concat, Unpack
void registerFusedKernels(
    const std::string& backend);  // _FusedMatMul, SoftmaxCrossEntropyWithLogits
void registerOptimKernels(const std::string& backend);  // ApplyAdam, ApplyMomentum, ...

inline void registerFastKernels(const std::string& backend) {
  registerMatMulKernels(backend);
  registerConvKernels(backend);
  registerPoolKernels(backend);
  registerElementwiseKernels(backend);
  registerReductionKernels(backend);
  registerRnnKernels(backend);
  registerSliceKernels(backend);
  registerFusedKernels(backend);
  registerOptimKernels(backend);
}

}  // namespace glint::cpu
