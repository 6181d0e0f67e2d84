// Model::calibrateBackend: the measured backend choice for a model (see
// src/core/calibration.cpp), timing real training steps and then putting the
// weights and the optimizer's state back.
#include <string>
#include <vector>

#include "glint/backend.h"
#include "glint/model.h"
#include "glint/ops.h"
#include "glint/optim.h"
#include "src/model/model_internal.h"

namespace glint {

Model::TrainingSnapshot Model::snapshotTraining() const {
  TrainingSnapshot s;
  // A view shares the buffer the weight has now; assign() gives the weight a
  // new buffer, so the view keeps the old value.
  for (const Variable& v : weights()) s.weights.push_back(makeView(v, v.shape()));
  if (Optimizer* o = optimizer()) s.optimizer = o->getWeights();
  return s;
}

void Model::restoreTraining(const TrainingSnapshot& snapshot) {
  std::vector<Variable> ws = weights();
  check(ws.size() == snapshot.weights.size(), className() + ".restoreTraining", "the snapshot has ",
        snapshot.weights.size(), " weights, the model ", ws.size());
  for (size_t i = 0; i < ws.size(); ++i) ws[i].assign(snapshot.weights[i]);
  if (Optimizer* o = optimizer()) o->setWeights(snapshot.optimizer);
}

Calibration Model::calibrateSteps(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys,
                                  const CalibrateOptions& options) {
  const TrainingSnapshot before = snapshotTraining();
  const std::string what = className() + " '" + name() + "' training step, batch " +
                           std::to_string(xs.empty() ? 0 : xs[0].dim(0));
  Calibration c;
  try {
    c = calibrateBackends(
        [&] {
          Training::read(*this, Training::startStep(*this, Training::Batch{xs, ys, Tensor()}));
        },
        what, options);
  } catch (...) {
    restoreTraining(before);
    throw;
  }
  restoreTraining(before);
  return c;
}

Calibration Model::calibrateBackend(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys,
                                    const CalibrateOptions& options) {
  const std::string op = className() + ".calibrateBackend";
  ModelCall guard(*callGuard_, op, name(), ModelCall::kTrain);
  Training::of(*this, op);
  const int64_t n = Training::checkData(*this, op, xs, &ys, "x", "y");
  check(n > 0, op, "x has no samples");
  return calibrateSteps(xs, ys, options);
}

}  // namespace glint
