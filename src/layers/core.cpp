// Core layers: InputLayer, Dense, Activation, Dropout, Flatten, Reshape,
// Permute, Embedding.
#include <algorithm>
#include <numeric>

#include "glint/activations.h"
#include "glint/error.h"
#include "glint/fused_ops.h"
#include "glint/initializers.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "glint/regularizers.h"
#include "src/core/kernel_selection.h"
#include "src/layers/families.h"
#include "src/layers/layer_args.h"

namespace glint {

namespace {

/// fit asks a softmax output layer for its logits (CallArgs::logitsFrom).
bool wantsLogits(const CallArgs& args, const Layer* layer) {
  return std::find(args.logitsFrom.begin(), args.logitsFrom.end(), layer) != args.logitsFrom.end();
}

Json shapeJson(const Shape& shape) {
  Json out = Json::array();
  for (int64_t d : shape) out.push_back(d < 0 ? Json(nullptr) : Json(d));
  return out;
}

/// A graph input; its only node has no inputs.
class InputLayer : public Layer {
 public:
  explicit InputLayer(const Json& args) : Layer(args, "input") {
    ArgReader r(this->args(), "InputLayer");
    r.allowOnly({"sparse", "ragged"});
    check(batchInputShape().has_value(), "InputLayer",
          "needs a shape: inputShape/batchInputShape (or input({{\"shape\", ...}}))");
    dtype_ = r.string("dtype", "float32");
    built_ = true;
  }
  std::string className() const override { return "InputLayer"; }
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallArgs&) override {
    return inputs;
  }
  std::vector<Shape> computeOutputShape(const std::vector<Shape>&) const override {
    return {*batchInputShape()};
  }
  Json getConfig() const override {
    Json c = Json::object();
    c["batch_input_shape"] = shapeJson(*batchInputShape());
    c["dtype"] = dtype_;
    c["sparse"] = false;
    c["name"] = name();
    return c;
  }
  DType dtype() const { return parseDType(dtype_); }

 private:
  std::string dtype_;
};

class Dense : public Layer {
 public:
  explicit Dense(const Json& args) : Layer(args, "dense") {
    ArgReader r(this->args(), "Dense '" + name() + "'");
    r.allowOnly({"units", "activation", "use_bias", "kernel_initializer", "bias_initializer",
                 "kernel_regularizer", "bias_regularizer", "activity_regularizer",
                 "kernel_constraint", "bias_constraint"});
    units_ = r.integer("units");
    if (units_ <= 0) r.fail("units", "must be positive, got " + std::to_string(units_));
    activation_ = r.activation("activation");
    useBias_ = r.boolean("use_bias", true);
    kernelInit_ = r.initializer("kernel_initializer", "glorotUniform");
    biasInit_ = r.initializer("bias_initializer", "zeros");
    kernelReg_ = r.regularizer("kernel_regularizer");
    biasReg_ = r.regularizer("bias_regularizer");
    kernelConstraint_ = r.constraint("kernel_constraint");
    biasConstraint_ = r.constraint("bias_constraint");
  }
  std::string className() const override { return "Dense"; }
  bool supportsMasking() const override { return true; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    if (in[0].size() < 2)
      error("needs inputs of rank >= 2 ([batch, ..., features]), got " + shapeToString(in[0]));
    if (in[0].back() < 0)
      error("the last input dimension must be known, got " + shapeToString(in[0]));
    if (inputDim_ >= 0 && in[0].back() != inputDim_)
      error("was built for " + std::to_string(inputDim_) + " input features, got " +
            shapeToString(in[0]));
    Shape out = in[0];
    out.back() = units_;
    return {out};
  }

  void build(const std::vector<Shape>& in) override {
    inputDim_ = in[0].back();
    kernel_ =
        addWeight("kernel", {inputDim_, units_}, kernelInit_, kernelReg_, true, kernelConstraint_);
    if (useBias_) bias_ = addWeight("bias", {units_}, biasInit_, biasReg_, true, biasConstraint_);
  }

  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    const Tensor& x = in[0];
    if (x.shape().back() != inputDim_)
      error("expected " + std::to_string(inputDim_) + " input features, got " +
            shapeToString(x.shape()));
    // One kernel for x W + b and the activation when it fuses; others
    // (softmax, selu, ...) follow as their own op.
    const bool fused = isFusableActivation(activation_);
    const bool softmax = activations::canonicalName(activation_) == "softmax";
    Tensor y = fusedMatMul(x.rank() == 2 ? x : reshape(x, {-1, inputDim_}), kernel_,
                           useBias_ ? Tensor(bias_) : Tensor(), fused ? activation_ : "linear");
    if (x.rank() != 2) {  // applied to the last axis of a higher-rank input
      Shape out = x.shape();
      out.back() = units_;
      y = reshape(y, out);
    }
    if (fused || (softmax && wantsLogits(args, this))) return {y};
    return {activations::apply(activation_, y)};
  }

