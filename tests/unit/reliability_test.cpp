// Issue 9: hostile files meet limits checked before allocation, every defect
// ends in a glint::Error, and a save killed at any moment (SIGKILL) leaves the
// previous model intact. The defects fixed with the fuzzers (fuzz/) in mind
// each have a test here; inputs the fuzzers find crashing belong at the end.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "glint/data.h"
#include "glint/engine.h"
#include "glint/io.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "glint/model.h"
#include "glint/ops.h"
#include "tests/unit/op_harness.h"

#ifndef __EMSCRIPTEN__
#include <signal.h>
#include <sys/wait.h>
#include <zlib.h>
#endif

namespace glint::io::detail {
extern bool forceTwoStepExchange;
}

namespace glint::testing {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    static int n = 0;
    path = fs::temp_directory_path() /
           ("glint_reliability_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

void writeText(const std::string& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

// A model.json holding a topology and one manifest group.
Json modelJson(const Json& topology, const Json& weights, const Json& paths = {"w.bin"}) {
  return {{"format", "layers-model"},
          {"modelTopology", topology},
          {"weightsManifest", Json::array({{{"paths", paths}, {"weights", weights}}})}};
}

Json sequentialOf(const Json& layers) {
  return {{"class_name", "Sequential"}, {"config", {{"name", "s"}, {"layers", layers}}}};
}

Json denseLayer(int64_t units, const Json& inputShape = nullptr) {
  Json config = {{"units", units}};
  if (!inputShape.is_null()) config["batch_input_shape"] = inputShape;
  return {{"class_name", "Dense"}, {"config", config}};
}

// ---- Resource limits ---------------------------------------------------------

TEST(Reliability, AManifestClaiming100GBFailsFastWithoutReadingOrAllocating) {
  // 25e9 float32 = 100 GB, in one weight and spread over 100 weights of 1 GB.
  Json one =
      Json::array({{{"name", "d/kernel"}, {"shape", {250000, 100000}}, {"dtype", "float32"}}});
  Json many = Json::array();
  for (int i = 0; i < 100; ++i) {
    std::string name = "w";
    name += std::to_string(i);  // appended: GCC 12 warns falsely on "w" + string
    many.push_back({{"name", name}, {"shape", {250000000}}, {"dtype", "float32"}});
  }
  for (const Json& weights : {one, many}) {
    int reads = 0;
    auto reader = [&](const std::string&, int64_t) {
      ++reads;
      return std::vector<uint8_t>();
    };
    auto start = std::chrono::steady_clock::now();
    int64_t tensorsBefore = memory().numTensors;
    expectError(
        [&] {
          io::artifactsFromModelJson(modelJson(sequentialOf(Json::array()), weights), reader);
        },
        {"[io.load] model.json", "LoadOptions.maxWeightBytes", "2147483648"});
    EXPECT_EQ(reads, 0);
    EXPECT_EQ(memory().numTensors, tensorsBefore);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  }
  // The same through a directory on disk: no shard exists, the limit speaks first.
  TempDir dir;
  fs::create_directories(dir.path / "m");
  writeText(dir / "m/model.json", modelJson(sequentialOf(Json::array()), one).dump());
  expectError([&] { io::loadArtifacts(dir / "m"); }, {"model.json", "maxWeightBytes"});
  expectError([&] { io::load(dir / "m"); }, {"model.json", "maxWeightBytes"});
  // Limits are configurable: 1 GB passes maxWeightBytes = 2 GB but not maxTensorBytes = 1 MB.
  io::LoadOptions small;
  small.maxTensorBytes = 1 << 20;
  Json gb = Json::array({{{"name", "k"}, {"shape", {1000, 1000}}, {"dtype", "float32"}}});
  expectError(
      [&] {
        io::artifactsFromModelJson(modelJson(sequentialOf(Json::array()), gb), nullptr, small);
      },
      {"'k'", "[1000,1000]", "4000000 bytes", "LoadOptions.maxTensorBytes (1048576)"});
}

TEST(Reliability, TopologyLimitsAreCheckedBeforeWeightsAreAllocated) {
  io::LoadOptions options;
  int64_t tensorsBefore = memory().numTensors;
  // A Dense layer asking for a 10^6 x 10^6 kernel (4 TB), with no manifest at all.
  io::ModelArtifacts huge;
  huge.modelTopology = sequentialOf(Json::array({denseLayer(1000000, {nullptr, 1000000})}));
  expectError([&] { io::modelFromArtifacts(huge, options, "huge.json"); },
              {"[io.load] huge.json", "layer 'dense", "'kernel'", "[1000000,1000000]",
               "LoadOptions.maxTensorBytes"});
  // Many layers each under maxTensorBytes, together over maxWeightBytes.
  io::LoadOptions tight;
  tight.maxWeightBytes = 1 << 20;  // 1 MiB: 2 x (256 x 256 x 4 bytes) already is 0.5 MiB
  Json layers = Json::array({denseLayer(256, {nullptr, 256})});
  for (int i = 0; i < 5; ++i) layers.push_back(denseLayer(256));
  io::ModelArtifacts many;
  many.modelTopology = sequentialOf(layers);
  expectError([&] { io::modelFromArtifacts(many, tight, "many.json"); },
              {"many.json", "maxWeightBytes (1048576 bytes)", "'kernel'", "[256,256]"});
  // More layers than maxLayers: refused before a single layer is built.
  Json lots = Json::array({denseLayer(2, {nullptr, 2})});
  for (int i = 0; i < 40; ++i) lots.push_back(denseLayer(2));
  io::ModelArtifacts deep;
  deep.modelTopology = sequentialOf(lots);
  io::LoadOptions few;
  few.maxLayers = 16;
  expectError([&] { io::modelFromArtifacts(deep, few, "lots.json"); },
              {"lots.json", "41 layers", "maxLayers (16)"});
  EXPECT_NO_THROW(io::modelFromArtifacts(deep, options, "lots.json"));
  EXPECT_EQ(memory().numTensors, tensorsBefore);  // nothing left behind by the failures
}

TEST(Reliability, ModelJsonSizeAndNestingAreLimitedBeforeParsing) {
  io::LoadOptions options;
  // 1,000,000 nested arrays would overflow the stack when copied or printed.
  std::string deep(1000000, '[');
  expectError([&] { io::parseModelJson(deep, options, "deep.json"); },
              {"[io.load] deep.json", "nested deeper than 128", "maxJsonDepth", "byte 128"});
  // Brackets inside strings do not count; escaped quotes do not end them.
  std::string text = R"({"a": "[[[[\"[[[[", "b": [[1]]})";
  options.maxJsonDepth = 3;
  EXPECT_EQ(io::parseModelJson(text, options)["b"], Json::parse("[[1]]"));
  options.maxJsonDepth = 2;
  expectError([&] { io::parseModelJson(text, options); }, {"deeper than 2"});
  options.maxModelJsonBytes = 8;
  expectError([&] { io::parseModelJson(text, options, "m.json"); },
              {"m.json is 31 bytes", "maxModelJsonBytes (8)"});
  expectError([] { io::parseModelJson("{\"a\": tru"); }, {"[io.load] model.json: not valid JSON"});
}

TEST(Reliability, WrongJsonTypesInATopologyAreGlintErrorsNamingTheFile) {
  // Each would escape as an nlohmann or std exception from deep inside a layer.
  std::vector<Json> topologies = {
      {{"class_name", "Model"},
       {"config", {{"layers", {{{"class_name", "Dense"}, {"config", {{"name", 7}}}}}}}}},
      sequentialOf({{{"class_name", "Dense"},
                     {"config", {{"units", "many"}, {"batch_input_shape", {nullptr, 2}}}}}}),
      sequentialOf(
          {{{"class_name", "Dense"}, {"config", {{"units", 2}, {"batch_input_shape", "x"}}}}}),
  };
  for (const Json& t : topologies) {
    io::ModelArtifacts a;
    a.modelTopology = t;
    try {
      io::modelFromArtifacts(a, {}, "t.json");
      ADD_FAILURE() << "loaded " << t.dump();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("t.json"), std::string::npos) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a glint::Error: " << e.what() << " for " << t.dump();
    }
  }
}

TEST(Reliability, IntegerArgumentsOutsideInt64AreErrorsNotCasts) {
  // fuzz_model_json found "units": -1.4e47: casting it to int64 was undefined.
  for (const Json& units :
       {Json(-1.44444e47), Json(1e19), Json(18446744073709551615ull), Json(2.5)}) {
    io::ModelArtifacts a;
    a.modelTopology =
        sequentialOf({{{"class_name", "Dense"},
                       {"config", {{"units", units}, {"batch_input_shape", {nullptr, 2}}}}}});
    try {
      io::modelFromArtifacts(a, {}, "t.json");
      ADD_FAILURE() << "loaded units " << units.dump();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("'units' must be an integer"), std::string::npos)
          << e.what();
    }
  }
}

TEST(Reliability, QuantizationWhoseCodesLeaveTheDTypeRangeIsRefused) {
  io::WeightSpec spec{"q", {2}, DType::float32, "", io::Quantization{"uint8", 0.0, 1e37}};
  expectError([&] { io::weightByteLength(spec, "q.json"); },
              {"q.json", "'q'", "scale 1e+37", "outside the float32 range"});
  spec.quantization = io::Quantization{"uint16", -3e9, 1.0};
  spec.dtype = DType::int32;
  expectError([&] { io::weightByteLength(spec, "q.json"); }, {"outside the int32 range"});
  spec.quantization = io::Quantization{"uint16", -1000.0, 0.5};  // codes give [-1000, 31767.5]
  EXPECT_EQ(io::weightByteLength(spec, "q.json"), 4);
  io::NamedTensors t = io::decodeWeights({0, 0, 0xff, 0xff}, {spec});
  EXPECT_EQ(t[0].second.data<int32_t>(), (std::vector<int32_t>{-1000, 31768}));  // llround(31767.5)
}

// ---- Data loaders ---------------------------------------------------------------

std::vector<uint8_t> idxHeader(uint8_t type, const std::vector<uint32_t>& dims) {
  std::vector<uint8_t> b = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims)
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<uint8_t>(d >> s));
  return b;
}

TEST(Reliability, IdxShapesMustHaveARepresentableSize) {
  // A 0 dimension makes the claim 0 bytes, yet [0, 2^32-1 x 4] overflows int64.
  auto bytes = idxHeader(0x08, {0, 0xffffffffu, 0xffffffffu, 0xffffffffu});
  expectError([&] { data::decodeIdx(bytes, {}, "z.idx"); }, {"z.idx", "impossibly large"});
  Tensor ok = data::decodeIdx(idxHeader(0x08, {0, 5}), {}, "e.idx");
  EXPECT_EQ(ok.shape(), (Shape{0, 5}));
  // Out-of-range doubles become infinities (a plain double->float cast is UB).
  auto d = idxHeader(0x0E, {2});
  for (double v : {1e300, -1e300}) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    for (int s = 56; s >= 0; s -= 8) d.push_back(static_cast<uint8_t>(bits >> s));
  }
  EXPECT_EQ(data::decodeIdx(d).data<float>(), (std::vector<float>{INFINITY, -INFINITY}));
  expectError([&] { data::decodeIdx(std::vector<uint8_t>(100, 0), {}, "x.idx", 10); },
              {"x.idx", "100 bytes", "limit of 10"});
}

