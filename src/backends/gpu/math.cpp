#include "src/backends/gpu/math.h"

#include <limits>

#include "glint/error.h"

namespace glint::gpu {

namespace {

constexpr Type F = Type::f32;
constexpr Type I = Type::i32;
constexpr Type U = Type::u32;

// Functions, not globals: kernels built during static initialisation use them.
E nanF() { return E(std::numeric_limits<float>::quiet_NaN()); }
E infF() { return E(std::numeric_limits<float>::infinity()); }

Fn define(const char* name, Type result, std::vector<std::pair<std::string, Type>> params,
          void (*body)(Fn&)) {
  Fn f(name, result, std::move(params));
  body(f);
  return f;
}

/// 2^k for k in [-126, 127], from its bits.
E pow2(E k) { return bitcast(F, cast(U, k + 127) << 23); }

// e^x as 2^n e^r: n = round(x / ln 2), r = x - n ln 2 in two parts (Cody and
// Waite; |r| <= ln 2 / 2), e^r by Cephes' expf polynomial (about 1 ulp), 2^n
// in two factors (2^128 alone overflows, 2^-150 is no normal). x is clamped
// where float32's e^x is 0 or inf already.
const Fn& expFn() {
  static const Fn f = define("exp_", F, {{"x", F}}, [](Fn& f) {
    E x = f.arg(0);
    f.ifReturn(isnan(x), x);
    E c = f.let("c", clamp(x, -104.0, 89.0));
    E n = f.let("n", roundEven(c * 1.44269504088896341));
    E r = f.let("r", (c - n * 0.693359375) - n * -2.12194440e-4);
    E y = f.let(
        "y",
        (((((1.9875691500e-4 * r + 1.3981999507e-3) * r + 8.3334519073e-3) * r + 4.1665795894e-2) *
              r +
          1.6666665459e-1) *
             r +
         5.0000001201e-1) *
                r * r +
            r + 1.0);
    E k = f.let("k", cast(I, n));
    E h = f.let("h", k >> 1);
    f.ret(y * pow2(h) * pow2(k - h));
  });
  return f;
}

// Cephes' logf: x = m 2^e with m in [sqrt(1/2), sqrt(2)), a polynomial in
// m - 1 (exact near 1, where the renderers' log is off by 1e-7 absolute).
const Fn& logFn() {
  static const Fn f = define("log_", F, {{"x0", F}}, [](Fn& f) {
    E x0 = f.arg(0);
    f.ifReturn(isnan(x0) || x0 < 0.0, nanF());
    f.ifReturn(x0 == 0.0, -infF());
    f.ifReturn(isinf(x0), x0);
    E x = f.var("x", x0);
    E e = f.var("e", 0);
    f.ifElse(x < 1.17549435e-38, [&] {  // subnormal, where not flushed
      f.assign(x, x * 8388608.0);
      f.assign(e, -23);
    });
    E bits = f.let("bits", bitcast(U, x));
    f.assign(e, e + cast(I, bits >> 23) - 126);
    E m = f.var("m", bitcast(F, (bits & litU(0x007fffff)) | litU(0x3f000000)));  // [0.5, 1)
    f.ifElse(
        m < 0.70710678118654752,
        [&] {
          f.assign(e, e - 1);
          f.assign(m, m + m - 1.0);
        },
        [&] { f.assign(m, m - 1.0); });
    E z = f.let("z", m * m);
    E y = f.var("y", ((((((((7.0376836292e-2 * m - 1.1514610310e-1) * m + 1.1676998740e-1) * m -
                           1.2420140846e-1) *
                              m +
                          1.4249322787e-1) *
                             m -
                         1.6668057665e-1) *
                            m +
                        2.0000714765e-1) *
                           m -
                       2.4999993993e-1) *
                          m +
                      3.3333331174e-1) *
                         m * z);
    E fe = f.let("fe", cast(F, e));
    f.assign(y, y + -2.12194440e-4 * fe - 0.5 * z);
    f.ret((m + y) + 0.693359375 * fe);
  });
  return f;
}

// (sin x, cos x): x reduced by pi/2 in three parts (exact products for
// |x| < 1e4), then Cephes' single-precision polynomials on [-pi/4, pi/4]
// (the renderers' own are off by 1e-5 on SwiftShader).
const Fn& sincosFn() {
  static const Fn f = define("sincos_", Type::vec2f, {{"x", F}}, [](Fn& f) {
    E x = f.arg(0);
    f.ifReturn(isnan(x) || isinf(x), vec2(nanF(), nanF()));
    // Beyond the reduction's reach its quotient overflows an int (the kernel
    // fuzzer saw sin(1e30) = inf): the built-ins, which stay in [-1, 1], where
    // float32 carries no more information about the angle anyway.
    f.ifReturn(abs(x) > 1e5, vec2(sin(x), cos(x)));
    E q = f.let("q", roundEven(x * 0.6366197723675814));
    E r = f.let("r",
                ((x - q * 1.5703125) - q * 4.837512969970703125e-4) - q * 7.54978995489188216e-8);
    E z = f.let("z", r * r);
    E s = f.let("s", r + r * z * (-1.6666654611e-1 + z * (8.3321608736e-3 + z * -1.9515295891e-4)));
    E c = f.let("c", 1.0 - 0.5 * z +
                         z * z *
                             (4.166664568298827e-2 +
                              z * (-1.388731625493765e-3 + z * 2.443315711809948e-5)));
    E k = f.let("k", cast(I, q) & 3);
    f.ifReturn(k == 0, vec2(s, c));
    f.ifReturn(k == 1, vec2(c, -s));
    f.ifReturn(k == 2, vec2(-s, -c));
    f.ret(vec2(-c, s));
  });
  return f;
}

// Near 0 by Taylor terms to x^8 (relative error < 1e-8 below |x| = 0.5):
// Kahan's (u - 1) x / log u needs a log exact near 1, and a compiler may fold
// (1 + x) - 1 to x. Beyond, e^x - 1 cancels nothing that matters.
const Fn& expm1Fn() {
  static const Fn f = define("expm1_", F, {{"x", F}}, [](Fn& f) {
    E x = f.arg(0);
    f.ifReturn(abs(x) < 0.5,
               x * (1.0 + x * (0.5 + x * (1.6666666666666666e-1 +
                                          x * (4.1666666666666664e-2 +
                                               x * (8.3333333333333332e-3 +
                                                    x * (1.3888888888888889e-3 +
                                                         x * (1.9841269841269841e-4 +
                                                              x * 2.4801587301587302e-5))))))));
    f.ret(exp_(x) - 1.0);
  });
  return f;
}

// Near 0 as 2 atanh(x / (2 + x)) by its series (the terms left out are below
// 1e-9 relative for |x| < 0.29); log(1 + x) beyond.
const Fn& log1pFn() {
  static const Fn f = define("log1p_", F, {{"x", F}}, [](Fn& f) {
    E x = f.arg(0);
    f.ifElse(abs(x) < 0.29, [&] {
      E s = f.let("s", x / (2.0 + x));
      E z = f.let("z", s * s);
      f.ret(2.0 * s *
            (1.0 + z * (0.33333333333333333 +
                        z * (0.2 + z * (0.14285714285714286 +
                                        z * (0.11111111111111111 + z * 0.09090909090909091))))));
    });
    f.ret(log_(1.0 + x));
  });
  return f;
}

// tanh and sigmoid without branches on the value: lockstep hardware
// (GPUs, SwiftShader) pays for both sides of a data branch, and these are
// the LSTM cells' main cost. tanh: Cephes' odd polynomial near 0 (no
// cancellation), 1 - 2 / (e^2|x| + 1) beyond.
const Fn& tanhFn() {
  static const Fn f = define("tanh_", F, {{"x", F}}, [](Fn& f) {
    E x = f.arg(0);
    E ax = f.let("ax", abs(x));
    E z = f.let("z", x * x);
    E p = f.let("p", (((-5.70498872745e-3 * z + 2.06390887954e-2) * z - 5.37397155531e-2) * z +
                      1.33314422036e-1) *
                             z -
                         3.33332819422e-1);
    E big = f.let("big", 1.0 - 2.0 / (exp_(2.0 * ax) + 1.0));
    E r = f.let("r", select(ax < 0.625, p * z * x + x, select(x < 0.0, -big, big)));
    f.ret(select(isnan(x), x, r));
  });
  return f;
}

const Fn& sigmoidFn() {
  static const Fn f = define("sigmoid_", F, {{"x", F}}, [](Fn& f) {
    E x = f.arg(0);
    E e = f.let("e", exp_(-abs(x)));
    E r = f.let("r", 1.0 / (1.0 + e));
    f.ret(select(isnan(x), x, select(x >= 0.0, r, e * r)));
  });
  return f;
}

const Fn& erfFn() {
  static const Fn f = define("erf_", F, {{"x", F}}, [](Fn& f) {
    E x = f.arg(0);
    E ax = f.let("ax", abs(x));
    f.ifElse(ax < 0.5, [&] {  // Taylor series, relative error < 1e-7 here
      E x2 = f.let("x2", x * x);
      f.ret(x * (1.1283791670955126 +
                 x2 * (-0.37612638903183754 +
                       x2 * (0.11283791670955126 +
                             x2 * (-0.026866170645131252 +
                                   x2 * (0.005223977625442188 + x2 * -0.0008548327023450852))))));
    });
    // Abramowitz & Stegun 7.1.26, absolute error < 1.5e-7.
    E t = f.let("t", 1.0 / (1.0 + 0.3275911 * ax));
    E y = f.let(
        "y", 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t +
                    0.254829592) *
                       t * exp_(-ax * ax));
    f.ret(select(x < 0.0, -y, y));
  });
  return f;
}

// atan on [0, inf) as Cephes' atanf: reduced to |t| <= tan(pi/8) by
// tan(3pi/8) and tan(pi/8), a degree-9 odd polynomial there (2 ulp); the
// languages allow their own atan 4096 ulp.
const Fn& atanPositiveFn() {
  static const Fn f = define("atanPositive_", F, {{"x", F}}, [](Fn& f) {
    E x = f.arg(0);
    E base = f.var("base", 0.0);
    E t = f.var("t", x);
    f.ifElse(
        x > 2.414213562373095,
        [&] {
          f.assign(base, 1.5707963267948966);
          f.assign(t, -1.0 / x);
        },
        [&] {
          f.ifElse(x > 0.4142135623730950, [&] {
            f.assign(base, 0.7853981633974483);
            f.assign(t, (x - 1.0) / (x + 1.0));
          });
        });
    E z = f.let("z", t * t);
    f.ret(base + ((((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z -
                   3.33329491539e-1) *
                      z * t +
                  t));
  });
  return f;
}

E atanPositive(E x) { return call(atanPositiveFn(), {std::move(x)}); }

const Fn& atanFn() {
  static const Fn f = define("atan_", F, {{"x", F}}, [](Fn& f) {
    E x = f.arg(0);
    f.ifReturn(isnan(x) || x == 0.0, x);  // -0 stays -0
    E r = f.let("r", atanPositive(abs(x)));
    f.ret(select(x < 0.0, -r, r));
  });
  return f;
}

const Fn& signBitFn() {
  static const Fn f = define("signBit_", Type::boolean, {{"x", F}},
                             [](Fn& f) { f.ret((bitcast(U, f.arg(0)) >> 31) != litU(0)); });
  return f;
}

E signBit(E x) { return call(signBitFn(), {std::move(x)}); }

// IEEE atan2 (C's): signed zeros and infinities pick the quadrant.
const Fn& atan2Fn() {
  static const Fn f = define("atan2_", F, {{"y", F}, {"x", F}}, [](Fn& f) {
    E y = f.arg(0), x = f.arg(1);
    f.ifReturn(isnan(x) || isnan(y), nanF());
    const double pi = 3.141592653589793;
    E ay = f.let("ay", abs(y));
    E ax = f.let("ax", abs(x));
    E r = f.var("r", Type::f32);
    f.ifElse(
        ay == 0.0, [&] { f.assign(r, select(signBit(x), pi, 0.0)); },
        [&] {
          f.ifElse(
              ax == 0.0, [&] { f.assign(r, pi * 0.5); },
              [&] {
                f.ifElse(
                    isinf(ax) && isinf(ay),
                    [&] { f.assign(r, select(signBit(x), pi * 0.75, pi * 0.25)); },
                    [&] {
                      f.ifElse(
                          isinf(ax), [&] { f.assign(r, select(signBit(x), pi, 0.0)); },
                          [&] {
                            f.ifElse(
                                isinf(ay), [&] { f.assign(r, pi * 0.5); },
                                [&] {
                                  // The smaller over the larger: no overflow.
                                  f.assign(r, select(ay <= ax, atanPositive(ay / ax),
                                                     pi * 0.5 - atanPositive(ax / ay)));
                                  f.ifElse(signBit(x), [&] { f.assign(r, pi - r); });
                                });
                          });
                    });
              });
        });
    f.ret(select(signBit(y), -r, r));
  });
  return f;
}

const Fn& asinFn() {
  static const Fn f = define("asin_", F, {{"x", F}}, [](Fn& f) {
    E x = f.arg(0);
    f.ifReturn(isnan(x) || abs(x) > 1.0, nanF());
    f.ret(atan2_(x, sqrt((1.0 - x) * (1.0 + x))));
  });
  return f;
}

const Fn& acosFn() {
  static const Fn f = define("acos_", F, {{"x", F}}, [](Fn& f) {
    E x = f.arg(0);
    f.ifReturn(isnan(x) || abs(x) > 1.0, nanF());
    f.ret(atan2_(sqrt((1.0 - x) * (1.0 + x)), x));
  });
  return f;
}

// asinh, acosh, atanh over log1p_: exact identities arranged for float32 (no
// cancellation near 0; beyond 1e10, sqrt(x^2 + 1) is |x| and the result
// log(2|x|)).
const Fn& asinhFn() {
  static const Fn f = define("asinh_", F, {{"x", F}}, [](Fn& f) {
    E x = f.arg(0);
    f.ifReturn(isnan(x) || isinf(x), x);
    E u = f.let("u", abs(x));
    E r = f.let("r", select(u > 1e10, log_(u) + 0.6931471805599453,
                            log1p_(u + u * u / (1.0 + sqrt(1.0 + u * u)))));
    f.ret(select(signBit(x), -r, r));
  });
  return f;
}

const Fn& acoshFn() {
  static const Fn f = define("acosh_", F, {{"x", F}}, [](Fn& f) {
    E x = f.arg(0);
    f.ifReturn(isnan(x) || x < 1.0, nanF());
    f.ifReturn(x > 1e10, log_(x) + 0.6931471805599453);
    E d = f.let("d", x - 1.0);
    f.ret(log1p_(d + sqrt(d * (x + 1.0))));
  });
  return f;
}

const Fn& atanhFn() {
  static const Fn f = define("atanh_", F, {{"x", F}}, [](Fn& f) {
    E x = f.arg(0);
    f.ifReturn(isnan(x) || abs(x) > 1.0, nanF());
    f.ret(0.5 * log1p_(2.0 * x / (1.0 - x)));
  });
  return f;
}

// x * y = p + err exactly (Dekker; the 12-bit halves come from bit masks,
// which no compiler folds away, and their products are exact).
const Fn& twoProdFn() {
  static const Fn f = define("twoProd_", Type::vec2f, {{"x", F}, {"y", F}}, [](Fn& f) {
    E x = f.arg(0), y = f.arg(1);
    E p = f.let("p", x * y);
    E xh = f.let("xh", bitcast(F, bitcast(U, x) & litU(0xfffff000)));
    E xl = f.let("xl", x - xh);
    E yh = f.let("yh", bitcast(F, bitcast(U, y) & litU(0xfffff000)));
    E yl = f.let("yl", y - yh);
    f.ret(vec2(p, ((xh * yh - p) + xh * yl + xl * yh) + xl * yl));
  });
  return f;
}

E twoProd(E x, E y) { return call(twoProdFn(), {std::move(x), std::move(y)}); }

// aa^b for finite aa > 0: aa = m 2^e with m in [sqrt(1/2), sqrt(2)], so
// b log2(aa) = b e + b log2(m), both products exact (twoProd_) and b e split
// into an integer and a rest: the rounding grows with b log2(m) only, not with
// e (exp2(b * log2(1e-6)) was off by 4e-6 for b = 3).
const Fn& powPositiveFn() {
  static const Fn f = define("powPositive_", F, {{"aa", F}, {"b", F}}, [](Fn& f) {
    E aa = f.arg(0), b = f.arg(1);
    E x = f.var("x", aa);
    E e = f.var("e", 0);
    f.ifElse(x < 1.17549435e-38, [&] {  // subnormal, where not flushed
      f.assign(x, x * 8388608.0);
      f.assign(e, -23);
    });
    E bits = f.let("bits", bitcast(U, x));
    f.assign(e, e + cast(I, bits >> 23) - 127);
    E m = f.var("m", bitcast(F, (bits & litU(0x007fffff)) | litU(0x3f800000)));  // [1, 2)
    f.ifElse(m > 1.41421356, [&] {
      f.assign(m, m * 0.5);
      f.assign(e, e + 1);
    });
    E be = f.let("be", twoProd(b, cast(F, e)));
    f.ifReturn(abs(be.x()) > 1e30, select(be.x() > 0.0, infF(), 0.0));  // |b log2(aa)| >= |b e| / 2
    E bl = f.let("bl", twoProd(b, log_(m) * 1.44269504088896341));
    E n1 = f.let("n1", roundEven(be.x()));
    E w = f.let("w", (((be.x() - n1) + be.y()) + bl.y()) + bl.x());
    E n2 = f.let("n2", roundEven(w));
    E n = f.let("n", n1 + n2);
    f.ifReturn(n > 129.0, infF());
    f.ifReturn(n < -152.0, 0.0);
    E y = f.let("y", exp_((w - n2) * 0.69314718055994531));
    E k = f.let("k", cast(I, n));
    E h = f.let("h", k >> 1);
    f.ret(y * pow2(h) * pow2(k - h));
  });
  return f;
}

// C's pow, special cases included (pow(-1, inf) = 1, pow(-0, -3) = -inf,
// pow(-inf, 0.5) = inf).
const Fn& powFn() {
  static const Fn f = define("pow_", F, {{"a", F}, {"b", F}}, [](Fn& f) {
    E a = f.arg(0), b = f.arg(1);
    f.ifReturn(b == 0.0 || a == 1.0, 1.0);
    f.ifReturn(isnan(a) || isnan(b), nanF());
    E aa = f.let("aa", abs(a));
    f.ifElse(isinf(b), [&] {
      f.ifReturn(aa == 1.0, 1.0);
      f.ret(select((aa > 1.0) == (b > 0.0), infF(), 0.0));
    });
    E r = f.var("r", select(aa == 0.0, select(b > 0.0, 0.0, infF()),
                            select(isinf(aa), select(b > 0.0, infF(), 0.0),
                                   call(powPositiveFn(), {aa, b}))));
    f.ifElse(signBit(a), [&] {  // -0 too
      f.ifReturn(fract(b) != 0.0, select(aa == 0.0 || isinf(aa), r, nanF()));
      f.ifElse(fract(b * 0.5) != 0.0, [&] { f.assign(r, -r); });  // odd integer power
    });
    f.ret(r);
  });
  return f;
}

// floor(a / b) of the exact quotient: a rounded a / b can land on the next
// integer (3.0000002 / 1.0000001 -> 3.0); the exact residual corrects it.
const Fn& floorDivFn() {
  static const Fn f = define("floorDiv_", F, {{"a", F}, {"b", F}}, [](Fn& f) {
    E a = f.arg(0), b = f.arg(1);
    E q = f.var("q", floor(a / b));
    // An infinite b: a / b is exact (+-0), and the residual would be inf * 0.
    f.ifReturn(isinf(q) || isnan(q) || isinf(b) || abs(q) >= 16777216.0, q);
    E pe = f.let("pe", twoProd(q, b));
    E r = f.let("r", (a - pe.x()) - pe.y());
    f.ifElse((b > 0.0 && r < 0.0) || (b < 0.0 && r > 0.0), [&] { f.assign(q, q - 1.0); });
    f.ret(q);
  });
  return f;
}

// |a| mod |b| with a's sign, exactly, where the quotient passes 2^24 (then
// a - b trunc(a / b) is off by up to ulp(a): fmod(1e30, 0.44) gave 7.6e22):
// each step subtracts the largest |b| 2^k not above the rest, which Sterbenz's
// lemma makes exact; the rest's exponent falls every step (at most ~280).
const Fn& fmodLargeFn() {
  static const Fn f = define("fmodLarge_", F, {{"a", F}, {"b", F}}, [](Fn& f) {
    E a = f.arg(0), b = f.arg(1);
    E r = f.var("r", abs(a));
    E m = f.let("m", abs(b));
    f.loop(
        "i", 0, [&](E i) { return i < 300 && r >= m; }, [](E i) { return i + 1; },
        [&](E) {
          E k = f.let("k", floor(log2(r) - log2(m)));
          E h = f.let("h", floor(k * 0.5));
          E t = f.var("t", m * exp2(h) * exp2(k - h));  // two factors: 2^k alone can overflow
          f.ifElse(
              t > r, [&] { f.assign(t, t * 0.5); },
              [&] { f.ifElse(t * 2.0 <= r, [&] { f.assign(t, t * 2.0); }); });
          f.assign(r, r - t);
        });
    f.ret(select(a < 0.0, -r, r));
  });
  return f;
}

// a - b floor(a / b), exact where the quotient has 24 bits (a - b trunc(a / b)
// loses the remainder's low bits: fmod(88.73, 0.001) came out 0, not 0.000999).
const Fn& fmodFn() {
  static const Fn f = define("fmod_", F, {{"a", F}, {"b", F}}, [](Fn& f) {
    E a = f.arg(0), b = f.arg(1);
    f.ifReturn(isinf(b) && !isinf(a) && !isnan(a),
               select(a != 0.0 && (a < 0.0) != (b < 0.0), b, a));
    E q = f.let("q", floorDiv_(a, b));
    f.ifElse(isinf(q) || isnan(q) || abs(q) >= 16777216.0, [&] {
      f.ifReturn(isinf(a) || isnan(a) || isnan(b) || b == 0.0, nanF());
      E r = f.var("r", call(fmodLargeFn(), {a, b}));
      f.ifElse(r != 0.0 && (r < 0.0) != (b < 0.0), [&] { f.assign(r, r + b); });
      f.ret(r);
    });
    E pe = f.let("pe", twoProd(q, b));
    f.ret((a - pe.x()) - pe.y());
  });
  return f;
}

const Fn& uabsFn() {
  static const Fn f = define("uabs_", U, {{"a", I}}, [](Fn& f) {
    E a = f.arg(0);
    f.ret(select(a < 0, litU(0) - cast(U, a), cast(U, a)));
  });
  return f;
}

// Truncating i32 division through magnitudes: GLSL leaves a negative
// operand's quotient undefined.
const Fn& idivTruncFn() {
  static const Fn f = define("idivTrunc_", I, {{"a", I}, {"b", I}}, [](Fn& f) {
    E a = f.arg(0), b = f.arg(1);
    E q = f.let("q", call(uabsFn(), {a}) / call(uabsFn(), {b}));
    f.ret(select((a < 0) != (b < 0), cast(I, litU(0) - q), cast(I, q)));
  });
  return f;
}

E idivTrunc(E a, E b) { return call(idivTruncFn(), {std::move(a), std::move(b)}); }

const Fn& ifloorDivFn() {
  static const Fn f = define("ifloorDiv_", I, {{"a", I}, {"b", I}}, [](Fn& f) {
    E a = f.arg(0), b = f.arg(1);
    f.ifReturn(b == 0, 0);
    E q = f.var("q", idivTrunc(a, b));
    E r = f.let("r", a - q * b);
    f.ifElse(r != 0 && (a < 0) != (b < 0), [&] { f.assign(q, q - 1); });
    f.ret(q);
  });
  return f;
}

const Fn& imodFn() {
  static const Fn f = define("imod_", I, {{"a", I}, {"b", I}}, [](Fn& f) {
    E a = f.arg(0), b = f.arg(1);
    f.ifReturn(b == 0 || b == -1, 0);
    E r = f.var("r", a - idivTrunc(a, b) * b);
    f.ifElse(r != 0 && (r < 0) != (b < 0), [&] { f.assign(r, r + b); });
    f.ret(r);
  });
  return f;
}

const Fn& ipowFn() {
  static const Fn f = define("ipow_", I, {{"a", I}, {"b", I}}, [](Fn& f) {
    E a = f.arg(0), b = f.arg(1);
    f.ifElse(b < 0, [&] {
      f.ifReturn(a == 1, 1);
      f.ifReturn(a == -1, select((b & 1) == 0, 1, -1));
      f.ret(0);
    });
    E r = f.var("r", litU(1));
    E base = f.var("base", cast(U, a));
    f.loop(
        "e", cast(U, b), [](E e) { return e > litU(0); }, [](E e) { return e >> 1; },
        [&](E e) {
          f.ifElse((e & litU(1)) != litU(0), [&] { f.assign(r, r * base); });
          f.assign(base, base * base);
        });
    f.ret(cast(I, r));
  });
  return f;
}

}  // namespace

E exp_(E x) { return call(expFn(), {std::move(x)}); }
E log_(E x) { return call(logFn(), {std::move(x)}); }
E expm1_(E x) { return call(expm1Fn(), {std::move(x)}); }
E log1p_(E x) { return call(log1pFn(), {std::move(x)}); }
E sincos_(E x) { return call(sincosFn(), {std::move(x)}); }
E tanh_(E x) { return call(tanhFn(), {std::move(x)}); }
E sigmoid_(E x) { return call(sigmoidFn(), {std::move(x)}); }
E erf_(E x) { return call(erfFn(), {std::move(x)}); }
E atan_(E x) { return call(atanFn(), {std::move(x)}); }
E atan2_(E y, E x) { return call(atan2Fn(), {std::move(y), std::move(x)}); }
E asin_(E x) { return call(asinFn(), {std::move(x)}); }
E acos_(E x) { return call(acosFn(), {std::move(x)}); }
E asinh_(E x) { return call(asinhFn(), {std::move(x)}); }
E acosh_(E x) { return call(acoshFn(), {std::move(x)}); }
E atanh_(E x) { return call(atanhFn(), {std::move(x)}); }
E pow_(E a, E b) { return call(powFn(), {std::move(a), std::move(b)}); }
E floorDiv_(E a, E b) { return call(floorDivFn(), {std::move(a), std::move(b)}); }
E fmod_(E a, E b) { return call(fmodFn(), {std::move(a), std::move(b)}); }
E ifloorDiv_(E a, E b) { return call(ifloorDivFn(), {std::move(a), std::move(b)}); }
E imod_(E a, E b) { return call(imodFn(), {std::move(a), std::move(b)}); }
E ipow_(E a, E b) { return call(ipowFn(), {std::move(a), std::move(b)}); }

std::string mathFunctions(const Dialect& d, std::initializer_list<const char*> names) {
  static const std::pair<const char*, const Fn& (*)()> kAll[] = {{"exp_", expFn},
                                                                 {"log_", logFn},
                                                                 {"sincos_", sincosFn},
                                                                 {"expm1_", expm1Fn},
                                                                 {"log1p_", log1pFn},
                                                                 {"tanh_", tanhFn},
                                                                 {"sigmoid_", sigmoidFn},
                                                                 {"erf_", erfFn},
                                                                 {"atan_", atanFn},
                                                                 {"atan2_", atan2Fn},
                                                                 {"asin_", asinFn},
                                                                 {"acos_", acosFn},
                                                                 {"asinh_", asinhFn},
                                                                 {"acosh_", acoshFn},
                                                                 {"atanh_", atanhFn},
                                                                 {"pow_", powFn},
                                                                 {"floorDiv_", floorDivFn},
                                                                 {"fmod_", fmodFn},
                                                                 {"ifloorDiv_", ifloorDivFn},
                                                                 {"imod_", imodFn},
                                                                 {"ipow_", ipowFn}};
  std::vector<const Fn*> fns;
  for (const char* name : names) {
    const Fn* found = nullptr;
    for (const auto& [n, get] : kAll)
      if (std::string(n) == name) found = &get();
    if (!found) fail("gpu math", "no function ", name);
    fns.push_back(found);
  }
  return print(d, fns);
}

}  // namespace glint::gpu
