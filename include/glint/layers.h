#pragma once
// The Layers API, after Keras and TensorFlow.js.
//
// A layer is built from a JSON argument object (glint::Config) that uses the
// same names as the TF.js API, so C++ and JS read alike and a layer can be
// rebuilt from the Keras config stored in a model.json:
//
//   auto d = layers::dense({{"units", 10}, {"activation", "softmax"}});
//   Tensor y = d->apply(x);                      // eager
//   SymbolicTensorPtr out = d->apply(input);     // functional graph
//
// Argument keys may be camelCase (TF.js: "kernelInitializer", "inputShape")
// or snake_case (Keras configs: "kernel_initializer", "batch_input_shape");
// getConfig() writes the snake_case Keras form that TF.js reads and writes.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glint/config.h"
#include "glint/json_fwd.h"
#include "glint/tensor.h"

namespace glint {

class Initializer;
class Regularizer;
class Constraint;
class Layer;
struct Node;
using LayerPtr = std::shared_ptr<Layer>;

/// A placeholder in a functional graph: its shape (-1 = unknown, e.g. the
/// batch) and the node that produces it.
struct SymbolicTensor {
  Shape shape;
  DType dtype = DType::float32;
  std::shared_ptr<Node> node;  // producer: a layer call (an InputLayer for inputs)
  int tensorIndex = 0;         // which output of that call
  std::string name;
};
using SymbolicTensorPtr = std::shared_ptr<SymbolicTensor>;

/// One call of a layer in a functional graph. Owns its inputs, so a graph is
/// kept alive by its outputs and never forms a reference cycle.
struct Node {
  LayerPtr layer;
  std::vector<SymbolicTensorPtr> inputs;
  std::vector<std::weak_ptr<SymbolicTensor>> outputs;
  int index = 0;  // the n-th call of `layer`
  Config kwargs = Config::object();

  Node() = default;
  Node(const Node&) = default;
  Node& operator=(const Node&) = default;
  /// Releases the producers it alone keeps alive one after another: the
  /// default would recurse once per layer of a chain (a 10,000-layer model
  /// overflowed the stack when destroyed under ASan; wasm's stack is smaller).
  ~Node();
};

/// Arguments for Layer::call.
struct CallArgs {
  bool training = false;
  /// Softmax layers (Dense, Activation) listed here return their logits, the
  /// softmax's input, instead: fit takes a cross-entropy loss from them.
  std::vector<const Layer*> logitsFrom;
  /// Keras masks, one per input (undefined: none): bool [batch, time] for a
  /// sequence, marking the steps to use. A model passes each layer the masks
  /// its inputs' producers computed (see Layer::computeMask).
  std::vector<Tensor> masks;
};

class Layer : public std::enable_shared_from_this<Layer> {
 public:
  /// Reads the arguments every layer takes: name, trainable, inputShape /
  /// batchInputShape / batchSize, dtype. Unknown keys are an error (see
  /// LayerArgs in src/layers/layer_args.h).
  explicit Layer(const Config& args, const std::string& defaultNamePrefix);
  virtual ~Layer();
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  /// The Keras / TF.js class name ("Dense", "Conv2D", ...).
  virtual std::string className() const = 0;
  const std::string& name() const { return name_; }

  /// Creates the weights for these full input shapes (batch dimension -1).
  /// Called once, by the first apply(); layers without weights need not override.
  virtual void build(const std::vector<Shape>& inputShapes);
  bool built() const { return built_; }
  /// The forward computation on concrete tensors (already built).
  virtual std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallArgs& args) = 0;
  /// Output shapes for these input shapes (batch -1 stays -1); throws
  /// glint::Error naming the layer when the inputs are incompatible.
  virtual std::vector<Shape> computeOutputShape(const std::vector<Shape>& inputShapes) const = 0;
  /// The masks of this call's outputs (undefined: none) from its inputs and
  /// their masks. By default a layer that supportsMasking() passes its first
  /// input's mask on to its output unchanged, and any other layer drops it
  /// (as Keras 3 does). Layers that make masks (Masking, Embedding with
  /// maskZero) or change the time axis (recurrent layers) override it.
  virtual std::vector<Tensor> computeMask(const std::vector<Tensor>& inputs,
                                          const std::vector<Tensor>& masks) const;
  /// True for layers that keep the time steps where they were (Dense,
  /// Activation, Dropout, normalizations, ...): masks pass through them.
  virtual bool supportsMasking() const { return false; }
  /// The Keras config (snake_case keys), including name, trainable, dtype and
  /// batch_input_shape when one was given. An override needs glint/json.h.
  virtual Json getConfig() const;

  /// Eager: validates, builds on first use, calls, applies nothing else.
  Tensor apply(const Tensor& x, bool training = false);
  std::vector<Tensor> apply(const std::vector<Tensor>& xs, bool training = false);
  /// Functional: records a node and returns symbolic outputs.
  SymbolicTensorPtr apply(const SymbolicTensorPtr& x, const Config& kwargs = Config::object());
  std::vector<SymbolicTensorPtr> apply(const std::vector<SymbolicTensorPtr>& xs,
                                       const Config& kwargs = Config::object());

