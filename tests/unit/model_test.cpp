// Models: graph discovery, execution, weights, configs (TF.js 4.22 format),
// Sequential add/pop, summary, and configuration errors.
#include "glint/model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "glint/glint.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "op_harness.h"

// Designated initializers leave the other options at their defaults on purpose.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace glint::testing {
namespace {

/// A custom merge layer, so graph tests do not depend on the merge family.
class SumLayer : public Layer {
 public:
  explicit SumLayer(const Json& args) : Layer(args, "test_sum") {}
  std::string className() const override { return "TestSum"; }
  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    if (in.empty()) error("needs inputs");
    for (const Shape& s : in)
      if (s != in[0]) error("inputs differ: " + shapeToString(s) + " vs " + shapeToString(in[0]));
    return {in[0]};
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    Tensor y = in[0];
    for (size_t i = 1; i < in.size(); ++i) y = add(y, in[i]);
    return {y};
  }
};

LayerPtr sumLayer(const Json& args = Json::object()) {
  static bool registered = [] {
    layers::registerLayerClass("TestSum",
                               [](const Json& c) { return std::make_shared<SumLayer>(c); });
    return true;
  }();
  (void)registered;
  return std::make_shared<SumLayer>(args);
}

LayerPtr dense(int units, const std::string& name, const std::string& activation = "linear") {
  return layers::dense({{"units", units}, {"name", name}, {"activation", activation}});
}

std::vector<std::string> layerNames(const Model& m) {
  std::vector<std::string> out;
  for (const auto& l : m.layers()) out.push_back(l->name());
  return out;
}

void expectClose(const Tensor& a, const Tensor& b, float tol = 1e-5f) {
  ASSERT_EQ(a.shape(), b.shape());
  std::vector<float> x = a.toFloats(), y = b.toFloats();
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(x[i], y[i], tol * std::max(1.0f, std::abs(y[i])));
}

/// Unordered comparison (key order is not part of the JSON format).
bool sameJson(const Json& a, const Json& b) {
  return nlohmann::json::parse(a.dump()) == nlohmann::json::parse(b.dump());
}

TEST(Model, BranchesRunInTopologicalOrder) {
  auto in = input({{"shape", {4}}, {"name", "br_in"}});
  auto a = dense(3, "br_a", "relu"), b = dense(3, "br_b", "tanh"), head = dense(2, "br_head");
  auto s = sumLayer({{"name", "br_sum"}});
  auto out = head->apply(s->apply(std::vector<SymbolicTensorPtr>{a->apply(in), b->apply(in)})[0]);
  auto m = model({in}, {out}, {{"name", "branchy"}});
  EXPECT_EQ(layerNames(*m),
            (std::vector<std::string>{"br_in", "br_a", "br_b", "br_sum", "br_head"}));
  EXPECT_EQ(m->computeOutputShape({{-1, 4}}), (std::vector<Shape>{{-1, 2}}));

  Tensor x = randomNormal({5, 4}, 0, 1, 7);
  // The same layers applied eagerly, by hand.
  Tensor expected = head->apply(s->apply(std::vector<Tensor>{a->apply(x), b->apply(x)})[0]);
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE(backend);
    std::string saved = getBackend();
    setBackend(backend);
    expectClose(m->predict(x), expected);
    expectClose(m->apply(x), expected);  // a model is a layer too
    setBackend(saved);
  }
  EXPECT_EQ(m->getLayer("br_sum"), s);
  expectError([&] { m->getLayer("nope"); }, {"no layer named 'nope'", "br_head"});
}

