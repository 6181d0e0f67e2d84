// Values between nodes and what an op reads from its node: inputs (host or
// device) and GraphDef attributes as the TF.js converter writes them.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>

#include "glint/ops.h"
#include "src/graph/graph_internal.h"

namespace glint::graph {

namespace {

std::string decodeBase64(const std::string& in) {
  auto digit = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    int d = digit(c);
    opCheck(d >= 0, "a string attribute is not base64: '", quoteForError(in, 80), "'");
    acc = (acc << 6) | static_cast<uint32_t>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xffu));
    }
  }
  return out;
}

int64_t jsonInt(const Json& j, const std::string& what) {
  // GraphDef JSON writes int64 as strings ("3"), int32 as numbers.
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_number()) return static_cast<int64_t>(j.get<double>());
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    opCheck(!s.empty() && end && *end == '\0', what, " is not an integer: '", quoteForError(s, 40),
            "'");
    return v;
  }
  opFail(what, " is not an integer");
}

}  // namespace

double roundToDType(double v, DType dtype) {
  if (dtype == DType::float32) return static_cast<double>(static_cast<float>(v));
  if (dtype == DType::boolean) return v != 0 ? 1.0 : 0.0;
  if (std::isnan(v)) return 0;
  return std::trunc(std::fmax(-2147483648.0, std::fmin(2147483647.0, v)));
}

HostValue hostScalar(double value, DType dtype) {
  return HostValue{{}, dtype, {roundToDType(value, dtype)}};
}

Value::Value(HostValue h) : host_(std::move(h)) {}

const TensorList& Value::list() const {
  opCheck(list_ != nullptr, "expects a TensorList here, got ",
          array_ ? "a TensorArray" : "a tensor");
  return *list_;
}

TensorArray& Value::array() const {
  opCheck(array_ != nullptr, "expects a TensorArray handle here, got ",
          list_ ? "a TensorList" : "a tensor");
  return *array_;
}

