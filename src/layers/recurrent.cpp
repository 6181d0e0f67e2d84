// Recurrent layers: SimpleRNN, LSTM, GRU, with TF.js 4.22 semantics, defaults
// and weight layout (kernel [in, gates*units], recurrent_kernel [units,
// gates*units], bias [gates*units]; gates LSTM i,f,c,o and GRU z,r,h), so that
// TF.js and Keras weights load unchanged.
#include "src/layers/recurrent.h"

#include <algorithm>

#include "glint/activations.h"
#include "glint/error.h"
#include "glint/fused_ops.h"
#include "glint/initializers.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "glint/regularizers.h"
#include "glint/rnn_ops.h"
#include "src/core/kernel_selection.h"
#include "src/layers/families.h"
#include "src/layers/layer_args.h"

namespace glint {

namespace {

class UnitForgetBias : public Initializer {
 public:
  UnitForgetBias(std::shared_ptr<Initializer> base, int64_t units)
      : base_(std::move(base)), units_(units) {}
  Tensor init(const Shape&, DType dtype) const override {
    return concat(
        {base_->init({units_}, dtype), ones({units_}, dtype), base_->init({2 * units_}, dtype)});
  }
  std::string className() const override { return "CustomInit"; }
  Json getConfig() const override { return Json::object(); }

 private:
  std::shared_ptr<Initializer> base_;
  int64_t units_;
};

}  // namespace

std::shared_ptr<Initializer> unitForgetBias(std::shared_ptr<Initializer> base, int64_t units) {
  return std::make_shared<UnitForgetBias>(std::move(base), units);
}

// Arguments every recurrent layer takes (besides the common layer ones).
#define GLINT_RNN_KEYS                                                                        \
  "units", "activation", "use_bias", "kernel_initializer", "recurrent_initializer",           \
      "bias_initializer", "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",  \
      "activity_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint", \
      "dropout", "recurrent_dropout", "return_sequences", "return_state", "go_backwards",     \
      "stateful", "unroll", "implementation", "time_major", "zero_output_for_mask"

Json recurrentArgs(const Json& args) {
  Json a = normalizeArgKeys(args);
  bool hasShape = (a.contains("input_shape") && !a["input_shape"].is_null()) ||
                  (a.contains("batch_input_shape") && !a["batch_input_shape"].is_null());
  if (!hasShape && a.contains("input_dim") && !a["input_dim"].is_null()) {
    a["input_shape"] = Json::array({a.value("input_length", Json(nullptr)), a["input_dim"]});
    a.erase("input_dim");
    a.erase("input_length");
  }
  return a;
}

namespace {

/// The time loop shared by the three layers; subclasses supply one step.
class Recurrent : public Layer {
 public:
  Recurrent(const Json& args, const std::string& cls, const std::string& prefix, int gates,
            int numStates)
      : Layer(recurrentArgs(args), prefix), gates_(gates), numStates_(numStates) {
    ArgReader r(this->args(), cls + " '" + name() + "'");
    units_ = r.integer("units");
    if (units_ <= 0) r.fail("units", "must be positive, got " + std::to_string(units_));
    activation_ = r.activation("activation", "tanh");
    useBias_ = r.boolean("use_bias", true);
    kernelInit_ = r.initializer("kernel_initializer", "glorotNormal");
    recurrentInit_ = r.initializer("recurrent_initializer", "orthogonal");
    biasInit_ = r.initializer("bias_initializer", "zeros");
    kernelReg_ = r.regularizer("kernel_regularizer");
    recurrentReg_ = r.regularizer("recurrent_regularizer");
    biasReg_ = r.regularizer("bias_regularizer");
    kernelConstraint_ = r.constraint("kernel_constraint");
    recurrentConstraint_ = r.constraint("recurrent_constraint");
    biasConstraint_ = r.constraint("bias_constraint");
    dropout_ = r.number("dropout", 0);
    recurrentDropout_ = r.number("recurrent_dropout", 0);
    if (!(dropout_ >= 0 && dropout_ < 1))
      r.fail("dropout", "must be in [0, 1), got " + std::to_string(dropout_));
    if (!(recurrentDropout_ >= 0 && recurrentDropout_ < 1))
      r.fail("recurrent_dropout", "must be in [0, 1), got " + std::to_string(recurrentDropout_));
    flags_.returnSequences = r.boolean("return_sequences", false);
    flags_.returnState = r.boolean("return_state", false);
    flags_.goBackwards = r.boolean("go_backwards", false);
    unroll_ = r.boolean("unroll", false);  // accepted and ignored, as in TF.js
    if (r.boolean("stateful", false))
      r.fail("stateful",
             "true is not supported: Glint's recurrent layers start every call from zero states");
    if (r.has("implementation")) implementation_ = r.integer("implementation");
    // Keras configs carry time_major.
    if (r.boolean("time_major", false))
      r.fail("time_major", "true is not supported: inputs are [batch, time, features]");
    flags_.zeroOutputForMask = r.boolean("zero_output_for_mask", false);
    if (r.has("activity_regularizer")) r.fail("activity_regularizer", "is not supported");
  }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    return outputShapes(in, flags_);
  }

