// Issue 31, native io: hostile and broken files on disk. Links out of the
// model's folder, FIFOs, devices and directories where files belong, saves
// that must not delete files a foreign model.json names, loads that must
// change no file, non-finite weights.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <sstream>

#include "glint/io.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "glint/model.h"
#include "glint/ops.h"
#include "src/io/safe_file.h"
#include "tests/unit/op_harness.h"

namespace glint::testing {
namespace {

namespace fs = std::filesystem;
using namespace glint::io;  // NOLINT: the API under test

struct TempDir {
  fs::path path;
  TempDir() {
    static int n = 0;
    path = fs::temp_directory_path() /
           ("glint_hostile_io_test_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
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

// Four float32 weights (16 bytes) in one shard, "group1-shard1of1.bin".
ModelArtifacts smallArtifacts() {
  ModelArtifacts a;
  a.modelTopology = {{"class_name", "Sequential"},
                     {"config", {{"name", "s"}, {"layers", Json::array()}}}};
  a.generatedBy = "Glint test";
  auto [specs, data] = encodeWeights({{"w", tensor({1.f, 2.f, 3.f, 4.f}, {4})}});
  a.weightSpecs = specs;
  a.weightData = data;
  return a;
}

// Every file below `dir` with its bytes, to prove nothing changed.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    files[e.path().string()] = e.is_regular_file() ? readText(e.path().string()) : "<dir>";
  return files;
}

// ---- Saves delete only what Glint wrote -------------------------------------------

TEST(Hostile, SaveKeepsUserFilesAForeignManifestNames) {
  TempDir dir;
  fs::create_directories(dir.path / "m");
  writeText(dir / "m/notes.txt", "my notes");
  writeText(dir / "outside.txt", "outside");
  writeText(dir / "m/group1-shard1of1.bin", "not Glint's");
  // A model.json from elsewhere that lists the user's files as its shards.
  Json foreign = {{"modelTopology", Json::object()},
                  {"generatedBy", "TensorFlow.js"},
                  {"weightsManifest",
                   {{{"paths", {"notes.txt", "../outside.txt", "group1-shard1of1.bin"}},
                     {"weights", Json::array()}}}}};
  writeJson(dir / "m/model.json", foreign);
  SaveOptions o;
  o.shardSizeBytes = 8;  // two shards: group1-shard1of2.bin, group1-shard2of2.bin
  saveArtifacts(smallArtifacts(), dir / "m", o);
  EXPECT_EQ(readText(dir / "m/notes.txt"), "my notes");
  EXPECT_EQ(readText(dir / "outside.txt"), "outside");
  EXPECT_EQ(readText(dir / "m/group1-shard1of1.bin"), "not Glint's");  // not Glint's manifest
  EXPECT_EQ(loadArtifacts(dir / "m").weightData, smallArtifacts().weightData);

  // Even a Glint manifest replaces only names of Glint's own shard pattern.
  Json own = readJson(dir / "m/model.json");
  own["weightsManifest"][0]["paths"] = {"notes.txt", "../outside.txt", "group1-shard1of2.bin",
                                        "group1-shard2of2.bin"};
  writeJson(dir / "m/model.json", own);
  saveArtifacts(smallArtifacts(), dir / "m", SaveOptions{.shardSizeBytes = 16});
  EXPECT_EQ(readText(dir / "m/notes.txt"), "my notes");
  EXPECT_EQ(readText(dir / "outside.txt"), "outside");
  EXPECT_FALSE(fs::exists(dir / "m/group1-shard2of2.bin"));  // Glint's: replaced
  EXPECT_TRUE(fs::exists(dir / "m/group1-shard1of1.bin"));
  EXPECT_EQ(loadArtifacts(dir / "m").weightData, smallArtifacts().weightData);

#if defined(__EMSCRIPTEN__)
  return;  // Emscripten's MEMFS has no named pipes; the rest ran above
#endif
  // Other things in the folder are kept as they are, never followed or read:
  // a FIFO, a link to a folder elsewhere, a folder holding a link.
  ASSERT_EQ(::mkfifo((dir / "m/user.fifo").c_str(), 0644), 0);
  fs::create_directories(dir.path / "elsewhere");
  writeText(dir / "elsewhere/big.txt", "not to be copied");
  fs::create_directory_symlink(dir.path / "elsewhere", dir.path / "m/linked");
  fs::create_directories(dir.path / "m/sub");
  fs::create_symlink(dir / "elsewhere/big.txt", dir.path / "m/sub/link.txt");
  saveArtifacts(smallArtifacts(), dir / "m");
  EXPECT_TRUE(fs::is_fifo(dir / "m/user.fifo"));
  EXPECT_TRUE(fs::is_symlink(dir / "m/linked"));
  EXPECT_TRUE(fs::is_symlink(dir / "m/sub/link.txt"));
  EXPECT_EQ(readText(dir / "m/notes.txt"), "my notes");
}

// ---- Links ------------------------------------------------------------------------

TEST(Hostile, LinksOutOfTheModelsFolderAreRefused) {
  TempDir dir;
  saveArtifacts(smallArtifacts(), dir / "m");
  std::string shard = dir / "m/group1-shard1of1.bin";
  // A shard that links to a file outside the folder (say, a secret of the
  // same size) is refused, naming the link and where it leads.
  fs::rename(shard, dir / "secret.bin");
  fs::create_symlink(dir / "secret.bin", shard);
  expectError([&] { loadArtifacts(dir / "m"); }, {"io.load", shard, "outside the model's folder"});
  // A relative link up and out, too.
  fs::remove(shard);
  fs::create_symlink("../secret.bin", shard);
  expectError([&] { loadArtifacts(dir / "m"); }, {"outside the model's folder"});
  // Links inside the folder still work.
  fs::remove(shard);
  fs::create_directories(dir.path / "m/data");
  fs::rename(dir / "secret.bin", dir / "m/data/real.bin");
  fs::create_symlink("data/real.bin", shard);
  EXPECT_EQ(loadArtifacts(dir / "m").weightData, smallArtifacts().weightData);
  // model.json itself may not lead out either.
  std::string json = dir / "m/model.json";
  fs::rename(json, dir / "elsewhere.json");
  fs::create_symlink(dir / "elsewhere.json", json);
  expectError([&] { loadArtifacts(dir / "m"); }, {json, "outside the model's folder"});
  // A linked folder (the user's choice) is fine: confinement is to its target.
  fs::remove(json);
  fs::rename(dir / "elsewhere.json", json);
  fs::create_directory_symlink(dir.path / "m", dir.path / "link");
  EXPECT_EQ(loadArtifacts(dir / "link").weightData, smallArtifacts().weightData);
}

// ---- Only regular files -------------------------------------------------------------

TEST(Hostile, PipesDevicesAndDirectoriesAreNamedNotReadOrCalledMissing) {
#if defined(__EMSCRIPTEN__)
  // Emscripten's in-memory file system has no named pipes and no /dev/zero;
  // node's own loader is tested with real ones in tests/web/hostile_files.test.mjs.
  GTEST_SKIP() << "no named pipes or device nodes in Emscripten's MEMFS";
#endif
  TempDir dir;
  saveArtifacts(smallArtifacts(), dir / "m");
  std::string shard = dir / "m/group1-shard1of1.bin";
  auto start = std::chrono::steady_clock::now();
  fs::remove(shard);
  ASSERT_EQ(::mkfifo(shard.c_str(), 0644), 0);  // no writer: a blocking open never returns
  expectError([&] { loadArtifacts(dir / "m"); }, {shard, "is a named pipe"});
  fs::remove(shard);
  fs::create_directory(shard);
  expectError([&] { loadArtifacts(dir / "m"); }, {shard, "is a directory"});
  fs::remove(shard);
  fs::create_symlink("/dev/zero", shard);  // outside: refused by confinement already
  expectError([&] { loadArtifacts(dir / "m"); }, {shard});
  // A device inside the folder (a link cannot be used, so read it directly).
  expectError([&] { readRegularFile("/dev/zero", 16, "io.load", "t", "weight shard file"); },
              {"'/dev/zero' is a device"});
  fs::remove(shard);
  fs::copy_file(dir / "m/model.json", dir / "json.bak");
  fs::remove(dir / "m/model.json");
  ASSERT_EQ(::mkfifo((dir / "m/model.json").c_str(), 0644), 0);
  expectError([&] { loadArtifacts(dir / "m"); }, {"model.json", "is a named pipe"});
  expectError([&] { loadArtifacts(dir / "m/model.json"); }, {"model.json", "is a named pipe"});
  fs::remove(dir / "m/model.json");
  fs::create_directory(dir / "m/model.json");
  expectError([&] { loadArtifacts(dir / "m"); }, {"model.json", "is a directory"});
  // Bounded work: nothing above waited on a pipe.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 60.0);
  // A save into a folder whose model.json is a pipe does not hang either.
  saveArtifacts(smallArtifacts(), dir / "p/");
  fs::remove(dir / "p/model.json");
  ASSERT_EQ(::mkfifo((dir / "p/model.json").c_str(), 0644), 0);
  saveArtifacts(smallArtifacts(), dir / "p");
  EXPECT_EQ(loadArtifacts(dir / "p").weightData, smallArtifacts().weightData);
}

TEST(Hostile, SizesAreCheckedBeforeReading) {
  TempDir dir;
  saveArtifacts(smallArtifacts(), dir / "m");
  // A 64 MiB sparse shard for a 16-byte manifest: refused by size, not read.
  std::string shard = dir / "m/group1-shard1of1.bin";
  fs::resize_file(shard, 64ll << 20);
  expectError([&] { loadArtifacts(dir / "m"); }, {shard, "67108864 bytes", "(16 bytes)"});
  // model.json over LoadOptions.maxModelJsonBytes, whatever the parser would say.
  fs::resize_file(shard, 16);
  LoadOptions small;
  small.maxModelJsonBytes = 10;
  expectError([&] { loadArtifacts(dir / "m", small); },
              {"model.json", "maxModelJsonBytes (10 bytes)"});
  // The helper reads at most the budget: a file of exactly it is fine.
  writeText(dir / "f", "0123456789");
  EXPECT_EQ(readRegularFileText(dir / "f", 10, "op", "s", "file"), "0123456789");
  expectError([&] { readRegularFileText(dir / "f", 9, "op", "s", "file", "the budget"); },
              {"[op] s: file", "is 10 bytes, more than the budget (9 bytes)"});
  expectError([&] { readRegularFileText(dir / "none", 9, "op", "s", "file"); }, {"is missing"});
}

// ---- Loads change no file ------------------------------------------------------------

TEST(Hostile, LoadingAnInterruptedExchangeRenamesNothing) {
  TempDir dir;
  saveArtifacts(smallArtifacts(), dir / "m");
  fs::rename(dir / "m", dir / "m.glint-old");
  auto before = snapshot(dir.path);
  EXPECT_EQ(loadArtifacts(dir / "m").weightData, smallArtifacts().weightData);
  EXPECT_EQ(loadArtifacts(dir / "m/").weightData, smallArtifacts().weightData);
  EXPECT_EQ(loadArtifacts("file://" + (dir / "m/model.json")).weightData,
            smallArtifacts().weightData);
  EXPECT_EQ(snapshot(dir.path), before);
  EXPECT_FALSE(fs::exists(dir / "m"));
  // The next save puts things right.
  saveArtifacts(smallArtifacts(), dir / "m");
  EXPECT_TRUE(fs::exists(dir / "m/model.json"));
  EXPECT_FALSE(fs::exists(dir / "m.glint-old"));
}

// ---- Non-finite weights ------------------------------------------------------------

// A saved Dense(2) on 2 inputs: kernel (4 floats) then bias (2), one shard.
struct SavedDense {
  TempDir dir;
  std::string model, shard;
  SavedDense(Quantize q = Quantize::none) {
    auto m = sequential();
    m->add(layers::dense({{"units", 2}, {"inputShape", {2}}, {"name", "d"}}));
    model = dir / "m";
    SaveOptions o;
    o.quantize = q;
    save(*m, model, o);
    shard = model + "/group1-shard1of1.bin";
  }
  void poke(size_t at, const void* bytes, size_t n) {
    std::string data = readText(shard);
    std::memcpy(data.data() + at, bytes, n);
    writeText(shard, data);
  }
};

TEST(Hostile, NonFiniteWeightsAreRefusedUnlessAllowed) {
  {
    SavedDense s;  // raw float32 NaN in the kernel's third element
    float nan = std::numeric_limits<float>::quiet_NaN();
    s.poke(8, &nan, 4);
    expectError([&] { load(s.model); },
                {"io.load", s.model, "'d/kernel'", "nan", "index 2", "allowNonFiniteWeights"});
    LoadOptions allow;
    allow.allowNonFiniteWeights = true;
    ModelPtr m = load(s.model, allow);
    EXPECT_TRUE(std::isnan(m->weights()[0].data<float>()[2]));
    // Loading weights into an existing model is checked the same way.
    ModelPtr same = load(s.model, allow);
    expectError([&] { loadWeights(*same, s.model); }, {"'d/kernel'", "nan"});
  }
  {
    SavedDense s;  // +inf in the bias
    float inf = std::numeric_limits<float>::infinity();
    s.poke(16 + 4, &inf, 4);
    expectError([&] { load(s.model); }, {"'d/bias'", "inf", "index 1"});
  }
  {
    SavedDense s(Quantize::float16);  // float16 infinity code 0x7c00
    uint16_t h = 0xfc00;              // -inf
    s.poke(0, &h, 2);
    expectError([&] { load(s.model); }, {"'d/kernel'", "-inf", "index 0"});
  }
}

// ---- Clear errors -----------------------------------------------------------------

TEST(Hostile, WeightNamesFromTheFileAreQuotedAndCapped) {
  TempDir dir;
  saveArtifacts(smallArtifacts(), dir / "m");
  Json j = readJson(dir / "m/model.json");
  // A name with a NUL and an escape sequence: the message goes on past the NUL.
  j["weightsManifest"][0]["weights"][0]["name"] = std::string("a\0b\x1b[31m", 8);
  j["weightsManifest"][0]["weights"][0]["dtype"] = "float64";
  writeJson(dir / "m/model.json", j);
  expectError([&] { loadArtifacts(dir / "m"); },
              {"a\\x00b\\x1b[31m", "float64", "expected float32"});
  // A 1 MiB name: the message stays short.
  j["weightsManifest"][0]["weights"][0]["name"] = std::string(1 << 20, 'n');
  writeJson(dir / "m/model.json", j);
  try {
    loadArtifacts(dir / "m");
    ADD_FAILURE() << "loaded";
  } catch (const Error& e) {
    EXPECT_LT(std::strlen(e.what()), 2000u);
    EXPECT_NE(std::string(e.what()).find("1048576 bytes in all"), std::string::npos) << e.what();
  }
}

TEST(Hostile, JsonTypeErrorsAndHugeDimensionsNameTheFileAndField) {
  TempDir dir;
  auto m = sequential();
  m->add(layers::dense({{"units", 2}, {"inputShape", {2}}, {"name", "d"}}));
  save(*m, dir / "m");
  Json j = readJson(dir / "m/model.json");
  Json& layer = j["modelTopology"]["config"]["layers"][0]["config"];
  layer["batch_input_shape"] = Json::array({nullptr, 1e30});
  writeJson(dir / "m/model.json", j);
  expectError([&] { load(dir / "m"); }, {dir / "m", "batch_input_shape", "1e+30"});
  // Past int64 as an integer: reported as written, not wrapped to a negative dimension.
  writeText(dir / "m/model.json",
            std::regex_replace(j.dump(), std::regex("1e\\+30"), "9223372036854775808"));
  expectError([&] { load(dir / "m"); }, {"batch_input_shape", "got [null,9223372036854775808]"});
  layer["batch_input_shape"] = Json::array({nullptr, 2});
  layer["units"] = 18446744073709551615ull;
  writeJson(dir / "m/model.json", j);
  expectError([&] { load(dir / "m"); }, {"units", "18446744073709551615"});
  // The wrong JSON type where the manifest wants a string names the field.
  layer["units"] = 2;
  j["weightsManifest"][0]["weights"][0]["dtype"] = Json::array({1});
  writeJson(dir / "m/model.json", j);
  expectError([&] { load(dir / "m"); }, {"model.json", "weights[0]", "\"dtype\""});
}

TEST(Hostile, InvalidUtf8InALayerNameIsBlamedOnTheName) {
  TempDir dir;
  auto m = sequential();
  m->add(layers::dense({{"units", 2}, {"inputShape", {2}}, {"name", "dense_q"}}));
  save(*m, dir / "m");
  std::string text = readText(dir / "m/model.json");
  size_t at = text.find("\"dense_q\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at + 1, 7, "d\xff\x1b[2J");  // not UTF-8, and a terminal escape
  writeText(dir / "m/model.json", text);
  try {
    load(dir / "m");
    ADD_FAILURE() << "loaded";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("model.json: not valid JSON in the value of \"name\""), std::string::npos)
        << msg;
    EXPECT_EQ(msg.find('\xff'), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\x1b'), std::string::npos) << msg;
  }
}

TEST(Hostile, ASaveOfANameThatIsNotUtf8NamesWhereItIs) {
  TempDir dir;
  ModelArtifacts a = smallArtifacts();
  a.modelTopology.json()["config"]["layers"] =
      Json::array({{{"class_name", "Dense"}, {"config", {{"name", "d\xff\x1b"}}}}});
  expectError([&] { saveArtifacts(a, dir / "m"); },
              {"[io.save]", "model.json.modelTopology.config.layers[0].config.name", "d\\xff\\x1b",
               "not valid UTF-8"});
  EXPECT_FALSE(fs::exists(dir / "m"));
}

}  // namespace
}  // namespace glint::testing

namespace glint::testing {
namespace {

TEST(Hostile, TooManyJsonValuesAreRefusedBeforeParsing) {
  // 64 MiB of "1,1,1,..." is ~31 million values: parsed, more than
  // WebAssembly's memory holds (the module aborted in node). Native and wasm
  // share the limit (LoadOptions.maxJsonValues), counted in the depth scan.
  std::string text = "{\"modelTopology\":{\"junk\":[";
  for (int i = 0; i < 4'100'000; ++i) text += "1,";
  text += "1]}}";
  expectError([&] { io::parseModelJson(text, {}, "big.json"); },
              {"[io.load]", "big.json", "more than 4000000 JSON values", "maxJsonValues"});
  io::LoadOptions more;
  more.maxJsonValues = 5'000'000;
  EXPECT_EQ(io::parseModelJson(text, more, "big.json")["modelTopology"]["junk"].size(), 4'100'001u);
}

}  // namespace
}  // namespace glint::testing