  Json getConfig() const override {
    Json c = Layer::getConfig();
    c["units"] = units_;
    c["activation"] = activations::serializedName(activation_);
    c["use_bias"] = useBias_;
    c["kernel_initializer"] = serializeObject(kernelInit_);
    c["bias_initializer"] = serializeObject(biasInit_);
    c["kernel_regularizer"] = serializeObject(kernelReg_);
    c["bias_regularizer"] = serializeObject(biasReg_);
    c["activity_regularizer"] = nullptr;
    c["kernel_constraint"] = serializeObject(kernelConstraint_);
    c["bias_constraint"] = serializeObject(biasConstraint_);
    return c;
  }

 private:
  int64_t units_ = 0, inputDim_ = -1;
  std::string activation_;
  bool useBias_ = true;
  std::shared_ptr<Initializer> kernelInit_, biasInit_;
  std::shared_ptr<Regularizer> kernelReg_, biasReg_;
  std::shared_ptr<Constraint> kernelConstraint_, biasConstraint_;
  Variable kernel_, bias_;
};

/// Layers whose output shape is their input shape.
class ShapePreservingLayer : public Layer {
 public:
  bool supportsMasking() const override { return true; }
  using Layer::Layer;
  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    return in;
  }
};

class Activation : public ShapePreservingLayer {
 public:
  explicit Activation(const Json& args) : ShapePreservingLayer(args, "activation") {
    ArgReader r(this->args(), "Activation '" + name() + "'");
    r.allowOnly({"activation"});
    if (!r.has("activation")) r.fail("activation", "is required");
    activation_ = r.activation("activation");
  }
  std::string className() const override { return "Activation"; }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    if (wantsLogits(args, this) && activations::canonicalName(activation_) == "softmax")
      return {in[0]};
    return {activations::apply(activation_, in[0])};
  }
  Json getConfig() const override {
    Json c = Layer::getConfig();
    c["activation"] = activations::serializedName(activation_);
    return c;
  }

 private:
  std::string activation_;
};

class Dropout : public ShapePreservingLayer {
 public:
  explicit Dropout(const Json& args) : ShapePreservingLayer(args, "dropout") {
    ArgReader r(this->args(), "Dropout '" + name() + "'");
    r.allowOnly({"rate", "noise_shape", "seed"});
    rate_ = r.number("rate", -1);
    if (!(rate_ >= 0 && rate_ < 1))
      r.fail("rate", "must be in [0, 1), got " + std::to_string(rate_));
    noiseShape_ = r.ints("noise_shape", {});
    if (r.has("seed")) seed_ = static_cast<uint64_t>(r.integer("seed"));
  }
  std::string className() const override { return "Dropout"; }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs& args) override {
    if (!args.training || rate_ == 0) return in;
    Shape noise = noiseShape_;
    for (size_t i = 0; i < noise.size() && i < in[0].shape().size(); ++i)
      if (noise[i] < 0) noise[i] = in[0].shape()[i];
    std::optional<uint64_t> seed;
    if (seed_) seed = *seed_ + calls_++;  // a fixed seed still gives a new mask per call
    return {glint::dropout(in[0], static_cast<float>(rate_), seed, noise)};
  }
  Json getConfig() const override {
    Json c = Layer::getConfig();
    c["rate"] = rate_;
    c["noise_shape"] = noiseShape_.empty() ? Json(nullptr) : shapeJson(noiseShape_);
    c["seed"] = seed_ ? Json(*seed_) : Json(nullptr);
    return c;
  }

 private:
  double rate_ = 0;
  Shape noiseShape_;
  std::optional<uint64_t> seed_;
  uint64_t calls_ = 0;
};

