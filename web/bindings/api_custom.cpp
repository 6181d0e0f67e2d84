// Engine objects whose work is done by JS: tf.customGrad's gradient function
// and custom layers (class extends tf.layers.Layer). The JS side
// (web/package/src/custom_grad.js, custom_layer.js) registers an object with
// core.registerFn; C++ holds its id in a JsObject and calls its methods.
#include <emscripten.h>

#include <cctype>
#include <cstdlib>

#include "glint/autograd.h"
#include "glint/graph_model.h"
#include "src/layers/layer_args.h"
#include "src/layers/recurrent.h"
#include "web/bindings/handles.h"

namespace glint::web {
namespace {

// Runs method of the JS object objId on tensor handles (C++ keeps them) and a
// JSON argument. Returns the count of result handles written to out (their
// ownership passes to C++) and, when the method answered JSON, *jsonOut
// (malloc'd); -1 when it threw.
// JavaScript inside: clang-format would split its !== and ===.
// clang-format off
EM_JS(int32_t, glint_js_invoke,
      (int32_t objId, const char* method, const int32_t* ids, int32_t n, const char* json,
       int32_t* out, int32_t maxOut, char** jsonOut),
      { return Module['__glintInvoke'](objId, method, ids, n, json, out, maxOut, jsonOut); });
// clang-format on
// JavaScript inside: clang-format would split its !== and ===.
// clang-format off
EM_JS(void, glint_js_release, (int32_t objId), { Module['__glintRelease'](objId); });
// clang-format on
// JavaScript inside: clang-format would split its !== and ===.
// clang-format off
EM_JS(char*, glint_js_invoke_error, (), {
  var s = Module['__glintTakeError']();
  var n = lengthBytesUTF8(s) + 1;
  var p = _malloc(n);
  stringToUTF8(s, p, n);
  return p;
});
// clang-format on

/// A registered JS object; unregistered (so JS can drop what it saved) when
/// the last C++ holder goes, e.g. the tape that kept a gradient function.
class JsObject {
 public:
  explicit JsObject(int32_t id) : id_(id) {}
  ~JsObject() { glint_js_release(id_); }
  JsObject(const JsObject&) = delete;
  JsObject& operator=(const JsObject&) = delete;
  int32_t id() const { return id_; }

  struct Result {
    std::vector<Tensor> tensors;
    Json json;
  };
  Result invoke(const std::string& op, const char* method, const std::vector<Tensor>& inputs,
                const Json& arg = nullptr) const {
    std::vector<int32_t> ids;
    for (const Tensor& t : inputs) ids.push_back(tensorHandles().put(t));
    std::string argText = arg.is_null() ? "" : arg.dump();
    constexpr int32_t kMaxOut = 256;
    std::vector<int32_t> out(kMaxOut);
    char* jsonOut = nullptr;
    int32_t n =
        glint_js_invoke(id_, method, ids.data(), static_cast<int32_t>(ids.size()),
                        argText.empty() ? nullptr : argText.c_str(), out.data(), kMaxOut, &jsonOut);
    for (int32_t id : ids) tensorHandles().erase(id);
    if (n < 0) {
      char* msg = glint_js_invoke_error();
      std::string text = msg;
      std::free(msg);
      // A message that already names its op ("[customGrad] ...") stays as it is.
      if (!text.empty() && text[0] == '[') throw Error(text);
      fail(op, method, " threw: ", text);
    }
    Result r;
    for (int32_t i = 0; i < n; ++i) {
      r.tensors.push_back(tensorHandles().get(out[i], "tensor returned by JS"));
      tensorHandles().erase(out[i]);
    }
    if (jsonOut) {
      r.json = Json::parse(jsonOut, nullptr, /*allow_exceptions=*/false);
      std::free(jsonOut);
      check(!r.json.is_discarded(), op, method, " returned something that is not JSON");
    }
    return r;
  }

