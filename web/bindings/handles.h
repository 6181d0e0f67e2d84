#pragma once
// The C ABI behind the JS API. JS holds integer handles; these tables hold
// the C++ objects. Every exported function catches glint::Error (and any
// std::exception) and reports it through glint_last_error(), so nothing ever
// unwinds into JavaScript.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "glint/glint.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "glint/model.h"
#include "glint/optim.h"

namespace glint::web {

template <class T>
class HandleTable {
 public:
  int32_t put(T value) {
    int32_t id = next_++;
    items_.emplace(id, std::move(value));
    return id;
  }
  T& get(int32_t id, const char* what) {
    auto it = items_.find(id);
    if (it == items_.end())
      fail("glint", "no live ", what, " with handle ", id,
           " (disposed, or from another module instance)");
    return it->second;
  }
  T* find(int32_t id) {
    auto it = items_.find(id);
    return it == items_.end() ? nullptr : &it->second;
  }
  bool erase(int32_t id) { return items_.erase(id) > 0; }
  size_t size() const { return items_.size(); }

 private:
  int32_t next_ = 1;
  std::unordered_map<int32_t, T> items_;
};

HandleTable<Tensor>& tensorHandles();
HandleTable<LayerPtr>& layerHandles();  // models too (a Model is a Layer)
HandleTable<SymbolicTensorPtr>& symbolicHandles();
HandleTable<std::shared_ptr<Optimizer>>& optimizerHandles();

std::vector<Tensor> tensorsFrom(const int32_t* ids, int32_t n);
/// Writes new handles for `ts` into out (at most maxOut); returns the count.
int32_t putTensors(const std::vector<Tensor>& ts, int32_t* out, int32_t maxOut);
std::shared_ptr<Model> modelFrom(int32_t id);
/// A pending read of t (glint_read_poll / glint_read_take go on with its id).
/// keepOnHost: a webgpu buffer keeps the bytes read as its host copy, so
/// synchronous reads of it succeed afterwards (GraphRun waits for that).
int32_t startRead(const Tensor& t, bool keepOnHost);
/// Artifacts from a model.json text (weightsManifest paths ignored) and all
/// weight bytes, validated as a loaded model.json is (api_model.cpp).
io::ModelArtifacts artifactsFrom(const char* modelJson, const uint8_t* weights, int32_t length);

/// Records the message for glint_last_error() (and whether the GPU context
/// was lost: the JS side skips such a step and goes on).
void setError(const std::string& message, bool deviceLost = false);
/// Runs fn; on an exception records it and returns `onError`.
template <class R, class F>
R guarded(R onError, F&& fn) {
  try {
    return fn();
  } catch (const DeviceLostError& e) {
    setError(e.what(), /*deviceLost=*/true);
  } catch (const std::exception& e) {
    setError(e.what());
  } catch (...) {
    setError("[glint] unknown C++ exception");
  }
  return onError;
}
/// A number as JSON; non-finite ones as the strings "NaN", "Infinity", "-Infinity".
std::string jsonNumber(double v);
/// Logs as a JSON object of jsonNumber values.
std::string logsJson(const Logs& logs);
/// Keeps a string alive until the next call that returns one; for JS to copy.
const char* returnString(std::string s);
/// Same for bytes: the pointer stays valid until the next returnBytes.
const uint8_t* returnBytes(std::vector<uint8_t> bytes, int32_t* length);

Json parseJson(const char* text, const char* what);

}  // namespace glint::web
