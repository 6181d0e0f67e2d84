// docs/CPP.md's third example: pick a backend, train with a validation split,
// read the history safely, save in the TF.js format, load it back, and predict
// from four threads at once.
#include <cstdio>
#include <filesystem>
#include <thread>
#include <vector>

#include "glint/glint.h"

using namespace glint;

int main() {
  // Natively the automatic choice is cpu (small models train faster there than
  // through fragment shaders); setBackend("gl") asks for the GPU. Every
  // backend is listed with why it is or is not available.
  setBackend("cpu");
  for (const BackendStatus& b : backendInfo().backends)
    std::printf("%-9s %s\n", b.name.c_str(), b.available ? "available" : b.reason.c_str());

  // Two classes: points around (1, 1) and around (-1, -1).
  setSeed(3);
  const int64_t n = 400;
  Tensor labels = cast(greater(randomUniform({n, 1}), scalar(0.5f)), DType::float32);
  Tensor x =
      add(mul(sub(mul(labels, scalar(2)), scalar(1)), ones({n, 2})), randomNormal({n, 2}, 0, 0.7f));

  auto model = sequential();
  model->add(layers::dense({{"units", 16}, {"activation", "relu"}, {"inputShape", {2}}}));
  model->add(layers::dense({{"units", 1}, {"activation", "sigmoid"}}));
  model->compile({.optimizer = std::shared_ptr<Optimizer>(adam(0.02f)),
                  .loss = {"binaryCrossentropy"},
                  .metrics = {"accuracy"}});
  History history = model->fit(x, labels, {.epochs = 20, .batchSize = 32, .validationSplit = 0.2f});
  // get() knows Keras's and TF.js's names ("val_accuracy", "val_acc") and
  // throws, listing the keys, for a name it does not know.
  std::printf("validation accuracy %.3f\n", history.get("val_accuracy").back());
  try {
    history.get("val_acuracy");  // a typo
  } catch (const Error& e) {     // every misuse is a glint::Error naming what went wrong
    std::printf("%s\n", e.what());
  }

  const std::string dir = (std::filesystem::temp_directory_path() / "glint_example_model").string();
  io::save(*model, dir);  // model.json + weights.bin, as TF.js's model.save writes
  ModelPtr loaded = io::load(dir);

  // One model, four threads: predict is safe from several threads at once.
  Tensor probe = tensor({1, 1, -1, -1, 0.5f, 0.8f, -2, 0.1f}, {4, 2});
  std::vector<std::vector<float>> results(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] { results[t] = loaded->predict(probe).toFloats(); });
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < 4; ++t)
    std::printf("thread %d: %.3f %.3f %.3f %.3f\n", t, results[t][0], results[t][1], results[t][2],
                results[t][3]);
  std::filesystem::remove_all(dir);
}
