#pragma once
// LSTMSequence and LSTMSequenceGrad (include/glint/rnn_ops.h) as a loop of the
// backend's own kernels: per step one matMul and one LSTMCell (and, with a
// third output, the step's pre-activations kept); backwards, per step one
// LSTMCellGrad and one matMul, after the steps' products with W_r again as
// one matMul over all steps unless the pre-activations are given. A backend
// without a fused form of the time loop registers these.
#include "glint/backend.h"

namespace glint {

void lstmSequenceStepwise(KernelArgs& args);
void lstmSequenceGradStepwise(KernelArgs& args);

}  // namespace glint
