// Functional models: graph discovery (Keras's depth ordering, so layers and
// weights come in the order TF.js uses), execution, weights, and the factories.
#include "glint/model.h"

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "glint/error.h"
#include "glint/ops.h"
#include "src/layers/families.h"
#include "src/layers/layer_args.h"
#include "src/model/model_internal.h"

namespace glint {

namespace {

bool isSource(const Node& node) { return node.inputs.empty(); }

}  // namespace

Model::Model(const std::vector<SymbolicTensorPtr>& inputs,
             const std::vector<SymbolicTensorPtr>& outputs, const Config& args)
    : Layer(args, "model") {
  ArgReader(this->args(), "Model").allowOnly({});
  initGraph(inputs, outputs);
}

Model::Model(const Config& args, const std::string& defaultNamePrefix)
    : Layer(args, defaultNamePrefix) {
  ArgReader(this->args(), defaultNamePrefix).allowOnly({});
}

void Model::initGraph(const std::vector<SymbolicTensorPtr>& inputs,
                      const std::vector<SymbolicTensorPtr>& outputs, bool listInputLayers) {
  const std::string me = className() + " '" + name() + "'";
  check(!inputs.empty(), me, "needs at least one input");
  check(!outputs.empty(), me, "needs at least one output");
  std::unordered_set<const SymbolicTensor*> inputSet;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& x = inputs[i];
    check(x != nullptr && x->node != nullptr, me, "input ", i, " is null");
    check(isSource(*x->node) && x->node->layer->className() == "InputLayer", me, "input ", i, " ('",
          x->name,
          "') is not a graph input: model inputs must come from glint::input() "
          "(an InputLayer), got the output of layer '",
          x->node->layer->name(), "'");
    check(inputSet.insert(x.get()).second, me, "input '", x->name, "' is listed twice");
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    check(outputs[i] != nullptr && outputs[i]->node != nullptr, me, "output ", i, " is null");

  // Depth-first from the outputs: post-order puts every node after its inputs.
  // An explicit stack, not recursion: a chain of 10,000 layers overflowed
  // the stack (node's, in WebAssembly) one frame per layer.
  std::vector<std::shared_ptr<Node>> postOrder;
  std::unordered_map<const Node*, size_t> position;
  std::unordered_map<const Layer*, size_t> layerIndex;
  std::vector<std::pair<std::shared_ptr<Node>, size_t>> stack;  // node, next input to visit
  auto enter = [&](const std::shared_ptr<Node>& n) {
    if (position.count(n.get())) return;
    layerIndex.emplace(n->layer.get(), layerIndex.size());
    stack.emplace_back(n, 0);
  };
  for (const auto& out : outputs) {
    enter(out->node);
    while (!stack.empty()) {
      std::shared_ptr<Node> n = stack.back().first;
      size_t next = stack.back().second++;
      if (next < n->inputs.size()) {
        const SymbolicTensorPtr& x = n->inputs[next];
        check(x && x->node, me, "layer '", n->layer->name(), "' has a null input");
        enter(x->node);
        continue;
      }
      stack.pop_back();
      if (position.count(n.get())) continue;
      position[n.get()] = postOrder.size();
      postOrder.push_back(n);
    }
  }

  // Depths as Keras assigns them: outputs 0, inputs deepest; a shared layer
  // takes the largest depth of its calls.
  std::unordered_map<const Node*, int> nodeDepth;
  std::unordered_map<const Layer*, int> layerDepth;
  for (auto it = postOrder.rbegin(); it != postOrder.rend(); ++it) {
    const Node* n = it->get();
    int depth = std::max(nodeDepth[n], layerDepth[n->layer.get()]);
    layerDepth[n->layer.get()] = depth;
    nodeDepth[n] = depth;
    for (const auto& x : n->inputs) {
      int& d = nodeDepth[x->node.get()];
      d = std::max(d, depth + 1);
    }
  }
  std::vector<std::shared_ptr<Node>> order = postOrder;
  std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    return nodeDepth[a.get()] > nodeDepth[b.get()];
  });

  // Every value must be computable from the inputs ("graph disconnected").
  std::unordered_set<const SymbolicTensor*> computable = inputSet;
  std::vector<std::shared_ptr<Node>> nodes;
  for (const auto& n : order) {
    if (isSource(*n)) {
      bool isModelInput = false;
      for (const auto& out : n->outputs)
        if (auto t = out.lock(); t && inputSet.count(t.get())) isModelInput = true;
      check(isModelInput, me, "graph disconnected: the outputs depend on input layer '",
            n->layer->name(), "', which is not among the model's inputs");
      continue;
    }
    for (const auto& x : n->inputs)
      check(computable.count(x.get()), me, "graph disconnected: cannot compute '", x->name,
            "', an input of layer '", n->layer->name(), "'");
    for (const auto& out : n->outputs)
      if (auto t = out.lock()) computable.insert(t.get());
    nodes.push_back(n);
  }
  for (const auto& x : inputs)
    check(position.count(x->node.get()), me, "input '", x->name,
          "' is not connected to any output");

  std::vector<LayerPtr> layers;
  for (const auto& n : postOrder)
    if (std::find(layers.begin(), layers.end(), n->layer) == layers.end())
      layers.push_back(n->layer);
  std::stable_sort(layers.begin(), layers.end(), [&](const LayerPtr& a, const LayerPtr& b) {
    int da = layerDepth[a.get()], db = layerDepth[b.get()];
    return da != db ? da > db : layerIndex[a.get()] < layerIndex[b.get()];
  });
  if (!listInputLayers)
    layers.erase(std::remove_if(layers.begin(), layers.end(),
                                [&](const LayerPtr& l) {
                                  for (const auto& x : inputs)
                                    if (x->node->layer == l) return true;
                                  return false;
                                }),
                 layers.end());
  // Configs refer to layers by name, so names must be unique.
  std::unordered_set<std::string> names;
  for (const auto& l : layers)
    check(names.insert(l->name()).second, me, "the layer name '", l->name(),
          "' is used more than once; every layer of a model needs a unique name");

  inputs_ = inputs;
  outputs_ = outputs;
  layers_ = std::move(layers);
  nodes_ = std::move(nodes);
  built_ = true;
}

