#pragma once
// Internals of glint::GraphModel: values flowing between nodes, the node
// context an op reads its inputs and attributes from, and the op table.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "glint/error.h"
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

/// A node output: on the host (with a device copy made on first use), or
/// on the device only.
class Value {
 public:
  Value() = default;
  explicit Value(Tensor t) : device_(std::move(t)) {}
  explicit Value(HostValue h);
  bool defined() const { return host_.has_value() || device_.defined(); }
  bool isHost() const { return host_.has_value(); }
  const HostValue& host() const { return *host_; }
  /// The device tensor (created from the host value the first time).
  const Tensor& tensor() const;
  const Shape& shape() const;
  DType dtype() const;

 private:
  std::optional<HostValue> host_{};
  mutable Tensor device_{};
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
  /// A shape-valued input: must be known on the host (`what` names it).
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
  std::vector<int64_t> attrInts(const std::string& name) const;
  std::vector<std::string> attrStrings(const std::string& name) const;
  DType attrType(const std::string& name, DType def) const;

 private:
  const Json* attr(const std::string& name) const;
  const Node& node_;
  std::vector<Value> in_;
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
/// The table, built once.
const OpTable& opTable();

/// x > 0 ? x : alpha * x (TF.js prelu), composed from Glint ops.
Tensor prelu(const Tensor& x, const Tensor& alpha);

/// One result, on the device.
inline std::vector<Value> one(Tensor t) { return {Value(std::move(t))}; }
inline std::vector<Value> one(HostValue h) { return {Value(std::move(h))}; }
/// Host values that fit kMaxHostElements stay host; larger become tensors.
Value fromHost(HostValue h);

}  // namespace glint::graph
