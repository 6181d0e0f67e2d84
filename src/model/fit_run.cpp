// The epoch loop (glint/fit_run.h) as a state machine: next() runs until the
// next event a driver may act on, so that Model::fit runs it to the end and
// glint-ml's fit awaits reads and yields to the page between events.
#include "glint/fit_run.h"

#include <cmath>
#include <numeric>
#include <random>

#include "glint/engine.h"
#include "glint/error.h"
#include "glint/ops.h"
#include "src/model/model_internal.h"

namespace glint {

namespace {

std::vector<Tensor> gatherRows(const std::vector<Tensor>& ts, const Tensor& indices) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(gather(t, indices, 0));
  return out;
}

const char* eventName(FitRun::Event e) {
  switch (e) {
    case FitRun::Event::kTrainBegin:
      return "trainBegin";
    case FitRun::Event::kEpochBegin:
      return "epochBegin";
    case FitRun::Event::kBatchBegin:
      return "batchBegin";
    case FitRun::Event::kNeedBatch:
      return "needBatch";
    case FitRun::Event::kValidationBatch:
      return "validationBatch";
    case FitRun::Event::kRead:
      return "read";
    case FitRun::Event::kBatchEnd:
      return "batchEnd";
    case FitRun::Event::kBatchSkipped:
      return "batchSkipped";
    case FitRun::Event::kEpochEnd:
      return "epochEnd";
    case FitRun::Event::kTrainEnd:
      return "trainEnd";
    case FitRun::Event::kDone:
      return "done";
  }
  return "?";
}

}  // namespace

namespace detail {

using Event = FitRun::Event;

struct FitRunState {
  using Batch = Model::Training::Batch;
  static int64_t checkData(const Model& m, const std::string& op, const std::vector<Tensor>& xs,
                           const std::vector<Tensor>& ys, const std::string& xName,
                           const std::string& yName) {
    return Model::Training::checkData(m, op, xs, &ys, xName, yName);
  }

  // Where the loop is: each phase runs until it returns an event.
  enum class Phase {
    kStart,
    kEpochStart,
    kNextBatch,
    kAwaitBatch,
    kBatchReady,
    kStep,
    kAwaitRead,
    kAfterRead,
    kBatchDone,
    kEpochFinish,
    kValidateNext,
    kAwaitValidationRead,
    kEpochEnd,
    kNextEpoch,
    kTrainEnd,
    kDone,
    kFailed,
  };

  FitRunState(Model& model, std::string opName) : m(model), op(std::move(opName)) {
    guard = std::make_unique<ModelCall>(*m.callGuard_, op, m.name(), ModelCall::kTrain);
    Model::Training::of(m, op);
  }
  ~FitRunState() { release(); }

  Model& m;
  std::string op;
  std::unique_ptr<ModelCall> guard;
  int epochs = 1, initialEpoch = 0;
  std::vector<CallbackPtr> callbacks;
  std::optional<int64_t> steps;
  int64_t samples = 0;

  // fit: the data, its order and the validation tensors.
  bool fromTensors = false;
  std::vector<Tensor> trainX, trainY, valX, valY;
  Tensor weights;
  bool shuffle = true;
  int64_t batchSize = 32;
  std::optional<uint64_t> seed;
  std::mt19937_64 rng;
  std::vector<int32_t> order;
  int64_t start = 0;
  bool slicedValidation = false;
  int64_t valStart = 0;
  // fitDataset: batches fed by the driver.
  std::optional<int64_t> batchesPerEpoch;
  bool datasetValidation = false;
  int64_t stepInEpoch = 0;
  bool fedEnd = false;  // the driver has no more validation batches