TEST(Model, SharedLayerHasOneSetOfWeightsAndTwoNodes) {
  auto a = input({{"shape", {4}}, {"name", "sh_a"}});
  auto b = input({{"shape", {4}}, {"name", "sh_b"}});
  auto shared = dense(3, "sh_shared");
  auto ya = shared->apply(a), yb = shared->apply(b);
  auto head = dense(2, "sh_head");
  auto h = head->apply(ya);
  auto m = model({a, b}, {h, yb}, {{"name", "fun"}});
  // TF.js 4.22 orders this graph the same way (depth, then discovery).
  EXPECT_EQ(layerNames(*m), (std::vector<std::string>{"sh_a", "sh_shared", "sh_b", "sh_head"}));
  EXPECT_EQ(shared->inboundNodes().size(), 2u);
  EXPECT_EQ(m->weights().size(), 4u);  // shared kernel+bias once, head kernel+bias
  EXPECT_EQ(m->countParams(), 15 + 8);

  Tensor xa = randomNormal({3, 4}, 0, 1, 1), xb = randomNormal({3, 4}, 0, 1, 2);
  std::vector<Tensor> got = m->predict({xa, xb});
  ASSERT_EQ(got.size(), 2u);
  expectClose(got[0], head->apply(shared->apply(xa)));
  expectClose(got[1], shared->apply(xb));

  // The config TF.js 4.22 writes for this graph (tf.model(...).toJSON()).
  Json config = m->getConfig();
  EXPECT_EQ(config["name"], "fun");
  EXPECT_EQ(config["input_layers"], Json::parse(R"([["sh_a",0,0],["sh_b",0,0]])"));
  EXPECT_EQ(config["output_layers"], Json::parse(R"([["sh_head",0,0],["sh_shared",1,0]])"));
  EXPECT_EQ(config["layers"][0]["inbound_nodes"], Json::array());
  EXPECT_EQ(config["layers"][0]["class_name"], "InputLayer");
  EXPECT_EQ(config["layers"][1]["inbound_nodes"],
            Json::parse(R"([[["sh_a",0,0,{}]],[["sh_b",0,0,{}]]])"));
  EXPECT_EQ(config["layers"][3]["inbound_nodes"], Json::parse(R"([[["sh_shared",0,0,{}]]])"));
  std::vector<std::string> keys;
  for (const auto& [k, v] : config["layers"][1].items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"name", "class_name", "config", "inbound_nodes"}));
}

TEST(Model, ConfigRoundTripPredictsTheSame) {
  auto a = input({{"shape", {4}}, {"name", "rt_a"}});
  auto b = input({{"shape", {4}}, {"name", "rt_b"}});
  auto shared = dense(3, "rt_shared", "relu");
  auto s = sumLayer({{"name", "rt_sum"}})
               ->apply(std::vector<SymbolicTensorPtr>{shared->apply(a), shared->apply(b)});
  auto out1 = dense(2, "rt_out1", "softmax")->apply(s[0]);
  auto out2 = dense(1, "rt_out2", "sigmoid")->apply(shared->apply(a));  // a third call of shared
  auto m = model({a, b}, {out1, out2}, {{"name", "rt_model"}});
  Json topology{{"class_name", "Model"}, {"config", m->getConfig()}};
  ModelPtr copy = modelFromConfig(Json::parse(topology.dump()));  // through text, as from a file
  EXPECT_EQ(layerNames(*copy), layerNames(*m));
  EXPECT_TRUE(sameJson(copy->getConfig(), m->getConfig()));
  copy->setWeights(m->getWeights());
  Tensor xa = randomNormal({6, 4}, 0, 1, 3), xb = randomNormal({6, 4}, 0, 1, 4);
  std::vector<Tensor> p = m->predict({xa, xb}), q = copy->predict({xa, xb});
  ASSERT_EQ(q.size(), 2u);
  expectClose(q[0], p[0]);
  expectClose(q[1], p[1]);
}

TEST(Model, SequentialConfigRoundTrip) {
  auto m = sequential({{"name", "seq_rt"}});
  m->add(layers::dense(
      {{"units", 3}, {"activation", "relu"}, {"inputShape", {4}}, {"name", "seq_d1"}}));
  m->add(layers::dense({{"units", 2}, {"activation", "softmax"}, {"name", "seq_d2"}}));
  Json config = m->getConfig();
  EXPECT_EQ(config["name"], "seq_rt");
  ASSERT_EQ(config["layers"].size(), 2u);  // no InputLayer entry, as TF.js writes it
  EXPECT_EQ(config["layers"][0]["class_name"], "Dense");
  EXPECT_EQ(config["layers"][0]["config"]["batch_input_shape"], Json::parse("[null, 4]"));
  EXPECT_EQ(layerNames(*m), (std::vector<std::string>{"seq_d1", "seq_d2"}));
  EXPECT_EQ(m->inputs()[0]->name, "seq_d1_input");

  ModelPtr copy = modelFromConfig(Json{{"class_name", "Sequential"}, {"config", config}});
  EXPECT_EQ(copy->className(), "Sequential");
  EXPECT_TRUE(sameJson(copy->getConfig(), config));
  copy->setWeights(m->getWeights());
  Tensor x = randomNormal({5, 4}, 0, 1, 9);
  expectClose(copy->predict(x), m->predict(x));
}