  /// Initial states, when given, follow the sequence as inputs (Keras's initial_state).
  std::vector<Shape> outputShapes(const std::vector<Shape>& in, const SequenceFlags& flags) const {
    if (in.size() != 1 && in.size() != static_cast<size_t>(1 + numStates_))
      error("takes one input [batch, time, features], or it and " + std::to_string(numStates_) +
            " initial state(s) [batch, " + std::to_string(units_) + "], got " +
            std::to_string(in.size()) + " inputs");
    checkInputShape(in[0]);
    for (size_t i = 1; i < in.size(); ++i)
      if (in[i].size() != 2 || (in[i][1] != units_) ||
          (in[i][0] >= 0 && in[0][0] >= 0 && in[i][0] != in[0][0]))
        error("needs initial states of shape [batch, units] = [" + std::to_string(in[0][0]) + ", " +
              std::to_string(units_) + "], got " + shapeToString(in[i]) + " for state " +
              std::to_string(i - 1));
    Shape out = flags.returnSequences ? Shape{in[0][0], in[0][1], units_} : Shape{in[0][0], units_};
    std::vector<Shape> shapes{out};
    if (flags.returnState)
      for (int i = 0; i < numStates_; ++i) shapes.push_back({in[0][0], units_});
    return shapes;
  }
  int numStates() const { return numStates_; }
  int64_t units() const { return units_; }

  void build(const std::vector<Shape>& in) override {
    inputDim_ = in[0][2];
    int64_t g = gates_ * units_;
    kernel_ = addWeight("kernel", {inputDim_, g}, kernelInit_, kernelReg_, true, kernelConstraint_);
    recurrentKernel_ = addWeight("recurrent_kernel", {units_, g}, recurrentInit_, recurrentReg_,
                                 true, recurrentConstraint_);
    if (useBias_)
      bias_ = addWeight("bias", biasShape(), biasInitializer(), biasReg_, true, biasConstraint_);
    built_ = true;
  }

  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    return run(in, args, flags_);
  }

