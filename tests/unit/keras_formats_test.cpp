// Keras 3 and Keras 2 model files: what loads is checked against TF.js in
// the layer parity suite (tests/interop/layer_cases/keras_formats.mjs); here,
// what must not load gets an error that names the layer and the setting.
#include <gtest/gtest.h>

#include "glint/json.h"
#include "glint/layers.h"
#include "glint/model.h"
#include "tests/unit/op_harness.h"

namespace glint::testing {
namespace {

Json policy(const std::string& cls, const std::string& name) {
  return {{"module", "keras"},
          {"class_name", cls},
          {"config", {{"name", name}}},
          {"registered_name", nullptr}};
}

ModelPtr sequentialWith(const Json& denseConfig) {
  Json input = {
      {"class_name", "InputLayer"},
      {"config",
       {{"batch_shape", {nullptr, 3}}, {"dtype", "float32"}, {"name", "in"}, {"optional", false}}}};
  Json dense = {{"module", "keras.layers"},
                {"class_name", "Dense"},
                {"config", denseConfig},
                {"registered_name", nullptr}};
  return modelFromConfig(
      Json{{"class_name", "Sequential"}, {"config", {{"name", "s"}, {"layers", {input, dense}}}}});
}

TEST(KerasFormats, Keras3DenseWithNeutralKeysLoads) {
  ModelPtr m = sequentialWith({{"name", "d"},
                               {"units", 2},
                               {"dtype", policy("DTypePolicy", "float32")},
                               {"lora_rank", nullptr},
                               {"quantization_config", nullptr}});
  EXPECT_EQ(m->outputs()[0]->shape, (Shape{-1, 2}));
  // Mixed precision keeps float32 variables: it loads and computes in float32.
  ModelPtr mixed = sequentialWith(
      {{"name", "d"}, {"units", 2}, {"dtype", policy("DTypePolicy", "mixed_float16")}});
  EXPECT_EQ(mixed->outputs()[0]->dtype, DType::float32);
}

TEST(KerasFormats, KerasFeaturesGlintLacksAreRefusedByName) {
  expectError(
      [] {
        sequentialWith({{"name", "d"}, {"units", 2}, {"lora_rank", 4}});
      },
      {"Dense", "'d'", "lora_rank", "is 4", "only at null"});
  expectError(
      [] {
        sequentialWith({{"name", "d"},
                        {"units", 2},
                        {"dtype", policy("QuantizedDTypePolicy", "int8_from_float32")}});
      },
      {"dtype", "QuantizedDTypePolicy", "int8_from_float32"});
  expectError(
      [] {
        sequentialWith({{"name", "d"}, {"units", 2}, {"dtype", {{"class_name", "DTypePolicy"}}}});
      },
      {"dtype", "DTypePolicy"});
  expectError(
      [] {
        sequentialWith({{"name", "d"}, {"units", 2}, {"dtype", policy("DTypePolicy", "float16")}});
      },
      {"dtype must be float32 or int32", "float16"});
  expectError(
      [] {
        layers::fromConfig("Conv2D",
                           Json{{"name", "c"}, {"filters", 2}, {"kernel_size", 3}, {"groups", 2}});
      },
      {"Conv2D", "'c'", "groups", "must be 1"});
}

Json kerasTensor(const std::string& layer) {
  return {{"class_name", "__keras_tensor__"},
          {"config",
           {{"shape", {nullptr, 3}}, {"dtype", "float32"}, {"keras_history", {layer, 0, 0}}}}};
}

Json functional(const Json& denseInbound) {
  Json input = {{"class_name", "InputLayer"},
                {"name", "in"},
                {"config", {{"batch_shape", {nullptr, 3}}, {"name", "in"}}},
                {"inbound_nodes", Json::array()}};
  Json dense = {{"class_name", "Dense"},
                {"name", "d"},
                {"config", {{"name", "d"}, {"units", 2}}},
                {"inbound_nodes", Json::array({denseInbound})}};
  return {{"class_name", "Functional"},
          {"config",
           {{"name", "f"},
            {"layers", {input, dense}},
            {"input_layers", {"in", 0, 0}},
            {"output_layers", {"d", 0, 0}}}}};
}

TEST(KerasFormats, Keras3InboundNodes) {
  ModelPtr m =
      modelFromConfig(functional({{"args", {kerasTensor("in")}}, {"kwargs", Json::object()}}));
  EXPECT_EQ(m->outputs()[0]->shape, (Shape{-1, 2}));
  expectError(
      [] {
        modelFromConfig(functional(
            {{"args", {kerasTensor("in")}}, {"kwargs", {{"initial_state", {kerasTensor("in")}}}}}));
      },
      {"layer 'd'", "passes a tensor as 'initial_state'"});
  expectError(
      [] {
        modelFromConfig(functional({{"args", {kerasTensor("in"), 3}}, {"kwargs", Json::object()}}));
      },
      {"layer 'd'", "passes 3 where a tensor was expected"});
  expectError(
      [] {
        modelFromConfig(functional({{"args", Json::array()}, {"kwargs", Json::object()}}));
      },
      {"layer 'd'", "passes no tensor"});
  expectError(
      [] {
        modelFromConfig(functional(
            {{"args", {{{"class_name", "__keras_tensor__"}, {"config", Json::object()}}}}}));
      },
      {"layer 'd'", "keras_history"});
  expectError(
      [] {
        modelFromConfig(functional({{"args", {kerasTensor("nowhere")}}}));
      },
      {"layer 'd'", "unknown layer 'nowhere'"});
}

TEST(KerasFormats, BidirectionalBackwardLayerMustMirrorTheForwardOne) {
  Json lstm = {{"class_name", "LSTM"}, {"config", {{"name", "forward_lstm"}, {"units", 2}}}};
  Json backward = {{"class_name", "LSTM"},
                   {"config", {{"name", "backward_lstm"}, {"units", 2}, {"go_backwards", true}}}};
  LayerPtr ok = layers::fromConfig(
      "Bidirectional", Json{{"name", "b"}, {"layer", lstm}, {"backward_layer", backward}});
  EXPECT_EQ(ok->className(), "Bidirectional");
  Json other = backward;
  other["config"]["units"] = 3;
  expectError(
      [&] {
        layers::fromConfig("Bidirectional",
                           Json{{"name", "b"}, {"layer", lstm}, {"backward_layer", other}});
      },
      {"Bidirectional", "backward_layer", "'backward_lstm'", "'forward_lstm'", "not supported"});
  Json sameWay = backward;
  sameWay["config"]["go_backwards"] = false;
  expectError(
      [&] {
        layers::fromConfig("Bidirectional",
                           Json{{"name", "b"}, {"layer", lstm}, {"backward_layer", sameWay}});
      },
      {"Bidirectional", "backward_layer"});
}

}  // namespace
}  // namespace glint::testing
