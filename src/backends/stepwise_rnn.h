#pragma once
// LSTMSequence and LSTMSequenceGrad (include/glint/rnn_ops.h) as a loop of the
// backend's own kernels: per step one matMul and one LSTMCell (LSTMCellGrad
// backwards). A backend without a fused form of the time loop registers these;
// they are what the LSTM layer ran before the loop became one kernel.
#include "glint/backend.h"

namespace glint {

void lstmSequenceStepwise(KernelArgs& args);
void lstmSequenceGradStepwise(KernelArgs& args);

}  // namespace glint
