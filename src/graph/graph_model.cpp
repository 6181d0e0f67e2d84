// glint::GraphModel: reads a TF.js graph model (GraphDef JSON + weights),
// checks it once (every op known, every input present, no cycle), then runs
// the nodes an execution needs in topological order, freeing each value
// after its last use.
#include "glint/graph_model.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <set>
#include <unordered_map>

#include "glint/ops.h"
#include "src/graph/graph_internal.h"
#include "src/io/io_util.h"

namespace glint {

using graph::HostValue;
using graph::Node;
using graph::NodeContext;
using graph::Value;

namespace {

const char* kOp = "GraphModel";

struct TensorRef {
  int node = -1;
  int output = 0;
};

// "name", "name:2"; "^name" (a control input) gives output -1.
std::pair<std::string, int> splitTensorName(const std::string& name) {
  if (!name.empty() && name[0] == '^') return {name.substr(1), -1};
  size_t colon = name.rfind(':');
  if (colon != std::string::npos && colon + 1 < name.size() &&
      std::all_of(name.begin() + static_cast<std::ptrdiff_t>(colon) + 1, name.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
      name.size() - colon <= 6)
    return {name.substr(0, colon), std::stoi(name.substr(colon + 1))};
  return {name, 0};
}

// Host values for small weights, decoded from their bytes (the device is
// never read back); `p` points at the weight's bytes.
HostValue decodeHost(const io::WeightSpec& s, const uint8_t* p) {
  HostValue h{s.shape, s.dtype, std::vector<double>(static_cast<size_t>(shapeSize(s.shape)))};
  for (size_t i = 0; i < h.v.size(); ++i) {
    double v;
    if (s.quantization) {
      const io::Quantization& q = *s.quantization;
      uint16_t c16;
      if (q.dtype == "float16") {
        std::memcpy(&c16, p + 2 * i, 2);
        v = io::halfToFloat(c16);
      } else if (q.dtype == "uint8") {
        v = p[i] * q.scale + q.min;
      } else {
        std::memcpy(&c16, p + 2 * i, 2);
        v = c16 * q.scale + q.min;
      }
      if (s.dtype == DType::int32) v = static_cast<double>(std::llround(v));
    } else if (s.dtype == DType::float32) {
      float f;
      std::memcpy(&f, p + 4 * i, 4);
      v = f;
    } else if (s.dtype == DType::int32) {
      int32_t n;
      std::memcpy(&n, p + 4 * i, 4);
      v = n;
    } else {
      v = p[i] != 0;
    }
    h.v[i] = graph::roundToDType(v, s.dtype);
  }
  return h;
}

GraphTensorInfo infoFromSignature(const std::string& key, const Json& entry) {
  GraphTensorInfo info;
  info.name = entry.is_object() && entry.contains("name") && entry["name"].is_string()
                  ? entry["name"].get<std::string>()
                  : key;
  auto [node, index] = splitTensorName(info.name);
  info.name = index == 0 ? node : node + ":" + std::to_string(index);
  if (entry.is_object() && entry.contains("dtype")) {
    try {
      info.dtype = graph::dtypeFromTf(entry["dtype"], "signature entry '" + key + "'");
    } catch (const Error&) {
      info.dtype = DType::float32;
    }
  }
  if (entry.is_object() && entry.contains("tensorShape") && entry["tensorShape"].is_object()) {
    const Json& ts = entry["tensorShape"];
    if (!(ts.contains("unknownRank") && ts["unknownRank"].is_boolean() &&
          ts["unknownRank"].get<bool>())) {
      info.rankKnown = true;
      if (ts.contains("dim") && ts["dim"].is_array())
        for (const Json& d : ts["dim"]) {
          int64_t size = -1;
          if (d.is_object() && d.contains("size")) {
            const Json& s = d["size"];
            size = s.is_string()   ? std::strtoll(s.get<std::string>().c_str(), nullptr, 10)
                   : s.is_number() ? s.get<int64_t>()
                                   : -1;
          }
          info.shape.push_back(size < 0 ? -1 : size);
        }
    }
  }
  return info;
}

}  // namespace

struct GraphModel::Impl {
  std::string source;
  std::vector<Node> nodes;
  std::unordered_map<std::string, int> index;
  std::vector<int> order;        // every node, topologically sorted
  std::vector<Value> constants;  // per node; defined for Const nodes
  std::vector<GraphTensorInfo> inputs, outputs;
  std::vector<TensorRef> inputRefs, outputRefs;
  Config metadata;
  bool controlFlow = false;  // any Enter/Exit/Merge/Switch/NextIteration/LoopCond
  bool disposed = false;
  std::vector<std::vector<int>> consumers;  // per node, through data inputs
  // The GraphDef's library functions (control flow v2 bodies), owned by the
  // model; `functions` points at the model's table from the model and from
  // every function in it (functions may call each other), so no function
  // owns another and nothing outlives the model.
  using Library = std::map<std::string, std::shared_ptr<Impl>>;
  std::unique_ptr<Library> library = std::make_unique<Library>();
  const Library* functions = library.get();

