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
#include <sstream>

#include "glint/io.h"
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
  a.modelTopology = {{"class_name", "Sequential"}, {"config", {{"name", "s"}, {"layers", Json::array()}}}};
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
  expectError([&] { loadArtifacts(dir / "m", small); }, {"model.json", "maxModelJsonBytes (10 bytes)"});
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
  EXPECT_EQ(loadArtifacts("file://" + (dir / "m/model.json")).weightData, smallArtifacts().weightData);
  EXPECT_EQ(snapshot(dir.path), before);
  EXPECT_FALSE(fs::exists(dir / "m"));
  // The next save puts things right.
  saveArtifacts(smallArtifacts(), dir / "m");
  EXPECT_TRUE(fs::exists(dir / "m/model.json"));
  EXPECT_FALSE(fs::exists(dir / "m.glint-old"));
}

}  // namespace
}  // namespace glint::testing
