#pragma once
// What the webgpu backend's precision self-test saw, classified. WGSL (and
// TF.js on WebGPU) allow a GPU to lose the sign of zero and to flush
// denormals to zero: those are recorded deviations that leave the backend
// usable. A wrong number that matters (a value changed, a NaN gone, a wrong
// sum) disqualifies it. Pure: no device needed, so node tests it.
#include <cstdint>
#include <string>
#include <vector>

namespace glint::webgpu {

struct SelfTestVerdict {
  bool usable = true;
  std::string why;                      // when not usable: the first wrong number
  std::vector<std::string> deviations;  // allowed differences seen, one line each
};

/// sent[k] went through an identity kernel and came back as back[k]; `sum`
/// is what the GPU summed for 1 + 2 + ... + 1000 (500500 exactly).
SelfTestVerdict classifySelfTest(const std::vector<uint32_t>& sent,
                                 const std::vector<uint32_t>& back, float sum);

}  // namespace glint::webgpu
