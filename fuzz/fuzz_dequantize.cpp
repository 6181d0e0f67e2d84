// The quantized-weights decoder (decodeWeights with uint8 / uint16 / float16
// quantization). Layout: [quantization 1][dtype 1][min 8][scale 8][rank 1]
// [dims: 1 byte each][data...]. Each decoded value is checked against the
// formula, computed here independently.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "fuzz/fuzz_common.h"
#include "glint/io.h"
#include "src/io/io_util.h"

using namespace glint;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::setUp();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 19) return 0;
  static const char* kQuant[] = {"", "uint8", "uint16", "float16", "int4"};
  static const DType kDType[] = {DType::float32, DType::int32, DType::boolean};
  io::WeightSpec spec;
  spec.name = "w";
  const char* q = kQuant[data[0] % 5];
  spec.dtype = kDType[data[1] % 3];
  double min, scale;
  std::memcpy(&min, data + 2, 8);
  std::memcpy(&scale, data + 10, 8);
  if (*q) spec.quantization = io::Quantization{q, min, scale};
  size_t rank = data[18] % 4, at = 19;
  for (size_t d = 0; d < rank && at < size; ++d) spec.shape.push_back(data[at++]);
  std::vector<uint8_t> bytes(data + at, data + size);
  fuzz::expectOnlyGlintErrors([&] {
    io::NamedTensors out = io::decodeWeights(bytes, {spec}, "fuzz");
    const Tensor& t = out.at(0).second;
    int64_t n = t.size();
    if (!spec.quantization) return;
    std::vector<double> got;
    if (t.dtype() == DType::int32) {
      for (int32_t v : t.data<int32_t>()) got.push_back(v);
    } else {
      for (float v : t.data<float>()) got.push_back(v);
    }
    for (int64_t i = 0; i < n; ++i) {
      double want;
      if (std::strcmp(q, "float16") == 0) {
        uint16_t h = static_cast<uint16_t>(bytes[2 * i] | bytes[2 * i + 1] << 8);
        want = io::halfToFloat(h);
      } else {
        double code =
            std::strcmp(q, "uint8") == 0 ? bytes[i] : (bytes[2 * i] | bytes[2 * i + 1] << 8);
        want = code * scale + min;
        want = t.dtype() == DType::int32 ? static_cast<double>(std::llround(want))
                                         : static_cast<double>(static_cast<float>(want));
      }
      if (!(got[i] == want || (std::isnan(got[i]) && std::isnan(want))))
        fuzz::abortWith("dequantization", "element " + std::to_string(i) + " is " +
                                              std::to_string(got[i]) + ", expected " +
                                              std::to_string(want));
    }
  });
  return 0;
}