  /// call() with these sequence flags instead of the layer's own (for RNN's cells).
  std::vector<Tensor> run(const std::vector<Tensor>& in, const CallArgs& args,
                          const SequenceFlags& flags) const {
    std::vector<Shape> shapes;
    for (const Tensor& t : in) shapes.push_back(t.shape());
    outputShapes(shapes, flags);
    if (in[0].dtype() != DType::float32)
      error(std::string("needs float32 inputs, got ") + dtypeName(in[0].dtype()));
    const int64_t batch = in[0].dim(0), time = in[0].dim(1), g = gates_ * units_;
    Tensor x = in[0];
    // Dropout masks are drawn once per call and shared by all steps (as Keras).
    if (args.training && dropout_ > 0)
      x = mul(x, reshape(glint::dropout(ones({batch, inputDim_}), static_cast<float>(dropout_)),
                         {batch, 1, inputDim_}));
    Tensor hMask;
    if (args.training && recurrentDropout_ > 0)
      hMask = glint::dropout(ones({batch, units_}), static_cast<float>(recurrentDropout_));
    std::vector<Tensor> stepMasks = timeMasks(args, batch, time, flags.goBackwards);
    std::vector<Tensor> whole;
    if (stepMasks.empty() && in.size() == 1)
      whole = runSequence(x, hMask, flags.returnSequences, flags.goBackwards);
    if (!whole.empty()) {
      if (!flags.returnState) whole.resize(1);
      return whole;
    }

    // The input projection of every step in one matMul; the steps are read
    // through one unpack, whose gradient is one concat.
    Tensor xw = reshape(matMul(reshape(x, {batch * time, inputDim_}), kernel_), {batch, time, g});
    if (useBias_) xw = add(xw, inputBias());
    std::vector<Tensor> steps = unpack(xw, 1);
    if (flags.goBackwards) std::reverse(steps.begin(), steps.end());

    std::vector<Tensor> prepared = prepare();
    std::vector<Tensor> states =
        in.size() > 1
            ? std::vector<Tensor>(in.begin() + 1, in.end())
            : std::vector<Tensor>(static_cast<size_t>(numStates_), zeros({batch, units_}));
    std::vector<Tensor> outputs;
    for (size_t t = 0; t < steps.size(); ++t) {
      std::vector<Tensor> next =
          step(steps[t], states, hMask.defined() ? mul(states[0], hMask) : states[0], prepared);
      if (!stepMasks.empty()) {
        // A masked step keeps the previous states (and so the previous output).
        for (size_t i = 0; i < next.size(); ++i) next[i] = where(stepMasks[t], next[i], states[i]);
        if (flags.returnSequences)
          outputs.push_back(
              flags.zeroOutputForMask ? where(stepMasks[t], next[0], zerosLike(next[0])) : next[0]);
      } else if (flags.returnSequences) {
        outputs.push_back(next[0]);
      }
      states = std::move(next);
    }
    // goBackwards outputs stay in processing order (reversed time), as TF.js.
    Tensor output = !flags.returnSequences ? states[0]
                    : outputs.empty()      ? zeros({batch, 0, units_})
                                           : stack(outputs, 1);
    std::vector<Tensor> result{output};
    if (flags.returnState) result.insert(result.end(), states.begin(), states.end());
    return result;
  }

  /// The sequence output keeps the input's mask; a last output or a state has none.
  std::vector<Tensor> computeMask(const std::vector<Tensor>&,
                                  const std::vector<Tensor>& masks) const override {
    Tensor m = flags_.returnSequences && !masks.empty() ? masks[0] : Tensor();
    return {m};
  }

  Json getConfig() const override {
    Json c = Layer::getConfig();
    c["units"] = units_;
    c["activation"] = activations::serializedName(activation_);
    addGateConfig(c, 0);
    c["use_bias"] = useBias_;
    c["kernel_initializer"] = serializeObject(kernelInit_);
    c["recurrent_initializer"] = serializeObject(recurrentInit_);
    c["bias_initializer"] = serializeObject(biasInit_);
    addGateConfig(c, 1);
    c["kernel_regularizer"] = serializeObject(kernelReg_);
    c["recurrent_regularizer"] = serializeObject(recurrentReg_);
    c["bias_regularizer"] = serializeObject(biasReg_);
    c["activity_regularizer"] = nullptr;
    c["kernel_constraint"] = serializeObject(kernelConstraint_);
    c["recurrent_constraint"] = serializeObject(recurrentConstraint_);
    c["bias_constraint"] = serializeObject(biasConstraint_);
    c["dropout"] = dropout_;
    c["recurrent_dropout"] = recurrentDropout_;
    if (implementation_) c["implementation"] = *implementation_;
    addGateConfig(c, 2);
    c["return_sequences"] = flags_.returnSequences;
    c["return_state"] = flags_.returnState;
    c["go_backwards"] = flags_.goBackwards;
    c["stateful"] = false;
    c["unroll"] = unroll_;
    if (flags_.zeroOutputForMask)
      c["zero_output_for_mask"] = true;  // Keras only; TF.js leaves it out
    return c;
  }

