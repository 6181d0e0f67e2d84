// CSV text: [options 1][text...]. The options byte picks header on/off, the
// delimiter (, ; tab |), the quote (" or ') and allowMissing; then every
// numeric column is read back through features().
#include <cstdint>
#include <string>

#include "fuzz/fuzz_common.h"
#include "glint/data.h"

using namespace glint;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::setUp();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  data::CsvOptions o;
  uint8_t b = data[0];
  o.header = b & 1;
  o.delimiter = ",;\t|"[(b >> 1) & 3];
  o.quote = (b & 8) ? '\'' : '"';
  o.allowMissing = b & 16;
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  fuzz::expectOnlyGlintErrors([&] {
    data::CsvTable t = data::parseCsv(text, o, "fuzz.csv");
    if (t.names.size() != t.types.size()) fuzz::abortWith("parseCsv", "names and types differ");
    std::vector<std::string> numeric;
    for (size_t c = 0; c < t.names.size(); ++c) {
      if (t.types[c] == "string") {
        if (static_cast<int64_t>(t.text(t.names[c]).size()) != t.rows)
          fuzz::abortWith("parseCsv", "a string column's length differs from rows");
      } else {
        if (t.column(t.names[c]).size() != t.rows)
          fuzz::abortWith("parseCsv", "a numeric column's length differs from rows");
        numeric.push_back(t.names[c]);
      }
    }
    if (!numeric.empty()) t.features(numeric);
  });
  return 0;
}