  /// Trainable weights first, then non-trainable (Keras order). A frozen
  /// layer (trainable false) reports all its weights as non-trainable.
  std::vector<Variable> weights() const;
  std::vector<Variable> trainableWeights() const;
  std::vector<Variable> nonTrainableWeights() const;
  /// Values of weights(), and replacing them (shapes must match; named errors).
  std::vector<Tensor> getWeights() const;
  void setWeights(const std::vector<Tensor>& values);
  int64_t countParams() const;

  virtual bool trainable() const { return trainable_; }
  virtual void setTrainable(bool trainable) { trainable_ = trainable; }

  /// Penalties of the weights' regularizers (scalars), added to the loss.
  virtual std::vector<Tensor> regularizationLosses() const;
  /// Projects weights with a constraint onto it (after each optimizer step).
  virtual void applyConstraints();

  /// Validates and builds for these input shapes unless already built; for
  /// layers that build the layers they wrap (Bidirectional, TimeDistributed).
  void ensureBuilt(const std::vector<Shape>& inputShapes);
  /// Weights created from now on are named "<prefix>/<weight>" instead of
  /// "<name>/<weight>": TF.js names a wrapped layer's weights after the wrapper.
  void setWeightNamePrefix(const std::string& prefix) { weightNamePrefix_ = prefix; }
  /// What this layer's weight names start with: the prefix set, else its name.
  const std::string& weightNamePrefix() const {
    return weightNamePrefix_.empty() ? name_ : weightNamePrefix_;
  }

  /// The input shape declared by inputShape/batchInputShape, batch -1. It
  /// shapes a model's input (the first layer of a Sequential model) and is
  /// otherwise ignored, as in TF.js: Keras 2 exports leave the model's input
  /// shape on inner layers, where it does not describe their input.
  const std::optional<Shape>& batchInputShape() const { return batchInputShape_; }
  /// Calls of this layer in functional graphs, in order.
  std::vector<std::shared_ptr<Node>> inboundNodes() const;
  /// Drops graph bookkeeping (used when a Sequential model rebuilds its graph).
  void clearInboundNodes() { inboundNodes_.clear(); }

 protected:
  /// Creates a weight named "<layer name>/<name>", initialised now.
  Variable addWeight(const std::string& name, const Shape& shape,
                     const std::shared_ptr<Initializer>& initializer,
                     const std::shared_ptr<Regularizer>& regularizer = nullptr,
                     bool trainable = true,
                     const std::shared_ptr<Constraint>& constraint = nullptr);
  /// For layers that own other layers (Bidirectional, TimeDistributed, Model).
  virtual std::vector<Variable> ownWeights(bool trainableOnes) const;
  /// The layer's arguments as given (normalized to snake_case keys).
  const Json& args() const { return args_.json(); }
  /// Throws "[<ClassName> '<name>'] <message>".
  [[noreturn]] void error(const std::string& message) const;
  std::string what() const;  // "Dense 'dense_1'"

  bool built_ = false;

 private:
  struct WeightEntry {
    Variable variable;
    bool trainable;
    std::shared_ptr<Regularizer> regularizer;
    std::shared_ptr<Constraint> constraint;
  };
  std::string name_;
  std::string weightNamePrefix_;  // empty: name_
  bool trainable_ = true;
  Config args_;
  std::optional<Shape> batchInputShape_;
  std::vector<WeightEntry> weights_;
  std::vector<std::weak_ptr<Node>> inboundNodes_;
};

/// A graph input: `input({{"shape", {28, 28, 1}}})` (shape without the
/// batch), or "batchShape" with it; optional "name", "dtype".
SymbolicTensorPtr input(const Config& args);

