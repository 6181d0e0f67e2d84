// Control flow v2: While, If and function calls, whose bodies are functions
// of the GraphDef's library. The loop runs on the host: each iteration calls
// the cond function, reads its predicate (on the host when it was computed
// there, as a loop counter is), then calls the body on the loop variables,
// which may be tensors or TensorLists alike.
#include <optional>

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
  opCheck(shapeSize(v.shape()) == 1, what, " must hold one value, got shape ",
          shapeToString(v.shape()));
  if (v.isHost()) return v.host().v.at(0) != 0;
  return v.tensor().toFloats().at(0) != 0;  // data-dependent: read back, as TF.js does
}

const char* funcAttrs(const std::string& op, int i) {
  if (op == "While" || op == "StatelessWhile") return i == 0 ? "cond" : i == 1 ? "body" : nullptr;
  if (op == "If" || op == "StatelessIf")
    return i == 0 ? "then_branch" : i == 1 ? "else_branch" : nullptr;
  return i == 0 ? "f" : nullptr;
}

}  // namespace

const std::vector<std::string>& functionalOps() {
  static const std::vector<std::string> ops{
      "If", "PartitionedCall", "StatefulPartitionedCall", "StatelessIf", "StatelessWhile", "While"};
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
  for (int i = 0; const char* attr = funcAttrs(node.op, i); ++i)
    names.push_back(funcAttr(ctx, attr));
  return names;
}

std::vector<Value> finishCall(const GraphView& g, std::unique_ptr<Run>& call,
                              const std::string& name, const std::vector<Value>& args) {
  if (!call) call = g.start(name, args);
  call->resume();
  std::vector<Value> out = call->results();
  call.reset();
  return out;
}

namespace {

// While / StatelessWhile: the loop variables and the step it is at, so that a
// read the cond or the body waits for resumes that step, not the loop.
class WhileRun : public Run {
 public:
  WhileRun(const GraphView& g, const NodeContext& ctx, std::vector<Value> args)
      : g_(g), cond_(funcAttr(ctx, "cond")), body_(funcAttr(ctx, "body")), vars_(std::move(args)) {}

  void resume() override {
    // No bound on iterations, as in TF.js: the cond function decides.
    while (true) {
      if (!inBody_) {
        if (!predicate_) {
          std::vector<Value> c = finishCall(g_, call_, cond_, vars_);
          opCheck(!c.empty(), "cond function '", cond_, "' returns nothing");
          predicate_ = c[0];
        }
        if (!truthy(*predicate_, "the result of cond function '" + cond_ + "'")) return;
        predicate_.reset();
        inBody_ = true;
      }
      std::vector<Value> next = finishCall(g_, call_, body_, vars_);
      opCheck(next.size() == vars_.size(), "body function '", body_, "' returns ", next.size(),
              " values for ", vars_.size(), " loop variables");
      vars_ = std::move(next);
      inBody_ = false;
    }
  }
  std::vector<Value> results() const override { return vars_; }

 private:
  GraphView g_;
  std::string cond_, body_;
  std::vector<Value> vars_;
  std::optional<Value> predicate_{};
  bool inBody_ = false;
  std::unique_ptr<Run> call_{};
};

// If / StatelessIf and PartitionedCall: one call (the branch, once the
// predicate has been read).
class CallRun : public Run {
 public:
  CallRun(const GraphView& g, const NodeContext& ctx, std::vector<Value> args)
      : g_(g), args_(std::move(args)) {
    const std::string& op = ctx.node().op;
    if (op == "If" || op == "StatelessIf") {
      ctx.needInputs(1);
      then_ = funcAttr(ctx, "then_branch");
      else_ = funcAttr(ctx, "else_branch");
    } else {
      function_ = funcAttr(ctx, "f");
    }
  }

  void resume() override {
    if (function_.empty()) {
      bool taken = truthy(args_[0], "the predicate (input 0)");
      function_ = taken ? then_ : else_;
      args_.erase(args_.begin());
    }
    out_ = finishCall(g_, call_, function_, args_);
  }
  std::vector<Value> results() const override { return out_; }

 private:
  GraphView g_;
  std::vector<Value> args_;
  std::string then_{}, else_{}, function_{};
  std::unique_ptr<Run> call_{};
  std::vector<Value> out_{};
};

}  // namespace

std::unique_ptr<Run> startFunctionalOp(const GraphView& g, const Node& node,
                                       std::vector<Value> args) {
  NodeContext ctx(node, args);
  if (node.op == "While" || node.op == "StatelessWhile")
    return std::make_unique<WhileRun>(g, ctx, std::move(args));
  return std::make_unique<CallRun>(g, ctx, std::move(args));
}

}  // namespace glint::graph
