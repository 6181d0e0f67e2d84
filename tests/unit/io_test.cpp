// Save / load in the TF.js layers-model format: encoding, quantization,
// sharding, corrupt files, atomic saves, structure hash, optimizer state.
#include "glint/io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "glint/engine.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "glint/model.h"
#include "glint/ops.h"
#include "glint/optim.h"
#include "src/io/io_util.h"
#include "tests/unit/op_harness.h"

namespace glint::io::detail {
extern std::function<void(const std::string& path)> beforeSaveWrite;
}

namespace glint::testing {
namespace {

namespace fs = std::filesystem;
using namespace glint::io;  // NOLINT: the API under test

// A fresh directory per test, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    static int n = 0;
    path = fs::temp_directory_path() /
           ("glint_io_test_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::string readText(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
void writeText(const std::string& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}
Json readJson(const std::string& file) { return Json::parse(readText(file)); }
void writeJson(const std::string& file, const Json& j) { writeText(file, j.dump()); }

float floatBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Hand-built artifacts: a float [2,3], an int32 [3] and a bool [2].
ModelArtifacts sampleArtifacts(Quantize q = Quantize::none) {
  ModelArtifacts a;
  a.modelTopology = {{"class_name", "Sequential"},
                     {"config", {{"name", "s"}, {"layers", Json::array()}}}};
  a.generatedBy = "Glint test";  // saves replace the shards of a previous Glint manifest only
  auto [specs, data] =
      encodeWeights({{"d/kernel", tensor({1.5f, -2.f, 0.25f, 3.f, 0.f, -0.5f}, {2, 3})},
                     {"d/count", tensorInt({7, -1, 2}, {3})},
                     {"d/mask", tensorBool({1, 0}, {2})}},
                    "", q);
  a.weightSpecs = specs;
  a.weightData = data;
  return a;
}

// ---- Encoding ------------------------------------------------------------

TEST(Io, Float16ConversionKnownValues) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);                      // largest half
  EXPECT_EQ(floatToHalf(70000.0f), 0x7c00);                      // overflows to infinity
  EXPECT_EQ(floatToHalf(0.1f), 0x2e66);                          // 0.0999755859375
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);         // smallest subnormal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -26)), 0x0000);         // underflows
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie rounds to even
  EXPECT_EQ(halfToFloat(0x3555), floatBits(0x3eaaa000u));        // 0.333251953125
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isinf(halfToFloat(0xfc00)) && halfToFloat(0xfc00) < 0);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  // Every finite half survives half -> float -> half.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue;  // NaN payloads
    ASSERT_EQ(floatToHalf(halfToFloat(static_cast<uint16_t>(h))), h) << h;
  }
}

TEST(Io, EncodeWeightsWritesTfjsLayoutAndSpecs) {
  ModelArtifacts a = sampleArtifacts();
  ASSERT_EQ(a.weightData.size(), 6u * 4 + 3 * 4 + 2);
  // 1.5f little-endian is 00 00 c0 3f; int32 7 is 07 00 00 00; bools are bytes.
  EXPECT_EQ(a.weightData[2], 0xc0);
  EXPECT_EQ(a.weightData[3], 0x3f);
  EXPECT_EQ(a.weightData[24], 7);
  EXPECT_EQ(a.weightData[36], 1);
  EXPECT_EQ(a.weightData[37], 0);
  Json j = modelJsonFromArtifacts(a, {"group1-shard1of1.bin"});
  Json expected = Json::parse(R"({"paths": ["group1-shard1of1.bin"], "weights": [
      {"name": "d/kernel", "shape": [2, 3], "dtype": "float32"},
      {"name": "d/count", "shape": [3], "dtype": "int32"},
      {"name": "d/mask", "shape": [2], "dtype": "bool"}]})");
  EXPECT_EQ(j["weightsManifest"], Json::array({expected}));
  EXPECT_EQ(j["format"], "layers-model");
  EXPECT_TRUE(j["convertedBy"].is_null());
  NamedTensors back = decodeWeights(a.weightData, a.weightSpecs);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0].second.data<float>(), (std::vector<float>{1.5f, -2.f, 0.25f, 3.f, 0.f, -0.5f}));
  EXPECT_EQ(back[0].second.shape(), (Shape{2, 3}));
  EXPECT_EQ(back[1].second.data<int32_t>(), (std::vector<int32_t>{7, -1, 2}));
  EXPECT_EQ(back[2].second.dtype(), DType::boolean);
  EXPECT_EQ(back[2].second.data<uint8_t>(), (std::vector<uint8_t>{1, 0}));
}