  graph::GraphView view() const {
    return {nodes, constants, source, [this](const std::string& name, std::vector<Value> args) {
              return call(name, std::move(args));
            }};
  }

  // A run of library function `name` on `args` (one per input_arg).
  std::unique_ptr<graph::Run> call(const std::string& name, std::vector<Value> args) const {
    auto it = functions->find(name);
    check(it != functions->end(), kOp, source, ": function '", quoteForError(name),
          "' is not in the graph's library");
    const Impl& f = *it->second;
    check(args.size() == f.inputRefs.size(), kOp, source, ": function '", quoteForError(name),
          "' takes ", f.inputRefs.size(), " arguments, got ", args.size());
    std::vector<Value> fed(f.nodes.size());
    for (size_t i = 0; i < args.size(); ++i) fed[f.inputRefs[i].node] = std::move(args[i]);
    std::vector<std::string> names;
    for (const GraphTensorInfo& o : f.outputs) names.push_back(o.name);
    return f.startValues(std::move(fed), f.outputRefs, names);
  }

  [[noreturn]] void failAt(const Node& n, const std::string& message) const {
    fail(kOp, source, ": node '", quoteForError(n.name), "' (", quoteForError(n.op),
         "): ", message);
  }

  TensorRef resolve(const std::string& name, const std::string& what) const {
    auto [node, output] = splitTensorName(name);
    auto it = index.find(node);
    check(it != index.end() && output >= 0, kOp, source, ": ", what, " '", quoteForError(name),
          "' names no node of the graph");
    return {it->second, output};
  }

  void checkFed(const GraphTensorInfo* info, const std::string& name, const Tensor& t) const {
    check(t.defined() && !t.isDisposed(), kOp, source, ": input '", quoteForError(name),
          "' is undefined or disposed");
    if (!info) return;
    check(t.dtype() == info->dtype, kOp, source, ": input '", quoteForError(name), "' must be ",
          dtypeName(info->dtype), ", got ", dtypeName(t.dtype()), " of shape ",
          shapeToString(t.shape()));
    if (!info->rankKnown) return;
    bool ok = t.rank() == static_cast<int>(info->shape.size());
    for (size_t d = 0; ok && d < info->shape.size(); ++d)
      ok = info->shape[d] < 0 || info->shape[d] == t.shape()[d];
    check(ok, kOp, source, ": input '", quoteForError(name), "' must have shape ",
          shapeToString(info->shape), " (-1: any size), got ", shapeToString(t.shape()));
  }

  // A run of the graph from tensors fed by name to the named outputs.
  std::unique_ptr<graph::Run> start(const std::vector<std::pair<std::string, Tensor>>& feeds,
                                    const std::vector<std::string>& outputNames) const {
    check(!disposed, kOp, source, ": the model was disposed");
    std::vector<Value> fed(nodes.size());
    for (const auto& [name, t] : feeds) {
      TensorRef r = resolve(name, "input");
      check(r.output == 0, kOp, source, ": input '", quoteForError(name),
            "': only output 0 of a node can be fed");
      // Declared inputs are checked against their signature or Placeholder;
      // an intermediate node may be fed anything (TF.js's rule).
      std::optional<GraphTensorInfo> info;
      for (size_t i = 0; i < inputRefs.size(); ++i)
        if (inputRefs[i].node == r.node) info = inputs[i];
      if (!info && nodes[r.node].op == "Placeholder") info = placeholderInfo(nodes[r.node]);
      checkFed(info ? &*info : nullptr, name, t);
      check(!fed[r.node].defined(), kOp, source, ": input '", quoteForError(name),
            "' is fed twice");
      fed[r.node] = Value(t);
    }
    std::vector<TensorRef> wanted;
    for (const std::string& name : outputNames) wanted.push_back(resolve(name, "output"));
    return startValues(std::move(fed), wanted, outputNames);
  }

  std::vector<Tensor> run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                          const std::vector<std::string>& outputNames) const {
    std::unique_ptr<graph::Run> r = start(feeds, outputNames);
    r->resume();  // a read that must wait fails here: HostReadPending is an Error
    return tensorsOf(r->results(), outputNames);
  }

  std::vector<Tensor> tensorsOf(const std::vector<Value>& values,
                                const std::vector<std::string>& names) const {
    std::vector<Tensor> out;
    for (const Value& v : values) out.push_back(tensorOf(v, names[out.size()]));
    return out;
  }

