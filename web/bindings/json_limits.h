#pragma once
// A bound on what parsing a model.json may allocate in WebAssembly. The
// 64 MiB size limit (io::LoadOptions::maxModelJsonBytes) admits ~31 million
// JSON values ("1,1,1,..."): parsed, 16+ bytes each plus the arrays' growth,
// they pass the 2 GB the module's memory may grow to, and the failed
// allocation aborted the module ("Aborted()", then "Maximum call stack size
// exceeded") instead of failing the load. Counting the values first, in one
// pass over the text, refuses such a file before the parser allocates.
#include <cstdint>
#include <string>

#include "glint/error.h"

namespace glint::web {

/// Far above any real model: a 10,000-layer topology and its weights
/// manifest hold well under a million values.
constexpr int64_t kMaxJsonValues = 4'000'000;

/// Throws unless `text` holds at most kMaxJsonValues values (array elements
/// and object members, counted by their separators outside strings).
inline void checkJsonValueCount(const char* text, const std::string& source) {
  int64_t values = 1;
  bool inString = false, escaped = false;
  for (const char* p = text; p && *p; ++p) {
    char c = *p;
    if (inString) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == ',' || c == '[' || c == '{') {
      check(++values <= kMaxJsonValues, "io.load", source, " holds more than ", kMaxJsonValues,
            " JSON values (array elements and object members), at byte ", p - text,
            ": more than a model needs, and more than WebAssembly memory can parse");
    }
  }
}

}  // namespace glint::web