TEST(Io, Uint8QuantizationStaysWithinOneStepAndKeepsZeroExact) {
  std::vector<float> values;
  for (int i = 0; i < 200; ++i) values.push_back(std::sin(0.37f * i) * 3.0f - 0.7f);
  values.push_back(0.0f);
  auto [specs, data] = encodeWeights({{"w", tensor(values, {static_cast<int64_t>(values.size())})}},
                                     "", Quantize::uint8);
  ASSERT_EQ(data.size(), values.size());  // one byte per value
  ASSERT_TRUE(specs[0].quantization && specs[0].quantization->dtype == "uint8");
  double lo = *std::min_element(values.begin(), values.end());
  double hi = *std::max_element(values.begin(), values.end());
  double step = (hi - lo) / 255.0;
  EXPECT_NEAR(specs[0].quantization->scale, step, 1e-12);
  std::vector<float> back = decodeWeights(data, specs)[0].second.data<float>();
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_LE(std::fabs(back[i] - values[i]), step * 1.0001) << i;
  EXPECT_EQ(back.back(), 0.0f);
  // A constant tensor is exact; int32 and bool weights are never quantized.
  auto [cs, cd] = encodeWeights({{"c", tensor({0.3f, 0.3f}, {2})}, {"i", tensorInt({5}, {1})}}, "",
                                Quantize::uint8);
  EXPECT_EQ(decodeWeights(cd, cs)[0].second.data<float>(), (std::vector<float>{0.3f, 0.3f}));
  EXPECT_FALSE(cs[1].quantization.has_value());
  EXPECT_EQ(specToJson(specs[0])["quantization"]["dtype"], "uint8");
  EXPECT_TRUE(specToJson(specs[0])["quantization"].contains("scale"));
}

TEST(Io, Float16QuantizationRelativeErrorBound) {
  std::vector<float> values = {1e-3f, -0.125f, 3.14159f, 1000.5f, -7.77e-2f, 0.0f};
  auto [specs, data] = encodeWeights({{"w", tensor(values, {6})}}, "", Quantize::float16);
  ASSERT_EQ(data.size(), 12u);
  EXPECT_EQ(specToJson(specs[0])["quantization"], Json::object({{"dtype", "float16"}}));
  std::vector<float> back = decodeWeights(data, specs)[0].second.data<float>();
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_LE(std::fabs(back[i] - values[i]), std::fabs(values[i]) * std::ldexp(1.0, -11)) << i;
}

TEST(Io, SpecFromJsonReadsTfjsQuantizedEntries) {
  WeightSpec s = specFromJson(Json::parse(R"({"name": "a/b", "shape": [2], "dtype": "float32",
      "quantization": {"dtype": "uint8", "min": -1.0, "scale": 0.5}})"),
                              "m.json", "w[0]");
  // Codes 0 and 3 -> -1 and 0.5 (value = code * scale + min).
  NamedTensors t = decodeWeights({0, 3}, {s});
  EXPECT_EQ(t[0].second.data<float>(), (std::vector<float>{-1.0f, 0.5f}));
  expectError(
      [] {
        specFromJson(Json::parse(R"({"name": "x", "shape": [2], "dtype": "float32",
      "quantization": {"dtype": "uint8"}})"),
                     "m.json", "w[0]");
      },
      {"m.json", "'x'", "min"});
  expectError(
      [] {
        specFromJson(Json::parse(R"({"name": "x", "shape": [2], "dtype": "int32",
      "quantization": {"dtype": "float16"}})"),
                     "m.json", "w[0]");
      },
      {"'x'", "float16", "float32"});
  expectError(
      [] {
        specFromJson(Json::parse(R"({"name": "x", "shape": [-2], "dtype": "float32"})"), "m.json",
                     "w[0]");
      },
      {"m.json", "non-negative"});
  expectError(
      [] {
        specFromJson(Json::parse(R"({"name": "x", "shape": [2], "dtype": "string"})"), "m.json",
                     "w[0]");
      },
      {"m.json", "'string'"});
}