TEST(Reliability, CsvNumbersBeyondFloatRangeAreRefused) {
  // Issue 31: an infinity would train a NaN model; the cell is named instead.
  expectError([] { data::parseCsv("a,b\n1e400,2\n-1e400,3\n"); },
              {"line 2, column 'a'", "'1e400'", "not a finite float32 number"});
  expectError([] { data::parseCsv("a\n\"x", {}, "q.csv"); }, {"q.csv", "unterminated"});
}

#ifndef __EMSCRIPTEN__

// gzip of `n` zero bytes (compresses ~1000:1).
std::vector<uint8_t> gzipZeros(size_t n) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::vector<uint8_t> in(n, 0), out(deflateBound(&z, n));
  z.next_in = in.data();
  z.avail_in = static_cast<uInt>(n);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST(Reliability, AGzipBombStopsAtTheLimit) {
  std::vector<uint8_t> bomb = gzipZeros(16 << 20);  // 16 MiB of zeros in ~16 KB
  EXPECT_LT(bomb.size(), 40000u);
  expectError([&] { data::decodeIdx(bomb, {}, "bomb.idx.gz", 1 << 20); },
              {"bomb.idx.gz", "decompresses to more than 1048576 bytes"});
  // Under the limit the same path works: a gzip'd ubyte [4] IDX.
  auto idx = idxHeader(0x08, {4});
  idx.insert(idx.end(), {1, 2, 3, 4});
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  std::vector<uint8_t> gz(256);
  z.next_in = idx.data();
  z.avail_in = static_cast<uInt>(idx.size());
  z.next_out = gz.data();
  z.avail_out = static_cast<uInt>(gz.size());
  deflate(&z, Z_FINISH);
  gz.resize(z.total_out);
  deflateEnd(&z);
  EXPECT_EQ(data::decodeIdx(gz, {}, "small.gz", 1 << 20).data<int32_t>(),
            (std::vector<int32_t>{1, 2, 3, 4}));
}