TEST(Model, LoadsTopologiesWrittenByTfjs) {
  // Written by TF.js 4.22 (model.toJSON(null, false)) for the models built in
  // the two tests above (layer configs trimmed to what matters here).
  const char* seqJson = R"({"class_name":"Sequential","config":{"name":"tfjs_seq","layers":[
    {"class_name":"Dense","config":{"units":3,"activation":"relu","use_bias":true,
      "kernel_initializer":{"class_name":"VarianceScaling","config":{"scale":1,"mode":"fan_avg","distribution":"normal","seed":null}},
      "bias_initializer":{"class_name":"Zeros","config":{}},"kernel_regularizer":null,"bias_regularizer":null,
      "activity_regularizer":null,"kernel_constraint":null,"bias_constraint":null,"name":"tfjs_d1",
      "trainable":true,"batch_input_shape":[null,4],"dtype":"float32"}},
    {"class_name":"Dense","config":{"units":2,"activation":"softmax","use_bias":true,"name":"tfjs_d2","trainable":true}}]},
    "keras_version":"tfjs-layers 4.22.0","backend":"tensor_flow.js"})";
  ModelPtr s = modelFromConfig(Json::parse(seqJson));
  EXPECT_EQ(s->name(), "tfjs_seq");
  EXPECT_EQ(s->computeOutputShape({{-1, 4}}), (std::vector<Shape>{{-1, 2}}));
  EXPECT_EQ(s->countParams(), 15 + 8);

  const char* funJson = R"({"class_name":"Model","config":{"name":"tfjs_fun","layers":[
    {"name":"tf_in_a","class_name":"InputLayer","config":{"batch_input_shape":[null,4],"dtype":"float32","sparse":false,"name":"tf_in_a"},"inbound_nodes":[]},
    {"name":"tf_shared","class_name":"Dense","config":{"units":3,"activation":"linear","use_bias":true,"name":"tf_shared","trainable":true},
     "inbound_nodes":[[["tf_in_a",0,0,{}]],[["tf_in_b",0,0,{}]]]},
    {"name":"tf_in_b","class_name":"InputLayer","config":{"batch_input_shape":[null,4],"dtype":"float32","sparse":false,"name":"tf_in_b"},"inbound_nodes":[]},
    {"name":"tf_head","class_name":"Dense","config":{"units":2,"activation":"linear","use_bias":true,"name":"tf_head","trainable":true},
     "inbound_nodes":[[["tf_shared",0,0,{}]]]}],
    "input_layers":[["tf_in_a",0,0],["tf_in_b",0,0]],"output_layers":[["tf_head",0,0],["tf_shared",1,0]]},
    "keras_version":"tfjs-layers 4.22.0","backend":"tensor_flow.js"})";
  ModelPtr f = modelFromConfig(Json::parse(funJson));
  EXPECT_EQ(layerNames(*f),
            (std::vector<std::string>{"tf_in_a", "tf_shared", "tf_in_b", "tf_head"}));
  Json back = f->getConfig();
  Json original = Json::parse(funJson)["config"];
  EXPECT_EQ(back["input_layers"], original["input_layers"]);
  EXPECT_EQ(back["output_layers"], original["output_layers"]);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(back["layers"][i]["name"], original["layers"][i]["name"]);
    EXPECT_EQ(back["layers"][i]["inbound_nodes"], original["layers"][i]["inbound_nodes"]);
  }
  // The shared layer computes the second output from the second input.
  Tensor xb = randomNormal({2, 4}, 0, 1, 5);
  expectClose(f->predict({zeros({2, 4}), xb})[1], f->getLayer("tf_shared")->apply(xb));
  // Keras's "Functional" class name loads too.
  Json functional = Json::parse(funJson);
  functional["class_name"] = "Functional";
  for (auto& l : functional["config"]["layers"]) {
    l["name"] = "k_" + l["name"].get<std::string>();
    l["config"]["name"] = l["name"];
    for (auto& node : l["inbound_nodes"])
      for (auto& ref : node) ref[0] = "k_" + ref[0].get<std::string>();
  }
  for (auto* key : {"input_layers", "output_layers"})
    for (auto& ref : functional["config"][key]) ref[0] = "k_" + ref[0].get<std::string>();
  EXPECT_EQ(modelFromConfig(functional)->outputs().size(), 2u);
}