const Tensor& Value::tensor() const {
  opCheck(list_ == nullptr && array_ == nullptr, "expects a tensor here, got a ",
          list_ ? "TensorList" : "TensorArray");
  if (!device_.defined() && host_) {
    const HostValue& h = *host_;
    if (h.dtype == DType::float32) {
      device_ = glint::tensor(std::vector<float>(h.v.begin(), h.v.end()), h.shape);
    } else if (h.dtype == DType::int32) {
      std::vector<int32_t> ints(h.v.size());
      for (size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<int32_t>(h.v[i]);
      device_ = tensorInt(ints, h.shape);
    } else {
      std::vector<uint8_t> bools(h.v.size());
      for (size_t i = 0; i < bools.size(); ++i) bools[i] = h.v[i] != 0;
      device_ = tensorBool(bools, h.shape);
    }
  }
  return device_;
}

const Shape& Value::shape() const {
  opCheck(list_ == nullptr && array_ == nullptr, "expects a tensor here, got a ",
          list_ ? "TensorList" : "TensorArray");
  return host_ ? host_->shape : device_.shape();
}
DType Value::dtype() const {
  opCheck(list_ == nullptr && array_ == nullptr, "expects a tensor here, got a ",
          list_ ? "TensorList" : "TensorArray");
  return host_ ? host_->dtype : device_.dtype();
}

Value fromHost(HostValue h) {
  if (static_cast<int64_t>(h.v.size()) <= kMaxHostElements) return Value(std::move(h));
  return Value(Value(std::move(h)).tensor());
}

DType dtypeFromTf(const Json& type, const std::string& what) {
  if (type.is_number_integer()) {
    switch (type.get<int>()) {
      case 1:   // DT_FLOAT
      case 2:   // DT_DOUBLE
      case 19:  // DT_HALF
        return DType::float32;
      case 3:
      case 4:
      case 5:
      case 6:
      case 9:  // int32, uint8, int16, int8, int64
      case 17:
      case 22:
      case 23:  // uint16, uint32, uint64
        return DType::int32;
      case 10:
        return DType::boolean;
      default:
        break;
    }
  } else if (type.is_string()) {
    const std::string& t = type.get_ref<const std::string&>();
    // TF.js computes double and half in float32, as the integers in int32.
    if (t == "DT_FLOAT" || t == "DT_DOUBLE" || t == "DT_HALF") return DType::float32;
    if (t == "DT_INT32" || t == "DT_INT64" || t == "DT_INT16" || t == "DT_INT8" ||
        t == "DT_UINT8" || t == "DT_UINT16" || t == "DT_UINT32" || t == "DT_UINT64")
      return DType::int32;
    if (t == "DT_BOOL") return DType::boolean;
  }
  opFail(what, " has type ", quoteForError(type.dump(), 40),
         "; Glint runs float32, int32 and bool");
}

void NodeContext::needInputs(size_t n) const {
  opCheck(in_.size() >= n, "needs ", n, " inputs, got ", in_.size());
}

const Value& NodeContext::value(size_t i) const {
  needInputs(i + 1);
  return in_[i];
}

bool NodeContext::allHost() const {
  for (const Value& v : in_)
    if (!v.isHost()) return false;
  return true;
}

HostValue hostCopy(const Tensor& t) {
  HostValue h{t.shape(), t.dtype(), {}};
  h.v.reserve(static_cast<size_t>(t.size()));
  if (t.dtype() == DType::int32) {
    for (int32_t x : t.data<int32_t>()) h.v.push_back(x);
  } else if (t.dtype() == DType::boolean) {
    for (uint8_t x : t.data<uint8_t>()) h.v.push_back(x);
  } else {
    for (float x : t.toFloats()) h.v.push_back(x);
  }
  return h;
}

const HostValue& NodeContext::host(size_t i, const std::string& what) const {
  const Value& v = value(i);
  opCheck(!v.isList() && !v.isArray(), what, " (input ", i, ", '",
          quoteForError(node_.inputNames[i]), "') must be a tensor, got a ",
          v.isList() ? "TensorList" : "TensorArray");
  if (!v.isHost()) {
    if (read_.size() < in_.size()) read_.resize(in_.size());
    if (!read_[i]) read_[i] = hostCopy(v.tensor());
    return *read_[i];
  }
  return v.host();
}

std::vector<int64_t> NodeContext::ints(size_t i, const std::string& what) const {
  const HostValue& h = host(i, what);
  opCheck(h.dtype == DType::int32, what, " must be int32, got ", dtypeName(h.dtype));
  return std::vector<int64_t>(h.v.begin(), h.v.end());
}

int64_t NodeContext::intScalar(size_t i, const std::string& what) const {
  std::vector<int64_t> v = ints(i, what);
  opCheck(v.size() == 1, what, " must hold one value, got shape ",
          shapeToString(host(i, what).shape));
  return v[0];
}

double NodeContext::scalar(size_t i, const std::string& what) const {
  const HostValue& h = host(i, what);
  opCheck(h.v.size() == 1, what, " must hold one value, got shape ", shapeToString(h.shape));
  return h.v[0];
}

const Json* NodeContext::attr(const std::string& name) const {
  if (!node_.attr.is_object() || !node_.attr.contains(name)) return nullptr;
  return &node_.attr[name];
}

bool NodeContext::has(const std::string& name) const { return attr(name) != nullptr; }

int64_t NodeContext::attrInt(const std::string& name, int64_t def) const {
  const Json* a = attr(name);
  if (!a || !a->is_object() || !a->contains("i")) return def;
  return jsonInt((*a)["i"], "attribute '" + name + "'");
}

double NodeContext::attrFloat(const std::string& name, double def) const {
  const Json* a = attr(name);
  if (!a || !a->is_object()) return def;
  if (a->contains("f")) {
    const Json& f = (*a)["f"];
    if (f.is_number()) return f.get<double>();
    // Non-finite floats are written as strings by protobuf's JSON mapping.
    if (f.is_string()) {
      const std::string& s = f.get_ref<const std::string&>();
      if (s == "NaN") return NAN;
      if (s == "Infinity") return INFINITY;
      if (s == "-Infinity") return -INFINITY;
      return std::strtod(s.c_str(), nullptr);
    }
  }
  if (a->contains("i")) return static_cast<double>(jsonInt((*a)["i"], "attribute '" + name + "'"));
  return def;
}

bool NodeContext::attrBool(const std::string& name, bool def) const {
  const Json* a = attr(name);
  if (!a || !a->is_object() || !a->contains("b")) return def;
  opCheck((*a)["b"].is_boolean(), "attribute '", name, "' is not a boolean");
  return (*a)["b"].get<bool>();
}

std::string NodeContext::attrString(const std::string& name, const std::string& def) const {
  const Json* a = attr(name);
  if (!a || !a->is_object() || !a->contains("s")) return def;
  opCheck((*a)["s"].is_string(), "attribute '", name, "' is not a string");
  return decodeBase64((*a)["s"].get<std::string>());
}

std::string NodeContext::attrWord(const std::string& name, const std::string& def) const {
  std::string v = attrString(name, def);
  for (char& c : v) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return v;
}

std::vector<int64_t> NodeContext::attrInts(const std::string& name) const {
  const Json* a = attr(name);
  std::vector<int64_t> out;
  if (!a || !a->is_object() || !a->contains("list")) return out;
  const Json& list = (*a)["list"];
  if (!list.is_object() || !list.contains("i")) return out;
  opCheck(list["i"].is_array(), "attribute '", name, "' is not a list of integers");
  for (const Json& v : list["i"]) out.push_back(jsonInt(v, "attribute '" + name + "'"));
  return out;
}

std::vector<std::string> NodeContext::attrStrings(const std::string& name) const {
  const Json* a = attr(name);
  std::vector<std::string> out;
  if (!a || !a->is_object() || !a->contains("list")) return out;
  const Json& list = (*a)["list"];
  if (!list.is_object() || !list.contains("s")) return out;
  opCheck(list["s"].is_array(), "attribute '", name, "' is not a list of strings");
  for (const Json& v : list["s"]) {
    opCheck(v.is_string(), "attribute '", name, "' holds a non-string");
    out.push_back(decodeBase64(v.get<std::string>()));
  }
  return out;
}

namespace {

// A TensorFlow dtype (an enum number or "DT_..." name) as TF.js names it.
std::string dtypeName(const Json& type) {
  static const std::map<std::string, std::string> names{
      {"DT_FLOAT", "float32"}, {"DT_DOUBLE", "float32"},     {"DT_HALF", "float32"},
      {"DT_INT32", "int32"},   {"DT_INT64", "int32"},        {"DT_INT16", "int32"},
      {"DT_INT8", "int32"},    {"DT_UINT8", "int32"},        {"DT_BOOL", "bool"},
      {"DT_STRING", "string"}, {"DT_COMPLEX64", "complex64"}};
  static const std::map<int, std::string> numbers{
      {1, "float32"}, {2, "float32"},   {3, "int32"}, {4, "int32"}, {5, "int32"},   {6, "int32"},
      {7, "string"},  {8, "complex64"}, {9, "int32"}, {10, "bool"}, {19, "float32"}};
  if (type.is_string()) {
    auto it = names.find(type.get<std::string>());
    return it == names.end() ? type.get<std::string>() : it->second;
  }
  if (type.is_number_integer()) {
    auto it = numbers.find(type.get<int>());
    if (it != numbers.end()) return it->second;
  }
  return type.dump();
}

double jsonFloat(const Json& j, const std::string& what) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {  // GraphDef JSON writes NaN and the infinities as strings
    const std::string& s = j.get_ref<const std::string&>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  opFail(what, " is not a number: ", j.dump());
}

Json decodedShape(const Json& shape) {
  if (!shape.is_object() || shape.value("unknownRank", false)) return nullptr;
  Json dims = Json::array();
  if (shape.contains("dim") && shape["dim"].is_array()) {
    for (const Json& d : shape["dim"])
      dims.push_back(d.is_object() && d.contains("size") ? jsonInt(d["size"], "a shape's size")
                                                         : -1);
  }
  return dims;
}

Json decodedValue(const std::string& kind, const Json& v, const std::string& what) {
  if (kind == "s") {
    opCheck(v.is_string(), what, " is not a string");
    return decodeBase64(v.get<std::string>());
  }
  if (kind == "i") return jsonInt(v, what);
  if (kind == "f") return jsonFloat(v, what);
  if (kind == "b") return v.is_boolean() ? v.get<bool>() : jsonInt(v, what) != 0;
  if (kind == "type") return dtypeName(v);
  if (kind == "shape") return decodedShape(v);
  return nullptr;  // tensor and func attributes: no value a registered op can take
}

}  // namespace

Json decodedAttrs(const Node& node) {
  Json out = Json::object();
  if (!node.attr.is_object()) return out;
  for (const auto& [name, a] : node.attr.items()) {
    if (!a.is_object()) continue;
    std::string what = "attribute '" + name + "'";
    Json value = nullptr;
    if (a.contains("list")) {
      value = Json::array();
      const Json& list = a["list"];
      for (const char* kind : {"s", "i", "f", "b", "type", "shape"}) {
        if (!list.is_object() || !list.contains(kind) || !list[kind].is_array()) continue;
        for (const Json& v : list[kind]) value.push_back(decodedValue(kind, v, what));
        break;
      }
    } else {
      for (const char* kind : {"s", "i", "f", "b", "type", "shape", "tensor"}) {
        if (a.contains(kind)) {
          value = decodedValue(kind, a[kind], what);
          break;
        }
      }
    }
    out[name] = value;
  }
  return out;
}

DType NodeContext::attrType(const std::string& name, DType def) const {
  const Json* a = attr(name);
  if (!a || !a->is_object() || !a->contains("type")) return def;
  return dtypeFromTf((*a)["type"], "attribute '" + name + "'");
}

}  // namespace glint::graph
