// Element-wise kernels for the cpu backend: one flat loop when the operands
// match the output or are scalars, else broadcast rows (broadcast_util.h);
// inner loops auto-vectorise. Semantics mirror src/backends/reference/
// elementwise.cpp: float math runs in float where that rounds like the
// reference's double (or within an ulp), in double where the formula needs it.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "glint/backend.h"
#include "src/backends/cpu/broadcast_util.h"
#include "src/backends/cpu/kernels.h"
#include "src/backends/cpu/simd.h"
#include "src/backends/cpu/vecmath_util.h"
#include "src/core/kernel_selection.h"

namespace glint::cpu {

namespace {

constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSqrt2OverPi = 0.79788456080286535587989211986876;

/// Two's-complement wraparound, through uint32 so it never overflows.
inline int32_t wrapU(uint32_t v) { return static_cast<int32_t>(v); }
inline uint32_t u(int32_t v) { return static_cast<uint32_t>(v); }

template <class T>
void dispatchDType(DType dtype, T&& f) {
  switch (dtype) {
    case DType::float32:
      f(float{});
      return;
    case DType::int32:
      f(int32_t{});
      return;
    case DType::boolean:
      f(uint8_t{});
      return;
  }
}

// ---- loops -----------------------------------------------------------------

template <class TIn, class TOut, class F>
void mapLoop(const Tensor& x, Tensor& out, F f) {
  const TIn* px = hostData<TIn>(x);
  TOut* po = hostData<TOut>(out);
  for (int64_t i = 0, n = out.size(); i < n; ++i) po[i] = f(px[i]);
}

/// One row: each operand contiguous (stride 1) or a repeated value (stride 0).
template <class T, class TO, class F>
void binaryRow(const T* a, int64_t sa, const T* b, int64_t sb, TO* o, int64_t n, F& f) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
  } else if (sa == 1) {
    const T bv = *b;
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], bv);
  } else if (sb == 1) {
    const T av = *a;
    for (int64_t i = 0; i < n; ++i) o[i] = f(av, b[i]);
  } else {
    std::fill(o, o + n, f(*a, *b));
  }
}

/// Whether `s` (leading 1s aside) is `out`'s trailing dims: the operand then
/// repeats every shapeSize(s) elements of the output (a bias over rows).
bool repeatsAlong(const Shape& s, const Shape& out) {
  size_t k = 0;
  while (k < s.size() && s[k] == 1) ++k;
  size_t len = s.size() - k;
  if (len > out.size()) return false;
  for (size_t i = 0; i < len; ++i)
    if (s[k + i] != out[out.size() - len + i]) return false;
  return true;
}

/// o = f(a, b) where one operand (`short` first when shortFirst) repeats
/// every `period` elements and the other is as long as o. A short period
/// would make rows too short to vectorise, so it is laid out repeatedly in
/// a stack buffer of whole periods and the loop runs over long rows.
template <class T, class TO, class F>
bool repeatedRows(const T* full, const T* repeated, int64_t period, bool repeatedFirst, TO* o,
                  int64_t n, F& f) {
  constexpr int64_t kPattern = 256;
  if (period > kPattern / 4) return false;
  T pattern[kPattern];
  const int64_t chunk = period * (kPattern / period);
  std::copy(repeated, repeated + period, pattern);
  for (int64_t have = period; have < chunk; have *= 2)
    std::copy(pattern, pattern + std::min(have, chunk - have), pattern + have);
  for (int64_t i = 0; i < n; i += chunk) {
    int64_t len = std::min(chunk, n - i);
    if (repeatedFirst) binaryRow(pattern, 1, full + i, 1, o + i, len, f);
    else binaryRow(full + i, 1, pattern, 1, o + i, len, f);
  }
  return true;
}

template <class T, class TO, class F>
void binaryLoop(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  const T* pa = hostData<T>(a);
  const T* pb = hostData<T>(b);
  TO* po = hostData<TO>(out);
  int64_t n = out.size();
  if (n == 0) return;
  // An operand as large as the output has its layout: broadcasting only stretches 1s.
  int64_t sa = a.size() == n ? 1 : a.size() == 1 ? 0 : -1;
  int64_t sb = b.size() == n ? 1 : b.size() == 1 ? 0 : -1;
  if (sa >= 0 && sb >= 0) return binaryRow(pa, sa, pb, sb, po, n, f);
  if (sa == 1 && repeatsAlong(b.shape(), out.shape()) &&
      repeatedRows(pa, pb, b.size(), false, po, n, f))
    return;
  if (sb == 1 && repeatsAlong(a.shape(), out.shape()) &&
      repeatedRows(pb, pa, a.size(), true, po, n, f))
    return;
  BroadcastRows<2> plan(out.shape(), {&a.shape(), &b.shape()});
  int64_t ia = plan.innerStride(0), ib = plan.innerStride(1);
  plan.forEachRow([&](const std::array<int64_t, 2>& off, int64_t o) {
    binaryRow(pa + off[0], ia, pb + off[1], ib, po + o, plan.rowLen, f);
  });
}