namespace layers {

// Core.
LayerPtr inputLayer(const Config& args);
LayerPtr dense(const Config& args);
LayerPtr activation(const Config& args);
LayerPtr dropout(const Config& args);
LayerPtr flatten(const Config& args = Config::object());
LayerPtr reshape(const Config& args);
LayerPtr permute(const Config& args);
LayerPtr embedding(const Config& args);
// Convolution and pooling (NHWC).
LayerPtr conv2d(const Config& args);
LayerPtr depthwiseConv2d(const Config& args);
LayerPtr separableConv2d(const Config& args);
LayerPtr conv2dTranspose(const Config& args);
LayerPtr maxPooling2d(const Config& args = Config::object());
LayerPtr averagePooling2d(const Config& args = Config::object());
LayerPtr globalAveragePooling2d(const Config& args = Config::object());
LayerPtr globalMaxPooling2d(const Config& args = Config::object());
LayerPtr zeroPadding2d(const Config& args = Config::object());
LayerPtr upSampling2d(const Config& args = Config::object());
// Convolution and pooling over steps (NWC) and volumes (NDHWC); cropping.
LayerPtr conv1d(const Config& args);  // padding also 'causal' (left-padded, Keras)
LayerPtr conv3d(const Config& args);
LayerPtr conv3dTranspose(const Config& args);
LayerPtr maxPooling1d(const Config& args = Config::object());
LayerPtr averagePooling1d(const Config& args = Config::object());
LayerPtr maxPooling3d(const Config& args = Config::object());
LayerPtr averagePooling3d(const Config& args = Config::object());
LayerPtr globalMaxPooling1d(const Config& args = Config::object());
LayerPtr globalAveragePooling1d(const Config& args = Config::object());
LayerPtr cropping2d(const Config& args = Config::object());
// Normalization.
LayerPtr batchNormalization(const Config& args = Config::object());
LayerPtr layerNormalization(const Config& args = Config::object());
// Recurrent (returnSequences, returnState, goBackwards; stateful is not supported).
LayerPtr simpleRNN(const Config& args);
LayerPtr lstm(const Config& args);
LayerPtr gru(const Config& args);
LayerPtr bidirectional(
    const Config& args);  // {"layer": LayerPtr-config or class/config, "mergeMode": "concat"}
LayerPtr bidirectional(const LayerPtr& layer, const Config& args = Config::object());
LayerPtr timeDistributed(const LayerPtr& layer, const Config& args = Config::object());
// The generic RNN over a cell ({"cell": {"class_name": "LSTMCell", "config":
// {...}}} or a list of cells, stacked), as TF.js's tf.layers.rnn; the cells
// take their layer's arguments without the sequence ones.
LayerPtr rnn(const Config& args);
LayerPtr rnn(const LayerPtr& cell, const Config& args = Config::object());
LayerPtr simpleRNNCell(const Config& args);
LayerPtr lstmCell(const Config& args);
LayerPtr gruCell(const Config& args);
LayerPtr stackedRNNCells(const std::vector<LayerPtr>& cells, const Config& args = Config::object());
// ConvLSTM2D over [batch, time, rows, cols, channels] (channelsLast): {"filters",
// "kernelSize", "strides", "padding", "dilationRate", "returnSequences", ...}.
LayerPtr convLstm2d(const Config& args);
LayerPtr convLstm2dCell(const Config& args);
// Masks: {"maskValue": 0}; steps whose features all equal it are skipped by
// the recurrent layers after it (Embedding's maskZero does the same for id 0).
LayerPtr masking(const Config& args = Config::object());
// Merging.
LayerPtr add(const Config& args = Config::object());
LayerPtr multiply(const Config& args = Config::object());
LayerPtr concatenate(const Config& args = Config::object());
LayerPtr average(const Config& args = Config::object());
LayerPtr maximum(const Config& args = Config::object());
LayerPtr minimum(const Config& args = Config::object());
LayerPtr subtract(const Config& args = Config::object());  // Keras only: exactly 2 inputs, a - b
LayerPtr dot(const Config& args);  // {"axes": 1 or [1, 2], "normalize": false}
// Activations with arguments.
LayerPtr reLU(const Config& args = Config::object());       // maxValue, negativeSlope, threshold
LayerPtr leakyReLU(const Config& args = Config::object());  // alpha (0.3)
LayerPtr prelu(const Config& args = Config::object());      // alphaInitializer, sharedAxes, ...
LayerPtr elu(const Config& args = Config::object());        // alpha (1)
LayerPtr thresholdedReLU(const Config& args = Config::object());  // theta (1)
LayerPtr softmax(
    const Config& args = Config::object());  // axis (TF.js default 1) or a list of axes
// Reshaping.
LayerPtr repeatVector(const Config& args);  // n
// Noise: active only in training (apply(x, true)); seedable like dropout.
LayerPtr gaussianNoise(const Config& args);     // stddev
LayerPtr gaussianDropout(const Config& args);   // rate
LayerPtr alphaDropout(const Config& args);      // rate, noiseShape
LayerPtr spatialDropout1d(const Config& args);  // rate; inputs [batch, steps, channels]
// Preprocessing.
LayerPtr rescaling(const Config& args);    // scale, offset
LayerPtr centerCrop(const Config& args);   // height, width (NHWC)
LayerPtr resizing(const Config& args);     // height, width, interpolation, cropToAspectRatio (NHWC)
LayerPtr randomWidth(const Config& args);  // factor, interpolation; training only (NHWC)
LayerPtr categoryEncoding(const Config& args);  // numTokens, outputMode oneHot/multiHot/count

/// Builds a layer from its Keras class name and config (model.json).
LayerPtr fromConfig(const std::string& className, const Config& config);
/// Class names fromConfig knows.
std::vector<std::string> knownClassNames();

using LayerFactory = std::function<LayerPtr(const Config& config)>;
/// Adds a layer class to fromConfig (each layer family registers its own).
void registerLayerClass(const std::string& className, LayerFactory factory);

}  // namespace layers
}  // namespace glint
