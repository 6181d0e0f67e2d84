// The control flow executor: TF 1's while loops and conds (Enter, Exit,
// Merge, Switch, NextIteration, LoopCond). A graph with them has cycles, so
// there is no fixed order: a node runs, in a context (a frame and an
// iteration, nested), as soon as its inputs have arrived there.
//
// Values are looked up from the node's context outwards, so a loop body sees
// values of the frames around it (constants, fed inputs, is_constant
// Enters). Switch sends a dead value down its untaken branch; a node with a
// dead input is dead too, except Merge, which takes its first live input.
// A dead Exit or NextIteration ends there: the loop's last iteration is the
// one whose Switch sent a live value to Exit.
#include <deque>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "glint/ops.h"
#include "src/graph/graph_internal.h"

namespace glint::graph {

namespace {

struct Context {
  int parent = -1;  // -1: the root
  std::string frame{};
  int64_t iteration = 0;
};

struct Slot {
  std::vector<Value> values{};
  std::vector<char> dead{};       // per output
  std::vector<int> deadOrigin{};  // per dead output: the Switch or Merge that killed it
};

class Executor : public Run {
 public:
  Executor(const GraphView& g, std::vector<Value> fed) : g_(g), fed_(std::move(fed)) {
    contexts_.push_back({});
    consumers_.resize(g.nodes.size());
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      std::set<int> producers;
      for (const auto& [in, k] : g.nodes[i].inputs) producers.insert(in);
      for (int c : g.nodes[i].controls) producers.insert(c);
      for (int p : producers) consumers_[p].push_back(static_cast<int>(i));
    }
  }

  void begin(const std::vector<std::pair<int, int>>& wanted,
             const std::vector<std::string>& names) {
    wanted_ = wanted;
    names_ = names;
    needed_.assign(g_.nodes.size(), 0);
    std::vector<int> stack;
    for (const auto& [n, k] : wanted) stack.push_back(n);
    while (!stack.empty()) {
      int n = stack.back();
      stack.pop_back();
      if (needed_[n]) continue;
      needed_[n] = 1;
      if (global(n)) continue;
      for (const auto& [in, k] : g_.nodes[n].inputs) stack.push_back(in);
      for (int c : g_.nodes[n].controls) stack.push_back(c);
    }
    for (size_t n = 0; n < g_.nodes.size(); ++n)
      if (needed_[n] && !global(static_cast<int>(n))) schedule(static_cast<int>(n), 0);
  }

  void resume() override {
    while (!ready_.empty()) {
      auto [n, ctx] = ready_.front();
      // A HostReadPending leaves the node at the front, to run again; every
      // path of execute() reads before it stores anything.
      execute(n, ctx);
      ready_.pop_front();
    }
    std::vector<Value> out;
    for (size_t i = 0; i < wanted_.size(); ++i) {
      const auto& [n, k] = wanted_[i];
      const std::string& name = names_[i];
      const Slot* s = lookup(n, 0);
      if (!s) blame(n, name);
      if (k >= static_cast<int>(s->values.size()))
        failAtNode(g_, g_.nodes[n],
                   "output '" + quoteForError(name) + "': the node has " +
                       std::to_string(s->values.size()) + " outputs");
      if (s->dead[k]) {
        const Node& origin = g_.nodes[s->deadOrigin[k]];
        failAtNode(g_, origin,
                   "output '" + quoteForError(name) + "' is dead: " +
                       (origin.op == "Merge" ? "no input of this Merge arrived live"
                                             : "it lies on the untaken branch of this Switch"));
      }
      out.push_back(s->values[k]);
    }
    out_ = std::move(out);
  }
  std::vector<Value> results() const override { return out_; }

 private:
  bool global(int n) const {
    return fed_[n].defined() || (g_.nodes[n].op == "Const" && g_.nodes[n].controls.empty());
  }

  int64_t key(int n, int ctx) const {
    return static_cast<int64_t>(ctx) * static_cast<int64_t>(g_.nodes.size()) + n;
  }

  int child(int ctx, const std::string& frame, int64_t iteration) {
    auto k = std::make_tuple(ctx, frame, iteration);
    auto it = contextIndex_.find(k);
    if (it != contextIndex_.end()) return it->second;
    contexts_.push_back({ctx, frame, iteration});
    int id = static_cast<int>(contexts_.size()) - 1;
    contextIndex_.emplace(k, id);
    return id;
  }

  // The value of node n as seen from ctx: there or in a frame around it.
  const Slot* lookup(int n, int ctx) {
    if (global(n)) {
      auto [it, added] = globals_.try_emplace(n);
      if (added) {
        it->second.values = {fed_[n].defined() ? fed_[n] : g_.constants[n]};
        it->second.dead = {0};
        it->second.deadOrigin = {-1};
      }
      return &it->second;
    }
    for (int c = ctx; c >= 0; c = contexts_[c].parent) {
      auto it = slots_.find(key(n, c));
      if (it != slots_.end()) return &it->second;
    }
    return nullptr;
  }