  // `fed`: a value per node, defined for the fed ones.
  std::unique_ptr<graph::Run> startValues(std::vector<Value> fed,
                                          const std::vector<TensorRef>& wanted,
                                          const std::vector<std::string>& outputNames) const;

  Tensor tensorOf(const Value& v, const std::string& name) const {
    check(!v.isList() && !v.isArray(), kOp, source, ": output '", quoteForError(name), "' is a ",
          v.isList() ? "TensorList" : "TensorArray handle",
          "; ask for a tensor made from it (TensorListStack, TensorArrayGatherV3, ...)");
    return v.tensor();
  }

  static GraphTensorInfo placeholderInfo(const Node& n) {
    GraphTensorInfo info;
    info.name = n.name;
    const Json& attr = n.attr;
    if (attr.contains("dtype") && attr["dtype"].is_object() && attr["dtype"].contains("type")) {
      try {
        info.dtype = graph::dtypeFromTf(attr["dtype"]["type"], "dtype");
      } catch (const Error&) {
      }
    }
    if (attr.contains("shape") && attr["shape"].is_object() && attr["shape"].contains("shape")) {
      Json s = attr["shape"]["shape"];
      GraphTensorInfo parsed = infoFromSignature(n.name, Json{{"tensorShape", s}});
      info.shape = parsed.shape;
      info.rankKnown = parsed.rankKnown;
    }
    return info;
  }
};

namespace {

// The executor of graphs without TF 1 control flow: the nodes the outputs
// need, in topological order, each value freed after its last consumer. A
// node that waits for a read stays next (`at_`), with its function call when
// it has one.
class StaticRun : public graph::Run {
 public:
  StaticRun(const GraphModel::Impl& m, std::vector<Value> fed, const std::vector<TensorRef>& wanted,
            const std::vector<std::string>& names)
      : m_(m), view_(m.view()), fed_(std::move(fed)), wanted_(wanted), names_(names) {
    const std::vector<Node>& nodes = m.nodes;
    // The nodes the outputs need, stopping at fed ones; and how often each
    // value is used.
    std::vector<char> needed(nodes.size(), 0);
    std::vector<int> stack;
    for (const TensorRef& r : wanted) stack.push_back(r.node);
    while (!stack.empty()) {
      int n = stack.back();
      stack.pop_back();
      if (needed[n]) continue;
      needed[n] = 1;
      if (fed_[n].defined()) continue;
      for (const auto& [in, k] : nodes[n].inputs) stack.push_back(in);
      for (int c : nodes[n].controls) stack.push_back(c);
    }
    uses_.assign(nodes.size(), 0);
    for (int n : m.order)
      if (needed[n]) {
        steps_.push_back(n);
        if (!fed_[n].defined())
          for (const auto& [in, k] : nodes[n].inputs) ++uses_[in];
      }
    for (const TensorRef& r : wanted) ++uses_[r.node];
    values_.resize(nodes.size());
  }

  void resume() override {
    const std::vector<Node>& nodes = m_.nodes;
    for (; at_ < steps_.size(); ++at_) {
      int n = steps_[at_];
      const Node& node = nodes[n];
      if (fed_[n].defined()) {
        values_[n] = {fed_[n]};
      } else if (node.op == "Placeholder" || node.op == "PlaceholderWithDefault") {
        if (node.op == "PlaceholderWithDefault" && !node.inputs.empty()) {
          values_[n] = {values_[node.inputs[0].first].at(0)};
        } else {
          fail(kOp, m_.source, ": input '", quoteForError(node.name), "' was not given a value");
        }
      } else if (node.op == "Const") {
        values_[n] = {m_.constants[n]};
      } else {
        std::vector<Value> args;
        for (size_t i = 0; i < node.inputs.size(); ++i) {
          const auto& [in, k] = node.inputs[i];
          const std::vector<Value>& produced = values_[in];
          if (k >= static_cast<int>(produced.size()) || !produced[k].defined())
            m_.failAt(node, "input " + std::to_string(i) + " ('" +
                                quoteForError(node.inputNames[i]) + "') names output " +
                                std::to_string(k) + " of node '" + quoteForError(nodes[in].name) +
                                "', which has " + std::to_string(produced.size()) + " outputs");
          args.push_back(produced[k]);
        }
        // Only after this returns is the node done (a HostReadPending leaves `at_` here).
        values_[n] = graph::runNode(view_, node, args, call_);
      }
      for (const auto& [in, k] : node.inputs)
        if (--uses_[in] == 0) values_[in].clear();
    }
    out_.clear();
    for (size_t i = 0; i < wanted_.size(); ++i) {
      const TensorRef& r = wanted_[i];
      const std::vector<Value>& produced = values_[r.node];
      check(r.output < static_cast<int>(produced.size()) && produced[r.output].defined(), kOp,
            m_.source, ": output '", quoteForError(names_[i]), "': node '",
            quoteForError(nodes[r.node].name), "' has ", produced.size(), " outputs");
      out_.push_back(produced[r.output]);
    }
  }
  std::vector<Value> results() const override { return out_; }

