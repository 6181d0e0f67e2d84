// The element-wise family's gradient entry point. The ops live in unary.cpp,
// binary.cpp (with the operators) and logic.cpp (comparisons, where, cast, clip).
#include "src/ops/gradients.h"

namespace glint {

void registerUnaryGradients();   // src/ops/unary.cpp
void registerBinaryGradients();  // src/ops/binary.cpp
void registerLogicGradients();   // src/ops/logic.cpp

void registerElementwiseGradients() {
  registerUnaryGradients();
  registerBinaryGradients();
  registerLogicGradients();
}

}  // namespace glint
