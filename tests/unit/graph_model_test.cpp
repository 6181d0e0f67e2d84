// glint::GraphModel: bad files get errors naming the node, op and file;
// the image ops join the op table (every backend against reference, and
// gradients against finite differences); GraphInterop.* compares Glint with
// TF.js's own loadGraphModel on models written by
// tests/interop/graph_models.mjs (run through `make test-interop`, which
// sets GLINT_INTEROP_DIR).
#include "glint/graph_model.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "glint/glint.h"
#include "glint/json.h"
#include "tests/unit/doc_table.h"
#include "tests/unit/op_harness.h"

namespace glint::testing {
namespace {

namespace fs = std::filesystem;
using Ts = std::vector<Tensor>;

// ---- The image ops in the op table ---------------------------------------

std::vector<OpCase> imageCases() {
  auto bil = [](Pair size, bool align, bool half) {
    return [=](const Ts& v) { return resizeBilinear(v[0], size, align, half); };
  };
  auto nn = [](Pair size, bool align, bool half) {
    return [=](const Ts& v) { return resizeNearestNeighbor(v[0], size, align, half); };
  };
  return {
      {"bilinear_up", {F({2, 3, 4, 2})}, bil({5, 7}, false, false)},
      {"bilinear_up_align", {F({1, 3, 4, 2})}, bil({5, 7}, true, false)},
      {"bilinear_down_half", {F({1, 6, 5, 3})}, bil({4, 2}, false, true)},
      {"bilinear_rank3", {F({4, 4, 1})}, bil({2, 6}, false, true)},
      {"bilinear_to_1x1_align", {F({1, 3, 3, 1})}, bil({1, 1}, true, false)},
      {"nearest_up", {F({1, 3, 4, 2})}, nn({5, 7}, false, false)},
      {"nearest_align", {F({2, 3, 4, 1})}, nn({6, 3}, true, false)},
      {"nearest_half", {F({1, 5, 5, 2})}, nn({3, 8}, false, true)},
      {"nearest_int", {I({1, 3, 3, 1}, -9, 9)}, nn({4, 5}, false, false), false},
  };
}
GLINT_OP_CASES(ImageResize, imageCases());

TEST(ImageOps, ResizeArgumentsAreChecked) {
  expectError([] { resizeBilinear(zeros({3, 3}), {2, 2}); }, {"resizeBilinear", "rank 3 or 4"});
  expectError([] { resizeBilinear(zeros({1, 3, 3, 1}), {0, 2}); }, {"resizeBilinear", "positive"});
  expectError(
      [] {
        resizeNearestNeighbor(zeros({1, 3, 3, 1}), {2, 2}, true, true);
      },
      {"resizeNearestNeighbor", "alignCorners"});
}

TEST(ImageOps, NonMaxSuppressionGreedyAndSoft) {
  // Boxes 0 and 1 overlap (IoU 0.6); box 2 lies apart.
  Tensor boxes = tensor({0, 0, 1, 1, 0, 0.25f, 1, 1.25f, 2, 2, 3, 3}, {3, 4});
  Tensor scores = tensor({0.9f, 0.8f, 0.7f}, {3});
  NonMaxSuppressionResult r = nonMaxSuppression(boxes, scores, 3, 0.5f);
  EXPECT_EQ(r.selectedIndices.data<int32_t>(), (std::vector<int32_t>{0, 2}));
  r = nonMaxSuppression(boxes, scores, 3, 0.7f);
  EXPECT_EQ(r.selectedIndices.data<int32_t>(), (std::vector<int32_t>{0, 1, 2}));
  r = nonMaxSuppression(boxes, scores, 3, 0.5f, 0.75f, 0.0f, true);
  EXPECT_EQ(r.selectedIndices.data<int32_t>(), (std::vector<int32_t>{0, 0, 0}));
  EXPECT_EQ(r.validOutputs, 1);
  // Soft-NMS: box 1 is kept with its score decayed by exp(-0.5 * iou^2 / sigma).
  r = nonMaxSuppression(boxes, scores, 3, 1.0f, 0.0f, 0.5f);
  std::vector<int32_t> idx = r.selectedIndices.data<int32_t>();
  std::vector<float> sc = r.selectedScores.data<float>();
  ASSERT_EQ(idx.size(), 3u);
  double iou = 0.75 / 1.25;
  EXPECT_EQ(idx[0], 0);
  EXPECT_NEAR(sc[0], 0.9, 1e-6);
  // After decay: box 1 = 0.8 * exp(-iou^2) = 0.558 < box 2's 0.7.
  EXPECT_EQ(idx[1], 2);
  EXPECT_EQ(idx[2], 1);
  EXPECT_NEAR(sc[2], 0.8 * std::exp(-0.5 * iou * iou / 0.5), 1e-6);
  expectError(
      [&] {
        nonMaxSuppression(boxes, tensor({1, 2}, {2}), 3);
      },
      {"nonMaxSuppression", "scores"});
  expectError(
      [&] {
        nonMaxSuppression(tensor({1, 2, 3}, {1, 3}), tensor({1}, {1}), 3);
      },
      {"nonMaxSuppression", "boxes"});
}

// ---- Bad files -----------------------------------------------------------

struct TempDir {
  fs::path path;
  TempDir() {
    static int n = 0;
    path = fs::temp_directory_path() /
           ("glint_graph_test_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

// A small model: out = Relu(x + w), x [-1, 3], weights w [3] float32.
Json smallModel() {
  return Json::parse(R"({"format": "graph-model", "modelTopology": {"node": [
    {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"},
      "shape": {"shape": {"dim": [{"size": "-1"}, {"size": "3"}]}}}},
    {"name": "w", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}}},
    {"name": "sum", "op": "AddV2", "input": ["x", "w"], "attr": {"T": {"type": "DT_FLOAT"}}},
    {"name": "out", "op": "Relu", "input": ["sum"], "attr": {"T": {"type": "DT_FLOAT"}}}]},
    "weightsManifest": [{"paths": ["w.bin"], "weights": [{"name": "w", "shape": [3], "dtype": "float32"}]}]})");
}

