#include "glint/attrs.h"

#include <sstream>

#include "glint/error.h"

namespace glint {

Attrs& Attrs::put(const std::string& key, Value v) {
  for (auto& [k, value] : entries_) {
    if (k == key) {
      value = std::move(v);
      return *this;
    }
  }
  entries_.emplace_back(key, std::move(v));
  return *this;
}

const Attrs::Value* Attrs::find(const std::string& key) const {
  for (const auto& [k, value] : entries_)
    if (k == key) return &value;
  return nullptr;
}

const Attrs::Value& Attrs::get(const std::string& key) const {
  const Value* v = find(key);
  if (!v) fail("attrs", "missing attribute '", key, "' in ", toString());
  return *v;
}

template <class T>
static const T& as(const Attrs::Value& v, const std::string& key, const char* type) {
  if (const T* p = std::get_if<T>(&v)) return *p;
  fail("attrs", "attribute '", key, "' is not of type ", type);
}

bool Attrs::b(const std::string& key) const { return as<bool>(get(key), key, "bool"); }
int64_t Attrs::i(const std::string& key) const { return as<int64_t>(get(key), key, "int"); }
double Attrs::f(const std::string& key) const {
  const Value& v = get(key);
  if (const int64_t* p = std::get_if<int64_t>(&v)) return static_cast<double>(*p);
  return as<double>(v, key, "float");
}
const std::string& Attrs::s(const std::string& key) const {
  return as<std::string>(get(key), key, "string");
}
const std::vector<int64_t>& Attrs::ints(const std::string& key) const {
  return as<std::vector<int64_t>>(get(key), key, "int list");
}
const std::vector<double>& Attrs::floats(const std::string& key) const {
  return as<std::vector<double>>(get(key), key, "float list");
}

std::string Attrs::toString() const {
  std::ostringstream os;
  os << "{";
  bool first = true;
  for (const auto& [k, v] : entries_) {
    os << (first ? "" : ", ") << k << "=";
    first = false;
    std::visit(
        [&os](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, bool>) {
            os << (x ? "true" : "false");
          } else if constexpr (std::is_same_v<T, std::vector<int64_t>> ||
                               std::is_same_v<T, std::vector<double>>) {
            os << "[";
            for (size_t i = 0; i < x.size(); ++i) os << (i ? "," : "") << x[i];
            os << "]";
          } else {
            os << x;
          }
        },
        v);
  }
  os << "}";
  return os.str();
}

}  // namespace glint