  Phase phase = Phase::kStart;
  Event event = Event::kDone;
  bool validating = false;
  int epoch = 0, batch = 0;
  bool cut = false;
  int lostSteps = 0, deviceLosses = 0;
  std::map<std::string, double> sums;
  int64_t seen = 0;
  Logs logs, stepLogs, epochLogs, last;
  Batch b;
  Model::PendingLogs pending;
  std::optional<Model::Training::EvalSums> val;
  // The divergence guard: views of the weights (variables swap buffers on
  // assign, so a view keeps a step's values without a copy) at which the loss
  // was last finite, and those the current step starts from.
  std::vector<Tensor> lastFinite, before;
  History history;

  std::string where() const {
    return op + " (" + (phase == Phase::kStart ? "not started" : eventName(event)) + ")";
  }

  void release() {
    dispose(lastFinite);
    dispose(before);
    lastFinite.clear();
    before.clear();
    if (pending.values.defined() && !pending.values.isDisposed()) pending.values.dispose();
    for (DeviceCheck& c : pending.checks)
      if (c.failures.defined() && !c.failures.isDisposed()) c.failures.dispose();
    pending = Model::PendingLogs{};
    val.reset();
    guard.reset();
  }

  std::vector<Tensor> weightViews() const {
    std::vector<Tensor> out;
    for (const Tensor& w : m.getWeights()) out.push_back(reshape(w, w.shape()));
    return out;
  }

  void fire(const std::function<void(Callback&)>& f) {
    for (const auto& c : callbacks) f(*c);
  }

  void startEpoch() {
    start = 0;
    stepInEpoch = 0;
    if (!fromTensors || !shuffle) return;
    for (size_t i = order.size(); i > 1; --i) {  // Fisher-Yates
      uint64_t r = seed ? rng() : randomBits();
      std::swap(order[i - 1], order[r % i]);
    }
  }

  /// fit's next batch; false when the epoch's data is done.
  bool nextFromTensors() {
    const int64_t n = trainX[0].dim(0);
    if (start >= n) return false;
    const int64_t size = std::min(batchSize, n - start), first = start;
    start += size;  // first: a batch lost while gathered is skipped, not retried
    b = Batch{};
    if (shuffle) {
      Tensor idx = tensorInt(
          std::vector<int32_t>(order.begin() + first, order.begin() + first + size), {size});
      b.xs = gatherRows(trainX, idx);
      b.ys = gatherRows(trainY, idx);
      if (weights.defined()) b.sampleWeights = gather(weights, idx, 0);
      idx.dispose();
    } else {
      b.xs = model_internal::rows(trainX, first, size);
      b.ys = model_internal::rows(trainY, first, size);
      if (weights.defined()) b.sampleWeights = model_internal::rows({weights}, first, size)[0];
    }
    return true;
  }

  bool hasValidation() const { return fromTensors ? !valX.empty() : datasetValidation; }

  Event emit(Event e) {
    event = e;
    return e;
  }

  Event next() {
    check(phase != Phase::kFailed, op, "the run failed earlier; start a new one");
    check(phase != Phase::kAwaitRead && phase != Phase::kAwaitValidationRead, where(),
          "values wait to be read: call provide() or lost() first");
    check(phase != Phase::kAwaitBatch, where(),
          "a batch is wanted: call feed() or feedEnd() first");
    try {
      return advance();
    } catch (...) {
      phase = Phase::kFailed;
      release();
      throw;
    }
  }

