#include "glint/standard_models.h"

#include "glint/error.h"
#include "glint/optim.h"

namespace glint {

std::vector<std::string> standardModelNames() { return {"mlp", "cnn", "lstm"}; }

Shape standardModelInputShape(const std::string& name) {
  if (name == "mlp") return {784};
  if (name == "cnn") return {28, 28, 1};
  if (name == "lstm") return {28, 28};
  fail("standardModel", "unknown model '", name, "': expected mlp, cnn or lstm");
}

ModelPtr standardModel(const std::string& name) {
  Shape in = standardModelInputShape(name);
  auto m = sequential({{"name", name}});
  if (name == "mlp") {
    m->add(layers::dense({{"units", 128}, {"activation", "relu"}, {"inputShape", in}}));
  } else if (name == "cnn") {
    m->add(layers::conv2d(
        {{"filters", 8}, {"kernelSize", 3}, {"activation", "relu"}, {"inputShape", in}}));
    m->add(layers::maxPooling2d({{"poolSize", 2}}));
    m->add(layers::conv2d({{"filters", 16}, {"kernelSize", 3}, {"activation", "relu"}}));
    m->add(layers::maxPooling2d({{"poolSize", 2}}));
    m->add(layers::flatten());
  } else {
    m->add(layers::lstm({{"units", 128}, {"inputShape", in}}));
  }
  m->add(layers::dense({{"units", 10}, {"activation", "softmax"}}));
  CompileOptions options;
  options.optimizer = std::shared_ptr<Optimizer>(adam(1e-3f));
  options.loss = {std::string("categoricalCrossentropy")};
  options.metrics = {"accuracy"};
  m->compile(options);
  return m;
}

}  // namespace glint
