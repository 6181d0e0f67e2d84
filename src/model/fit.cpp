// fit (tensors in memory) and fitDataset (a data::Dataset of batches): the
// data handling around the shared epoch loop in training.cpp.
#include <cmath>
#include <numeric>
#include <random>

#include "glint/data.h"
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

std::vector<Tensor> sliceRows(const std::vector<Tensor>& ts, int64_t start, int64_t size) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) {
    std::vector<int64_t> begin(t.rank(), 0), extent(t.rank(), -1);
    begin[0] = start;
    extent[0] = size;
    out.push_back(slice(t, begin, extent));
  }
  return out;
}

}  // namespace

Tensor classSampleWeights(const std::string& op, const Tensor& y,
                          const std::map<int, float>& classWeight) {
  std::vector<float> ids;
  if (y.rank() == 1 || (y.rank() == 2 && y.dim(1) == 1)) {
    ids = y.toFloats();
  } else if (y.rank() == 2) {
    ids = argMax(y, 1).toFloats();
  } else {
    fail(op, "classWeight needs targets of rank 1 (class ids) or 2 (one-hot), got y ",
         shapeToString(y.shape()));
  }
  std::vector<float> w(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    int c = static_cast<int>(std::lround(ids[i]));
    auto it = classWeight.find(c);
    check(it != classWeight.end(), op, "classWeight has no entry for class ", c, " (sample ", i,
          "); it must list every class in the data");
    w[i] = it->second;
  }
  return tensor(w, {static_cast<int64_t>(w.size())});
}

History Model::fit(const Tensor& x, const Tensor& y, const FitOptions& options) {
  return fit(std::vector<Tensor>{x}, std::vector<Tensor>{y}, options);
}

History Model::fit(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys,
                   const FitOptions& options) {
  const std::string op = className() + ".fit";
  ModelCall guard(*callGuard_, op, name(), ModelCall::kTrain);
  Training::of(*this, op);
  check(options.batchSize >= 1, op, "batchSize must be >= 1, got ", options.batchSize);
  check(options.epochs >= 0, op, "epochs must be >= 0, got ", options.epochs);
  check(options.initialEpoch >= 0, op, "initialEpoch must be >= 0, got ", options.initialEpoch);
  check(options.validationSplit >= 0 && options.validationSplit < 1, op,
        "validationSplit must be in [0, 1), got ", options.validationSplit);
  check(options.verbose >= 0 && options.verbose <= 2, op, "verbose must be 0, 1 or 2, got ",
        options.verbose);
  const int64_t n = Training::checkData(*this, op, xs, &ys, "x", "y");
  check(n > 0, op, "x has no samples");

  std::vector<Tensor> trainX = xs, trainY = ys, valX, valY;
  const bool explicitValidation = !options.validationX.empty() || !options.validationY.empty();
  if (explicitValidation) {
    check(options.validationSplit == 0, op,
          "give either validationSplit or validationX/validationY, not both");
    int64_t nv = Training::checkData(*this, op, options.validationX, &options.validationY,
                                     "validationX", "validationY");
    check(nv > 0, op, "validationX has no samples");
    valX = options.validationX;
    valY = options.validationY;
  } else if (options.validationSplit > 0) {
    // Keras: the last fraction of the data, before any shuffling.
    // Rounded to float precision first, so 0.3f splits 10 samples 7 / 3 as 0.3 does.
    const double fraction = std::round(static_cast<double>(options.validationSplit) * 1e6) / 1e6;
    const int64_t split =
        static_cast<int64_t>(std::floor(static_cast<double>(n) * (1.0 - fraction)));
    check(split > 0 && split < n, op, "validationSplit ", options.validationSplit, " of ", n,
          " samples leaves ", split, " for training and ", n - split,
          " for validation; both need at least one");
    trainX = sliceRows(xs, 0, split);
    trainY = sliceRows(ys, 0, split);
    valX = sliceRows(xs, split, n - split);
    valY = sliceRows(ys, split, n - split);
  }
  const int64_t nTrain = trainX[0].dim(0);

  Tensor weights;
  if (!options.classWeight.empty()) {
    check(outputs_.size() == 1, op, "classWeight needs a model with one output; this one has ",
          outputs_.size());
    weights = classSampleWeights(op, trainY[0], options.classWeight);
  }

  std::vector<int32_t> order(static_cast<size_t>(nTrain));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(options.seed.value_or(0));
  const int64_t batchSize = options.batchSize;
  int64_t start = 0;

  Training::Loop loop;
  loop.epochs = options.epochs;
  loop.initialEpoch = options.initialEpoch;
  loop.verbose = options.verbose;
  loop.callbacks = options.callbacks;
  loop.stepsPerEpoch = (nTrain + batchSize - 1) / batchSize;
  loop.startEpoch = [&](int) {
    start = 0;
    if (!options.shuffle) return;
    for (size_t i = order.size(); i > 1; --i) {  // Fisher-Yates
      uint64_t r = options.seed ? rng() : randomBits();
      std::swap(order[i - 1], order[r % i]);
    }
  };
  loop.next = [&](Training::Batch& b) {
    if (start >= nTrain) return false;
    const int64_t size = std::min(batchSize, nTrain - start);
    if (options.shuffle) {
      Tensor idx = tensorInt(
          std::vector<int32_t>(order.begin() + start, order.begin() + start + size), {size});
      b.xs = gatherRows(trainX, idx);
      b.ys = gatherRows(trainY, idx);
      if (weights.defined()) b.sampleWeights = gather(weights, idx, 0);
    } else {
      b.xs = sliceRows(trainX, start, size);
      b.ys = sliceRows(trainY, start, size);
      if (weights.defined()) b.sampleWeights = sliceRows({weights}, start, size)[0];
    }
    start += size;
    return true;
  };
  if (!valX.empty())
    loop.validate = [&] { return Training::evaluateAll(*this, valX, valY, options.batchSize); };
  if (options.calibrate && options.epochs > options.initialEpoch && backendChosenAutomatically() &&
      calibrationCandidates().size() > 1) {
    const int64_t size = std::min(batchSize, nTrain);
    calibrateSteps(sliceRows(trainX, 0, size), sliceRows(trainY, 0, size), CalibrateOptions{});
  }
  return Training::run(*this, loop);
}