 protected:
  /// One time step: xw = x_t @ kernel (+ input bias), the previous states, the
  /// previous output with recurrent dropout applied; returns the new states
  /// (the first one is the step's output).
  virtual std::vector<Tensor> step(const Tensor& xw, const std::vector<Tensor>& states,
                                   const Tensor& hPrevDropped,
                                   const std::vector<Tensor>& prepared) const = 0;
  /// (optional) The whole time loop as one op: {output, states...} as call()
  /// returns them with returnState; empty when the layer runs step by step.
  virtual std::vector<Tensor> runSequence(const Tensor& x, const Tensor& hMask,
                                          bool returnSequences, bool goBackwards) const {
    return {};
  }
  /// Per-call tensors the step reuses (kernel slices), computed once per call.
  virtual std::vector<Tensor> prepare() const { return {}; }
  virtual Shape biasShape() const { return {gates_ * units_}; }
  virtual std::shared_ptr<Initializer> biasInitializer() const { return biasInit_; }
  virtual Tensor inputBias() const { return bias_; }
  /// Layer-specific config keys at TF.js's positions (0: after activation,
  /// 1: after bias_initializer, 2: after implementation).
  virtual void addGateConfig(Json&, int) const {}

  Tensor act(const Tensor& x) const { return activations::apply(activation_, x); }
  const std::string& activationName() const { return activation_; }

  int64_t units_ = 0, inputDim_ = -1;
  int gates_, numStates_;
  bool useBias_ = true;
  std::shared_ptr<Initializer> biasInit_;
  Variable kernel_, recurrentKernel_, bias_;

 private:
  void checkInputShape(const Shape& s) const {
    if (s.size() != 3)
      error("needs inputs of rank 3 [batch, time, features], got " + shapeToString(s));
    if (s[2] < 0) error("the feature dimension must be known, got " + shapeToString(s));
    if (inputDim_ >= 0 && s[2] != inputDim_)
      error("was built for " + std::to_string(inputDim_) + " input features, got " +
            shapeToString(s));
  }

  /// The input mask's steps in processing order, each bool [batch, 1]; empty without a mask.
  std::vector<Tensor> timeMasks(const CallArgs& args, int64_t batch, int64_t time,
                                bool goBackwards) const {
    if (args.masks.empty() || !args.masks[0].defined()) return {};
    const Tensor& m = args.masks[0];
    if (m.shape() != Shape{batch, time})
      error("needs a mask of shape [batch, time] = " + shapeToString({batch, time}) + ", got " +
            shapeToString(m.shape()));
    std::vector<Tensor> out;
    for (const Tensor& t : unpack(cast(m, DType::float32), 1))
      out.push_back(cast(reshape(t, {batch, 1}), DType::boolean));
    if (goBackwards) std::reverse(out.begin(), out.end());
    return out;
  }

  std::string activation_;
  std::shared_ptr<Initializer> kernelInit_, recurrentInit_;
  std::shared_ptr<Regularizer> kernelReg_, recurrentReg_, biasReg_;
  std::shared_ptr<Constraint> kernelConstraint_, recurrentConstraint_, biasConstraint_;
  double dropout_ = 0, recurrentDropout_ = 0;
  SequenceFlags flags_;
  bool unroll_ = false;
  std::optional<int64_t> implementation_;
};

/// Layers with gates: LSTM and GRU (recurrentActivation, TF.js default hardSigmoid).
class GatedRecurrent : public Recurrent {
 public:
  GatedRecurrent(const Json& args, const std::string& cls, const std::string& prefix, int gates,
                 int numStates)
      : Recurrent(args, cls, prefix, gates, numStates) {
    recurrentActivation_ = ArgReader(this->args(), cls + " '" + name() + "'")
                               .activation("recurrent_activation", "hardSigmoid");
    fused_ = rnnCellFuses(recurrentActivation_, activationName());
  }

 protected:
  Tensor gate(const Tensor& x) const { return activations::apply(recurrentActivation_, x); }
  void addGateConfig(Json& c, int position) const override {
    if (position == 0)
      c["recurrent_activation"] = activations::serializedName(recurrentActivation_);
  }
  std::string recurrentActivation_;
  bool fused_ = false;  // the step's pointwise part runs as one cell op
};

