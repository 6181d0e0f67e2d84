// The generic RNN layer and its cells, as TF.js 4.22: RNN({cell}) with
// SimpleRNNCell, LSTMCell, GRUCell or StackedRNNCells (a list of cells).
//
// A cell is one time step; RNN runs it over the time axis. Each cell holds the
// recurrent layer of its kind (LSTMCell an LSTM, ...) built from the cell's own
// config and runs that layer's time loop (recurrent.h), so a cell computes
// exactly what the layer computes, with its fused kernels and masking. Stacked
// cells feed each step's output to the next cell; over a whole sequence that
// is the first cell's sequence output run through the second, and so on.
#include <algorithm>

#include "glint/engine.h"
#include "glint/error.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "src/core/kernel_selection.h"
#include "src/layers/families.h"
#include "src/layers/layer_args.h"
#include "src/layers/recurrent.h"

namespace glint {

namespace {

// Keys of a cell: its layer's, without the ones about the sequence.
#define GLINT_CELL_KEYS                                                                       \
  "units", "activation", "use_bias", "kernel_initializer", "recurrent_initializer",           \
      "bias_initializer", "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",  \
      "activity_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint", \
      "dropout", "recurrent_dropout"

// Keys about the sequence: the RNN's own (besides cell).
#define GLINT_SEQUENCE_KEYS                                                               \
  "return_sequences", "return_state", "go_backwards", "stateful", "unroll", "time_major", \
      "zero_output_for_mask"

/// "<ClassName> '<name>'", for errors raised while constructing.
std::string describe(const Layer& l) { return l.className() + " '" + l.name() + "'"; }

class RnnCell : public Layer {
 public:
  using LayerMaker = LayerPtr (*)(const Config&);
  /// checkKeys rejects the keys the cell does not take (before its layer sees them).
  RnnCell(const Json& args, std::string cls, const std::string& prefix, LayerMaker make,
          void (*checkKeys)(const ArgReader&))
      : Layer(args, prefix), cls_(std::move(cls)) {
    checkKeys(ArgReader(this->args(), describe(*this)));
    if (batchInputShape()) error("takes no input shape: give it to the RNN layer");
    Json config = this->args();
    config["name"] = name();
    try {
      impl_ = make(config);
    } catch (const Error& e) {
      error(e.what());  // names the cell too, not only its layer
    }
  }
  std::string className() const override { return cls_; }

  const Layer& impl() const { return *impl_; }
  RecurrentSize size() const { return recurrentSize(*impl_); }

  /// {x [batch, features], states [batch, units]...} -> {output, new states...}.
  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    if (in.empty() || in[0].size() != 2)
      error("takes inputs {x [batch, features], states...}, got " +
            (in.empty() ? std::string("none") : shapeToString(in[0])));
    std::vector<Shape> seq = sequenceShapes(in);
    std::vector<Shape> out = recurrentOutputShapes(*impl_, seq, stepFlags());
    return out;
  }
  void build(const std::vector<Shape>& in) override {
    if (!impl_->built()) impl_->setWeightNamePrefix(weightNamePrefix());
    impl_->ensureBuilt({{in[0][0], 1, in[0][1]}});
  }
  /// One step: the layer over a sequence of one, from the given states.
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    std::vector<Shape> shapes;
    for (const Tensor& t : in) shapes.push_back(t.shape());
    computeOutputShape(shapes);
    std::vector<Tensor> seq = in;
    seq[0] = reshape(in[0], {in[0].dim(0), 1, in[0].dim(1)});
    if (seq.size() == 1)
      for (int i = 0; i < size().numStates; ++i) seq.push_back(zeros({in[0].dim(0), size().units}));
    CallArgs stepArgs{args.training, {}, {}};
    return runRecurrent(*impl_, seq, stepArgs, stepFlags());
  }