 private:
  const GraphModel::Impl& m_;
  graph::GraphView view_;
  std::vector<Value> fed_;
  std::vector<TensorRef> wanted_;
  std::vector<std::string> names_;
  std::vector<int> steps_{};  // the needed nodes in order
  std::vector<int> uses_{};
  std::vector<std::vector<Value>> values_{};
  size_t at_ = 0;
  std::unique_ptr<graph::Run> call_{};
  std::vector<Value> out_{};
};

}  // namespace

std::unique_ptr<graph::Run> GraphModel::Impl::startValues(
    std::vector<Value> fed, const std::vector<TensorRef>& wanted,
    const std::vector<std::string>& outputNames) const {
  if (controlFlow) {
    std::vector<std::pair<int, int>> refs;
    for (const TensorRef& r : wanted) refs.emplace_back(r.node, r.output);
    return graph::startDynamic(view(), std::move(fed), refs, outputNames);
  }
  return std::make_unique<StaticRun>(*this, std::move(fed), wanted, outputNames);
}

// The nodes of a GraphDef (or of a library function's body): parsed,
// their inputs resolved, checked for cycles, and their Const weights decoded
// from the manifest (TF.js's converter writes function constants there too).
void loadNodes(GraphModel::Impl& m, const Json& nodes, const io::ModelArtifacts& a) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Json& j = nodes[i];
    std::string where = "node[" + std::to_string(i) + "]";
    check(j.is_object() && j.contains("name") && j["name"].is_string() && j.contains("op") &&
              j["op"].is_string(),
          kOp, m.source, ": ", where, " needs string \"name\" and \"op\"");
    Node n;
    n.name = j["name"].get<std::string>();
    n.op = j["op"].get<std::string>();
    if (j.contains("attr") && !j["attr"].is_null()) {
      check(j["attr"].is_object(), kOp, m.source, ": node '", quoteForError(n.name),
            "': \"attr\" must be an object");
      n.attr = j["attr"];
    }
    check(m.index.emplace(n.name, static_cast<int>(i)).second, kOp, m.source, ": node name '",
          quoteForError(n.name), "' appears twice");
    m.nodes.push_back(std::move(n));
  }
  const graph::OpTable& table = graph::opTable();
  for (size_t i = 0; i < nodes.size(); ++i) {
    Node& n = m.nodes[i];
    const Json& j = nodes[i];
    bool known = n.op == "Placeholder" || n.op == "PlaceholderWithDefault" || n.op == "Const" ||
                 table.count(n.op) || graph::isControlFlowOp(n.op) || graph::isFunctionalOp(n.op) ||
                 graph::registeredOp(n.op);
    m.controlFlow = m.controlFlow || graph::isControlFlowOp(n.op);
    if (!known)
      m.failAt(n, "op '" + quoteForError(n.op) + "' is not supported by Glint's graph models (" +
                      "glint::graphModelOps() lists the " + std::to_string(graphModelOps().size()) +
                      " that are; registerGraphOp / tf.registerOp adds one)");
    if (!j.contains("input") || j["input"].is_null()) continue;
    if (!j["input"].is_array()) m.failAt(n, "\"input\" must be an array of names");
    for (const Json& in : j["input"]) {
      if (!in.is_string()) m.failAt(n, "\"input\" holds a non-string");
      std::string name = in.get<std::string>();
      auto [producer, output] = splitTensorName(name);
      auto it = m.index.find(producer);
      if (it == m.index.end())
        m.failAt(n, "input '" + quoteForError(name) + "' names no node of the graph");
      if (output < 0) {  // a control dependency: order only, no value
        n.controls.push_back(it->second);
        continue;
      }
      n.inputs.emplace_back(it->second, output);
      n.inputNames.push_back(name);
    }
  }

  // Kahn's algorithm over data and control inputs, in file order among
  // ready nodes (a control input orders side effects: a TensorArray closed
  // after its last read). A loop's back edge (NextIteration -> Merge) is the
  // one cycle allowed.
  std::vector<int> pending(m.nodes.size(), 0);
  std::vector<std::vector<int>>& consumers = m.consumers;
  consumers.assign(m.nodes.size(), {});
  std::vector<std::vector<int>> after(m.nodes.size());
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    for (const auto& [in, k] : m.nodes[i].inputs) consumers[in].push_back(static_cast<int>(i));
    std::vector<int> before = m.nodes[i].controls;
    for (const auto& [in, k] : m.nodes[i].inputs) before.push_back(in);
    for (int in : before) {
      after[in].push_back(static_cast<int>(i));
      if (m.nodes[in].op != "NextIteration") ++pending[i];
    }
  }
  std::vector<int> ready;
  for (size_t i = m.nodes.size(); i-- > 0;)
    if (pending[i] == 0) ready.push_back(static_cast<int>(i));
  while (!ready.empty()) {
    int n = ready.back();
    ready.pop_back();
    m.order.push_back(n);
    for (int c : after[n])
      if (m.nodes[n].op != "NextIteration" && --pending[c] == 0) ready.push_back(c);
  }
  if (m.order.size() != m.nodes.size()) {
    std::string cycle;
    for (size_t i = 0, shown = 0; i < m.nodes.size() && shown < 5; ++i)
      if (pending[i] > 0) {
        cycle += (shown++ ? ", '" : "'") + quoteForError(m.nodes[i].name) + "'";
      }
    fail(kOp, m.source, ": the graph has a cycle through nodes ", cycle,
         " (a loop must go through NextIteration into Merge)");
  }

  // Weights: Const nodes take the manifest entry of their name.
  std::unordered_map<std::string, size_t> specIndex;
  std::vector<size_t> offsets;
  size_t at = 0;
  for (size_t i = 0; i < a.weightSpecs.size(); ++i) {
    specIndex[a.weightSpecs[i].name] = i;
    offsets.push_back(at);
    at += static_cast<size_t>(io::weightByteLength(a.weightSpecs[i], m.source));
  }
  check(at == a.weightData.size(), kOp, m.source, ": the manifest describes ", at,
        " bytes of weights but the shards hold ", a.weightData.size());
  m.constants.resize(m.nodes.size());
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    const Node& n = m.nodes[i];
    if (n.op != "Const") continue;
    auto it = specIndex.find(n.name);
    if (it == specIndex.end()) m.failAt(n, "has no weight of that name in the weights manifest");
    const io::WeightSpec& s = a.weightSpecs[it->second];
    const uint8_t* p = a.weightData.data() + offsets[it->second];
    if (shapeSize(s.shape) <= graph::kMaxHostElements) {
      m.constants[i] = Value(decodeHost(s, p));
      m.constants[i].tensor();  // its device copy, made once, shared by every run
    } else {
      size_t bytes = static_cast<size_t>(io::weightByteLength(s, m.source));
      std::vector<uint8_t> slice(p, p + bytes);
      m.constants[i] = Value(io::decodeWeights(slice, {s}, m.source).at(0).second);
    }
  }
}

