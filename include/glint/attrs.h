#pragma once
// Kernel attributes: a small ordered map of named values (axis, strides,
// keepDims, ...). Its canonical string form keys program caches on GPU backends.
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace glint {

class Attrs {
 public:
  using Value =
      std::variant<bool, int64_t, double, std::string, std::vector<int64_t>, std::vector<double>>;

  Attrs& set(const std::string& key, bool v) { return put(key, Value(v)); }
  Attrs& set(const std::string& key, int v) { return put(key, Value(int64_t(v))); }
  Attrs& set(const std::string& key, int64_t v) { return put(key, Value(v)); }
  Attrs& set(const std::string& key, double v) { return put(key, Value(v)); }
  Attrs& set(const std::string& key, float v) { return put(key, Value(double(v))); }
  Attrs& set(const std::string& key, const char* v) { return put(key, Value(std::string(v))); }
  Attrs& set(const std::string& key, std::string v) { return put(key, Value(std::move(v))); }
  Attrs& set(const std::string& key, std::vector<int64_t> v) {
    return put(key, Value(std::move(v)));
  }
  Attrs& set(const std::string& key, std::vector<double> v) {
    return put(key, Value(std::move(v)));
  }

  bool has(const std::string& key) const { return find(key) != nullptr; }
  bool b(const std::string& key) const;
  int64_t i(const std::string& key) const;
  double f(const std::string& key) const;  // also accepts an integer value
  const std::string& s(const std::string& key) const;
  const std::vector<int64_t>& ints(const std::string& key) const;
  const std::vector<double>& floats(const std::string& key) const;

  /// "{axis=1, keepDims=true}", keys in insertion order.
  std::string toString() const;
  const std::vector<std::pair<std::string, Value>>& entries() const { return entries_; }

 private:
  Attrs& put(const std::string& key, Value v);
  const Value* find(const std::string& key) const;
  const Value& get(const std::string& key) const;
  std::vector<std::pair<std::string, Value>> entries_;
};

}  // namespace glint
