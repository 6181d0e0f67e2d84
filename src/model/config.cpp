// The Keras topology of models, as TF.js 4.22 writes it in model.json
// ("modelTopology"), and rebuilding models from it.
#include <deque>
#include <functional>
#include <map>
#include <unordered_set>

#include "glint/error.h"
#include "glint/json.h"
#include "glint/model.h"
#include "src/model/model_internal.h"

namespace glint {

namespace model_internal {

int nodeIndexInModel(const Node& node, const std::unordered_set<const Node*>& modelNodes) {
  if (node.inputs.empty()) return 0;  // a graph input: its layer's only node
  int index = 0;
  for (const auto& n : node.layer->inboundNodes()) {
    if (n.get() == &node) return index;
    if (modelNodes.count(n.get())) ++index;
  }
  return 0;
}

}  // namespace model_internal

Json Model::getConfig() const {
  std::unordered_set<const Node*> inModel;
  for (const auto& n : nodes_) inModel.insert(n.get());
  auto ref = [&](const SymbolicTensor& x) {
    return Json::array(
        {x.node->layer->name(), model_internal::nodeIndexInModel(*x.node, inModel), x.tensorIndex});
  };
  Json layers = Json::array();
  for (const auto& layer : layers_) {
    Json inbound = Json::array();
    for (const auto& node : layer->inboundNodes()) {
      if (!inModel.count(node.get())) continue;
      Json nodeData = Json::array();
      for (const auto& x : node->inputs) {
        Json entry = ref(*x);
        entry.push_back(node->kwargs.is_object() ? node->kwargs.json() : Json::object());
        nodeData.push_back(entry);
      }
      inbound.push_back(nodeData);
    }
    Json entry = Json::object();
    entry["name"] = layer->name();
    entry["class_name"] = layer->className();
    entry["config"] = layer->getConfig();
    entry["inbound_nodes"] = inbound;
    layers.push_back(entry);
  }
  Json config = Json::object();
  config["name"] = name();
  config["layers"] = layers;
  config["input_layers"] = Json::array();
  for (const auto& x : inputs_) config["input_layers"].push_back(ref(*x));
  config["output_layers"] = Json::array();
  for (const auto& y : outputs_) config["output_layers"].push_back(ref(*y));
  return config;
}

Json Sequential::getConfig() const {
  Json layers = Json::array();
  for (const auto& layer : stack_) {
    Json entry = Json::object();
    entry["class_name"] = layer->className();
    entry["config"] = layer->getConfig();
    layers.push_back(entry);
  }
  Json config = Json::object();
  config["name"] = name();
  config["layers"] = layers;
  return config;
}

namespace {

const char* kOp = "modelFromConfig";

/// A key in Keras's snake_case or TF.js's in-memory camelCase spelling.
const Json* find(const Json& object, const char* snake, const char* camel) {
  if (!object.is_object()) return nullptr;
  if (auto it = object.find(snake); it != object.end()) return &*it;
  if (auto it = object.find(camel); it != object.end()) return &*it;
  return nullptr;
}

std::string brief(const Json& j) {
  std::string s = j.dump();
  return s.size() > 120 ? s.substr(0, 117) + "..." : s;
}

std::pair<std::string, Json> classAndConfig(const Json& entry, const std::string& where) {
  const Json* cls = find(entry, "class_name", "className");
  const Json* cfg = find(entry, "config", "config");
  check(cls && cls->is_string() && cfg, kOp, where, " needs \"class_name\" and \"config\", got ",
        brief(entry));
  return {cls->get<std::string>(), *cfg};
}

ModelPtr sequentialFromConfig(const Json& config) {
  const Json* layers = config.is_array() ? &config : find(config, "layers", "layers");
  check(layers && layers->is_array(), kOp, "a Sequential config needs a \"layers\" array, got ",
        brief(config));
  Json args = Json::object();
  if (const Json* name = find(config, "name", "name"); name && name->is_string())
    args["name"] = *name;
  auto model = sequential(args);
  std::vector<LayerPtr> built;
  built.reserve(layers->size());
  for (size_t i = 0; i < layers->size(); ++i) {
    auto [cls, cfg] = classAndConfig((*layers)[i], "layer " + std::to_string(i));
    built.push_back(layers::fromConfig(cls, cfg));
  }
  model->add(built);  // one graph build, not one per layer
  return model;
}

/// [layerName, nodeIndex, tensorIndex, kwargs?]
struct TensorRef {
  std::string layer;
  size_t node = 0, tensor = 0;
  Json kwargs = Json::object();
};

TensorRef parseRef(const Json& j, const std::string& where) {
  check(j.is_array() && j.size() >= 3 && j[0].is_string() && j[1].is_number_integer() &&
            j[2].is_number_integer() && j[1].get<int64_t>() >= 0 && j[2].get<int64_t>() >= 0,
        kOp, where, ": expected [layerName, nodeIndex, tensorIndex, kwargs], got ", brief(j));
  TensorRef r{j[0].get<std::string>(), j[1].get<size_t>(), j[2].get<size_t>()};
  if (j.size() > 3 && j[3].is_object()) r.kwargs = j[3];
  return r;
}

bool isKerasTensor(const Json& j) {
  return j.is_object() && j.contains("class_name") && j["class_name"] == "__keras_tensor__";
}

bool holdsKerasTensor(const Json& j) {
  if (isKerasTensor(j)) return true;
  if (j.is_array() || j.is_object())
    for (const Json& e : j)
      if (holdsKerasTensor(e)) return true;
  return false;
}

/// Keras 3 writes a layer call as {"args": [...], "kwargs": {...}} whose
/// tensors are {"class_name": "__keras_tensor__", "config": {"keras_history":
/// [layer, node, tensor]}}, nested in lists for multi-input layers. Returns
/// the Keras 2 form, [[layer, node, tensor, kwargs], ...].
Json keras2NodeData(const Json& call, const std::string& layer) {
  const std::string where = "an inbound node of layer '" + layer + "'";
  const Json* args = find(call, "args", "args");
  check(args && args->is_array(), kOp, where,
        " must be a list of tensor references or {\"args\", "
        "\"kwargs\"}, got ",
        brief(call));
  Json kwargs = Json::object();
  if (const Json* kw = find(call, "kwargs", "kwargs"); kw && !kw->is_null()) {
    check(kw->is_object(), kOp, where, ": \"kwargs\" must be an object, got ", brief(*kw));
    for (auto it = kw->begin(); it != kw->end(); ++it) {
      check(!holdsKerasTensor(it.value()), kOp, where, " passes a tensor as '", it.key(),
            "': Glint layers take tensors only as their inputs");
      if (!it.value().is_null()) kwargs[it.key()] = it.value();
    }
  }
  Json refs = Json::array();
  std::function<void(const Json&)> walk = [&](const Json& a) {
    if (isKerasTensor(a)) {
      const Json& cfg = a.contains("config") ? a["config"] : Json();
      const Json* history = find(cfg, "keras_history", "kerasHistory");
      check(history && history->is_array() && history->size() == 3, kOp, where,
            ": a tensor needs \"keras_history\": [layer, node, tensor], got ", brief(a));
      Json ref = *history;
      ref.push_back(kwargs);
      refs.push_back(ref);
    } else if (a.is_array()) {
      for (const Json& e : a) walk(e);
    } else {
      fail(kOp, where, " passes ", brief(a),
           " where a tensor was expected: Glint layers take "
           "tensors only as their positional arguments");
    }
  };
  walk(*args);
  check(!refs.empty(), kOp, where, " passes no tensor");
  return refs;
}

ModelPtr functionalFromConfig(const Json& config) {
  const Json* layers = find(config, "layers", "layers");
  check(layers && layers->is_array(), kOp, "a Model config needs a \"layers\" array, got ",
        brief(config));
  std::map<std::string, LayerPtr> created;
  // Per layer: the outputs of each of its calls so far, by node index.
  std::map<std::string, std::vector<std::vector<SymbolicTensorPtr>>> calls;
  std::vector<std::string> order;
  std::map<std::string, std::deque<Json>> pending;

  for (size_t i = 0; i < layers->size(); ++i) {
    const Json& data = (*layers)[i];
    auto [cls, cfg] = classAndConfig(data, "layer " + std::to_string(i));
    const Json* nameJ = find(data, "name", "name");
    std::string name = nameJ && nameJ->is_string()               ? nameJ->get<std::string>()
                       : cfg.is_object() && cfg.contains("name") ? cfg["name"].get<std::string>()
                                                                 : "";
    check(!name.empty(), kOp, "layer ", i, " (", cls, ") has no name");
    check(!created.count(name), kOp, "two layers are named '", name, "'");
    if (cls == "InputLayer") {
      SymbolicTensorPtr t = input(cfg);
      created[name] = t->node->layer;
      calls[name].push_back({t});
    } else {
      created[name] = layers::fromConfig(cls, cfg);
      const Json* inbound = find(data, "inbound_nodes", "inboundNodes");
      if (inbound) {
        check(inbound->is_array(), kOp, "inbound_nodes of layer '", name, "' must be an array");
        for (const Json& nodeData : *inbound) {
          if (nodeData.is_object()) {
            pending[name].push_back(keras2NodeData(nodeData, name));
            continue;
          }
          check(nodeData.is_array(), kOp, "an inbound node of layer '", name,
                "' must be an array of [layerName, nodeIndex, tensorIndex, kwargs], got ",
                brief(nodeData));
          pending[name].push_back(nodeData);
        }
      }
    }
    order.push_back(name);
  }

  auto lookup = [&](const TensorRef& r, const std::string& user) -> SymbolicTensorPtr {
    check(created.count(r.layer), kOp, user, " refers to unknown layer '", r.layer, "'");
    const auto& nodes = calls[r.layer];
    if (r.node >= nodes.size()) return nullptr;  // not called that often yet
    check(r.tensor < nodes[r.node].size(), kOp, user, " asks for output ", r.tensor, " of layer '",
          r.layer, "', which has ", nodes[r.node].size());
    return nodes[r.node][r.tensor];
  };

  // Layers may be listed in any order and shared at different depths. A
  // layer's next call waits on the layer call it lacks, and is retried only
  // when that layer is called: linear in the calls, where rounds over every
  // layer were quadratic for a file listed outputs-first.
  size_t remaining = 0;
  for (const auto& [n, q] : pending) remaining += q.size();
  std::map<std::string, std::vector<std::string>> waiters;  // layer -> layers waiting on it
  std::deque<std::string> work(order.begin(), order.end());
  while (!work.empty()) {
    const std::string name = std::move(work.front());
    work.pop_front();
    auto& queue = pending[name];
    while (!queue.empty()) {  // a layer's calls in order, so node indices match
      std::vector<SymbolicTensorPtr> xs;
      Json kwargs = Json::object();
      const std::string* missing = nullptr;
      for (const Json& j : queue.front()) {
        TensorRef r = parseRef(j, "an inbound node of layer '" + name + "'");
        kwargs = r.kwargs;
        SymbolicTensorPtr t = lookup(r, "an inbound node of layer '" + name + "'");
        if (!t) {
          missing = &created.find(r.layer)->first;
          break;
        }
        xs.push_back(t);
      }
      if (missing) {
        waiters[*missing].push_back(name);
        break;
      }
      calls[name].push_back(created[name]->apply(xs, kwargs));
      queue.pop_front();
      --remaining;
      if (auto w = waiters.find(name); w != waiters.end()) {
        for (std::string& waiting : w->second) work.push_back(std::move(waiting));
        waiters.erase(w);
      }
    }
  }
  if (remaining > 0) {
    for (const std::string& name : order)
      if (!pending[name].empty())
        fail(kOp, "cannot connect layer '", name, "': inbound node ", brief(pending[name].front()),
             " needs a layer call that never happens");
  }

  auto endpoints = [&](const char* snake, const char* camel) {
    const Json* list = find(config, snake, camel);
    check(list && (list->is_array() || list->is_object()), kOp, "a Model config needs \"", snake,
          "\", got ", brief(config));
    // Keras 3 writes dict-structured endpoints as {key: ref}; it flattens a
    // dict in sorted key order, and so does this.
    Json entries = list->is_object() ? Json::array() : *list;
    if (list->is_object()) {
      std::map<std::string, Json> sorted;
      for (const auto& item : list->items()) sorted[item.key()] = item.value();
      for (const auto& [key, ref] : sorted) entries.push_back(ref);
    }
    if (!entries.empty() && entries[0].is_string())
      entries = Json::array({entries});  // one, unwrapped
    std::vector<SymbolicTensorPtr> out;
    for (const Json& j : entries) {
      TensorRef r = parseRef(j, snake);
      SymbolicTensorPtr t = lookup(r, snake);
      check(t != nullptr, kOp, snake, " refers to call ", r.node, " of layer '", r.layer,
            "', which does not exist");
      out.push_back(t);
    }
    return out;
  };
  std::vector<SymbolicTensorPtr> inputs = endpoints("input_layers", "inputLayers");
  std::vector<SymbolicTensorPtr> outputs = endpoints("output_layers", "outputLayers");
  Json args = Json::object();
  if (const Json* name = find(config, "name", "name"); name && name->is_string())
    args["name"] = *name;
  return model(inputs, outputs, args);
}

}  // namespace

ModelPtr modelFromConfig(const Config& topologyConfig) {
  const Json& topology = topologyConfig;
  check(topology.is_object(), kOp, "expected {\"class_name\": ..., \"config\": ...}, got ",
        brief(topology));
  // Keras's own model.json nests the topology under "model_config".
  const Json& t = topology.contains("model_config") ? topology["model_config"] : topology;
  auto [cls, config] = classAndConfig(t, "the model topology");
  if (cls == "Sequential") return sequentialFromConfig(config);
  if (cls == "Model" || cls == "Functional") return functionalFromConfig(config);
  fail(kOp, "unknown model class '", cls, "': expected Sequential, Model or Functional");
}

}  // namespace glint
