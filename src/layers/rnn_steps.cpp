// The RNN layer's time loop for cells that are not built in (JS cells): the
// cell's call runs once per step on that step's input and the states, as
// TF.js's rnn() runs it. Built-in cells run their layer's loop instead
// (recurrent.cpp), with fused kernels.
#include <algorithm>

#include "glint/error.h"
#include "glint/ops.h"
#include "src/layers/recurrent.h"

namespace glint {

std::vector<Tensor> runCellSteps(Layer& cell, const Tensor& x, std::vector<Tensor> states,
                                 const Tensor& mask, const CallArgs& args, bool goBackwards,
                                 bool returnSequences, const std::string& what) {
  check(x.rank() == 3, what, "needs inputs of rank 3 [batch, time, features], got ",
        shapeToString(x.shape()));
  const int64_t batch = x.dim(0), time = x.dim(1);
  check(time > 0, what, "needs at least one time step, got input shape ", shapeToString(x.shape()));
  check(!states.empty(), what, "the cell has no states");
  std::vector<Tensor> steps = unstack(x, 1);
  std::vector<Tensor> stepMasks;
  if (mask.defined()) {
    check(mask.shape() == Shape({batch, time}), what,
          "needs a mask of shape [batch, time] = ", shapeToString({batch, time}), ", got ",
          shapeToString(mask.shape()));
    for (const Tensor& m : unstack(reshape(cast(mask, DType::float32), {batch, time, 1}), 1))
      stepMasks.push_back(cast(m, DType::boolean));
  }
  if (goBackwards) {
    std::reverse(steps.begin(), steps.end());
    std::reverse(stepMasks.begin(), stepMasks.end());
  }
  CallArgs cellArgs{args.training, {}, {}};
  std::vector<Tensor> outputs;
  Tensor last;
  for (size_t t = 0; t < steps.size(); ++t) {
    std::vector<Tensor> in{steps[t]};
    in.insert(in.end(), states.begin(), states.end());
    std::vector<Tensor> out = cell.call(in, cellArgs);
    check(out.size() == states.size() + 1, what, "the cell's call returned ", out.size(),
          " tensors; it must return [output, ...newStates] with ", states.size(), " state(s)");
    // The output is as wide as the first state (TF.js's output size is stateSize[0]).
    for (size_t i = 0; i < out.size(); ++i) {
      const Shape& expected = states[i == 0 ? 0 : i - 1].shape();
      check(out[i].shape() == expected, what, "the cell's call returned ",
            i == 0 ? std::string("an output") : "state " + std::to_string(i - 1), " of shape ",
            shapeToString(out[i].shape()), ", expected ", shapeToString(expected),
            i == 0 ? " (the size of its first state, stateSize[0])" : "");
    }
    if (stepMasks.empty()) {
      last = out[0];
      states.assign(out.begin() + 1, out.end());
    } else {
      // TF.js's rule: a masked step outputs the previous first state and keeps every state.
      const Tensor& m = stepMasks[t];
      last = where(m, out[0], states[0]);
      for (size_t i = 0; i < states.size(); ++i) states[i] = where(m, out[i + 1], states[i]);
    }
    if (returnSequences) outputs.push_back(last);
  }
  std::vector<Tensor> result{returnSequences ? stack(outputs, 1) : last};
  result.insert(result.end(), states.begin(), states.end());
  return result;
}

}  // namespace glint
