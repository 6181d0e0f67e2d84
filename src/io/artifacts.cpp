// model.json <-> ModelArtifacts: the weights manifest, sharding, and every
// check a file from elsewhere needs before its bytes are trusted.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "glint/error.h"
#include "glint/io.h"
#include "src/io/io_util.h"

namespace glint::io {

namespace {
const char* kOp = "io.load";
}  // namespace

std::string jsonForError(const Json& j) {
  return quoteForError(j.dump(-1, ' ', false, Json::error_handler_t::replace));
}

std::string checkShardPath(const std::string& path, const std::string& source) {
  namespace fs = std::filesystem;
  // Every reader (native files, node files, fuzzers) gets only paths that
  // stay below model.json's folder by their letters; following links is the
  // reader's check, since only it sees the file system.
  bool ok =
      !path.empty() && path.find('\0') == std::string::npos && path.find('\\') == std::string::npos;
  fs::path rel = fs::path(path).lexically_normal();
  if (ok) ok = !rel.empty() && !rel.is_absolute() && rel.has_filename() && rel != ".";
  for (const auto& part : rel)
    if (part == ".." || part == ".") ok = false;
  check(ok, kOp, source, ": weight shard path '", quoteForError(path),
        "' must name a file relative to model.json, inside its folder");
  return rel.generic_string();
}

Json specToJson(const WeightSpec& spec) {
  Json j = Json::object();
  j["name"] = spec.name;
  j["shape"] = spec.shape;
  j["dtype"] = dtypeName(spec.dtype);
  if (!spec.group.empty()) j["group"] = spec.group;
  if (spec.quantization) {
    Json q = Json::object();
    q["dtype"] = spec.quantization->dtype;
    if (spec.quantization->dtype != "float16") {
      q["min"] = spec.quantization->min;
      q["scale"] = spec.quantization->scale;
    }
    j["quantization"] = q;
  }
  return j;
}

WeightSpec specFromJson(const Json& j, const std::string& source, const std::string& where) {
  check(j.is_object(), kOp, source, ": ", where, " must be an object, got ", jsonForError(j));
  WeightSpec spec;
  check(j.contains("name") && j["name"].is_string(), kOp, source, ": ", where,
        " needs a string \"name\"");
  spec.name = j["name"].get<std::string>();
  std::string what = where + " ('" + quoteForError(spec.name) + "')";
  check(j.contains("shape") && j["shape"].is_array(), kOp, source, ": ", what,
        " needs a \"shape\" array");
  check(j["shape"].size() <= 16, kOp, source, ": ", what, " has rank ", j["shape"].size(),
        " (at most 16)");
  for (const Json& d : j["shape"]) {
    check(d.is_number_integer() && d.get<int64_t>() >= 0, kOp, source, ": ", what, " has shape ",
          jsonForError(j["shape"]), "; dimensions must be non-negative integers");
    spec.shape.push_back(d.get<int64_t>());
  }
  check(j.contains("dtype") && j["dtype"].is_string(), kOp, source, ": ", what,
        " needs a string \"dtype\"");
  std::string dtype = j["dtype"].get<std::string>();
  check(dtype == "float32" || dtype == "int32" || dtype == "bool", kOp, source, ": ", what,
        " has dtype '", Quoted{dtype}, "'; expected float32, int32 or bool");
  spec.dtype = parseDType(dtype);
  if (j.contains("group") && !j["group"].is_null()) {
    check(j["group"].is_string(), kOp, source, ": ", what, " has a non-string \"group\"");
    spec.group = j["group"].get<std::string>();
    if (spec.group == "model") spec.group.clear();
    check(spec.group.empty() || spec.group == "optimizer", kOp, source, ": ", what, " has group '",
          Quoted{spec.group}, "'; expected model or optimizer");
  }
  if (j.contains("quantization") && !j["quantization"].is_null()) {
    const Json& q = j["quantization"];
    check(q.is_object() && q.contains("dtype") && q["dtype"].is_string(), kOp, source, ": ", what,
          " has a quantization without a string \"dtype\"");
    Quantization quant{q["dtype"].get<std::string>(), 0.0, 1.0};
    if (quant.dtype != "float16") {
      check(q.contains("min") && q["min"].is_number() && q.contains("scale") &&
                q["scale"].is_number(),
            kOp, source, ": ", what, " is quantized with ", Quoted{quant.dtype},
            " but lacks numeric \"min\" and \"scale\"");
      quant.min = q["min"].get<double>();
      quant.scale = q["scale"].get<double>();
    }
    spec.quantization = quant;
  }
  weightByteLength(spec, source);  // validates dtype/quantization pairs and the size
  return spec;
}

Json modelJsonFromArtifacts(const ModelArtifacts& a, const std::vector<std::string>& shardPaths) {
  Json j = Json::object();
  j["modelTopology"] = a.modelTopology;
  j["format"] = a.format;
  j["generatedBy"] = a.generatedBy;
  j["convertedBy"] = a.convertedBy;
  Json weights = Json::array();
  for (const WeightSpec& s : a.weightSpecs) weights.push_back(specToJson(s));
  Json group = Json::object();
  group["paths"] = shardPaths;
  group["weights"] = weights;
  j["weightsManifest"] = Json::array({group});
  if (!a.userDefinedMetadata.is_null()) j["userDefinedMetadata"] = a.userDefinedMetadata;
  if (!a.trainingConfig.is_null()) j["trainingConfig"] = a.trainingConfig;
  if (!a.signature.is_null()) j["signature"] = a.signature;
  return j;
}

std::vector<std::pair<std::string, std::vector<uint8_t>>> shardWeightData(
    const std::vector<uint8_t>& data, int64_t shardSizeBytes) {
  check(shardSizeBytes > 0, "io.save", "shardSizeBytes must be > 0, got ", shardSizeBytes);
  std::vector<std::pair<std::string, std::vector<uint8_t>>> shards;
  size_t size = static_cast<size_t>(shardSizeBytes);
  size_t n = (data.size() + size - 1) / size;
  for (size_t i = 0; i < n; ++i) {
    size_t begin = i * size, end = std::min(data.size(), begin + size);
    shards.emplace_back("group1-shard" + std::to_string(i + 1) + "of" + std::to_string(n) + ".bin",
                        std::vector<uint8_t>(data.begin() + static_cast<std::ptrdiff_t>(begin),
                                             data.begin() + static_cast<std::ptrdiff_t>(end)));
  }
  return shards;
}

namespace {
// The key whose string value holds byte `at` of `text` ("name" in
// {"name": "d\xff"}), quoted; "" when `at` is not inside such a value.
std::string fieldAt(const std::string& text, size_t at) {
  at = std::min(at, text.size());
  size_t open = text.rfind('"', at == 0 ? 0 : at - 1);
  if (open == std::string::npos || open == 0) return "";
  size_t i = open;
  while (i > 0 && std::isspace(static_cast<unsigned char>(text[i - 1]))) --i;
  if (i == 0 || text[i - 1] != ':') return "";
  --i;
  while (i > 0 && std::isspace(static_cast<unsigned char>(text[i - 1]))) --i;
  if (i == 0 || text[i - 1] != '"') return "";
  size_t end = i - 1;
  size_t begin = text.rfind('"', end - 1);
  if (begin == std::string::npos || end - begin > 256) return "";
  return quoteForError(text.substr(begin + 1, end - begin - 1), 64);
}
}  // namespace

Json parseModelJson(const std::string& text, const LoadOptions& options,
                    const std::string& source) {
  check(static_cast<int64_t>(text.size()) <= options.maxModelJsonBytes, kOp, source, " is ",
        text.size(), " bytes, more than LoadOptions.maxModelJsonBytes (", options.maxModelJsonBytes,
        ")");
  // Nesting depth and the number of values, outside strings: one linear pass
  // before the parser builds anything.
  int64_t depth = 0, values = 1;
  bool inString = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      check(++depth <= options.maxJsonDepth, kOp, source, ": arrays/objects nested deeper than ",
            options.maxJsonDepth, " levels (LoadOptions.maxJsonDepth) at byte ", i);
      check(++values <= options.maxJsonValues, kOp, source, " holds more than ",
            options.maxJsonValues, " JSON values (LoadOptions.maxJsonValues) at byte ", i,
            ": more than a model needs");
    } else if (c == ',') {
      check(++values <= options.maxJsonValues, kOp, source, " holds more than ",
            options.maxJsonValues, " JSON values (LoadOptions.maxJsonValues) at byte ", i,
            ": more than a model needs");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    // Bad bytes inside a string (invalid UTF-8, a raw control byte) are
    // blamed on the field whose value they are in: "name" of a layer, not
    // whatever the parser reads next. The parser's text echoes them: quoted.
    std::string field = fieldAt(text, e.byte);
    fail(kOp, source, ": not valid JSON", field.empty() ? "" : " in the value of \"" + field + "\"",
         " (byte ", e.byte, "): ", quoteForError(e.what(), 400));
  } catch (const Json::exception& e) {
    fail(kOp, source, ": not valid JSON: ", quoteForError(e.what(), 400));
  }
}