  Event advance() {
    logs.clear();
    for (;;) {
      switch (phase) {
        case Phase::kStart:
          m.stopTraining = false;
          for (const auto& c : callbacks) c->model = &m;
          fire([](Callback& c) { c.onTrainBegin(Logs{}); });
          epoch = initialEpoch;
          phase = Phase::kEpochStart;
          return emit(Event::kTrainBegin);

        case Phase::kEpochStart:
          if (epoch >= epochs || m.stopTraining) {
            phase = Phase::kTrainEnd;
            continue;
          }
          fire([&](Callback& c) { c.onEpochBegin(epoch, Logs{}); });
          startEpoch();
          sums.clear();
          seen = 0;
          batch = 0;
          cut = false;
          lostSteps = 0;
          phase = Phase::kNextBatch;
          return emit(Event::kEpochBegin);

        case Phase::kNextBatch:
          if (batch > 0 && m.stopTraining) {
            cut = true;
            phase = Phase::kEpochFinish;
            continue;
          }
          if (fromTensors) {
            try {
              phase = nextFromTensors() ? Phase::kBatchReady : Phase::kEpochFinish;
            } catch (const DeviceLostError&) {
              return skipLostBatch();  // its rows are passed over
            }
            continue;
          }
          if (batchesPerEpoch && stepInEpoch >= *batchesPerEpoch) {
            phase = Phase::kEpochFinish;
            continue;
          }
          validating = false;
          phase = Phase::kAwaitBatch;
          return emit(Event::kNeedBatch);

        case Phase::kAwaitBatch:  // feed() / feedEnd() moved on from here
          break;

        case Phase::kBatchReady: {
          const int64_t size = b.xs[0].dim(0);
          logs = Logs{{"batch", batch}, {"size", static_cast<double>(size)}};
          fire([&](Callback& c) { c.onBatchBegin(batch, logs); });
          validating = false;
          phase = Phase::kStep;
          return emit(Event::kBatchBegin);
        }

        case Phase::kStep:
          try {
            dispose(before);
            before = weightViews();
            pending = Model::Training::startStep(m, b);
          } catch (const DeviceLostError&) {
            return skipLostBatch();
          }
          phase = Phase::kAwaitRead;
          return emit(Event::kRead);

        case Phase::kAwaitRead:  // provide() / lost() move on from here
          break;

        case Phase::kAfterRead: {
          const int64_t size = b.xs[0].dim(0);
          b = Batch{};
          logs = std::move(stepLogs);
          stepLogs.clear();
          if (auto loss = logs.find("loss"); loss != logs.end() && !std::isfinite(loss->second))
            diverged(loss->second);
          dispose(lastFinite);
          lastFinite = std::move(before);
          before.clear();
          for (const auto& [k, v] : logs) sums[k] += v * static_cast<double>(size);
          seen += size;
          logs["batch"] = batch;
          logs["size"] = static_cast<double>(size);
          fire([&](Callback& c) { c.onBatchEnd(batch, logs); });
          phase = Phase::kBatchDone;  // batch() stays this batch's until next()
          return emit(Event::kBatchEnd);
        }

        case Phase::kBatchDone:
          ++batch;
          ++stepInEpoch;
          phase = Phase::kNextBatch;
          continue;

        case Phase::kEpochFinish:
          if (batch == 0) {
            if (m.stopTraining) {  // fitDataset: the data ran out
              phase = Phase::kTrainEnd;
              continue;
            }
            fail(op, "epoch ", epoch, " has no training data");
          }
          epochLogs.clear();
          for (const auto& [k, v] : sums) epochLogs[k] = v / static_cast<double>(seen);
          if (hasValidation() && !cut) {
            val.emplace(m);
            valStart = 0;
            fedEnd = false;
            phase = Phase::kValidateNext;
          } else {
            phase = Phase::kEpochEnd;
          }
          continue;

        case Phase::kValidateNext:
          if (fromTensors) {
            const int64_t n = valX[0].dim(0);
            if (valStart < n) {
              const int64_t size = slicedValidation ? std::min(batchSize, n - valStart) : n;
              std::vector<Tensor> vx = model_internal::rows(valX, valStart, size);
              std::vector<Tensor> vy = model_internal::rows(valY, valStart, size);
              for (int64_t s = 0; s < size; s += batchSize) {
                const int64_t rows = std::min(batchSize, size - s);
                val->add(model_internal::rows(vx, s, rows), model_internal::rows(vy, s, rows));
              }
              valStart += size;
              validating = true;
              return emit(Event::kValidationBatch);
            }
          } else if (!fedEnd) {
            validating = true;
            phase = Phase::kAwaitBatch;
            return emit(Event::kNeedBatch);
          }
          pending = val->finish();
          val.reset();
          validating = true;
          phase = Phase::kAwaitValidationRead;
          return emit(Event::kRead);

        case Phase::kAwaitValidationRead:
          break;

        case Phase::kEpochEnd:
          history.epoch.push_back(epoch);
          for (const auto& [k, v] : epochLogs)
            history.history.try_emplace(k).first->second.push_back(v);  // operator[] only reads
          logs = epochLogs;
          fire([&](Callback& c) { c.onEpochEnd(epoch, epochLogs); });
          last = epochLogs;
          phase = Phase::kNextEpoch;  // epoch() stays this epoch's until next()
          return emit(Event::kEpochEnd);

        case Phase::kNextEpoch:
          ++epoch;
          phase = Phase::kEpochStart;
          continue;

        case Phase::kTrainEnd:
          logs = last;
          fire([&](Callback& c) { c.onTrainEnd(last); });
          release();
          phase = Phase::kDone;
          return emit(Event::kTrainEnd);

        case Phase::kDone:
          return emit(Event::kDone);

        case Phase::kFailed:
          break;
      }
      fail(where(), "internal: next() in a waiting phase");
    }
  }

