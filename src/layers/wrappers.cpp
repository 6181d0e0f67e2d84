// Wrappers: Bidirectional (a recurrent layer run forwards and backwards) and
// TimeDistributed (a layer applied to every time step), as TF.js 4.22.
#include <set>

#include "glint/error.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "src/core/kernel_selection.h"
#include "src/layers/layer_args.h"

namespace glint {

namespace {

Json withoutLayerKey(const Json& args) {
  Json a = normalizeArgKeys(args);
  a.erase("layer");
  return a;
}

class Bidirectional : public Layer {
 public:
  Bidirectional(const LayerPtr& layer, const Json& args)
      : Layer(withInnerInputShape(args, layer), "bidirectional"), layer_(layer) {
    ArgReader r(this->args(), "Bidirectional '" + name() + "'");
    r.allowOnly({"merge_mode"});
    if (!layer_) error("needs a recurrent layer to wrap, got none");
    static const std::set<std::string> recurrent = {"SimpleRNN", "LSTM", "GRU", "RNN"};
    if (!recurrent.count(layer_->className()))
      error("wraps a recurrent layer (SimpleRNN, LSTM, GRU, RNN), got " + layer_->className() +
            " '" + layer_->name() + "'");
    if (r.has("merge_mode")) {
      mergeMode_ = r.string("merge_mode", "concat");
      static const std::set<std::string> modes = {"concat", "sum", "mul", "ave"};
      if (!modes.count(mergeMode_))
        r.fail("merge_mode",
               "must be one of concat, sum, mul, ave or null, got '" + mergeMode_ + "'");
    } else if (this->args().contains("merge_mode")) {
      mergeMode_ = "";  // null: both outputs, unmerged
    }

    // Two fresh copies from the config (as TF.js); the given layer only serves its config.
    Json config = layer_->getConfig();
    const std::string inner = layer_->name();
    returnSequences_ = config.value("return_sequences", false);
    config["name"] = "forward_" + inner;
    forward_ = layers::fromConfig(layer_->className(), config);
    config["name"] = "backward_" + inner;
    config["go_backwards"] = !config.value("go_backwards", false);
    backward_ = layers::fromConfig(layer_->className(), config);
    forward_->setWeightNamePrefix(name() + "/forward_" + inner);
    backward_->setWeightNamePrefix(name() + "/backward_" + inner);
    if (!Layer::trainable()) setTrainable(false);
  }
  std::string className() const override { return "Bidirectional"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    std::vector<Shape> shapes = forward_->computeOutputShape(in);
    Shape out = shapes[0];
    std::vector<Shape> result;
    if (mergeMode_ == "concat") {
      out.back() *= 2;
      result = {out};
    } else if (mergeMode_.empty()) {
      result = {out, out};
    } else {
      result = {out};
    }
    for (int copy = 0; copy < 2; ++copy)
      result.insert(result.end(), shapes.begin() + 1, shapes.end());
    return result;
  }

  void build(const std::vector<Shape>& in) override {
    forward_->ensureBuilt(in);
    backward_->ensureBuilt(in);
  }

  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    std::vector<Tensor> y = forward_->call(in, args);
    std::vector<Tensor> yRev = backward_->call(in, args);
    Tensor a = y[0], b = yRev[0];
    if (returnSequences_) b = reverse(b, {1});  // back to input time order
    std::vector<Tensor> out;
    if (mergeMode_ == "concat") out = {concat({a, b}, -1)};
    else if (mergeMode_ == "sum") out = {add(a, b)};
    else if (mergeMode_ == "mul") out = {mul(a, b)};
    else if (mergeMode_ == "ave") out = {mul(add(a, b), scalar(0.5f))};
    else out = {a, b};
    out.insert(out.end(), y.begin() + 1, y.end());
    out.insert(out.end(), yRev.begin() + 1, yRev.end());
    return out;
  }

  /// Each direction reads the input's mask in its own order; a sequence output
  /// keeps it (twice, unmerged), a last output and the states have none.
  std::vector<Tensor> computeMask(const std::vector<Tensor>&,
                                  const std::vector<Tensor>& masks) const override {
    Tensor m = returnSequences_ && !masks.empty() ? masks[0] : Tensor();
    if (mergeMode_.empty()) return {m, m};
    return {m};
  }

