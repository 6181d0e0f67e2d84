#pragma once
// TensorFlow.js graph models (model.json with "format": "graph-model"): a
// TensorFlow GraphDef as JSON plus the usual weights manifest, as the TF.js
// converter writes them for MobileNet, COCO-SSD, BlazeFace, MoveNet and most
// other pretrained models. Each node runs as Glint ops, so a graph model
// runs on every backend and is differentiable.
//
//   GraphModel m = GraphModel::load("models/blazeface");   // or .../model.json
//   Tensor y = m.predict(x);                                 // one input, one output
//   auto outs = m.execute({{"input", x}}, {"conv1/Relu", "Identity:1"});
//
// Shape-valued inputs (Reshape's shape, Pad's paddings, axes, slice bounds,
// resize sizes) are computed on the host from constants and static shapes,
// never read back from a GPU tensor; a node whose shape argument is only
// known on the device is an error naming it. NonMaxSuppression, Where and
// TopKV2 read their inputs back, as TF.js does.
//
// TensorFlow control flow runs too (docs/CPP.md): TF 1 loops and conds
// (Enter/Exit/Merge/Switch/NextIteration/LoopCond) in a dynamic executor by
// frame and iteration, TF 2's While/If/PartitionedCall with the GraphDef's
// library functions, and TensorList / TensorArrayV3 ops as host containers
// of tensors. In a control flow graph a device-computed predicate or shape
// is read back, as TF.js's executeAsync reads it; where the backend cannot
// read at once (WebGPU outside a page), a GraphRun waits for those reads.
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "glint/error.h"
#include "glint/io.h"
#include "glint/tensor.h"

namespace glint {

/// An input or output of a graph model. Unknown dimensions are -1; `shape`
/// is empty with `rankKnown` false when not even the rank is known.
struct GraphTensorInfo {
  std::string name{};  // "node" or "node:1" (output 1 of a multi-output node)
  Shape shape{};
  bool rankKnown = false;
  DType dtype = DType::float32;
};

/// An execution that waits for reads instead of failing. Where a node needs
/// values on the host that the backend can only read asynchronously (WebGPU
/// outside a page: NonMaxSuppression, TopKV2, Where, a loop's predicate, a
/// shape computed on the device), resume() stops, and pendingRead() is the
/// tensor it waits for. Read it asynchronously, leaving its bytes on the host
/// (glint-ml's executeAsync does so), and resume() again: the run goes on from
/// that node; nothing before it runs again. GraphModel::start makes one.
///
///   GraphRun run = model.start({{"input", x}}, {"Identity"});
///   while (!run.resume()) { /* await the read of run.pendingRead() */ }
///   std::vector<Tensor> ys = run.outputs();
/// Thrown by a registered op whose result is not ready yet (a JS op that
/// returned a Promise, TF.js's async ops): a resumable run (GraphRun) stops at
/// its node and runs it again on resume; anywhere else it is the error it
/// derives from.
class OpPending : public Error {
 public:
  using Error::Error;
};

class GraphRun {
 public:
  /// True once every output is computed; false when stopped at a read. Other
  /// errors throw (glint::Error naming the node) and end the run.
  bool resume();
  /// While stopped: the tensor to read, and the read that could not be done
  /// (the message names the node and the op).
  const Tensor& pendingRead() const;
  const std::string& pendingReason() const;
  /// While stopped: true when a registered op waits for its result (OpPending),
  /// not for a read; the run goes on once it is ready.
  bool waitsForOp() const;
  /// How often the run has stopped at a read or an op.
  int64_t numStops() const;
  /// The tensors asked for, once resume() returned true.
  std::vector<Tensor> outputs() const;

  struct State;

 private:
  friend class GraphModel;
  explicit GraphRun(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

class GraphModel {
 public:
  /// tf.loadGraphModel for a folder holding model.json, a .json path or a
  /// file:// URL. Errors name the file (and the node or weight).
  static GraphModel load(const std::string& url, const io::LoadOptions& options = {});
  /// From artifacts already read (format "graph-model"); `source` names them in messages.
  static GraphModel fromArtifacts(const io::ModelArtifacts& artifacts,
                                  const io::LoadOptions& options = {},
                                  const std::string& source = "model.json");

  /// From the signature when the model has one, else the Placeholder nodes
  /// and the nodes nothing consumes (TF.js's rule), in file order.
  const std::vector<GraphTensorInfo>& inputs() const;
  const std::vector<GraphTensorInfo>& outputs() const;

  /// Runs the graph: one tensor per input, in inputs() order; one result per output.
  std::vector<Tensor> predict(const std::vector<Tensor>& inputs) const;
  /// The single-input, single-output case.
  Tensor predict(const Tensor& input) const;
  /// Feeds tensors by name ("node" or "node:0") and returns the named tensors,
  /// intermediate nodes included; only the nodes they need run.
  std::vector<Tensor> execute(const std::vector<std::pair<std::string, Tensor>>& inputs,
                              const std::vector<std::string>& outputNames) const;

  /// As execute, as a run that stops at reads the backend cannot do at once
  /// (TF.js's executeAsync). execute and predict fail there instead.
  GraphRun start(const std::vector<std::pair<std::string, Tensor>>& inputs,
                 const std::vector<std::string>& outputNames) const;

  /// The model.json "userDefinedMetadata" (null when absent).
  const Config& metadata() const;
  /// Node count and the ops the graph uses, for summaries.
  size_t numNodes() const;
  /// Frees the weights now; later calls throw.
  void dispose();
  bool isDisposed() const;

  struct Impl;

 private:
  explicit GraphModel(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

/// The ops a graph model may use, sorted (the table GraphModel runs from).
std::vector<std::string> graphModelOps();

/// A graph-model op written by the user (TF.js's tf.registerOp): the node's
/// inputs and its attributes (a JSON object, name -> value, decoded as TF.js
/// hands them to its custom ops: strings, numbers, booleans, dtype names,
/// shapes as arrays, lists as arrays) in; the node's outputs out.
using GraphOpFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& inputs,
                                                    const std::string& attrsJson)>;
/// Registers op `name` for the graph models loaded from then on; it runs in
/// place of a built-in op of that name, as in TF.js. Constants, inputs and
/// control flow cannot be replaced.
void registerGraphOp(const std::string& name, GraphOpFn fn);
/// Forgets a registered op: later loads and runs use the built-in one, if any.
void deregisterGraphOp(const std::string& name);

}  // namespace glint