  /// A lost device: the variables came back from their host snapshots, this
  /// batch's tensors did not. Skip it; give up if the next fails too.
  Event skipLostBatch() {
    b = Batch{};
    ++deviceLosses;
    if (++lostSteps > 1)
      throw DeviceLostError("[" + op +
                            "] the device was lost on two batches in a row; training stops");
    phase = Phase::kNextBatch;
    return emit(Event::kBatchSkipped);
  }

  void diverged(double loss) {
    // Put back the last weights whose loss was finite (the starting weights
    // when the first step already diverged), so a caller that saves the model
    // after catching this saves no NaN. Counted from 1, as the progress log.
    m.setWeights(lastFinite.empty() ? before : lastFinite);
    fail(op, "training diverged at epoch ", epoch + 1, "/", epochs, " batch ", batch + 1,
         ": loss is ",
         std::isnan(loss) ? "nan"
         : loss > 0       ? "inf"
                          : "-inf",
         lastFinite.empty() ? "; the weights are those from before training"
                            : "; the weights are those of the last finite step",
         " (lower the learning rate, or scale the inputs)");
  }

  void provide(const std::vector<float>& values) {
    check(phase == Phase::kAwaitRead || phase == Phase::kAwaitValidationRead, where(),
          "provide() without values waiting to be read");
    try {
      Logs read = m.finishLogs(pending, values);
      pending = Model::PendingLogs{};
      if (phase == Phase::kAwaitRead) {
        lostSteps = 0;
        stepLogs = std::move(read);
        phase = Phase::kAfterRead;
      } else {
        for (const auto& [k, v] : read) epochLogs["val_" + k] = v;
        phase = Phase::kEpochEnd;
      }
    } catch (...) {
      phase = Phase::kFailed;
      release();
      throw;
    }
  }

  void lost() {
    check(phase == Phase::kAwaitRead || phase == Phase::kAwaitValidationRead, where(),
          "lost() without values waiting to be read");
    const bool validation = phase == Phase::kAwaitValidationRead;
    if (pending.values.defined() && !pending.values.isDisposed()) pending.values.dispose();
    pending = Model::PendingLogs{};
    try {
      if (validation) throw DeviceLostError("[" + op + "] the device was lost during validation");
      dispose(before);
      before.clear();
      skipLostBatch();
      event = Event::kRead;  // lost() answers the read; next() goes on from there
    } catch (...) {
      phase = Phase::kFailed;
      release();
      throw;
    }
  }

