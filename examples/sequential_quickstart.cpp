// The README's Layers API example, built so it cannot rot: learn XOR.
#include <cstdio>

#include "glint/glint.h"
#include "glint/model.h"
#include "glint/optim.h"

using namespace glint;

int main() {
  setSeed(1);
  auto model = sequential();
  model->add(layers::dense({{"units", 8}, {"activation", "tanh"}, {"inputShape", {2}}}));
  model->add(layers::dense({{"units", 1}, {"activation", "sigmoid"}}));
  model->compile({.optimizer = std::shared_ptr<Optimizer>(adam(0.05f)),
                  .loss = {"binaryCrossentropy"},
                  .metrics = {"accuracy"}});

  Tensor x = tensor({0, 0, 0, 1, 1, 0, 1, 1}, {4, 2});
  Tensor y = tensor({0, 1, 1, 0}, {4, 1});
  History h = model->fit(x, y, {.epochs = 300, .batchSize = 4});
  std::printf("final loss %.4f\n%s\n", h.history["loss"].back(),
              model->predict(x).toString().c_str());
}
