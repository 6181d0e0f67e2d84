#pragma once
// What the RNN layer (rnn_cells.cpp) needs of the SimpleRNN, LSTM and GRU
// layers (recurrent.cpp): each cell class runs the matching layer's time loop,
// so both share one step implementation, its fused kernels and its masking.
#include <memory>
#include <vector>

#include "glint/initializers.h"
#include "glint/json.h"
#include "glint/layers.h"

namespace glint {

/// LSTM's unitForgetBias (LSTM, its cell and ConvLSTM2D): `base` for the
/// input, cell and output gates' `units` biases each, ones for the forget gate.
std::shared_ptr<Initializer> unitForgetBias(std::shared_ptr<Initializer> base, int64_t units);

/// The layer arguments, normalized; Keras's legacy inputDim (+ inputLength)
/// declare a [time, features] input.
Json recurrentArgs(const Json& args);

/// A recurrent layer's own arguments of the same names, or an RNN's.
struct SequenceFlags {
  bool returnSequences = false;
  bool returnState = false;
  bool goBackwards = false;
  bool zeroOutputForMask = false;  // Keras: masked steps of a sequence output are zeros
};

/// `layer` (a built SimpleRNN, LSTM or GRU) over inputs {x [batch, time,
/// features], initial states...?} with `flags` instead of its own; masks and
/// training as in args. Throws naming the layer for any other class.
std::vector<Tensor> runRecurrent(const Layer& layer, const std::vector<Tensor>& inputs,
                                 const CallArgs& args, const SequenceFlags& flags);
std::vector<Shape> recurrentOutputShapes(const Layer& layer, const std::vector<Shape>& inputs,
                                         const SequenceFlags& flags);

struct RecurrentSize {
  int64_t units;
  int numStates;  // 2 for LSTM (h, c), else 1
};
RecurrentSize recurrentSize(const Layer& layer);

/// A cell that is not one of the built-in ones (a JS cell: class extends
/// tf.layers.RNNCell): the RNN layer runs its call one time step at a time.
class StepCell {
 public:
  virtual ~StepCell() = default;
  /// TF.js's cell.stateSize as a list: the first is the size of its output.
  virtual std::vector<int64_t> stateSizes() const = 0;
};

/// A stateful RNN layer's resetStates(states?): zeros when `states` is empty.
/// Throws naming the layer for any other layer.
void resetRnnStates(Layer& layer, const std::vector<Tensor>& states);
bool isStatefulRnn(const Layer& layer);
/// The states a stateful RNN keeps (empty before its build or when not stateful).
std::vector<Tensor> rnnStates(const Layer& layer);
/// How many states an RNN layer's cell has, and the cell.
size_t rnnStateCount(const Layer& layer);
LayerPtr rnnCell(const Layer& layer);

/// `cell` ({x_t [batch, features], states...} -> {output, new states...})
/// over x [batch, time, features] from `states`, as TF.js's rnn(): a masked
/// step (mask [batch, time], bool) keeps the states and outputs states[0].
/// Returns {the output sequence or the last output, final states...}.
std::vector<Tensor> runCellSteps(Layer& cell, const Tensor& x, std::vector<Tensor> states,
                                 const Tensor& mask, const CallArgs& args, bool goBackwards,
                                 bool returnSequences, const std::string& what);

}  // namespace glint