// ---- Atomic saves under SIGKILL -------------------------------------------------

// A model of ~8 MB in 4 MiB shards, with weights from `seed`.
ModelPtr bigModel(uint64_t seed) {
  setSeed(seed);
  auto m = sequential();
  m->add(layers::dense({{"units", 1024}, {"inputShape", {1024}}}));
  m->add(layers::dense({{"units", 1024}}));
  return m;
}

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Each trial: the directory holds model A; a child process saves model B over
// it and is SIGKILLed after a delay spread across the save's duration. The
// directory must then load as A or B, byte for byte, never a mix or an error;
// half the trials use the two-rename fallback instead of RENAME_EXCHANGE.
TEST(Reliability, SaveKilledAtRandomMomentsLeavesThePreviousModelIntact) {
  TempDir dir;
  const std::string target = dir / "model";
  io::ModelArtifacts a = io::modelToArtifacts(*bigModel(1));
  io::ModelArtifacts b = io::modelToArtifacts(*bigModel(2));
  ASSERT_NE(a.weightData, b.weightData);
  ASSERT_GT(a.weightData.size(), 8u << 20);
  // How long a child's whole save takes (fork included), to spread the kills over.
  auto saveInChild = [&](bool twoStep) {
    pid_t pid = ::fork();
    if (pid == 0) {  // the child: file work only (the engine's threads do not survive fork)
      io::detail::forceTwoStepExchange = twoStep;
      try {
        io::saveArtifacts(b, target);
      } catch (...) {
        ::_exit(2);
      }
      ::_exit(0);
    }
    return pid;
  };
  io::saveArtifacts(a, target);
  auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  ::waitpid(saveInChild(false), &status, 0);
  double saveSeconds = seconds(t0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_EQ(io::loadArtifacts(target).weightData, b.weightData);

  // At least kTrials trials, more (up to kMaxTrials) until kKills kills have
  // landed inside a save: on a loaded machine a save's time swings, and a
  // kill that comes after the save checks nothing.
  const int kTrials = 10, kMaxTrials = 40, kKills = 4;
  int killedMidSave = 0, sawOld = 0, sawNew = 0, trials = 0;
  double window = saveSeconds * 1.2;
  for (int trial = 0; trial < kTrials || (killedMidSave < kKills && trial < kMaxTrials); ++trial) {
    ++trials;
    io::saveArtifacts(a, target);
    bool twoStep = trial % 2 == 1;
    // Spread over the save's duration, jittered per trial; the window shrinks
    // whenever a save finished first (the calibration run may have been slow).
    double delay =
        window * (trial % kTrials + 0.25 + 0.5 * std::fmod(trial * 0.618, 1.0)) / kTrials;
    pid_t pid = saveInChild(twoStep);
    ASSERT_GE(pid, 0);
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
      ++killedMidSave;
    } else {
      ASSERT_EQ(WEXITSTATUS(status), 0) << "the child's save failed";
      window *= 0.6;
    }

    io::ModelArtifacts back = io::loadArtifacts(target);
    bool isOld = back.weightData == a.weightData, isNew = back.weightData == b.weightData;
    EXPECT_TRUE(isOld || isNew) << "trial " << trial << " (delay " << delay << " s): a mix";
    sawOld += isOld;
    sawNew += isNew;
    // The whole model loads too, with the weights of one version exactly.
    ModelPtr loaded = io::load(target);
    const io::ModelArtifacts& want = isOld ? a : b;
    EXPECT_EQ(io::modelToArtifacts(*loaded).weightData, want.weightData);
  }
  // The next save clears what killed saves left behind: only "model" remains.
  io::saveArtifacts(a, target);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir.path))
    left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"model"});
  std::printf(
      "[ reliability ] %d SIGKILL trials, save %.3f s: %d killed mid-save, %d old intact, "
      "%d new complete, 0 mixed\n",
      trials, saveSeconds, killedMidSave, sawOld, sawNew);
  EXPECT_GE(killedMidSave, kKills);  // the kills did land inside saves
}

