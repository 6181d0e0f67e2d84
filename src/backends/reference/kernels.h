#pragma once
// The reference kernels: plain scalar loops written for clarity, the oracle
// of every test. Each family registers its kernels under a backend name, so
// host-memory backends can start from them.
#include <string>

namespace glint::reference {

void registerElementwiseKernels(
    const std::string& backend);  // unary, binary, compare, logic, select, cast, clip
void registerReductionKernels(
    const std::string& backend);  // sum/max/min/prod/any/all/argMax/argMin, softmax
void registerMatMulKernels(const std::string& backend);  // BatchMatMul
void registerConvKernels(
    const std::string& backend);  // conv2d, depthwise, pooling and their backprops
void registerShapeKernels(
    const std::string& backend);  // transpose, concat, slices, pad, gather, tile...
void registerRnnKernels(const std::string& backend);  // LSTM/GRU cells and their grads, Unpack
void registerFusedKernels(
    const std::string& backend);  // _FusedMatMul, SoftmaxCrossEntropyWithLogits
void registerOptimKernels(
    const std::string& backend);  // ApplyAdam, ApplyMomentum, ApplyGradientDescent

inline void registerAllKernels(const std::string& backend) {
  registerElementwiseKernels(backend);
  registerReductionKernels(backend);
  registerMatMulKernels(backend);
  registerConvKernels(backend);
  registerShapeKernels(backend);
  registerRnnKernels(backend);
  registerFusedKernels(backend);
  registerOptimKernels(backend);
}

}  // namespace glint::reference
