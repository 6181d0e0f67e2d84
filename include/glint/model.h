#pragma once
// Models: a functional graph of layers (Model) or a stack (Sequential), with
// Keras-style compile / fit / evaluate / predict.
//
//   auto model = sequential();
//   model->add(layers::dense({{"units", 128}, {"activation", "relu"}, {"inputShape", {784}}}));
//   model->add(layers::dense({{"units", 10}, {"activation", "softmax"}}));
//   model->compile({.optimizer = "adam", .loss = {"categoricalCrossentropy"}, .metrics = {"accuracy"}});
//   History h = model->fit(x, y, {.epochs = 5, .batchSize = 64, .validationSplit = 0.2f});
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "glint/config.h"
#include "glint/engine.h"
#include "glint/error.h"
#include "glint/json_fwd.h"
#include "glint/layers.h"

namespace glint {

class Optimizer;
class Model;
namespace data {
class Dataset;
}
namespace detail {
struct FitRunState;  // FitRun's (glint/fit_run.h)
}

/// Values reported to callbacks: "loss", "acc", "val_loss", ... (Keras names).
using Logs = std::map<std::string, double>;

class Callback {
 public:
  virtual ~Callback() = default;
  virtual void onTrainBegin(const Logs&) {}
  virtual void onTrainEnd(const Logs&) {}
  virtual void onEpochBegin(int /*epoch*/, const Logs&) {}
  virtual void onEpochEnd(int /*epoch*/, const Logs&) {}
  virtual void onBatchBegin(int /*batch*/, const Logs&) {}
  virtual void onBatchEnd(int /*batch*/, const Logs&) {}
  /// Set by fit before onTrainBegin.
  Model* model = nullptr;
};
using CallbackPtr = std::shared_ptr<Callback>;

/// A callback from lambdas (any may be empty).
struct LambdaCallbackFns {
  std::function<void(const Logs&)> onTrainBegin, onTrainEnd;
  std::function<void(int, const Logs&)> onEpochBegin, onEpochEnd, onBatchBegin, onBatchEnd;
};
CallbackPtr lambdaCallback(LambdaCallbackFns fns);

struct EarlyStoppingOptions {
  std::string monitor = "val_loss";
  double minDelta = 0;
  int patience = 0;
  std::string mode = "auto";  // "min", "max", or from the monitor's name
  /// Improvement is counted from here (the first epoch must beat it).
  std::optional<double> baseline{};
  /// At the stop, the weights of the best epoch go back into the model.
  bool restoreBestWeights = false;
  /// A monitor missing from an epoch's logs: an error, or (TF.js) a warning
  /// on stderr and nothing watched that epoch.
  bool warnIfMissing = false;
};

/// TF.js's EarlyStopping (glint-ml's tf.callbacks.earlyStopping is this
/// one): stops once `monitor` has not improved by more than minDelta for
/// `patience` epochs.
class EarlyStopping : public Callback {
 public:
  explicit EarlyStopping(EarlyStoppingOptions options);
  void onTrainBegin(const Logs&) override;
  void onEpochEnd(int epoch, const Logs& logs) override;
  /// The epoch training stopped after (0 when it did not stop), the epochs
  /// waited without improvement, and the best value seen.
  int stoppedEpoch() const { return stoppedEpoch_; }
  int wait() const { return wait_; }
  double best() const { return best_; }

