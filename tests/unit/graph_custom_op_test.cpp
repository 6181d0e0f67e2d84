// Graph-model ops written by the user (registerGraphOp, TF.js's
// tf.registerOp): a model with an op Glint lacks loads once it is
// registered, runs it with its inputs and decoded attributes, differentiates
// through it, and a registered op runs in place of a built-in one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "glint/glint.h"
#include "glint/graph_model.h"
#include "glint/json.h"
#include "tests/unit/op_harness.h"

namespace glint::testing {
namespace {

namespace fs = std::filesystem;

struct ModelDir {
  fs::path path;
  explicit ModelDir(const Json& model) {
    static int n = 0;
    path = fs::temp_directory_path() /
           ("glint_custom_op_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::remove_all(path);
    fs::create_directories(path);
    std::ofstream(path / "model.json") << model.dump();
  }
  ~ModelDir() { fs::remove_all(path); }
};

// out = Relu(ScaleShift(x)), ScaleShift an op no TensorFlow build has, with
// attributes of every kind the converter writes.
Json modelWithCustomOp() {
  return Json::parse(R"({"format": "graph-model", "modelTopology": {"node": [
    {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}}},
    {"name": "scaled", "op": "ScaleShift", "input": ["x"], "attr": {
      "factor": {"f": 2.5}, "shift": {"i": "-3"}, "label": {"s": "aGVsbG8="}, "T": {"type": "DT_FLOAT"},
      "on": {"b": true}, "dims": {"list": {"i": ["1", "2"]}}, "shape": {"shape": {"dim": [{"size": "-1"}, {"size": "4"}]}},
      "empty": {"list": {}}}},
    {"name": "out", "op": "Relu", "input": ["scaled"], "attr": {"T": {"type": "DT_FLOAT"}}}]}})");
}

struct Unregister {
  std::vector<std::string> names;
  ~Unregister() {
    for (const std::string& n : names) deregisterGraphOp(n);
  }
};

TEST(GraphCustomOp, AModelWithAnOpGlintLacksLoadsOnceRegistered) {
  ModelDir d(modelWithCustomOp());
  expectError([&] { GraphModel::load(d.path.string()); },
              {"'scaled'", "ScaleShift", "not supported", "registerGraphOp"});

  Unregister cleanup{{"ScaleShift"}};
  Json seen;
  registerGraphOp("ScaleShift", [&](const std::vector<Tensor>& in, const std::string& attrs) {
    seen = Json::parse(attrs);
    return std::vector<Tensor>{
        add(mul(in[0], scalar(seen["factor"].get<float>())), scalar(seen["shift"].get<float>()))};
  });
  GraphModel m = GraphModel::load(d.path.string());
  std::vector<float> xs{0, 1, 2, 3, -1, 1.5f};
  onEveryBackend([&] {
    Tensor y = m.predict(tensor(xs, {2, 3}));
    std::vector<float> want;
    for (float v : xs) want.push_back(std::max(0.0f, v * 2.5f - 3.0f));
    EXPECT_EQ(y.data<float>(), want);
  });
  // Attributes as TF.js gives them to a custom op.
  EXPECT_EQ(seen, Json::parse(
                      R"({"factor": 2.5, "shift": -3, "label": "hello", "T": "float32", "on": true,
                                  "dims": [1, 2], "shape": [-1, 4], "empty": []})"))
      << seen.dump();
  // The op's work is made of engine ops: gradients flow through it.
  Tensor g = grad([&](const Tensor& v) { return sum(m.predict(v)); }, tensor(xs, {2, 3}));
  EXPECT_EQ(g.data<float>(), (std::vector<float>{0, 0, 2.5f, 2.5f, 0, 2.5f}));
  m.dispose();
}

TEST(GraphCustomOp, ARegisteredOpRunsInPlaceOfTheBuiltInOneUntilDeregistered) {
  ModelDir d(modelWithCustomOp());
  Unregister cleanup{{"ScaleShift", "Relu"}};
  registerGraphOp("ScaleShift", [](const std::vector<Tensor>& in, const std::string&) {
    return std::vector<Tensor>{in[0]};
  });
  registerGraphOp("Relu", [](const std::vector<Tensor>& in, const std::string&) {
    return std::vector<Tensor>{neg(in[0])};  // anything but relu, to see which ran
  });
  GraphModel m = GraphModel::load(d.path.string());
  EXPECT_EQ(m.predict(tensor({1, -2}, {1, 2})).data<float>(), (std::vector<float>{-1, 2}));
  deregisterGraphOp("Relu");
  EXPECT_EQ(m.predict(tensor({1, -2}, {1, 2})).data<float>(), (std::vector<float>{1, 0}));
}

TEST(GraphCustomOp, ErrorsNameTheOpTheNodeAndTheFile) {
  ModelDir d(modelWithCustomOp());
  Unregister cleanup{{"ScaleShift"}};
  registerGraphOp("ScaleShift",
                  [](const std::vector<Tensor>&, const std::string&) -> std::vector<Tensor> {
                    throw Error("[ScaleShift] the user's op refused its input");
                  });
  GraphModel m = GraphModel::load(d.path.string());
  expectError(
      [&] {
        m.predict(tensor({1}, {1, 1}));
      },
      {"'scaled'", "ScaleShift", "refused its input", d.path.string()});
  expectError(
      [&] {
        registerGraphOp("Const",
                        [](const std::vector<Tensor>& in, const std::string&) { return in; });
      },
      {"registerGraphOp", "'Const'", "cannot be registered"});
  expectError(
      [&] {
        registerGraphOp("", [](const std::vector<Tensor>& in, const std::string&) { return in; });
      },
      {"registerGraphOp", "name must not be empty"});
}

}  // namespace
}  // namespace glint::testing
