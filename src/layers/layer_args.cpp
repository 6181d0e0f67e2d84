#include "src/layers/layer_args.h"

#include <cctype>
#include <cmath>
#include <cstdint>

#include "glint/activations.h"
#include "glint/error.h"
#include "glint/initializers.h"
#include "glint/layers.h"
#include "glint/regularizers.h"

namespace glint {

namespace {

/// Keras 3 (and Keras 2's mixed precision) write a layer's dtype as a policy
/// object, {"class_name": "DTypePolicy", "config": {"name": "mixed_float16"}}.
/// Glint computes in float32: the mixed policies keep float32 variables and
/// only lower the compute precision, so they load as float32. Any other
/// policy keeps its name, which the Layer then refuses by name.
Json dtypeFromPolicy(const Json& dtype) {
  if (!dtype.is_object()) return dtype;
  const Json* cls = dtype.contains("class_name") ? &dtype["class_name"] : nullptr;
  const Json* config = dtype.contains("config") ? &dtype["config"] : nullptr;
  if (!cls || !cls->is_string() || !config || !config->is_object() || !config->contains("name") ||
      !(*config)["name"].is_string())
    fail("layer",
         "argument 'dtype' must be a dtype name or a DTypePolicy {\"class_name\", "
         "\"config\": {\"name\"}}, got ",
         dtype.dump());
  std::string name = (*config)["name"].get<std::string>();
  std::string c = cls->get<std::string>();
  if (c != "DTypePolicy" && c != "FloatDTypePolicy" && c != "Policy")
    fail("layer", "argument 'dtype' is a ", c, " ('", name,
         "'): only DTypePolicy, FloatDTypePolicy and Policy are supported (quantized policies are "
         "not)");
  if (name == "mixed_float16" || name == "mixed_bfloat16") return "float32";
  return name;
}

}  // namespace

Json normalizeArgKeys(const Json& args) {
  if (args.is_null()) return Json::object();
  check(args.is_object(), "layer", "arguments must be a JSON object, got ", args.dump());
  Json out = Json::object();
  for (auto it = args.begin(); it != args.end(); ++it) {
    std::string snake;
    for (char c : it.key()) {
      if (std::isupper(static_cast<unsigned char>(c))) {
        snake += '_';
        snake += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      } else {
        snake += c;
      }
    }
    out[snake] = snake == "dtype" ? dtypeFromPolicy(it.value()) : it.value();
  }
  // Keras 3 names an InputLayer's shape batch_shape (TF.js: batchShape in input()).
  if (out.contains("batch_shape") && !out.contains("batch_input_shape")) {
    out["batch_input_shape"] = out["batch_shape"];
    out.erase("batch_shape");
  }
  return out;
}

void ArgReader::fail(const std::string& key, const std::string& message) const {
  glint::fail(what_, "argument '", key, "' ", message);
}

LayerPtr nestedLayer(const Json& spec, const std::string& what, const std::string& key) {
  check(spec.is_object() && spec.contains("config") &&
            (spec.contains("class_name") || spec.contains("className")),
        what, "argument '", key, "' must be {\"class_name\": ..., \"config\": {...}}, got ",
        spec.dump());
  const Json& cls = spec.contains("class_name") ? spec["class_name"] : spec["className"];
  check(cls.is_string(), what, "argument '", key, "': class_name must be a string, got ",
        cls.dump());
  return layers::fromConfig(cls.get<std::string>(), spec["config"]);
}

Json nestedConfig(const Layer& layer) {
  return Json{{"class_name", layer.className()}, {"config", layer.getConfig()}};
}

bool ArgReader::has(const std::string& key) const {
  return args_.contains(key) && !args_.at(key).is_null();
}

const Json& ArgReader::at(const std::string& key) const {
  if (!has(key)) fail(key, "is required");
  return args_.at(key);
}

// A double is an integer argument only when it is whole and within int64's
// range: casting one outside it (1e47, found by fuzz_model_json) is undefined.
static bool isWholeInt64(double d) {
  return std::isfinite(d) && d == std::trunc(d) && d >= -9.2e18 && d <= 9.2e18;
}

// An integer JSON number that fits int64: an unsigned one above INT64_MAX
// (9223372036854775808) would wrap to a negative dimension in get<int64_t>.
static bool isInt64(const Json& v) {
  return v.is_number_integer() && !(v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX);
}

int64_t ArgReader::integer(const std::string& key) const {
  const Json& v = at(key);
  if (v.is_number_integer() && !(v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX))
    return v.get<int64_t>();
  if (v.is_number_float() && isWholeInt64(v.get<double>()))
    return static_cast<int64_t>(v.get<double>());
  fail(key, "must be an integer, got " + v.dump());
}

int64_t ArgReader::integer(const std::string& key, int64_t fallback) const {
  return has(key) ? integer(key) : fallback;
}

double ArgReader::number(const std::string& key, double fallback) const {
  if (!has(key)) return fallback;
  const Json& v = args_.at(key);
  if (!v.is_number()) fail(key, "must be a number, got " + v.dump());
  return v.get<double>();
}

bool ArgReader::boolean(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const Json& v = args_.at(key);
  if (!v.is_boolean()) fail(key, "must be true or false, got " + v.dump());
  return v.get<bool>();
}

std::string ArgReader::string(const std::string& key, const std::string& fallback) const {
  if (!has(key)) return fallback;
  const Json& v = args_.at(key);
  if (!v.is_string()) fail(key, "must be a string, got " + v.dump());
  return v.get<std::string>();
}

std::vector<int64_t> ArgReader::ints(const std::string& key) const {
  const Json& v = at(key);
  std::vector<int64_t> out;
  if (!v.is_array()) fail(key, "must be a list of integers, got " + v.dump());
  for (const Json& e : v) {
    if (e.is_null()) {
      out.push_back(-1);  // Keras writes unknown dimensions as null
    } else if (isInt64(e)) {
      out.push_back(e.get<int64_t>());
    } else {
      fail(key, "must be a list of integers, got " + v.dump());
    }
  }
  return out;
}

std::vector<int64_t> ArgReader::ints(const std::string& key,
                                     const std::vector<int64_t>& fallback) const {
  return has(key) ? ints(key) : fallback;
}

std::vector<int64_t> ArgReader::pair(const std::string& key,
                                     const std::vector<int64_t>& fallback) const {
  if (!has(key)) return fallback;
  const Json& v = args_.at(key);
  std::vector<int64_t> out;
  if (isInt64(v)) {
    out = {v.get<int64_t>(), v.get<int64_t>()};
  } else if (v.is_number()) {
    fail(key, "must be an integer or a list of two, got " + v.dump());
  } else {
    out = ints(key);
  }
  if (out.size() != 2) fail(key, "must be an integer or a list of two, got " + v.dump());
  return out;
}

std::vector<int64_t> ArgReader::tuple(const std::string& key, size_t n,
                                      const std::vector<int64_t>& fallback) const {
  if (!has(key)) return fallback;
  const Json& v = args_.at(key);
  const std::string expected =
      "must be an integer or a list of " + std::to_string(n) + " integers, got ";
  if (isInt64(v)) return std::vector<int64_t>(n, v.get<int64_t>());
  if (!v.is_array() || v.size() != n) fail(key, expected + v.dump());
  for (const Json& e : v)
    if (!isInt64(e)) fail(key, expected + v.dump());
  return v.get<std::vector<int64_t>>();
}

std::shared_ptr<Initializer> ArgReader::initializer(const std::string& key,
                                                    const std::string& fallback) const {
  try {
    if (!has(key)) return initializers::get(fallback);
    const Json& v = args_.at(key);
    if (v.is_string()) return initializers::get(v.get<std::string>());
    return initializers::fromConfig(v);
  } catch (const Error& e) {
    fail(key, std::string("is not a valid initializer: ") + e.what());
  }
}

std::shared_ptr<Regularizer> ArgReader::regularizer(const std::string& key) const {
  if (!has(key)) return nullptr;
  try {
    const Json& v = args_.at(key);
    if (v.is_string()) return regularizers::get(v.get<std::string>());
    return regularizers::fromConfig(v);
  } catch (const Error& e) {
    fail(key, std::string("is not a valid regularizer: ") + e.what());
  }
}

std::shared_ptr<Constraint> ArgReader::constraint(const std::string& key) const {
  if (!has(key)) return nullptr;
  try {
    const Json& v = args_.at(key);
    if (v.is_string()) return constraints::get(v.get<std::string>());
    return constraints::fromConfig(v);
  } catch (const Error& e) {
    fail(key, std::string("is not a valid constraint: ") + e.what());
  }
}

std::string ArgReader::activation(const std::string& key, const std::string& fallback) const {
  std::string name = string(key, fallback);
  if (!activations::exists(name)) {
    std::string known;
    for (const auto& n : activations::names()) known += (known.empty() ? "" : ", ") + n;
    fail(key, "names an unknown activation '" + name + "'; known: " + known);
  }
  return name;
}

namespace {

/// Keys Keras 3 writes into layer configs for features Glint does not have.
/// At these values they change nothing, so a file carrying them loads; any
/// other value is refused by name rather than silently dropped.
struct NeutralKey {
  const char* key;
  const char* neutral;  // for the error message
  bool (*isNeutral)(const Json&);
};
bool isNull(const Json& v) { return v.is_null(); }
bool isFalse(const Json& v) { return v.is_null() || (v.is_boolean() && !v.get<bool>()); }
bool isOne(const Json& v) { return v.is_number_integer() && v.get<int64_t>() == 1; }
bool anyValue(const Json&) { return true; }
const NeutralKey kNeutralKeys[] = {
    {"lora_rank", "null", isNull},  // low-rank adaptation of Dense / Embedding / EinsumDense
    {"lora_alpha", "null", isNull},
    {"quantization_config", "null", isNull},  // int8 / float8 quantized layers
    {"groups", "1", isOne},                   // grouped convolution
    {"optional", "false", isFalse},           // an InputLayer that may be None
    {"zero_output_for_mask", "false", isFalse},
    {"autocast", "true or false", anyValue},  // dtype-policy casting of inputs (one dtype here)
    {"use_cudnn", "any", anyValue},           // an implementation choice, same results
    {"synchronized", "any", anyValue},        // cross-device BatchNormalization (one device here)
    {"seed", "any", anyValue},                // the RNG seed of a recurrent layer's dropout
};

}  // namespace

void ArgReader::allowOnly(std::initializer_list<const char*> keys) const {
  static const char* common[] = {"name",       "trainable", "input_shape", "batch_input_shape",
                                 "batch_size", "dtype",     "input_dim",   "input_length"};
  for (auto it = args_.begin(); it != args_.end(); ++it) {
    bool known = false;
    for (const char* k : common) known = known || it.key() == k;
    for (const char* k : keys) known = known || it.key() == k;
    for (const NeutralKey& n : kNeutralKeys) {
      if (known || it.key() != n.key) continue;
      if (!n.isNeutral(it.value()))
        fail(it.key(), "is " + it.value().dump() + ": Glint supports this Keras setting only at " +
                           n.neutral);
      known = true;
    }
    if (!known) {
      std::string list;
      for (const char* k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
      fail(it.key(), "is not an argument of this layer; it takes " + list +
                         " and name, trainable, inputShape, batchInputShape, dtype");
    }
  }
}

}  // namespace glint
