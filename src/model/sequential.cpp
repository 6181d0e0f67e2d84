// Sequential: a stack of single-input, single-output layers. Each add() applies
// the layer to the previous output symbolically, so shapes are checked at once.
#include <unordered_set>

#include "glint/error.h"
#include "glint/json.h"
#include "glint/model.h"

namespace glint {

Sequential::Sequential(const Config& args) : Model(args, "sequential") {}

namespace {

Json shapeJson(const Shape& shape) {
  Json out = Json::array();
  for (int64_t d : shape) out.push_back(d < 0 ? Json(nullptr) : Json(d));
  return out;
}

/// A graph input for an InputLayer that was built from a config (it has no node yet).
SymbolicTensorPtr inputFromLayer(const LayerPtr& layer) {
  Json config = layer->getConfig();
  auto node = std::make_shared<Node>();
  node->layer = layer;
  auto t = std::make_shared<SymbolicTensor>();
  t->shape = *layer->batchInputShape();
  t->dtype = parseDType(config.value("dtype", std::string("float32")));
  t->node = node;
  t->name = layer->name();
  node->outputs.push_back(t);
  return t;
}

}  // namespace

void Sequential::append(const LayerPtr& layer, bool alreadyIn) {
  const std::string me = "Sequential '" + name() + "'";
  check(layer != nullptr, me, "add: the layer is null");
  check(!alreadyIn, me, "add: layer '", layer->name(), "' is already in the model");
  auto* nested = dynamic_cast<Model*>(layer.get());
  if (nested)
    check(nested->inputs().size() == 1 && nested->outputs().size() == 1, me, "add: model '",
          layer->name(), "' has ", nested->inputs().size(), " inputs and ",
          nested->outputs().size(),
          " outputs; a Sequential model needs one of each (use the functional API)");

  if (stack_.empty()) {
    if (layer->className() == "InputLayer") {
      input_ = inputFromLayer(layer);
      autoInput_ = false;
      stack_.push_back(layer);
      tail_ = input_;
      return;
    }
    Shape shape;
    if (nested) {
      shape = nested->inputs()[0]->shape;
    } else {
      check(layer->batchInputShape().has_value(), me, "the first layer ('", layer->name(), "', ",
            layer->className(), ") needs an input shape: give it inputShape or batchInputShape");
      shape = *layer->batchInputShape();
    }
    Json config = layer->getConfig();
    input_ = input(Json{{"batchShape", shapeJson(shape)},
                        {"name", layer->name() + "_input"},
                        {"dtype", config.value("dtype", std::string("float32"))}});
    autoInput_ = true;
  } else if (layer->className() == "InputLayer") {
    fail(me, "add: an InputLayer ('", layer->name(), "') can only be the first layer");
  }

  SymbolicTensorPtr previous = stack_.empty() ? input_ : tail_;
  std::vector<SymbolicTensorPtr> out;
  try {
    out = layer->apply(std::vector<SymbolicTensorPtr>{previous});
  } catch (const Error& e) {
    fail(me, "cannot add layer '", layer->name(), "' (", layer->className(),
         ") after output shape ", shapeToString(previous->shape), ": ", e.what());
  }
  check(out.size() == 1, me, "add: layer '", layer->name(), "' returns ", out.size(),
        " outputs; a Sequential model needs layers with one output (use the functional API)");
  stack_.push_back(layer);
  tail_ = out[0];
}

void Sequential::add(const LayerPtr& layer) {
  bool alreadyIn = false;
  for (const auto& l : stack_) alreadyIn = alreadyIn || l == layer;
  append(layer, alreadyIn);
  rebuild(tail_);
}

void Sequential::add(const std::vector<LayerPtr>& layers) {
  // The graph is built once at the end: rebuilding it after each layer made
  // a model of n layers cost n^2 (9,999 layers: minutes).
  const size_t size = stack_.size();
  const SymbolicTensorPtr input = input_, tail = tail_;
  const bool autoInput = autoInput_;
  try {
    std::unordered_set<const Layer*> in;
    in.reserve(stack_.size() + layers.size());
    for (const auto& l : stack_) in.insert(l.get());
    for (const auto& layer : layers) append(layer, layer && !in.insert(layer.get()).second);
  } catch (...) {
    // All or nothing: the model stays as it was.
    stack_.resize(size);
    input_ = input;
    tail_ = tail;
    autoInput_ = autoInput;
    throw;
  }
  if (stack_.size() != size) rebuild(tail_);
}

void Sequential::pop() {
  check(!stack_.empty(), "Sequential '" + name() + "'", "pop: the model has no layers");
  stack_.pop_back();
  if (stack_.empty()) {
    input_.reset();
    autoInput_ = false;
    rebuild(nullptr);
  } else if (stack_.size() == 1 && !autoInput_) {
    rebuild(input_);  // only the InputLayer is left
  } else {
    rebuild(outputs()[0]->node->inputs[0]);  // what the popped layer consumed
  }
}

void Sequential::rebuild(const SymbolicTensorPtr& output) {
  tail_ = output;
  if (!output) {
    clearGraph();  // empty until the next add()
    return;
  }
  initGraph({input_}, {output}, !autoInput_);
}

}  // namespace glint
