#pragma once
// GLSL helpers for float math that GLSL ES 3.0 lacks or computes loosely
// (exp/log/sin/cos with IEEE special values, expm1, log1p, erf; tanh and pow
// without overflow or undefined cases), and
// int32 division with the reference's rounding (GLSL leaves negative / and %
// undefined).
namespace glint::gl {

inline const char* kMathGlsl = R"(
// exp, log, sin and cos as IEEE float32 has them: GLSL leaves NaN, 0 and inf
// inputs undefined, and SwiftShader (Chromium's WebGL without a GPU) returns
// exp(NaN) = inf, log(0) = -88, log(inf) = 89 and sin/cos off by 1e-5.
// e^x as 2^n e^r: n = round(x / ln 2), r = x - n ln 2 in two parts (Cody and
// Waite; |r| <= ln 2 / 2), 2^n built from its bits in two halves. The
// renderer's own exp(x) is exp2(x log2 e), whose rounded product puts ~|x|
// 5e-8 of relative error in the result (llvmpipe's softmax gave e^-72 3e-6
// off). x is clamped where float32's e^x is 0 or inf already.
float exp_(float x) {
  if (isnan(x)) return x;
  x = clamp(x, -104.0, 89.0);
  float n = floor(x * 1.4426950408889634 + 0.5);
  float r = (x - n * 0.693359375) + n * 2.12194440e-4;
  int k = int(n), h = k >> 1;
  return exp(r) * intBitsToFloat((h + 127) << 23) * intBitsToFloat((k - h + 127) << 23);
}
// log(1 + u) for |u| < 0.29: 2 atanh(u / (2 + u)) by its series (the terms
// left out are below 1e-9 relative there).
float log1pSeries_(float u) {
  float s = u / (2.0 + u), z = s * s;
  return 2.0 * s * (1.0 + z * (0.33333333333333333 + z * (0.2 + z * (0.14285714285714286 +
         z * (0.11111111111111111 + z * 0.09090909090909091)))));
}
// Near 1 by the series of x - 1 (exact there): the shader's log is off by
// ~1e-7 absolute, which near its zero is a large relative error (llvmpipe:
// log(0.9999) 3e-4 off).
float log_(float x) {
  if (isnan(x) || x < 0.0) return NAN;
  if (x == 0.0) return -INF;
  if (isinf(x)) return x;
  float u = x - 1.0;
  return abs(u) < 0.29 ? log1pSeries_(u) : log(x);
}
// (sin x, cos x): x reduced by pi/2 in three parts (exact products for
// |x| < 1e4), then Cephes' single-precision polynomials on [-pi/4, pi/4].
vec2 sincos_(float x) {
  if (isnan(x) || isinf(x)) return vec2(NAN);
  // Beyond the three-part reduction's reach its quotient overflows an int
  // and r is garbage (the kernel fuzzer saw sin(1e30) = inf): the
  // renderer's own sin and cos stay in [-1, 1], where float32 carries no
  // more information about the angle anyway.
  if (abs(x) > 1e5) return vec2(sin(x), cos(x));
  float q = roundEven(x * 0.6366197723675814);
  float r = ((x - q * 1.5703125) - q * 4.837512969970703125e-4) - q * 7.54978995489188216e-8;
  float z = r * r;
  float s = r + r * z * (-1.6666654611e-1 + z * (8.3321608736e-3 + z * -1.9515295891e-4));
  float c = 1.0 - 0.5 * z +
            z * z * (4.166664568298827e-2 + z * (-1.388731625493765e-3 + z * 2.443315711809948e-5));
  int k = int(q) & 3;
  return k == 0 ? vec2(s, c) : k == 1 ? vec2(c, -s) : k == 2 ? vec2(-s, -c) : vec2(-c, s);
}
// expm1 and log1p near 0 by series (the compiler may fold Kahan's (1 + x) - 1
// to x, and its u - 1 over log u needs a log exact near 1: llvmpipe gave
// log1p(1e-30) = 0 and expm1(-2e-7) 42% off). expm1: Taylor terms to x^8
// below |x| = 0.5 (relative error < 1e-8 there), e^x - 1 beyond (no
// cancellation left). log1p: log1pSeries_ below |x| = 0.29, log(1 + x) beyond.
float expm1_(float x) {
  if (abs(x) < 0.5)
    return x * (1.0 + x * (0.5 + x * (1.6666666666666666e-1 + x * (4.1666666666666664e-2 +
           x * (8.3333333333333332e-3 + x * (1.3888888888888889e-3 + x * (1.9841269841269841e-4 +
           x * 2.4801587301587302e-5)))))));
  return exp_(x) - 1.0;
}
float log1p_(float x) { return abs(x) < 0.29 ? log1pSeries_(x) : log_(1.0 + x); }
// tanh and sigmoid without branches on the value: a renderer that runs
// fragments in lockstep (SwiftShader, GPUs) pays for both sides of a data
// branch, and expm1_'s log made tanh the LSTM cells' main cost. tanh: an odd
// polynomial near 0 (no cancellation), 1 - 2 / (e^2|x| + 1) beyond (as the cpu
// backend's vtanh).
float tanh_(float x) {
  float ax = abs(x), z = x * x;
  float p = (((-5.70498872745e-3 * z + 2.06390887954e-2) * z - 5.37397155531e-2) * z +
             1.33314422036e-1) * z - 3.33332819422e-1;
  float big = 1.0 - 2.0 / (exp_(2.0 * ax) + 1.0);
  float r = ax < 0.625 ? p * z * x + x : (x < 0.0 ? -big : big);
  return isnan(x) ? x : r;
}
float sigmoid_(float x) {
  float e = exp_(-abs(x));
  float r = 1.0 / (1.0 + e);
  return isnan(x) ? x : (x >= 0.0 ? r : e * r);
}
float erf_(float x) {
  float ax = abs(x);
  if (ax < 0.5) {  // Taylor series, relative error < 1e-7 here
    float x2 = x * x;
    return x * (1.1283791670955126 + x2 * (-0.37612638903183754 + x2 * (0.11283791670955126 +
           x2 * (-0.026866170645131252 + x2 * (0.005223977625442188 + x2 * -0.0008548327023450852)))));
  }
  // Abramowitz & Stegun 7.1.26, absolute error < 1.5e-7.
  float t = 1.0 / (1.0 + 0.3275911 * ax);
  float y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t +
                   0.254829592) * t * exp(-ax * ax);
  return x < 0.0 ? -y : y;
}
// atan on [0, inf) as Cephes' atanf: reduced to |t| <= tan(pi/8) by
// tan(3pi/8) and tan(pi/8), a degree-9 odd polynomial there (2 ulp); the
// shader's own atan is allowed 4096 ulp.
float atanPositive_(float x) {
  float base = 0.0, t = x;
  if (x > 2.414213562373095) { base = 1.5707963267948966; t = -1.0 / x; }
  else if (x > 0.4142135623730950) { base = 0.7853981633974483; t = (x - 1.0) / (x + 1.0); }
  float z = t * t;
  return base + ((((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z -
                  3.33329491539e-1) * z * t + t);
}
float atan_(float x) {
  if (isnan(x)) return x;
  float r = atanPositive_(abs(x));
  return x < 0.0 ? -r : (x == 0.0 ? x : r);
}
bool signBit_(float x) { return (floatBitsToUint(x) >> 31) != 0u; }
// IEEE atan2 (C's): signed zeros and infinities pick the quadrant.
float atan2_(float y, float x) {
  if (isnan(x) || isnan(y)) return NAN;
  float pi = 3.141592653589793;
  float ay = abs(y), ax = abs(x), r;
  if (ay == 0.0) r = signBit_(x) ? pi : 0.0;
  else if (ax == 0.0) r = pi * 0.5;
  else if (isinf(ax) && isinf(ay)) r = signBit_(x) ? pi * 0.75 : pi * 0.25;
  else if (isinf(ax)) r = signBit_(x) ? pi : 0.0;
  else if (isinf(ay)) r = pi * 0.5;
  else {
    // The smaller over the larger: no overflow, and the ratio is exact-ish.
    r = ay <= ax ? atanPositive_(ay / ax) : pi * 0.5 - atanPositive_(ax / ay);
    if (signBit_(x)) r = pi - r;
  }
  return signBit_(y) ? -r : r;
}
float asin_(float x) {
  if (isnan(x) || abs(x) > 1.0) return NAN;
  return atan2_(x, sqrt((1.0 - x) * (1.0 + x)));
}
float acos_(float x) {
  if (isnan(x) || abs(x) > 1.0) return NAN;
  return atan2_(sqrt((1.0 - x) * (1.0 + x)), x);
}
// asinh, acosh, atanh over log1p_: exact identities arranged for float32
// (no cancellation near 0, no overflow of x^2 beyond 1e10, where sqrt(x^2
// + 1) is |x| and the result log(2|x|)).
float asinh_(float x) {
  float u = abs(x), r;
  if (isnan(x) || isinf(x)) return x;
  if (u > 1e10) r = log_(u) + 0.6931471805599453;
  else r = log1p_(u + u * u / (1.0 + sqrt(1.0 + u * u)));
  return signBit_(x) ? -r : r;
}
float acosh_(float x) {
  if (isnan(x) || x < 1.0) return NAN;
  if (x > 1e10) return log_(x) + 0.6931471805599453;
  float d = x - 1.0;
  return log1p_(d + sqrt(d * (x + 1.0)));
}
float atanh_(float x) {
  if (isnan(x) || abs(x) > 1.0) return NAN;
  return 0.5 * log1p_(2.0 * x / (1.0 - x));
}
// IEEE pow's special cases, as the webgpu backend's pow_ has them (found by
// the kernel fuzzer: gl gave pow(-inf, -1.94) = NaN where it is 0, and
// pow(-1, inf) = 0 where it is 1).
float pow_(float a, float b) {
  if (b == 0.0 || a == 1.0) return 1.0;
  if (isnan(a) || isnan(b)) return NAN;
  float aa = abs(a);
  if (isinf(b)) {
    if (aa == 1.0) return 1.0;
    return (aa > 1.0) == (b > 0.0) ? INF : 0.0;
  }
  float r;
  if (aa == 0.0) r = b > 0.0 ? 0.0 : INF;
  else if (isinf(aa)) r = b > 0.0 ? INF : 0.0;
  else {
    // log2 near 1 by the series, as in log_: pow(0.9999, -20000) was 7e-4
    // off. What is left is exp2's, ~|b log2 a| 2^-24 relative (as TF.js's).
    float u = aa - 1.0;
    r = exp2(b * (abs(u) < 0.29 ? log1pSeries_(u) * 1.4426950408889634 : log2(aa)));
  }
  if ((floatBitsToUint(a) & 0x80000000u) != 0u) {  // -0 too
    if (fract(b) != 0.0) return aa == 0.0 || isinf(aa) ? r : NAN;
    if (fract(b * 0.5) != 0.0) r = -r;  // odd integer power
  }
  return r;
}
// x * y = p + err exactly (Dekker; the 12-bit halves come from bit masks,
// which no compiler folds away, and their products are exact).
vec2 twoProd_(float x, float y) {
  float p = x * y;
  float xh = uintBitsToFloat(floatBitsToUint(x) & 0xfffff000u), xl = x - xh;
  float yh = uintBitsToFloat(floatBitsToUint(y) & 0xfffff000u), yl = y - yh;
  return vec2(p, ((xh * yh - p) + xh * yl + xl * yh) + xl * yl);
}
// floor(a / b) of the exact quotient: a rounded a / b can land on the next
// integer (3.0000002 / 1.0000001 -> 3.0); the exact residual corrects it.
float floorDiv_(float a, float b) {
  float q = floor(a / b);
  // An infinite b: a / b is exact (+-0), and the residual would be
  // inf * 0, whose NaN a renderer may compare as true.
  if (isinf(q) || isnan(q) || isinf(b) || abs(q) >= 16777216.0) return q;
  vec2 pe = twoProd_(q, b);
  float r = (a - pe.x) - pe.y;
  if ((b > 0.0 && r < 0.0) || (b < 0.0 && r > 0.0)) q -= 1.0;
  return q;
}
// a - b floor(a / b), exact where the quotient has 24 bits (a - b trunc(a / b)
// loses the remainder's low bits), as the webgpu backend's fmod_ (the kernel
// fuzzer found gl's fmod(1.16, inf) = NaN where it is 1.16).
// |a| mod |b| with a's sign, exactly, where the quotient passes 2^24 (then
// a - b trunc(a / b) is off by up to ulp(a): fmod(1e30, 0.44) gave 7.6e22):
// each step subtracts the largest |b| 2^k not above the rest, which Sterbenz's
// lemma makes exact; the rest's exponent falls every step (at most ~280).
float fmodLarge_(float a, float b) {
  float r = abs(a), m = abs(b);
  for (int i = 0; i < 300 && r >= m; ++i) {
    float k = floor(log2(r) - log2(m));
    float h = floor(k * 0.5);
    float t = m * exp2(h) * exp2(k - h);  // two factors: 2^k alone can overflow
    if (t > r) t *= 0.5;
    else if (t * 2.0 <= r) t *= 2.0;
    r -= t;
  }
  return a < 0.0 ? -r : r;
}
float fmod_(float a, float b) {
  if (isinf(b) && !isinf(a) && !isnan(a)) return a != 0.0 && (a < 0.0) != (b < 0.0) ? b : a;
  float q = floorDiv_(a, b);
  if (isinf(q) || isnan(q) || abs(q) >= 16777216.0) {
    if (isinf(a) || isnan(a) || isnan(b) || b == 0.0) return NAN;
    float r = fmodLarge_(a, b);
    if (r != 0.0 && ((r < 0.0) != (b < 0.0))) r += b;
    return r;
  }
  vec2 pe = twoProd_(q, b);
  return (a - pe.x) - pe.y;
}
uint uabs_(int a) { return a < 0 ? 0u - uint(a) : uint(a); }
int idivTrunc_(int a, int b) {
  uint q = uabs_(a) / uabs_(b);
  return (a < 0) != (b < 0) ? int(0u - q) : int(q);
}
int ifloorDiv_(int a, int b) {
  if (b == 0) return 0;
  int q = idivTrunc_(a, b);
  int r = int(uint(a) - uint(q) * uint(b));
  if (r != 0 && ((a < 0) != (b < 0))) q -= 1;
  return q;
}
int imod_(int a, int b) {
  if (b == 0 || b == -1) return 0;
  int r = int(uint(a) - uint(idivTrunc_(a, b)) * uint(b));
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
int ipow_(int a, int b) {
  if (b < 0) {
    if (a == 1) return 1;
    if (a == -1) return (b & 1) == 0 ? 1 : -1;
    return 0;
  }
  uint r = 1u, base = uint(a);
  for (uint e = uint(b); e > 0u; e >>= 1u) {
    if ((e & 1u) != 0u) r *= base;
    base *= base;
  }
  return int(r);
}
)";

}  // namespace glint::gl