class Flatten : public Layer {
 public:
  explicit Flatten(const Json& args) : Layer(args, "flatten") {
    ArgReader(this->args(), "Flatten").allowOnly({"data_format"});
  }
  std::string className() const override { return "Flatten"; }
  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    if (in[0].size() < 2) error("needs inputs of rank >= 2, got " + shapeToString(in[0]));
    int64_t n = 1;
    for (size_t i = 1; i < in[0].size(); ++i) {
      if (in[0][i] < 0) error("needs known non-batch dimensions, got " + shapeToString(in[0]));
      n *= in[0][i];
    }
    return {Shape{in[0][0], n}};
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    // Features from the non-batch dimensions, not size / batch: a batch of
    // zero samples ([0, 6, 6, 2]) still has 72 features per sample.
    int64_t features = 1;
    for (int i = 1; i < in[0].rank(); ++i) features *= in[0].dim(i);
    return {glint::reshape(in[0], {in[0].dim(0), features})};
  }
};

class Reshape : public Layer {
 public:
  explicit Reshape(const Json& args) : Layer(args, "reshape") {
    ArgReader r(this->args(), "Reshape '" + name() + "'");
    r.allowOnly({"target_shape"});
    target_ = r.ints("target_shape");
    if (std::count(target_.begin(), target_.end(), -1) > 1)
      r.fail("target_shape", "may contain at most one -1 (null), got " + shapeToString(target_));
  }
  std::string className() const override { return "Reshape"; }
  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    int64_t have = 1;
    for (size_t i = 1; i < in[0].size(); ++i) have *= in[0][i];
    int64_t known = 1;
    Shape out = target_;
    for (int64_t d : target_)
      if (d >= 0) known *= d;
    auto unknown = std::find(out.begin(), out.end(), -1);
    if (have >= 0 && unknown != out.end()) {
      if (known == 0 || have % known != 0)
        error("cannot reshape " + shapeToString(in[0]) + " into " + shapeToString(target_));
      *unknown = have / known;
    } else if (have >= 0 && known != have) {
      error("cannot reshape " + shapeToString(in[0]) + " (" + std::to_string(have) +
            " values per sample) into " + shapeToString(target_) + " (" + std::to_string(known) +
            ")");
    }
    out.insert(out.begin(), in[0][0]);
    return {out};
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    Shape s = target_;
    s.insert(s.begin(), in[0].dim(0));
    return {glint::reshape(in[0], s)};
  }
  Json getConfig() const override {
    Json c = Layer::getConfig();
    c["target_shape"] = shapeJson(target_);
    return c;
  }

 private:
  Shape target_;
};

class Permute : public Layer {
 public:
  explicit Permute(const Json& args) : Layer(args, "permute") {
    ArgReader r(this->args(), "Permute '" + name() + "'");
    r.allowOnly({"dims"});
    dims_ = r.ints("dims");  // 1-based, excluding the batch
    std::vector<int64_t> sorted = dims_;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i)
      if (sorted[i] != static_cast<int64_t>(i) + 1)
        r.fail("dims", "must be a permutation of 1..n (the batch axis is not included), got " +
                           shapeToString(dims_));
  }
  std::string className() const override { return "Permute"; }
  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    if (in[0].size() != dims_.size() + 1)
      error("dims " + shapeToString(dims_) + " need inputs of rank " +
            std::to_string(dims_.size() + 1) + ", got " + shapeToString(in[0]));
    Shape out{in[0][0]};
    for (int64_t d : dims_) out.push_back(in[0][d]);
    return {out};
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    std::vector<int64_t> perm{0};
    perm.insert(perm.end(), dims_.begin(), dims_.end());
    return {transpose(in[0], perm)};
  }
  Json getConfig() const override {
    Json c = Layer::getConfig();
    c["dims"] = dims_;
    return c;
  }

 private:
  std::vector<int64_t> dims_;
};

/// For Embedding, input_dim is the vocabulary size, not the input shape (as
/// it is for other layers), and input_length gives the input shape.
Json embeddingBaseArgs(const Json& args) {
  Json a = normalizeArgKeys(args);
  a.erase("input_dim");
  if (a.contains("input_length") && !a["input_length"].is_null() &&
      !a.contains("batch_input_shape") && !a.contains("input_shape"))
    a["input_shape"] = Json::array({a["input_length"]});
  return a;
}

