#pragma once
// webgpu kernels by family; each registers under the backend name "webgpu".
namespace glint::webgpu {

void registerElementwiseKernels();  // unary, binary, compare, logic, Select, Cast, ClipByValue
void registerReductionKernels();  // Sum/Prod/Max/Min/Any/All, ArgMax/ArgMin, Softmax, SoftmaxCrossEntropyWithLogits
void registerMatMulKernels();  // BatchMatMul, _FusedMatMul
void registerShapeKernels();   // Transpose, Concat, slices, Pad, Gather, Tile, OneHot...
void registerConvKernels();    // conv2d, depthwise, pooling and their backprops
void registerOptimKernels();   // ApplyGradientDescent, ApplyMomentum, ApplyAdam
void registerRnnKernels();     // LSTMCell, GRUCell, GRUResetState and their Grad kernels

}  // namespace glint::webgpu