  Json getConfig() const override {
    Json c = impl_->getConfig();
    for (const char* key : {GLINT_SEQUENCE_KEYS, "batch_input_shape"}) c.erase(key);
    c["name"] = name();
    c["trainable"] = trainable();
    return c;
  }
  void setTrainable(bool trainable) override {
    Layer::setTrainable(trainable);
    impl_->setTrainable(trainable);
  }
  std::vector<Tensor> regularizationLosses() const override {
    return impl_->regularizationLosses();
  }
  void applyConstraints() override { impl_->applyConstraints(); }

 protected:
  std::vector<Variable> ownWeights(bool trainableOnes) const override {
    return trainableOnes ? impl_->trainableWeights() : impl_->nonTrainableWeights();
  }

 private:
  static SequenceFlags stepFlags() { return {false, true, false, false}; }
  static std::vector<Shape> sequenceShapes(const std::vector<Shape>& in) {
    std::vector<Shape> seq = in;
    seq[0] = {in[0][0], 1, in[0][1]};
    return seq;
  }

  std::string cls_;
  LayerPtr impl_;
};

class StackedRNNCells;
std::vector<int64_t> cellStateSizes(const Layer& cell, const std::string& what);

/// The built-in cell `layer` is, or null.
std::shared_ptr<RnnCell> builtinCell(const LayerPtr& layer) {
  return std::dynamic_pointer_cast<RnnCell>(layer);
}

/// Builds a cell for one step's input shape [batch, features] (TF.js's
/// cell.build; a JS cell's build makes its weights under `prefix`).
void buildCell(Layer& cell, const Shape& stepShape, const std::string& prefix) {
  if (cell.built()) return;
  cell.setWeightNamePrefix(prefix);
  if (dynamic_cast<RnnCell*>(&cell)) cell.ensureBuilt({stepShape});
  else cell.build({stepShape});
}

