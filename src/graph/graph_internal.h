#pragma once
// Internals of glint::GraphModel: values flowing between nodes, the node
// context an op reads its inputs and attributes from, and the op table.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "glint/error.h"
#include "glint/graph_model.h"
#include "glint/json.h"
#include "glint/tensor.h"

namespace glint::graph {

/// A small value known on the host: constants and static shapes. Shape
/// arithmetic (Shape -> StridedSlice -> Pack -> Reshape) folds here, so a
/// shape argument never needs a read-back from a GPU. Elements are kept as
/// double, which holds every int32 and float32 exactly.
struct HostValue {
  Shape shape{};
  DType dtype = DType::float32;
  std::vector<double> v{};
};

/// Host values up to this many elements stay on the host.
constexpr int64_t kMaxHostElements = 64;

struct TensorList;
struct TensorArray;

/// A node output: on the host (with a device copy made on first use), on
/// the device only, or a TensorList (TF's DT_VARIANT lists, kept on the
/// host as a vector of tensors).
class Value {
 public:
  Value() = default;
  explicit Value(Tensor t) : device_(std::move(t)) {}
  explicit Value(HostValue h);
  explicit Value(std::shared_ptr<const TensorList> list) : list_(std::move(list)) {}
  explicit Value(std::shared_ptr<TensorArray> array) : array_(std::move(array)) {}
  bool defined() const { return host_.has_value() || device_.defined() || list_ || array_; }
  bool isHost() const { return host_.has_value(); }
  bool isList() const { return list_ != nullptr; }
  bool isArray() const { return array_ != nullptr; }
  const HostValue& host() const { return *host_; }
  /// The list; throws unless isList().
  const TensorList& list() const;
  /// The TensorArray (a resource: ops change it in place); throws unless isArray().
  TensorArray& array() const;
  /// The device tensor (created from the host value the first time); throws for a list.
  const Tensor& tensor() const;
  const Shape& shape() const;
  DType dtype() const;

 private:
  std::optional<HostValue> host_{};
  mutable Tensor device_{};
  std::shared_ptr<const TensorList> list_{};
  std::shared_ptr<TensorArray> array_{};
};

/// The element shape of a TensorList: unknown rank, or dims with -1 for
/// unknown sizes (TF's PartialTensorShape).
struct ElementShape {
  bool rankKnown = false;
  Shape dims{};
};

/// TF's TensorList, immutable as in TensorFlow (SetItem makes a new list
/// sharing the other elements' tensors). An undefined item is a slot that
/// TensorListReserve made and nothing has set yet.
struct TensorList {
  std::vector<Tensor> items{};
  ElementShape elementShape{};
  DType dtype = DType::float32;
  int64_t maxElements = -1;  // EmptyTensorList's bound; -1: none
};

/// TF 1's TensorArray (TensorArrayV3 and friends): a resource that writes
/// change in place; the "flow" values between its ops only order them.
struct TensorArray {
  struct Slot {
    Tensor value{};
    bool written = false, read = false;
  };
  std::string name{};
  DType dtype = DType::float32;
  ElementShape elementShape{};
  bool dynamicSize = false, clearAfterRead = true, identicalShapes = false, closed = false;
  std::vector<Slot> slots{};
};

/// A host value from a device tensor's shape and values (used only where the
/// values are already on the host, such as decoded weights).
HostValue hostScalar(double value, DType dtype);
/// Rounds to the dtype's values (float32 rounding; int32 wrap-free truncation).
double roundToDType(double v, DType dtype);

struct Node {
  std::string name, op;
  /// (producer node, output index) per data input; control inputs ("^x") dropped.
  std::vector<std::pair<int, int>> inputs{};
  std::vector<std::string> inputNames{};
  /// Control inputs ("^x"): they only order nodes, but the control flow
  /// executor also runs a node in the frame and liveness of these.
  std::vector<int> controls{};
  Json attr = Json::object();
};

/// "DT_FLOAT" (or its enum number) -> dtype; int64 and smaller ints map to
/// int32 as in TF.js. Unknown types throw naming `what`.
DType dtypeFromTf(const Json& type, const std::string& what);

/// What an op sees: its node, its input values and the node's attributes.
/// Errors thrown here (and by the Glint ops it calls) are prefixed with the
/// node, its op and the file by the executor.
class NodeContext {
 public:
  NodeContext(const Node& node, std::vector<Value> inputs) : node_(node), in_(std::move(inputs)) {}
  const Node& node() const { return node_; }
  size_t numInputs() const { return in_.size(); }
  /// Throws unless the node has at least `n` inputs.
  void needInputs(size_t n) const;
  const Value& value(size_t i) const;
  Tensor in(size_t i) const { return value(i).tensor(); }
  bool allHost() const;
  /// A shape-valued input: folded on the host from constants and static
  /// shapes, or else read back from the device, as TF.js reads a
  /// data-dependent shape (Range's limit after NonMaxSuppression; converted
  /// ONNX models compute Reshape's shape on the device). `what` names it.
  const HostValue& host(size_t i, const std::string& what) const;
  std::vector<int64_t> ints(size_t i, const std::string& what) const;
  int64_t intScalar(size_t i, const std::string& what) const;
  double scalar(size_t i, const std::string& what) const;

