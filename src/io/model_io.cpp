// Models <-> artifacts: topology, weights by name, optimizer state, and the
// structure hash that keeps weights out of the wrong architecture.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "glint/error.h"
#include "glint/io.h"
#include "glint/losses.h"
#include "glint/model.h"
#include "glint/optim.h"
#include "src/io/io_util.h"
#include "src/io/load_limits.h"

namespace glint::io {

namespace {

const char* kGeneratedBy = "Glint 0.1.0";

std::string lastComponent(const std::string& name) {
  size_t slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

// Keras identifiers: "categoricalCrossentropy" <-> "categorical_crossentropy".
std::string toSnakeCase(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c >= 'A' && c <= 'Z') {
      if (!out.empty()) out += '_';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}
std::string toCamelCase(const std::string& s) {
  std::string out;
  bool upper = false;
  for (char c : s) {
    if (c == '_' && !out.empty()) {
      upper = true;
    } else {
      out += upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
      upper = false;
    }
  }
  return out;
}

std::string savedStructureHash(const ModelArtifacts& a) {
  const Json& m = a.userDefinedMetadata;
  if (m.is_object() && m.contains("glint") && m["glint"].is_object() &&
      m["glint"].contains("structureHash") && m["glint"]["structureHash"].is_string())
    return m["glint"]["structureHash"].get<std::string>();
  return "";
}

std::string namesList(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 6; ++i)
    out += (i ? ", " : "") + quoteForError(names[i]);
  if (names.size() > 6) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

Json trainingConfigOf(const Model& model) {
  const CompileOptions& c = model.compileOptions();
  Json losses = Json::array();
  for (const LossSpec& l : c.loss) {
    check(std::holds_alternative<std::string>(l), "io.save",
          "includeOptimizer: the model's loss is a C++ function, which model.json cannot hold; "
          "compile with a named loss");
    losses.push_back(toSnakeCase(std::get<std::string>(l)));
  }
  Json metrics = Json::array();
  for (const std::string& m : c.metrics) metrics.push_back(toSnakeCase(m));
  Optimizer* opt = model.optimizer();
  Json config = Json::object();
  config["loss"] = losses.size() == 1 ? losses[0] : losses;
  config["metrics"] = metrics;
  config["optimizer_config"] = {{"class_name", opt->className()}, {"config", opt->getConfig()}};
  return config;
}

void restoreTraining(Model& model, const ModelArtifacts& a, const NamedTensors& optimizerWeights,
                     const std::string& source) {
  const Json& tc = a.trainingConfig;
  check(tc.contains("optimizer_config") && tc["optimizer_config"].is_object() &&
            tc["optimizer_config"].contains("class_name") &&
            tc["optimizer_config"]["class_name"].is_string(),
        "io.load", source, ": trainingConfig lacks optimizer_config.class_name");
  const Json& oc = tc["optimizer_config"];
  CompileOptions options;
  options.optimizer = std::shared_ptr<Optimizer>(optimizerFromConfig(
      oc["class_name"].get<std::string>(), oc.contains("config") ? oc["config"] : Json::object()));
  const Json loss = tc.contains("loss") ? tc["loss"] : Json();
  if (loss.is_string()) {
    options.loss.push_back(toCamelCase(loss.get<std::string>()));
  } else if (loss.is_array()) {
    for (const Json& l : loss) {
      check(l.is_string(), "io.load", source, ": trainingConfig.loss holds a non-string ",
            jsonForError(l));
      options.loss.push_back(toCamelCase(l.get<std::string>()));
    }
  } else {
    fail("io.load", source, ": trainingConfig.loss must be a string or an array of strings, got ",
         jsonForError(loss));
  }
  if (tc.contains("metrics") && tc["metrics"].is_array())
    for (const Json& m : tc["metrics"])
      if (m.is_string()) options.metrics.push_back(toCamelCase(m.get<std::string>()));
  model.compile(options);
  if (!optimizerWeights.empty()) model.optimizer()->setWeights(optimizerWeights);
}

}  // namespace

std::string structureHash(const Model& model) {
  std::string s = model.className() == "Sequential" ? "S" : "M";
  std::map<const Layer*, size_t> index;
  const auto& layers = model.layers();
  for (size_t i = 0; i < layers.size(); ++i) index[layers[i].get()] = i;
  for (const auto& in : model.inputs()) s += "in" + shapeToString(in->shape);
  for (size_t i = 0; i < layers.size(); ++i) {
    const LayerPtr& layer = layers[i];
    s += "|" + layer->className() + "(";
    for (const Variable& w : layer->weights())
      s += lastComponent(w.name()) + shapeToString(w.shape()) + dtypeName(w.dtype()) + ";";
    s += ")<";
    for (const auto& node : layer->inboundNodes()) {
      std::string from;
      bool inModel = true;
      for (const auto& x : node->inputs) {
        auto it = x->node ? index.find(x->node->layer.get()) : index.end();
        if (it == index.end()) inModel = false;
        else from += std::to_string(it->second) + ":" + std::to_string(x->tensorIndex) + ",";
      }
      if (inModel && !from.empty()) s += "[" + from + "]";
    }
  }
  for (const auto& out : model.outputs()) s += "out" + shapeToString(out->shape);
  uint64_t h = 1469598103934665603ull;  // FNV-1a, 64 bit
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

ModelArtifacts modelToArtifacts(const Model& model, const SaveOptions& options) {
  ModelArtifacts a;
  Json& topology = a.modelTopology.json();
  topology = Json::object();
  topology["class_name"] = model.className();
  topology["config"] = model.getConfig();
  topology["keras_version"] = "tfjs-layers 4.22.0";  // the config dialect written
  topology["backend"] = "tensor_flow.js";
  a.generatedBy = kGeneratedBy;
  NamedTensors weights;
  for (const Variable& v : model.weights()) weights.emplace_back(v.name(), v);
  auto [specs, data] = encodeWeights(weights, "", options.quantize);
  if (options.includeOptimizer && model.compiled() && model.optimizer() != nullptr) {
    a.trainingConfig = trainingConfigOf(model);
    auto [optSpecs, optData] = encodeWeights(model.optimizer()->getWeights(), "optimizer");
    specs.insert(specs.end(), optSpecs.begin(), optSpecs.end());
    data.insert(data.end(), optData.begin(), optData.end());
  }
  a.weightSpecs = std::move(specs);
  a.weightData = std::move(data);
  Json meta =
      options.userDefinedMetadata.is_null() ? Json::object() : options.userDefinedMetadata.json();
  check(meta.is_object(), "io.save", "userDefinedMetadata must be a JSON object, got ",
        jsonForError(meta));
  meta["glint"] = {{"structureHash", structureHash(model)}};
  a.userDefinedMetadata = std::move(meta);
  return a;
}

namespace {

// Every weight a load sets goes through here (native and wasm alike): the
// decoded weights, refused when one holds a NaN or an infinity unless the
// caller allows them, since such a model only ever predicts NaN.
NamedTensors decodeFiniteWeights(const ModelArtifacts& a, const LoadOptions& options,
                                 const std::string& source) {
  NamedTensors all = decodeWeights(a.weightData, a.weightSpecs, source);
  if (options.allowNonFiniteWeights) return all;
  for (const auto& [name, t] : all) {
    if (t.dtype() != DType::float32) continue;
    std::vector<float> values = t.data<float>();
    // The message is built only for the value that fails: quoting the name
    // per element was 77% of an 8 MB model's load under ASan (perf).
    auto bad =
        std::find_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); });
    if (bad == values.end()) continue;
    fail("io.load", source, ": weight '", quoteForError(name), "' holds the non-finite value ",
         *bad, " at index ", bad - values.begin(), " (of ", values.size(),
         "); set LoadOptions.allowNonFiniteWeights to load it anyway");
  }
  return all;
}

// byPosition: a model built elsewhere may name its layers differently
// (dense_3 vs dense); with equal structure hashes, weights then pair up in order.
// Returns every decoded weight, one per spec (the optimizer's among them), so
// that a load restoring the optimizer does not decode the file twice.
NamedTensors assignWeights(Model& model, const ModelArtifacts& a, const LoadOptions& options,
                           const std::string& source, bool byPosition) {
  const std::string op = byPosition ? "io.loadWeights" : "io.load";
  std::string saved = savedStructureHash(a);
  std::string mine = structureHash(model);
  check(saved.empty() || saved == mine, op, source,
        ": the saved model's architecture (structure hash ", Quoted{saved},
        ") differs from this model's (", mine, "); its weights cannot be loaded into this model");

  NamedTensors all = decodeFiniteWeights(a, options, source);
  std::vector<std::pair<std::string, Tensor>> fileWeights;
  for (size_t i = 0; i < all.size(); ++i)
    if (a.weightSpecs[i].group != "optimizer") fileWeights.push_back(all[i]);

  std::vector<Variable> vars = model.weights();
  std::map<std::string, size_t> byName;
  for (size_t i = 0; i < vars.size(); ++i) byName[vars[i].name()] = i;
  std::vector<std::pair<size_t, const Tensor*>> pairs;
  std::vector<size_t> unmatchedFile;
  std::set<size_t> matched;
  for (size_t f = 0; f < fileWeights.size(); ++f) {
    const std::string& name = fileWeights[f].first;
    auto it = byName.find(name);
    std::string cellless = name;
    if (it == byName.end()) {  // Keras >= 2.2 writes "layer/cell/weight"
      size_t last = name.rfind('/');
      size_t prev =
          last == std::string::npos || last == 0 ? std::string::npos : name.rfind('/', last - 1);
      if (prev != std::string::npos) {
        cellless = name.substr(0, prev) + name.substr(last);
        it = byName.find(cellless);
      }
    }
    if (it == byName.end()) {
      // Keras 3 drops a wrapper's name ("forward_lstm/kernel" for
      // "bidirectional/forward_lstm/kernel"): a unique whole-component suffix.
      const std::string suffix = "/" + cellless;
      auto hit = byName.end();
      int hits = 0;
      for (auto v = byName.begin(); v != byName.end(); ++v)
        if (v->first.size() > suffix.size() &&
            v->first.compare(v->first.size() - suffix.size(), suffix.size(), suffix) == 0 && ++hits)
          hit = v;
      if (hits == 1) it = hit;
    }
    if (it == byName.end() || matched.count(it->second)) {
      unmatchedFile.push_back(f);
    } else {
      matched.insert(it->second);
      pairs.emplace_back(it->second, &fileWeights[f].second);
    }
  }
  std::vector<size_t> unmatchedVars;
  for (size_t i = 0; i < vars.size(); ++i)
    if (!matched.count(i)) unmatchedVars.push_back(i);
  // A model loaded from its own file whose exporter names weights its own way
  // (Keras 3's Bidirectional: "forward_lstm/lstm_cell/kernel" for TF.js's
  // "bidirectional/forward_forward_lstm/kernel"): what is left pairs up in
  // order when every pair agrees in kind and shape, as Keras's own loader
  // pairs weights by position.
  // Files Glint wrote (with a structure hash) name weights as Glint does, so
  // a mismatch there is a wrong file, not a naming convention.
  bool leftPairs = !byPosition && saved.empty() && !unmatchedFile.empty() &&
                   unmatchedFile.size() == unmatchedVars.size();
  for (size_t k = 0; leftPairs && k < unmatchedFile.size(); ++k) {
    const auto& [name, t] = fileWeights[unmatchedFile[k]];
    const Variable& v = vars[unmatchedVars[k]];
    leftPairs = lastComponent(name) == lastComponent(v.name()) && t.shape() == v.shape();
  }
  if (leftPairs) {
    for (size_t k = 0; k < unmatchedFile.size(); ++k)
      pairs.emplace_back(unmatchedVars[k], &fileWeights[unmatchedFile[k]].second);
    unmatchedFile.clear();
    unmatchedVars.clear();
  }
  std::vector<std::string> extra, missing;
  for (size_t f : unmatchedFile) extra.push_back(fileWeights[f].first);
  for (size_t i : unmatchedVars) missing.push_back(vars[i].name());
  bool sameKinds = fileWeights.size() == vars.size();
  for (size_t i = 0; sameKinds && i < vars.size(); ++i)
    sameKinds = lastComponent(fileWeights[i].first) == lastComponent(vars[i].name());
  if ((!extra.empty() || !missing.empty()) && byPosition && !saved.empty() && sameKinds) {
    pairs.clear();
    for (size_t i = 0; i < vars.size(); ++i) pairs.emplace_back(i, &fileWeights[i].second);
    extra.clear();
    missing.clear();
  }
  if (options.strict) {
    check(extra.empty(), op, source, ": ", extra.size(),
          " saved weight(s) match no weight of model '", Quoted{model.name()},
          "': ", namesList(extra));
    check(missing.empty(), op, source, ": ", missing.size(), " weight(s) of model '",
          Quoted{model.name()}, "' are not in the file: ", namesList(missing));
  }
  for (const auto& [i, t] : pairs) {
    check(t->shape() == vars[i].shape() && t->dtype() == vars[i].dtype(), op, source, ": weight '",
          Quoted{vars[i].name()}, "' is ", dtypeName(vars[i].dtype()), " ",
          shapeToString(vars[i].shape()), " in the model but ", dtypeName(t->dtype()), " ",
          shapeToString(t->shape()), " in the file");
  }
  for (const auto& [i, t] : pairs) vars[i].assign(*t);
  return all;
}

}  // namespace

