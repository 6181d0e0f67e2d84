#include <map>
#include <mutex>

#include "glint/error.h"
#include "glint/initializers.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "glint/regularizers.h"
#include "src/core/kernel_selection.h"
#include "src/io/load_limits.h"
#include "src/layers/layer_args.h"

namespace glint {

namespace {

/// Keras-style unique names: "dense", "dense_1", "dense_2", ...
std::string uniqueName(const std::string& prefix) {
  static std::mutex mutex;  // models are built on several threads at once
  static std::map<std::string, int> counters;
  std::lock_guard<std::mutex> lock(mutex);
  int n = counters[prefix]++;
  return n == 0 ? prefix : prefix + "_" + std::to_string(n);
}

std::optional<Shape> declaredInputShape(const ArgReader& r) {
  if (r.has("batch_input_shape")) return r.ints("batch_input_shape");
  if (r.has("input_shape")) {
    Shape s = r.ints("input_shape");
    s.insert(s.begin(), r.integer("batch_size", -1));
    return s;
  }
  if (r.has("input_dim")) return Shape{r.integer("batch_size", -1), r.integer("input_dim")};
  return std::nullopt;
}

}  // namespace

Layer::Layer(const Config& args, const std::string& defaultNamePrefix)
    : args_(normalizeArgKeys(args)) {
  ArgReader r(args_, defaultNamePrefix);
  name_ = r.string("name", "");
  if (name_.empty()) name_ = uniqueName(defaultNamePrefix);
  trainable_ = r.boolean("trainable", true);
  batchInputShape_ = declaredInputShape(r);
  std::string dtype = r.string("dtype", "float32");
  check(dtype == "float32" || dtype == "int32", what(), "dtype must be float32 or int32, got ",
        dtype);
}

Layer::~Layer() = default;

Node::~Node() {
  std::vector<SymbolicTensorPtr> pending = std::move(inputs);
  while (!pending.empty()) {
    SymbolicTensorPtr t = std::move(pending.back());
    pending.pop_back();
    // Only what nobody else holds dies here: take its producer's inputs
    // first, so that producer's destructor finds nothing to recurse into.
    if (t && t.use_count() == 1 && t->node && t->node.use_count() == 1) {
      std::shared_ptr<Node> producer = std::move(t->node);
      for (SymbolicTensorPtr& in : producer->inputs) pending.push_back(std::move(in));
      producer->inputs.clear();
    }
  }
}

std::string Layer::what() const { return "layer '" + name_ + "'"; }

void Layer::error(const std::string& message) const {
  fail(className() + " '" + name_ + "'", message);
}

void Layer::build(const std::vector<Shape>&) { built_ = true; }

Json Layer::getConfig() const {
  Json config = Json::object();
  config["name"] = name_;
  config["trainable"] = trainable_;
  if (batchInputShape_) {
    Json shape = Json::array();
    for (int64_t d : *batchInputShape_) shape.push_back(d < 0 ? Json(nullptr) : Json(d));
    config["batch_input_shape"] = shape;
  }
  config["dtype"] = "float32";
  return config;
}

std::vector<Tensor> Layer::computeMask(const std::vector<Tensor>&,
                                       const std::vector<Tensor>& masks) const {
  if (!supportsMasking() || masks.empty() || !masks[0].defined()) return {};
  return {masks[0]};
}

std::vector<Tensor> Layer::apply(const std::vector<Tensor>& xs, bool training) {
  std::vector<Shape> shapes;
  for (const Tensor& x : xs) {
    check(x.defined() && !x.isDisposed(), className() + " '" + name_ + "'",
          "an input is undefined or disposed");
    Shape s = x.shape();
    if (!s.empty()) s[0] = -1;  // the batch dimension is free
    shapes.push_back(s);
  }
  if (!built_) {
    computeOutputShape(shapes);  // validates before any weight exists
    build(shapes);
    built_ = true;
  }
  return call(xs, CallArgs{training});
}

void Layer::ensureBuilt(const std::vector<Shape>& inputShapes) {
  if (built_) return;
  computeOutputShape(inputShapes);  // validates before any weight exists
  build(inputShapes);
  built_ = true;
}

Tensor Layer::apply(const Tensor& x, bool training) {
  std::vector<Tensor> out = apply(std::vector<Tensor>{x}, training);
  if (out.size() != 1)
    error("returns " + std::to_string(out.size()) + " outputs; use the vector form of apply");
  return out[0];
}

std::vector<SymbolicTensorPtr> Layer::apply(const std::vector<SymbolicTensorPtr>& xs,
                                            const Config& kwargs) {
  std::vector<Shape> shapes;
  for (const auto& x : xs) {
    check(x != nullptr, className() + " '" + name_ + "'", "a symbolic input is null");
    shapes.push_back(x->shape);
  }
  std::vector<Shape> outShapes = computeOutputShape(shapes);
  if (!built_) {
    build(shapes);
    built_ = true;
  }
  auto node = std::make_shared<Node>();
  node->layer = shared_from_this();
  node->inputs = xs;
  node->index = static_cast<int>(inboundNodes_.size());
  node->kwargs = kwargs;
  std::vector<SymbolicTensorPtr> outputs;
  for (size_t i = 0; i < outShapes.size(); ++i) {
    auto t = std::make_shared<SymbolicTensor>();
    t->shape = outShapes[i];
    t->node = node;
    t->tensorIndex = static_cast<int>(i);
    t->name = name_ + "/" + std::to_string(node->index) + ":" + std::to_string(i);
    node->outputs.push_back(t);
    outputs.push_back(t);
  }
  inboundNodes_.push_back(node);
  return outputs;
}

SymbolicTensorPtr Layer::apply(const SymbolicTensorPtr& x, const Config& kwargs) {
  std::vector<SymbolicTensorPtr> out = apply(std::vector<SymbolicTensorPtr>{x}, kwargs);
  if (out.size() != 1)
    error("returns " + std::to_string(out.size()) + " outputs; use the vector form of apply");
  return out[0];
}

std::vector<std::shared_ptr<Node>> Layer::inboundNodes() const {
  std::vector<std::shared_ptr<Node>> out;
  for (const auto& weak : inboundNodes_)
    if (auto n = weak.lock()) out.push_back(n);
  return out;
}

Variable Layer::addWeight(const std::string& name, const Shape& shape,
                          const std::shared_ptr<Initializer>& initializer,
                          const std::shared_ptr<Regularizer>& regularizer, bool trainable,
                          const std::shared_ptr<Constraint>& constraint) {
  for (int64_t d : shape)
    if (d < 0)
      error("weight '" + name + "' would have shape " + shapeToString(shape) +
            ": the input shape must be known (give the first layer an inputShape)");
  check(initializer != nullptr, className(), "weight '", name, "' has no initializer");
  io::detail::chargeWeight(name_, name, shape);  // a model being loaded: its limits first
  Variable v = variable(initializer->init(shape, DType::float32), trainable && trainable_,
                        (weightNamePrefix_.empty() ? name_ : weightNamePrefix_) + "/" + name);
  weights_.push_back(WeightEntry{v, trainable, regularizer, constraint});
  return v;
}

std::vector<Variable> Layer::ownWeights(bool trainableOnes) const {
  std::vector<Variable> out;
  for (const auto& w : weights_)
    if ((w.trainable && trainable()) == trainableOnes) out.push_back(w.variable);
  return out;
}

std::vector<Variable> Layer::trainableWeights() const { return ownWeights(true); }
std::vector<Variable> Layer::nonTrainableWeights() const { return ownWeights(false); }

std::vector<Variable> Layer::weights() const {
  std::vector<Variable> out = trainableWeights();
  for (const Variable& v : nonTrainableWeights()) out.push_back(v);
  return out;
}

std::vector<Tensor> Layer::getWeights() const {
  std::vector<Tensor> out;
  for (const Variable& v : weights()) out.push_back(v);
  return out;
}

void Layer::setWeights(const std::vector<Tensor>& values) {
  std::vector<Variable> ws = weights();
  if (values.size() != ws.size())
    error("setWeights got " + std::to_string(values.size()) + " tensors for " +
          std::to_string(ws.size()) + " weights");
  for (size_t i = 0; i < ws.size(); ++i) {
    if (values[i].shape() != ws[i].shape() || values[i].dtype() != ws[i].dtype())
      error("setWeights: weight '" + ws[i].name() + "' is " + shapeToString(ws[i].shape()) +
            ", the value is " + shapeToString(values[i].shape()));
    ws[i].assign(values[i]);
  }
}

int64_t Layer::countParams() const {
  int64_t n = 0;
  for (const Variable& v : weights()) n += v.size();
  return n;
}

std::vector<Tensor> Layer::regularizationLosses() const {
  std::vector<Tensor> out;
  for (const auto& w : weights_)
    if (w.regularizer) out.push_back(w.regularizer->apply(w.variable));
  return out;
}

void Layer::applyConstraints() {
  for (auto& w : weights_)
    if (w.constraint) w.variable.assign(w.constraint->apply(w.variable));
}

// ---- Registry ----------------------------------------------------------------

namespace layers {

namespace {
std::map<std::string, LayerFactory>& registry() {
  static std::map<std::string, LayerFactory> classes;
  return classes;
}
// Models are loaded on several threads at once; map nodes never move, so a
// factory found under the lock stays valid after it.
std::recursive_mutex& registryMutex() {
  static std::recursive_mutex mutex;
  return mutex;
}
}  // namespace

void registerBuiltinLayers();  // src/layers/builtin_layers.cpp

static void ensureRegistered() {
  static std::once_flag once;
  std::call_once(once, registerBuiltinLayers);
}

void registerLayerClass(const std::string& className, LayerFactory factory) {
  std::lock_guard<std::recursive_mutex> lock(registryMutex());
  registry()[className] = std::move(factory);
}

LayerPtr fromConfig(const std::string& className, const Config& config) {
  ensureRegistered();
  const LayerFactory* factory = nullptr;
  {
    std::lock_guard<std::recursive_mutex> lock(registryMutex());
    auto it = registry().find(className);
    if (it == registry().end()) {
      std::string known;
      for (const auto& [name, f] : registry()) known += (known.empty() ? "" : ", ") + name;
      // A model file names the layer: say which one needs the class.
      std::string layer;
      if (config.is_object() && config.contains("name") && config["name"].is_string())
        layer = " (layer '" + quoteForError(config["name"].get<std::string>()) + "')";
      if (!layerSelected(className))
        fail("layers.fromConfig", "layer class '", quoteForError(className), "'", layer,
             " is not in this build of Glint: it holds only the layer classes listed in ",
             kKernelSelection, " (GLINT_KERNELS, as layer:", quoteForError(className),
             "); add it there (tools/kernels_for.mjs lists a model's) and rebuild, or use the "
             "full build");
      fail("layers.fromConfig", "unknown layer class '", quoteForError(className), "'", layer,
           "; a custom class must be registered first (layers::registerLayerClass, in JS "
           "tf.serialization.registerClass); known: ",
           known);
    }
    factory = &it->second;
  }
  return (*factory)(config);
}

std::vector<std::string> knownClassNames() {
  ensureRegistered();
  std::lock_guard<std::recursive_mutex> lock(registryMutex());
  std::vector<std::string> names;
  for (const auto& [name, f] : registry()) names.push_back(name);
  return names;
}

}  // namespace layers
}  // namespace glint
