// model.json text -> limits, manifest, topology (modelFromConfig), weights,
// optimizer; a model that builds then predicts once on zeros, so the shapes
// the topology inferred meet real kernels. Shard bytes are synthesized.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_common.h"
#include "glint/io.h"
#include "glint/json.h"
#include "glint/model.h"
#include "glint/ops.h"

using namespace glint;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::setUp();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  io::LoadOptions limits;
  limits.maxModelJsonBytes = 1 << 20;
  limits.maxLayers = 200;
  // Small weight limits: initialising megabytes of weights under ASan cost
  // most of each execution, and the limit paths get hit more often, not less.
  limits.maxTensorBytes = 256 << 10;
  limits.maxWeightBytes = 1 << 20;
  fuzz::expectOnlyGlintErrors([&] {
    Json j = io::parseModelJson(text, limits, "fuzz.json");
    uint8_t fill = size ? data[size / 2] : 0;
    fuzz::ReaderWatch watch(limits.maxWeightBytes);
    io::ModelArtifacts a = io::artifactsFromModelJson(
        j,
        [&](const std::string& path, int64_t maxBytes) {
          watch.request(path, maxBytes);
          watch.gave(static_cast<size_t>(maxBytes));
          return std::vector<uint8_t>(maxBytes, fill);
        },
        limits, "fuzz.json");
    watch.checkAgainst(a);
    ModelPtr model = io::modelFromArtifacts(a, limits, "fuzz.json");
    // One forward pass when the input shapes are known and small.
    std::vector<Tensor> xs;
    for (const auto& in : model->inputs()) {
      Shape shape = in->shape;
      if (!shape.empty() && shape[0] < 0) shape[0] = 1;
      int64_t n = 1;
      for (int64_t d : shape) {
        if (d < 0 || d > 4096) return;
        n *= d;
        if (n > 4096) return;
      }
      xs.push_back(zeros(shape, in->dtype));
    }
    model->predict(xs);
  });
  return 0;
}