std::string write(const TempDir& d, const Json& model, size_t weightBytes = 12) {
  std::ofstream(d.path / "model.json") << model.dump();
  std::vector<float> w{1.0f, -2.0f, 0.5f};
  std::ofstream(d.path / "w.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(w.data()), static_cast<std::streamsize>(weightBytes));
  return (d.path / "model.json").string();
}

TEST(GraphModel, LoadsAndRunsASmallModel) {
  TempDir d;
  std::string file = write(d, smallModel());
  GraphModel m = GraphModel::load(d.path.string());
  ASSERT_EQ(m.inputs().size(), 1u);
  EXPECT_EQ(m.inputs()[0].name, "x");
  EXPECT_EQ(m.inputs()[0].shape, (Shape{-1, 3}));
  ASSERT_EQ(m.outputs().size(), 1u);
  EXPECT_EQ(m.outputs()[0].name, "out");
  onEveryBackend([&] {
    Tensor y = m.predict(tensor({0, 0, 0, 1, 1, 1}, {2, 3}));
    EXPECT_EQ(y.data<float>(), (std::vector<float>{1, 0, 0.5f, 2, 0, 1.5f}));
    std::vector<Tensor> mid = m.execute({{"x", tensor({1, 1, 1}, {1, 3})}}, {"sum", "w"});
    EXPECT_EQ(mid[0].data<float>(), (std::vector<float>{2, -1, 1.5f}));
    EXPECT_EQ(mid[1].data<float>(), (std::vector<float>{1, -2, 0.5f}));
  });
  // Gradients flow through a graph model as through any ops.
  Tensor x = tensor({0, 0, 0}, {1, 3});
  Tensor g = grad([&](const Tensor& v) { return sum(m.predict(v)); }, x);
  EXPECT_EQ(g.data<float>(), (std::vector<float>{1, 0, 1}));
  m.dispose();
  expectError([&] { m.predict(x); }, {"disposed"});
}

TEST(GraphModel, WrongInputsNameTheInput) {
  TempDir d;
  write(d, smallModel());
  GraphModel m = GraphModel::load(d.path.string());
  expectError([&] { m.predict(zeros({2, 4})); }, {"'x'", "[-1,3]", "[2,4]"});
  expectError([&] { m.predict(zeros({2, 3}, DType::int32)); }, {"'x'", "float32", "int32"});
  expectError([&] { m.predict(std::vector<Tensor>{}); }, {"predict takes 1", "x"});
  expectError([&] { m.execute({}, {"out"}); }, {"'x'", "not given a value"});
  expectError([&] { m.execute({{"x", zeros({1, 3})}}, {"nope"}); }, {"'nope'", "names no node"});
  expectError([&] { m.execute({{"x", zeros({1, 3})}}, {"out:3"}); }, {"'out:3'", "1 outputs"});
}

TEST(GraphModel, BadGraphsNameNodeOpAndFile) {
  {
    TempDir d;
    Json j = smallModel();
    j["modelTopology"]["node"][3]["op"] = "FancyOp";
    std::string file = write(d, j);
    expectError([&] { GraphModel::load(file); }, {file, "'out'", "FancyOp", "not supported"});
  }
  {
    TempDir d;
    Json j = smallModel();
    j["modelTopology"]["node"][3]["input"] = {"missing"};
    std::string file = write(d, j);
    expectError([&] { GraphModel::load(file); },
                {file, "'out'", "Relu", "'missing'", "names no node"});
  }
  {
    TempDir d;  // sum <- out <- sum
    Json j = smallModel();
    j["modelTopology"]["node"][2]["input"] = {"x", "out"};
    std::string file = write(d, j);
    expectError([&] { GraphModel::load(file); }, {file, "cycle", "'sum'", "'out'"});
  }
  {
    TempDir d;
    std::string file = write(d, smallModel(), 8);  // truncated weights
    expectError([&] { GraphModel::load(file); }, {file, "12 bytes", "8 bytes"});
  }
  {
    TempDir d;
    Json j = smallModel();
    j["weightsManifest"][0]["paths"] = {"../../etc/passwd"};
    std::string file = write(d, j);
    expectError([&] { GraphModel::load(file); }, {file, "../../etc/passwd", "inside its folder"});
  }
  {
    TempDir d;
    Json j = smallModel();
    j["weightsManifest"][0]["weights"][0]["name"] = "v";
    std::string file = write(d, j);
    expectError([&] { GraphModel::load(file); }, {file, "'w'", "Const", "no weight"});
  }
  {
    TempDir d;
    Json j = smallModel();
    j["modelTopology"]["node"][3]["input"] = {"sum:4"};
    std::string file = write(d, j);
    GraphModel m = GraphModel::load(file);
    expectError([&] { m.predict(zeros({1, 3})); }, {file, "'out'", "Relu", "output 4", "'sum'"});
  }
  {
    TempDir d;  // an op error is reported with its node
    Json j = smallModel();
    j["modelTopology"]["node"][3] = {{"name", "out"}, {"op", "Reshape"}, {"input", {"sum", "sum"}}};
    std::string file = write(d, j);
    GraphModel m = GraphModel::load(file);
    expectError(
        [&] {
          m.predict(zeros({1, 3}));
        },
        {file, "'out'", "Reshape", "shape must be int32", "float32"});
  }
  {
    TempDir d;
    Json j = smallModel();
    j["format"] = "layers-model";
    std::string file = write(d, j);
    expectError([&] { GraphModel::load(file); }, {file, "graph-model"});
  }
}

// ---- Against TF.js -----------------------------------------------------------

std::string interopDir() {
  const char* d = std::getenv("GLINT_INTEROP_DIR");
  return d ? d : "";
}

Json readJson(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

Tensor fromJson(const Json& j) {
  Shape shape = j["shape"].get<Shape>();
  std::string dtype = j.value("dtype", "float32");
  std::vector<double> data = j["data"].get<std::vector<double>>();
  if (dtype == "int32") {
    std::vector<int32_t> v(data.begin(), data.end());
    return tensorInt(v, shape);
  }
  if (dtype == "bool") {
    std::vector<uint8_t> v;
    for (double x : data) v.push_back(x != 0);
    return tensorBool(v, shape);
  }
  return tensor(std::vector<float>(data.begin(), data.end()), shape);
}

// Largest difference in units of max(1, |expected|): 1e-4 absolute for small
// values, relative for large ones. Shapes and dtypes must match exactly.
double compare(const Tensor& got, const Json& want, const std::string& what) {
  EXPECT_EQ(got.shape(), want["shape"].get<Shape>()) << what;
  EXPECT_EQ(std::string(dtypeName(got.dtype())), want.value("dtype", "float32")) << what;
  if (got.shape() != want["shape"].get<Shape>()) return INFINITY;
  std::vector<float> g = got.toFloats();
  std::vector<double> w = want["data"].get<std::vector<double>>();
  double worst = 0;
  for (size_t i = 0; i < g.size(); ++i)
    worst = std::max(worst, std::fabs(g[i] - w[i]) / std::max(1.0, std::fabs(w[i])));
  return worst;
}

// Runs every case of <dir>/cases.json on the active backend; the worst error.
double runCases(const GraphModel& m, const fs::path& dir) {
  Json file = readJson(dir / "cases.json");
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<Tensor> ordered;
  for (const Json& in : file["inputs"])
    feeds.emplace_back(in["name"].get<std::string>(), fromJson(in));
  double worst = 0;
  for (const Json& c : file["cases"]) {
    std::vector<std::string> names = c["outputs"].get<std::vector<std::string>>();
    std::vector<Tensor> got;
    if (c["kind"] == "predict") {
      std::vector<Tensor> xs;
      for (const GraphTensorInfo& info : m.inputs())
        for (const auto& [name, t] : feeds)
          if (name == info.name) xs.push_back(t);
      got = m.predict(xs);
    } else {
      got = m.execute(feeds, names);
    }
    EXPECT_EQ(got.size(), c["expected"].size());
    for (size_t i = 0; i < got.size() && i < c["expected"].size(); ++i) {
      double d = compare(got[i], c["expected"][i],
                         dir.filename().string() + " " + names[std::min(i, names.size() - 1)]);
      EXPECT_LE(d, 1e-4) << dir.filename().string() << " " << c["kind"] << " "
                         << names[std::min(i, names.size() - 1)];
      worst = std::max(worst, d);
    }
  }
  return worst;
}

TEST(GraphInterop, HandWrittenGraphModelsMatchTfjs) {
  ASSERT_FALSE(interopDir().empty())
      << "run through `make test-interop`, which sets GLINT_INTEROP_DIR";
  fs::path root = fs::path(interopDir()) / "graph";
  std::set<std::string> used;
  // Every model the generators wrote (graph_models*.mjs), these among them.
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(root))
    if (fs::exists(entry.path() / "model.json")) names.insert(entry.path().filename().string());
  for (const char* name : {"convnet", "shapes", "math", "detect", "while_v1", "nested_v1",
                           "cond_v1", "list_loop_v1", "lists", "functional_v2", "tensor_array"})
    EXPECT_TRUE(names.count(name)) << "missing " << (root / name);
  for (const std::string& name : names) {
    fs::path dir = root / name;
    GraphModel m = GraphModel::load(dir.string());
    Json modelJson = readJson(dir / "model.json");
    for (const Json& n : modelJson["modelTopology"]["node"])
      used.insert(n["op"].get<std::string>());
    onEveryBackend([&] {
      double worst = runCases(m, dir);
      std::printf("graph interop: %s on %s: max |glint - tfjs| / max(1, |tfjs|) = %.2e\n",
                  name.c_str(), getBackend().c_str(), worst);
    });
  }
  // The models use every op of the table but the aliases listed here.
  std::set<std::string> aliases{"DepthwiseConv2d",
                                "BatchMatMul",
                                "FusedBatchNorm",
                                "FusedBatchNormV2",
                                "Concat",
                                "Gather",
                                "PlaceholderWithDefault",
                                "Snapshot",
                                "NoOp",
                                "ShapeN",
                                "Size",
                                "Rank",
                                "Log1p",
                                "All",
                                "Any",
                                "Unpack",
                                "TensorListScatter",
                                "TensorListConcat"};
  // TF.js lacks these or runs them differently from TensorFlow:
  // GraphModel.TensorListOpsTfjsCannotCheck checks them.
  for (const char* op : {"TensorListElementShape", "TensorListPopBack", "TensorListSplit",
                         "PartitionedCall", "StatefulPartitionedCall", "TensorArrayCloseV3"})
    aliases.insert(op);
  // TF.js cannot run these (BitwiseAnd, Reverse), passes them through
  // (FakeQuant*, EnsureShape) or misreads them: GraphOpsMore.* checks them.
  for (const char* op : {"BitwiseAnd", "EnsureShape", "FakeQuantWithMinMaxArgs",
                         "FakeQuantWithMinMaxVars", "Reverse"})
    aliases.insert(op);
  for (const std::string& op : graphModelOps())
    if (!used.count(op) && !aliases.count(op)) ADD_FAILURE() << "no interop model uses op " << op;
}

// docs/GRAPH_OPS.md has a row "| Op | group | status | notes |" for every
// op TF.js's converter runs; the status is "yes" exactly for Glint's ops.
std::map<std::string, std::string> documentedGraphOps() {
  std::map<std::string, std::string> status;
  for (const auto& cells : markdownRows(fs::path(GLINT_SOURCE_DIR) / "docs" / "GRAPH_OPS.md", "Op"))
    if (cells.size() >= 3) status[cells[0]] = cells[2];
  return status;
}

TEST(GraphInterop, EveryTfjsGraphOpIsKnownAndDocumented) {
  ASSERT_FALSE(interopDir().empty())
      << "run through `make test-interop`, which sets GLINT_INTEROP_DIR";
  Json tfjs = readJson(fs::path(interopDir()) / "tfjs_graph_ops.json");
  std::vector<std::string> ops = graphModelOps();
  std::set<std::string> glint(ops.begin(), ops.end());
  std::map<std::string, std::string> documented = documentedGraphOps();
  ASSERT_FALSE(documented.empty()) << "docs/GRAPH_OPS.md has no op table";
  size_t runs = 0;
  for (const Json& j : tfjs) {
    std::string op = j.get<std::string>();
    ASSERT_TRUE(documented.count(op)) << "docs/GRAPH_OPS.md does not list TF.js's graph op " << op;
    runs += glint.count(op);
  }
  for (const auto& [op, status] : documented)
    EXPECT_EQ(status == "yes", glint.count(op) == 1)
        << "docs/GRAPH_OPS.md says '" << status << "' for " << op << ", but Glint "
        << (glint.count(op) ? "runs" : "does not run") << " it";
  std::printf("graph ops: Glint runs %zu of TF.js 4.22's %zu\n", runs, tfjs.size());
}

}  // namespace
}  // namespace glint::testing

