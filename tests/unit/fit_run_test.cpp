// FitRun, the epoch loop as steps (glint/fit_run.h): driven by hand it trains
// exactly as Model::fit and fitDataset do (same weights, same history), its
// events come in order, lost reads skip a batch, and misuse is an error that
// names the event.
#include "glint/fit_run.h"

#include <gtest/gtest.h>

#include "glint/data.h"
#include "glint/glint.h"
#include "op_harness.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace glint::testing {
namespace {

using Event = FitRun::Event;

SequentialPtr smallModel() {
  auto m = sequential({layers::dense({{"units", 6}, {"activation", "tanh"}, {"inputShape", {3}}}),
                       layers::dense({{"units", 2}})});
  m->compile({.optimizer = "adam", .loss = {"mse"}, .metrics = {"mae"}});
  return m;
}

/// Two models with the same starting weights (and fresh optimizers).
std::pair<SequentialPtr, SequentialPtr> twins() {
  auto a = smallModel(), b = smallModel();
  b->setWeights(a->getWeights());
  return {a, b};
}

std::pair<Tensor, Tensor> data(int64_t n, uint64_t seed) {
  Tensor x = randomUniform({n, 3}, -1, 1, seed);
  Tensor y = matMul(x, tensor({1, -2, 0.5f, 3, -1, 1}, {3, 2}));
  return {x, y};
}

void expectSameWeights(Model &a, Model &b) {
  std::vector<Tensor> wa = a.getWeights(), wb = b.getWeights();
  ASSERT_EQ(wa.size(), wb.size());
  for (size_t i = 0; i < wa.size(); ++i) EXPECT_EQ(wa[i].toFloats(), wb[i].toFloats()) << i;
}

/// Drives `run` to the end with blocking reads; returns the events as letters.
std::string drive(FitRun &run) {
  std::string seen;
  for (Event e = run.next();; e = run.next()) {
    seen += "TEBNVRbSedx"[static_cast<int>(e)];
    if (e == Event::kDone) break;
    if (e == Event::kRead) run.provide(run.values().toFloats());
  }
  return seen;
}

TEST(FitRun, DrivenByHandTrainsExactlyAsFit) {
  setSeed(11);
  const std::pair<Tensor, Tensor> d1 = data(40, 3);
  const Tensor &x = d1.first, &y = d1.second;
  const auto models = twins();
  const SequentialPtr &a = models.first, &b = models.second;
  FitOptions options{.epochs = 3, .batchSize = 8, .validationSplit = 0.25f, .seed = 5};
  History fitted = a->fit(x, y, options);

  FitRun run(*b, {x}, {y}, options);
  EXPECT_EQ(run.samples(), 30);
  EXPECT_EQ(run.stepsPerEpoch(), 4);
  std::string events;
  std::vector<int> epochs, batches;  // epoch() and batch() at each begin and end
  for (Event e = run.next();; e = run.next()) {
    events += "TEBNVRbSedx"[static_cast<int>(e)];
    if (e == Event::kDone) break;
    if (e == Event::kRead) run.provide(run.values().toFloats());
    if (e == Event::kEpochBegin || e == Event::kEpochEnd) epochs.push_back(run.epoch());
    if (e == Event::kBatchBegin || e == Event::kBatchEnd) batches.push_back(run.batch());
  }
  EXPECT_EQ(epochs, (std::vector<int>{0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(std::vector<int>(batches.begin(), batches.begin() + 8),
            (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3}));
  // Each epoch: begin, 4 x (batch begin, read, batch end), the validation
  // slice, its read, end.
  EXPECT_EQ(events,
            "TEBRbBRbBRbBRbVRe"
            "EBRbBRbBRbBRbVRe"
            "EBRbBRbBRbBRbVRe"
            "dx");
  expectSameWeights(*a, *b);
  EXPECT_EQ(run.history().epoch, fitted.epoch);
  for (const auto &[name, values] : fitted.history) {
    ASSERT_TRUE(run.history().history.count(name)) << name;
    EXPECT_EQ(run.history().history.at(name), values) << name;
  }
  EXPECT_TRUE(fitted.history.count("val_mae"));
}

TEST(FitRun, SlicedValidationLogsTheSameMeans) {
  setSeed(12);
  const std::pair<Tensor, Tensor> d2 = data(50, 4);
  const Tensor &x = d2.first, &y = d2.second;
  const auto models = twins();
  const SequentialPtr &a = models.first, &b = models.second;
  FitOptions options{.epochs = 2, .batchSize = 8, .validationSplit = 0.4f, .seed = 2};
  History whole = a->fit(x, y, options);
  FitRun run(*b, {x}, {y}, options);
  run.sliceValidation(true);
  std::string events = drive(run);
  // 20 validation rows in slices of 8: three kValidationBatch, one read.
  EXPECT_NE(events.find("VVVRe"), std::string::npos) << events;
  expectSameWeights(*a, *b);
  for (const char *name : {"val_loss", "val_mae"})
    for (size_t e = 0; e < 2; ++e)
      EXPECT_NEAR(run.history().history.at(name)[e], whole.history.at(name)[e], 1e-6) << name;
}

TEST(FitRun, FedBatchesTrainExactlyAsFitDataset) {
  setSeed(13);
  const std::pair<Tensor, Tensor> d3 = data(36, 5);
  const Tensor &x = d3.first, &y = d3.second;
  const std::pair<Tensor, Tensor> d4 = data(10, 6);
  const Tensor &vx = d4.first, &vy = d4.second;
  const auto models = twins();
  const SequentialPtr &a = models.first, &b = models.second;
  data::Dataset train = data::fromTensors({x, y}).batch(8);
  data::Dataset val = data::fromTensors({vx, vy}).batch(4);
  History fitted = a->fitDataset(train, {.epochs = 2, .validationData = &val});

  FitRun run(*b, FitDatasetOptions{.epochs = 2}, true);
  std::optional<data::Dataset::Iterator> it, vit;
  int needs = 0;
  for (Event e = run.next(); e != Event::kDone; e = run.next()) {
    if (e == Event::kEpochBegin) {
      it = train.iterate();
      vit = val.iterate();
    } else if (e == Event::kNeedBatch) {
      ++needs;
      auto element = (run.validating() ? *vit : *it).next();
      if (element) run.feed({(*element)[0]}, {(*element)[1]});
      else run.feedEnd();
    } else if (e == Event::kRead) {
      run.provide(run.values().toFloats());
    }
  }
  // Per epoch: 5 batches and the end, 3 validation batches and the end.
  EXPECT_EQ(needs, 2 * (6 + 4));
  expectSameWeights(*a, *b);
  EXPECT_EQ(run.history().history.at("loss"), fitted.history.at("loss"));
  EXPECT_EQ(run.history().history.at("val_loss"), fitted.history.at("val_loss"));
}

TEST(FitRun, ALostReadSkipsItsBatchAndTwoInARowStop) {
  setSeed(14);
  const std::pair<Tensor, Tensor> d5 = data(32, 7);
  const Tensor &x = d5.first, &y = d5.second;
  auto m = smallModel();
  FitRun run(*m, {x}, {y}, {.epochs = 1, .batchSize = 8});
  int reads = 0, ends = 0;
  for (Event e = run.next(); e != Event::kDone; e = run.next()) {
    if (e == Event::kBatchEnd) ++ends;
    if (e != Event::kRead) continue;
    if (++reads == 2) run.lost();
    else run.provide(run.values().toFloats());
  }
  EXPECT_EQ(ends, 3);
  EXPECT_EQ(run.deviceLosses(), 1);

  FitRun twice(*m, {x}, {y}, {.epochs = 1, .batchSize = 8});
  reads = 0;
  auto driveLosingEveryRead = [&] {
    for (Event e = twice.next(); e != Event::kDone; e = twice.next()) {
      if (e != Event::kRead) continue;
      ++reads;
      twice.lost();
    }
  };
  EXPECT_THROW(driveLosingEveryRead(), DeviceLostError);
  EXPECT_EQ(reads, 2);
  expectError([&] { twice.next(); }, {"Sequential.fit", "failed earlier"});
  // The run let go of the model: it trains again.
  EXPECT_NO_THROW(m->fit(x, y, {.epochs = 1}));
}

TEST(FitRun, StopTrainingEndsAfterTheBatch) {
  setSeed(15);
  const std::pair<Tensor, Tensor> d6 = data(32, 8);
  const Tensor &x = d6.first, &y = d6.second;
  auto m = smallModel();
  FitRun run(*m, {x}, {y}, {.epochs = 5, .batchSize = 8, .validationSplit = 0.25f});
  int ends = 0;
  std::string events;
  for (Event e = run.next(); e != Event::kDone; e = run.next()) {
    events += "TEBNVRbSedx"[static_cast<int>(e)];
    if (e == Event::kRead) run.provide(run.values().toFloats());
    if (e == Event::kBatchEnd && ++ends == 2) m->stopTraining = true;
  }
  // No validation of a cut epoch; no further epoch.
  EXPECT_EQ(events, "TEBRbBRbed");
  EXPECT_EQ(run.history().epoch, std::vector<int>{0});
}

TEST(FitRun, MisuseNamesTheEvent) {
  setSeed(16);
  const std::pair<Tensor, Tensor> d7 = data(16, 9);
  const Tensor &x = d7.first, &y = d7.second;
  auto m = smallModel();
  FitRun run(*m, {x}, {y}, {.epochs = 1, .batchSize = 8});
  expectError([&] { run.provide({1.f}); }, {"Sequential.fit (not started)", "provide() without"});
  EXPECT_EQ(run.next(), Event::kTrainBegin);
  expectError([&] { run.feed({x}, {y}); }, {"(trainBegin)", "feed() without a batch wanted"});
  EXPECT_EQ(run.next(), Event::kEpochBegin);
  EXPECT_EQ(run.next(), Event::kBatchBegin);
  EXPECT_EQ(run.next(), Event::kRead);
  expectError([&] { run.next(); }, {"(read)", "call provide() or lost() first"});
  expectError([&] { run.provide({1.f, 2.f, 3.f, 4.f, 5.f}); }, {"finishLogs", "got 5 values"});
  // A failed provide ends the run.
  expectError([&] { run.next(); }, {"failed earlier"});
  FitRun dataset(*m, FitDatasetOptions{}, false);
  expectError([&] { dataset.run(); }, {"fitDataset", "needs a driver"});
}

}  // namespace
}  // namespace glint::testing