class SimpleRNN : public Recurrent {
 public:
  explicit SimpleRNN(const Json& args) : Recurrent(args, "SimpleRNN", "simple_rnn", 1, 1) {
    ArgReader(this->args(), "SimpleRNN '" + name() + "'").allowOnly({GLINT_RNN_KEYS});
  }
  std::string className() const override { return "SimpleRNN"; }

 protected:
  std::vector<Tensor> step(const Tensor& xw, const std::vector<Tensor>&, const Tensor& h,
                           const std::vector<Tensor>&) const override {
    return {act(add(xw, matMul(h, recurrentKernel_)))};
  }
};

class LSTM : public GatedRecurrent {
 public:
  explicit LSTM(const Json& args) : GatedRecurrent(args, "LSTM", "lstm", 4, 2) {
    ArgReader r(this->args(), "LSTM '" + name() + "'");
    r.allowOnly({GLINT_RNN_KEYS, "recurrent_activation", "unit_forget_bias"});
    unitForgetBias_ = r.boolean("unit_forget_bias", false);  // TF.js leaves it off by default
  }
  std::string className() const override { return "LSTM"; }

 protected:
  /// The composed step, for activations lstmSequence does not fuse.
  std::vector<Tensor> step(const Tensor& xw, const std::vector<Tensor>& states, const Tensor& h,
                           const std::vector<Tensor>&) const override {
    std::vector<Tensor> z = split(add(xw, matMul(h, recurrentKernel_)), 4, 1);
    Tensor i = gate(z[0]), f = gate(z[1]), o = gate(z[3]);
    Tensor c = add(mul(f, states[1]), mul(i, act(z[2])));
    return {mul(o, act(c)), c};
  }
  /// The fused loop reads the input projection time-major: each step's rows
  /// are contiguous, and their gradients stack into the projection's.
  std::vector<Tensor> runSequence(const Tensor& x, const Tensor& hMask, bool returnSequences,
                                  bool goBackwards) const override {
    if (!fused_) return {};
    const int64_t batch = x.dim(0), time = x.dim(1), g = 4 * units_;
    // The bias in the matMul's pass over its result, not in one of its own.
    Tensor xw = fusedMatMul(reshape(transpose(x, {1, 0, 2}), {time * batch, inputDim_}), kernel_,
                            useBias_ ? Tensor(bias_) : Tensor());
    LstmSequence r =
        lstmSequence(reshape(xw, {time, batch, g}), recurrentKernel_, hMask, returnSequences,
                     goBackwards, recurrentActivation_, activationName());
    return {returnSequences ? r.outputs : r.h, r.h, r.c};
  }
  std::shared_ptr<Initializer> biasInitializer() const override {
    if (!unitForgetBias_) return biasInit_;
    return unitForgetBias(biasInit_, units_);
  }
  void addGateConfig(Json& c, int position) const override {
    GatedRecurrent::addGateConfig(c, position);
    if (position == 1) c["unit_forget_bias"] = unitForgetBias_;
  }

 private:
  bool unitForgetBias_ = false;
};

/// resetAfter false (TF.js, the default): r gates the previous output before
/// its matMul. resetAfter true (Keras/cuDNN; TF.js cannot load it): r gates
/// the matMul's result, and the bias is [2, 3*units] (input, recurrent).
class GRU : public GatedRecurrent {
 public:
  explicit GRU(const Json& args) : GatedRecurrent(args, "GRU", "gru", 3, 1) {
    ArgReader r(this->args(), "GRU '" + name() + "'");
    r.allowOnly({GLINT_RNN_KEYS, "recurrent_activation", "reset_after"});
    resetAfter_ = r.boolean("reset_after", false);
  }
  std::string className() const override { return "GRU"; }

