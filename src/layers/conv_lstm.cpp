// ConvLSTM2D and ConvLSTM2DCell as TF.js 4.22: an LSTM whose matMuls are 2-D
// convolutions, over inputs [batch, time, rows, cols, channels] (channelsLast).
// Weights kernel [kh, kw, channels, 4 * filters], recurrent_kernel [kh, kw,
// filters, 4 * filters], bias [4 * filters], gates i, f, c, o as LSTM's.
// The input convolution strides and dilates; the recurrent one is stride 1,
// 'same', so the state keeps the output's size.
#include <algorithm>

#include "glint/activations.h"
#include "glint/error.h"
#include "glint/initializers.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "glint/regularizers.h"
#include "glint/rnn_ops.h"
#include "src/core/kernel_selection.h"
#include "src/layers/families.h"
#include "src/layers/layer_args.h"
#include "src/layers/recurrent.h"
#include "src/layers/spatial.h"

namespace glint {

namespace {

#define GLINT_CONV_LSTM_CELL_KEYS                                                               \
  "filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate", "activation", \
      "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer",        \
      "bias_initializer", "unit_forget_bias", "kernel_regularizer", "recurrent_regularizer",    \
      "bias_regularizer", "activity_regularizer", "kernel_constraint", "recurrent_constraint",  \
      "bias_constraint", "dropout", "recurrent_dropout", "implementation"

class ConvLSTM2DCell : public Layer {
 public:
  ConvLSTM2DCell(const Json& args, const std::string& what) : Layer(args, "conv_lstm2d_cell") {
    ArgReader r(this->args(), what.empty() ? "ConvLSTM2DCell '" + name() + "'" : what);
    r.allowOnly({GLINT_CONV_LSTM_CELL_KEYS});
    filters_ = r.integer("filters");
    if (filters_ <= 0) r.fail("filters", "must be positive, got " + std::to_string(filters_));
    if (!r.has("kernel_size")) r.fail("kernel_size", "is required (an int or [rows, cols])");
    kernel_ = spatial::positivePair(r, "kernel_size", {});
    strides_ = spatial::positivePair(r, "strides", {1, 1});
    dilation_ = spatial::positivePair(r, "dilation_rate", {1, 1});
    if ((strides_[0] > 1 || strides_[1] > 1) && (dilation_[0] > 1 || dilation_[1] > 1))
      r.fail("strides", "greater than 1 cannot be combined with dilation_rate greater than 1");
    padding_ = spatial::padding(r);
    spatial::dataFormat(r);
    activation_ = r.activation("activation", "tanh");
    recurrentActivation_ = r.activation("recurrent_activation", "hardSigmoid");
    useBias_ = r.boolean("use_bias", true);
    kernelInit_ = r.initializer("kernel_initializer", "glorotNormal");
    recurrentInit_ = r.initializer("recurrent_initializer", "orthogonal");
    biasInit_ = r.initializer("bias_initializer", "zeros");
    unitForgetBias_ = r.boolean("unit_forget_bias", false);  // TF.js leaves it off by default
    kernelReg_ = r.regularizer("kernel_regularizer");
    recurrentReg_ = r.regularizer("recurrent_regularizer");
    biasReg_ = r.regularizer("bias_regularizer");
    if (r.has("activity_regularizer")) r.fail("activity_regularizer", "is not supported");
    kernelConstraint_ = r.constraint("kernel_constraint");
    recurrentConstraint_ = r.constraint("recurrent_constraint");
    biasConstraint_ = r.constraint("bias_constraint");
    dropout_ = r.number("dropout", 0);
    recurrentDropout_ = r.number("recurrent_dropout", 0);
    if (!(dropout_ >= 0 && dropout_ < 1))
      r.fail("dropout", "must be in [0, 1), got " + std::to_string(dropout_));
    if (!(recurrentDropout_ >= 0 && recurrentDropout_ < 1))
      r.fail("recurrent_dropout", "must be in [0, 1), got " + std::to_string(recurrentDropout_));
    if (r.has("implementation")) implementation_ = r.integer("implementation");
  }
  std::string className() const override { return "ConvLSTM2DCell"; }
  int64_t filters() const { return filters_; }

