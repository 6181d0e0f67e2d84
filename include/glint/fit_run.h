#pragma once
// fit and fitDataset as steps: the one epoch loop of Glint (Model::fit and
// fitDataset run it to the end; glint-ml's model.fit and fitDataset drive it
// from JavaScript between yields to the page). Shuffling, the validation
// split and data, class weights, the divergence guard, device-loss recovery,
// the callbacks given in the options (earlyStopping among them) and the
// history live here once.
//
//   FitRun run(*model, {x}, {y}, {.epochs = 5, .seed = 1});
//   for (FitRun::Event e; (e = run.next()) != FitRun::Event::kDone;) {
//     if (e == FitRun::Event::kRead) run.provide(run.values().toFloats());  // or later
//     if (e == FitRun::Event::kEpochEnd) redraw(run.logs());
//   }
//   History h = run.history();
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "glint/model.h"

namespace glint {

class FitRun {
 public:
  /// What next() did. The callbacks in the options have seen the event when
  /// next() returns it; a driver's own (JS callbacks) see it after.
  enum class Event {
    kTrainBegin,
    kEpochBegin,
    /// A batch of the epoch is about to be trained on (logs: batch, size).
    kBatchBegin,
    /// fitDataset: hand the next batch with feed() or say there is none with
    /// feedEnd(); validating() says whether it is a validation batch.
    kNeedBatch,
    /// A validation batch is queued on the device (a driver may yield here).
    kValidationBatch,
    /// Logged values wait on the device: read values() (at once or
    /// asynchronously) and hand them to provide(), or call lost().
    kRead,
    /// The batch was trained on (logs: batch, size, loss, metrics).
    kBatchEnd,
    /// The device was lost on this batch: it is skipped, the weights came
    /// back from their snapshots. A driver whose backend recovers
    /// asynchronously (WebGPU) waits for the new device here.
    kBatchSkipped,
    /// logs: the epoch's means and val_ values; history() has the epoch.
    kEpochEnd,
    kTrainEnd,
    kDone,
  };

  /// fit over tensors (checked as Model::fit checks them). The backend
  /// calibration (options.calibrate) is Model::fit's, as is the progress log.
  FitRun(Model& model, const std::vector<Tensor>& xs, const std::vector<Tensor>& ys,
         const FitOptions& options);
  /// fitDataset: the batches come from the driver (kNeedBatch). Its
  /// validationData is not used (a driver feeds validation batches when
  /// `validate` is true).
  FitRun(Model& model, const FitDatasetOptions& options, bool validate);
  FitRun(FitRun&&) noexcept;
  FitRun& operator=(FitRun&&) noexcept;
  ~FitRun();

  /// Advances to the next event. Throws what training throws (a diverged
  /// loss, bad data); the run is then over and further calls throw.
  Event next();
  /// The last event next() returned.
  Event event() const;
  /// The epoch (from initialEpoch) and the batch within it.
  int epoch() const;
  int batch() const;
  /// kNeedBatch and kRead: for validation, not training.
  bool validating() const;
  /// The logs of the last event (empty where it has none).
  const Logs& logs() const;
  /// kRead: the values to read (float32).
  const Tensor& values() const;
  /// After kRead: the values read. Raises a failed device check (a label
  /// out of range).
  void provide(const std::vector<float>& values);
  /// After kRead: its read failed because the device was lost. The batch is
  /// skipped (the weights came back from their snapshots); a second loss in
  /// a row, or one during validation, throws DeviceLostError.
  void lost();
  /// After kNeedBatch: the batch {x..., y...} (fitDataset's element), or no
  /// more batches this epoch. A validation batch is evaluated batchSize rows
  /// at a time (0: all at once).
  void feed(std::vector<Tensor> xs, std::vector<Tensor> ys, int64_t batchSize = 0);
  void feedEnd();
  /// One more callback (before the first next()); `first`: before the
  /// options' callbacks. options.verbose is Model::fit's: it adds the
  /// progress log this way, as a driver may add its own.
  void addCallback(CallbackPtr callback, bool first = false);
  /// With FitOptions: validation in slices of batchSize rows, each its own
  /// kValidationBatch (a driver yields between them); default one slice.
  void sliceValidation(bool slice);
  /// Steps per epoch when known (fit; fitDataset's batchesPerEpoch).
  std::optional<int64_t> stepsPerEpoch() const;
  /// Training samples per epoch (fit; 0 for fitDataset).
  int64_t samples() const;
  const History& history() const;
  /// Batches skipped because the device was lost.
  int deviceLosses() const;
  /// Runs to kDone with blocking reads (Model::fit). A dataset run needs a
  /// driver for its batches and throws here.
  History run();

 private:
  std::unique_ptr<detail::FitRunState> s_;
};

}  // namespace glint