 protected:
  /// {kernel z|r columns, kernel candidate columns} and, with resetAfter and a
  /// bias, {recurrent bias, its candidate part}.
  std::vector<Tensor> prepare() const override {
    std::vector<Tensor> p = split(recurrentKernel_, std::vector<int64_t>{2 * units_, units_}, 1);
    if (resetAfter_ && useBias_) {
      p.push_back(recurrentBias());
      p.push_back(slice(p[2], {2 * units_}, {units_}));
    }
    return p;
  }
  std::vector<Tensor> step(const Tensor& xw, const std::vector<Tensor>& states, const Tensor& h,
                           const std::vector<Tensor>& prepared) const override {
    if (fused_) {
      // r gates h before the candidate matMul (TF.js) or its result (resetAfter).
      Tensor hzr = matMul(h, prepared[0]);
      Tensor hc =
          matMul(resetAfter_ ? h : gruResetState(xw, hzr, h, recurrentActivation_), prepared[1]);
      if (resetAfter_ && useBias_) hc = add(hc, prepared[3]);
      return {gruCell(xw, hzr, hc, states[0], resetAfter_, recurrentActivation_, activationName())};
    }
    std::vector<Tensor> x = split(xw, 3, 1);
    Tensor z, hh;
    if (resetAfter_) {
      Tensor inner = matMul(h, recurrentKernel_);
      if (useBias_) inner = add(inner, prepared[2]);
      std::vector<Tensor> rec = split(inner, 3, 1);
      z = gate(add(x[0], rec[0]));
      Tensor r = gate(add(x[1], rec[1]));
      hh = act(add(x[2], mul(r, rec[2])));
    } else {
      std::vector<Tensor> rec = split(matMul(h, prepared[0]), 2, 1);
      z = gate(add(x[0], rec[0]));
      Tensor r = gate(add(x[1], rec[1]));
      hh = act(add(x[2], matMul(mul(r, h), prepared[1])));
    }
    // z * hPrev + (1 - z) * hh, with the undropped previous output (as Keras).
    return {add(hh, mul(z, sub(states[0], hh)))};
  }
  Shape biasShape() const override {
    return resetAfter_ ? Shape{2, 3 * units_} : Shape{3 * units_};
  }
  /// With resetAfter, the fused step adds the recurrent z and r biases on the
  /// input side (once per call): only the candidate's is gated by r.
  Tensor inputBias() const override {
    if (!resetAfter_) return bias_;
    Tensor b = reshape(slice(bias_, {0, 0}, {1, -1}), {3 * units_});
    if (!fused_) return b;
    return add(b, concat({slice(recurrentBias(), {0}, {2 * units_}), zeros({units_})}));
  }
  Tensor recurrentBias() const { return reshape(slice(bias_, {1, 0}, {1, -1}), {3 * units_}); }
  void addGateConfig(Json& c, int position) const override {
    GatedRecurrent::addGateConfig(c, position);
    if (position == 2) c["reset_after"] = resetAfter_;
  }

 private:
  bool resetAfter_ = false;
};

#undef GLINT_RNN_KEYS

const Recurrent& recurrentOf(const Layer& layer) {
  auto* r = dynamic_cast<const Recurrent*>(&layer);
  check(r != nullptr, layer.className() + " '" + layer.name() + "'",
        "is not a SimpleRNN, LSTM or GRU layer");
  return *r;
}

}  // namespace

std::vector<Tensor> runRecurrent(const Layer& layer, const std::vector<Tensor>& inputs,
                                 const CallArgs& args, const SequenceFlags& flags) {
  return recurrentOf(layer).run(inputs, args, flags);
}

std::vector<Shape> recurrentOutputShapes(const Layer& layer, const std::vector<Shape>& inputs,
                                         const SequenceFlags& flags) {
  return recurrentOf(layer).outputShapes(inputs, flags);
}

RecurrentSize recurrentSize(const Layer& layer) {
  const Recurrent& r = recurrentOf(layer);
  return {r.units(), r.numStates()};
}

namespace layers {

void registerWrapperLayers();  // wrappers.cpp

LayerPtr simpleRNN(const Config& args) { return std::make_shared<SimpleRNN>(args); }
LayerPtr lstm(const Config& args) { return std::make_shared<LSTM>(args); }
LayerPtr gru(const Config& args) { return std::make_shared<GRU>(args); }

void registerRecurrentLayers() {
  GLINT_REGISTER_LAYER(registerLayerClass, "SimpleRNN", simpleRNN);
  GLINT_REGISTER_LAYER(registerLayerClass, "LSTM", lstm);
  GLINT_REGISTER_LAYER(registerLayerClass, "GRU", gru);
  registerWrapperLayers();
}

}  // namespace layers
}  // namespace glint