  void feed(std::vector<Tensor> xs, std::vector<Tensor> ys, int64_t rows) {
    check(phase == Phase::kAwaitBatch, where(), "feed() without a batch wanted");
    try {
      const std::string what = validating ? op + " (validationData)" : op;
      Model::Training::checkData(m, what, xs, &ys, "x", "y");
      check(xs[0].dim(0) > 0, what, "a batch has no samples");
      if (validating) {
        const int64_t n = xs[0].dim(0), size = rows > 0 ? rows : n;
        for (int64_t s = 0; s < n; s += size) {
          const int64_t r = std::min(size, n - s);
          val->add(model_internal::rows(xs, s, r), model_internal::rows(ys, s, r));
        }
        phase = Phase::kValidateNext;
        return;
      }
      b = Batch{std::move(xs), std::move(ys), Tensor()};
      phase = Phase::kBatchReady;
    } catch (...) {
      phase = Phase::kFailed;
      release();
      throw;
    }
  }

  void feedEnd() {
    check(phase == Phase::kAwaitBatch, where(), "feedEnd() without a batch wanted");
    if (validating) {
      fedEnd = true;
      phase = Phase::kValidateNext;
      return;
    }
    // With batchesPerEpoch, the data running out ends training (TF.js).
    if (batchesPerEpoch) m.stopTraining = true;
    phase = Phase::kEpochFinish;
  }
};

}  // namespace detail

using detail::FitRunState;

FitRun::FitRun(Model& model, const std::vector<Tensor>& xs, const std::vector<Tensor>& ys,
               const FitOptions& options)
    : s_(std::make_unique<FitRunState>(model, model.className() + ".fit")) {
  FitRunState& s = *s_;
  const std::string& op = s.op;
  check(options.batchSize >= 1, op, "batchSize must be >= 1, got ", options.batchSize);
  check(options.epochs >= 0, op, "epochs must be >= 0, got ", options.epochs);
  check(options.initialEpoch >= 0, op, "initialEpoch must be >= 0, got ", options.initialEpoch);
  check(options.validationSplit >= 0 && options.validationSplit < 1, op,
        "validationSplit must be in [0, 1), got ", options.validationSplit);
  check(options.verbose >= 0 && options.verbose <= 2, op, "verbose must be 0, 1 or 2, got ",
        options.verbose);
  const int64_t n = FitRunState::checkData(model, op, xs, ys, "x", "y");
  check(n > 0, op, "x has no samples");

  s.fromTensors = true;
  s.trainX = xs;
  s.trainY = ys;
  const bool explicitValidation = !options.validationX.empty() || !options.validationY.empty();
  if (explicitValidation) {
    check(options.validationSplit == 0, op,
          "give either validationSplit or validationX/validationY, not both");
    int64_t nv = FitRunState::checkData(model, op, options.validationX, options.validationY,
                                        "validationX", "validationY");
    check(nv > 0, op, "validationX has no samples");
    s.valX = options.validationX;
    s.valY = options.validationY;
  } else if (options.validationSplit > 0) {
    // Keras: the last fraction of the data, before any shuffling.
    // Rounded to float precision first, so 0.3f splits 10 samples 7 / 3 as 0.3 does.
    const double fraction = std::round(static_cast<double>(options.validationSplit) * 1e6) / 1e6;
    const int64_t split =
        static_cast<int64_t>(std::floor(static_cast<double>(n) * (1.0 - fraction)));
    check(split > 0 && split < n, op, "validationSplit ", options.validationSplit, " of ", n,
          " samples leaves ", split, " for training and ", n - split,
          " for validation; both need at least one");
    s.trainX = model_internal::rows(xs, 0, split);
    s.trainY = model_internal::rows(ys, 0, split);
    s.valX = model_internal::rows(xs, split, n - split);
    s.valY = model_internal::rows(ys, split, n - split);
  }
  const int64_t nTrain = s.trainX[0].dim(0);
  if (!options.classWeight.empty()) {
    check(model.outputs().size() == 1, op,
          "classWeight needs a model with one output; this one has ", model.outputs().size());
    s.weights = classSampleWeights(op, s.trainY[0], options.classWeight);
  }
  s.order.resize(static_cast<size_t>(nTrain));
  std::iota(s.order.begin(), s.order.end(), 0);
  s.seed = options.seed;
  s.rng.seed(options.seed.value_or(0));
  s.shuffle = options.shuffle;
  s.batchSize = options.batchSize;
  s.samples = nTrain;
  s.epochs = options.epochs;
  s.initialEpoch = options.initialEpoch;
  s.steps = (nTrain + s.batchSize - 1) / s.batchSize;
  for (const auto& c : options.callbacks) {
    check(c != nullptr, op, "a callback is null");
    s.callbacks.push_back(c);
  }
}

