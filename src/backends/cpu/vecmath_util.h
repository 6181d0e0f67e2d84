#pragma once
// Branch-free float exp / sigmoid / tanh for the cpu kernels: plain
// arithmetic, selects and bit casts, so loops calling them auto-vectorise
// (SSE/AVX natively, SIMD128 in wasm). About 1-2 ulp from the correctly
// rounded value; results below FLT_MIN flush to 0.
#include <cstdint>

namespace glint::cpu {

/// std::bit_cast, which Emscripten 3.1.6's libc++ lacks.
template <class To, class From>
inline To bitCast(From v) {
  return __builtin_bit_cast(To, v);
}

/// c ? a : b as a bit blend. GCC (trapping math) will not if-convert a
/// ternary whose arm computes in floating point (or that it threads into
/// such), which stops vectorisation.
inline float vselect(bool c, float a, float b) {
  uint32_t m = 0u - static_cast<uint32_t>(c);
  return bitCast<float>((bitCast<uint32_t>(a) & m) | (bitCast<uint32_t>(b) & ~m));
}

/// e^x, with gradual underflow to 0 and overflow to +inf; NaN stays NaN.
inline float vexp(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  // Clamped where the result is already 0 / inf; NaN maps to a bound (the
  // float -> int conversion below must not see it).
  float c = vselect(x > -104.0f, x, -104.0f);
  c = vselect(c < 88.8f, c, 88.8f);
  float n = (c * kLog2e + kRound) - kRound;
  float r = c - n * kLn2Hi - n * kLn2Lo;  // |r| <= ln2/2, Cody-Waite split
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  // 2^n as two normal halves, so subnormal and overflowing results round once.
  int32_t n1 = static_cast<int32_t>(n), n0 = n1 >> 1;
  float y = p * bitCast<float>((n0 + 127) << 23) * bitCast<float>((n1 - n0 + 127) << 23);
  return vselect(x != x, x, y);
}

/// 1 / (1 + e^-x) without overflow for either sign.
inline float vsigmoid(float x) {
  float ax = x < 0 ? -x : x;
  float e = vexp(-ax);
  float r = 1.0f / (1.0f + e);
  return vselect(x >= 0, r, e * r);  // NaN flows through e
}

/// tanh: an odd polynomial near 0 (no cancellation), 1 - 2/(e^2|x| + 1) beyond.
inline float vtanh(float x) {
  float ax = x < 0 ? -x : x;
  float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  float small = p * z * x + x;
  float big = 1.0f - 2.0f / (vexp(2.0f * ax) + 1.0f);
  big = vselect(x < 0, -big, big);  // NaN flows through vexp
  return vselect(ax < 0.625f, small, big);
}

}  // namespace glint::cpu