  bool has(const std::string& attr) const;
  int64_t attrInt(const std::string& name, int64_t def) const;
  double attrFloat(const std::string& name, double def) const;
  bool attrBool(const std::string& name, bool def) const;
  /// A string attribute (base64 in the JSON), decoded, as written.
  std::string attrString(const std::string& name, const std::string& def) const;
  /// A keyword attribute (padding, data_format, mode), upper-cased: TF.js
  /// reads these in any case, so converted files write them either way.
  std::string attrWord(const std::string& name, const std::string& def) const;
  std::vector<int64_t> attrInts(const std::string& name) const;
  std::vector<std::string> attrStrings(const std::string& name) const;
  DType attrType(const std::string& name, DType def) const;

 private:
  const Json* attr(const std::string& name) const;
  const Node& node_;
  std::vector<Value> in_;
  mutable std::vector<std::optional<HostValue>> read_{};
};

/// Throws a glint::Error; the executor adds the node, op and file.
template <class... Parts>
[[noreturn]] void opFail(const Parts&... parts) {
  std::ostringstream os;
  detail::appendAll(os, parts...);
  throw Error(os.str());
}
template <class... Parts>
void opCheck(bool condition, const Parts&... parts) {
  if (!condition) opFail(parts...);
}

using OpFn = std::function<std::vector<Value>(NodeContext&)>;
using OpTable = std::map<std::string, OpFn>;

void addMathOps(OpTable& table);
void addNnOps(OpTable& table);
void addShapeOps(OpTable& table);
void addImageOps(OpTable& table);
void addListOps(OpTable& table);
void addLayoutOps(OpTable& table);
void addNumericOps(OpTable& table);
void addWindowOps(OpTable& table);
void addTransformOps(OpTable& table);
void addSparseOps(OpTable& table);
void addRaggedOps(OpTable& table);
void addRandomOps(OpTable& table);
/// Every element of input i on the host (read back from the device if need
/// be), for ops whose output shape or checks depend on values, as TF.js's
/// kernels download them.
HostValue readValues(const NodeContext& ctx, size_t i);
/// A device tensor's shape and values, read back.
HostValue hostCopy(const Tensor& t);
// Shared by the TensorList and TensorArray ops.
/// An int32 input: from the host, else read back (as TF.js reads indices).
std::vector<int64_t> readInts(const NodeContext& ctx, size_t i, const std::string& what);
int64_t readInt(const NodeContext& ctx, size_t i, const std::string& what);
ElementShape attrElementShape(const NodeContext& ctx, const std::string& attr = "element_shape");
ElementShape mergeShapes(const ElementShape& a, const ElementShape& b);
void checkShape(const ElementShape& want, const Shape& got, const std::string& what);
std::string elementShapeString(const ElementShape& s);
void addArrayOps(OpTable& table);
/// The table, built once.
const OpTable& opTable();
/// The op registered under `op` (registerGraphOp), if any: it runs before the table's.
std::optional<GraphOpFn> registeredOp(const std::string& op);
std::vector<Value> runRegisteredOp(const GraphOpFn& fn, NodeContext& ctx);
/// A node's attributes as TF.js gives them to registered ops (graph_node.cpp).
Json decodedAttrs(const Node& node);

/// x > 0 ? x : alpha * x (TF.js prelu), composed from Glint ops.
Tensor prelu(const Tensor& x, const Tensor& alpha);

/// One result, on the device.
inline std::vector<Value> one(Tensor t) { return {Value(std::move(t))}; }
inline std::vector<Value> one(HostValue h) { return {Value(std::move(h))}; }
/// Host values that fit kMaxHostElements stay host; larger become tensors.
Value fromHost(HostValue h);

}  // namespace glint::graph