// ---- Files ----------------------------------------------------------------

TEST(Io, ShardingSplitsAtShardSizeAndLoadsBack) {
  auto shards = shardWeightData(std::vector<uint8_t>(10, 1), 4);
  ASSERT_EQ(shards.size(), 3u);
  EXPECT_EQ(shards[0].first, "group1-shard1of3.bin");
  EXPECT_EQ(shards[2].first, "group1-shard3of3.bin");
  EXPECT_EQ(shards[2].second.size(), 2u);
  EXPECT_TRUE(shardWeightData({}, 4).empty());

  TempDir dir;
  ModelArtifacts a = sampleArtifacts();  // 38 bytes
  SaveOptions options;
  options.shardSizeBytes = 16;
  saveArtifacts(a, "file://" + (dir / "m"), options);
  EXPECT_EQ(fs::file_size(dir / "m/group1-shard1of3.bin"), 16u);
  EXPECT_EQ(fs::file_size(dir / "m/group1-shard3of3.bin"), 6u);
  Json j = readJson(dir / "m/model.json");
  EXPECT_EQ(j["weightsManifest"][0]["paths"],
            Json({"group1-shard1of3.bin", "group1-shard2of3.bin", "group1-shard3of3.bin"}));
  ModelArtifacts b = loadArtifacts(dir / "m");
  EXPECT_EQ(b.weightData, a.weightData);
  EXPECT_EQ(b.weightSpecs.size(), 3u);
  EXPECT_EQ(b.modelTopology, a.modelTopology);
  // A path to the .json file works too.
  EXPECT_EQ(loadArtifacts(dir / "m/model.json").weightData, a.weightData);
  expectError([&] { saveArtifacts(a, "http://example.com/m"); },
              {"io.save", "http://example.com/m"});
  expectError([&] { saveArtifacts(a, dir / "z", SaveOptions{.shardSizeBytes = 0}); },
              {"shardSizeBytes"});
}

// Saves the sample with 2 shards and hands back the directory's paths.
struct SavedSample {
  TempDir dir;
  std::string model, json, shard1, shard2;
  SavedSample() {
    model = dir / "m";
    SaveOptions o;
    o.shardSizeBytes = 20;
    saveArtifacts(sampleArtifacts(), model, o);
    json = model + "/model.json";
    shard1 = model + "/group1-shard1of2.bin";
    shard2 = model + "/group1-shard2of2.bin";
  }
};

