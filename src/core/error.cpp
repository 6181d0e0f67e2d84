// quoteForError (glint/error.h).
#include "glint/error.h"

#include <cstdint>
#include <cstdio>

namespace glint {

namespace {
// Length of the valid UTF-8 sequence starting at s[i], or 0.
size_t utf8Length(const std::string& s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  uint8_t c = byte(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((byte(i + k) >> 6) != 0x2) return 0;
  if (n == 2 && c < 0xc2) return 0;                          // overlong
  if (n == 3 && c == 0xe0 && byte(i + 1) < 0xa0) return 0;   // overlong
  if (n == 3 && c == 0xed && byte(i + 1) >= 0xa0) return 0;  // surrogate
  if (n == 4 &&
      (c > 0xf4 || (c == 0xf0 && byte(i + 1) < 0x90) || (c == 0xf4 && byte(i + 1) >= 0x90)))
    return 0;
  return n;
}
}  // namespace

std::string quoteForError(const std::string& text, size_t maxBytes) {
  std::string out;
  size_t i = 0;
  while (i < text.size() && out.size() < maxBytes) {
    uint8_t c = static_cast<uint8_t>(text[i]);
    size_t n = utf8Length(text, i);
    if (n == 0 || c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
      ++i;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  if (i < text.size()) out += "... (" + std::to_string(text.size()) + " bytes in all)";
  return out;
}

}  // namespace glint
