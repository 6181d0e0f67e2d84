#pragma once
// Gradient rules, one family per file next to its ops.
namespace glint {

void registerElementwiseGradients();
void registerReductionGradients();
void registerMatMulGradients();
void registerConvGradients();
void registerShapeGradients();
void registerReshapeGradient();  // src/ops/reshape.cpp
void registerRnnGradients();     // src/ops/rnn.cpp
void registerFusedGradients();   // src/ops/fused.cpp

inline void registerAllGradients() {
  registerElementwiseGradients();
  registerReductionGradients();
  registerMatMulGradients();
  registerConvGradients();
  registerShapeGradients();
  registerReshapeGradient();
  registerRnnGradients();
  registerFusedGradients();
}

}  // namespace glint