TEST(Io, CorruptFilesGiveErrorsNamingTheFile) {
  {
    SavedSample s;  // truncated shard
    fs::resize_file(s.shard2, 5);
    expectError([&] { loadArtifacts(s.model); },
                {"io.load", s.json, "group1-shard2of2.bin (5 bytes)", "38 bytes"});
  }
  {
    SavedSample s;  // a shard longer than the manifest says
    writeText(s.shard2, readText(s.shard2) + "xx");
    expectError([&] { loadArtifacts(s.model); }, {s.shard2, "20 bytes", "18 bytes"});
  }
  {
    SavedSample s;  // manifest lies about a shape (more bytes than stored)
    Json j = readJson(s.json);
    j["weightsManifest"][0]["weights"][0]["shape"] = {3, 3};
    writeJson(s.json, j);
    expectError([&] { loadArtifacts(s.model); }, {s.json, "50 bytes", "hold only 38"});
  }
  {
    SavedSample s;  // manifest lies about a dtype (float32 -> bool: fewer bytes)
    Json j = readJson(s.json);
    j["weightsManifest"][0]["weights"][0]["dtype"] = "bool";
    writeJson(s.json, j);
    expectError([&] { loadArtifacts(s.model); }, {s.shard2, "more than"});
  }
  {
    SavedSample s;  // missing shard
    fs::remove(s.shard1);
    expectError([&] { loadArtifacts(s.model); }, {s.shard1, "missing"});
  }
  {
    SavedSample s;  // bad JSON
    writeText(s.json, "{\"modelTopology\": {");
    expectError([&] { loadArtifacts(s.model); }, {s.json, "not valid JSON"});
  }
  {
    SavedSample s;  // wrong format
    Json j = readJson(s.json);
    j["format"] = "graph-model";
    writeJson(s.json, j);
    expectError([&] { io::load(s.model); }, {"graph-model", "GraphModel::load"});
    j["format"] = "saved-model";
    writeJson(s.json, j);
    expectError([&] { loadArtifacts(s.model); }, {s.json, "saved-model", "layers-model"});
  }
  {
    SavedSample s;  // no topology
    Json j = readJson(s.json);
    j.erase("modelTopology");
    writeJson(s.json, j);
    expectError([&] { loadArtifacts(s.model); }, {s.json, "modelTopology"});
  }
  {
    SavedSample s;  // huge claimed size fails before reading or allocating
    Json j = readJson(s.json);
    j["weightsManifest"][0]["weights"][0]["shape"] = {100000, 100000, 10};
    writeJson(s.json, j);
    expectError([&] { loadArtifacts(s.model); }, {s.json, "maxWeightBytes", "d/kernel"});
    j["weightsManifest"][0]["weights"][0]["shape"] = {1ll << 40, 1ll << 40};
    writeJson(s.json, j);
    expectError([&] { loadArtifacts(s.model); }, {s.json, "impossibly large"});
  }
  {
    SavedSample s;  // model.json over its limit; a shard path escaping the directory
    LoadOptions small;
    small.maxModelJsonBytes = 10;
    expectError([&] { loadArtifacts(s.model, small); }, {s.json, "maxModelJsonBytes"});
    Json j = readJson(s.json);
    j["weightsManifest"][0]["paths"][0] = "../../etc/passwd";
    writeJson(s.json, j);
    expectError([&] { loadArtifacts(s.model); }, {s.json, "../../etc/passwd", "inside"});
  }
  {
    SavedSample s;  // duplicate names, missing paths, not an object
    Json j = readJson(s.json);
    j["weightsManifest"][0]["weights"][1]["name"] = "d/kernel";
    writeJson(s.json, j);
    expectError([&] { loadArtifacts(s.model); }, {s.json, "'d/kernel' appears twice"});
    j = readJson(s.json);
    j["weightsManifest"][0]["paths"] = Json::array();
    j["weightsManifest"][0]["weights"][1]["name"] = "d/count";
    writeJson(s.json, j);
    expectError([&] { loadArtifacts(s.model); }, {s.json, "no shard paths"});
    writeText(s.json, "[1, 2]");
    expectError([&] { loadArtifacts(s.model); }, {s.json, "object"});
  }
  expectError([] { loadArtifacts("/nonexistent/glint/model"); }, {"/nonexistent/glint/model"});
}

TEST(Io, AtomicSaveKeepsThePreviousModelWhenAWriteFails) {
  TempDir dir;
  std::string target = dir / "m";
  SaveOptions o;
  o.shardSizeBytes = 16;
  ModelArtifacts first = sampleArtifacts();
  saveArtifacts(first, target, o);
  writeText(target + "/labels.txt", "cat\ndog\n");  // a user's file next to the model

  ModelArtifacts second = sampleArtifacts(Quantize::float16);
  io::detail::beforeSaveWrite = [](const std::string& path) {
    if (path.find("shard2of") != std::string::npos) throw Error("[test] disk full writing " + path);
  };
  expectError([&] { saveArtifacts(second, target, o); }, {"disk full", "shard2of"});
  io::detail::beforeSaveWrite = nullptr;
  ModelArtifacts back = loadArtifacts(target);
  EXPECT_EQ(back.weightData, first.weightData);
  EXPECT_FALSE(back.weightSpecs[0].quantization.has_value());
  for (const auto& e : fs::directory_iterator(dir.path))  // no temporary directory left behind
    EXPECT_EQ(e.path().filename(), "m");

  // A successful save replaces the model (stale shards go), keeps other files.
  SaveOptions one;
  saveArtifacts(second, target, one);
  EXPECT_EQ(loadArtifacts(target).weightData, second.weightData);
  EXPECT_FALSE(fs::exists(target + "/group1-shard3of3.bin"));
  EXPECT_TRUE(fs::exists(target + "/group1-shard1of1.bin"));
  EXPECT_EQ(readText(target + "/labels.txt"), "cat\ndog\n");
  // A target that cannot be a directory fails cleanly.
  writeText(dir / "file", "x");
  expectError([&] { saveArtifacts(first, dir / "file"); }, {"io.save", "not a directory"});
  expectError([&] { saveArtifacts(first, dir / "file/sub"); }, {"io.save", dir / "file"});
}