void Model::clearGraph() {
  inputs_.clear();
  outputs_.clear();
  layers_.clear();
  nodes_.clear();
}

LayerPtr Model::getLayer(const std::string& name) const {
  std::string known;
  for (const auto& l : layers_) {
    if (l->name() == name) return l;
    known += (known.empty() ? "" : ", ") + l->name();
  }
  fail(className() + " '" + this->name() + "'", "no layer named '", name, "'; layers: ", known);
}

namespace {

/// Shapes agree where both are known (-1 matches anything).
bool compatible(const Shape& expected, const Shape& actual) {
  if (expected.size() != actual.size()) return false;
  for (size_t i = 0; i < expected.size(); ++i)
    if (expected[i] >= 0 && actual[i] >= 0 && expected[i] != actual[i]) return false;
  return true;
}

}  // namespace

std::vector<Tensor> Model::call(const std::vector<Tensor>& inputs, const CallArgs& args) {
  const std::string me = className() + " '" + name() + "'";
  check(!inputs_.empty(), me, "has no layers yet");
  check(inputs.size() == inputs_.size(), me, "expects ", inputs_.size(), " input(s), got ",
        inputs.size());
  std::unordered_map<const SymbolicTensor*, Tensor> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    check(inputs[i].defined() && !inputs[i].isDisposed(), me, "input ", i,
          " is undefined or disposed");
    check(compatible(inputs_[i]->shape, inputs[i].shape()), me, "input ", i, " ('",
          inputs_[i]->name, "') expects shape ", shapeToString(inputs_[i]->shape),
          " (-1: any), got ", shapeToString(inputs[i].shape()));
    values[inputs_[i].get()] = inputs[i];
  }
  // Masks travel beside the values: each layer gets its inputs' masks and
  // says what its outputs' are (Layer::computeMask).
  std::unordered_map<const SymbolicTensor*, Tensor> masks;
  for (size_t i = 0; i < inputs.size() && i < args.masks.size(); ++i)
    if (args.masks[i].defined()) masks[inputs_[i].get()] = args.masks[i];
  for (const auto& node : nodes_) {
    std::vector<Tensor> xs;
    xs.reserve(node->inputs.size());
    CallArgs nodeArgs{args.training, args.logitsFrom, {}};
    bool anyMask = false;
    for (const auto& x : node->inputs) {
      xs.push_back(values.at(x.get()));
      auto m = masks.find(x.get());
      nodeArgs.masks.push_back(m == masks.end() ? Tensor() : m->second);
      anyMask = anyMask || m != masks.end();
    }
    if (!anyMask) nodeArgs.masks.clear();
    std::vector<Tensor> ys = node->layer->call(xs, nodeArgs);
    check(ys.size() == node->outputs.size(), me, "layer '", node->layer->name(), "' returned ",
          ys.size(), " outputs, its graph node has ", node->outputs.size());
    std::vector<Tensor> outMasks = node->layer->computeMask(xs, nodeArgs.masks);
    for (size_t j = 0; j < ys.size(); ++j) {
      auto t = node->outputs[j].lock();
      if (!t) continue;
      values[t.get()] = ys[j];
      if (j < outMasks.size() && outMasks[j].defined()) masks[t.get()] = outMasks[j];
    }
  }
  std::vector<Tensor> out;
  for (const auto& y : outputs_) out.push_back(values.at(y.get()));
  return out;
}