/// Float-only unary op on floats.
template <class F>
KernelFn unaryF(F f) {
  return [f](KernelArgs& args) { mapLoop<float, float>(args.inputs[0], args.outputs[0], f); };
}

/// Float-only unary op computed in double, as the reference does.
template <class F>
KernelFn unaryD(F f) {
  return unaryF([f](float x) { return static_cast<float>(f(static_cast<double>(x))); });
}

/// Unary op that also accepts int32 (fi works on uint32 bits, wrapping).
template <class FF, class FI>
KernelFn unaryNumeric(FF ff, FI fi) {
  return [ff, fi](KernelArgs& args) {
    if (args.inputs[0].dtype() == DType::int32)
      mapLoop<int32_t, int32_t>(args.inputs[0], args.outputs[0], fi);
    else mapLoop<float, float>(args.inputs[0], args.outputs[0], ff);
  };
}

template <class FF, class FI>
KernelFn binaryNumeric(FF ff, FI fi) {
  return [ff, fi](KernelArgs& args) {
    if (args.inputs[0].dtype() == DType::int32)
      binaryLoop<int32_t, int32_t>(args.inputs[0], args.inputs[1], args.outputs[0], fi);
    else binaryLoop<float, float>(args.inputs[0], args.inputs[1], args.outputs[0], ff);
  };
}

template <class F>
KernelFn compare(F f) {
  return [f](KernelArgs& args) {
    dispatchDType(args.inputs[0].dtype(), [&](auto tag) {
      using T = decltype(tag);
      binaryLoop<T, uint8_t>(args.inputs[0], args.inputs[1], args.outputs[0],
                             [&](T a, T b) { return static_cast<uint8_t>(f(a, b)); });
    });
  };
}

// Six comparisons from three loops: Greater(a, b) is Less(b, a),
// GreaterEqual(a, b) is LessEqual(b, a) and NotEqual is Equal flipped, exactly
// (NaN included). Each loop is instantiated for every dtype and broadcast
// form, which made the six a large share of the WebAssembly module.
struct EqualTo {
  template <class T>
  bool operator()(T a, T b) const {
    return a == b;
  }
};
struct LessThan {
  template <class T>
  bool operator()(T a, T b) const {
    return a < b;
  }
};
struct LessOrEqual {
  template <class T>
  bool operator()(T a, T b) const {
    return a <= b;
  }
};

KernelFn swappedOperands(KernelFn k) {
  return [k](KernelArgs& args) {
    const std::vector<Tensor> swapped{args.inputs[1], args.inputs[0]};
    KernelArgs flipped{args.kernel, args.backend, swapped, args.outputs, args.attrs};
    k(flipped);
  };
}

KernelFn negated(KernelFn k) {
  return [k](KernelArgs& args) {
    k(args);
    uint8_t* o = hostData<uint8_t>(args.outputs[0]);
    for (int64_t i = 0, n = args.outputs[0].size(); i < n; ++i) o[i] ^= 1;
  };
}

template <class F>
KernelFn logic(F f) {
  return [f](KernelArgs& args) {
    binaryLoop<uint8_t, uint8_t>(
        args.inputs[0], args.inputs[1], args.outputs[0],
        [&](uint8_t a, uint8_t b) { return static_cast<uint8_t>(f(a != 0, b != 0)); });
  };
}

// ---- scalar math (as the reference) ------------------------------------------

double softplus(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))); }