 private:
  int32_t id_;
};

Json shapesJson(const std::vector<Shape>& shapes) {
  Json list = Json::array();
  for (const Shape& s : shapes) {
    Json j = Json::array();
    for (int64_t d : s) j.push_back(d < 0 ? Json(nullptr) : Json(d));
    list.push_back(j);
  }
  return list;
}

/// A list of shapes from JS, null for an unknown dimension (-1).
std::vector<Shape> shapesFromJs(const char* text, const char* what) {
  Json j = parseJson(text, "input shapes");
  std::vector<Shape> shapes;
  check(j.is_array(), what, "expects a list of shapes, got ", j.dump());
  for (const Json& s : j) {
    check(s.is_array(), what, "expects a list of shapes, got ", j.dump());
    Shape shape;
    for (const Json& d : s) {
      check(d.is_null() || d.is_number_integer(), what, "dimensions are sizes or null, got ",
            j.dump());
      shape.push_back(d.is_null() ? -1 : d.get<int64_t>());
    }
    shapes.push_back(shape);
  }
  return shapes;
}

/// "CentredSplit" -> "centred_split", the default name prefix as TF.js makes it.
std::string snakeCase(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (i > 0 && !std::isupper(static_cast<unsigned char>(name[i - 1]))) out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out.empty() ? "layer" : out;
}

/// A layer whose build, call, computeOutputShape and getConfig are the
/// methods of a JS object; its weights are engine variables (addJsWeight), so
/// the tape sees the JS call's ops and fit trains them.
class JsLayer : public Layer, public StepCell {
 public:
  JsLayer(const std::string& className, const Config& baseArgs, std::shared_ptr<JsObject> js)
      : Layer(baseArgs, snakeCase(className)), className_(className), js_(std::move(js)) {}

  std::string className() const override { return className_; }
  int32_t jsId() const { return js_->id(); }

  void build(const std::vector<Shape>& inputShapes) override {
    js_->invoke(label(), "build", {}, shapesJson(inputShapes));
    built_ = true;
  }

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallArgs& args) override {
    std::vector<Tensor> out =
        js_->invoke(label(), "call", inputs, Json{{"training", args.training}}).tensors;
    if (out.empty()) error("call returned no tensor");
    return out;
  }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& inputShapes) const override {
    Json j = js_->invoke(label(), "computeOutputShape", {}, shapesJson(inputShapes)).json;
    // JS answers a list of shapes, null for an unknown dimension.
    if (!j.is_array() || j.empty())
      error("computeOutputShape must return a shape or a list of shapes, got " + j.dump());
    std::vector<Shape> shapes;
    for (const Json& s : j) {
      if (!s.is_array())
        error("computeOutputShape returned " + j.dump() + ": not a list of shapes");
      Shape shape;
      for (const Json& d : s) {
        if (d.is_null()) shape.push_back(-1);
        else if (d.is_number_integer() && d.get<int64_t>() >= 0) shape.push_back(d.get<int64_t>());
        else error("computeOutputShape returned " + j.dump() + ": dimensions are sizes or null");
      }
      shapes.push_back(shape);
    }
    return shapes;
  }

  /// The engine's part (name, trainable, dtype, batch_input_shape), then the
  /// JS getConfig's keys (snake_case, as Keras and TF.js store them).
  Json getConfig() const override {
    Json config = Layer::getConfig();
    Json own = js_->invoke(label(), "getConfig", {}).json;
    if (!own.is_object()) error("getConfig must return an object, got " + own.dump());
    Json normalized = normalizeArgKeys(own);
    for (auto it = normalized.begin(); it != normalized.end(); ++it) config[it.key()] = it.value();
    return config;
  }
  Json baseConfig() const { return Layer::getConfig(); }

  /// As an RNN cell: the JS object's stateSize (a size or a list of sizes).
  std::vector<int64_t> stateSizes() const override {
    Json j = js_->invoke(label(), "stateSize", {}).json;
    std::vector<int64_t> sizes;
    if (j.is_number_integer()) j = Json::array({j});
    if (!j.is_array())
      error("is used as an RNN cell but has no stateSize (a size or a list of sizes)");
    for (const Json& v : j) {
      if (!v.is_number_integer() || v.get<int64_t>() <= 0)
        error("stateSize must be a positive size or a list of them, got " + j.dump());
      sizes.push_back(v.get<int64_t>());
    }
    return sizes;
  }

  /// A layer this one runs in its call (a subclass of tf.layers.RNN runs an
  /// RNN layer): its weights are this layer's, named after it.
  void track(const LayerPtr& inner) {
    for (const LayerPtr& l : inner_)
      if (l == inner) return;
    if (!inner->built()) inner->setWeightNamePrefix(weightNamePrefix());
    inner->setTrainable(trainable());
    inner_.push_back(inner);
  }
  void setTrainable(bool trainable) override {
    Layer::setTrainable(trainable);
    for (const LayerPtr& l : inner_) l->setTrainable(trainable);
  }
  std::vector<Tensor> regularizationLosses() const override {
    std::vector<Tensor> out = Layer::regularizationLosses();
    for (const LayerPtr& l : inner_)
      for (const Tensor& t : l->regularizationLosses()) out.push_back(t);
    return out;
  }
  void applyConstraints() override {
    Layer::applyConstraints();
    for (const LayerPtr& l : inner_) l->applyConstraints();
  }