void setWeightsFromArtifacts(Model& model, const ModelArtifacts& a, const LoadOptions& options,
                             const std::string& source) {
  assignWeights(model, a, options, source, true);
}

namespace {

// Layers in a topology, those of nested models included (depth is bounded by
// parseModelJson, so the recursion is too).
int64_t countLayers(const Json& j) {
  int64_t n = 0;
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "layers" && it.value().is_array())
        n += static_cast<int64_t>(it.value().size());
      n += countLayers(it.value());
    }
  } else if (j.is_array()) {
    for (const Json& x : j) n += countLayers(x);
  }
  return n;
}

// Errors from deep inside a layer or optimizer ("[Dense] argument 'units'
// ...") get the file's name in front; a config of the wrong JSON type there
// surfaces as a Json or std exception: it becomes a glint::Error too.
template <class Fn>
auto asLoadError(const std::string& source, const char* what, Fn&& fn) {
  try {
    return fn();
  } catch (const Error& e) {
    if (std::string(e.what()).find("[io.load] " + source) != std::string::npos) throw;
    fail("io.load", source, ": invalid ", what, ": ", quoteForError(e.what(), 2000));
  } catch (const std::bad_alloc&) {
    throw;  // a limit is missing somewhere: let it show, not hide it as a file defect
  } catch (const std::exception& e) {
    fail("io.load", source, ": invalid ", what, ": ", quoteForError(e.what(), 2000));
  }
}