/// Cells applied one after another at each step. Their states are listed
/// last cell first, as TF.js lists them.
class StackedRNNCells : public Layer {
 public:
  StackedRNNCells(const std::vector<LayerPtr>& cells, const Json& args)
      : Layer(args, "stacked_rnn_cells") {
    ArgReader(this->args(), describe(*this)).allowOnly({"cells"});
    if (cells.empty()) error("argument 'cells' must list at least one cell");
    for (const LayerPtr& c : cells) {
      if (!c) error("argument 'cells' holds no layer");
      cellStateSizes(*c, describe(*this));  // each must be a cell
      cells_.push_back(c);
    }
  }
  std::string className() const override { return "StackedRNNCells"; }
  const std::vector<LayerPtr>& cells() const { return cells_; }
  /// The cells when every one is built in (RNN then runs their fused loops), else empty.
  std::vector<std::shared_ptr<RnnCell>> builtinCells() const {
    std::vector<std::shared_ptr<RnnCell>> out;
    for (const LayerPtr& c : cells_) {
      auto b = builtinCell(c);
      if (!b) return {};
      out.push_back(b);
    }
    return out;
  }
  std::vector<int64_t> stateSizes() const {
    std::vector<int64_t> out;
    for (size_t i = cells_.size(); i-- > 0;)
      for (int64_t s : cellStateSizes(*cells_[i], describe(*this))) out.push_back(s);
    return out;
  }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    if (in.empty() || in[0].size() != 2)
      error("takes inputs {x [batch, features], states...}, got " +
            (in.empty() ? std::string("none") : shapeToString(in[0])));
    std::vector<std::vector<Shape>> states = splitStates(in);
    Shape x = in[0];
    std::vector<std::vector<Shape>> outStates;
    for (size_t i = 0; i < cells_.size(); ++i) {
      std::vector<Shape> out;
      if (auto b = builtinCell(cells_[i])) {
        std::vector<Shape> cellIn{x};
        cellIn.insert(cellIn.end(), states[i].begin(), states[i].end());
        out = b->computeOutputShape(cellIn);
      } else {
        for (int64_t s : cellStateSizes(*cells_[i], describe(*this))) out.push_back({x[0], s});
      }
      x = out[0];
      outStates.emplace_back(out.begin() + 1, out.end());
    }
    return joinStates(x, outStates);
  }
  void build(const std::vector<Shape>& in) override {
    Shape x = in[0];
    for (size_t i = 0; i < cells_.size(); ++i) {
      buildCell(*cells_[i], x, weightNamePrefix() + "/RNNCell_" + std::to_string(i));
      x = {x[0], cellStateSizes(*cells_[i], describe(*this))[0]};
    }
    built_ = true;
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    std::vector<std::vector<Tensor>> states = splitStates(in);
    Tensor x = in[0];
    std::vector<std::vector<Tensor>> outStates;
    for (size_t i = 0; i < cells_.size(); ++i) {
      std::vector<Tensor> cellIn{x};
      cellIn.insert(cellIn.end(), states[i].begin(), states[i].end());
      std::vector<Tensor> out = cells_[i]->call(cellIn, args);
      if (out.size() != cellIn.size())
        error("cell " + std::to_string(i) + " returned " + std::to_string(out.size()) +
              " tensors for " + std::to_string(cellIn.size() - 1) + " state(s)");
      x = out[0];
      outStates.emplace_back(out.begin() + 1, out.end());
    }
    return joinStates(x, outStates);
  }

  Json getConfig() const override {
    Json c = Layer::getConfig();
    Json list = Json::array();
    for (const auto& cell : cells_) list.push_back(nestedConfig(*cell));
    c["cells"] = list;
    return c;
  }
  void setTrainable(bool trainable) override {
    Layer::setTrainable(trainable);
    for (const auto& c : cells_) c->setTrainable(trainable);
  }
  std::vector<Tensor> regularizationLosses() const override {
    std::vector<Tensor> out;
    for (const auto& c : cells_)
      for (const Tensor& t : c->regularizationLosses()) out.push_back(t);
    return out;
  }
  void applyConstraints() override {
    for (const auto& c : cells_) c->applyConstraints();
  }

 protected:
  std::vector<Variable> ownWeights(bool trainableOnes) const override {
    std::vector<Variable> out;
    for (const auto& c : cells_)
      for (const Variable& v : trainableOnes ? c->trainableWeights() : c->nonTrainableWeights())
        out.push_back(v);
    return out;
  }

 private:
  /// {x, states (last cell first)...} -> per cell, its states; none given: empty lists.
  template <class T>
  std::vector<std::vector<T>> splitStates(const std::vector<T>& in) const {
    std::vector<std::vector<T>> out(cells_.size());
    if (in.size() == 1) return out;
    std::vector<size_t> counts;
    size_t total = 0;
    for (const auto& c : cells_) {
      counts.push_back(cellStateSizes(*c, describe(*this)).size());
      total += counts.back();
    }
    if (in.size() != 1 + total)
      error("takes x and " + std::to_string(total) + " states, got " + std::to_string(in.size()) +
            " inputs");
    size_t at = 1;
    for (size_t i = cells_.size(); i-- > 0;) {
      size_t n = counts[i];
      out[i].assign(in.begin() + static_cast<std::ptrdiff_t>(at),
                    in.begin() + static_cast<std::ptrdiff_t>(at + n));
      at += n;
    }
    return out;
  }
  template <class T>
  static std::vector<T> joinStates(const T& x, const std::vector<std::vector<T>>& states) {
    std::vector<T> out{x};
    for (size_t i = states.size(); i-- > 0;)
      out.insert(out.end(), states[i].begin(), states[i].end());
    return out;
  }

  std::vector<LayerPtr> cells_;
};