TEST(Reliability, ACrashBetweenTheFallbacksTwoRenamesIsRecovered) {
  TempDir dir;
  io::ModelArtifacts a = io::modelToArtifacts(*bigModel(3));
  io::saveArtifacts(a, dir / "m");
  // What the two-rename exchange leaves when killed after its first rename.
  // A load reads the model aside and changes no file (loads are read-only).
  fs::rename(dir / "m", dir / "m.glint-old");
  EXPECT_EQ(io::loadArtifacts(dir / "m").weightData, a.weightData);
  EXPECT_EQ(io::loadArtifacts(dir / "m/model.json").weightData, a.weightData);
  EXPECT_FALSE(fs::exists(dir / "m"));
  EXPECT_TRUE(fs::exists(dir / "m.glint-old/model.json"));
  // And a save that finds that state first restores, then replaces.
  io::ModelArtifacts b = io::modelToArtifacts(*bigModel(4));
  io::saveArtifacts(b, dir / "m/");
  EXPECT_EQ(io::loadArtifacts(dir / "m").weightData, b.weightData);
  EXPECT_FALSE(fs::exists(dir / "m.glint-old"));
  // Killed after the second rename: the new model is in place, the old copy
  // lingers aside until the next save.
  fs::copy(dir / "m", dir / "m.glint-old");
  EXPECT_EQ(io::loadArtifacts(dir / "m").weightData, b.weightData);
  io::saveArtifacts(a, dir / "m");
  EXPECT_EQ(io::loadArtifacts(dir / "m").weightData, a.weightData);
  EXPECT_FALSE(fs::exists(dir / "m.glint-old"));
}

TEST(Reliability, StaleTemporariesOfDeadProcessesAreRemovedOnSave) {
  TempDir dir;
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);  // a pid that no longer runs
  fs::path stale = dir.path / (".m.glint-tmp-" + std::to_string(pid) + "-0");
  fs::path live = dir.path / (".m.glint-tmp-" + std::to_string(::getppid()) + "-0");
  fs::path other = dir.path / ".n.glint-tmp-1-0";  // another model's: not ours to judge
  for (const fs::path& p : {stale, live, other}) fs::create_directories(p);
  writeText((stale / "group1-shard1of1.bin").string(), "partial");
  io::saveArtifacts(io::modelToArtifacts(*bigModel(5)), dir / "m");
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(other));
}

#endif  // __EMSCRIPTEN__

// ---- Regressions found by the fuzzers (fuzz/) --------------------------------
// None so far (docs/RELIABILITY.md has the execution counts).

}  // namespace
}  // namespace glint::testing