  void setTrainable(bool trainable) override {
    Layer::setTrainable(trainable);
    forward_->setTrainable(trainable);
    backward_->setTrainable(trainable);
  }
  std::vector<Tensor> regularizationLosses() const override {
    std::vector<Tensor> out = forward_->regularizationLosses();
    for (const Tensor& t : backward_->regularizationLosses()) out.push_back(t);
    return out;
  }
  void applyConstraints() override {
    forward_->applyConstraints();
    backward_->applyConstraints();
  }

  Json getConfig() const override {
    Json c = Json::object();
    c["merge_mode"] = mergeMode_.empty() ? Json(nullptr) : Json(mergeMode_);
    c["layer"] = nestedConfig(*layer_);
    c.update(Layer::getConfig());
    return c;
  }

 protected:
  /// Forward weights, then backward ones (TF.js order).
  std::vector<Variable> ownWeights(bool trainableOnes) const override {
    auto of = [&](const LayerPtr& l) {
      return trainableOnes ? l->trainableWeights() : l->nonTrainableWeights();
    };
    std::vector<Variable> out = of(forward_);
    for (const Variable& v : of(backward_)) out.push_back(v);
    return out;
  }

 private:
  /// A shape declared on the wrapped layer applies to the wrapper (Keras does so).
  static Json withInnerInputShape(const Json& args, const LayerPtr& layer) {
    Json a = normalizeArgKeys(args);
    bool declared =
        a.contains("input_shape") || a.contains("batch_input_shape") || a.contains("input_dim");
    if (!declared && layer && layer->batchInputShape()) {
      Json shape = Json::array();
      for (int64_t d : *layer->batchInputShape()) shape.push_back(d < 0 ? Json(nullptr) : Json(d));
      a["batch_input_shape"] = shape;
    }
    return a;
  }

  LayerPtr layer_, forward_, backward_;
  std::string mergeMode_ = "concat";  // "" = null
  bool returnSequences_ = false;
};

class TimeDistributed : public Layer {
 public:
  TimeDistributed(const LayerPtr& layer, const Json& args)
      : Layer(args, "time_distributed"), layer_(layer) {
    ArgReader(this->args(), "TimeDistributed '" + name() + "'").allowOnly({});
    if (!layer_) error("needs a layer to wrap, got none");
    if (!Layer::trainable()) layer_->setTrainable(false);
  }
  std::string className() const override { return "TimeDistributed"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    if (in[0].size() < 3)
      error("needs inputs of rank >= 3 [batch, time, ...], got " + shapeToString(in[0]));
    std::vector<Shape> child = layer_->computeOutputShape({stepShape(in[0], -1)});
    if (child.size() != 1)
      error("wraps " + layer_->className() + " '" + layer_->name() + "', which has " +
            std::to_string(child.size()) + " outputs; one is needed");
    Shape out{in[0][0], in[0][1]};
    out.insert(out.end(), child[0].begin() + 1, child[0].end());
    return {out};
  }

  void build(const std::vector<Shape>& in) override {
    if (!layer_->built()) layer_->setWeightNamePrefix(name());  // TF.js: "<wrapper>/kernel"
    layer_->ensureBuilt({stepShape(in[0], -1)});
  }

  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    const Shape& s = in[0].shape();
    computeOutputShape({s});  // the wrapped layer may be built for other shapes
    const int64_t batch = s[0], time = s[1];
    // All steps at once: [batch * time, ...] through the layer, then split time back out.
    CallArgs inner = args;
    if (Tensor m = stepMask(args.masks, s); m.defined()) inner.masks = {m};
    std::vector<Tensor> ys = layer_->call({reshape(in[0], stepShape(s, batch * time))}, inner);
    Shape out{batch, time};
    out.insert(out.end(), ys[0].shape().begin() + 1, ys[0].shape().end());
    return {reshape(ys[0], out)};
  }