// Which output of `op` a function body's "node:arg:index" names: TF's
// multi-output ops number their output args in order; every other op has
// one output arg.
int flatOutput(const std::string& op, const std::string& arg, int index) {
  static const std::map<std::string, std::vector<std::string>> args{
      {"Switch", {"output_false", "output_true"}},
      {"Merge", {"output", "value_index"}},
      {"TopKV2", {"values", "indices"}},
      {"NonMaxSuppressionV4", {"selected_indices", "valid_outputs"}},
      {"NonMaxSuppressionV5", {"selected_indices", "selected_scores", "valid_outputs"}},
      {"TensorListPopBack", {"output_handle", "tensor"}},
      {"TensorListConcat", {"tensor", "lengths"}},
      {"TensorListConcatV2", {"tensor", "lengths"}},
      {"FusedBatchNorm",
       {"y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"}},
      {"FusedBatchNormV3",
       {"y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2",
        "reserve_space_3"}},
  };
  auto it = args.find(op);
  if (it == args.end()) return index;
  for (size_t i = 0; i < it->second.size(); ++i)
    if (it->second[i] == arg) return static_cast<int>(i) + index;
  return index;
}

const Json& field(const Json& j, const char* camel, const char* snake) {
  static const Json none;
  if (j.contains(camel)) return j[camel];
  if (j.contains(snake)) return j[snake];
  return none;
}