  /// [rows, cols] of the output (and the states) for an input [.., rows, cols, channels].
  std::pair<int64_t, int64_t> outputSize(int64_t rows, int64_t cols) const {
    return {spatial::convOutputLength(rows, kernel_[0], padding_, strides_[0], dilation_[0]),
            spatial::convOutputLength(cols, kernel_[1], padding_, strides_[1], dilation_[1])};
  }
  /// Checks one step's input [batch, rows, cols, channels]; the state shape.
  Shape stateShape(const Shape& x, const std::string& what) const {
    if (x.size() != 4)
      error(what + " needs inputs of rank 4 [batch, rows, cols, channels] per step, got " +
            shapeToString(x));
    if (x[3] < 0) error("the channel dimension must be known, got " + shapeToString(x));
    if (built_ && x[3] != inputDim_)
      error("was built for " + std::to_string(inputDim_) + " input channels, got " +
            shapeToString(x));
    auto [oh, ow] = outputSize(x[1], x[2]);
    if ((x[1] >= 0 && oh <= 0) || (x[2] >= 0 && ow <= 0))
      error("input rows and cols " + shapeToString({x[1], x[2]}) +
            " are too small for kernel_size " + shapeToString({kernel_[0], kernel_[1]}) +
            " and dilation_rate " + shapeToString({dilation_[0], dilation_[1]}));
    return {x[0], oh, ow, filters_};
  }

  /// {x [b, rows, cols, channels], h, c} -> {h, h, c}.
  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    if (in.size() != 3) error("takes 3 inputs {x, h, c}, got " + std::to_string(in.size()));
    Shape s = stateShape(in[0], "ConvLSTM2DCell");
    for (size_t i = 1; i < 3; ++i)
      if (!compatibleState(in[i], s))
        error("needs states of shape " + shapeToString(s) + ", got " + shapeToString(in[i]));
    return {s, s, s};
  }
  void build(const std::vector<Shape>& in) override {
    inputDim_ = in[0][3];
    const int64_t g = 4 * filters_;
    kernelW_ = addWeight("kernel", {kernel_[0], kernel_[1], inputDim_, g}, kernelInit_, kernelReg_,
                         true, kernelConstraint_);
    recurrentW_ = addWeight("recurrent_kernel", {kernel_[0], kernel_[1], filters_, g},
                            recurrentInit_, recurrentReg_, true, recurrentConstraint_);
    if (useBias_)
      biasW_ =
          addWeight("bias", {g}, unitForgetBias_ ? unitForgetBias(biasInit_, filters_) : biasInit_,
                    biasReg_, true, biasConstraint_);
    built_ = true;
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    std::vector<Shape> shapes;
    for (const Tensor& t : in) shapes.push_back(t.shape());
    computeOutputShape(shapes);
    std::vector<Tensor> s = step(project(in[0]), in[1], in[2]);
    return {s[0], s[0], s[1]};
  }

  /// The input convolution (all gates, with the bias) of x [n, rows, cols, channels].
  Tensor project(const Tensor& x) const {
    Tensor y = conv2d(x, kernelW_, strides_, padding_, dilation_);
    return useBias_ ? add(y, biasW_) : y;
  }
  /// One step from the input's projection: {h, c}.
  std::vector<Tensor> step(const Tensor& xw, const Tensor& hPrev, const Tensor& cPrev) const {
    std::vector<Tensor> z = split(add(xw, conv2d(hPrev, recurrentW_, {1, 1}, Padding::same)), 4, 3);
    Tensor i = gate(z[0]), f = gate(z[1]), o = gate(z[3]);
    Tensor c = add(mul(f, cPrev), mul(i, act(z[2])));
    return {mul(o, act(c)), c};
  }
  double dropout() const { return dropout_; }
  double recurrentDropout() const { return recurrentDropout_; }

  /// TF.js's keys, in its order (LSTMCell's without units, then the conv ones).
  Json getConfig() const override {
    Json c = Layer::getConfig();
    cellConfig(c);
    return c;
  }
  void cellConfig(Json& c) const {
    c["activation"] = activations::serializedName(activation_);
    c["recurrent_activation"] = activations::serializedName(recurrentActivation_);
    c["use_bias"] = useBias_;
    c["kernel_initializer"] = serializeObject(kernelInit_);
    c["recurrent_initializer"] = serializeObject(recurrentInit_);
    c["bias_initializer"] = serializeObject(biasInit_);
    c["unit_forget_bias"] = unitForgetBias_;
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
    c["filters"] = filters_;
    c["kernel_size"] = spatial::pairJson(kernel_);
    c["padding"] = spatial::paddingName(padding_);
    c["data_format"] = "channelsLast";
    c["dilation_rate"] = spatial::pairJson(dilation_);
    c["strides"] = spatial::pairJson(strides_);
  }