/// TF.js's cell.stateSize as a list; fails naming `what` for a layer that is no cell.
std::vector<int64_t> cellStateSizes(const Layer& cell, const std::string& what) {
  if (auto* b = dynamic_cast<const RnnCell*>(&cell))
    return std::vector<int64_t>(static_cast<size_t>(b->size().numStates), b->size().units);
  if (auto* s = dynamic_cast<const StackedRNNCells*>(&cell)) return s->stateSizes();
  if (auto* c = dynamic_cast<const StepCell*>(&cell)) {
    std::vector<int64_t> sizes = c->stateSizes();
    if (sizes.empty()) fail(what, "the cell ", describe(cell), " has no stateSize");
    for (int64_t v : sizes)
      if (v <= 0)
        fail(what, "the cell ", describe(cell), " has a stateSize that is not a positive size");
    return sizes;
  }
  fail(what,
       "argument 'cell' must be an RNN cell (SimpleRNNCell, LSTMCell, GRUCell, StackedRNNCells, or "
       "a ",
       "class extending tf.layers.RNNCell with a stateSize), got ", describe(cell));
}

/// The built-in cells an RNN runs with their fused loops, in order: its cell, or
/// the ones it stacks; empty when one of them is not built in.
std::vector<std::shared_ptr<RnnCell>> builtinCellsOf(const LayerPtr& cell) {
  if (auto stacked = std::dynamic_pointer_cast<StackedRNNCells>(cell))
    return stacked->builtinCells();
  if (auto b = builtinCell(cell)) return {b};
  return {};
}

Json withoutCellKeys(const Json& args) {
  Json a = recurrentArgs(args);
  a.erase("cell");
  a.erase("cells");  // TF.js writes the stacked cells' configs here too
  return a;
}

class RNN : public Layer {
 public:
  RNN(const LayerPtr& cell, const Json& args) : Layer(withoutCellKeys(args), "rnn"), cell_(cell) {
    ArgReader r(this->args(), describe(*this));
    if (!cell_) error("argument 'cell' is required");
    stateSizes_ = cellStateSizes(*cell_, describe(*this));
    cells_ = builtinCellsOf(cell_);
    // TF.js's RNN config repeats its cell's keys at the top level: read from the cell, not here.
    if (cells_.empty()) {
      Json own = this->args();
      Json cellKeys = normalizeArgKeys(cell_->getConfig());
      for (auto it = cellKeys.begin(); it != cellKeys.end(); ++it) own.erase(it.key());
      ArgReader(own, describe(*this)).allowOnly({GLINT_SEQUENCE_KEYS});
    } else {
      r.allowOnly({GLINT_SEQUENCE_KEYS, GLINT_CELL_KEYS, "recurrent_activation", "unit_forget_bias",
                   "implementation", "reset_after"});
    }
    flags_.returnSequences = r.boolean("return_sequences", false);
    flags_.returnState = r.boolean("return_state", false);
    flags_.goBackwards = r.boolean("go_backwards", false);
    flags_.zeroOutputForMask = r.boolean("zero_output_for_mask", false);
    unroll_ = r.boolean("unroll", false);  // accepted and ignored, as in TF.js
    stateful_ = r.boolean("stateful", false);
    if (r.boolean("time_major", false))
      r.fail("time_major", "true is not supported: inputs are [batch, time, features]");
  }
  std::string className() const override { return "RNN"; }
  bool stateful() const { return stateful_; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    if (in.size() != 1)
      error("takes one input [batch, time, features] (initial states are not supported), got " +
            std::to_string(in.size()) + " inputs");
    if (in[0].size() != 3)
      error("needs inputs of rank 3 [batch, time, features], got " + shapeToString(in[0]));
    if (cells_.empty()) {
      const Shape& s = in[0];
      Shape out =
          flags_.returnSequences ? Shape{s[0], s[1], stateSizes_[0]} : Shape{s[0], stateSizes_[0]};
      std::vector<Shape> all{out};
      if (flags_.returnState)
        for (int64_t size : stateSizes_) all.push_back({s[0], size});
      return all;
    }
    Shape x = in[0];
    std::vector<std::vector<Shape>> states;
    try {
      for (size_t i = 0; i < cells_.size(); ++i) {
        std::vector<Shape> out = recurrentOutputShapes(cells_[i]->impl(), {x}, flagsOf(i));
        x = out[0];
        states.emplace_back(out.begin() + 1, out.end());
      }
    } catch (const Error& e) {
      error(e.what());  // a cell's complaint, named after this layer too
    }
    return withStates(x, states);
  }
  void build(const std::vector<Shape>& in) override {
    buildCell(*cell_, {in[0][0], in[0][2]}, weightNamePrefix());
    if (stateful_) {
      if (in[0][0] < 0)
        error(
            "is stateful, so it needs to know its batch size: give the first layer of a Sequential "
            "model batchInputShape, or the functional model's input batchShape");
      batch_ = in[0][0];
      setStates({});
    }
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    computeOutputShape({in[0].shape()});
    if (stateful_ && in[0].dim(0) != batch_)
      error("is stateful with batch size " + std::to_string(batch_) + ", got input shape " +
            shapeToString(in[0].shape()));
    // Initial states, TF.js's flat list (a stack's last cell first): the kept
    // ones when stateful, else zeros (built-in cells make their own, and run
    // their fastest loop without given states).
    std::vector<Tensor> initial = states_;
    if (!stateful_ && cells_.empty())
      for (int64_t size : stateSizes_) initial.push_back(zeros({in[0].dim(0), size}));
    std::vector<Tensor> out =
        cells_.empty() ? callSteps(in[0], initial, args) : callBuiltin(in[0], initial, args);
    if (stateful_) keepStates({out.begin() + 1, out.end()});
    if (!flags_.returnState) out.resize(1);
    return out;
  }
  std::vector<Tensor> computeMask(const std::vector<Tensor>&,
                                  const std::vector<Tensor>& masks) const override {
    return {flags_.returnSequences && !masks.empty() ? masks[0] : Tensor()};
  }

