// WGSL helpers for float math that WGSL leaves loose (exp/log/sin/cos at NaN,
// 0 and inf; expm1, log1p, erf; tanh and pow without overflow or undefined
// cases) and int32 division with the reference's rounding (WGSL defines x / 0
// = x and x % 0 = 0, the reference does not). The gl backend's math_glsl.h,
// ported: same numerics, so both backends match the reference alike. Needs
// prelude()'s isnan_/isinf_/inf_/nan_ (NaN tests by bits: a compiler may
// assume finite floats).
#include "src/backends/webgpu/wgsl.h"

namespace glint::webgpu {

const char* const kMathWgsl = R"(
// exp and log as IEEE float32 has them, to about 1 ulp: WGSL leaves NaN, 0
// and inf inputs undefined (SwiftShader: exp(NaN) = inf, log(0) = -88), and
// SwiftShader's built-ins are loose (exp(88.7) off by 3e-6, log near 1 by
// 5e-8 absolute, which expm1/log1p/tanh of small x turn into 5% errors).
// Cephes' expf and logf: range reduction by ln 2 in two parts, polynomials.
fn exp_(x: f32) -> f32 {
  if (isnan_(x)) { return x; }
  if (x > 88.72283905206835) { return inf_(); }
  if (x < -103.972084) { return 0.0; }
  let n = round(x * 1.44269504088896341);
  let r = (x - n * 0.693359375) - n * -2.12194440e-4;
  let y = (((((1.9875691500e-4 * r + 1.3981999507e-3) * r + 8.3334519073e-3) * r +
           4.1665795894e-2) * r + 1.6666665459e-1) * r + 5.0000001201e-1) * r * r + r + 1.0;
  // y * 2^n in two factors: 2^n alone overflows at n = 128 or is subnormal.
  let k = i32(n);
  let h = k >> 1u;
  return y * bitcast<f32>(u32(h + 127) << 23u) * bitcast<f32>(u32(k - h + 127) << 23u);
}
fn log_(x0: f32) -> f32 {
  if (isnan_(x0) || x0 < 0.0) { return nan_(); }
  if (x0 == 0.0) { return -inf_(); }
  if (isinf_(x0)) { return x0; }
  var x = x0;
  var e = 0;
  if (x < 1.17549435e-38) { x *= 8388608.0; e = -23; }  // subnormal, where not flushed
  let bits = bitcast<u32>(x);
  e += i32(bits >> 23u) - 126;
  var m = bitcast<f32>((bits & 0x007fffffu) | 0x3f000000u);  // x = m 2^e, m in [0.5, 1)
  if (m < 0.70710678118654752) { e -= 1; m = m + m - 1.0; } else { m = m - 1.0; }
  let z = m * m;
  var y = ((((((((7.0376836292e-2 * m - 1.1514610310e-1) * m + 1.1676998740e-1) * m -
          1.2420140846e-1) * m + 1.4249322787e-1) * m - 1.6668057665e-1) * m +
          2.0000714765e-1) * m - 2.4999993993e-1) * m + 3.3333331174e-1) * m * z;
  let fe = f32(e);
  y += -2.12194440e-4 * fe - 0.5 * z;
  return (m + y) + 0.693359375 * fe;
}
// (sin x, cos x): x reduced by pi/2 in three parts (exact products for
// |x| < 1e4), then Cephes' single-precision polynomials on [-pi/4, pi/4]
// (the built-ins are off by 1e-5 on SwiftShader).
fn sincos_(x: f32) -> vec2<f32> {
  if (isnan_(x) || isinf_(x)) { return vec2<f32>(nan_()); }
  // Beyond the reduction's reach (its quotient overflows an i32): the
  // builtins, which stay in [-1, 1] (as the gl backend).
  if (abs(x) > 1e5) { return vec2<f32>(sin(x), cos(x)); }
  let q = round(x * 0.6366197723675814);
  let r = ((x - q * 1.5703125) - q * 4.837512969970703125e-4) - q * 7.54978995489188216e-8;
  let z = r * r;
  let s = r + r * z * (-1.6666654611e-1 + z * (8.3321608736e-3 + z * -1.9515295891e-4));
  let c = 1.0 - 0.5 * z +
          z * z * (4.166664568298827e-2 + z * (-1.388731625493765e-3 + z * 2.443315711809948e-5));
  let k = i32(q) & 3;
  if (k == 0) { return vec2<f32>(s, c); }
  if (k == 1) { return vec2<f32>(c, -s); }
  if (k == 2) { return vec2<f32>(-s, -c); }
  return vec2<f32>(-c, s);
}
fn expm1_(x: f32) -> f32 {
  let u = exp_(x);
  if (u == 1.0) { return x; }
  let um1 = u - 1.0;
  // Away from 0, u - 1 loses nothing (and um1 * x would overflow).
  if (isinf_(u) || abs(x) >= 0.5) { return um1; }
  return um1 * x / log_(u);  // Kahan: exact-ish for small |x|
}
// Near 0 as 2 atanh(x / (2 + x)) by its series: Kahan's log(1 + x) x /
// ((1 + x) - 1) is no use where the compiler folds (1 + x) - 1 to x
// (SwiftShader does).
fn log1p_(x: f32) -> f32 {
  if (abs(x) < 0.29) {
    let s = x / (2.0 + x);
    let z = s * s;
    return 2.0 * s * (1.0 + z * (0.33333333333333333 + z * (0.2 + z * (0.14285714285714286 +
           z * (0.11111111111111111 + z * 0.09090909090909091)))));
  }
  return log_(1.0 + x);
}
fn tanh_(x: f32) -> f32 {
  if (isnan_(x)) { return x; }
  let e = expm1_(-2.0 * abs(x));
  let r = -e / (2.0 + e);
  return select(r, -r, x < 0.0);
}
fn sigmoid_(x: f32) -> f32 {
  if (x >= 0.0) { return 1.0 / (1.0 + exp_(-x)); }
  let e = exp_(x);
  return e / (1.0 + e);
}
fn erf_(x: f32) -> f32 {
  let ax = abs(x);
  if (ax < 0.5) {  // Taylor series, relative error < 1e-7 here
    let x2 = x * x;
    return x * (1.1283791670955126 + x2 * (-0.37612638903183754 + x2 * (0.11283791670955126 +
           x2 * (-0.026866170645131252 + x2 * (0.005223977625442188 +
           x2 * -0.0008548327023450852)))));
  }
  // Abramowitz & Stegun 7.1.26, absolute error < 1.5e-7.
  let t = 1.0 / (1.0 + 0.3275911 * ax);
  let y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t +
                 0.254829592) * t * exp_(-ax * ax);
  return select(y, -y, x < 0.0);
}
// atan on [0, inf) as Cephes' atanf: reduced to |t| <= tan(pi/8) by
// tan(3pi/8) and tan(pi/8), a degree-9 odd polynomial there (2 ulp); WGSL
// allows its own atan 4096 ulp. The gl backend's math_glsl.h has the same.
fn atanPositive_(x: f32) -> f32 {
  var base = 0.0;
  var t = x;
  if (x > 2.414213562373095) { base = 1.5707963267948966; t = -1.0 / x; }
  else if (x > 0.4142135623730950) { base = 0.7853981633974483; t = (x - 1.0) / (x + 1.0); }
  let z = t * t;
  return base + ((((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z -
                  3.33329491539e-1) * z * t + t);
}
fn atan_(x: f32) -> f32 {
  if (isnan_(x)) { return x; }
  let r = atanPositive_(abs(x));
  if (x == 0.0) { return x; }
  return select(r, -r, x < 0.0);
}
fn signBit_(x: f32) -> bool { return (bitcast<u32>(x) >> 31u) != 0u; }
// IEEE atan2 (C's): signed zeros and infinities pick the quadrant.
fn atan2_(y: f32, x: f32) -> f32 {
  if (isnan_(x) || isnan_(y)) { return nan_(); }
  let pi = 3.141592653589793;
  let ay = abs(y);
  let ax = abs(x);
  var r: f32;
  if (ay == 0.0) { r = select(0.0, pi, signBit_(x)); }
  else if (ax == 0.0) { r = pi * 0.5; }
  else if (isinf_(ax) && isinf_(ay)) { r = select(pi * 0.25, pi * 0.75, signBit_(x)); }
  else if (isinf_(ax)) { r = select(0.0, pi, signBit_(x)); }
  else if (isinf_(ay)) { r = pi * 0.5; }
  else {
    // The smaller over the larger: no overflow.
    if (ay <= ax) { r = atanPositive_(ay / ax); } else { r = pi * 0.5 - atanPositive_(ax / ay); }
    if (signBit_(x)) { r = pi - r; }
  }
  return select(r, -r, signBit_(y));
}
fn asin_(x: f32) -> f32 {
  if (isnan_(x) || abs(x) > 1.0) { return nan_(); }
  return atan2_(x, sqrt((1.0 - x) * (1.0 + x)));
}
fn acos_(x: f32) -> f32 {
  if (isnan_(x) || abs(x) > 1.0) { return nan_(); }
  return atan2_(sqrt((1.0 - x) * (1.0 + x)), x);
}
// asinh, acosh, atanh over log1p_: exact identities arranged for float32
// (no cancellation near 0; beyond 1e10, sqrt(x^2 + 1) is |x| and the
// result log(2|x|)).
fn asinh_(x: f32) -> f32 {
  if (isnan_(x) || isinf_(x)) { return x; }
  let u = abs(x);
  var r: f32;
  if (u > 1e10) { r = log_(u) + 0.6931471805599453; }
  else { r = log1p_(u + u * u / (1.0 + sqrt(1.0 + u * u))); }
  return select(r, -r, signBit_(x));
}
fn acosh_(x: f32) -> f32 {
  if (isnan_(x) || x < 1.0) { return nan_(); }
  if (x > 1e10) { return log_(x) + 0.6931471805599453; }
  let d = x - 1.0;
  return log1p_(d + sqrt(d * (x + 1.0)));
}
fn atanh_(x: f32) -> f32 {
  if (isnan_(x) || abs(x) > 1.0) { return nan_(); }
  return 0.5 * log1p_(2.0 * x / (1.0 - x));
}
// aa^b for finite aa > 0: aa = m 2^e with m in [sqrt(1/2), sqrt(2)], so
// b log2(aa) = b e + b log2(m), both products exact (twoProd_) and b e split
// into an integer and a rest: the rounding grows with b log2(m) only, not with
// e (exp2(b * log2(1e-6)) was off by 4e-6 for b = 3).
fn powPositive_(aa: f32, b: f32) -> f32 {
  var x = aa;
  var e = 0;
  if (x < 1.17549435e-38) { x *= 8388608.0; e = -23; }  // subnormal, where not flushed
  let bits = bitcast<u32>(x);
  e += i32(bits >> 23u) - 127;
  var m = bitcast<f32>((bits & 0x007fffffu) | 0x3f800000u);  // [1, 2)
  if (m > 1.41421356) { m *= 0.5; e += 1; }
  let be = twoProd_(b, f32(e));
  if (abs(be.x) > 1e30) { return select(0.0, inf_(), be.x > 0.0); }  // |b log2(aa)| >= |b e| / 2
  let bl = twoProd_(b, log_(m) * 1.44269504088896341);
  let n1 = round(be.x);
  let w = (((be.x - n1) + be.y) + bl.y) + bl.x;
  let n2 = round(w);
  let n = n1 + n2;
  if (n > 129.0) { return inf_(); }
  if (n < -152.0) { return 0.0; }
  let y = exp_((w - n2) * 0.69314718055994531);
  let k = i32(n);
  let h = k >> 1u;
  return y * bitcast<f32>(u32(h + 127) << 23u) * bitcast<f32>(u32(k - h + 127) << 23u);
}
// C's pow, special cases included (pow(-1, inf) = 1, pow(-0, -3) = -inf,
// pow(-inf, 0.5) = inf).
fn pow_(a: f32, b: f32) -> f32 {
  if (b == 0.0 || a == 1.0) { return 1.0; }
  if (isnan_(a) || isnan_(b)) { return nan_(); }
  let aa = abs(a);
  if (isinf_(b)) {
    if (aa == 1.0) { return 1.0; }
    return select(0.0, inf_(), (aa > 1.0) == (b > 0.0));
  }
  var r: f32;
  if (aa == 0.0) { r = select(inf_(), 0.0, b > 0.0); }
  else if (isinf_(aa)) { r = select(0.0, inf_(), b > 0.0); }
  else { r = powPositive_(aa, b); }
  if ((bitcast<u32>(a) & 0x80000000u) != 0u) {  // -0 too
    if (fract(b) != 0.0) { return select(nan_(), r, aa == 0.0 || isinf_(aa)); }
    if (fract(b * 0.5) != 0.0) { r = -r; }  // odd integer power
  }
  return r;
}
// x * y = p + err exactly (Dekker; the 12-bit halves come from bit masks,
// which no compiler folds away, and their products are exact).
fn twoProd_(x: f32, y: f32) -> vec2<f32> {
  let p = x * y;
  let xh = bitcast<f32>(bitcast<u32>(x) & 0xfffff000u);
  let xl = x - xh;
  let yh = bitcast<f32>(bitcast<u32>(y) & 0xfffff000u);
  let yl = y - yh;
  return vec2<f32>(p, ((xh * yh - p) + xh * yl + xl * yh) + xl * yl);
}
// floor(a / b) of the exact quotient: a rounded a / b can land on the next
// integer (3.0000002 / 1.0000001 -> 3.0); the exact residual corrects it.
fn floorDiv_(a: f32, b: f32) -> f32 {
  var q = floor(a / b);
  // An infinite b: a / b is exact (+-0), and the residual would be inf * 0.
  if (isinf_(q) || isnan_(q) || isinf_(b) || abs(q) >= 16777216.0) { return q; }
  let pe = twoProd_(q, b);
  let r = (a - pe.x) - pe.y;
  if ((b > 0.0 && r < 0.0) || (b < 0.0 && r > 0.0)) { q -= 1.0; }
  return q;
}
// |a| mod |b| with a's sign, exactly, where the quotient passes 2^24 (as the
// gl backend's fmodLarge_: a - b trunc(a / b) is off by up to ulp(a)).
fn fmodLarge_(a: f32, b: f32) -> f32 {
  var r = abs(a);
  let m = abs(b);
  for (var i = 0; i < 300 && r >= m; i++) {
    let k = floor(log2(r) - log2(m));
    let h = floor(k * 0.5);
    var t = m * exp2(h) * exp2(k - h);
    if (t > r) { t *= 0.5; } else if (t * 2.0 <= r) { t *= 2.0; }
    r -= t;
  }
  return select(r, -r, a < 0.0);
}
// a - b floor(a / b), exact where the quotient has 24 bits (a - b trunc(a / b)
// loses the remainder's low bits: fmod(88.73, 0.001) came out 0, not 0.000999).
fn fmod_(a: f32, b: f32) -> f32 {
  if (isinf_(b) && !isinf_(a) && !isnan_(a)) {
    return select(a, b, a != 0.0 && (a < 0.0) != (b < 0.0));
  }
  let q = floorDiv_(a, b);
  if (isinf_(q) || isnan_(q) || abs(q) >= 16777216.0) {
    if (isinf_(a) || isnan_(a) || isnan_(b) || b == 0.0) { return nan_(); }
    var r = fmodLarge_(a, b);
    if (r != 0.0 && ((r < 0.0) != (b < 0.0))) { r += b; }
    return r;
  }
  let pe = twoProd_(q, b);
  return (a - pe.x) - pe.y;
}
fn uabs_(a: i32) -> u32 { return select(u32(a), 0u - u32(a), a < 0); }
fn idivTrunc_(a: i32, b: i32) -> i32 {
  let q = uabs_(a) / uabs_(b);
  return select(i32(q), i32(0u - q), (a < 0) != (b < 0));
}
fn ifloorDiv_(a: i32, b: i32) -> i32 {
  if (b == 0) { return 0; }
  var q = idivTrunc_(a, b);
  let r = a - q * b;
  if (r != 0 && ((a < 0) != (b < 0))) { q -= 1; }
  return q;
}
fn imod_(a: i32, b: i32) -> i32 {
  if (b == 0 || b == -1) { return 0; }
  var r = a - idivTrunc_(a, b) * b;
  if (r != 0 && ((r < 0) != (b < 0))) { r += b; }
  return r;
}
fn ipow_(a: i32, b: i32) -> i32 {
  if (b < 0) {
    if (a == 1) { return 1; }
    if (a == -1) { return select(-1, 1, (b & 1) == 0); }
    return 0;
  }
  var r = 1u;
  var base = u32(a);
  for (var e = u32(b); e > 0u; e >>= 1u) {
    if ((e & 1u) != 0u) { r *= base; }
    base *= base;
  }
  return i32(r);
}
)";

}  // namespace glint::webgpu