// The GraphDef's library.function list: each function becomes a graph of
// its own whose inputs are its input_args (as Placeholders) and whose
// outputs are its ret entries.
void loadLibrary(GraphModel::Impl& m, const Json& topology, const io::ModelArtifacts& a) {
  if (!topology.contains("library") || !topology["library"].is_object()) return;
  const Json& list = topology["library"].value("function", Json::array());
  check(list.is_array(), kOp, m.source, ": library.function must be an array");
  for (const Json& f : list) {
    const Json& sig = f.value("signature", Json::object());
    check(sig.is_object() && sig.contains("name") && sig["name"].is_string(), kOp, m.source,
          ": a library function needs signature.name");
    std::string name = sig["name"].get<std::string>();
    auto impl = std::make_shared<GraphModel::Impl>();
    GraphModel::Impl& fn = *impl;
    fn.source = m.source + ", function '" + quoteForError(name) + "'";
    fn.library.reset();
    fn.functions = m.library.get();
    Json nodes = Json::array();
    const Json& inputArgs = field(sig, "inputArg", "input_arg");
    const Json& outputArgs = field(sig, "outputArg", "output_arg");
    const Json& body = field(f, "nodeDef", "node_def");
    if (inputArgs.is_array())
      for (const Json& arg : inputArgs)
        nodes.push_back({{"name", arg.value("name", "")},
                         {"op", "Placeholder"},
                         {"attr", {{"dtype", {{"type", arg.value("type", Json("DT_FLOAT"))}}}}}});
    std::map<std::string, std::string> ops;
    if (body.is_array())
      for (const Json& n : body)
        if (n.is_object() && n.contains("name") && n["name"].is_string() && n.contains("op") &&
            n["op"].is_string())
          ops[n["name"].get<std::string>()] = n["op"].get<std::string>();
    // "node:arg:index" -> "node:flat index".
    auto rewrite = [&](std::string in) {
      size_t last = in.rfind(':');
      size_t first = in.find(':');
      if (first == std::string::npos || first == last) return in;
      std::string node = in.substr(0, first);
      bool control = !node.empty() && node[0] == '^';
      std::string bare = control ? node.substr(1) : node;
      int index = std::atoi(in.substr(last + 1).c_str());
      auto op = ops.find(bare);
      return node + ":" +
             std::to_string(flatOutput(op == ops.end() ? "" : op->second,
                                       in.substr(first + 1, last - first - 1), index));
    };
    if (body.is_array())
      for (Json n : body) {
        if (n.is_object() && n.contains("input") && n["input"].is_array())
          for (Json& in : n["input"])
            if (in.is_string()) in = rewrite(in.get<std::string>());
        nodes.push_back(n);
      }
    loadNodes(fn, nodes, a);
    if (inputArgs.is_array())
      for (size_t i = 0; i < inputArgs.size(); ++i) {
        fn.inputRefs.push_back({static_cast<int>(i), 0});
        fn.inputs.push_back(GraphModel::Impl::placeholderInfo(fn.nodes[i]));
      }
    const Json& ret = f.value("ret", Json::object());
    if (outputArgs.is_array())
      for (const Json& arg : outputArgs) {
        std::string argName = arg.value("name", "");
        check(ret.is_object() && ret.contains(argName) && ret[argName].is_string(), kOp, fn.source,
              ": output_arg '", quoteForError(argName), "' has no ret entry");
        fn.outputRefs.push_back(
            fn.resolve(rewrite(ret[argName].get<std::string>()), "ret of '" + argName + "'"));
        GraphTensorInfo info;
        info.name = argName;
        fn.outputs.push_back(info);
      }
    check(m.library->emplace(name, impl).second, kOp, m.source, ": function '", quoteForError(name),
          "' is defined twice");
  }
}

void checkCalls(const GraphModel::Impl& m) {
  for (const Node& n : m.nodes)
    if (graph::isFunctionalOp(n.op)) {
      std::vector<std::string> names;
      try {
        names = graph::calledFunctions(n);
      } catch (const Error& e) {
        m.failAt(n, e.what());
      }
      for (const std::string& f : names)
        if (!m.functions->count(f))
          m.failAt(n, "calls function '" + quoteForError(f) + "', which the graph's library lacks");
    }
}

GraphModel GraphModel::load(const std::string& url, const io::LoadOptions& options) {
  io::ModelArtifacts a = io::loadArtifacts(url, options);
  return fromArtifacts(a, options, url);
}