  /// TF.js's resetStates(states?): zeros, or the given values ([batch, size] each).
  void resetStates(const std::vector<Tensor>& values) {
    if (!stateful_) error("resetStates: the layer is not stateful");
    if (!built()) error("resetStates: the layer is not built yet (it builds on its first call)");
    setStates(values);
  }
  /// The kept states of a stateful layer (empty before its build).
  const std::vector<Tensor>& states() const { return states_; }
  size_t stateCount() const { return stateSizes_.size(); }
  const LayerPtr& cell() const { return cell_; }
  void setStates(const std::vector<Tensor>& values) {
    if (!values.empty() && values.size() != stateSizes_.size())
      error("resetStates: expects " + std::to_string(stateSizes_.size()) + " state(s), got " +
            std::to_string(values.size()));
    std::vector<Tensor> next;
    for (size_t i = 0; i < stateSizes_.size(); ++i) {
      Shape shape{batch_, stateSizes_[i]};
      if (values.empty()) {
        next.push_back(zeros(shape));
        continue;
      }
      if (values[i].shape() != shape)
        error("resetStates: state " + std::to_string(i) + " must have shape " +
              shapeToString(shape) + ", got " + shapeToString(values[i].shape()));
      next.push_back(cast(values[i], DType::float32));
    }
    keepStates(next);
  }
  /// Kept states outlive the scope of the call that made them (a predict, a
  /// training step), as TF.js keeps them.
  void keepStates(const std::vector<Tensor>& states) {
    for (const Tensor& t : states) keep(t);
    states_ = states;
  }

  Json getConfig() const override {
    Json c = Layer::getConfig();
    c["return_sequences"] = flags_.returnSequences;
    c["return_state"] = flags_.returnState;
    c["go_backwards"] = flags_.goBackwards;
    c["stateful"] = stateful_;
    c["unroll"] = unroll_;
    if (flags_.zeroOutputForMask) c["zero_output_for_mask"] = true;  // Keras only
    c["cell"] = nestedConfig(*cell_);
    return c;
  }
  void setTrainable(bool trainable) override {
    Layer::setTrainable(trainable);
    cell_->setTrainable(trainable);
  }
  std::vector<Tensor> regularizationLosses() const override {
    return cell_->regularizationLosses();
  }
  void applyConstraints() override { cell_->applyConstraints(); }