  /// The wrapped layer's mask of the steps, its time axis put back; or, when
  /// it makes none, the input's mask (as Keras).
  std::vector<Tensor> computeMask(const std::vector<Tensor>& in,
                                  const std::vector<Tensor>& masks) const override {
    const Shape& s = in[0].shape();
    Tensor m = stepMask(masks, s);
    std::vector<Tensor> inner =
        layer_->computeMask({reshape(in[0], stepShape(s, s[0] * s[1]))},
                            m.defined() ? std::vector<Tensor>{m} : std::vector<Tensor>{});
    if (inner.empty() || !inner[0].defined()) return {masks.empty() ? Tensor() : masks[0]};
    Shape out{s[0], s[1]};
    out.insert(out.end(), inner[0].shape().begin() + 1, inner[0].shape().end());
    return {reshape(inner[0], out)};
  }

  bool trainable() const override { return layer_->trainable(); }
  void setTrainable(bool trainable) override {
    Layer::setTrainable(trainable);
    layer_->setTrainable(trainable);
  }
  std::vector<Tensor> regularizationLosses() const override {
    return layer_->regularizationLosses();
  }
  void applyConstraints() override { layer_->applyConstraints(); }

  Json getConfig() const override {
    Json c = Json::object();
    c["layer"] = nestedConfig(*layer_);
    c.update(Layer::getConfig());
    c["trainable"] = trainable();
    return c;
  }

 protected:
  std::vector<Variable> ownWeights(bool trainableOnes) const override {
    return trainableOnes ? layer_->trainableWeights() : layer_->nonTrainableWeights();
  }

 private:
  /// [batch, time, rest...] -> [steps, rest...].
  static Shape stepShape(const Shape& s, int64_t steps) {
    Shape out{steps};
    out.insert(out.end(), s.begin() + 2, s.end());
    return out;
  }

  /// A [batch, time, ...] mask as the wrapped layer sees it: [batch * time, ...].
  Tensor stepMask(const std::vector<Tensor>& masks, const Shape& input) const {
    if (masks.empty() || !masks[0].defined()) return Tensor();
    const Shape& m = masks[0].shape();
    if (m.size() < 2 || m[0] != input[0] || m[1] != input[1])
      error("needs a mask of shape [batch, time, ...] for input " + shapeToString(input) +
            ", got " + shapeToString(m));
    return reshape(masks[0], stepShape(m, input[0] * input[1]));
  }

  LayerPtr layer_;
};

}  // namespace

namespace layers {

LayerPtr bidirectional(const LayerPtr& layer, const Config& args) {
  return std::make_shared<Bidirectional>(layer, args);
}
LayerPtr bidirectional(const Config& args) {
  Json a = normalizeArgKeys(args);
  check(a.contains("layer"), "Bidirectional", "argument 'layer' is required");
  LayerPtr forward = nestedLayer(a["layer"], "Bidirectional");
  if (a.contains("backward_layer")) {
    // Keras 3 writes the backward copy beside the forward one. Glint makes it
    // from the forward one, so it must be that copy: same class and config,
    // go_backwards flipped.
    if (!a["backward_layer"].is_null()) {
      LayerPtr backward = nestedLayer(a["backward_layer"], "Bidirectional");
      Json f = forward->getConfig(), b = backward->getConfig();
      bool mirrored = forward->className() == backward->className() &&
                      f.value("go_backwards", false) != b.value("go_backwards", false);
      for (Json* c : {&f, &b}) {
        c->erase("name");
        c->erase("go_backwards");
      }
      check(mirrored && f == b, "Bidirectional", "argument 'backward_layer' ('", backward->name(),
            "') must be the wrapped layer ('", forward->name(),
            "') running backwards; a different "
            "backward layer is not supported");
    }
    a.erase("backward_layer");
  }
  return bidirectional(forward, withoutLayerKey(a));
}
LayerPtr timeDistributed(const LayerPtr& layer, const Config& args) {
  return std::make_shared<TimeDistributed>(layer, args);
}

void registerWrapperLayers() {
  GLINT_REGISTER_LAYER(registerLayerClass, "Bidirectional",
                       [](const Json& config) { return bidirectional(config); });
  GLINT_REGISTER_LAYER(registerLayerClass, "TimeDistributed", [](const Json& config) {
    Json a = normalizeArgKeys(config);
    check(a.contains("layer"), "TimeDistributed", "argument 'layer' is required");
    return timeDistributed(nestedLayer(a["layer"], "TimeDistributed"), withoutLayerKey(a));
  });
}

}  // namespace layers
}  // namespace glint