 protected:
  std::vector<Variable> ownWeights(bool trainableOnes) const override {
    std::vector<Variable> out = Layer::ownWeights(trainableOnes);
    for (const LayerPtr& l : inner_)
      for (const Variable& v : trainableOnes ? l->trainableWeights() : l->nonTrainableWeights())
        out.push_back(v);
    return out;
  }

 public:
  /// addWeight from JS: {name, shape, dtype, initializer, regularizer, trainable, constraint}.
  Variable addJsWeight(const Json& spec) {
    ArgReader r(spec, label() + " addWeight");
    std::string name = r.string("name", "");
    if (name.empty()) error("addWeight needs a weight name");
    for (const Variable& v : weights()) {
      if (v.name() == this->name() + "/" + name)
        error("addWeight: a weight named '" + name + "' exists already");
    }
    std::string dtype = r.string("dtype", "float32");
    if (dtype != "float32") error("addWeight '" + name + "': dtype must be float32, got " + dtype);
    return addWeight(name, r.ints("shape"), r.initializer("initializer", "glorotUniform"),
                     r.regularizer("regularizer"), r.boolean("trainable", true),
                     r.constraint("constraint"));
  }

 private:
  std::string label() const { return className_ + " '" + name() + "'"; }
  std::string className_;
  std::shared_ptr<JsObject> js_;
  std::vector<LayerPtr> inner_;
};

std::shared_ptr<JsLayer> jsLayerFrom(int32_t id) {
  auto layer = std::dynamic_pointer_cast<JsLayer>(layerHandles().get(id, "layer"));
  if (!layer) fail("glint", "handle ", id, " is not a custom layer");
  return layer;
}

}  // namespace
}  // namespace glint::web

using namespace glint;
using namespace glint::web;