 private:
  bool improves(double value, double reference) const;
  EarlyStoppingOptions o_;
  bool maximize_ = false;
  int wait_ = 0, stoppedEpoch_ = 0;
  double best_ = 0;
  std::vector<Tensor> bestWeights_;
};
std::shared_ptr<EarlyStopping> earlyStopping(EarlyStoppingOptions options = {});

/// Per-epoch values by log name. Reading one by name (`h.history["val_accuracy"]`)
/// accepts Keras's names and TF.js's ("accuracy" and "acc", "val_accuracy"
/// and "val_acc", "mse" and "meanSquaredError") and throws glint::Error
/// listing the known names for an unknown one, where std::map's operator[]
/// would add an empty series. at(), find() and iteration are std::map's.
class HistoryLogs : public std::map<std::string, std::vector<double>> {
 public:
  using std::map<std::string, std::vector<double>>::map;
  const std::vector<double>& operator[](const std::string& name) const;
};

struct History {
  std::vector<int> epoch;
  HistoryLogs history;  // "loss", "acc", "val_loss", ... as TF.js logs them
  /// history[name]: Keras or TF.js names; throws for unknown ones.
  const std::vector<double>& get(const std::string& name) const { return history[name]; }
};

/// Loss: a name ("categoricalCrossentropy", "mse", ...) or a function of
/// (yTrue, yPred) giving per-sample losses.
using LossSpec = std::variant<std::string, std::function<Tensor(const Tensor&, const Tensor&)>>;

struct CompileOptions {
  /// "adam", "sgd", ... with default settings, or an optimizer object.
  std::variant<std::string, std::shared_ptr<Optimizer>> optimizer = std::string("rmsprop");
  /// One per output, or one for all outputs.
  std::vector<LossSpec> loss{};
  /// Metric names ("accuracy", "mae", ...), applied to every output.
  std::vector<std::string> metrics{};
};

struct FitOptions {
  int epochs = 1;
  int batchSize = 32;
  bool shuffle = true;
  /// Fraction of the (unshuffled) end of x/y held out for validation.
  float validationSplit = 0;
  /// Explicit validation data: {x..., y...} as for evaluate.
  std::vector<Tensor> validationX{}, validationY{};
  /// Weights per class index, for single-output classification.
  std::map<int, float> classWeight{};
  int initialEpoch = 0;
  std::vector<CallbackPtr> callbacks{};
  /// 0 silent, 1 a progress bar per epoch on stderr, 2 one line per epoch.
  int verbose = 0;
  /// Seeds the per-epoch shuffles (default: the engine's generator).
  std::optional<uint64_t> seed{};
  /// While the backend is the engine's automatic guess (no setBackend) and
  /// more than one fast backend is available (calibrationCandidates()), fit
  /// first times a training step on the first batch on each and keeps the
  /// fastest (Model::calibrateBackend; backendInfo() says what it measured).
  bool calibrate = true;
};

/// Per-sample weights ([n] float32) from per-class weights, as TF.js's
/// standardizeWeights: class ids from [n] / [n, 1] labels, or the argMax of
/// one-hot [n, k] rows; every class present must have a weight. `op` names
/// the caller in errors.
Tensor classSampleWeights(const std::string& op, const Tensor& y,
                          const std::map<int, float>& classWeight);

struct FitDatasetOptions {
  int epochs = 1;
  /// Batches per epoch; default: until the dataset ends.
  std::optional<int64_t> batchesPerEpoch{};
  const data::Dataset* validationData = nullptr;
  int initialEpoch = 0;
  std::vector<CallbackPtr> callbacks{};
  int verbose = 0;
};

class Model : public Layer {
 public:
  /// A functional model from graph inputs to outputs.
  Model(const std::vector<SymbolicTensorPtr>& inputs, const std::vector<SymbolicTensorPtr>& outputs,
        const Config& args = Config::object());
  std::string className() const override { return "Model"; }

  // ---- Graph -----------------------------------------------------------
  const std::vector<SymbolicTensorPtr>& inputs() const { return inputs_; }
  const std::vector<SymbolicTensorPtr>& outputs() const { return outputs_; }
  /// Every layer once, in TF.js / Keras order (deepest from the outputs first,
  /// ties by discovery); a Sequential model leaves out the input layer add() made.
  const std::vector<LayerPtr>& layers() const { return layers_; }
  LayerPtr getLayer(const std::string& name) const;
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallArgs& args) override;
  std::vector<Shape> computeOutputShape(const std::vector<Shape>& inputShapes) const override;
  /// The Keras functional config: name, layers (with inbound_nodes), input_layers, output_layers.
  Json getConfig() const override;
  void setTrainable(bool trainable) override;
  /// The layers' weight penalties (each layer once).
  std::vector<Tensor> regularizationLosses() const override;
  void applyConstraints() override;
  /// The Keras-style table: layer (type), output shape, params, connected to;
  /// totals of trainable and non-trainable parameters.
  std::string summary(int lineLength = 98) const;