TEST(Model, NestedModelIsALayer) {
  auto inner = sequential({{"name", "nest_inner"}});
  inner->add(layers::dense(
      {{"units", 3}, {"inputShape", {4}}, {"name", "nest_d1"}, {"activation", "relu"}}));
  inner->add(dense(2, "nest_d2"));
  auto in = input({{"shape", {4}}, {"name", "nest_in"}});
  auto out = dense(1, "nest_head")->apply(inner->apply(in));
  auto m = model({in}, {out}, {{"name", "nest_outer"}});
  EXPECT_EQ(layerNames(*m), (std::vector<std::string>{"nest_in", "nest_inner", "nest_head"}));
  EXPECT_EQ(m->weights().size(), 6u);
  EXPECT_EQ(m->countParams(), 15 + 8 + 3);
  Json config = m->getConfig();
  EXPECT_EQ(config["layers"][1]["class_name"], "Sequential");
  ModelPtr copy = modelFromConfig(Json{{"class_name", "Model"}, {"config", config}});
  EXPECT_EQ(copy->getLayer("nest_inner")->className(), "Sequential");
  copy->setWeights(m->getWeights());
  Tensor x = randomNormal({3, 4}, 0, 1, 11);
  expectClose(copy->predict(x), m->predict(x));
  // Freezing the outer model freezes everything inside.
  m->setTrainable(false);
  EXPECT_TRUE(m->trainableWeights().empty());
  EXPECT_EQ(m->nonTrainableWeights().size(), 6u);
  EXPECT_FALSE(inner->getLayer("nest_d1")->trainable());
  m->setTrainable(true);
  EXPECT_EQ(m->trainableWeights().size(), 6u);
}

TEST(Model, SequentialAddValidatesShapesAndPopRemoves) {
  auto m = sequential({{"name", "seq_add"}});
  expectError([&] { m->add(dense(3, "seq_add_noshape")); },
              {"Sequential 'seq_add'", "first layer", "seq_add_noshape", "inputShape"});
  m->add(layers::dense({{"units", 6}, {"inputShape", {4}}, {"name", "seq_add_d1"}}));
  // Reshape to [4] cannot take 6 values: caught when the layer is added.
  expectError(
      [&] {
        m->add(layers::reshape({{"targetShape", {4}}, {"name", "seq_add_bad"}}));
      },
      {"cannot add layer 'seq_add_bad'", "(Reshape)", "[-1,6]"});
  EXPECT_EQ(m->layers().size(), 1u);
  // A layer already built for another input size.
  auto built = dense(2, "seq_add_built");
  built->apply(zeros({1, 5}));
  expectError([&] { m->add(built); }, {"seq_add_built", "5 input features"});
  m->add(layers::reshape({{"targetShape", {2, 3}}, {"name", "seq_add_r"}}));
  m->add(layers::flatten({{"name", "seq_add_f"}}));
  EXPECT_EQ(m->outputs()[0]->shape, (Shape{-1, 6}));
  m->pop();
  EXPECT_EQ(m->outputs()[0]->shape, (Shape{-1, 2, 3}));
  EXPECT_EQ(layerNames(*m), (std::vector<std::string>{"seq_add_d1", "seq_add_r"}));
  m->pop();
  m->pop();
  EXPECT_TRUE(m->layers().empty());
  expectError([&] { m->pop(); }, {"no layers"});
  expectError([&] { m->compile({.optimizer = "sgd", .loss = {"mse"}}); }, {"no layers"});
  // An explicit InputLayer first, as Keras writes Sequential configs.
  m->add(layers::inputLayer({{"batchInputShape", {-1, 3}}, {"name", "seq_add_in"}}));
  m->add(dense(2, "seq_add_d3"));
  EXPECT_EQ(layerNames(*m), (std::vector<std::string>{"seq_add_in", "seq_add_d3"}));
  EXPECT_EQ(m->getConfig()["layers"][0]["class_name"], "InputLayer");
  expectClose(m->predict(ones({2, 3})), m->getLayer("seq_add_d3")->apply(ones({2, 3})));
}

TEST(Model, FunctionalGraphErrors) {
  auto in = input({{"shape", {4}}, {"name", "err_in"}});
  auto other = input({{"shape", {4}}, {"name", "err_other"}});
  auto h = dense(3, "err_h")->apply(in);
  expectError([&] { model({h}, {h}); }, {"not a graph input", "err_h"});
  auto mixed = sumLayer({{"name", "err_sum"}})
                   ->apply(std::vector<SymbolicTensorPtr>{h, dense(3, "err_o")->apply(other)});
  expectError([&] { model({in}, {mixed[0]}); }, {"graph disconnected", "err_other"});
  expectError([&] { model({in, other}, {h}); }, {"err_other", "not connected"});
  auto d = dense(3, "err_dup");
  auto d2 = dense(3, "err_dup");
  expectError([&] { model({in}, {d2->apply(d->apply(in))}); }, {"err_dup", "more than once"});
  // Incompatible shapes are caught when a layer is connected.
  expectError(
      [&] {
        sumLayer({{"name", "err_sum2"}})->apply(std::vector<SymbolicTensorPtr>{h, in});
      },
      {"err_sum2", "inputs differ"});
  auto m = model({in}, {h});
  expectError([&] { m->predict(ones({2, 5})); }, {"x has shape [2,5]", "expects [-1,4]"});
  expectError(
      [&] {
        modelFromConfig(Json{{"class_name", "Nope"}, {"config", Json::object()}});
      },
      {"modelFromConfig", "unknown model class 'Nope'"});
  expectError(
      [&] {
        layers::fromConfig("Model", Json::parse(R"({"name":"x","layers":[
    {"name":"i","class_name":"InputLayer","config":{"batch_input_shape":[null,2],"name":"err_cfg_i"},"inbound_nodes":[]},
    {"name":"d","class_name":"Dense","config":{"units":1,"name":"err_cfg_d"},"inbound_nodes":[[["ghost",0,0,{}]]]}],
    "input_layers":[["i",0,0]],"output_layers":[["d",0,0]]})"));
      },
      {"unknown layer 'ghost'"});
}