class Embedding : public Layer {
 public:
  explicit Embedding(const Json& args) : Layer(embeddingBaseArgs(args), "embedding") {
    Json full = normalizeArgKeys(args);
    ArgReader r(full, "Embedding");
    r.allowOnly({"output_dim", "embeddings_initializer", "embeddings_regularizer",
                 "activity_regularizer", "embeddings_constraint", "mask_zero"});
    inputDimArg_ = r.integer("input_dim");
    outputDim_ = r.integer("output_dim");
    if (inputDimArg_ <= 0) r.fail("input_dim", "must be positive");
    if (outputDim_ <= 0) r.fail("output_dim", "must be positive");
    init_ = r.initializer("embeddings_initializer", "randomUniform");
    reg_ = r.regularizer("embeddings_regularizer");
    constraint_ = r.constraint("embeddings_constraint");
    maskZero_ = r.boolean("mask_zero", false);
    if (r.has("input_length")) inputLength_ = r.integer("input_length");
  }
  std::string className() const override { return "Embedding"; }
  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    Shape out = in[0];
    out.push_back(outputDim_);
    return {out};
  }
  void build(const std::vector<Shape>&) override {
    embeddings_ =
        addWeight("embeddings", {inputDimArg_, outputDim_}, init_, reg_, true, constraint_);
  }
  /// maskZero: id 0 is padding, so its steps are masked out.
  std::vector<Tensor> computeMask(const std::vector<Tensor>& in,
                                  const std::vector<Tensor>&) const override {
    if (!maskZero_) return {};
    return {notEqual(in[0], zeros({}, in[0].dtype()))};
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    Tensor ids = in[0].dtype() == DType::int32 ? in[0] : cast(in[0], DType::int32);
    return {gather(embeddings_, ids, 0)};
  }
  Json getConfig() const override {
    Json c = Layer::getConfig();
    c["input_dim"] = inputDimArg_;
    c["output_dim"] = outputDim_;
    c["embeddings_initializer"] = serializeObject(init_);
    c["embeddings_regularizer"] = serializeObject(reg_);
    c["activity_regularizer"] = nullptr;
    c["embeddings_constraint"] = serializeObject(constraint_);
    c["mask_zero"] = maskZero_;
    c["input_length"] = inputLength_ ? Json(*inputLength_) : Json(nullptr);
    return c;
  }

 private:
  int64_t inputDimArg_ = 0, outputDim_ = 0;
  std::optional<int64_t> inputLength_;
  bool maskZero_ = false;
  std::shared_ptr<Initializer> init_;
  std::shared_ptr<Regularizer> reg_;
  std::shared_ptr<Constraint> constraint_;
  Variable embeddings_;
};

}  // namespace

SymbolicTensorPtr input(const Config& args) {
  Json a = normalizeArgKeys(args);
  if (a.contains("shape")) {
    Json batchShape = Json::array({nullptr});
    for (const auto& d : a["shape"]) batchShape.push_back(d);
    a.erase("shape");
    a["batch_input_shape"] = batchShape;
  } else if (a.contains("batch_shape")) {
    a["batch_input_shape"] = a["batch_shape"];
    a.erase("batch_shape");
  }
  auto layer = std::make_shared<InputLayer>(a);
  auto node = std::make_shared<Node>();
  node->layer = layer;
  auto t = std::make_shared<SymbolicTensor>();
  t->shape = *layer->batchInputShape();
  t->dtype = layer->dtype();
  t->node = node;
  t->name = layer->name();
  node->outputs.push_back(t);
  return t;
}

namespace layers {

LayerPtr inputLayer(const Config& args) { return std::make_shared<InputLayer>(args); }
LayerPtr dense(const Config& args) { return std::make_shared<Dense>(args); }
LayerPtr activation(const Config& args) { return std::make_shared<Activation>(args); }
LayerPtr dropout(const Config& args) { return std::make_shared<Dropout>(args); }
LayerPtr flatten(const Config& args) { return std::make_shared<Flatten>(args); }
LayerPtr reshape(const Config& args) { return std::make_shared<Reshape>(args); }
LayerPtr permute(const Config& args) { return std::make_shared<Permute>(args); }
LayerPtr embedding(const Config& args) { return std::make_shared<Embedding>(args); }

void registerCoreLayers() {
  GLINT_REGISTER_LAYER(registerLayerClass, "InputLayer", inputLayer);
  GLINT_REGISTER_LAYER(registerLayerClass, "Dense", dense);
  GLINT_REGISTER_LAYER(registerLayerClass, "Activation", activation);
  GLINT_REGISTER_LAYER(registerLayerClass, "Dropout", dropout);
  GLINT_REGISTER_LAYER(registerLayerClass, "Flatten", flatten);
  GLINT_REGISTER_LAYER(registerLayerClass, "Reshape", reshape);
  GLINT_REGISTER_LAYER(registerLayerClass, "Permute", permute);
  GLINT_REGISTER_LAYER(registerLayerClass, "Embedding", embedding);
  GLINT_REGISTER_LAYER(registerLayerClass, "RepeatVector", repeatVector);  // repeat_vector.cpp
}

}  // namespace layers
}  // namespace glint
