// Classifies the precision self-test's read-back (see self_test_verdict.h).
#include "src/backends/webgpu/self_test_verdict.h"

#include <cstdio>

namespace glint::webgpu {

namespace {
std::string bitsText(const char* what, uint32_t sent, uint32_t back) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%sfloat bits 0x%08x came back as 0x%08x", what, sent, back);
  return buf;
}
}  // namespace

SelfTestVerdict classifySelfTest(const std::vector<uint32_t>& sent,
                                 const std::vector<uint32_t>& back, float sum) {
  SelfTestVerdict v;
  auto wrong = [&](const std::string& why) {
    if (v.usable) v.why = why;
    v.usable = false;
  };
  if (back.size() != sent.size()) {
    wrong("the precision self-test failed: " + std::to_string(sent.size()) + " values sent, " +
          std::to_string(back.size()) + " came back");
    return v;
  }
  for (size_t k = 0; k < sent.size(); ++k) {
    uint32_t s = sent[k], b = back[k];
    if (s == b) continue;
    uint32_t sMag = s & 0x7fffffffu, bMag = b & 0x7fffffffu;
    bool sNan = sMag > 0x7f800000u, bNan = bMag > 0x7f800000u;
    if (sNan && bNan) continue;  // NaN payloads may be canonicalised; a NaN stays a NaN
    if (sMag == 0 && bMag == 0) {
      v.deviations.push_back(bitsText("signed zero lost: ", s, b));
    } else if (sMag != 0 && sMag < 0x00800000u && bMag == 0) {
      v.deviations.push_back(bitsText("denormal flushed to zero: ", s, b));
    } else {
      wrong(bitsText("the precision self-test failed: ", s, b));
    }
  }
  if (sum != 500500.0f) {
    wrong("the precision self-test failed: a sum of 1..1000 gave " + std::to_string(sum));
  }
  return v;
}

}  // namespace glint::webgpu