  const Value* input(int n, int ctx, size_t i, bool* dead, int* origin) {
    const auto& [in, k] = g_.nodes[n].inputs[i];
    const Slot* s = lookup(in, ctx);
    if (!s) return nullptr;
    if (k >= static_cast<int>(s->values.size()))
      failAtNode(g_, g_.nodes[n],
                 "input " + std::to_string(i) + " ('" + quoteForError(g_.nodes[n].inputNames[i]) +
                     "') names output " + std::to_string(k) + " of node '" +
                     quoteForError(g_.nodes[in].name) + "', which has " +
                     std::to_string(s->values.size()) + " outputs");
    *dead = s->dead[k];
    *origin = s->deadOrigin[k];
    return &s->values[k];
  }

  bool ready(int n, int ctx) {
    const Node& node = g_.nodes[n];
    bool dead;
    int origin;
    if (node.op == "Merge") {
      size_t arrived = 0;
      for (size_t i = 0; i < node.inputs.size(); ++i)
        if (input(n, ctx, i, &dead, &origin)) {
          if (!dead) return true;
          ++arrived;
        }
      return arrived == node.inputs.size() && arrived > 0;
    }
    for (size_t i = 0; i < node.inputs.size(); ++i)
      if (!input(n, ctx, i, &dead, &origin)) return false;
    for (int c : node.controls)
      if (!lookup(c, ctx)) return false;
    return true;
  }

  void schedule(int n, int ctx) {
    if (!needed_[n] || global(n) || started_.count(key(n, ctx)) || !ready(n, ctx)) return;
    started_.insert(key(n, ctx));
    ready_.emplace_back(n, ctx);
  }

  void store(int n, int ctx, Slot s, int triggerCtx) {
    slots_[key(n, ctx)] = std::move(s);
    for (int c : consumers_[n]) schedule(c, triggerCtx);
  }

  static Slot deadSlot(size_t outputs, int origin) {
    return {std::vector<Value>(outputs), std::vector<char>(outputs, 1),
            std::vector<int>(outputs, origin)};
  }
  static Slot liveSlot(std::vector<Value> values) {
    size_t n = values.size();
    return {std::move(values), std::vector<char>(n, 0), std::vector<int>(n, -1)};
  }

  bool predicate(const Node& node, const Value& v) {
    return atNode(g_, node, [&] {
      opCheck(v.shape().empty() || shapeSize(v.shape()) == 1,
              "the predicate must be a scalar, got shape ", shapeToString(v.shape()));
      if (v.isHost()) return v.host().v.at(0) != 0;
      // A data-dependent predicate: read back, as TF.js's executeAsync does.
      return v.tensor().toFloats().at(0) != 0;
    });
  }

