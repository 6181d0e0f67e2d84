// fit (tensors in memory) and fitDataset (a data::Dataset of batches): the
// epoch loop of glint/fit_run.h, driven to the end with blocking reads.
#include <cmath>

#include "glint/data.h"
#include "glint/engine.h"
#include "glint/error.h"
#include "glint/fit_run.h"
#include "glint/ops.h"
#include "src/model/model_internal.h"

namespace glint {

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
  FitRun run(*this, xs, ys, options);
  if (options.verbose > 0)
    run.addCallback(
        model_internal::progressLogger(options.verbose, options.epochs, run.stepsPerEpoch()), true);
  if (options.calibrate && options.epochs > options.initialEpoch && backendChosenAutomatically() &&
      calibrationCandidates().size() > 1) {
    // The first batch's rows: the training rows come first (validationSplit
    // holds out the end).
    const int64_t size = std::min<int64_t>(options.batchSize, run.samples());
    calibrateSteps(model_internal::rows(xs, 0, size), model_internal::rows(ys, 0, size),
                   CalibrateOptions{});
  }
  return run.run();
}

History Model::fitDataset(const data::Dataset& dataset, const FitDatasetOptions& options) {
  const std::string op = className() + ".fitDataset";
  check(dataset.node() != nullptr, op, "the dataset is empty (default-constructed)");
  check(options.batchesPerEpoch || !dataset.infinite(), op,
        "the dataset never ends (repeat()); give batchesPerEpoch");
  const size_t nIn = inputs_.size(), nOut = outputs_.size();
  FitRun run(*this, options, options.validationData != nullptr);
  if (options.verbose > 0)
    run.addCallback(
        model_internal::progressLogger(options.verbose, options.epochs, options.batchesPerEpoch),
        true);
  // Element {x..., y...} -> the run's batch.
  auto feed = [&](const std::string& where, const data::Example& e) {
    check(e.size() == nIn + nOut, where, "a dataset element has ", e.size(),
          " tensor(s); a model with ", nIn, " input(s) and ", nOut, " output(s) needs ", nIn + nOut,
          " ({x..., y...})");
    const auto split = e.begin() + static_cast<std::ptrdiff_t>(nIn);
    run.feed(std::vector<Tensor>(e.begin(), split), std::vector<Tensor>(split, e.end()));
  };
  std::optional<data::Dataset::Iterator> train, validation;
  for (FitRun::Event e = run.next(); e != FitRun::Event::kDone; e = run.next()) {
    switch (e) {
      case FitRun::Event::kEpochBegin:
        // With batchesPerEpoch, epochs continue one pass over the data (TF.js).
        if (!options.batchesPerEpoch || !train) train = dataset.iterate();
        validation.reset();
        break;
      case FitRun::Event::kNeedBatch: {
        std::optional<data::Dataset::Iterator>& it = run.validating() ? validation : train;
        if (!it) it = options.validationData->iterate();
        if (std::optional<data::Example> element = it->next())
          feed(run.validating() ? op + " (validationData)" : op, *element);
        else run.feedEnd();
        break;
      }
      case FitRun::Event::kRead: {
        std::vector<float> values;
        try {
          values = run.values().data<float>();
        } catch (const DeviceLostError&) {
          run.lost();
          break;
        }
        run.provide(values);
        break;
      }
      default:
        break;
    }
  }
  return run.history();
}

}  // namespace glint