// ---- Models ---------------------------------------------------------------

ModelPtr makeMlp(const std::string& prefix = "") {
  auto m = sequential();
  Json a = {{"units", 5}, {"activation", "relu"}, {"inputShape", {4}}};
  Json b = {{"units", 3}, {"activation", "softmax"}};
  if (!prefix.empty()) {
    a["name"] = prefix + "_a";
    b["name"] = prefix + "_b";
  }
  m->add(layers::dense(a));
  m->add(layers::dense(b));
  return m;
}

ModelPtr makeBranchModel() {
  auto in = input({{"shape", {4}}});
  auto x = layers::dense({{"units", 6}, {"activation", "tanh"}})->apply(in);
  auto y = layers::dense({{"units", 6}})->apply(in);
  auto sum = layers::add()->apply(std::vector<SymbolicTensorPtr>{x, y})[0];
  auto cat = layers::concatenate()->apply(std::vector<SymbolicTensorPtr>{sum, x})[0];
  auto out = layers::dense({{"units", 2}})->apply(cat);
  return glint::model({in}, {out});
}

Tensor sampleInput() {
  std::vector<float> v;
  for (int i = 0; i < 12; ++i) v.push_back(std::cos(0.7f * i));
  return tensor(v, {3, 4});
}

TEST(Io, ModelRoundTripGivesIdenticalPredictions) {
  std::string original = getBackend();
  for (const std::string& backend : availableBackends()) {
    setBackend(backend);
    for (auto make : {+[] { return makeMlp(); }, +[] { return makeBranchModel(); }}) {
      TempDir dir;
      ModelPtr m = make();
      Tensor x = sampleInput();
      std::vector<float> expected = m->predict(x).data<float>();
      save(*m, dir / "m");
      Json j = readJson(dir / "m/model.json");
      EXPECT_EQ(j["modelTopology"]["class_name"], m->className());
      EXPECT_EQ(j["modelTopology"]["keras_version"], "tfjs-layers 4.22.0");
      EXPECT_EQ(j["modelTopology"]["backend"], "tensor_flow.js");
      EXPECT_EQ(j["userDefinedMetadata"]["glint"]["structureHash"], structureHash(*m));
      EXPECT_EQ(j["weightsManifest"][0]["weights"].size(), m->weights().size());
      ModelPtr back = load("file://" + (dir / "m"));
      EXPECT_EQ(back->predict(x).data<float>(), expected) << backend;
      EXPECT_EQ(structureHash(*back), structureHash(*m));
    }
  }
  setBackend(original);
}

TEST(Io, QuantizedModelWeightsWithinTheQuantizationStep) {
  ModelPtr m = makeMlp();
  for (Quantize q : {Quantize::uint8, Quantize::float16}) {
    TempDir dir;
    save(*m, dir / "m", SaveOptions{.quantize = q});
    ModelPtr back = load(dir / "m");
    std::vector<Variable> a = m->weights(), b = back->weights();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      std::vector<float> va = a[i].data<float>(), vb = b[i].data<float>();
      float lo = *std::min_element(va.begin(), va.end()),
            hi = *std::max_element(va.begin(), va.end());
      for (size_t k = 0; k < va.size(); ++k) {
        double bound = q == Quantize::uint8 ? (hi - lo) / 255.0 * 1.0001 + 1e-9
                                            : std::fabs(va[k]) * std::ldexp(1.0, -11);
        EXPECT_LE(std::fabs(va[k] - vb[k]), bound) << a[i].name() << "[" << k << "]";
      }
    }
  }
}

