// GraphRun: graph models on a backend that reads only asynchronously, as
// WebGPU outside a page does. The cpu backend's test hook
// (HostBackend::setAsyncReadsOnly) refuses every read of a buffer with no
// host copy; the run stops at each, the test leaves the bytes on the host as
// a landed asynchronous read would, and the run goes on. Its outputs must be
// those of the plain run (the same kernels, synchronous reads) and of TF.js.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "glint/glint.h"
#include "glint/graph_model.h"
#include "glint/json.h"
#include "src/backends/host/host_backend.h"
#include "tests/unit/op_harness.h"

namespace glint::testing {
namespace {

namespace fs = std::filesystem;
using Feeds = std::vector<std::pair<std::string, Tensor>>;

HostBackend& cpuBackend() {
  setBackend("cpu");
  return *static_cast<HostBackend*>(zeros({1}).impl()->storage->backend);
}

// The cpu backend without synchronous reads, for a scope.
struct AsyncReadsOnly {
  BackendScope backend{"cpu"};
  HostBackend& cpu = cpuBackend();
  AsyncReadsOnly() { cpu.setAsyncReadsOnly(true); }
  ~AsyncReadsOnly() { cpu.setAsyncReadsOnly(false); }
};

struct Waited {
  std::vector<Tensor> outputs;
  int64_t stops = 0;
};

// Runs to the end, "reading" each tensor the run waits for.
Waited runWaiting(const GraphModel& m, const Feeds& feeds, const std::vector<std::string>& names) {
  AsyncReadsOnly scope;
  GraphRun run = m.start(feeds, names);
  while (!run.resume()) {
    const Tensor& t = run.pendingRead();
    EXPECT_TRUE(t.defined() && !t.isDisposed());
    EXPECT_NE(run.pendingReason().find("node '"), std::string::npos) << run.pendingReason();
    const Storage& s = *t.impl()->storage;
    scope.cpu.keepHostCopy(s.handle, s.bytes);
  }
  return {run.outputs(), run.numStops()};
}

// Element by element: the same kernels ran, so the values are the same.
void expectSame(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].shape(), want[i].shape()) << what << " output " << i;
    ASSERT_EQ(got[i].dtype(), want[i].dtype()) << what << " output " << i;
    std::vector<float> g = got[i].toFloats(), w = want[i].toFloats();
    for (size_t k = 0; k < g.size(); ++k)
      ASSERT_TRUE(g[k] == w[k] || (std::isnan(g[k]) && std::isnan(w[k])))
          << what << " output " << i << " [" << k << "]: " << g[k] << " vs " << w[k];
  }
}

// The wasm build sees only its in-memory file system: the tests on the
// installed human models are native-only (tests/web/webgpu_node.test.mjs runs
// HandTrack through the same resumable run on WebGPU in node).
#if !defined(__EMSCRIPTEN__)
std::string handtrackFile() {
  return (fs::path(GLINT_SOURCE_DIR) / "node_modules/@vladmandic/human/models/handtrack.json")
      .string();
}

Tensor seededImage() {  // as tests/web/graph_model.test.mjs makes it
  int64_t seed = 7;
  std::vector<int32_t> pixels(320 * 320 * 3);
  for (int32_t& p : pixels) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    p = static_cast<int32_t>((seed >> 16) % 256);
  }
  return tensorInt(pixels, {1, 320, 320, 3});
}

// HandTrack: TF 1 loops over TensorLists, NonMaxSuppressionV5, TopKV2, Where,
// shapes computed on the device.
TEST(GraphRun, HandTrackWaitsForItsReadsAndMatchesThePlainRun) {
  ASSERT_TRUE(fs::exists(handtrackFile())) << "node_modules is missing: run scripts/bootstrap.sh";
  BackendScope backend("cpu");
  GraphModel m = GraphModel::load(handtrackFile());
  Feeds feeds{{m.inputs().at(0).name, seededImage()}};
  std::vector<std::string> names;
  for (const GraphTensorInfo& o : m.outputs()) names.push_back(o.name);
  std::vector<Tensor> plain = m.execute(feeds, names);
  Waited waited = runWaiting(m, feeds, names);
  std::printf("HandTrack: the run stopped at %lld reads\n", static_cast<long long>(waited.stops));
  EXPECT_GT(waited.stops, 10);
  expectSame(waited.outputs, plain, "handtrack");
}

TEST(GraphRun, ExecuteStillFailsWhereReadsMustWait) {
  BackendScope backend("cpu");
  GraphModel m = GraphModel::load(handtrackFile());
  Feeds feeds{{m.inputs().at(0).name, seededImage()}};
  AsyncReadsOnly scope;
  try {
    m.execute(feeds, {m.outputs().at(0).name});
    ADD_FAILURE() << "execute read synchronously";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("handtrack.json: node '"), std::string::npos) << msg;
    EXPECT_NE(msg.find("only asynchronous reads"), std::string::npos) << msg;
  }
}