double floatMod(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0.0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

int32_t intFloorDiv(int32_t a, int32_t b) {
  if (b == 0) return 0;
  if (b == -1) return wrapU(0u - u(a));
  int32_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

int32_t intMod(int32_t a, int32_t b) {
  if (b == 0 || b == -1) return 0;
  int32_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

int32_t intPow(int32_t a, int32_t b) {
  if (b < 0) {
    if (a == 1) return 1;
    if (a == -1) return (b % 2 == 0) ? 1 : -1;
    return 0;
  }
  uint32_t result = 1, base = u(a);
  for (uint32_t e = u(b); e > 0; e >>= 1) {
    if (e & 1) result *= base;
    base *= base;
  }
  return wrapU(result);
}

/// NaN-propagating max/min exactly as the reference: b's NaN first, then a's.
inline float maxF(float a, float b) { return b != b ? b : (a != a ? a : (a < b ? b : a)); }
inline float minF(float a, float b) { return b != b ? b : (a != a ? a : (b < a ? b : a)); }

// ---- kernels with attributes or mixed dtypes -------------------------------

void realDivKernel(KernelArgs& args) {
  if (args.inputs[0].dtype() == DType::int32)
    binaryLoop<int32_t, float>(
        args.inputs[0], args.inputs[1], args.outputs[0],
        [](int32_t a, int32_t b) { return static_cast<float>(double(a) / b); });
  else
    binaryLoop<float, float>(args.inputs[0], args.inputs[1], args.outputs[0],
                             [](float a, float b) { return a / b; });
}

/// (dy, x) -> dy * (x > 0 ? 1 : 0). Signs are random, so a per-element branch
/// mispredicts half the time: this goes a vector at a time with a select.
void reluGrad(KernelArgs& args) {
  const Tensor& dy = args.inputs[0];
  const Tensor& x = args.inputs[1];
  Tensor& out = args.outputs[0];
  auto scalarF = [](float d, float v) { return d * (v > 0 ? 1.0f : 0.0f); };
  auto scalarI = [](int32_t d, int32_t v) { return v > 0 ? d : 0; };
  const int64_t n = out.size();
  if (dy.dtype() != DType::float32 || dy.size() != n || x.size() != n)
    return binaryNumeric(scalarF, scalarI)(args);
  const float* pd = hostData<float>(dy);
  const float* px = hostData<float>(x);
  float* po = hostData<float>(out);
  const simd::Vec one = simd::broadcast(1.0f), zero{};
  int64_t i = 0;
  for (; i + simd::kWidth <= n; i += simd::kWidth)
    simd::store(po + i, simd::load(pd + i) * (simd::load(px + i) > zero ? one : zero));
  for (; i < n; ++i) po[i] = scalarF(pd[i], px[i]);
}

void selectKernel(KernelArgs& args) {
  const Tensor& cond = args.inputs[0];
  const Tensor& a = args.inputs[1];
  const Tensor& b = args.inputs[2];
  Tensor& out = args.outputs[0];
  int64_t n = out.size();
  if (n == 0) return;
  dispatchDType(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const uint8_t* pc = hostData<uint8_t>(cond);
    const T* pa = hostData<T>(a);
    const T* pb = hostData<T>(b);
    T* po = hostData<T>(out);
    if (cond.size() == n && a.size() == n && b.size() == n) {
      for (int64_t i = 0; i < n; ++i) po[i] = pc[i] ? pa[i] : pb[i];
      return;
    }
    BroadcastRows<3> plan(out.shape(), {&cond.shape(), &a.shape(), &b.shape()});
    int64_t sc = plan.innerStride(0), sa = plan.innerStride(1), sb = plan.innerStride(2);
    plan.forEachRow([&](const std::array<int64_t, 3>& off, int64_t o) {
      const uint8_t* c = pc + off[0];
      const T* ra = pa + off[1];
      const T* rb = pb + off[2];
      T* ro = po + o;
      if (sc == 1 && sa == 1 && sb == 1) {
        for (int64_t i = 0; i < plan.rowLen; ++i) ro[i] = c[i] ? ra[i] : rb[i];
      } else {
        for (int64_t i = 0; i < plan.rowLen; ++i) ro[i] = c[i * sc] ? ra[i * sa] : rb[i * sb];
      }
    });
  });
}

void clipKernel(KernelArgs& args) {
  double lo = args.attrs.f("min"), hi = args.attrs.f("max");
  float flo = static_cast<float>(lo), fhi = static_cast<float>(hi);
  if (double(flo) == lo && double(fhi) == hi) {
    // Bounds exact in float: comparing in float gives the reference's result.
    unaryF([flo, fhi](float x) {
      float t = x < flo ? flo : x;  // NaN fails both tests and stays
      return fhi < t ? fhi : t;
    })(args);
  } else {
    unaryD([lo, hi](double x) { return std::isnan(x) ? x : std::min(std::max(x, lo), hi); })(args);
  }
}

void leakyReluKernel(KernelArgs& args) {
  double alpha = args.attrs.f("alpha");
  float fa = static_cast<float>(alpha);
  if (double(fa) == alpha)
    unaryF([fa](float x) { return vselect(x > 0 || x != x, x, fa * x); })(args);
  else unaryD([alpha](double x) { return x > 0 ? x : (std::isnan(x) ? x : alpha * x); })(args);
}

void geluKernel(KernelArgs& args) {
  if (args.attrs.b("approximate")) {
    unaryD([](double x) {
      return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
    })(args);
  } else {
    unaryD([](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); })(args);
  }
}

}  // namespace