std::vector<Shape> Model::computeOutputShape(const std::vector<Shape>& inputShapes) const {
  if (inputShapes.size() != inputs_.size())
    error("expects " + std::to_string(inputs_.size()) + " input(s), got " +
          std::to_string(inputShapes.size()));
  std::unordered_map<const SymbolicTensor*, Shape> shapes;
  for (size_t i = 0; i < inputShapes.size(); ++i) {
    if (!compatible(inputs_[i]->shape, inputShapes[i]))
      error("input " + std::to_string(i) + " ('" + inputs_[i]->name + "') expects shape " +
            shapeToString(inputs_[i]->shape) + " (-1: any), got " + shapeToString(inputShapes[i]));
    shapes[inputs_[i].get()] = inputShapes[i];
  }
  for (const auto& node : nodes_) {
    std::vector<Shape> in;
    for (const auto& x : node->inputs) in.push_back(shapes.at(x.get()));
    std::vector<Shape> out = node->layer->computeOutputShape(in);
    for (size_t j = 0; j < out.size() && j < node->outputs.size(); ++j)
      if (auto t = node->outputs[j].lock()) shapes[t.get()] = out[j];
  }
  std::vector<Shape> out;
  for (const auto& y : outputs_) out.push_back(shapes.at(y.get()));
  return out;
}

std::vector<Variable> Model::ownWeights(bool trainableOnes) const {
  std::vector<Variable> out;
  if (trainableOnes && !trainable()) return out;
  std::unordered_set<int64_t> seen;  // a layer may appear in nested models too
  for (const auto& layer : layers_) {
    std::vector<Variable> ws = trainableOnes ? layer->trainableWeights()
                               : trainable() ? layer->nonTrainableWeights()
                                             : layer->weights();
    for (const Variable& v : ws)
      if (seen.insert(v.id()).second) out.push_back(v);
  }
  return out;
}

void Model::setTrainable(bool trainable) {
  Layer::setTrainable(trainable);
  for (const auto& layer : layers_) layer->setTrainable(trainable);
}

std::vector<Tensor> Model::regularizationLosses() const {
  std::vector<Tensor> out;
  for (const auto& layer : layers_)
    for (const Tensor& t : layer->regularizationLosses()) out.push_back(t);
  return out;
}

void Model::applyConstraints() {
  for (const auto& layer : layers_) layer->applyConstraints();
}

// ---- Factories and the class registry -----------------------------------------

ModelPtr model(const std::vector<SymbolicTensorPtr>& inputs,
               const std::vector<SymbolicTensorPtr>& outputs, const Config& args) {
  return std::make_shared<Model>(inputs, outputs, args);
}

std::shared_ptr<Sequential> sequential(const Config& args) {
  return std::make_shared<Sequential>(args);
}

std::shared_ptr<Sequential> sequential(const std::vector<LayerPtr>& layers, const Config& args) {
  auto m = std::make_shared<Sequential>(args);
  m->add(layers);
  return m;
}

namespace layers {

void registerModelClasses() {
  for (const char* name : {"Sequential", "Model", "Functional"}) {
    std::string cls = name;
    registerLayerClass(cls, [cls](const Json& config) -> LayerPtr {
      return modelFromConfig(Json{{"class_name", cls}, {"config", config}});
    });
  }
}

}  // namespace layers
}  // namespace glint

namespace glint {

std::shared_ptr<Model::CallGuard> Model::newCallGuard() { return std::make_shared<CallGuard>(); }

ModelCall::ModelCall(Model::CallGuard& guard, const std::string& op, const std::string& model,
                     Kind kind)
    : guard_(guard) {
  const std::thread::id self = std::this_thread::get_id();
  if (kind == kTrain) {
    std::thread::id none{};
    if (!guard.trainer.compare_exchange_strong(none, self) && none != self)
      fail(op, "model '", model,
           "' is being trained on another thread; one model trains on "
           "one thread at a time (docs/CPP.md, Threads)");
    ownsTrainer_ = none != self;  // false when nested in this thread's own fit
  } else {
    std::thread::id trainer = guard.trainer.load();
    if (trainer != std::thread::id{} && trainer != self)
      fail(op, "model '", model,
           "' is being trained on another thread (fit); call it once "
           "training ends, or on a copy of the model (docs/CPP.md, Threads)");
  }
  try {
    guard.mutex.lock();
  } catch (...) {
    if (ownsTrainer_) guard.trainer.store(std::thread::id{});
    throw;
  }
}

ModelCall::~ModelCall() {
  guard_.mutex.unlock();
  if (ownsTrainer_) guard_.trainer.store(std::thread::id{});
}

}  // namespace glint