 protected:
  std::vector<Variable> ownWeights(bool trainableOnes) const override {
    return trainableOnes ? cell_->trainableWeights() : cell_->nonTrainableWeights();
  }

 private:
  /// A cell that is not built in: its call once per step.
  std::vector<Tensor> callSteps(const Tensor& x, const std::vector<Tensor>& initial,
                                const CallArgs& args) {
    Tensor mask = !args.masks.empty() ? args.masks[0] : Tensor();
    return runCellSteps(*cell_, x, initial, mask, args, flags_.goBackwards, flags_.returnSequences,
                        describe(*this));
  }
  /// Built-in cells: each runs its layer's whole loop, the next cell on its output sequence.
  std::vector<Tensor> callBuiltin(const Tensor& input, const std::vector<Tensor>& initial,
                                  const CallArgs& args) {
    Tensor x = input;
    std::vector<std::vector<Tensor>> states;
    size_t at = initial.size();  // the flat list holds the last cell's states first
    for (size_t i = 0; i < cells_.size(); ++i) {
      CallArgs cellArgs = args;
      // After the first cell the sequence runs in processing order: so must its mask.
      if (i > 0 && flags_.goBackwards && !args.masks.empty() && args.masks[0].defined())
        cellArgs.masks = {reverse(args.masks[0], {1})};
      std::vector<Tensor> in{x};
      if (!initial.empty()) {
        size_t n = static_cast<size_t>(cells_[i]->size().numStates);
        in.insert(in.end(), initial.begin() + static_cast<std::ptrdiff_t>(at - n),
                  initial.begin() + static_cast<std::ptrdiff_t>(at));
        at -= n;
      }
      SequenceFlags flags = flagsOf(i);
      flags.returnState = true;
      std::vector<Tensor> out = runRecurrent(cells_[i]->impl(), in, cellArgs, flags);
      x = out[0];
      states.emplace_back(out.begin() + 1, out.end());
    }
    std::vector<Tensor> out{x};
    for (size_t i = states.size(); i-- > 0;)
      out.insert(out.end(), states[i].begin(), states[i].end());
    return out;
  }
  /// Cells before the last return their whole sequence, for the next one; only
  /// the first reverses time.
  SequenceFlags flagsOf(size_t i) const {
    bool last = i + 1 == cells_.size();
    return {last ? flags_.returnSequences : true, flags_.returnState, i == 0 && flags_.goBackwards,
            last && flags_.zeroOutputForMask};
  }
  /// {output, states...}: stacked cells' states last cell first (as TF.js).
  template <class T>
  std::vector<T> withStates(const T& x, const std::vector<std::vector<T>>& states) const {
    std::vector<T> out{x};
    if (!flags_.returnState) return out;
    for (size_t i = states.size(); i-- > 0;)
      out.insert(out.end(), states[i].begin(), states[i].end());
    return out;
  }

  LayerPtr cell_;
  std::vector<int64_t> stateSizes_;
  std::vector<std::shared_ptr<RnnCell>> cells_;  // empty: the cell runs step by step
  SequenceFlags flags_;
  bool unroll_ = false;
  bool stateful_ = false;
  int64_t batch_ = -1;
  std::vector<Tensor> states_;
};

/// RNN's "cell": {class_name, config}, a list of them (stacked), or a layer.
LayerPtr cellFromConfig(const Json& spec, const std::string& what) {
  if (spec.is_array()) {
    std::vector<LayerPtr> cells;
    for (const Json& c : spec) cells.push_back(nestedLayer(c, what, "cell"));
    return layers::stackedRNNCells(cells);
  }
  return nestedLayer(spec, what, "cell");
}

}  // namespace