  void execute(int n, int ctx) {
    const Node& node = g_.nodes[n];
    std::vector<Value> args;
    bool anyDead = false;
    int deadFrom = -1;
    bool dead;
    int origin;
    if (node.op == "Merge") {
      // The first live input, and its index (Merge's second output).
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        const Value* v = input(n, ctx, i, &dead, &origin);
        if (v && !dead) {
          store(n, ctx, liveSlot({*v, Value(hostScalar(static_cast<double>(i), DType::int32))}),
                ctx);
          return;
        }
      }
      store(n, ctx, deadSlot(2, n), ctx);
      return;
    }
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const Value* v = input(n, ctx, i, &dead, &origin);
      if (dead && !anyDead) deadFrom = origin;
      anyDead = anyDead || dead;
      args.push_back(*v);
    }
    for (int c : node.controls) {
      const Slot* s = lookup(c, ctx);
      for (size_t k = 0; k < s->dead.size() && !anyDead; ++k)
        if (s->dead[k]) {
          anyDead = true;
          deadFrom = s->deadOrigin[k];
        }
    }
    const Context here = contexts_[ctx];
    if (node.op == "Enter") {
      atNode(g_, node, [&] {
        NodeContext attrs(node, {});
        std::string frame = attrs.attrString("frame_name", "");
        opCheck(!frame.empty(), "has no frame_name attribute");
        opCheck(!args.empty(), "needs 1 input, got 0");
        int inner = child(ctx, frame, 0);
        // An is_constant Enter's value serves every iteration: it is kept in
        // the frame around the loop, where every iteration's lookup finds it.
        bool constant = attrs.attrBool("is_constant", false);
        Slot s = anyDead ? deadSlot(1, deadFrom) : liveSlot({args[0]});
        store(n, constant ? ctx : inner, std::move(s), inner);
      });
      return;
    }
    if (node.op == "Exit" || node.op == "NextIteration") {
      if (here.parent < 0)
        failAtNode(g_, node,
                   node.op + " outside any frame: no Enter leads to it (malformed control flow)");
      if (args.empty()) failAtNode(g_, node, "needs 1 input, got 0");
      if (anyDead) return;  // the iterations that did not end the loop, or the one after the last
      if (node.op == "Exit") {
        if (!lookup(n, here.parent)) store(n, here.parent, liveSlot({args[0]}), here.parent);
        return;
      }
      int next = child(here.parent, here.frame, here.iteration + 1);
      store(n, next, liveSlot({args[0]}), next);
      return;
    }
    if (node.op == "Switch") {
      if (args.size() < 2)
        failAtNode(g_, node, "needs 2 inputs (data, pred), got " + std::to_string(args.size()));
      if (anyDead) {
        store(n, ctx, deadSlot(2, deadFrom), ctx);
        return;
      }
      bool taken = predicate(node, args[1]);
      Slot s = liveSlot({taken ? Value() : args[0], taken ? args[0] : Value()});
      s.dead[taken ? 0 : 1] = 1;
      s.deadOrigin[taken ? 0 : 1] = n;
      store(n, ctx, std::move(s), ctx);
      return;
    }
    if (anyDead) {
      store(n, ctx, deadSlot(std::max<size_t>(1, outputCount(node)), deadFrom), ctx);
      return;
    }
    if (node.op == "LoopCond") {
      if (args.empty()) failAtNode(g_, node, "needs 1 input, got 0");
      store(n, ctx, liveSlot({args[0]}), ctx);
      return;
    }
    if (node.op == "Placeholder" || node.op == "PlaceholderWithDefault") {
      if (args.empty())
        failAtNode(g_, node, "input '" + quoteForError(node.name) + "' was not given a value");
      store(n, ctx, liveSlot({args[0]}), ctx);
      return;
    }
    if (node.op == "Const") {  // with control inputs: it runs in their frame
      store(n, ctx, liveSlot({g_.constants[n]}), ctx);
      return;
    }
    store(n, ctx, liveSlot(runNode(g_, node, args, call_)), ctx);
  }

  // A dead node's output count: what its consumers ask for (outputs are
  // only known by running the op).
  size_t outputCount(const Node& node) const {
    size_t most = 1;
    int self = static_cast<int>(&node - g_.nodes.data());
    for (int c : consumers_[self])
      for (const auto& [in, k] : g_.nodes[c].inputs)
        if (in == self) most = std::max(most, static_cast<size_t>(k) + 1);
    return most;
  }

  // A wanted value never arrived: name the node where the data stopped.
  [[noreturn]] void blame(int wanted, const std::string& name) {
    std::set<int> seen;
    std::vector<int> stack{wanted};
    while (!stack.empty()) {
      int n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second) continue;
      const Node& node = g_.nodes[n];
      std::vector<int> missing;
      for (const auto& [in, k] : node.inputs)
        if (!lookup(in, 0)) missing.push_back(in);
      for (int c : node.controls)
        if (!lookup(c, 0)) missing.push_back(c);
      if (node.op == "Merge" && missing.size() < node.inputs.size() + node.controls.size())
        failAtNode(g_, node,
                   "output '" + quoteForError(name) +
                       "' was never computed: no input of this Merge arrived live");
      if (node.op == "Exit" || node.op == "Merge" || node.op == "NextIteration" || missing.empty())
        failAtNode(g_, node,
                   "output '" + quoteForError(name) + "' was never computed: this " + node.op +
                       " never received its inputs (malformed control flow)");
      for (int m : missing) stack.push_back(m);
    }
    failAtNode(g_, g_.nodes[wanted], "output '" + quoteForError(name) + "' was never computed");
  }

  const GraphView g_;
  const std::vector<Value> fed_;
  std::vector<std::pair<int, int>> wanted_{};
  std::vector<std::string> names_{};
  std::vector<Value> out_{};
  std::unique_ptr<Run> call_{};  // the front node's function call, while it waits for a read
  std::vector<Context> contexts_;
  std::map<std::tuple<int, std::string, int64_t>, int> contextIndex_;
  std::vector<std::vector<int>> consumers_;
  std::vector<char> needed_;
  std::unordered_map<int64_t, Slot> slots_;
  std::unordered_map<int, Slot> globals_;
  std::set<int64_t> started_;
  std::deque<std::pair<int, int>> ready_;
};

}  // namespace

bool isControlFlowOp(const std::string& op) {
  for (const std::string& o : controlFlowOps())
    if (o == op) return true;
  return false;
}

const std::vector<std::string>& controlFlowOps() {
  static const std::vector<std::string> ops{"Enter", "Exit",          "LoopCond",
                                            "Merge", "NextIteration", "Switch"};
  return ops;
}

std::unique_ptr<Run> startDynamic(const GraphView& g, std::vector<Value> fed,
                                  const std::vector<std::pair<int, int>>& wanted,
                                  const std::vector<std::string>& wantedNames) {
  auto e = std::make_unique<Executor>(g, std::move(fed));
  e->begin(wanted, wantedNames);
  return e;
}

}  // namespace glint::graph
