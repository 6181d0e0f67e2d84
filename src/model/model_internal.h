#pragma once
// Internal to src/model: the compiled training state and shared helpers.
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "glint/losses.h"
#include "glint/metrics.h"
#include "glint/model.h"
#include "glint/optim.h"

namespace glint {

/// Model::CallGuard: one model used from several threads. Training (fit,
/// fitDataset, trainOnBatch) is exclusive and refuses a second trainer; predict
/// and evaluate wait their turn but refuse to wait out another thread's fit.
/// The same thread may nest calls (a callback's predict inside fit).
struct Model::CallGuard {
  std::recursive_mutex mutex;
  std::atomic<std::thread::id> trainer{};  // the thread inside fit / trainOnBatch
};

/// Holds a model's CallGuard for one public call.
class ModelCall {
 public:
  enum Kind { kTrain, kUse };
  ModelCall(Model::CallGuard& guard, const std::string& op, const std::string& model, Kind kind);
  ~ModelCall();
  ModelCall(const ModelCall&) = delete;
  ModelCall& operator=(const ModelCall&) = delete;

 private:
  Model::CallGuard& guard_;
  bool ownsTrainer_ = false;
};

/// What compile() sets up. Its static functions are the training machinery
/// (a nested class, so they may use the model's graph).
struct Model::Training {
  CompileOptions options;
  std::shared_ptr<Optimizer> optimizer;
  std::vector<losses::LossFn> losses;  // per output
  /// Per output: true when its loss takes logits. compile sets it for a
  /// softmax Dense/Activation output trained with (sparse) categorical
  /// cross-entropy: one fused kernel, stable at any logit size, and the same
  /// value as from the probabilities. Metrics still see probabilities.
  std::vector<bool> fromLogits;
  /// Those outputs' layers, asked for their logits in training and evaluation.
  std::vector<const Layer*> logitsFrom;
  struct Metric {
    std::string name;  // as logged: "acc", "mse", "<output>_acc" with several outputs
    size_t output = 0;
    metrics::MetricFn fn;
  };
  std::vector<Metric> metrics;
  std::vector<std::string> outputNames;
  std::vector<std::string> names;  // "loss", "<output>_loss"..., metric names

  /// One batch of training data, optionally with per-sample weights [batch].
  struct Batch {
    std::vector<Tensor> xs, ys;
    Tensor sampleWeights;
  };
  /// Turns the outputs that came as logits into probabilities (when there
  /// are metrics to see them).
  void toProbabilities(std::vector<Tensor>& outputs) const;
  /// The compiled state; throws "[op] ... call compile() first" before compile.
  static Training& of(const Model& m, const std::string& op);
  /// Checks counts, definedness, shapes against the model's inputs and equal
  /// batch sizes (ys null: inputs only); returns the batch size. xName and
  /// yName name the arguments in errors ("x", "validationX").
  static int64_t checkData(const Model& m, const std::string& op, const std::vector<Tensor>& xs,
                           const std::vector<Tensor>* ys, const std::string& xName,
                           const std::string& yName);
  /// One optimizer step; its logged values (loss, per-output losses, metrics) left on the device.
  static PendingLogs startStep(Model& m, const Batch& batch);
  /// Loss and metrics for one batch in inference mode (batch means), on the device.
  static Tensor testBatch(Model& m, const std::vector<Tensor>& xs, const std::vector<Tensor>& ys);
  /// Loss and metrics summed over batches on the device (means weighted by
  /// batch size), read once at the end.
  class EvalSums {
   public:
    explicit EvalSums(Model& m);
    ~EvalSums();
    EvalSums(const EvalSums&) = delete;
    EvalSums& operator=(const EvalSums&) = delete;
    void add(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys);
    int64_t seen() const { return seen_; }
    /// The means (NaN with no batch) and the batches' device checks.
    PendingLogs finish();

   private:
    Model& m_;
    Tensor sums_;
    int64_t seen_ = 0;
    std::vector<DeviceCheck> checks_;
  };
  static PendingLogs startEvaluateBatches(Model& m, const std::function<bool(Batch&)>& next);
  /// Batches of batchSize rows, in order, from already checked data.
  static Logs evaluateAll(Model& m, const std::vector<Tensor>& xs, const std::vector<Tensor>& ys,
                          int batchSize);
  static PendingLogs startEvaluateAll(Model& m, const std::vector<Tensor>& xs,
                                      const std::vector<Tensor>& ys, int batchSize);
  /// Reads p's values (a blocking read) and finishes them.
  static Logs read(const Model& m, PendingLogs p);
};

namespace model_internal {

/// Rows [start, start + size) of each tensor (the tensor itself when that is all of it).
std::vector<Tensor> rows(const std::vector<Tensor>& ts, int64_t start, int64_t size);

/// A node's index among its layer's calls that belong to the model (what
/// configs and summaries call "node index").
int nodeIndexInModel(const Node& node, const std::unordered_set<const Node*>& modelNodes);

/// Keras-style progress on stderr: verbose 1 a bar per epoch, 2 a line per epoch.
CallbackPtr progressLogger(int verbose, int epochs, std::optional<int64_t> stepsPerEpoch);

/// "loss: 0.1234 - acc: 0.9000 - val_loss: ..." (loss first, val_ last; batch/size left out).
std::string formatLogs(const Logs& logs);

}  // namespace model_internal
}  // namespace glint