TEST(Model, SummaryCountsParameters) {
  auto m = sequential({{"name", "sum_seq"}});
  m->add(layers::dense({{"units", 3}, {"inputShape", {4}}, {"name", "sum_d1"}}));  // 4*3+3 = 15
  m->add(dense(2, "sum_d2"));                                                      // 3*2+2 = 8
  std::string s = m->summary(65);
  EXPECT_NE(s.find("Model: \"sum_seq\""), std::string::npos) << s;
  EXPECT_NE(s.find("Layer (type)"), std::string::npos) << s;
  EXPECT_NE(s.find("Output Shape"), std::string::npos) << s;
  EXPECT_NE(s.find("Param #"), std::string::npos) << s;
  EXPECT_EQ(s.find("Connected to"), std::string::npos) << s;
  EXPECT_NE(s.find("sum_d1 (Dense)"), std::string::npos) << s;
  EXPECT_NE(s.find("(None, 3)"), std::string::npos) << s;
  EXPECT_NE(s.find("Total params: 23\n"), std::string::npos) << s;
  EXPECT_NE(s.find("Trainable params: 23\n"), std::string::npos) << s;
  EXPECT_NE(s.find("Non-trainable params: 0\n"), std::string::npos) << s;
  for (size_t start = 0, end; (end = s.find('\n', start)) != std::string::npos; start = end + 1)
    EXPECT_LE(end - start, 65u);
  m->getLayer("sum_d1")->setTrainable(false);
  s = m->summary();
  EXPECT_NE(s.find("Trainable params: 8\n"), std::string::npos) << s;
  EXPECT_NE(s.find("Non-trainable params: 15\n"), std::string::npos) << s;

  auto in = input({{"shape", {100}}, {"name", "sum_in"}});
  auto big = dense(100, "sum_big");  // 100*100+100 = 10,100
  auto f = model({in}, {dense(1, "sum_out")->apply(big->apply(in))}, {{"name", "sum_fun"}});
  s = f->summary();
  EXPECT_NE(s.find("Connected to"), std::string::npos) << s;
  EXPECT_NE(s.find("sum_in (InputLayer)"), std::string::npos) << s;
  EXPECT_NE(s.find("sum_in[0][0]"), std::string::npos) << s;
  EXPECT_NE(s.find("sum_big[0][0]"), std::string::npos) << s;
  EXPECT_NE(s.find("10100"), std::string::npos) << s;
  EXPECT_NE(s.find("Total params: 10,201\n"), std::string::npos) << s;
}

TEST(Model, RegularizationLossesAndConstraints) {
  auto m = sequential();
  m->add(layers::dense(
      {{"units", 2},
       {"inputShape", {3}},
       {"kernelInitializer", "ones"},
       {"kernelRegularizer", {{"className", "L1L2"}, {"config", {{"l1", 0.0}, {"l2", 0.01}}}}}}));
  m->add(
      layers::dense({{"units", 1},
                     {"kernelInitializer", "ones"},
                     {"kernelConstraint", {{"className", "NonNeg"}, {"config", Json::object()}}}}));
  std::vector<Tensor> r = m->regularizationLosses();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_NEAR(r[0].item(), 0.01 * 6, 1e-6);  // l2 * sum(1^2) over the 3x2 kernel
  m->layers()[1]->setWeights({tensor({-1.0f, 2.0f}, {2, 1}), zeros({1})});
  m->applyConstraints();
  EXPECT_EQ(m->layers()[1]->getWeights()[0].toFloats(), (std::vector<float>{0.0f, 2.0f}));
}

}  // namespace
}  // namespace glint::testing