  // ---- Training ----------------------------------------------------------
  void compile(const CompileOptions& options);
  bool compiled() const;
  History fit(const Tensor& x, const Tensor& y, const FitOptions& options = {});
  History fit(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys,
              const FitOptions& options = {});
  /// Each dataset element is one batch: {x..., y...} (the inputs, then the targets).
  History fitDataset(const data::Dataset& dataset, const FitDatasetOptions& options = {});
  /// One optimizer step on this batch (layers in training mode); returns the
  /// loss before the step (mean per-sample loss summed over outputs, plus the
  /// weight penalties), "<output>_loss" per output when there are several, and
  /// the metrics ("acc" for "accuracy", as TF.js 4.22 logs it).
  Logs trainOnBatch(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys);
  /// The same with each sample's loss multiplied by sampleWeights ([n] float32,
  /// n = the batch's samples): fit's classWeight, batch by batch.
  Logs trainOnBatch(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys,
                    const Tensor& sampleWeights);
  /// Loss (with weight penalties, as Keras) and metrics over the data, batched;
  /// batch means weighted by batch size.
  Logs evaluate(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys, int batchSize = 32);
  Logs evaluate(const Tensor& x, const Tensor& y, int batchSize = 32);
  /// A step's or an evaluation's logged values, still on the device: one
  /// float32 vector [loss, ...metrics, ...device checks]. Read it whenever it
  /// suits (asynchronously where the backend cannot wait: WebGPU in node),
  /// then finishLogs turns the values into Logs (throwing a failed check).
  struct PendingLogs {
    Tensor values;
    std::vector<DeviceCheck> checks;
  };
  /// trainOnBatch without its read (sampleWeights may be undefined).
  PendingLogs startTrainOnBatch(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys,
                                const Tensor& sampleWeights = Tensor());
  /// evaluate without its read.
  PendingLogs startEvaluate(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys,
                            int batchSize = 32);
  /// The logs from `values` (read from p.values); disposes p.values.
  Logs finishLogs(PendingLogs& p, const std::vector<float>& values) const;
  /// Outputs for the inputs, computed batchSize samples at a time. Safe from
  /// several threads at once (they take turns); while fit runs on another
  /// thread it throws instead of waiting for the training to end.
  std::vector<Tensor> predict(const std::vector<Tensor>& xs, int batchSize = 32);
  Tensor predict(const Tensor& x, int batchSize = 32);
  /// Set from a callback (or another thread) to end fit after the current batch.
  std::atomic<bool> stopTraining{false};
  /// The compiled optimizer (null before compile).
  Optimizer* optimizer() const;
  /// Throws unless compiled.
  const CompileOptions& compileOptions() const;
  /// Names of the values trainOnBatch / evaluate report ("loss", "acc", ...).
  std::vector<std::string> metricsNames() const;
  /// Times a training step on this batch on each candidate backend
  /// (calibrateBackends) and makes the fastest active. The weights and the
  /// optimizer's state are put back afterwards: the steps taken to measure
  /// leave no trace but the random draws they made (dropout).
  Calibration calibrateBackend(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys,
                               const CalibrateOptions& options = {});
  /// The weights' and the optimizer's state, to put back with restoreTraining
  /// (cheap: tensors are immutable, so a snapshot shares their buffers).
  struct TrainingSnapshot {
    std::vector<Tensor> weights;
    std::vector<std::pair<std::string, Tensor>> optimizer;
  };
  TrainingSnapshot snapshotTraining() const;
  void restoreTraining(const TrainingSnapshot& snapshot);

 protected:
  /// For Sequential: an empty model whose graph is set later.
  explicit Model(const Config& args, const std::string& defaultNamePrefix);
  /// listInputLayers false leaves the input layers out of layers() (Sequential's own input).
  void initGraph(const std::vector<SymbolicTensorPtr>& inputs,
                 const std::vector<SymbolicTensorPtr>& outputs, bool listInputLayers = true);
  /// Back to no graph (a Sequential model whose layers were all popped).
  void clearGraph();
  std::vector<Variable> ownWeights(bool trainableOnes) const override;

 private:
  /// calibrateBackend without the call guard (fit holds it).
  Calibration calibrateSteps(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys,
                             const CalibrateOptions& options);
  struct Training;  // compiled state: optimizer, losses, metrics
  /// Calls from several threads on one model (docs/CPP.md, "Threads"): fit
  /// and trainOnBatch run alone, predict and evaluate one at a time.
  struct CallGuard;
  friend class ModelCall;
  friend struct detail::FitRunState;
  static std::shared_ptr<CallGuard> newCallGuard();
  std::shared_ptr<CallGuard> callGuard_ = newCallGuard();
  std::vector<SymbolicTensorPtr> inputs_, outputs_;
  std::vector<LayerPtr> layers_;
  std::vector<std::shared_ptr<Node>> nodes_;  // topological order
  std::shared_ptr<Training> training_;
};
using ModelPtr = std::shared_ptr<Model>;

class Sequential : public Model {
 public:
  explicit Sequential(const Config& args = Config::object());
  std::string className() const override { return "Sequential"; }
  /// Appends a layer; the first needs an input shape (inputShape in its args).
  void add(const LayerPtr& layer);
  /// Appends layers in order and builds the graph once: linear in their
  /// count, where add() one at a time rebuilds it per layer. All or nothing:
  /// when one cannot be added the model is left as it was.
  void add(const std::vector<LayerPtr>& layers);
  /// Removes the last layer.
  void pop();
  Json getConfig() const override;

 private:
  void append(const LayerPtr& layer, bool alreadyIn);
  void rebuild(const SymbolicTensorPtr& output);
  std::vector<LayerPtr> stack_;
  SymbolicTensorPtr tail_;   // the last layer's output (input_ when only an InputLayer)
  SymbolicTensorPtr input_;  // the graph input (an InputLayer's output)
  bool autoInput_ = false;   // input_ was created by add(), not added as a layer
};
using SequentialPtr = std::shared_ptr<Sequential>;

std::shared_ptr<Sequential> sequential(const Config& args = Config::object());
std::shared_ptr<Sequential> sequential(const std::vector<LayerPtr>& layers,
                                       const Config& args = Config::object());
ModelPtr model(const std::vector<SymbolicTensorPtr>& inputs,
               const std::vector<SymbolicTensorPtr>& outputs,
               const Config& args = Config::object());
/// Rebuilds a model from its Keras topology ({"class_name": "Sequential"|"Model", "config": ...}).
ModelPtr modelFromConfig(const Config& topology);

}  // namespace glint
