// Control flow v2: While, If and function calls, whose bodies are functions
// of the GraphDef's library. The loop runs on the host: each iteration calls
// the cond function, reads its predicate (on the host when it was computed
// there, as a loop counter is), then calls the body on the loop variables,
// which may be tensors or TensorLists alike.
#include "src/graph/graph_internal.h"

namespace glint::graph {

namespace {

std::string funcAttr(const NodeContext& ctx, const std::string& name) {
  const Json& attr = ctx.node().attr;
  opCheck(attr.contains(name) && attr[name].is_object() && attr[name].contains("func") &&
              attr[name]["func"].is_object() && attr[name]["func"].contains("name") &&
              attr[name]["func"]["name"].is_string(),
          "needs attribute '", name, "' naming a library function");
  return attr[name]["func"]["name"].get<std::string>();
}

bool truthy(const Value& v, const std::string& what) {
  opCheck(!v.isList(), what, " must be a tensor, got a TensorList");
  opCheck(shapeSize(v.shape()) == 1, what, " must hold one value, got shape ", shapeToString(v.shape()));
  if (v.isHost()) return v.host().v.at(0) != 0;
  return v.tensor().toFloats().at(0) != 0;  // data-dependent: read back, as TF.js does
}

const char* funcAttrs(const std::string& op, int i) {
  if (op == "While" || op == "StatelessWhile") return i == 0 ? "cond" : i == 1 ? "body" : nullptr;
  if (op == "If" || op == "StatelessIf") return i == 0 ? "then_branch" : i == 1 ? "else_branch" : nullptr;
  return i == 0 ? "f" : nullptr;
}

}  // namespace

const std::vector<std::string>& functionalOps() {
  static const std::vector<std::string> ops{"If", "PartitionedCall", "StatefulPartitionedCall", "StatelessIf",
                                            "StatelessWhile", "While"};
  return ops;
}

bool isFunctionalOp(const std::string& op) {
  for (const std::string& o : functionalOps())
    if (o == op) return true;
  return false;
}

std::vector<std::string> calledFunctions(const Node& node) {
  NodeContext ctx(node, {});
  std::vector<std::string> names;
  for (int i = 0; const char* attr = funcAttrs(node.op, i); ++i) names.push_back(funcAttr(ctx, attr));
  return names;
}

std::vector<Value> runFunctionalOp(const GraphView& g, NodeContext& ctx) {
  const std::string& op = ctx.node().op;
  std::vector<Value> args;
  for (size_t i = 0; i < ctx.numInputs(); ++i) args.push_back(ctx.value(i));
  if (op == "While" || op == "StatelessWhile") {
    std::string cond = funcAttr(ctx, "cond"), body = funcAttr(ctx, "body");
    // No bound on iterations, as in TF.js: the cond function decides.
    while (true) {
      std::vector<Value> c = g.call(cond, args);
      opCheck(!c.empty(), "cond function '", cond, "' returns nothing");
      if (!truthy(c[0], "the result of cond function '" + cond + "'")) break;
      std::vector<Value> next = g.call(body, args);
      opCheck(next.size() == args.size(), "body function '", body, "' returns ", next.size(),
              " values for ", args.size(), " loop variables");
      args = std::move(next);
    }
    return args;
  }
  if (op == "If" || op == "StatelessIf") {
    ctx.needInputs(1);
    bool taken = truthy(args[0], "the predicate (input 0)");
    args.erase(args.begin());
    return g.call(funcAttr(ctx, taken ? "then_branch" : "else_branch"), std::move(args));
  }
  return g.call(funcAttr(ctx, "f"), std::move(args));
}

}  // namespace glint::graph