ModelArtifacts artifactsFromModelJson(const Json& j, const ShardReader& read,
                                      const LoadOptions& options, const std::string& source) {
  check(j.is_object(), kOp, source, ": model.json must hold a JSON object, got a ", j.type_name());
  ModelArtifacts a;
  if (j.contains("format") && !j["format"].is_null()) {
    check(j["format"].is_string(), kOp, source, ": \"format\" must be a string");
    a.format = j["format"].get<std::string>();
    check(a.format == "layers-model" || a.format == "graph-model", kOp, source, ": format is '",
          Quoted{a.format}, "'; Glint reads 'layers-model' and 'graph-model' files");
  }
  check(j.contains("modelTopology") && j["modelTopology"].is_object(), kOp, source,
        ": missing the \"modelTopology\" object (the Keras model config, or a graph model's "
        "GraphDef)");
  a.modelTopology = j["modelTopology"];
  if (j.contains("generatedBy") && j["generatedBy"].is_string())
    a.generatedBy = j["generatedBy"].get<std::string>();
  if (j.contains("convertedBy")) a.convertedBy = j["convertedBy"];
  if (j.contains("trainingConfig") && !j["trainingConfig"].is_null()) {
    check(j["trainingConfig"].is_object(), kOp, source, ": \"trainingConfig\" must be an object");
    a.trainingConfig = j["trainingConfig"];
  }
  if (j.contains("signature") && !j["signature"].is_null()) {
    check(j["signature"].is_object(), kOp, source, ": \"signature\" must be an object");
    a.signature = j["signature"];
  }
  if (j.contains("userDefinedMetadata") && !j["userDefinedMetadata"].is_null()) {
    check(j["userDefinedMetadata"].is_object(), kOp, source,
          ": \"userDefinedMetadata\" must be an object");
    a.userDefinedMetadata = j["userDefinedMetadata"];
  }
  if (!j.contains("weightsManifest") || j["weightsManifest"].is_null()) return a;
  const Json& manifest = j["weightsManifest"];
  check(manifest.is_array(), kOp, source, ": \"weightsManifest\" must be an array of groups");

  // Every size is known from the manifest: check it all before reading a byte.
  struct Group {
    std::vector<std::string> paths;
    int64_t bytes = 0;
    size_t firstSpec = 0, numSpecs = 0;
  };
  std::vector<Group> groups;
  std::set<std::string> names;
  int64_t total = 0;
  for (size_t g = 0; g < manifest.size(); ++g) {
    const Json& entry = manifest[g];
    std::string where = "weightsManifest[" + std::to_string(g) + "]";
    check(entry.is_object() && entry.contains("paths") && entry["paths"].is_array() &&
              entry.contains("weights") && entry["weights"].is_array(),
          kOp, source, ": ", where, " needs \"paths\" and \"weights\" arrays");
    Group group;
    group.firstSpec = a.weightSpecs.size();
    for (const Json& p : entry["paths"]) {
      check(p.is_string(), kOp, source, ": ", where, ".paths holds a non-string ", jsonForError(p));
      group.paths.push_back(p.get<std::string>());
    }
    const Json& ws = entry["weights"];
    for (size_t i = 0; i < ws.size(); ++i) {
      WeightSpec spec = specFromJson(ws[i], source, where + ".weights[" + std::to_string(i) + "]");
      int64_t bytes = weightByteLength(spec, source);
      check(bytes <= options.maxWeightBytes - total, kOp, source,
            ": the manifest claims more than ", options.maxWeightBytes,
            " bytes of weights (LoadOptions.maxWeightBytes), at weight '", Quoted{spec.name},
            "' of shape ", shapeToString(spec.shape));
      check(bytes <= options.maxTensorBytes, kOp, source, ": weight '", Quoted{spec.name},
            "' of shape ", shapeToString(spec.shape), " needs ", bytes,
            " bytes, more than LoadOptions.maxTensorBytes (", options.maxTensorBytes, ")");
      total += bytes;
      group.bytes += bytes;
      std::string key = spec.group + "|" + spec.name;
      check(names.insert(key).second, kOp, source, ": weight '", Quoted{spec.name},
            "' appears twice in the manifest");
      a.weightSpecs.push_back(std::move(spec));
    }
    group.numSpecs = a.weightSpecs.size() - group.firstSpec;
    check(group.bytes == 0 || !group.paths.empty(), kOp, source, ": ", where, " has ",
          group.numSpecs, " weights (", group.bytes, " bytes) but no shard paths");
    groups.push_back(std::move(group));
  }

  a.weightData.reserve(static_cast<size_t>(total));
  for (size_t g = 0; g < groups.size(); ++g) {
    const Group& group = groups[g];
    int64_t left = group.bytes;
    std::string held;
    for (const std::string& path : group.paths) {
      std::vector<uint8_t> bytes = read(checkShardPath(path, source), left);
      check(static_cast<int64_t>(bytes.size()) <= left, kOp, source, ": weight shard '",
            Quoted{path}, "' holds ", bytes.size(), " bytes, more than the ", left,
            " bytes the manifest has left for it");
      left -= static_cast<int64_t>(bytes.size());
      held += (held.empty() ? "" : ", ") + quoteForError(path) + " (" +
              std::to_string(bytes.size()) + " bytes)";
      a.weightData.insert(a.weightData.end(), bytes.begin(), bytes.end());
    }
    check(left == 0, kOp, source, ": weightsManifest[", g, "] describes ", group.numSpecs,
          " weights needing ", group.bytes, " bytes, but its shards hold only ", group.bytes - left,
          " bytes: ", held);
  }
  return a;
}

}  // namespace glint::io
