// compile / trainOnBatch / evaluate / predict, and the step and epoch loop
// that fit and fitDataset share. Losses, metrics and log names follow
// TF.js 4.22 (LayersModel.compile / fitLoop).
#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "glint/engine.h"
#include "glint/error.h"
#include "glint/json.h"
#include "glint/ops.h"
#include "src/model/model_internal.h"

namespace glint {

namespace {

bool compatible(const Shape& expected, const Shape& actual) {
  if (expected.size() != actual.size()) return false;
  for (size_t i = 0; i < expected.size(); ++i)
    if (expected[i] >= 0 && expected[i] != actual[i]) return false;
  return true;
}

std::string namesOf(const std::vector<SymbolicTensorPtr>& ts) {
  std::string s;
  for (const auto& t : ts) s += (s.empty() ? "" : ", ") + t->name;
  return s;
}

/// The layer producing model output `y` when fit may ask it for logits: a
/// softmax Dense or Activation with this one call in any graph (so no other
/// call, nested models included, sees logits), whose output feeds no other
/// layer of the model. Else null.
const Layer* softmaxOutputLayer(const SymbolicTensorPtr& y,
                                const std::vector<std::shared_ptr<Node>>& nodes) {
  if (!y->node || !y->node->layer) return nullptr;
  const Layer* layer = y->node->layer.get();
  if (layer->className() != "Dense" && layer->className() != "Activation") return nullptr;
  if (layer->getConfig().value("activation", Json()) != "softmax") return nullptr;
  if (layer->inboundNodes().size() != 1) return nullptr;
  for (const auto& node : nodes)
    for (const auto& x : node->inputs)
      if (x.get() == y.get()) return nullptr;
  return layer;
}

/// Per-sample weights [batch] shaped to broadcast against a per-sample loss.
Tensor broadcastWeights(const Tensor& w, const Tensor& loss) {
  Shape s(std::max(loss.rank(), 1), 1);
  s[0] = w.dim(0);
  return reshape(w, s);
}

}  // namespace

// ---- compile --------------------------------------------------------------------

void Model::compile(const CompileOptions& options) {
  const std::string op = className() + ".compile";
  check(!outputs_.empty(), op, "the model has no layers yet");
  auto t = std::make_shared<Training>();
  t->options = options;
  if (const auto* name = std::get_if<std::string>(&options.optimizer)) {
    t->optimizer = std::shared_ptr<Optimizer>(optimizerFromConfig(*name));
  } else {
    t->optimizer = std::get<std::shared_ptr<Optimizer>>(options.optimizer);
    check(t->optimizer != nullptr, op, "the optimizer is null");
  }

  const size_t nOut = outputs_.size();
  for (const auto& y : outputs_) t->outputNames.push_back(y->node->layer->name());
  check(!options.loss.empty(), op,
        "needs a loss: one for all outputs or one per output (the model has ", nOut,
        " output(s): ", namesOf(outputs_), ")");
  check(options.loss.size() == 1 || options.loss.size() == nOut, op, "got ", options.loss.size(),
        " losses for ", nOut, " outputs (", namesOf(outputs_),
        "): give one loss or one per output");
  std::vector<std::string> lossNames;
  for (size_t i = 0; i < nOut; ++i) {
    const LossSpec& spec = options.loss[options.loss.size() == 1 ? 0 : i];
    if (const auto* name = std::get_if<std::string>(&spec)) {
      lossNames.push_back(losses::canonicalName(*name));  // throws for unknown names
      t->losses.push_back(losses::get(*name));
    } else {
      const auto& fn = std::get<1>(spec);
      check(static_cast<bool>(fn), op, "loss ", i, " is an empty function");
      lossNames.push_back("");
      t->losses.push_back(fn);
    }
  }

  for (size_t i = 0; i < nOut; ++i) {
    const bool dense = lossNames[i] == "categoricalCrossentropy";
    const bool sparse = lossNames[i] == "sparseCategoricalCrossentropy";
    const Layer* layer = dense || sparse ? softmaxOutputLayer(outputs_[i], nodes_) : nullptr;
    t->fromLogits.push_back(layer != nullptr);
    if (!layer) continue;
    t->logitsFrom.push_back(layer);
    if (dense)
      t->losses[i] = [](const Tensor& y, const Tensor& logits) {
        return losses::categoricalCrossentropy(y, logits, true);
      };
    else
      t->losses[i] = [](const Tensor& y, const Tensor& logits) {
        return losses::sparseCategoricalCrossentropy(y, logits, true);
      };
  }

  t->names = {"loss"};
  if (nOut > 1)
    for (const auto& name : t->outputNames) t->names.push_back(name + "_loss");
  for (size_t i = 0; i < nOut; ++i) {
    for (const std::string& m : options.metrics) {
      Training::Metric metric;
      metric.output = i;
      const bool isAcc = m == "accuracy" || m == "acc";
      if (isAcc || m == "crossentropy" || m == "ce") {
        // TF.js picks the variant from the output size and the loss.
        const Shape& shape = outputs_[i]->shape;
        const bool single = !shape.empty() && shape.back() == 1;
        const bool binary = single || lossNames[i] == "binaryCrossentropy";
        const bool sparse = lossNames[i] == "sparseCategoricalCrossentropy";
        if (isAcc && single) {
          metric.fn = metrics::accuracy;  // binary, and takes [batch] labels too
        } else if (isAcc && binary) {
          metric.fn = [](const Tensor& t, const Tensor& p) {
            return metrics::binaryAccuracy(t, p);
          };
        } else if (isAcc) {
          metric.fn = sparse ? metrics::sparseCategoricalAccuracy : metrics::categoricalAccuracy;
        } else if (binary) {
          metric.fn = [](const Tensor& t, const Tensor& p) {
            return losses::binaryCrossentropy(t, p);
          };
        } else if (sparse) {
          metric.fn = [](const Tensor& t, const Tensor& p) {
            return losses::sparseCategoricalCrossentropy(t, p);
          };
        } else {
          metric.fn = [](const Tensor& t, const Tensor& p) {
            return losses::categoricalCrossentropy(t, p);
          };
        }
        metric.name = isAcc ? "acc" : "ce";
      } else {
        metric.fn = metrics::get(m);  // throws for unknown names
        metric.name = m;
      }
      if (nOut > 1) metric.name = t->outputNames[i] + "_" + metric.name;
      t->names.push_back(metric.name);
      t->metrics.push_back(std::move(metric));
    }
  }
  training_ = t;
  stopTraining = false;
}

bool Model::compiled() const { return training_ != nullptr; }

Optimizer* Model::optimizer() const { return training_ ? training_->optimizer.get() : nullptr; }

const CompileOptions& Model::compileOptions() const {
  return Training::of(*this, className() + ".compileOptions").options;
}

std::vector<std::string> Model::metricsNames() const {
  return Training::of(*this, className() + ".metricsNames").names;
}

void Model::Training::toProbabilities(std::vector<Tensor>& outputs) const {
  if (metrics.empty()) return;
  for (size_t i = 0; i < outputs.size(); ++i)
    if (fromLogits[i]) outputs[i] = softmax(outputs[i], -1);
}

Model::Training& Model::Training::of(const Model& m, const std::string& op) {
  check(m.training_ != nullptr, op, "model '", m.name(),
        "' is not compiled: call compile() with an optimizer and a loss first");
  return *m.training_;
}

// ---- data checks ------------------------------------------------------------------

int64_t Model::Training::checkData(const Model& m, const std::string& op,
                                   const std::vector<Tensor>& xs, const std::vector<Tensor>* ys,
                                   const std::string& xName, const std::string& yName) {
  check(!m.inputs_.empty(), op, "the model has no layers yet");
  const size_t nIn = m.inputs_.size(), nOut = m.outputs_.size();
  check(xs.size() == nIn, op, "the model has ", nIn, " input(s) (", namesOf(m.inputs_), "), got ",
        xs.size(), " ", xName, " tensor(s)");
  if (ys)
    check(ys->size() == nOut, op, "the model has ", nOut, " output(s) (", namesOf(m.outputs_),
          "), got ", ys->size(), " ", yName, " tensor(s)");
  int64_t n = -1;
  std::string first;
  auto checkOne = [&](const Tensor& t, const std::string& label) {
    check(t.defined() && !t.isDisposed(), op, label, " is undefined or disposed");
    check(t.rank() >= 1, op, label, " is a scalar; it needs a batch axis");
    if (n < 0) {
      n = t.dim(0);
      first = label;
    }
    check(t.dim(0) == n, op, label, " has ", t.dim(0), " samples but ", first, " has ", n,
          ": every input and target needs the same number of samples");
  };
  for (size_t i = 0; i < nIn; ++i) {
    std::string label = nIn > 1 ? xName + "[" + std::to_string(i) + "]" : xName;
    checkOne(xs[i], label);
    check(compatible(m.inputs_[i]->shape, xs[i].shape()), op, label, " has shape ",
          shapeToString(xs[i].shape()), " but model input '", m.inputs_[i]->name, "' expects ",
          shapeToString(m.inputs_[i]->shape), " (-1: any)");
  }
  if (ys)
    for (size_t i = 0; i < nOut; ++i)
      checkOne((*ys)[i], nOut > 1 ? yName + "[" + std::to_string(i) + "]" : yName);
  return n;
}

// ---- steps --------------------------------------------------------------------------

namespace {

/// Scalars as one float32 vector: on a GPU backend every read is a sync, so a
/// step's loss and metrics are read together, after the update, not one by
/// one in the middle of the forward pass.
Tensor gatherScalars(const std::vector<Tensor>& scalars) {
  std::vector<Tensor> parts;
  for (const Tensor& s : scalars)
    parts.push_back(reshape(s.dtype() == DType::float32 ? s : cast(s, DType::float32), {1}));
  return concat(parts, 0);
}

/// The logged values with the pending device checks' failures after them.
Model::PendingLogs withChecks(const Tensor& logged) {
  Model::PendingLogs p;
  p.checks = takeDeviceChecks();
  std::vector<Tensor> parts{logged};
  for (const DeviceCheck& c : p.checks) parts.push_back(c.failures);
  p.values = p.checks.empty() ? logged : gatherScalars(parts);
  keep(p.values);
  for (const DeviceCheck& c : p.checks) c.failures.dispose();
  return p;
}

}  // namespace

Logs Model::Training::read(const Model& m, PendingLogs p) {
  std::vector<float> values;
  try {
    values = p.values.data<float>();
  } catch (...) {
    p.values.dispose();
    throw;
  }
  return m.finishLogs(p, values);
}

Model::PendingLogs Model::Training::startStep(Model& m, const Batch& b) {
  Training& t = *m.training_;
  const size_t nOut = m.outputs_.size();
  dispose([] {  // checks left by calls outside a step are not this step's
    std::vector<Tensor> stale;
    for (DeviceCheck& c : takeDeviceChecks()) stale.push_back(c.failures);
    return stale;
  }());
  PendingLogs pending;
  tidy([&] {
    std::vector<Variable> vars = m.trainableWeights();
    // The logged scalars, kept past the optimizer's scope.
    std::vector<Tensor> logged(t.names.size());
    auto log = [&](size_t k, const Tensor& v) {
      keep(v);
      logged[k] = v;
    };
    auto totalLoss = [&]() -> Tensor {
      std::vector<Tensor> preds = m.call(b.xs, CallArgs{true, t.logitsFrom});
      Tensor total;
      for (size_t i = 0; i < nOut; ++i) {
        Tensor l = t.losses[i](b.ys[i], preds[i]);
        if (b.sampleWeights.defined()) l = mul(l, broadcastWeights(b.sampleWeights, l));
        Tensor mean_ = mean(l);
        if (nOut > 1) log(1 + i, mean_);
        total = total.defined() ? add(total, mean_) : mean_;
      }
      size_t k = nOut > 1 ? 1 + nOut : 1;
      t.toProbabilities(preds);
      for (const Metric& metric : t.metrics)
        log(k++, mean(metric.fn(b.ys[metric.output], preds[metric.output])));
      for (const Tensor& r : m.regularizationLosses()) total = add(total, r);
      return total;
    };
    // A fully frozen model still reports its loss; nothing is updated.
    logged[0] = vars.empty() ? totalLoss() : t.optimizer->minimize(totalLoss, vars);
    try {
      pending = withChecks(gatherScalars(logged));
    } catch (...) {
      dispose(logged);
      throw;
    }
    dispose(logged);
  });
  m.applyConstraints();
  return pending;
}

Tensor Model::Training::testBatch(Model& m, const std::vector<Tensor>& xs,
                                  const std::vector<Tensor>& ys) {
  Training& t = *m.training_;
  const size_t nOut = m.outputs_.size();
  return tidy([&] {
    std::vector<Tensor> preds = m.call(xs, CallArgs{false, t.logitsFrom});
    std::vector<Tensor> logged(t.names.size());
    Tensor total;
    for (size_t i = 0; i < nOut; ++i) {
      Tensor l = mean(t.losses[i](ys[i], preds[i]));
      if (nOut > 1) logged[1 + i] = l;
      total = total.defined() ? add(total, l) : l;
    }
    for (const Tensor& r : m.regularizationLosses()) total = add(total, r);
    logged[0] = total;
    size_t k = nOut > 1 ? 1 + nOut : 1;
    t.toProbabilities(preds);
    for (const Metric& metric : t.metrics)
      logged[k++] = mean(metric.fn(ys[metric.output], preds[metric.output]));
    return gatherScalars(logged);
  });
}

Model::Training::EvalSums::EvalSums(Model& m) : m_(m) {
  dispose([] {  // checks left by calls outside this evaluation are not its own
    std::vector<Tensor> stale;
    for (DeviceCheck& c : takeDeviceChecks()) stale.push_back(c.failures);
    return stale;
  }());
}

Model::Training::EvalSums::~EvalSums() {
  if (sums_.defined()) sums_.dispose();
  for (DeviceCheck& c : checks_) c.failures.dispose();
}

// Batch means weighted by batch size, summed on the device: one read at the
// end. Each batch's device checks are taken at once, so that other calls
// between batches (a driver's yields) neither see nor drop them.
void Model::Training::EvalSums::add(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys) {
  const int64_t size = xs[0].dim(0);
  Tensor next = tidy([&] {
    Tensor v = mul(testBatch(m_, xs, ys), scalar(static_cast<float>(size)));
    return sums_.defined() ? glint::add(sums_, v) : v;
  });
  if (sums_.defined()) sums_.dispose();
  sums_ = next;
  seen_ += size;
  for (DeviceCheck& c : takeDeviceChecks()) checks_.push_back(std::move(c));
}

Model::PendingLogs Model::Training::EvalSums::finish() {
  const Training& t = *m_.training_;
  Tensor means = seen_ > 0 ? div(sums_, scalar(static_cast<float>(seen_)))
                           : fill({static_cast<int64_t>(t.names.size())}, std::nanf(""));
  if (sums_.defined()) sums_.dispose();
  sums_ = Tensor();
  PendingLogs p;
  p.checks = std::move(checks_);
  checks_.clear();
  std::vector<Tensor> parts{means};
  for (const DeviceCheck& c : p.checks) parts.push_back(c.failures);
  p.values = p.checks.empty() ? means : gatherScalars(parts);
  keep(p.values);
  for (const DeviceCheck& c : p.checks) c.failures.dispose();
  if (p.values.impl() != means.impl()) means.dispose();
  return p;
}

Model::PendingLogs Model::Training::startEvaluateBatches(Model& m,
                                                         const std::function<bool(Batch&)>& next) {
  EvalSums sums(m);
  Batch b;
  while (next(b)) {
    sums.add(b.xs, b.ys);
    b = Batch{};
  }
  return sums.finish();
}

Logs Model::Training::evaluateAll(Model& m, const std::vector<Tensor>& xs,
                                  const std::vector<Tensor>& ys, int batchSize) {
  return read(m, startEvaluateAll(m, xs, ys, batchSize));
}

Model::PendingLogs Model::Training::startEvaluateAll(Model& m, const std::vector<Tensor>& xs,
                                                     const std::vector<Tensor>& ys, int batchSize) {
  const int64_t n = xs[0].dim(0);
  int64_t start = 0;
  return startEvaluateBatches(m, [&](Batch& b) {
    if (start >= n) return false;
    int64_t size = std::min<int64_t>(batchSize, n - start);
    b.xs = model_internal::rows(xs, start, size);
    b.ys = model_internal::rows(ys, start, size);
    start += size;
    return true;
  });
}

// ---- public entry points ---------------------------------------------------------

Logs Model::trainOnBatch(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys) {
  return Training::read(*this, startTrainOnBatch(xs, ys));
}

Logs Model::trainOnBatch(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys,
                         const Tensor& sampleWeights) {
  check(sampleWeights.defined(), className() + ".trainOnBatch",
        "sampleWeights is undefined or disposed");
  return Training::read(*this, startTrainOnBatch(xs, ys, sampleWeights));
}

Model::PendingLogs Model::startTrainOnBatch(const std::vector<Tensor>& xs,
                                            const std::vector<Tensor>& ys,
                                            const Tensor& sampleWeights) {
  const std::string op = className() + ".trainOnBatch";
  ModelCall guard(*callGuard_, op, name(), ModelCall::kTrain);
  Training::of(*this, op);
  int64_t n = Training::checkData(*this, op, xs, &ys, "x", "y");
  if (sampleWeights.defined()) {
    check(!sampleWeights.isDisposed(), op, "sampleWeights is undefined or disposed");
    check(sampleWeights.dtype() == DType::float32 && sampleWeights.shape() == Shape{n}, op,
          "sampleWeights must be float32 [", n, "] (one weight per sample), got ",
          dtypeName(sampleWeights.dtype()), " ", shapeToString(sampleWeights.shape()));
  }
  return Training::startStep(*this, Training::Batch{xs, ys, sampleWeights});
}

Logs Model::evaluate(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys, int batchSize) {
  return Training::read(*this, startEvaluate(xs, ys, batchSize));
}

Model::PendingLogs Model::startEvaluate(const std::vector<Tensor>& xs,
                                        const std::vector<Tensor>& ys, int batchSize) {
  const std::string op = className() + ".evaluate";
  ModelCall guard(*callGuard_, op, name(), ModelCall::kUse);
  Training::of(*this, op);
  check(batchSize >= 1, op, "batchSize must be >= 1, got ", batchSize);
  int64_t n = Training::checkData(*this, op, xs, &ys, "x", "y");
  check(n > 0, op, "x has no samples");
  return Training::startEvaluateAll(*this, xs, ys, batchSize);
}

Logs Model::finishLogs(PendingLogs& p, const std::vector<float>& values) const {
  const Training& t = Training::of(*this, className() + ".finishLogs");
  if (p.values.defined()) p.values.dispose();
  check(values.size() == t.names.size() + p.checks.size(), className() + ".finishLogs", "got ",
        values.size(), " values for ", t.names.size(), " logs and ", p.checks.size(), " checks");
  raiseDeviceChecks(p.checks, values.data() + t.names.size());
  Logs logs;
  for (size_t i = 0; i < t.names.size(); ++i) logs[t.names[i]] = values[i];
  return logs;
}

Logs Model::evaluate(const Tensor& x, const Tensor& y, int batchSize) {
  return evaluate(std::vector<Tensor>{x}, std::vector<Tensor>{y}, batchSize);
}

std::vector<Tensor> Model::predict(const std::vector<Tensor>& xs, int batchSize) {
  const std::string op = className() + ".predict";
  ModelCall guard(*callGuard_, op, name(), ModelCall::kUse);
  check(batchSize >= 1, op, "batchSize must be >= 1, got ", batchSize);
  const int64_t n = Training::checkData(*this, op, xs, nullptr, "x", "");
  if (n == 0) return call(xs, CallArgs{false});
  std::vector<std::vector<Tensor>> parts(outputs_.size());
  for (int64_t start = 0; start < n; start += batchSize) {
    int64_t size = std::min<int64_t>(batchSize, n - start);
    std::vector<Tensor> outs =
        tidy([&] { return call(model_internal::rows(xs, start, size), CallArgs{false}); });
    for (size_t i = 0; i < outs.size(); ++i) parts[i].push_back(outs[i]);
  }
  std::vector<Tensor> out;
  for (auto& p : parts) out.push_back(p.size() == 1 ? p[0] : concat(p, 0));
  return out;
}

Tensor Model::predict(const Tensor& x, int batchSize) {
  std::vector<Tensor> out = predict(std::vector<Tensor>{x}, batchSize);
  check(out.size() == 1, className() + ".predict", "the model has ", out.size(),
        " outputs; use the vector form of predict");
  return out[0];
}

namespace model_internal {

std::vector<Tensor> rows(const std::vector<Tensor>& ts, int64_t start, int64_t size) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) {
    if (start == 0 && size == t.dim(0)) {
      out.push_back(t);
      continue;
    }
    std::vector<int64_t> begin(t.rank(), 0), extent(t.rank(), -1);
    begin[0] = start;
    extent[0] = size;
    out.push_back(slice(t, begin, extent));
  }
  return out;
}

}  // namespace model_internal
}  // namespace glint
