// Core layers: shapes, configs, errors, and gradients through the layer harness.
#include <gtest/gtest.h>

#include "glint/glint.h"
#include "glint/initializers.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "layer_harness.h"
#include "op_harness.h"

namespace glint::testing {
namespace {

TEST(LayersCore, DenseGradients) {
  checkLayer({"dense_relu",
              [] {
                return layers::dense({{"units", 3}, {"activation", "tanh"}});
              },
              {{2, 4}}});
  checkLayer({"dense_rank3_nobias",
              [] {
                return layers::dense({{"units", 2}, {"useBias", false}});
              },
              {{2, 3, 4}}});
}

TEST(LayersCore, EmbeddingGradients) {
  checkLayer({"embedding",
              [] {
                return layers::embedding({{"inputDim", 5}, {"outputDim", 3}});
              },
              {{2, 3}},
              {DType::int32}});
}

TEST(LayersCore, ShapeLayersGradients) {
  checkLayer({"flatten", [] { return layers::flatten(); }, {{2, 3, 2}}});
  checkLayer({"reshape", [] { return layers::reshape({{"targetShape", {3, -1}}}); }, {{2, 6}}});
  checkLayer({"permute", [] { return layers::permute({{"dims", {2, 1}}}); }, {{2, 3, 4}}});
  checkLayer({"activation",
              [] {
                return layers::activation({{"activation", "sigmoid"}});
              },
              {{2, 3}}});
}

TEST(LayersCore, DenseComputesXWPlusB) {
  auto d = layers::dense(
      {{"units", 2},
       {"kernelInitializer", "ones"},
       {"biasInitializer", {{"className", "Constant"}, {"config", {{"value", 0.5}}}}}});
  Tensor y = d->apply(tensor({1, 2, 3}, {1, 3}));
  EXPECT_EQ(y.data<float>(), (std::vector<float>{6.5f, 6.5f}));
  EXPECT_EQ(d->countParams(), 8);
  EXPECT_EQ(d->weights()[0].name(), d->name() + "/kernel");
}

TEST(LayersCore, DropoutOnlyInTraining) {
  auto d = layers::dropout({{"rate", 0.5}, {"seed", 3}});
  Tensor x = ones({4, 100});
  EXPECT_EQ(d->apply(x, false).data<float>(), x.data<float>());
  std::vector<float> t = d->apply(x, true).data<float>();
  int zeros = 0;
  for (float v : t) {
    EXPECT_TRUE(v == 0.0f || v == 2.0f);
    zeros += v == 0.0f;
  }
  EXPECT_GT(zeros, 100);
  EXPECT_LT(zeros, 300);
}

TEST(LayersCore, ConfigRoundTripsThroughTheRegistry) {
  auto d =
      layers::dense({{"units", 4}, {"activation", "relu"}, {"inputShape", {3}}, {"name", "head"}});
  Json config = d->getConfig();
  EXPECT_EQ(config["units"], 4);
  EXPECT_EQ(config["name"], "head");
  EXPECT_EQ(config["batch_input_shape"], Json::parse("[null, 3]"));
  EXPECT_EQ(config["kernel_initializer"]["class_name"],
            d->getConfig()["kernel_initializer"]["class_name"]);
  LayerPtr copy = layers::fromConfig("Dense", config);
  EXPECT_EQ(copy->getConfig().dump(), config.dump());
}

TEST(LayersCore, ErrorsNameTheLayerAndTheArgument) {
  expectError([] { layers::dense({{"unit", 3}}); }, {"Dense", "'unit'", "units"});
  expectError(
      [] {
        layers::dense({{"units", 3}, {"activation", "relux"}});
      },
      {"activation", "relux", "relu"});
  expectError([] { layers::dense({{"units", -1}}); }, {"units", "positive"});
  // A declared input shape shapes a model's input only, as in TF.js (Keras 2
  // leaves it on inner layers): the layer builds for the input it gets, and
  // then checks that input as always.
  auto d = layers::dense({{"units", 2}, {"inputShape", {3}}});
  EXPECT_EQ(d->apply(ones({2, 4})).shape(), (Shape{2, 2}));
  expectError([&] { d->apply(ones({2, 3})); }, {"Dense", "4 input features", "[2,3]"});
  expectError(
      [] {
        layers::reshape({{"targetShape", {4}}})->apply(ones({2, 6}));
      },
      {"Reshape", "[4]"});
  expectError([] { layers::permute({{"dims", {1, 3}}}); }, {"Permute", "dims", "permutation"});
  expectError([] { layers::fromConfig("Densely", Json::object()); },
              {"unknown layer class 'Densely'", "Dense"});
  expectError(
      [] {
        layers::fromConfig("Densely", Json{{"name", "d7"}});
      },
      {"unknown layer class 'Densely'", "layer 'd7'", "registered"});
}

TEST(LayersCore, SymbolicApplyChecksShapesAndRecordsNodes) {
  SymbolicTensorPtr in = input({{"shape", {5}}});
  auto d = layers::dense({{"units", 3}});
  SymbolicTensorPtr out = d->apply(in);
  EXPECT_EQ(out->shape, (Shape{-1, 3}));
  EXPECT_EQ(out->node->layer.get(), d.get());
  EXPECT_EQ(d->inboundNodes().size(), 1u);
  expectError([&] { d->apply(input({{"shape", {6}}})); }, {"Dense", "5 input features", "[-1,6]"});
}

}  // namespace
}  // namespace glint::testing