TEST(Io, StructureHashGuardsLoadWeights) {
  ModelPtr a = makeMlp("first"), b = makeMlp("second");
  EXPECT_EQ(structureHash(*a), structureHash(*b));  // layer names do not count
  TempDir dir;
  save(*a, dir / "a");
  loadWeights(*b, dir / "a");  // same architecture, other names: by position
  Tensor x = sampleInput();
  EXPECT_EQ(b->predict(x).data<float>(), a->predict(x).data<float>());

  auto wider = sequential();
  wider->add(layers::dense({{"units", 6}, {"activation", "relu"}, {"inputShape", {4}}}));
  wider->add(layers::dense({{"units", 3}}));
  EXPECT_NE(structureHash(*wider), structureHash(*a));
  std::vector<float> before = wider->weights()[0].data<float>();
  expectError([&] { loadWeights(*wider, dir / "a"); }, {"structure hash", dir / "a", "differs"});
  EXPECT_EQ(wider->weights()[0].data<float>(), before);  // untouched
  EXPECT_NE(structureHash(*makeBranchModel()), structureHash(*a));
}

TEST(Io, ManifestLyingAboutAShapeOfTheSameSizeIsCaught) {
  ModelPtr m = makeMlp();
  TempDir dir;
  save(*m, dir / "m");
  Json j = readJson(dir / "m/model.json");
  j["weightsManifest"][0]["weights"][0]["shape"] = {5, 4};  // kernel is [4,5]
  writeJson(dir / "m/model.json", j);
  expectError([&] { load(dir / "m"); },
              {dir / "m", "kernel", "[4,5] in the model", "[5,4] in the file"});
  j["weightsManifest"][0]["weights"][0]["shape"] = {4, 5};
  j["weightsManifest"][0]["weights"][0]["dtype"] = "int32";
  writeJson(dir / "m/model.json", j);
  expectError([&] { load(dir / "m"); }, {"kernel", "int32"});
  j["weightsManifest"][0]["weights"][0]["dtype"] = "float32";
  j["weightsManifest"][0]["weights"][0]["name"] = "nowhere/kernel";
  writeJson(dir / "m/model.json", j);
  expectError([&] { load(dir / "m"); }, {"nowhere/kernel", "match no weight"});
}

TEST(Io, TfjsStyleWeightsWithoutHashMatchByName) {
  // A TF.js file has no Glint hash: weights match by name, including Keras's
  // "layer/cell/weight" form; a missing weight is an error.
  ModelPtr m = makeMlp("named");
  ModelArtifacts a = modelToArtifacts(*m);
  a.userDefinedMetadata = nullptr;
  a.weightSpecs[0].name = "named_a/cell/kernel";
  ModelPtr other = makeMlp("named2");
  a.modelTopology.json()["config"] = m->getConfig();
  ModelPtr back = modelFromArtifacts(a);
  Tensor x = sampleInput();
  EXPECT_EQ(back->predict(x).data<float>(), m->predict(x).data<float>());
  expectError([&] { setWeightsFromArtifacts(*other, a); }, {"match no weight", "named_a"});
  a.weightSpecs.pop_back();
  a.weightData.resize(a.weightData.size() - 3 * 4);
  expectError([&] { modelFromArtifacts(a, {}, "x.json"); },
              {"x.json", "not in the file", "named_b/bias"});
}

