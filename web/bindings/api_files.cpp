// node's file loader (file://): model.json's text goes through the same C++
// core as a native load (io::parseModelJson: size and nesting limits;
// io::artifactsFromModelJson: manifest, sizes, io::checkShardPath), so node is
// never weaker than native. Only the reading of one shard is JS's: it alone
// sees the file system (real paths, file types, sizes), and it is called
// synchronously from inside artifactsFromModelJson with a byte budget.
#include <emscripten.h>

#include <cstdlib>

#include "glint/io.h"
#include "web/bindings/handles.h"

namespace glint::web {
namespace {

// Reads `path` (already passed io::checkShardPath) through the reader JS
// registered for this call: malloc'd bytes (freed here), or null with the
// error message pending (__glintTakeError).
// JavaScript inside: clang-format would split its !== and ===.
// clang-format off
EM_JS(uint8_t*, glint_js_read_shard, (const char* path, double maxBytes, int32_t* length), {
  return Module['__glintReadShard'](UTF8ToString(path), maxBytes, length);
});
// clang-format on
// JavaScript inside: clang-format would split its !== and ===.
// clang-format off
EM_JS(char*, glint_js_take_read_error, (), {
  var s = Module['__glintTakeError']();
  var n = lengthBytesUTF8(s) + 1;
  var p = _malloc(n);
  stringToUTF8(s, p, n);
  return p;
});
// clang-format on

std::vector<uint8_t> readShardFromJs(const std::string& path, int64_t maxBytes) {
  int32_t length = 0;
  uint8_t* p = glint_js_read_shard(path.c_str(), static_cast<double>(maxBytes), &length);
  if (p == nullptr) {
    char* msg = glint_js_take_read_error();
    std::string text = msg;
    std::free(msg);
    // The JS reader's message is complete ("[io.load] <file>: ..."): passed on as it is.
    throw Error(text.empty() ? "[io.load] reading weight shard '" + quoteForError(path) + "' failed"
                             : text);
  }
  std::vector<uint8_t> bytes(p, p + length);
  std::free(p);
  return bytes;
}

io::ModelArtifacts artifactsFromFiles(const char* modelJsonText, const char* source) {
  std::string src = source ? source : "model.json";
  io::LoadOptions options;
  // The parse is dropped as soon as the artifacts are built: for a 60 MiB
  // model.json it is most of the memory a load takes.
  Json j = io::parseModelJson(modelJsonText ? modelJsonText : "", options, src);
  // The topology is moved, not copied, into the artifacts (it can be most of
  // the parse): artifactsFromModelJson sees an empty object in its place.
  Json topology;
  if (j.is_object() && j.contains("modelTopology") && j["modelTopology"].is_object()) {
    topology = std::move(j["modelTopology"]);
    j["modelTopology"] = Json::object();
  }
  io::ModelArtifacts a = io::artifactsFromModelJson(j, readShardFromJs, options, src);
  if (!topology.is_null()) a.modelTopology = std::move(topology);
  j = Json();
  return a;
}

}  // namespace
}  // namespace glint::web

using namespace glint;
using namespace glint::web;

extern "C" {

/// model.json's text and its path (`source`, for messages) -> the model.json
/// object normalized to one weights group (path "weights.bin"); the weight
/// bytes follow through glint_last_bytes. Shards are read through JS's
/// Module.__glintReadShard(path, maxBytes, lengthPtr).
EMSCRIPTEN_KEEPALIVE const char* glint_artifacts_from_files(const char* modelJsonText,
                                                            const char* source) {
  return guarded<const char*>(nullptr, [&] {
    io::ModelArtifacts a = artifactsFromFiles(modelJsonText, source);
    std::string out = io::modelJsonFromArtifacts(a, {"weights.bin"}).dump();
    int32_t length = 0;
    returnBytes(std::move(a.weightData), &length);
    return returnString(std::move(out));
  });
}

/// loadLayersModel('file://...'): the model straight from the files, without
/// the artifacts' round trip through JS (a large model.json is parsed once,
/// and its parse freed before the model is built). Returns a layer handle.
EMSCRIPTEN_KEEPALIVE int32_t glint_model_from_files(const char* modelJsonText, const char* source) {
  return guarded(-1, [&] {
    return layerHandles().put(io::modelFromArtifacts(artifactsFromFiles(modelJsonText, source), {},
                                                     source ? source : "model.json"));
  });
}

}  // extern "C"