GraphModel GraphModel::fromArtifacts(const io::ModelArtifacts& a, const io::LoadOptions& options,
                                     const std::string& source) {
  auto impl = std::make_shared<Impl>();
  Impl& m = *impl;
  m.source = source;
  check(a.format == "graph-model", kOp, source, ": format is '", quoteForError(a.format),
        "'; a graph model has format 'graph-model' (load layers models with glint::io::load)");
  Json topology = a.modelTopology;
  check(topology.is_object() && topology.contains("node") && topology["node"].is_array(), kOp,
        source, ": modelTopology must be a GraphDef with a \"node\" array");
  const Json& nodes = topology["node"];
  check(static_cast<int64_t>(nodes.size()) <= options.maxLayers * 10, kOp, source, ": ",
        nodes.size(), " nodes, more than 10 * LoadOptions.maxLayers (", options.maxLayers * 10,
        ")");
  m.metadata = a.userDefinedMetadata;

  loadNodes(m, nodes, a);
  loadLibrary(m, topology, a);
  checkCalls(m);
  for (const auto& [name, f] : *m.library) checkCalls(*f);

  // Inputs and outputs: the signature's, else Placeholders and sinks.
  // TF.js reads the signature from userDefinedMetadata first (the
  // converter writes it there), then from the top level.
  Json signature = a.signature;
  Json metadata = a.userDefinedMetadata;
  if (metadata.is_object() && metadata.contains("signature") && metadata["signature"].is_object())
    signature = metadata["signature"];
  auto fromSignature = [&](const char* key, std::vector<GraphTensorInfo>& infos,
                           std::vector<TensorRef>& refs) {
    if (!signature.is_object() || !signature.contains(key) || !signature[key].is_object()) return;
    for (const auto& [k, entry] : signature[key].items()) {
      GraphTensorInfo info = infoFromSignature(k, entry);
      auto [node, output] = splitTensorName(info.name);
      auto it = m.index.find(node);
      if (it == m.index.end()) continue;  // as TF.js: entries naming no node are skipped
      // TF.js takes an input's shape from its Placeholder, not the
      // signature (converted models often pin the signature's batch or
      // image size where the graph takes any).
      const Node& n = m.nodes[it->second];
      if (std::string(key) == "inputs" && n.op == "Placeholder" && n.attr.contains("shape")) {
        GraphTensorInfo p = Impl::placeholderInfo(n);
        info.shape = p.shape;
        info.rankKnown = p.rankKnown;
      }
      refs.push_back({it->second, output < 0 ? 0 : output});
      infos.push_back(info);
    }
  };
  fromSignature("inputs", m.inputs, m.inputRefs);
  fromSignature("outputs", m.outputs, m.outputRefs);
  if (m.inputRefs.empty())
    for (size_t i = 0; i < m.nodes.size(); ++i)
      if (m.nodes[i].op.rfind("Placeholder", 0) == 0) {
        m.inputRefs.push_back({static_cast<int>(i), 0});
        m.inputs.push_back(Impl::placeholderInfo(m.nodes[i]));
      }
  if (m.outputRefs.empty())
    for (size_t i = 0; i < m.nodes.size(); ++i)
      if (m.consumers[i].empty()) {
        bool control = false;  // TF.js counts control consumers too
        for (size_t c = 0; c < nodes.size() && !control; ++c)
          if (nodes[c].contains("input") && nodes[c]["input"].is_array())
            for (const Json& in : nodes[c]["input"])
              if (in.is_string() && in.get<std::string>() == "^" + m.nodes[i].name) control = true;
        if (control) continue;
        m.outputRefs.push_back({static_cast<int>(i), 0});
        GraphTensorInfo info;
        info.name = m.nodes[i].name;
        NodeContext ctx(m.nodes[i], {});
        try {
          info.dtype =
              ctx.attrType("T", ctx.attrType("dtype", ctx.attrType("DstT", DType::float32)));
        } catch (const Error&) {
        }
        m.outputs.push_back(info);
      }
  return GraphModel(std::move(impl));
}

const std::vector<GraphTensorInfo>& GraphModel::inputs() const { return impl_->inputs; }
const std::vector<GraphTensorInfo>& GraphModel::outputs() const { return impl_->outputs; }
const Config& GraphModel::metadata() const { return impl_->metadata; }
size_t GraphModel::numNodes() const { return impl_->nodes.size(); }

std::vector<Tensor> GraphModel::predict(const std::vector<Tensor>& inputs) const {
  const Impl& m = *impl_;
  check(
      inputs.size() == m.inputs.size(), kOp, m.source, ": predict takes ", m.inputs.size(),
      " input tensors (",
      [&] {
        std::string names;
        for (const GraphTensorInfo& i : m.inputs) names += (names.empty() ? "" : ", ") + i.name;
        return names;
      }(),
      "), got ", inputs.size());
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorRef& r = m.inputRefs[i];
    feeds.emplace_back(m.nodes[r.node].name, inputs[i]);
    m.checkFed(&m.inputs[i], m.inputs[i].name, inputs[i]);
  }
  std::vector<std::string> outs;
  for (const TensorRef& r : m.outputRefs)
    outs.push_back(r.output == 0 ? m.nodes[r.node].name
                                 : m.nodes[r.node].name + ":" + std::to_string(r.output));
  return m.run(feeds, outs);
}

Tensor GraphModel::predict(const Tensor& input) const {
  check(impl_->outputs.size() == 1, kOp, impl_->source,
        ": predict(tensor) needs a model with one output; this one has ", impl_->outputs.size(),
        ": use predict({...})");
  return predict(std::vector<Tensor>{input}).at(0);
}

std::vector<Tensor> GraphModel::execute(const std::vector<std::pair<std::string, Tensor>>& inputs,
                                        const std::vector<std::string>& outputNames) const {
  return impl_->run(inputs, outputNames);
}