void registerElementwiseKernels(const std::string& backend) {
  auto reg = [&](const char* name, KernelFn fn) { registerKernel(name, backend, std::move(fn)); };

  // Unary. Int32 variants work on uint32 bits, so they wrap like the reference.
  GLINT_REGISTER(
      reg, "Neg",
      unaryNumeric([](float x) { return -x; }, [](int32_t x) { return wrapU(0u - u(x)); }));
  GLINT_REGISTER(reg, "Abs",
                 unaryNumeric([](float x) { return std::abs(x); },
                              [](int32_t x) { return x < 0 ? wrapU(0u - u(x)) : x; }));
  GLINT_REGISTER(
      reg, "Square",
      unaryNumeric([](float x) { return x * x; }, [](int32_t x) { return wrapU(u(x) * u(x)); }));
  GLINT_REGISTER(
      reg, "Sign",
      unaryNumeric([](float x) { return x > 0 ? 1.0f : (x < 0 ? -1.0f : (x != x ? x : 0.0f)); },
                   [](int32_t x) { return int32_t{x > 0} - int32_t{x < 0}; }));
  GLINT_REGISTER(reg, "Exp", unaryF([](float x) { return vexp(x); }));
  GLINT_REGISTER(reg, "Log", unaryF([](float x) { return std::log(x); }));
  GLINT_REGISTER(reg, "Log1p", unaryD([](double x) { return std::log1p(x); }));
  GLINT_REGISTER(reg, "Sqrt", unaryF([](float x) { return std::sqrt(x); }));
  GLINT_REGISTER(reg, "Rsqrt", unaryF([](float x) { return 1.0f / std::sqrt(x); }));
  GLINT_REGISTER(reg, "Reciprocal", unaryF([](float x) { return 1.0f / x; }));
  // NaN fails every comparison below, so it passes through.
  GLINT_REGISTER(reg, "Relu", unaryF([](float x) { return !(x <= 0) ? x : 0.0f; }));
  GLINT_REGISTER(reg, "Relu6", unaryF([](float x) {
                   float t = x < 0 ? 0.0f : x;
                   return 6.0f < t ? 6.0f : t;
                 }));
  GLINT_REGISTER(reg, "LeakyRelu", leakyReluKernel);
  GLINT_REGISTER(reg, "Elu", unaryD([](double x) { return x > 0 ? x : std::expm1(x); }));
  GLINT_REGISTER(reg, "Selu", unaryD([](double x) {
                   return kSeluScale * (x > 0 ? x : kSeluAlpha * std::expm1(x));
                 }));
  GLINT_REGISTER(reg, "Sigmoid", unaryF([](float x) { return vsigmoid(x); }));
  GLINT_REGISTER(reg, "Tanh", unaryF([](float x) { return vtanh(x); }));
  GLINT_REGISTER(reg, "Softplus", unaryD(softplus));
  GLINT_REGISTER(reg, "Gelu", geluKernel);
  GLINT_REGISTER(reg, "Erf", unaryD([](double x) { return std::erf(x); }));
  GLINT_REGISTER(reg, "Sin", unaryD([](double x) { return std::sin(x); }));
  GLINT_REGISTER(reg, "Cos", unaryD([](double x) { return std::cos(x); }));
  GLINT_REGISTER(reg, "Asin", unaryD([](double x) { return std::asin(x); }));
  GLINT_REGISTER(reg, "Acos", unaryD([](double x) { return std::acos(x); }));
  GLINT_REGISTER(reg, "Atan", unaryD([](double x) { return std::atan(x); }));
  GLINT_REGISTER(reg, "Asinh", unaryD([](double x) { return std::asinh(x); }));
  GLINT_REGISTER(reg, "Acosh", unaryD([](double x) { return std::acosh(x); }));
  GLINT_REGISTER(reg, "Atanh", unaryD([](double x) { return std::atanh(x); }));
  GLINT_REGISTER(reg, "Floor", unaryF([](float x) { return std::floor(x); }));
  GLINT_REGISTER(reg, "Ceil", unaryF([](float x) { return std::ceil(x); }));
  // Round to nearest, ties to even (the default rounding mode).
  GLINT_REGISTER(reg, "Round", unaryF([](float x) { return std::nearbyint(x); }));

  // Binary. Float +, -, *, / round like the reference's double then float.
  GLINT_REGISTER(reg, "Add",
                 binaryNumeric([](float a, float b) { return a + b; },
                               [](int32_t a, int32_t b) { return wrapU(u(a) + u(b)); }));
  GLINT_REGISTER(reg, "Sub",
                 binaryNumeric([](float a, float b) { return a - b; },
                               [](int32_t a, int32_t b) { return wrapU(u(a) - u(b)); }));
  GLINT_REGISTER(reg, "Mul",
                 binaryNumeric([](float a, float b) { return a * b; },
                               [](int32_t a, int32_t b) { return wrapU(u(a) * u(b)); }));
  GLINT_REGISTER(reg, "RealDiv", realDivKernel);
  GLINT_REGISTER(
      reg, "Pow",
      binaryNumeric([](float a, float b) { return static_cast<float>(std::pow(double(a), b)); },
                    intPow));
  GLINT_REGISTER(reg, "ReluGrad", reluGrad);
  GLINT_REGISTER(
      reg, "Atan2",
      binaryNumeric(
          [](float a, float b) { return static_cast<float>(std::atan2(double(a), double(b))); },
          [](int32_t a, int32_t b) {
            return static_cast<int32_t>(std::atan2(double(a), double(b)));
          }));
  GLINT_REGISTER(reg, "Maximum",
                 binaryNumeric(maxF, [](int32_t a, int32_t b) { return std::max(a, b); }));
  GLINT_REGISTER(reg, "Minimum",
                 binaryNumeric(minF, [](int32_t a, int32_t b) { return std::min(a, b); }));
  GLINT_REGISTER(reg, "SquaredDifference",
                 binaryNumeric(
                     [](float a, float b) {
                       float d = a - b;
                       return d * d;
                     },
                     [](int32_t a, int32_t b) {
                       uint32_t d = u(a) - u(b);
                       return wrapU(d * d);
                     }));
  // floor(a / b) in double: a float quotient could round up onto an integer.
  GLINT_REGISTER(reg, "FloorDiv",
                 binaryNumeric([](float a, float b) { return float(std::floor(double(a) / b)); },
                               intFloorDiv));
  GLINT_REGISTER(
      reg, "Mod",
      binaryNumeric([](float a, float b) { return static_cast<float>(floatMod(a, b)); }, intMod));

  // Comparisons and logic.
  GLINT_REGISTER(reg, "Equal", compare(EqualTo{}));
  GLINT_REGISTER(reg, "NotEqual", negated(compare(EqualTo{})));
  GLINT_REGISTER(reg, "Less", compare(LessThan{}));
  GLINT_REGISTER(reg, "LessEqual", compare(LessOrEqual{}));
  GLINT_REGISTER(reg, "Greater", swappedOperands(compare(LessThan{})));
  GLINT_REGISTER(reg, "GreaterEqual", swappedOperands(compare(LessOrEqual{})));
  GLINT_REGISTER(reg, "LogicalAnd", logic([](bool a, bool b) { return a && b; }));
  GLINT_REGISTER(reg, "LogicalOr", logic([](bool a, bool b) { return a || b; }));
  GLINT_REGISTER(reg, "LogicalXor", logic([](bool a, bool b) { return a != b; }));
  GLINT_REGISTER(reg, "LogicalNot", [](KernelArgs& args) {
    mapLoop<uint8_t, uint8_t>(args.inputs[0], args.outputs[0],
                              [](uint8_t x) { return static_cast<uint8_t>(x == 0); });
  });
  GLINT_REGISTER(reg, "Select", selectKernel);
  // Cast keeps the reference kernel: it is already one flat loop.
  GLINT_REGISTER(reg, "ClipByValue", clipKernel);
}

}  // namespace glint::cpu
