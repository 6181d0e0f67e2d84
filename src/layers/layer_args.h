#pragma once
// Reading layer arguments: TF.js camelCase or Keras snake_case keys, typed
// getters with defaults, and errors that name the layer and the key.
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "glint/json.h"
#include "glint/shape.h"

namespace glint {

class Initializer;
class Regularizer;
class Constraint;
class Layer;

/// "kernelInitializer" -> "kernel_initializer" (top-level keys only).
Json normalizeArgKeys(const Json& args);
/// Keras's serialized form of a configurable object: {"class_name", "config"}.
template <class T>
Json serializeObject(const std::shared_ptr<T>& object) {
  if (!object) return nullptr;
  return Json{{"class_name", object->className()}, {"config", object->getConfig()}};
}

/// A nested layer, {"class_name" | "className": ..., "config": {...}} (the
/// argument `key` of `what`, e.g. "Bidirectional"), built by layers::fromConfig.
std::shared_ptr<Layer> nestedLayer(const Json& spec, const std::string& what,
                                   const std::string& key = "layer");
/// Its serialized form: {"class_name", "config"}.
Json nestedConfig(const Layer& layer);

class ArgReader {
 public:
  /// `args` already normalized; `what` like "Dense 'dense_1'".
  ArgReader(const Json& args, std::string what) : args_(args), what_(std::move(what)) {}

  bool has(const std::string& key) const;
  int64_t integer(const std::string& key) const;  // required
  int64_t integer(const std::string& key, int64_t fallback) const;
  double number(const std::string& key, double fallback) const;
  bool boolean(const std::string& key, bool fallback) const;
  std::string string(const std::string& key, const std::string& fallback) const;
  std::vector<int64_t> ints(const std::string& key) const;  // required
  std::vector<int64_t> ints(const std::string& key, const std::vector<int64_t>& fallback) const;
  /// An int or a list of two ints (kernel sizes, strides): always two values.
  std::vector<int64_t> pair(const std::string& key, const std::vector<int64_t>& fallback) const;
  /// An int or a list of `n` ints (1-D and 3-D windows): always n values.
  std::vector<int64_t> tuple(const std::string& key, size_t n,
                             const std::vector<int64_t>& fallback) const;
  /// A name ("glorotUniform"), or {"class_name", "config"}; null/absent -> fallback name.
  std::shared_ptr<Initializer> initializer(const std::string& key,
                                           const std::string& fallback) const;
  std::shared_ptr<Regularizer> regularizer(const std::string& key) const;  // absent -> null
  std::shared_ptr<Constraint> constraint(const std::string& key) const;    // absent -> null
  /// A known activation name (validated), default "linear".
  std::string activation(const std::string& key, const std::string& fallback = "linear") const;
  /// Fails on keys that are neither the common layer keys nor listed here.
  void allowOnly(std::initializer_list<const char*> keys) const;

  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

 private:
  const Json& at(const std::string& key) const;
  const Json& args_;
  std::string what_;
};

}  // namespace glint