History Model::fitDataset(const data::Dataset& dataset, const FitDatasetOptions& options) {
  const std::string op = className() + ".fitDataset";
  ModelCall guard(*callGuard_, op, name(), ModelCall::kTrain);
  Training::of(*this, op);
  check(dataset.node() != nullptr, op, "the dataset is empty (default-constructed)");
  check(options.epochs >= 0, op, "epochs must be >= 0, got ", options.epochs);
  check(options.initialEpoch >= 0, op, "initialEpoch must be >= 0, got ", options.initialEpoch);
  check(options.verbose >= 0 && options.verbose <= 2, op, "verbose must be 0, 1 or 2, got ",
        options.verbose);
  if (options.batchesPerEpoch)
    check(*options.batchesPerEpoch >= 1, op, "batchesPerEpoch must be >= 1, got ",
          *options.batchesPerEpoch);
  check(options.batchesPerEpoch || !dataset.infinite(), op,
        "the dataset never ends (repeat()); give batchesPerEpoch");
  const size_t nIn = inputs_.size(), nOut = outputs_.size();

  // Element {x..., y...} -> a checked batch.
  auto toBatch = [this, nIn, nOut](const std::string& where, const data::Example& e,
                                   Training::Batch& b) {
    check(e.size() == nIn + nOut, where, "a dataset element has ", e.size(),
          " tensor(s); a model with ", nIn, " input(s) and ", nOut, " output(s) needs ", nIn + nOut,
          " ({x..., y...})");
    b.xs.assign(e.begin(), e.begin() + static_cast<std::ptrdiff_t>(nIn));
    b.ys.assign(e.begin() + static_cast<std::ptrdiff_t>(nIn), e.end());
    Training::checkData(*this, where, b.xs, &b.ys, "x", "y");
  };

  std::optional<data::Dataset::Iterator> iterator;
  int64_t stepInEpoch = 0;
  Training::Loop loop;
  loop.epochs = options.epochs;
  loop.initialEpoch = options.initialEpoch;
  loop.verbose = options.verbose;
  loop.callbacks = options.callbacks;
  loop.stepsPerEpoch = options.batchesPerEpoch ? options.batchesPerEpoch : dataset.size();
  loop.startEpoch = [&](int) {
    stepInEpoch = 0;
    // With batchesPerEpoch, epochs continue one pass over the data (TF.js).
    if (!options.batchesPerEpoch || !iterator) iterator = dataset.iterate();
  };
  loop.next = [&](Training::Batch& b) {
    if (options.batchesPerEpoch && stepInEpoch >= *options.batchesPerEpoch) return false;
    std::optional<data::Example> e = iterator->next();
    if (!e) {
      if (options.batchesPerEpoch) stopTraining = true;  // the data ran out: end training
      return false;
    }
    toBatch(op, *e, b);
    ++stepInEpoch;
    return true;
  };
  if (options.validationData) {
    const data::Dataset* val = options.validationData;
    loop.validate = [&, val] {
      data::Dataset::Iterator it = val->iterate();
      Logs logs = Training::evaluateBatches(*this, [&](Training::Batch& b) {
        std::optional<data::Example> e = it.next();
        if (!e) return false;
        toBatch(op + " (validationData)", *e, b);
        return true;
      });
      return logs;
    };
  }
  return Training::run(*this, loop);
}

}  // namespace glint