FitRun::FitRun(Model& model, const FitDatasetOptions& options, bool validate)
    : s_(std::make_unique<FitRunState>(model, model.className() + ".fitDataset")) {
  FitRunState& s = *s_;
  const std::string& op = s.op;
  check(options.epochs >= 0, op, "epochs must be >= 0, got ", options.epochs);
  check(options.initialEpoch >= 0, op, "initialEpoch must be >= 0, got ", options.initialEpoch);
  check(options.verbose >= 0 && options.verbose <= 2, op, "verbose must be 0, 1 or 2, got ",
        options.verbose);
  if (options.batchesPerEpoch)
    check(*options.batchesPerEpoch >= 1, op, "batchesPerEpoch must be >= 1, got ",
          *options.batchesPerEpoch);
  s.batchesPerEpoch = options.batchesPerEpoch;
  s.datasetValidation = validate;
  s.epochs = options.epochs;
  s.initialEpoch = options.initialEpoch;
  s.steps = options.batchesPerEpoch;
  for (const auto& c : options.callbacks) {
    check(c != nullptr, op, "a callback is null");
    s.callbacks.push_back(c);
  }
}

FitRun::FitRun(FitRun&&) noexcept = default;
FitRun& FitRun::operator=(FitRun&&) noexcept = default;
FitRun::~FitRun() = default;

FitRun::Event FitRun::next() { return s_->next(); }
FitRun::Event FitRun::event() const { return s_->event; }
int FitRun::epoch() const { return s_->epoch; }
int FitRun::batch() const { return s_->batch; }
bool FitRun::validating() const { return s_->validating; }
const Logs& FitRun::logs() const { return s_->logs; }
const Tensor& FitRun::values() const {
  check(s_->pending.values.defined(), s_->where(), "no values wait to be read");
  return s_->pending.values;
}
void FitRun::provide(const std::vector<float>& values) { s_->provide(values); }
void FitRun::lost() { s_->lost(); }
void FitRun::feed(std::vector<Tensor> xs, std::vector<Tensor> ys, int64_t batchSize) {
  s_->feed(std::move(xs), std::move(ys), batchSize);
}
void FitRun::feedEnd() { s_->feedEnd(); }
void FitRun::sliceValidation(bool slice) { s_->slicedValidation = slice; }
void FitRun::addCallback(CallbackPtr callback, bool first) {
  check(callback != nullptr, s_->op, "a callback is null");
  check(s_->phase == detail::FitRunState::Phase::kStart, s_->where(),
        "callbacks are added before the first next()");
  auto& list = s_->callbacks;
  list.insert(first ? list.begin() : list.end(), std::move(callback));
}
std::optional<int64_t> FitRun::stepsPerEpoch() const { return s_->steps; }
int64_t FitRun::samples() const { return s_->samples; }
const History& FitRun::history() const { return s_->history; }
int FitRun::deviceLosses() const { return s_->deviceLosses; }

History FitRun::run() {
  check(s_->fromTensors, s_->op, "a dataset run needs a driver that feeds its batches");
  for (Event e = next(); e != Event::kDone; e = next()) {
    if (e != Event::kRead) continue;
    std::vector<float> read;
    try {
      read = values().data<float>();
    } catch (const DeviceLostError&) {
      lost();
      continue;
    }
    provide(read);
  }
  return history();
}

}  // namespace glint
