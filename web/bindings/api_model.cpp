// Layers, models, optimizers, gradients of JS functions, and model artifacts
// for the JS API (see handles.h).
#include <emscripten.h>

#include <cmath>
#include <cstdlib>

#include "glint/autograd.h"
#include "glint/io.h"
#include "web/bindings/handles.h"

namespace glint::web {
namespace {

// Calls the JS function registered as fnId with tensor handles; returns the
// handle of its result (ownership passes to C++), or -1 when it threw.
// JavaScript inside: clang-format would split its !== and ===.
// clang-format off
EM_JS(int32_t, glint_js_call, (int32_t fnId, const int32_t* args, int32_t n), {
  return Module['__glintCall'](fnId, args, n);
});
// clang-format on
// JavaScript inside: clang-format would split its !== and ===.
// clang-format off
EM_JS(char*, glint_js_take_error, (), {
  var s = Module['__glintTakeError']();
  var n = lengthBytesUTF8(s) + 1;
  var p = _malloc(n);
  stringToUTF8(s, p, n);
  return p;
});
// clang-format on

/// A C++ function of tensors that runs the JS function fnId.
Tensor callJs(const char* op, int32_t fnId, const std::vector<Tensor>& inputs) {
  std::vector<int32_t> ids;
  for (const Tensor& t : inputs) ids.push_back(tensorHandles().put(t));
  int32_t result = glint_js_call(fnId, ids.data(), static_cast<int32_t>(ids.size()));
  for (int32_t id : ids) tensorHandles().erase(id);
  if (result < 0) {
    char* msg = glint_js_take_error();
    std::string text = msg;
    std::free(msg);
    fail(op, "the function threw: ", text);
  }
  Tensor t = tensorHandles().get(result, "tensor returned by the function");
  tensorHandles().erase(result);
  return t;
}

Json shapeJson(const Shape& s) {
  Json j = Json::array();
  for (int64_t d : s) {
    if (d < 0) j.push_back(nullptr);
    else j.push_back(d);
  }
  return j;
}

Json symbolicJson(const SymbolicTensorPtr& s) {
  return {{"shape", shapeJson(s->shape)}, {"dtype", dtypeName(s->dtype)}, {"name", s->name}};
}

std::vector<SymbolicTensorPtr> symbolicsFrom(const int32_t* ids, int32_t n) {
  std::vector<SymbolicTensorPtr> out;
  for (int32_t i = 0; i < n; ++i) out.push_back(symbolicHandles().get(ids[i], "symbolic tensor"));
  return out;
}

std::vector<Variable> variablesFrom(const int32_t* ids, int32_t n, const char* op) {
  std::vector<Variable> out;
  for (int32_t i = 0; i < n; ++i) {
    const Tensor& t = tensorHandles().get(ids[i], "variable");
    check(t.impl()->isVariable, op, "varList[", i, "] is a tensor, not a variable");
    out.emplace_back(t.implPtr());
  }
  return out;
}

int32_t putVariables(const std::vector<Variable>& vars, int32_t* out, int32_t maxOut) {
  std::vector<Tensor> ts(vars.begin(), vars.end());
  return putTensors(ts, out, maxOut);
}

io::Quantize quantizeFrom(const std::string& q) {
  if (q.empty() || q == "none") return io::Quantize::none;
  if (q == "float16") return io::Quantize::float16;
  if (q == "uint8") return io::Quantize::uint8;
  fail("model.save", "quantize must be 'float16', 'uint8' or absent: got '", q, "'");
}

}  // namespace

std::string jsonNumber(double v) {
  if (std::isfinite(v)) return Json(v).dump();
  return std::isnan(v) ? "\"NaN\"" : v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
}

std::string logsJson(const Logs& logs) {
  // JSON has no NaN or infinity (a dump would write null, which JS reads as
  // an object): those go as the strings logsFrom (model.js) turns back.
  std::string j = "{";
  for (const auto& [k, v] : logs)
    j += (j.size() > 1 ? "," : "") + Json(k).dump() + ":" + jsonNumber(v);
  return j + "}";
}

/// Artifacts from a model.json object (weightsManifest paths ignored) and the
/// weight bytes, validated as a loaded model.json would be: the same size and
/// nesting limits (io::parseModelJson) and manifest checks.
io::ModelArtifacts artifactsFrom(const char* modelJson, const uint8_t* weights, int32_t length) {
  const std::string source = "model artifacts";
  Json j = io::parseModelJson(modelJson ? modelJson : "", {}, source);
  std::vector<uint8_t> data(weights, weights + length);
  auto reader = [&](const std::string&, int64_t maxBytes) {
    check(static_cast<int64_t>(data.size()) <= maxBytes, "io.load", source, ": weight data is ",
          data.size(), " bytes, more than the ", maxBytes, " bytes the weight specs describe");
    return data;
  };
  if (j.is_object() && j.contains("weightsManifest") && j["weightsManifest"].is_array()) {
    // All weights arrive as one buffer: one group, one path. A group whose
    // weights are not a list is an error here, not an empty group (which would
    // blame the weight data's size instead).
    Json weightsList = Json::array();
    Json& manifest = j["weightsManifest"];
    for (size_t g = 0; g < manifest.size(); ++g) {
      Json& group = manifest[g];
      check(group.is_object() && group.contains("weights") && group["weights"].is_array(),
            "io.load", source,
            ": the manifest's weights (weightSpecs) must be an array of weight entries, got ",
            quoteForError(group.is_object() && group.contains("weights") ? group["weights"].dump()
                                                                         : group.dump()));
      // Moved, not copied: a manifest of 10^6 entries is held once.
      for (auto& w : group["weights"]) weightsList.push_back(std::move(w));
    }
    j["weightsManifest"] = Json::array({{{"paths", {"weights.bin"}}, {"weights", weightsList}}});
  }
  return io::artifactsFromModelJson(j, reader, {}, source);
}

namespace {

Json layerInfo(int32_t id, bool withConfig) {
  const LayerPtr& l = layerHandles().get(id, "layer");
  Json weights = Json::array();
  auto trainable = l->trainableWeights();
  for (const Variable& v : l->weights()) {
    bool t = false;
    for (const Variable& tv : trainable) t = t || tv.id() == v.id();
    weights.push_back({{"name", v.name()},
                       {"shape", shapeJson(v.shape())},
                       {"dtype", dtypeName(v.dtype())},
                       {"trainable", t}});
  }
  Json j = {{"name", l->name()},   {"className", l->className()},
            {"built", l->built()}, {"trainable", l->trainable()},
            {"weights", weights},  {"isModel", std::dynamic_pointer_cast<Model>(l) != nullptr}};
  if (withConfig) j["config"] = l->getConfig();
  j["countParams"] = l->built() ? l->countParams() : 0;
  return j;
}

HandleTable<Model::PendingLogs>& pendingLogs() {
  static HandleTable<Model::PendingLogs> table;
  return table;
}

/// Puts p under a handle; its values' tensor handle goes to *valuesId.
int32_t putPending(Model::PendingLogs p, int32_t* valuesId) {
  *valuesId = tensorHandles().put(p.values);
  return pendingLogs().put(std::move(p));
}

}  // namespace
}  // namespace glint::web