TEST(Io, OptimizerStateResumesTrainingExactly) {
  ModelPtr m = makeMlp();
  m->compile({.optimizer = std::shared_ptr<Optimizer>(adam(0.01f)),
              .loss = {"categoricalCrossentropy"},
              .metrics = {"accuracy"}});
  Tensor x = sampleInput();
  Tensor y = tensor({1, 0, 0, 0, 1, 0, 0, 0, 1}, {3, 3});
  for (int i = 0; i < 3; ++i) m->trainOnBatch({x}, {y});
  TempDir dir;
  save(*m, dir / "m", SaveOptions{.includeOptimizer = true});
  Json j = readJson(dir / "m/model.json");
  EXPECT_EQ(j["trainingConfig"]["loss"], "categorical_crossentropy");
  EXPECT_EQ(j["trainingConfig"]["optimizer_config"]["class_name"], "Adam");
  const Json& specs = j["weightsManifest"][0]["weights"];
  EXPECT_EQ(specs[4]["name"], "iter");
  EXPECT_EQ(specs[4]["group"], "optimizer");
  EXPECT_EQ(specs.size(), 4u + 1 + 8);  // weights, iter, m and v per weight
  ModelPtr back = load(dir / "m");
  ASSERT_TRUE(back->compiled());
  EXPECT_EQ(back->optimizer()->iterations(), 3);
  for (int i = 0; i < 3; ++i) {
    m->trainOnBatch({x}, {y});
    back->trainOnBatch({x}, {y});
  }
  for (size_t i = 0; i < m->weights().size(); ++i)
    EXPECT_EQ(back->weights()[i].data<float>(), m->weights()[i].data<float>()) << i;
}

TEST(Io, SaveAndLoadLeaveNoTensorsBehind) {
  ModelPtr m = makeBranchModel();
  TempDir dir;
  save(*m, dir / "m");
  loadWeights(*m, dir / "m");
  int64_t before = memory().numTensors;
  for (int i = 0; i < 5; ++i) {
    save(*m, dir / "m", SaveOptions{.quantize = Quantize::uint8});
    loadWeights(*m, dir / "m");
  }
  EXPECT_EQ(memory().numTensors, before);
}

// ---- TF.js interop (driven by `make test-interop`) ---------------------------
// tests/interop/tfjs_save.mjs writes TF.js models with an input and TF.js's
// predictions; these load each and predict, and write Glint's own models
// for tests/interop/tfjs_check.mjs. They need GLINT_INTEROP_DIR (set by that
// target), so the plain suite runs exclude IoInterop.* (see the Makefile).

std::string interopDir() {
  const char* d = std::getenv("GLINT_INTEROP_DIR");
  return d ? d : "";
}

Json tensorJson(const Tensor& t) { return {{"shape", t.shape()}, {"data", t.toFloats()}}; }
Tensor tensorFromJson(const Json& j) {
  return tensor(j["data"].get<std::vector<float>>(), j["shape"].get<Shape>());
}

TEST(IoInterop, TfjsModelsLoadAndPredictWithin1e4) {
  ASSERT_FALSE(interopDir().empty())
      << "run through `make test-interop`, which sets GLINT_INTEROP_DIR";
  fs::path root = fs::path(interopDir()) / "tfjs";
  int models = 0;
  for (const char* name : {"mlp", "cnn", "lstm", "mixed"}) {
    fs::path d = root / name;
    if (!fs::exists(d / "model.json")) {
      ADD_FAILURE() << "missing TF.js model " << d;
      continue;
    }
    ++models;
    try {
      ModelPtr m = load(d.string());
      std::vector<Tensor> xs;
      Json inputs = readJson((d / "input.json").string())["inputs"];
      for (const Json& j : inputs) xs.push_back(tensorFromJson(j));
      std::vector<Tensor> ys = m->predict(xs);
      Json expected = readJson((d / "expected.json").string())["outputs"];
      ASSERT_EQ(ys.size(), expected.size()) << name;
      double worst = 0;
      for (size_t i = 0; i < ys.size(); ++i) {
        ASSERT_EQ(ys[i].shape(), expected[i]["shape"].get<Shape>()) << name;
        std::vector<float> got = ys[i].toFloats();
        auto want = expected[i]["data"].get<std::vector<double>>();
        for (size_t k = 0; k < got.size(); ++k)
          worst = std::max(worst, std::fabs(got[k] - want[k]));
      }
      std::printf("interop: TF.js %s -> Glint: %s (max |glint - tfjs| = %.2e)\n", name,
                  worst <= 1e-4 ? "PASS" : "FAIL", worst);
      EXPECT_LE(worst, 1e-4) << name;
      if (std::string(name) == "mlp") {  // saved by TF.js with includeOptimizer
        ASSERT_TRUE(m->compiled());
        EXPECT_GT(m->optimizer()->iterations(), 0);
      }
    } catch (const Error& e) {
      ADD_FAILURE() << "TF.js " << name << ": " << e.what();
      std::printf("interop: TF.js %s -> Glint: FAIL (%s)\n", name, e.what());
    }
  }
  EXPECT_EQ(models, 4);
}

