// The weight-shard reader: model.json text, a 0 byte, then the shards, each a
// 2-byte little-endian length and that many bytes (cut short at the end of
// the input). Manifests may lie about sizes, dtypes, shapes, quantization and
// the number or length of shards; what loads must then decode exactly.
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz/fuzz_common.h"
#include "glint/io.h"
#include "glint/json.h"

using namespace glint;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::setUp();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint8_t* zero = static_cast<const uint8_t*>(std::memchr(data, 0, size));
  size_t jsonSize = zero ? static_cast<size_t>(zero - data) : size;
  std::string text(reinterpret_cast<const char*>(data), jsonSize);
  const uint8_t* blob = zero ? zero + 1 : data + size;
  const uint8_t* end = data + size;
  io::LoadOptions limits;
  limits.maxModelJsonBytes = 1 << 20;
  limits.maxTensorBytes = 1 << 20;
  limits.maxWeightBytes = 2 << 20;
  fuzz::expectOnlyGlintErrors([&] {
    Json j = io::parseModelJson(text, limits, "fuzz.json");
    fuzz::ReaderWatch watch(limits.maxWeightBytes);
    io::ModelArtifacts a = io::artifactsFromModelJson(
        j,
        [&](const std::string& path, int64_t maxBytes) {
          watch.request(path, maxBytes);
          if (end - blob < 2) fail("fuzz", "shard '", path, "' is missing");
          size_t n = blob[0] | size_t{blob[1]} << 8;
          blob += 2;
          n = std::min(n, static_cast<size_t>(end - blob));
          std::vector<uint8_t> bytes(blob, blob + n);
          blob += n;
          watch.gave(bytes.size());
          return bytes;
        },
        limits, "fuzz.json");
    watch.checkAgainst(a);
    io::NamedTensors tensors = io::decodeWeights(a.weightData, a.weightSpecs, "fuzz.json");
    if (tensors.size() != a.weightSpecs.size()) fuzz::abortWith("decodeWeights", "count differs");
    for (size_t i = 0; i < tensors.size(); ++i) {
      const Tensor& t = tensors[i].second;
      const io::WeightSpec& s = a.weightSpecs[i];
      if (t.shape() != s.shape || t.dtype() != s.dtype)
        fuzz::abortWith("decodeWeights",
                        "weight '" + s.name + "' decoded with another shape/dtype");
    }
    // Unquantized weights re-encode to the very bytes they came from.
    bool quantized = false;
    for (const io::WeightSpec& s : a.weightSpecs) quantized = quantized || s.quantization;
    if (!quantized && io::encodeWeights(tensors).second != a.weightData) {
      // bool weights normalize any nonzero byte to 1; only that may differ.
      auto again = io::encodeWeights(tensors).second;
      for (size_t k = 0; k < again.size(); ++k)
        if (again[k] != a.weightData[k] && !(again[k] == 1 && a.weightData[k] > 1))
          fuzz::abortWith("encodeWeights", "re-encoding changed byte " + std::to_string(k));
    }
  });
  return 0;
}