 private:
  static bool compatibleState(const Shape& s, const Shape& expected) {
    if (s.size() != expected.size()) return false;
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i] >= 0 && expected[i] >= 0 && s[i] != expected[i]) return false;
    return true;
  }
  Tensor act(const Tensor& x) const { return activations::apply(activation_, x); }
  Tensor gate(const Tensor& x) const { return activations::apply(recurrentActivation_, x); }

  int64_t filters_ = 0, inputDim_ = -1;
  Pair kernel_{}, strides_{}, dilation_{};
  Padding padding_ = Padding::valid;
  std::string activation_, recurrentActivation_;
  bool useBias_ = true, unitForgetBias_ = false;
  std::shared_ptr<Initializer> kernelInit_, recurrentInit_, biasInit_;
  std::shared_ptr<Regularizer> kernelReg_, recurrentReg_, biasReg_;
  std::shared_ptr<Constraint> kernelConstraint_, recurrentConstraint_, biasConstraint_;
  double dropout_ = 0, recurrentDropout_ = 0;
  std::optional<int64_t> implementation_;
  Variable kernelW_, recurrentW_, biasW_;
};

Json cellArgs(const Json& args) {
  Json a = normalizeArgKeys(args);
  Json cell = Json::object();
  for (const char* key : {GLINT_CONV_LSTM_CELL_KEYS})
    if (a.contains(key)) cell[key] = a[key];
  return cell;
}

Json layerArgs(const Json& args) {
  Json a = normalizeArgKeys(args);
  for (const char* key : {GLINT_CONV_LSTM_CELL_KEYS}) a.erase(key);
  return a;
}

