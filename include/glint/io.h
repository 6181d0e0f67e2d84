#pragma once
// Saving and loading models in the TensorFlow.js layers-model format:
// model.json (Keras topology + weights manifest) and binary weight shards,
// so TF.js 4.x loads what Glint saves and the reverse.
//
//   io::save(*model, "out/mnist");                 // out/mnist/model.json + shards
//   ModelPtr m = io::load("file://out/mnist");     // or ".../model.json"
//   io::loadWeights(*other, "out/mnist");          // same architecture, or a clear error
//
// Layered so other storage (browser IndexedDB, http) reuses the encoding:
//   tensors <-> (WeightSpec list, bytes)           encodeWeights / decodeWeights
//   Model   <-> ModelArtifacts                     modelToArtifacts / modelFromArtifacts
//   ModelArtifacts <-> model.json + shard bytes    modelJsonFromArtifacts / artifactsFromModelJson
//   ModelArtifacts <-> a directory                 saveArtifacts / loadArtifacts (atomic save)
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "glint/config.h"
#include "glint/error.h"
#include "glint/json_fwd.h"
#include "glint/tensor.h"

namespace glint {

class Model;
using ModelPtr = std::shared_ptr<Model>;

namespace io {

/// How a weight's values are stored (TF.js's "quantization" manifest entry).
/// uint8/uint16: value = q * scale + min; float16: IEEE half.
struct Quantization {
  std::string dtype{};  // "uint8", "uint16" or "float16"
  double min = 0, scale = 1;
};

/// One weight in the manifest: {"name", "shape", "dtype", "group"?, "quantization"?}.
struct WeightSpec {
  std::string name{};
  Shape shape{};
  DType dtype = DType::float32;
  std::string group{};  // "" (model weights) or "optimizer"
  std::optional<Quantization> quantization{};
};

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

/// "float16" or "uint8" weight quantization on save (float32 weights only;
/// int32/bool weights and optimizer state are always stored exactly).
enum class Quantize { none, float16, uint8 };

/// Concatenates the tensors' bytes (little-endian, TF.js layout) and describes
/// each; `group` is written into every spec ("optimizer" for optimizer state).
std::pair<std::vector<WeightSpec>, std::vector<uint8_t>> encodeWeights(
    const NamedTensors& tensors, const std::string& group = "", Quantize quantize = Quantize::none);
/// Bytes one weight occupies in the data; throws if the spec is invalid or
/// its size overflows. `source` names the file in messages.
int64_t weightByteLength(const WeightSpec& spec, const std::string& source = "weights");
/// The inverse of encodeWeights (dequantizing). Throws glint::Error naming
/// `source` when the data is shorter or longer than the specs describe.
NamedTensors decodeWeights(const std::vector<uint8_t>& data, const std::vector<WeightSpec>& specs,
                           const std::string& source = "weights");

/// Everything a saved model holds, independent of where it is stored.
struct ModelArtifacts {
  Config modelTopology{};               // {"class_name", "config", "keras_version", "backend"}
  std::string format = "layers-model";  // or "graph-model" (glint::GraphModel)
  std::string generatedBy{};
  Config convertedBy = nullptr;
  Config trainingConfig{};       // null unless saved with the optimizer
  Config userDefinedMetadata{};  // null or an object; Glint's own under "glint"
  Config signature{};            // graph models: null or {inputs, outputs}
  std::vector<WeightSpec> weightSpecs{};
  std::vector<uint8_t> weightData{};  // all weights, concatenated in spec order
};

/// Resource limits checked before anything is allocated: a hostile or corrupt
/// file gets a glint::Error naming the limit, never an unbounded allocation.
struct LoadOptions {
  int64_t maxModelJsonBytes = 64ll << 20;
  /// Nesting of arrays/objects in model.json (Keras configs need ~10).
  int64_t maxJsonDepth = 128;
  /// JSON values in model.json (array elements and object members), counted
  /// before parsing: 64 MiB of "1,1,1,..." is ~31 million values, whose
  /// parse passes what WebAssembly memory can hold. A 10,000-layer model and
  /// its manifest hold well under a million.
  int64_t maxJsonValues = 4'000'000;
  /// Layers in the topology, nested models' layers included.
  int64_t maxLayers = 10000;
  /// Any one weight: in the manifest, and each one the topology would create.
  int64_t maxTensorBytes = 1ll << 30;
  /// All weights together: the manifest's, and those the topology creates.
  int64_t maxWeightBytes = 2ll << 30;
  /// Every weight in the file must match one in the model and the reverse.
  bool strict = true;
  /// Restore the optimizer and its state when the file has a trainingConfig.
  bool loadOptimizer = true;
  /// Weights that are NaN or infinite (as stored, or as float16 / uint8 /
  /// uint16 codes dequantize) are an error naming the weight and the first
  /// bad index; true loads them as they are.
  bool allowNonFiniteWeights = false;
};

struct SaveOptions {
  /// Shard size in bytes (TF.js default: 4 MiB).
  int64_t shardSizeBytes = 4ll << 20;
  Quantize quantize = Quantize::none;
  /// Adds trainingConfig and the optimizer's state (group "optimizer"), as
  /// TF.js's includeOptimizer does, so training resumes exactly.
  bool includeOptimizer = false;
  /// Merged into userDefinedMetadata (Glint's own entry is "glint").
  Config userDefinedMetadata = nullptr;
};

/// The model.json object for these artifacts; the weights manifest is one
/// group whose data lies in `shardPaths` (relative to model.json).
Json modelJsonFromArtifacts(const ModelArtifacts& artifacts,
                            const std::vector<std::string>& shardPaths);
/// Shard names "group1-shard<i>of<n>.bin" and the data split at shardSizeBytes.
std::vector<std::pair<std::string, std::vector<uint8_t>>> shardWeightData(
    const std::vector<uint8_t>& data, int64_t shardSizeBytes);
/// Reads one shard (path as written in the manifest); must throw glint::Error
/// when it is missing or holds more than maxBytes.
using ShardReader = std::function<std::vector<uint8_t>(const std::string& path, int64_t maxBytes)>;
/// Parses model.json text after checking its size and nesting depth against
/// `options` (deep nesting would exhaust the stack when copied or printed).
Json parseModelJson(const std::string& text, const LoadOptions& options = {},
                    const std::string& source = "model.json");
/// Validates a parsed model.json (format, manifest, limits), then reads its
/// shards through `read` and checks their sizes against the manifest.
/// `source` (the file's name) starts every error message.
ModelArtifacts artifactsFromModelJson(const Json& modelJson, const ShardReader& read,
                                      const LoadOptions& options = {},
                                      const std::string& source = "model.json");

/// Writes model.json and shards into the directory `url` (a path or file://
/// path; a path ending in ".json" names the model file itself). Atomic: all
/// files are written and fsynced in a temporary directory that then replaces
/// the target, so a failure or crash mid-save leaves the previous model
/// intact. Other files in the directory are kept.
void saveArtifacts(const ModelArtifacts& artifacts, const std::string& url,
                   const SaveOptions& options = {});
/// Reads a directory (its model.json) or a .json file and its shards.
ModelArtifacts loadArtifacts(const std::string& url, const LoadOptions& options = {});

// ---- Models ------------------------------------------------------------------

/// A hash of the architecture: layer classes in order, each weight's name
/// within its layer and shape, the model's input and output shapes. Layer
/// names (and so their numeric suffixes) do not enter it.
std::string structureHash(const Model& model);

ModelArtifacts modelToArtifacts(const Model& model, const SaveOptions& options = {});
/// Rebuilds the model (modelFromConfig), sets its weights by name, restores
/// the optimizer when present. Throws glint::Error naming `source` on
/// missing, extra or misshapen weights.
ModelPtr modelFromArtifacts(const ModelArtifacts& artifacts, const LoadOptions& options = {},
                            const std::string& source = "model artifacts");
/// Sets `model`'s weights from artifacts. When they carry a Glint structure
/// hash it must equal the model's (else a clear error); weights then match by
/// name, or by position when only layer names differ. Without a hash (e.g.
/// saved by TF.js) they match by name. Nothing changes when it throws.
void setWeightsFromArtifacts(Model& model, const ModelArtifacts& artifacts,
                             const LoadOptions& options = {},
                             const std::string& source = "model artifacts");

/// model.save(url): see saveArtifacts.
void save(const Model& model, const std::string& url, const SaveOptions& options = {});
/// tf.loadLayersModel(url) for paths and file:// URLs.
ModelPtr load(const std::string& url, const LoadOptions& options = {});
/// Loads only the weights of a saved model into an existing one (see
/// setWeightsFromArtifacts).
void loadWeights(Model& model, const std::string& url, const LoadOptions& options = {});

}  // namespace io
}  // namespace glint