// ---- Published models (make test-models) -------------------------------------

namespace glint::testing {
namespace {

// The graph models of @vladmandic/human 3.3.6, each run by TF.js on a seeded
// input (tests/interop/human_models.mjs); GLINT_MODELS_DIR holds its output.
TEST(GraphModels, PublishedModelsMatchTfjs) {
  const char* env = std::getenv("GLINT_MODELS_DIR");
  ASSERT_TRUE(env) << "run through `make test-models`, which sets GLINT_MODELS_DIR";
  fs::path root(env);
  std::ifstream list(root / "models.txt");
  std::string file;
  int checked = 0;
  BackendScope scope("cpu");
  while (std::getline(list, file)) {
    if (file.empty()) continue;
    std::string name = fs::path(file).stem().string();
    SCOPED_TRACE(name);
    auto started = std::chrono::steady_clock::now();
    try {
      GraphModel m = GraphModel::load(file);
      double worst = runCases(m, root / name);
      double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
              .count();
      std::printf(
          "graph model %-18s %4zu nodes: max |glint - tfjs| / max(1, |tfjs|) = %.2e (%.0f ms)\n",
          name.c_str(), m.numNodes(), worst, ms);
      ++checked;
    } catch (const Error& e) {
      ADD_FAILURE() << name << ": " << e.what();
    }
  }
  EXPECT_GE(checked, 11);
}

}  // namespace
}  // namespace glint::testing
