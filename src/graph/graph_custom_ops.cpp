// Graph-model ops written by the user (TF.js's tf.registerOp): a registry
// the loader and the executor consult before the built-in table, and the
// node's attributes decoded as TF.js hands them to such ops.
#include <mutex>

#include "src/graph/graph_internal.h"

namespace glint {

namespace {

constexpr const char* kRegister = "registerGraphOp";

std::mutex& registryMutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, GraphOpFn>& registry() {
  static std::map<std::string, GraphOpFn> r;
  return r;
}

}  // namespace

void registerGraphOp(const std::string& name, GraphOpFn fn) {
  check(!name.empty(), kRegister, "name must not be empty");
  check(static_cast<bool>(fn), kRegister, "op '", name, "' needs a function");
  // The graph's own structure is not an op a function can stand in for.
  check(name != "Const" && name != "Placeholder" && name != "PlaceholderWithDefault" &&
            !graph::isControlFlowOp(name) && !graph::isFunctionalOp(name),
        kRegister, "'", name,
        "' is part of the graph's structure (constants, inputs, control flow, functions): ",
        "it cannot be registered");
  std::lock_guard<std::mutex> lock(registryMutex());
  registry()[name] = std::move(fn);
}

void deregisterGraphOp(const std::string& name) {
  std::lock_guard<std::mutex> lock(registryMutex());
  registry().erase(name);
}

namespace graph {

std::optional<GraphOpFn> registeredOp(const std::string& op) {
  std::lock_guard<std::mutex> lock(registryMutex());
  auto it = registry().find(op);
  if (it == registry().end()) return std::nullopt;
  return it->second;
}

std::vector<Value> runRegisteredOp(const GraphOpFn& fn, NodeContext& ctx) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < ctx.numInputs(); ++i) inputs.push_back(ctx.in(i));
  std::vector<Tensor> outputs = fn(inputs, decodedAttrs(ctx.node()).dump());
  std::vector<Value> values;
  for (Tensor& t : outputs) values.emplace_back(std::move(t));
  return values;
}

}  // namespace graph
}  // namespace glint