void resetRnnStates(Layer& layer, const std::vector<Tensor>& states) {
  auto* rnn = dynamic_cast<RNN*>(&layer);
  check(
      rnn != nullptr, layer.className() + " '" + layer.name() + "'",
      "resetStates: only stateful RNN layers (tf.layers.rnn({cell, stateful: true})) keep states");
  rnn->resetStates(states);
}

namespace {
const RNN& asRnn(const Layer& layer, const char* what) {
  auto* rnn = dynamic_cast<const RNN*>(&layer);
  check(rnn != nullptr, layer.className() + " '" + layer.name() + "'", what,
        ": only RNN layers have it");
  return *rnn;
}
}  // namespace

std::vector<Tensor> rnnStates(const Layer& layer) { return asRnn(layer, "states").states(); }
size_t rnnStateCount(const Layer& layer) { return asRnn(layer, "states").stateCount(); }
LayerPtr rnnCell(const Layer& layer) { return asRnn(layer, "cell").cell(); }

bool isStatefulRnn(const Layer& layer) {
  auto* rnn = dynamic_cast<const RNN*>(&layer);
  return rnn && rnn->stateful();
}

namespace layers {

LayerPtr simpleRNNCell(const Config& args) {
  return std::make_shared<RnnCell>(args, "SimpleRNNCell", "simple_rnn_cell", &simpleRNN,
                                   [](const ArgReader& r) { r.allowOnly({GLINT_CELL_KEYS}); });
}
LayerPtr lstmCell(const Config& args) {
  return std::make_shared<RnnCell>(args, "LSTMCell", "lstm_cell", &lstm, [](const ArgReader& r) {
    r.allowOnly({GLINT_CELL_KEYS, "recurrent_activation", "unit_forget_bias", "implementation"});
  });
}
LayerPtr gruCell(const Config& args) {
  return std::make_shared<RnnCell>(args, "GRUCell", "gru_cell", &gru, [](const ArgReader& r) {
    r.allowOnly({GLINT_CELL_KEYS, "recurrent_activation", "implementation", "reset_after"});
  });
}
LayerPtr stackedRNNCells(const std::vector<LayerPtr>& cells, const Config& args) {
  return std::make_shared<StackedRNNCells>(cells, args);
}
LayerPtr rnn(const LayerPtr& cell, const Config& args) { return std::make_shared<RNN>(cell, args); }
LayerPtr rnn(const Config& args) {
  Json a = normalizeArgKeys(args);
  check(a.contains("cell") && !a["cell"].is_null(), "RNN", "argument 'cell' is required");
  return rnn(cellFromConfig(a["cell"], "RNN"), a);
}

void registerRnnCellLayers() {
  GLINT_REGISTER_LAYER(registerLayerClass, "SimpleRNNCell", simpleRNNCell);
  GLINT_REGISTER_LAYER(registerLayerClass, "LSTMCell", lstmCell);
  GLINT_REGISTER_LAYER(registerLayerClass, "GRUCell", gruCell);
  GLINT_REGISTER_LAYER(registerLayerClass, "StackedRNNCells", [](const Json& config) {
    Json a = normalizeArgKeys(config);
    check(a.contains("cells") && a["cells"].is_array(), "StackedRNNCells",
          "argument 'cells' must be a list of {class_name, config}, got ",
          a.value("cells", Json(nullptr)).dump());
    std::vector<LayerPtr> cells;
    for (const Json& c : a["cells"]) cells.push_back(nestedLayer(c, "StackedRNNCells", "cells"));
    a.erase("cells");
    return stackedRNNCells(cells, a);
  });
  GLINT_REGISTER_LAYER(registerLayerClass, "RNN", [](const Json& config) { return rnn(config); });
}

}  // namespace layers
}  // namespace glint
