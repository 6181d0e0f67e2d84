#pragma once
// A GraphDef written node by node in a test, with Const weights, loaded in
// memory (graph_control_test.cpp, graph_ops_more_test.cpp).
#include <string>
#include <utility>
#include <vector>

#include "glint/graph_model.h"
#include "glint/io.h"
#include "glint/json.h"

namespace glint::testing {

inline std::string base64(const std::string& s) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : s) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(digits[(acc >> bits) & 63u]);
    }
  }
  if (bits > 0) out.push_back(digits[(acc << (6 - bits)) & 63u]);
  while (out.size() % 4) out.push_back('=');
  return out;
}

struct Graph {
  Json nodes = Json::array();
  io::ModelArtifacts a;

  void node(const std::string& name, const std::string& op, std::vector<std::string> inputs = {},
            Json attr = Json::object()) {
    nodes.push_back({{"name", name}, {"op", op}, {"input", inputs}, {"attr", attr}});
  }
  void placeholder(const std::string& name, DType dtype = DType::float32) {
    node(name, "Placeholder", {},
         {{"dtype",
           {{"type", dtype == DType::int32     ? "DT_INT32"
                     : dtype == DType::boolean ? "DT_BOOL"
                                               : "DT_FLOAT"}}}});
  }
  void ints(const std::string& name, const std::vector<int32_t>& v, Shape shape = {-2}) {
    if (shape == Shape{-2}) shape = {static_cast<int64_t>(v.size())};
    weight(name, shape, DType::int32, v.data(), v.size() * 4);
    node(name, "Const", {}, {{"dtype", {{"type", "DT_INT32"}}}});
  }
  void floats(const std::string& name, const std::vector<float>& v, Shape shape = {-2}) {
    if (shape == Shape{-2}) shape = {static_cast<int64_t>(v.size())};
    weight(name, shape, DType::float32, v.data(), v.size() * 4);
    node(name, "Const", {}, {{"dtype", {{"type", "DT_FLOAT"}}}});
  }
  void boolean(const std::string& name, bool v) {
    uint8_t b = v;
    weight(name, {}, DType::boolean, &b, 1);
    node(name, "Const", {}, {{"dtype", {{"type", "DT_BOOL"}}}});
  }
  void weight(const std::string& name, const Shape& shape, DType dtype, const void* p,
              size_t bytes) {
    a.weightSpecs.push_back({name, shape, dtype});
    const auto* b = static_cast<const uint8_t*>(p);
    a.weightData.insert(a.weightData.end(), b, b + bytes);
  }
  Json functions = Json::array();
  // A library function: args and rets as [name, "DT_..."]; ret maps each
  // output arg to "node:arg:index".
  void func(const std::string& name, const std::vector<std::pair<std::string, std::string>>& args,
            const std::vector<std::pair<std::string, std::string>>& rets, const Json& body,
            const Json& ret) {
    Json in = Json::array(), out = Json::array();
    for (const auto& [n, t] : args) in.push_back({{"name", n}, {"type", t}});
    for (const auto& [n, t] : rets) out.push_back({{"name", n}, {"type", t}});
    functions.push_back({{"signature", {{"name", name}, {"inputArg", in}, {"outputArg", out}}},
                         {"nodeDef", body},
                         {"ret", ret}});
  }
  GraphModel load(const std::string& file = "cflow.json") {
    a.format = "graph-model";
    a.modelTopology = Json{{"node", nodes}, {"library", {{"function", functions}}}};
    return GraphModel::fromArtifacts(a, {}, file);
  }
};

}  // namespace glint::testing