class ConvLSTM2D : public Layer {
 public:
  explicit ConvLSTM2D(const Json& args) : Layer(layerArgs(args), "conv_lstm2d") {
    const std::string me = "ConvLSTM2D '" + name() + "'";
    ArgReader r(this->args(), me);
    r.allowOnly({"return_sequences", "return_state", "go_backwards", "stateful", "unroll"});
    cell_ = std::make_shared<ConvLSTM2DCell>(cellArgs(args), me);
    returnSequences_ = r.boolean("return_sequences", false);
    returnState_ = r.boolean("return_state", false);
    goBackwards_ = r.boolean("go_backwards", false);
    if (r.boolean("stateful", false))
      r.fail("stateful",
             "true is not supported: Glint's recurrent layers start every call from zero states");
    if (r.boolean("unroll", false))
      r.fail("unroll", "true is not possible for convolutional recurrent layers (as TF.js)");
  }
  std::string className() const override { return "ConvLSTM2D"; }
  bool supportsMasking() const override { return true; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    if (in.size() != 1)
      error(
          "takes one input [batch, time, rows, cols, channels] (initial states are not supported), "
          "got " +
          std::to_string(in.size()) + " inputs");
    const Shape& s = in[0];
    if (s.size() != 5)
      error("needs inputs of rank 5 [batch, time, rows, cols, channels], got " + shapeToString(s));
    Shape state;
    try {
      state = cell_->stateShape({s[0], s[2], s[3], s[4]}, "ConvLSTM2D");
    } catch (const Error& e) {
      error(e.what());  // the cell's complaint, named after this layer too
    }
    Shape out = state;
    if (returnSequences_) out.insert(out.begin() + 1, s[1]);
    std::vector<Shape> shapes{out};
    if (returnState_) shapes.insert(shapes.end(), {state, state});
    return shapes;
  }
  void build(const std::vector<Shape>& in) override {
    if (!cell_->built()) cell_->setWeightNamePrefix(weightNamePrefix());
    const Shape& s = in[0];
    Shape state = cell_->stateShape({s[0], s[2], s[3], s[4]}, "ConvLSTM2D");
    cell_->ensureBuilt({{s[0], s[2], s[3], s[4]}, state, state});
  }

  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    computeOutputShape({in[0].shape()});
    const Shape& s = in[0].shape();
    const int64_t b = s[0], T = s[1];
    Tensor x = in[0];
    // Dropout masks are drawn once per call and shared by all steps and gates.
    if (args.training && cell_->dropout() > 0)
      x = mul(x, reshape(glint::dropout(ones({b, s[2], s[3], s[4]}),
                                        static_cast<float>(cell_->dropout())),
                         {b, 1, s[2], s[3], s[4]}));
    Shape state = cell_->stateShape({b, s[2], s[3], s[4]}, "ConvLSTM2D");
    Tensor hMask;
    if (args.training && cell_->recurrentDropout() > 0)
      hMask = glint::dropout(ones(state), static_cast<float>(cell_->recurrentDropout()));
    // Every step's input convolution at once, then one step at a time.
    Tensor xw = cell_->project(reshape(x, {b * T, s[2], s[3], s[4]}));
    Shape stepShape = xw.shape();
    std::vector<Tensor> steps =
        unpack(reshape(xw, {b, T, stepShape[1], stepShape[2], stepShape[3]}), 1);
    std::vector<Tensor> masks = stepMasks(args, b, T);
    if (goBackwards_) {
      std::reverse(steps.begin(), steps.end());
      std::reverse(masks.begin(), masks.end());
    }
    Tensor h = zeros(state), c = zeros(state);
    std::vector<Tensor> outputs;
    for (size_t t = 0; t < steps.size(); ++t) {
      std::vector<Tensor> next = cell_->step(steps[t], hMask.defined() ? mul(h, hMask) : h, c);
      if (!masks.empty()) {  // a masked step keeps the previous states
        next[0] = where(masks[t], next[0], h);
        next[1] = where(masks[t], next[1], c);
      }
      h = next[0];
      c = next[1];
      if (returnSequences_) outputs.push_back(h);
    }
    Shape seqShape = state;
    seqShape.insert(seqShape.begin() + 1, 0);
    Tensor out = !returnSequences_ ? h : outputs.empty() ? zeros(seqShape) : stack(outputs, 1);
    std::vector<Tensor> result{out};
    if (returnState_) result.insert(result.end(), {h, c});
    return result;
  }
  std::vector<Tensor> computeMask(const std::vector<Tensor>&,
                                  const std::vector<Tensor>& masks) const override {
    return {returnSequences_ && !masks.empty() ? masks[0] : Tensor()};
  }

  Json getConfig() const override {
    Json c = Layer::getConfig();
    cell_->cellConfig(c);
    c["return_sequences"] = returnSequences_;
    c["return_state"] = returnState_;
    c["go_backwards"] = goBackwards_;
    c["stateful"] = false;
    c["unroll"] = false;
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
  /// The mask's steps, each bool [batch, 1, 1, 1]; empty without a mask.
  std::vector<Tensor> stepMasks(const CallArgs& args, int64_t b, int64_t T) const {
    if (args.masks.empty() || !args.masks[0].defined()) return {};
    if (args.masks[0].shape() != Shape{b, T})
      error("needs a mask of shape [batch, time] = " + shapeToString({b, T}) + ", got " +
            shapeToString(args.masks[0].shape()));
    std::vector<Tensor> out;
    for (const Tensor& m : unpack(cast(args.masks[0], DType::float32), 1))
      out.push_back(cast(reshape(m, {b, 1, 1, 1}), DType::boolean));
    return out;
  }

  std::shared_ptr<ConvLSTM2DCell> cell_;
  bool returnSequences_ = false, returnState_ = false, goBackwards_ = false;
};

#undef GLINT_CONV_LSTM_CELL_KEYS

}  // namespace

namespace layers {

LayerPtr convLstm2d(const Config& args) { return std::make_shared<ConvLSTM2D>(args); }
LayerPtr convLstm2dCell(const Config& args) {
  auto cell = std::make_shared<ConvLSTM2DCell>(args, "");
  return cell;
}

void registerConvLstmLayers() {
  GLINT_REGISTER_LAYER(registerLayerClass, "ConvLSTM2D", convLstm2d);
  GLINT_REGISTER_LAYER(registerLayerClass, "ConvLSTM2DCell", convLstm2dCell);
}

}  // namespace layers
}  // namespace glint
