#pragma once
// glint::Config: the JSON value layers, models and optimizers take as
// arguments, written as with nlohmann::json:
//
//   layers::dense({{"units", 8}, {"activation", "tanh"}, {"inputShape", {2}}});
//
// A braced list whose elements are all two-element lists starting with a
// string is an object, any other list an array (nlohmann's rule). It holds an
// nlohmann::ordered_json behind a pointer, so this header costs next to
// nothing to compile where nlohmann/json.hpp costs seconds. json() gives that
// value (include glint/json.h to use it) and a Json converts to a Config
// implicitly, and back. The accessors keep nlohmann's names, so code reads
// the same on either.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "glint/json_fwd.h"

namespace glint {

class Config;

namespace detail {
/// What Config's constructors take: numbers, strings, Configs, vectors of those.
template <class T>
struct IsConfigValue : std::integral_constant<bool, std::is_arithmetic<T>::value ||
                                                        std::is_same<T, std::string>::value ||
                                                        std::is_same<T, Config>::value> {};
template <class T, class A>
struct IsConfigValue<std::vector<T, A>> : IsConfigValue<T> {};
template <class T>
using IfInteger =
    std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, bool>::value, int>;
}  // namespace detail

class Config {
 public:
  /// null.
  Config() noexcept = default;
  Config(std::nullptr_t) noexcept {}
  /// Exactly bool: a pointer would otherwise become true.
  template <class T, std::enable_if_t<std::is_same<T, bool>::value, int> = 0>
  Config(T value) : Config(Kind::boolean, value ? 1u : 0u) {}
  template <class T, detail::IfInteger<T> = 0>
  Config(T value)
      : Config(std::is_signed<T>::value ? Kind::integer : Kind::unsignedInteger,
               static_cast<uint64_t>(value)) {}
  Config(double value);
  Config(const char* value);  // a null pointer gives null
  Config(std::string value);
  /// An object when every element is a [string, value] pair, else an array.
  Config(std::initializer_list<Config> init);
  /// An array.
  template <class T, class A,
            std::enable_if_t<detail::IsConfigValue<std::vector<T, A>>::value, int> = 0>
  Config(const std::vector<T, A>& values) : Config(array()) {
    for (const T& v : values) push_back(v);  // const T&: vector<bool>'s proxies become bool
  }

  Config(const Json& value);
  Config(Json&& value);
  /// The value (null when this is null).
  const Json& json() const;
  Json& json();
  operator const Json&() const { return json(); }

  Config(const Config& other);
  Config(Config&& other) noexcept : impl_(other.impl_) { other.impl_ = nullptr; }
  // Lvalues only: `config["key"] = value` would assign to a copy.
  Config& operator=(const Config& other) &;
  Config& operator=(Config&& other) & noexcept;
  ~Config();

  static Config object();
  static Config array();
  /// JSON text; throws glint::Error naming the position of a syntax error.
  static Config parse(const std::string& text);

  bool is_null() const;
  bool is_boolean() const;
  bool is_number() const;
  bool is_number_integer() const;
  bool is_string() const;
  bool is_array() const;
  bool is_object() const;
  /// Elements or members; 0 for null, 1 for a single value (as nlohmann).
  size_t size() const;
  bool empty() const;
  bool contains(const std::string& key) const;
  /// A copy of a member or element; throws glint::Error naming the key or
  /// index when it is absent or this is not an object / array.
  Config operator[](const std::string& key) const;
  Config operator[](size_t index) const;
  /// An object's keys, in order.
  std::vector<std::string> keys() const;
  /// The value as bool, an integer type (range-checked), float, double,
  /// std::string, Config, or a std::vector of those; throws glint::Error
  /// naming the expected and the actual value.
  template <class T>
  T get() const {
    T out{};
    read(out);
    return out;
  }
  /// indent < 0: one line. Invalid UTF-8 becomes U+FFFD instead of throwing.
  std::string dump(int indent = -1) const;

  /// Sets a member (null becomes an object).
  Config& set(const std::string& key, Config value) &;
  /// Appends an element (null becomes an array).
  Config& push_back(Config value) &;

  friend bool operator==(const Config& a, const Config& b) { return a.equals(b); }
  friend bool operator!=(const Config& a, const Config& b) { return !a.equals(b); }
  friend std::ostream& operator<<(std::ostream& os, const Config& c) { return c.print(os); }

 private:
  enum class Kind { boolean, integer, unsignedInteger };
  Config(Kind kind, uint64_t bits);
  bool equals(const Config& other) const;
  std::ostream& print(std::ostream& os) const;

  void read(bool& out) const;
  void read(float& out) const;
  void read(double& out) const;
  void read(std::string& out) const;
  void read(Config& out) const { out = *this; }
  template <class T, detail::IfInteger<T> = 0>
  void read(T& out) const {
    if constexpr (std::is_signed<T>::value)
      out =
          static_cast<T>(readSigned(std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    else out = static_cast<T>(readUnsigned(std::numeric_limits<T>::max()));
  }
  template <class T, class A>
  void read(std::vector<T, A>& out) const {
    const size_t n = arraySize();
    out.clear();
    for (size_t i = 0; i < n; ++i) out.push_back((*this)[i].template get<T>());
  }
  long long readSigned(long long lo, long long hi) const;
  unsigned long long readUnsigned(unsigned long long hi) const;
  size_t arraySize() const;  // throws unless an array

  Json* impl_ = nullptr;  // owned; null: the JSON null
};

}  // namespace glint