struct GraphRun::State {
  std::shared_ptr<const GraphModel::Impl> model;
  std::unique_ptr<graph::Run> run;
  std::vector<std::string> names;
  bool done = false;
  Tensor pending{};
  bool waitingOp = false;
  std::string reason{};
  int64_t stops = 0;
};

GraphRun GraphModel::start(const std::vector<std::pair<std::string, Tensor>>& inputs,
                           const std::vector<std::string>& outputNames) const {
  auto state = std::make_shared<GraphRun::State>();
  state->model = impl_;
  state->run = impl_->start(inputs, outputNames);
  state->names = outputNames;
  return GraphRun(std::move(state));
}

bool GraphRun::resume() {
  State& s = *state_;
  const GraphModel::Impl& m = *s.model;
  check(s.run != nullptr, kOp, m.source, ": the run ended with an error; start another");
  if (s.done) return true;
  // The run holds the model's constants and nodes by reference.
  check(!m.disposed, kOp, m.source, ": the model was disposed while a run waited for a read");
  s.waitingOp = false;
  try {
    s.run->resume();
  } catch (const OpPending& e) {
    // The node runs again on resume, once its op's result is ready.
    s.pending = Tensor();
    s.waitingOp = true;
    s.reason = e.what();
    ++s.stops;
    return false;
  } catch (const HostReadPending& e) {
    // Stopping again at the same tensor would stop forever: its read did not
    // leave the bytes on the host.
    bool again = s.pending.defined() && e.tensor() == s.pending.implPtr();
    if (!e.tensor() || again) {
      s.run.reset();
      if (again)
        fail(kOp, m.source,
             ": resumed, but the values waited for are still not on the host: ", e.what());
      throw;
    }
    s.pending = Tensor(e.tensor());
    s.reason = e.what();
    ++s.stops;
    return false;
  } catch (...) {
    s.run.reset();
    throw;
  }
  s.done = true;
  s.pending = Tensor();
  s.reason.clear();
  return true;
}

const Tensor& GraphRun::pendingRead() const { return state_->pending; }
const std::string& GraphRun::pendingReason() const { return state_->reason; }
bool GraphRun::waitsForOp() const { return state_->waitingOp; }
int64_t GraphRun::numStops() const { return state_->stops; }

std::vector<Tensor> GraphRun::outputs() const {
  const State& s = *state_;
  check(s.done, kOp, s.model->source,
        ": the run has not finished (resume() returns true when it has)");
  return s.model->tensorsOf(s.run->results(), s.names);
}

void GraphModel::dispose() {
  auto free = [](Impl& m) {
    for (Value& v : m.constants)
      if (v.defined()) v.tensor().dispose();
    m.constants.clear();
    m.disposed = true;
  };
  for (auto& [name, f] : *impl_->library) free(*f);
  free(*impl_);
}

bool GraphModel::isDisposed() const { return impl_->disposed; }

std::vector<std::string> graphModelOps() {
  std::vector<std::string> ops{"Const", "Placeholder", "PlaceholderWithDefault"};
  for (const std::string& op : graph::controlFlowOps()) ops.push_back(op);
  for (const std::string& op : graph::functionalOps()) ops.push_back(op);
  for (const auto& [name, fn] : graph::opTable()) ops.push_back(name);
  std::sort(ops.begin(), ops.end());
  return ops;
}

namespace graph {
std::string atNodeMessage(const GraphView& g, const Node& n, const std::string& message) {
  return std::string("[") + kOp + "] " + g.source + ": node '" + quoteForError(n.name) + "' (" +
         quoteForError(n.op) + "): " + message;
}

void failAtNode(const GraphView& g, const Node& n, const std::string& message) {
  throw Error(atNodeMessage(g, n, message));
}

std::vector<Value> runNode(const GraphView& g, const Node& node, const std::vector<Value>& args,
                           std::unique_ptr<Run>& call) {
  return atNode(g, node, [&] {
    if (isFunctionalOp(node.op)) {
      if (!call) call = startFunctionalOp(g, node, args);
      call->resume();
      std::vector<Value> out = call->results();
      call.reset();
      return out;
    }
    NodeContext ctx(node, args);
    if (std::optional<GraphOpFn> custom = registeredOp(node.op))
      return runRegisteredOp(*custom, ctx);
    return opTable().at(node.op)(ctx);
  });
}

const OpTable& opTable() {
  static const OpTable table = [] {
    OpTable t;
    addMathOps(t);
    addNnOps(t);
    addShapeOps(t);
    addImageOps(t);
    addListOps(t);
    addArrayOps(t);
    addLayoutOps(t);
    addNumericOps(t);
    addWindowOps(t);
    addTransformOps(t);
    addSparseOps(t);
    addRaggedOps(t);
    addRandomOps(t);
    return t;
  }();
  return table;
}
}  // namespace graph

}  // namespace glint
