// IDX files, plain or gzip-compressed: [as 1][file...]. `as` picks the dtype
// requested (none, float32, int32, bool). Decompression is capped at 4 MiB.
#include <cstdint>
#include <optional>

#include "fuzz/fuzz_common.h"
#include "glint/data.h"

using namespace glint;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::setUp();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::optional<DType> as;
  if (data[0] % 4 == 1) as = DType::float32;
  if (data[0] % 4 == 2) as = DType::int32;
  if (data[0] % 4 == 3) as = DType::boolean;
  fuzz::expectOnlyGlintErrors([&] {
    Tensor t =
        data::decodeIdx(std::vector<uint8_t>(data + 1, data + size), as, "fuzz.idx", 4 << 20);
    if (t.size() > static_cast<int64_t>(4 << 20))
      fuzz::abortWith("decodeIdx", "more elements than bytes");
  });
  return 0;
}
