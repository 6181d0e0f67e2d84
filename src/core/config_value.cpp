// glint::Config over nlohmann::ordered_json (see glint/config.h).
#include <algorithm>
#include <cmath>
#include <ostream>
#include <utility>

#include "glint/config.h"
#include "glint/error.h"
#include "glint/json.h"

namespace glint {

namespace {

const Json& nullJson() {
  static const Json null;
  return null;
}

std::string brief(const Json& j) {
  return quoteForError(j.dump(-1, ' ', false, Json::error_handler_t::replace), 80);
}

[[noreturn]] void expected(const char* what, const Json& j) {
  fail("Config", "expected ", what, ", got ", brief(j));
}

}  // namespace

Config::Config(Kind kind, uint64_t bits) {
  switch (kind) {
    case Kind::boolean:
      impl_ = new Json(bits != 0);
      break;
    case Kind::integer:
      impl_ = new Json(static_cast<int64_t>(bits));
      break;
    case Kind::unsignedInteger:
      impl_ = new Json(bits);
      break;
  }
}

Config::Config(double value) : impl_(new Json(value)) {}
Config::Config(const char* value) : impl_(value ? new Json(value) : nullptr) {}
Config::Config(std::string value) : impl_(new Json(std::move(value))) {}

Config::Config(std::initializer_list<Config> init) {
  const bool isObject = std::all_of(init.begin(), init.end(), [](const Config& e) {
    const Json& j = e.json();
    return j.is_array() && j.size() == 2 && j[0].is_string();
  });
  impl_ = new Json(isObject ? Json::object() : Json::array());
  for (const Config& e : init) {
    const Json& j = e.json();
    if (isObject) (*impl_)[j[0].get_ref<const std::string&>()] = j[1];
    else impl_->push_back(j);
  }
}

Config::Config(const Json& value) : impl_(new Json(value)) {}
Config::Config(Json&& value) : impl_(new Json(std::move(value))) {}

const Json& Config::json() const { return impl_ ? *impl_ : nullJson(); }

Json& Config::json() {
  if (!impl_) impl_ = new Json();
  return *impl_;
}

Config::Config(const Config& other) : impl_(other.impl_ ? new Json(*other.impl_) : nullptr) {}

Config& Config::operator=(const Config& other) & {
  if (this != &other) {
    Json* copy = other.impl_ ? new Json(*other.impl_) : nullptr;
    delete impl_;
    impl_ = copy;
  }
  return *this;
}

Config& Config::operator=(Config&& other) & noexcept {
  if (this != &other) {
    delete impl_;
    impl_ = other.impl_;
    other.impl_ = nullptr;
  }
  return *this;
}

Config::~Config() { delete impl_; }

Config Config::object() { return Config(Json::object()); }
Config Config::array() { return Config(Json::array()); }

Config Config::parse(const std::string& text) {
  try {
    return Config(Json::parse(text));
  } catch (const Json::parse_error& e) {
    fail("Config.parse", e.what());
  }
}

bool Config::is_null() const { return json().is_null(); }
bool Config::is_boolean() const { return json().is_boolean(); }
bool Config::is_number() const { return json().is_number(); }
bool Config::is_number_integer() const { return json().is_number_integer(); }
bool Config::is_string() const { return json().is_string(); }
bool Config::is_array() const { return json().is_array(); }
bool Config::is_object() const { return json().is_object(); }
size_t Config::size() const { return json().size(); }
bool Config::empty() const { return json().empty(); }

bool Config::contains(const std::string& key) const {
  const Json& j = json();
  return j.is_object() && j.contains(key);
}

Config Config::operator[](const std::string& key) const {
  const Json& j = json();
  if (!j.is_object()) fail("Config", "[\"", key, "\"] needs an object, got ", brief(j));
  auto it = j.find(key);
  if (it == j.end()) {
    std::string known;
    for (auto k = j.begin(); k != j.end(); ++k) known += (known.empty() ? "" : ", ") + k.key();
    fail("Config", "no key \"", key, "\"; keys: ", known.empty() ? "none" : known);
  }
  return Config(*it);
}

Config Config::operator[](size_t index) const {
  const Json& j = json();
  if (!j.is_array()) fail("Config", "[", index, "] needs an array, got ", brief(j));
  if (index >= j.size())
    fail("Config", "index ", index, " is out of range: ", j.size(), " elements");
  return Config(j[index]);
}

std::vector<std::string> Config::keys() const {
  std::vector<std::string> out;
  const Json& j = json();
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it) out.push_back(it.key());
  return out;
}

std::string Config::dump(int indent) const {
  return json().dump(indent, ' ', false, Json::error_handler_t::replace);
}

Config& Config::set(const std::string& key, Config value) & {
  Json& j = json();
  if (j.is_null()) j = Json::object();
  if (!j.is_object()) fail("Config.set", "\"", key, "\" needs an object, got ", brief(j));
  j[key] = std::move(value.json());
  return *this;
}

Config& Config::push_back(Config value) & {
  Json& j = json();
  if (j.is_null()) j = Json::array();
  if (!j.is_array()) fail("Config.push_back", "needs an array, got ", brief(j));
  j.push_back(std::move(value.json()));
  return *this;
}

bool Config::equals(const Config& other) const { return json() == other.json(); }

std::ostream& Config::print(std::ostream& os) const { return os << dump(); }

void Config::read(bool& out) const {
  if (!json().is_boolean()) expected("a boolean", json());
  out = json().get<bool>();
}

void Config::read(float& out) const {
  if (!json().is_number()) expected("a number", json());
  out = json().get<float>();
}

void Config::read(double& out) const {
  if (!json().is_number()) expected("a number", json());
  out = json().get<double>();
}

void Config::read(std::string& out) const {
  if (!json().is_string()) expected("a string", json());
  out = json().get<std::string>();
}

long long Config::readSigned(long long lo, long long hi) const {
  const Json& j = json();
  if (j.is_number_unsigned()) {
    uint64_t v = j.get<uint64_t>();
    if (v <= static_cast<unsigned long long>(hi)) return static_cast<long long>(v);
  } else if (j.is_number_integer()) {
    int64_t v = j.get<int64_t>();
    if (v >= lo && v <= hi) return v;
  } else if (j.is_number_float()) {
    double v = j.get<double>();
    // Whole numbers only; the bounds as doubles may round up, hence the strict <.
    if (std::trunc(v) == v && v >= static_cast<double>(lo) && v < static_cast<double>(hi) + 1.0)
      return static_cast<long long>(v);
  }
  fail("Config", "expected an integer in [", lo, ", ", hi, "], got ", brief(j));
}

unsigned long long Config::readUnsigned(unsigned long long hi) const {
  const Json& j = json();
  if (j.is_number_unsigned()) {
    uint64_t v = j.get<uint64_t>();
    if (v <= hi) return v;
  } else if (j.is_number_integer()) {
    int64_t v = j.get<int64_t>();
    if (v >= 0 && static_cast<unsigned long long>(v) <= hi)
      return static_cast<unsigned long long>(v);
  } else if (j.is_number_float()) {
    double v = j.get<double>();
    if (std::trunc(v) == v && v >= 0 && v < static_cast<double>(hi) + 1.0)
      return static_cast<unsigned long long>(v);
  }
  fail("Config", "expected an integer in [0, ", hi, "], got ", brief(j));
}

size_t Config::arraySize() const {
  if (!json().is_array()) expected("an array", json());
  return json().size();
}

}  // namespace glint