TEST(GraphRun, ResumingWithoutTheReadIsAnError) {
  BackendScope backend("cpu");
  GraphModel m = GraphModel::load(handtrackFile());
  Feeds feeds{{m.inputs().at(0).name, seededImage()}};
  AsyncReadsOnly scope;
  GraphRun run = m.start(feeds, {m.outputs().at(0).name});
  ASSERT_FALSE(run.resume());
  try {
    run.resume();
    ADD_FAILURE() << "resumed past a read that never landed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("still not on the host"), std::string::npos) << e.what();
  }
  EXPECT_THROW(run.resume(), Error);  // the run is over
  EXPECT_THROW(run.outputs(), Error);
}

TEST(GraphRun, DisposingTheModelEndsAWaitingRun) {
  BackendScope backend("cpu");
  GraphModel m = GraphModel::load(handtrackFile());
  Feeds feeds{{m.inputs().at(0).name, seededImage()}};
  AsyncReadsOnly scope;
  GraphRun run = m.start(feeds, {m.outputs().at(0).name});
  ASSERT_FALSE(run.resume());
  m.dispose();
  try {
    run.resume();
    ADD_FAILURE() << "a run of a disposed model went on";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("disposed while a run waited"), std::string::npos)
        << e.what();
  }
}
#endif  // !__EMSCRIPTEN__

// ---- The hand-written control flow models (make test-interop) ---------------

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
  if (dtype == "int32") return tensorInt(std::vector<int32_t>(data.begin(), data.end()), shape);
  if (dtype == "bool") {
    std::vector<uint8_t> v;
    for (double x : data) v.push_back(x != 0);
    return tensorBool(v, shape);
  }
  return tensor(std::vector<float>(data.begin(), data.end()), shape);
}

// While loops, conds, TensorLists and TensorArrays (v1 and v2 control flow),
// NMS, and the ops that read indices, ids or transforms on the host (sparse,
// ragged, sets, counts, image transforms): each execute case of
// tests/interop/graph_models*.mjs through a run that waits, against the plain
// run and TF.js's values.
TEST(GraphInterop, RunsThatWaitForReadsMatchThePlainRunAndTfjs) {
  const char* dirEnv = std::getenv("GLINT_INTEROP_DIR");
  ASSERT_TRUE(dirEnv) << "run through `make test-interop`, which sets GLINT_INTEROP_DIR";
  BackendScope backend("cpu");
  int64_t stops = 0;
  for (const char* name : {"detect", "while_v1", "nested_v1", "cond_v1", "list_loop_v1", "lists",
                           "functional_v2", "tensor_array", "sparse_scatter", "sparse_sets",
                           "sparse_counts", "sparse_tensors", "ragged", "image_more"}) {
    int64_t modelStops = 0;
    fs::path dir = fs::path(dirEnv) / "graph" / name;
    ASSERT_TRUE(fs::exists(dir / "model.json")) << "missing " << dir;
    Json file = readJson(dir / "cases.json");
    Feeds feeds;
    for (const Json& in : file["inputs"])
      feeds.emplace_back(in["name"].get<std::string>(), fromJson(in));
    for (const Json& c : file["cases"]) {
      if (c["kind"] != "execute") continue;
      std::vector<std::string> names = c["outputs"].get<std::vector<std::string>>();
      std::string what = std::string(name) + " " + names.at(0);
      // Loaded afresh for each run, as the interop script records them
      // (TensorArrays are resources a run changes).
      std::vector<Tensor> plain = GraphModel::load(dir.string()).execute(feeds, names);
      Waited waited = runWaiting(GraphModel::load(dir.string()), feeds, names);
      modelStops += waited.stops;
      expectSame(waited.outputs, plain, what);
      const Json& want = c["expected"].at(0);
      ASSERT_EQ(waited.outputs.at(0).shape(), want["shape"].get<Shape>()) << what;
      std::vector<float> g = waited.outputs[0].toFloats();
      std::vector<double> w = want["data"].get<std::vector<double>>();
      for (size_t i = 0; i < g.size(); ++i)
        ASSERT_LE(std::fabs(g[i] - w[i]), 1e-4 * std::max(1.0, std::fabs(w[i])))
            << what << " [" << i << "]";
    }
    std::printf("%s: the runs stopped at %lld reads\n", name, static_cast<long long>(modelStops));
    stops += modelStops;
  }
  std::printf("interop models that read back: the runs stopped at %lld reads\n",
              static_cast<long long>(stops));
  EXPECT_GT(stops, 20);
}

}  // namespace
}  // namespace glint::testing