extern "C" {

// ---- tf.customGrad ------------------------------------------------------------------

/// The value of the JS object objId's forward(inputs); on a tape its gradient
/// is the object's backward(dy). The object is released once neither this call
/// nor a tape can call it.
EMSCRIPTEN_KEEPALIVE int32_t glint_custom_grad(int32_t objId, const int32_t* ids, int32_t n) {
  auto js = std::make_shared<JsObject>(objId);
  return guarded(-1, [&] {
    Tensor value = customGrad(
        [&](const std::vector<Tensor>& inputs) {
          std::vector<Tensor> out = js->invoke("customGrad", "forward", inputs).tensors;
          check(out.size() == 1, "customGrad", "f must return one value, got ", out.size());
          std::vector<Shape> shapes;
          for (const Tensor& t : inputs) shapes.push_back(t.shape());
          return CustomGradResult{
              out[0], [js, shapes](const Tensor& dy) {
                std::vector<Tensor> g = js->invoke("customGrad", "backward", {dy}).tensors;
                check(g.size() == shapes.size(), "customGrad", "gradFunc returned ", g.size(),
                      " gradients for ", shapes.size(), " inputs");
                for (size_t i = 0; i < g.size(); ++i) {
                  check(g[i].shape() == shapes[i], "customGrad", "gradFunc's gradient ", i,
                        " has shape ", shapeToString(g[i].shape()), ", its input ",
                        shapeToString(shapes[i]));
                }
                return g;
              }};
        },
        tensorsFrom(ids, n));
    return tensorHandles().put(value);
  });
}

// ---- tf.registerOp ------------------------------------------------------------------

/// Graph-model op `name` run by the JS object objId's call(inputs, attrs)
/// (released when the op is replaced or deregistered).
EMSCRIPTEN_KEEPALIVE int32_t glint_register_graph_op(const char* name, int32_t objId) {
  auto js = std::make_shared<JsObject>(objId);
  return guarded(-1, [&] {
    std::string op = name;
    registerGraphOp(op, [js, op](const std::vector<Tensor>& inputs, const std::string& attrs) {
      JsObject::Result r = js->invoke(op, "call", inputs, Json::parse(attrs));
      // An async op in executeAsync: JS holds its Promise; the run stops here.
      if (r.json.is_object() && r.json.value("pending", false))
        throw OpPending("[" + op + "] waits for the Promise its op function returned");
      return r.tensors;
    });
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_deregister_graph_op(const char* name) {
  return guarded(-1, [&] {
    deregisterGraphOp(name);
    return 0;
  });
}

// ---- Custom layers --------------------------------------------------------------------

/// A layer backed by the JS object objId (released with the layer).
EMSCRIPTEN_KEEPALIVE int32_t glint_custom_layer_create(const char* className,
                                                       const char* baseArgsJson, int32_t objId) {
  auto js = std::make_shared<JsObject>(objId);
  return guarded(-1, [&] {
    std::string cls = className ? className : "";
    check(!cls.empty(), "layers.Layer",
          "a custom layer class needs a name (static get className())");
    LayerPtr layer = std::make_shared<JsLayer>(cls, parseJson(baseArgsJson, "layer arguments"), js);
    return layerHandles().put(layer);
  });
}

/// The JS object behind a layer handle, 0 for a built-in layer.
EMSCRIPTEN_KEEPALIVE int32_t glint_custom_layer_object(int32_t layerId) {
  return guarded(-1, [&] {
    auto layer = std::dynamic_pointer_cast<JsLayer>(layerHandles().get(layerId, "layer"));
    return layer ? layer->jsId() : 0;
  });
}

/// The engine's part of the config (what super.getConfig() returns in JS).
EMSCRIPTEN_KEEPALIVE const char* glint_custom_layer_base_config(int32_t layerId) {
  return guarded<const char*>(
      nullptr, [&] { return returnString(jsLayerFrom(layerId)->baseConfig().dump()); });
}

/// Returns a handle to the new variable.
EMSCRIPTEN_KEEPALIVE int32_t glint_custom_layer_add_weight(int32_t layerId, const char* specJson) {
  return guarded(-1, [&] {
    Variable v = jsLayerFrom(layerId)->addJsWeight(parseJson(specJson, "addWeight arguments"));
    return tensorHandles().put(v);
  });
}

/// The layer innerId runs inside the custom layer layerId's call (see JsLayer::track).
EMSCRIPTEN_KEEPALIVE int32_t glint_custom_layer_track(int32_t layerId, int32_t innerId) {
  return guarded(-1, [&] {
    jsLayerFrom(layerId)->track(layerHandles().get(innerId, "layer"));
    return 0;
  });
}

/// Loading meets className: the JS object objId's fromConfig(config) makes
/// the layer and answers {"layer": handle}.
EMSCRIPTEN_KEEPALIVE int32_t glint_custom_layer_register(const char* className, int32_t objId) {
  auto js = std::make_shared<JsObject>(objId);
  return guarded(-1, [&] {
    std::string cls = className ? className : "";
    check(!cls.empty(), "serialization.registerClass", "the class needs a name");
    layers::registerLayerClass(cls, [js, cls](const Config& config) -> LayerPtr {
      Json r = js->invoke(cls, "fromConfig", {}, config).json;
      check(r.is_object() && r.contains("layer") && r["layer"].is_number_integer(), cls,
            "fromConfig did not make a layer");
      int32_t id = r["layer"].get<int32_t>();
      // The handle stays: the JS instance that fromConfig made holds it.
      return layerHandles().get(id, "layer");
    });
    return 0;
  });
}

/// Output shapes for a layer, JS form: a list of shapes with null dimensions.
EMSCRIPTEN_KEEPALIVE const char* glint_layer_compute_output_shape(int32_t layerId,
                                                                  const char* shapesText) {
  return guarded<const char*>(nullptr, [&] {
    std::vector<Shape> shapes = shapesFromJs(shapesText, "computeOutputShape");
    return returnString(
        shapesJson(layerHandles().get(layerId, "layer")->computeOutputShape(shapes)).dump());
  });
}

/// Builds a layer for input shapes (JS form) unless it is built: a custom
/// layer's build makes the weights of the layers it runs (track) this way.
EMSCRIPTEN_KEEPALIVE int32_t glint_layer_ensure_built(int32_t layerId, const char* shapesText) {
  return guarded(-1, [&] {
    layerHandles().get(layerId, "layer")->ensureBuilt(shapesFromJs(shapesText, "build"));
    return 0;
  });
}

}  // extern "C"
