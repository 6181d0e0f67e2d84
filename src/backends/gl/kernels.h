#pragma once
// gl kernels by family; each registers under the backend name "gl".
namespace glint::gl {

void registerElementwiseKernels();  // unary, binary, compare, logic, Select, Cast, ClipByValue
void registerReductionKernels();    // Sum/Prod/Max/Min/Any/All, ArgMax/ArgMin, Softmax
void registerMatMulKernels();       // BatchMatMul
void registerShapeKernels();        // Transpose, Concat, slices, Pad, Gather, Tile, OneHot...
void registerConvKernels();         // conv2d, depthwise, pooling and their backprops
void registerOptimKernels();        // ApplyGradientDescent, ApplyMomentum, ApplyAdam
void registerRnnKernels();          // LSTMCell, GRUCell, GRUResetState and their Grad kernels

}  // namespace glint::gl