// Builds the topology within the load's limits.
ModelPtr buildTopology(const Json& topology, const LoadOptions& options,
                       const std::string& source) {
  int64_t layers = countLayers(topology);
  check(layers <= options.maxLayers, "io.load", source, ": the topology has ", layers,
        " layers, more than LoadOptions.maxLayers (", options.maxLayers, ")");
  detail::WeightBudget budget{options.maxTensorBytes, options.maxWeightBytes, 0, source};
  detail::WeightBudgetScope scope(budget);
  return asLoadError(source, "model topology", [&] { return modelFromConfig(topology); });
}

}  // namespace

ModelPtr modelFromArtifacts(const ModelArtifacts& a, const LoadOptions& options,
                            const std::string& source) {
  check(a.format != "graph-model", "io.load", source,
        ": is a graph model (format 'graph-model'); load it with glint::GraphModel::load "
        "(tf.loadGraphModel), not as a layers model");
  Json topology = a.modelTopology;
  if (topology.contains("model_config")) topology = topology["model_config"];  // Keras wrapper
  ModelPtr model = buildTopology(topology, options, source);
  NamedTensors all;
  if (!a.weightSpecs.empty()) all = assignWeights(*model, a, options, source, false);
  if (options.loadOptimizer && !a.trainingConfig.is_null()) {
    NamedTensors optimizerWeights;
    for (size_t i = 0; i < all.size() && i < a.weightSpecs.size(); ++i)
      if (a.weightSpecs[i].group == "optimizer") optimizerWeights.push_back(all[i]);
    asLoadError(source, "trainingConfig",
                [&] { restoreTraining(*model, a, optimizerWeights, source); });
  }
  return model;
}

void save(const Model& model, const std::string& url, const SaveOptions& options) {
  saveArtifacts(modelToArtifacts(model, options), url, options);
}

ModelPtr load(const std::string& url, const LoadOptions& options) {
  ModelArtifacts a = loadArtifacts(url, options);
  return modelFromArtifacts(a, options, url);
}

void loadWeights(Model& model, const std::string& url, const LoadOptions& options) {
  ModelArtifacts a = loadArtifacts(url, options);
  setWeightsFromArtifacts(model, a, options, url);
}

}  // namespace glint::io