using namespace glint;
using namespace glint::web;

extern "C" {

// ---- Gradients of JS functions ------------------------------------------------

/// out[0] = f(xs), out[1..n] = d f / d xs. dy 0: ones.
EMSCRIPTEN_KEEPALIVE int32_t glint_value_and_grads(int32_t fnId, const int32_t* xs, int32_t n,
                                                   int32_t dy, int32_t* out) {
  return guarded(-1, [&] {
    auto inputs = tensorsFrom(xs, n);
    Tensor dyT = dy > 0 ? tensorHandles().get(dy, "dy") : Tensor();
    ValueAndGrads r = valueAndGrads(
        [&](const std::vector<Tensor>& in) { return callJs("grads", fnId, in); }, inputs, dyT);
    std::vector<Tensor> all{r.value};
    all.insert(all.end(), r.grads.begin(), r.grads.end());
    return putTensors(all, out, n + 1);
  });
}

/// out[0] = f(), then the trainable variables f used and their gradients
/// (pairs). varIds empty: every trainable variable f reads. Returns 1 + 2k.
EMSCRIPTEN_KEEPALIVE int32_t glint_variable_grads(int32_t fnId, const int32_t* varIds, int32_t n,
                                                  int32_t* out, int32_t maxOut) {
  return guarded(-1, [&] {
    auto vars = variablesFrom(varIds, n, "variableGrads");
    VariableGrads r = variableGrads([&] { return callJs("variableGrads", fnId, {}); }, vars);
    std::vector<Tensor> all{r.value};
    for (size_t i = 0; i < r.variables.size(); ++i) {
      all.push_back(r.variables[i]);
      all.push_back(r.grads[i]);
    }
    return putTensors(all, out, maxOut);
  });
}

// ---- Optimizers ---------------------------------------------------------------

EMSCRIPTEN_KEEPALIVE int32_t glint_optimizer_create(const char* className, const char* configJson) {
  return guarded(-1, [&] {
    std::shared_ptr<Optimizer> o = optimizerFromConfig(className, parseJson(configJson, "config"));
    return optimizerHandles().put(o);
  });
}

EMSCRIPTEN_KEEPALIVE const char* glint_optimizer_info(int32_t id) {
  return guarded<const char*>(nullptr, [&] {
    auto& o = optimizerHandles().get(id, "optimizer");
    const LossScale& ls = o->lossScale;
    Json j = {{"className", o->className()},
              {"config", o->getConfig()},
              {"iterations", o->iterations()},
              {"learningRate", o->learningRate()},
              {"skippedSteps", o->skippedSteps()},
              {"lossScale",
               {{"enabled", ls.enabled},
                {"scale", ls.scale},
                {"dynamic", ls.dynamic},
                {"growthInterval", ls.growthInterval},
                {"minScale", ls.minScale}}}};
    return returnString(j.dump());
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_optimizer_set_learning_rate(int32_t id, double lr) {
  return guarded(-1, [&] {
    optimizerHandles().get(id, "optimizer")->setLearningRate(static_cast<float>(lr));
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_optimizer_set_loss_scale(int32_t id, int32_t enabled,
                                                            double scale, int32_t dynamic,
                                                            double growthInterval,
                                                            double minScale) {
  return guarded(-1, [&] {
    const char* op = "optimizer.setLossScale";
    check(std::isfinite(scale) && scale > 0, op, "scale must be a finite number > 0, got ", scale);
    check(growthInterval >= 1, op, "growthInterval must be >= 1, got ", growthInterval);
    check(std::isfinite(minScale) && minScale > 0, op, "minScale must be > 0, got ", minScale);
    LossScale& ls = optimizerHandles().get(id, "optimizer")->lossScale;
    ls = LossScale{enabled != 0, static_cast<float>(scale), dynamic != 0,
                   static_cast<int64_t>(growthInterval), static_cast<float>(minScale)};
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_optimizer_apply(int32_t id, const int32_t* varIds,
                                                   const int32_t* gradIds, int32_t n) {
  return guarded(-1, [&] {
    auto vars = variablesFrom(varIds, n, "applyGradients");
    optimizerHandles().get(id, "optimizer")->applyGradients(vars, tensorsFrom(gradIds, n));
    return 0;
  });
}

/// Returns the loss handle (0 when returnCost is false).
EMSCRIPTEN_KEEPALIVE int32_t glint_optimizer_minimize(int32_t id, int32_t fnId, int32_t returnCost,
                                                      const int32_t* varIds, int32_t n) {
  return guarded(-1, [&] {
    auto vars = variablesFrom(varIds, n, "minimize");
    Tensor loss = optimizerHandles()
                      .get(id, "optimizer")
                      ->minimize([&] { return callJs("minimize", fnId, {}); }, vars);
    return returnCost ? tensorHandles().put(loss) : 0;
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_optimizer_release(int32_t id) {
  return guarded(-1, [&] { return optimizerHandles().erase(id) ? 0 : 1; });
}

// ---- Layers -------------------------------------------------------------------

EMSCRIPTEN_KEEPALIVE int32_t glint_layer_create(const char* className, const char* argsJson) {
  return guarded(-1, [&] {
    return layerHandles().put(
        layers::fromConfig(className, parseJson(argsJson, "layer arguments")));
  });
}

/// Bidirectional / TimeDistributed around an existing layer, or RNN around a cell.
EMSCRIPTEN_KEEPALIVE int32_t glint_layer_wrap(const char* kind, int32_t innerId,
                                              const char* argsJson) {
  return guarded(-1, [&] {
    LayerPtr inner = layerHandles().get(innerId, "layer");
    Json args = parseJson(argsJson, "layer arguments");
    std::string k = kind;
    if (k == "Bidirectional") return layerHandles().put(layers::bidirectional(inner, args));
    if (k == "TimeDistributed") return layerHandles().put(layers::timeDistributed(inner, args));
    if (k == "RNN") return layerHandles().put(layers::rnn(inner, args));  // inner: the cell
    fail("layers", "no wrapper layer '", k, "'");
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_layer_release(int32_t id) {
  return guarded(-1, [&] { return layerHandles().erase(id) ? 0 : 1; });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_input(const char* argsJson) {
  return guarded(
      -1, [&] { return symbolicHandles().put(input(parseJson(argsJson, "input arguments"))); });
}

EMSCRIPTEN_KEEPALIVE const char* glint_symbolic_info(int32_t id) {
  return guarded<const char*>(nullptr, [&] {
    return returnString(symbolicJson(symbolicHandles().get(id, "symbolic tensor")).dump());
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_symbolic_release(int32_t id) {
  return guarded(-1, [&] { return symbolicHandles().erase(id) ? 0 : 1; });
}

/// The symbolic tensors of a layer's first call, as TF.js's layer.input /
/// layer.output (a model's own inputs and outputs for a model): which 0 for
/// the inputs, 1 for the outputs. They let a pretrained model be cut at an
/// inner layer: tf.model({inputs: m.inputs, outputs: m.getLayer('x').output}).
EMSCRIPTEN_KEEPALIVE int32_t glint_layer_endpoints(int32_t layerId, int32_t which, int32_t* out,
                                                   int32_t maxOut) {
  return guarded(-1, [&] {
    const LayerPtr& l = layerHandles().get(layerId, "layer");
    std::vector<SymbolicTensorPtr> ends;
    if (auto m = std::dynamic_pointer_cast<Model>(l)) {
      ends = which == 0 ? m->inputs() : m->outputs();
    } else {
      auto nodes = l->inboundNodes();
      check(!nodes.empty(), "Layer '" + l->name() + "'", which == 0 ? "input" : "output",
            ": the layer has not been called on a symbolic tensor (it is in no model yet)");
      if (which == 0) {
        ends = nodes[0]->inputs;
      } else {
        for (const auto& weak : nodes[0]->outputs) {
          SymbolicTensorPtr t = weak.lock();
          check(t != nullptr, "Layer '" + l->name() + "'", "output: its model is gone");
          ends.push_back(t);
        }
      }
    }
    check(static_cast<int32_t>(ends.size()) <= maxOut, "layer", "too many endpoints");
    for (size_t i = 0; i < ends.size(); ++i) out[i] = symbolicHandles().put(ends[i]);
    return static_cast<int32_t>(ends.size());
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_layer_apply_symbolic(int32_t layerId, const int32_t* ids,
                                                        int32_t n, const char* kwargsJson,
                                                        int32_t* out, int32_t maxOut) {
  return guarded(-1, [&] {
    auto outs = layerHandles()
                    .get(layerId, "layer")
                    ->apply(symbolicsFrom(ids, n), parseJson(kwargsJson, "kwargs"));
    check(static_cast<int32_t>(outs.size()) <= maxOut, "apply", "too many outputs");
    for (size_t i = 0; i < outs.size(); ++i) out[i] = symbolicHandles().put(outs[i]);
    return static_cast<int32_t>(outs.size());
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_layer_apply(int32_t layerId, const int32_t* ids, int32_t n,
                                               int32_t training, int32_t* out, int32_t maxOut) {
  return guarded(-1, [&] {
    auto outs = layerHandles().get(layerId, "layer")->apply(tensorsFrom(ids, n), training != 0);
    return putTensors(outs, out, maxOut);
  });
}

EMSCRIPTEN_KEEPALIVE const char* glint_layer_info(int32_t id) {
  return guarded<const char*>(nullptr, [&] { return returnString(layerInfo(id, true).dump()); });
}

/// Without the config: a custom layer's config comes from its JS getConfig,
/// which may itself read this (this.name).
EMSCRIPTEN_KEEPALIVE const char* glint_layer_info_brief(int32_t id) {
  return guarded<const char*>(nullptr, [&] { return returnString(layerInfo(id, false).dump()); });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_layer_get_weights(int32_t id, int32_t* out, int32_t maxOut) {
  return guarded(
      -1, [&] { return putTensors(layerHandles().get(id, "layer")->getWeights(), out, maxOut); });
}

/// Views of the layer's weights as they are now, without a copy: a
/// variable's next assignment swaps its buffer, so these keep today's
/// values (fit's divergence guard, as the C++ fit loop keeps them).
EMSCRIPTEN_KEEPALIVE int32_t glint_layer_weight_views(int32_t id, int32_t* out, int32_t maxOut) {
  return guarded(-1, [&] {
    std::vector<Tensor> views;
    for (const Tensor& w : layerHandles().get(id, "layer")->getWeights())
      views.push_back(reshape(w, w.shape()));
    return putTensors(views, out, maxOut);
  });
}

/// The layer's variables (trainableOnly: the trainable ones), as tensor handles.
EMSCRIPTEN_KEEPALIVE int32_t glint_layer_variables(int32_t id, int32_t trainableOnly, int32_t* out,
                                                   int32_t maxOut) {
  return guarded(-1, [&] {
    const LayerPtr& l = layerHandles().get(id, "layer");
    return putVariables(trainableOnly ? l->trainableWeights() : l->weights(), out, maxOut);
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_layer_set_weights(int32_t id, const int32_t* ids, int32_t n) {
  return guarded(-1, [&] {
    layerHandles().get(id, "layer")->setWeights(tensorsFrom(ids, n));
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_layer_set_trainable(int32_t id, int32_t trainable) {
  return guarded(-1, [&] {
    layerHandles().get(id, "layer")->setTrainable(trainable != 0);
    return 0;
  });
}

// ---- Models -------------------------------------------------------------------

EMSCRIPTEN_KEEPALIVE int32_t glint_sequential(const char* argsJson) {
  return guarded(-1,
                 [&] { return layerHandles().put(sequential(parseJson(argsJson, "arguments"))); });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_sequential_add(int32_t modelId, int32_t layerId) {
  return guarded(-1, [&] {
    auto seq = std::dynamic_pointer_cast<Sequential>(layerHandles().get(modelId, "model"));
    check(seq != nullptr, "add", "the model is not a Sequential model");
    seq->add(layerHandles().get(layerId, "layer"));
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_sequential_pop(int32_t modelId) {
  return guarded(-1, [&] {
    auto seq = std::dynamic_pointer_cast<Sequential>(layerHandles().get(modelId, "model"));
    check(seq != nullptr, "pop", "the model is not a Sequential model");
    seq->pop();
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_model(const int32_t* ins, int32_t nIn, const int32_t* outs,
                                         int32_t nOut, const char* argsJson) {
  return guarded(-1, [&] {
    return layerHandles().put(model(symbolicsFrom(ins, nIn), symbolicsFrom(outs, nOut),
                                    parseJson(argsJson, "arguments")));
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_model_layers(int32_t modelId, int32_t* out, int32_t maxOut) {
  return guarded(-1, [&] {
    const auto& ls = modelFrom(modelId)->layers();
    check(static_cast<int32_t>(ls.size()) <= maxOut, "layers", "more layers than expected");
    for (size_t i = 0; i < ls.size(); ++i) out[i] = layerHandles().put(ls[i]);
    return static_cast<int32_t>(ls.size());
  });
}

EMSCRIPTEN_KEEPALIVE const char* glint_model_io(int32_t modelId) {
  return guarded<const char*>(nullptr, [&] {
    auto m = modelFrom(modelId);
    Json ins = Json::array(), outs = Json::array();
    for (const auto& s : m->inputs()) ins.push_back(symbolicJson(s));
    for (const auto& s : m->outputs()) outs.push_back(symbolicJson(s));
    Json j = {{"inputs", ins}, {"outputs", outs}, {"compiled", m->compiled()}};
    if (m->compiled()) j["metricsNames"] = m->metricsNames();
    return returnString(j.dump());
  });
}

/// optimizerId > 0 uses that optimizer object, else optimizerName.
/// lossJson: a name or an array of names; metricsJson: an array of names.
/// A loss entry that is a number n > 0 is the JS function registered as n,
/// called as fn(yTrue, yPred) -> per-sample losses.
EMSCRIPTEN_KEEPALIVE int32_t glint_model_compile(int32_t modelId, int32_t optimizerId,
                                                 const char* optimizerName, const char* lossJson,
                                                 const char* metricsJson) {
  return guarded(-1, [&] {
    CompileOptions o;
    if (optimizerId > 0) o.optimizer = optimizerHandles().get(optimizerId, "optimizer");
    else o.optimizer = std::string(optimizerName);
    Json loss = parseJson(lossJson, "loss");
    auto lossSpec = [](const Json& l) -> LossSpec {
      if (l.is_number_integer() && l.get<int32_t>() > 0) {
        int32_t fnId = l.get<int32_t>();
        return std::function<Tensor(const Tensor&, const Tensor&)>(
            [fnId](const Tensor& yTrue, const Tensor& yPred) {
              return callJs("loss", fnId, {yTrue, yPred});
            });
      }
      check(l.is_string(), "compile", "each loss must be a name or a function, got ", l.dump());
      return l.get<std::string>();
    };
    if (loss.is_string() || loss.is_number_integer()) o.loss.push_back(lossSpec(loss));
    else if (loss.is_array()) {
      for (const auto& l : loss) o.loss.push_back(lossSpec(l));
    } else {
      fail("compile", "loss must be a name or a list of names, got ", loss.dump());
    }
    Json metrics = parseJson(metricsJson, "metrics");
    if (metrics.is_string()) o.metrics.push_back(metrics.get<std::string>());
    else if (metrics.is_array()) {
      for (const auto& m : metrics) {
        check(m.is_string(), "compile", "each metric must be a name, got ", m.dump());
        o.metrics.push_back(m.get<std::string>());
      }
    }
    modelFrom(modelId)->compile(o);
    return 0;
  });
}

/// The model's compiled optimizer as an optimizer handle (kept alive by the model).
EMSCRIPTEN_KEEPALIVE int32_t glint_model_optimizer(int32_t modelId) {
  return guarded(-1, [&] {
    auto m = modelFrom(modelId);
    Optimizer* o = m->optimizer();
    check(o != nullptr, "optimizer", "the model is not compiled");
    return optimizerHandles().put(std::shared_ptr<Optimizer>(m, o));
  });
}

// ---- steps and evaluation: start, read the values (sync or async), finish -----
// A step's logged values stay on the device until JS reads them: with
// dataSync where the backend can wait, with data() where it cannot (WebGPU in
// node). The pending logs wait here under a handle until finished or dropped.

EMSCRIPTEN_KEEPALIVE int32_t glint_model_train_on_batch_start(int32_t modelId, const int32_t* xs,
                                                              int32_t nx, const int32_t* ys,
                                                              int32_t ny, int32_t weightsId,
                                                              int32_t* valuesId) {
  return guarded(-1, [&] {
    Tensor w = weightsId > 0 ? tensorHandles().get(weightsId, "tensor") : Tensor();
    return putPending(
        modelFrom(modelId)->startTrainOnBatch(tensorsFrom(xs, nx), tensorsFrom(ys, ny), w),
        valuesId);
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_model_evaluate_start(int32_t modelId, const int32_t* xs,
                                                        int32_t nx, const int32_t* ys, int32_t ny,
                                                        int32_t batchSize, int32_t* valuesId) {
  return guarded(-1, [&] {
    return putPending(
        modelFrom(modelId)->startEvaluate(tensorsFrom(xs, nx), tensorsFrom(ys, ny), batchSize),
        valuesId);
  });
}

/// The logs JSON from the n values read; raises a failed device check. The
/// pending entry goes either way (values null: dropped unread).
EMSCRIPTEN_KEEPALIVE const char* glint_model_logs_finish(int32_t modelId, int32_t pendingId,
                                                         const float* values, int32_t n) {
  return guarded<const char*>(nullptr, [&] {
    Model::PendingLogs p = pendingLogs().get(pendingId, "pending logs");
    pendingLogs().erase(pendingId);
    if (!values) {
      if (p.values.defined()) p.values.dispose();
      return returnString("{}");
    }
    return returnString(logsJson(
        modelFrom(modelId)->finishLogs(p, std::vector<float>(values, values + std::max(0, n)))));
  });
}

// ---- the measured backend choice (web/package/src/calibrate.js) --------------
// JS times the steps itself (a WebGPU step in node is awaited), around a
// snapshot of the model's weights and optimizer state taken and put back here.

namespace {
HandleTable<Model::TrainingSnapshot>& trainingSnapshots() {
  static HandleTable<Model::TrainingSnapshot> t;
  return t;
}
}  // namespace

EMSCRIPTEN_KEEPALIVE int32_t glint_model_snapshot_training(int32_t modelId) {
  return guarded(-1,
                 [&] { return trainingSnapshots().put(modelFrom(modelId)->snapshotTraining()); });
}

/// Puts the snapshot back; frees it when `release`.
EMSCRIPTEN_KEEPALIVE int32_t glint_model_restore_training(int32_t modelId, int32_t snapshotId,
                                                          int32_t release) {
  return guarded(-1, [&] {
    Model::TrainingSnapshot snap = trainingSnapshots().get(snapshotId, "training snapshot");
    if (release) trainingSnapshots().erase(snapshotId);
    modelFrom(modelId)->restoreTraining(snap);
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_model_predict(int32_t modelId, const int32_t* xs, int32_t nx,
                                                 int32_t batchSize, int32_t* out, int32_t maxOut) {
  return guarded(-1, [&] {
    return putTensors(modelFrom(modelId)->predict(tensorsFrom(xs, nx), batchSize), out, maxOut);
  });
}

EMSCRIPTEN_KEEPALIVE const char* glint_model_summary(int32_t modelId, int32_t lineLength) {
  return guarded<const char*>(nullptr, [&] {
    return returnString(modelFrom(modelId)->summary(lineLength > 0 ? lineLength : 98));
  });
}

/// The model.json object (one weights group, path "weights.bin"); the weight
/// bytes follow through glint_last_bytes.
EMSCRIPTEN_KEEPALIVE const char* glint_model_to_artifacts(int32_t modelId,
                                                          const char* optionsJson) {
  return guarded<const char*>(nullptr, [&] {
    Json opts = parseJson(optionsJson, "save options");
    io::SaveOptions o;
    o.includeOptimizer = opts.value("includeOptimizer", false);
    o.quantize = quantizeFrom(opts.value("quantize", std::string()));
    if (opts.contains("userDefinedMetadata")) o.userDefinedMetadata = opts["userDefinedMetadata"];
    io::ModelArtifacts a = io::modelToArtifacts(*modelFrom(modelId), o);
    Json j = io::modelJsonFromArtifacts(a, {"weights.bin"});
    int32_t length = 0;
    returnBytes(std::move(a.weightData), &length);
    return returnString(j.dump());
  });
}

EMSCRIPTEN_KEEPALIVE const uint8_t* glint_last_bytes(int32_t* length);

EMSCRIPTEN_KEEPALIVE int32_t glint_model_from_artifacts(const char* modelJson,
                                                        const uint8_t* weights, int32_t length) {
  return guarded(-1, [&] {
    return layerHandles().put(io::modelFromArtifacts(artifactsFrom(modelJson, weights, length)));
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_model_load_weights(int32_t modelId, const char* modelJson,
                                                      const uint8_t* weights, int32_t length) {
  return guarded(-1, [&] {
    io::setWeightsFromArtifacts(*modelFrom(modelId), artifactsFrom(modelJson, weights, length));
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_model_stop_training(int32_t modelId, int32_t stop) {
  return guarded(-1, [&] {
    modelFrom(modelId)->stopTraining = stop != 0;
    return 0;
  });
}

}  // extern "C"

extern "C" {
/// model.dispose(): frees the weights and the optimizer's state now (later
/// use of them throws), whoever still holds handles; then drops this handle.
EMSCRIPTEN_KEEPALIVE int32_t glint_model_dispose(int32_t modelId) {
  return guarded(-1, [&] {
    auto m = modelFrom(modelId);
    if (Optimizer* o = m->optimizer()) o->dispose();
    for (const Variable& v : m->weights()) v.dispose();
    layerHandles().erase(modelId);
    return 0;
  });
}
}  // extern "C"
