// Graph models (glint::GraphModel) for the JS API: loadGraphModel hands the
// artifacts in; predict and execute go by tensor handles (see handles.h).
#include <emscripten.h>

#include "glint/graph_model.h"
#include "src/core/kernel_selection.h"
#include "web/bindings/handles.h"

namespace glint::web {
namespace {

HandleTable<std::shared_ptr<GraphModel>>& graphHandles() {
  static HandleTable<std::shared_ptr<GraphModel>> table;
  return table;
}

HandleTable<std::shared_ptr<GraphRun>>& runHandles() {
  static HandleTable<std::shared_ptr<GraphRun>> table;
  return table;
}

Json infoJson(const std::vector<GraphTensorInfo>& infos) {
  Json list = Json::array();
  for (const GraphTensorInfo& i : infos) {
    Json j = {{"name", i.name}, {"dtype", dtypeName(i.dtype)}};
    j["shape"] = i.rankKnown ? Json(i.shape) : Json(nullptr);
    list.push_back(j);
  }
  return list;
}

std::vector<std::string> namesFrom(const char* json, const char* what) {
  Json j = Json::parse(json ? json : "[]");
  check(j.is_array(), "GraphModel", what, " must be an array of names");
  std::vector<std::string> names;
  for (const Json& n : j) {
    check(n.is_string(), "GraphModel", what, " must hold strings, got ", n.dump());
    names.push_back(n.get<std::string>());
  }
  return names;
}

/// guarded(onError, fn) where this build holds graph models. An app's own
/// build without them (no feature:graph-models in its GLINT_KERNELS list)
/// fails instead, and never links the graph executor: `fn` is not
/// instantiated there.
template <class R, class F>
R graphGuarded(R onError, F&& fn) {
  return guarded(onError, [&]() -> R {
    if constexpr (featureSelected("graph-models")) {
      return fn();
    } else {
      fail("loadGraphModel", "graph models are not in this build of Glint: it holds only what ",
           kKernelSelection,
           " (GLINT_KERNELS) lists, and it has no feature:graph-models line; add "
           "one (tools/kernels_for.mjs does for a graph model) and rebuild, or use the full build");
    }
  });
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE int32_t glint_graph_from_artifacts(const char* modelJson,
                                                        const uint8_t* weights, int32_t length) {
  return graphGuarded(-1, [&] {
    io::ModelArtifacts a = artifactsFrom(modelJson, weights, length);
    return graphHandles().put(
        std::make_shared<GraphModel>(GraphModel::fromArtifacts(a, {}, "model.json")));
  });
}

/// {"inputs": [{name, shape, dtype}], "outputs": [...], "metadata": ...}
EMSCRIPTEN_KEEPALIVE const char* glint_graph_info(int32_t id) {
  return graphGuarded<const char*>(nullptr, [&] {
    const GraphModel& m = *graphHandles().get(id, "graph model");
    Json j = {{"inputs", infoJson(m.inputs())}, {"outputs", infoJson(m.outputs())}};
    j["metadata"] = Json(m.metadata());
    return returnString(j.dump());
  });
}

/// Feeds tensors by name and writes handles of the named outputs; with
/// outputsJson null, predict: the feeds are the inputs in order.
EMSCRIPTEN_KEEPALIVE int32_t glint_graph_execute(int32_t id, const char* feedNamesJson,
                                                 const int32_t* feedIds, int32_t nFeeds,
                                                 const char* outputsJson, int32_t* out,
                                                 int32_t maxOut) {
  return graphGuarded(-1, [&] {
    const GraphModel& m = *graphHandles().get(id, "graph model");
    std::vector<Tensor> xs = tensorsFrom(feedIds, nFeeds);
    if (!outputsJson) return putTensors(m.predict(xs), out, maxOut);
    std::vector<std::string> names = namesFrom(feedNamesJson, "the input names");
    check(names.size() == xs.size(), "GraphModel", "execute: ", names.size(), " names for ",
          xs.size(), " tensors");
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (size_t i = 0; i < xs.size(); ++i) feeds.emplace_back(names[i], xs[i]);
    return putTensors(m.execute(feeds, namesFrom(outputsJson, "the output names")), out, maxOut);
  });
}

/// executeAsync: a run of the graph (GraphModel::start) that stops where a
/// node waits for a read; glint_graph_resume goes on.
EMSCRIPTEN_KEEPALIVE int32_t glint_graph_start(int32_t id, const char* feedNamesJson,
                                               const int32_t* feedIds, int32_t nFeeds,
                                               const char* outputsJson) {
  return graphGuarded(-1, [&] {
    const GraphModel& m = *graphHandles().get(id, "graph model");
    std::vector<Tensor> xs = tensorsFrom(feedIds, nFeeds);
    std::vector<std::string> names = namesFrom(feedNamesJson, "the input names");
    check(names.size() == xs.size(), "GraphModel", "executeAsync: ", names.size(), " names for ",
          xs.size(), " tensors");
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (size_t i = 0; i < xs.size(); ++i) feeds.emplace_back(names[i], xs[i]);
    return runHandles().put(
        std::make_shared<GraphRun>(m.start(feeds, namesFrom(outputsJson, "the output names"))));
  });
}

/// 0 when the run has finished; -2 when a registered op waits for its
/// Promise (JS awaits it and resumes); else the id of a read (glint_read_poll,
/// glint_read_take) of the tensor the run waits for: once taken, its bytes
/// stay on the host and the next resume goes on.
EMSCRIPTEN_KEEPALIVE int32_t glint_graph_resume(int32_t runId) {
  return graphGuarded(-1, [&] {
    GraphRun& run = *runHandles().get(runId, "graph run");
    if (run.resume()) return 0;
    if (run.waitsForOp()) return -2;  // a registered op's Promise: JS awaits it, then resumes
    return startRead(run.pendingRead(), true);
  });
}

/// Handles of the outputs of a finished run.
EMSCRIPTEN_KEEPALIVE int32_t glint_graph_run_outputs(int32_t runId, int32_t* out, int32_t maxOut) {
  return graphGuarded(
      -1, [&] { return putTensors(runHandles().get(runId, "graph run")->outputs(), out, maxOut); });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_graph_run_dispose(int32_t runId) {
  return graphGuarded(-1, [&] { return runHandles().erase(runId) ? 0 : 1; });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_graph_dispose(int32_t id) {
  return graphGuarded(-1, [&] {
    graphHandles().get(id, "graph model")->dispose();
    graphHandles().erase(id);
    return 0;
  });
}

}  // extern "C"
}  // namespace glint::web