// The same four architectures built by Glint, trained a little, saved with
// an input and Glint's predictions for TF.js to check.
TEST(IoInterop, GlintModelsSavedForTfjs) {
  ASSERT_FALSE(interopDir().empty())
      << "run through `make test-interop`, which sets GLINT_INTEROP_DIR";
  fs::path root = fs::path(interopDir()) / "glint";
  setSeed(42);
  struct Case {
    std::string name;
    std::function<ModelPtr()> make;
    Shape inputShape;
    int classes;
    bool tokens = false;
  };
  std::vector<Case> cases = {
      {"mlp",
       [] {
         auto m = sequential();
         m->add(layers::dense({{"units", 128}, {"activation", "relu"}, {"inputShape", {784}}}));
         m->add(layers::dense({{"units", 10}, {"activation", "softmax"}}));
         return ModelPtr(m);
       },
       {16, 784},
       10},
      {"cnn",
       [] {
         auto m = sequential();
         m->add(layers::conv2d({{"filters", 8},
                                {"kernelSize", 3},
                                {"activation", "relu"},
                                {"inputShape", {28, 28, 1}}}));
         m->add(layers::maxPooling2d({{"poolSize", 2}}));
         m->add(layers::conv2d({{"filters", 16}, {"kernelSize", 3}, {"activation", "relu"}}));
         m->add(layers::maxPooling2d({{"poolSize", 2}}));
         m->add(layers::flatten());
         m->add(layers::dense({{"units", 10}, {"activation", "softmax"}}));
         return ModelPtr(m);
       },
       {8, 28, 28, 1},
       10},
      {"lstm",
       [] {
         auto m = sequential();
         m->add(layers::lstm({{"units", 128}, {"inputShape", {28, 28}}}));
         m->add(layers::dense({{"units", 10}, {"activation", "softmax"}}));
         return ModelPtr(m);
       },
       {4, 28, 28},
       10},
      {"mixed",
       [] {
         auto tokens = input({{"shape", {10}}});
         auto emb = layers::embedding({{"inputDim", 20}, {"outputDim", 8}})->apply(tokens);
         auto seq = layers::gru({{"units", 6}})->apply(emb);
         auto a = layers::dense({{"units", 6}, {"activation", "relu"}})->apply(seq);
         auto b = layers::dense({{"units", 6}})->apply(seq);
         auto sum = layers::add()->apply(std::vector<SymbolicTensorPtr>{a, b})[0];
         auto cat = layers::concatenate()->apply(std::vector<SymbolicTensorPtr>{sum, seq})[0];
         auto norm = layers::batchNormalization()->apply(cat);
         auto drop = layers::dropout({{"rate", 0.3}})->apply(norm);
         auto out = layers::dense({{"units", 3}, {"activation", "softmax"}})->apply(drop);
         return glint::model({tokens}, {out});
       },
       {16, 10},
       3,
       true},
  };
  for (const Case& c : cases) {
    try {
      ModelPtr m = c.make();
      Tensor x =
          c.tokens ? floor(randomUniform(c.inputShape, 0, 20)) : randomUniform(c.inputShape, 0, 1);
      Tensor labels =
          cast(floor(randomUniform({c.inputShape[0]}, 0, static_cast<float>(c.classes) - 0.01f)),
               DType::int32);
      Tensor y = oneHot(labels, c.classes);
      m->compile({.optimizer = "adam", .loss = {"categoricalCrossentropy"}, .metrics = {}});
      m->fit(x, y, {.epochs = 1, .batchSize = 8, .shuffle = false});
      fs::path d = root / c.name;
      save(*m, d.string());
      Tensor probe = slice(x, {0}, {2});
      writeJson((d / "input.json").string(), {{"inputs", {tensorJson(probe)}}});
      writeJson((d / "expected.json").string(), {{"outputs", {tensorJson(m->predict(probe))}}});
    } catch (const Error& e) {
      ADD_FAILURE() << "Glint " << c.name << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace glint::testing
