// Activation functions by name (TF.js identifiers), written with ops.
#include "glint/activations.h"

#include <cctype>
#include <cmath>
#include <functional>
#include <map>

#include "glint/ops.h"
#include "src/core/name_table.h"
#include "src/ops/op_util.h"

namespace glint::activations {

namespace {

using Fn = std::function<Tensor(const Tensor&)>;

struct Entry {
  std::string canonical;
  Fn fn;
};

const std::vector<std::pair<std::string, Fn>>& table() {
  static const std::vector<std::pair<std::string, Fn>> t = {
      {"linear", [](const Tensor& x) { return x; }},
      {"relu", [](const Tensor& x) { return relu(x); }},
      {"relu6", [](const Tensor& x) { return relu6(x); }},
      {"elu", [](const Tensor& x) { return elu(x); }},
      {"selu", [](const Tensor& x) { return selu(x); }},
      {"sigmoid", [](const Tensor& x) { return sigmoid(x); }},
      {"hardSigmoid",
       [](const Tensor& x) { return clipByValue(add(mul(x, scalar(0.2f)), scalar(0.5f)), 0, 1); }},
      {"tanh", [](const Tensor& x) { return tanh(x); }},
      {"softmax", [](const Tensor& x) { return softmax(x, -1); }},
      {"logSoftmax", [](const Tensor& x) { return logSoftmax(x, -1); }},
      {"softplus", [](const Tensor& x) { return softplus(x); }},
      {"softsign", [](const Tensor& x) { return div(x, add(abs(x), scalar(1.0f))); }},
      {"swish", [](const Tensor& x) { return mul(x, sigmoid(x)); }},
      {"gelu", [](const Tensor& x) { return gelu(x, false); }},
      {"gelu_new", [](const Tensor& x) { return gelu(x, true); }},
      {"mish", [](const Tensor& x) { return mul(x, tanh(softplus(x))); }},
  };
  return t;
}

const std::map<std::string, Entry>& registry() {
  static const std::map<std::string, Entry> m = [] {
    std::map<std::string, Entry> r;
    for (const auto& [name, fn] : table()) r[nameKey(name)] = Entry{name, fn};
    return r;
  }();
  return m;
}

const Entry& lookup(const std::string& name) {
  auto it = registry().find(nameKey(name));
  if (it == registry().end()) {
    std::string known;
    for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
    fail("activations", "unknown activation '", name, "'; known (case and '_' ignored): ", known);
  }
  return it->second;
}

}  // namespace

Tensor apply(const std::string& name, const Tensor& x) {
  const Entry& e = lookup(name);
  ops::checkDType("activation " + e.canonical, "x", x, {DType::float32});
  if (e.canonical == "softmax" || e.canonical == "logSoftmax")
    check(x.rank() >= 1, "activation " + e.canonical, "x needs an axis, got ", ops::describe(x));
  return e.fn(x);
}

bool exists(const std::string& name) { return registry().count(nameKey(name)) > 0; }

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const auto& [name, fn] : table()) out.push_back(name);
  return out;
}

std::string canonicalName(const std::string& name) { return lookup(name).canonical; }

std::string serializedName(const std::string& name) {
  std::string c = canonicalName(name), out;
  for (char ch : c) {
    if (std::isupper(static_cast<unsigned char>(ch))) {
      out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace glint::activations