namespace glint::graph {

/// The ops the control flow executor runs itself (frames, iterations and
/// dead branches are its state, not an op's): Enter, Exit, Merge, Switch,
/// NextIteration, LoopCond.
bool isControlFlowOp(const std::string& op);
const std::vector<std::string>& controlFlowOps();

/// An execution that can stop at a read the backend can only do
/// asynchronously and go on from there: resume() throws HostReadPending with
/// its state kept and the node that threw not consumed, and the next resume()
/// runs that node again (nodes are pure: their outputs are new tensors, and
/// the TensorArray ops read their indices before they change the array).
/// After any other error the run is over.
class Run {
 public:
  virtual ~Run() = default;
  /// Runs to the end, or throws.
  virtual void resume() = 0;
  /// The wanted values, once resume() returned.
  virtual std::vector<Value> results() const = 0;
};

/// What both executors need of a loaded model (which outlives its runs).
struct GraphView {
  const std::vector<Node>& nodes;
  const std::vector<Value>& constants;  // per node; defined for Const nodes
  const std::string& source;
  /// A run of a function of the GraphDef's library (While, If, PartitionedCall).
  std::function<std::unique_ptr<Run>(const std::string&, std::vector<Value>)> start;
};

/// Runs `call` (started from `name` and `args` the first time) to the end.
/// A HostReadPending leaves it in `call`, to go on at the next attempt.
std::vector<Value> finishCall(const GraphView& g, std::unique_ptr<Run>& call,
                              const std::string& name, const std::vector<Value>& args);

/// Ops that call library functions: While/StatelessWhile, If/StatelessIf,
/// PartitionedCall/StatefulPartitionedCall.
bool isFunctionalOp(const std::string& op);
const std::vector<std::string>& functionalOps();
/// The library functions a functional node calls (its func attributes).
std::vector<std::string> calledFunctions(const Node& node);
/// The run of a functional node's call(s); a While keeps its loop variables
/// and where it is (cond or body) across HostReadPending.
std::unique_ptr<Run> startFunctionalOp(const GraphView& g, const Node& node,
                                       std::vector<Value> args);

/// Runs one node with the executor's error prefix (node, op, file); a
/// functional node's call lives in `call` while it waits for a read.
std::vector<Value> runNode(const GraphView& g, const Node& node, const std::vector<Value>& args,
                           std::unique_ptr<Run>& call);
/// "[GraphModel] file: node 'name' (Op): message".
std::string atNodeMessage(const GraphView& g, const Node& node, const std::string& message);
[[noreturn]] void failAtNode(const GraphView& g, const Node& node, const std::string& message);
/// Runs fn; errors get the node's prefix (a HostReadPending stays one).
template <class F>
auto atNode(const GraphView& g, const Node& node, F&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const DeviceLostError&) {
    throw;
  } catch (const HostReadPending& e) {
    throw HostReadPending(atNodeMessage(g, node, e.what()), e.tensor());
  } catch (const OpPending& e) {
    throw OpPending(atNodeMessage(g, node, e.what()));
  } catch (const Error& e) {
    failAtNode(g, node, e.what());
  }
}

/// The control flow executor (TF's v1 while loops and conds): runs nodes as
/// their inputs arrive, per frame and iteration; `fed` holds the fed values
/// per node. Its results are the wanted (node, output) values.
std::unique_ptr<Run> startDynamic(const GraphView& g, std::vector<Value> fed,
                                  const std::vector<std::pair<int, int>>& wanted,
                                  const std::vector<std::string>& wantedNames);

}  // namespace glint::graph
