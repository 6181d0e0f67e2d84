// Element-wise kernels as plain loops over broadcast indices: unary, binary,
// comparisons, logic, Select, Cast, ClipByValue. Float math runs in double and
// rounds once to float; int32 math wraps around modulo 2^32 (never UB).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "src/backends/reference/kernels.h"
#include "src/backends/reference/loops.h"
#include "src/core/kernel_selection.h"

namespace glint::reference {

namespace {

constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSqrt2OverPi = 0.79788456080286535587989211986876;

/// Two's-complement wraparound from a 64-bit intermediate.
int32_t wrap(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

// ---- loops -----------------------------------------------------------------

template <class TIn, class TOut, class F>
void mapLoop(const Tensor& x, Tensor& out, F f) {
  const TIn* px = hostData<TIn>(x);
  TOut* po = hostData<TOut>(out);
  for (int64_t i = 0, n = out.size(); i < n; ++i) po[i] = f(px[i]);
}

template <class TIn, class TOut, class F>
void broadcastLoop(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  const TIn* pa = hostData<TIn>(a);
  const TIn* pb = hostData<TIn>(b);
  TOut* po = hostData<TOut>(out);
  auto sa = broadcastStrides(a.shape(), out.shape());
  auto sb = broadcastStrides(b.shape(), out.shape());
  int64_t i = 0;
  forEachIndex(out.shape(), [&](const std::vector<int64_t>& index) {
    po[i++] = f(pa[offsetOf(index, sa)], pb[offsetOf(index, sb)]);
  });
}

/// Float-only unary op, computed in double.
template <class F>
KernelFn unaryFloat(F f) {
  return [f](KernelArgs& args) {
    mapLoop<float, float>(args.inputs[0], args.outputs[0],
                          [&](float x) { return static_cast<float>(f(static_cast<double>(x))); });
  };
}

/// Unary op that also accepts int32 (fi maps int64 -> int64, then wraps).
template <class FF, class FI>
KernelFn unaryNumeric(FF ff, FI fi) {
  return [ff, fi](KernelArgs& args) {
    if (args.inputs[0].dtype() == DType::int32) {
      mapLoop<int32_t, int32_t>(args.inputs[0], args.outputs[0],
                                [&](int32_t x) { return wrap(fi(static_cast<int64_t>(x))); });
    } else {
      unaryFloat(ff)(args);
    }
  };
}

/// Binary op on float32 (in double) or int32 (fi returns the int32 result).
template <class FF, class FI>
KernelFn binaryNumeric(FF ff, FI fi) {
  return [ff, fi](KernelArgs& args) {
    if (args.inputs[0].dtype() == DType::int32) {
      broadcastLoop<int32_t, int32_t>(args.inputs[0], args.inputs[1], args.outputs[0], fi);
    } else {
      broadcastLoop<float, float>(
          args.inputs[0], args.inputs[1], args.outputs[0],
          [&](float a, float b) { return static_cast<float>(ff(double(a), double(b))); });
    }
  };
}

/// Comparison of any dtype -> bool.
template <class F>
KernelFn compare(F f) {
  return [f](KernelArgs& args) {
    dispatchDType(args.inputs[0].dtype(), [&](auto tag) {
      using T = decltype(tag);
      broadcastLoop<T, uint8_t>(args.inputs[0], args.inputs[1], args.outputs[0],
                                [&](T a, T b) { return static_cast<uint8_t>(f(a, b)); });
    });
  };
}

template <class F>
KernelFn logic(F f) {
  return [f](KernelArgs& args) {
    broadcastLoop<uint8_t, uint8_t>(
        args.inputs[0], args.inputs[1], args.outputs[0],
        [&](uint8_t a, uint8_t b) { return static_cast<uint8_t>(f(a != 0, b != 0)); });
  };
}

// ---- scalar math ---------------------------------------------------------

double sigmoid(double x) {
  // Never exponentiates a positive number, so |x| = 100 stays finite.
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  double e = std::exp(x);
  return e / (1.0 + e);
}

double softplus(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))); }

double roundHalfEven(double x) {
  double r = std::floor(x);
  double d = x - r;
  if (d > 0.5 || (d == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  return r;
}

double nanOr(double x, double value) { return std::isnan(x) ? x : value; }

double floatMod(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0.0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// Integer division by zero yields 0 (as TF.js, whose int32 store turns the
// infinite/NaN quotient into 0); INT32_MIN / -1 wraps to INT32_MIN.
int32_t intFloorDiv(int32_t a, int32_t b) {
  if (b == 0) return 0;
  if (b == -1) return wrap(-static_cast<int64_t>(a));
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

/// a^b with wraparound; negative exponents truncate toward zero (0 for 0^-n).
int32_t intPow(int32_t a, int32_t b) {
  if (b < 0) {
    if (a == 1) return 1;
    if (a == -1) return (b % 2 == 0) ? 1 : -1;
    return 0;
  }
  uint32_t result = 1, base = static_cast<uint32_t>(a);
  for (uint32_t e = static_cast<uint32_t>(b); e > 0; e >>= 1) {
    if (e & 1) result *= base;
    base *= base;
  }
  return static_cast<int32_t>(result);
}

/// NaN -> 0, out-of-range values saturate, the rest truncate toward zero.
int32_t floatToInt(float x) {
  if (std::isnan(x)) return 0;
  if (x >= 2147483648.0f) return std::numeric_limits<int32_t>::max();
  if (x < -2147483648.0f) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(x);
}

// ---- kernels with attributes or mixed dtypes -------------------------------

void realDivKernel(KernelArgs& args) {
  auto f = [](auto a, auto b) { return static_cast<float>(double(a) / double(b)); };
  if (args.inputs[0].dtype() == DType::int32)
    broadcastLoop<int32_t, float>(args.inputs[0], args.inputs[1], args.outputs[0], f);
  else broadcastLoop<float, float>(args.inputs[0], args.inputs[1], args.outputs[0], f);
}

void selectKernel(KernelArgs& args) {
  const Tensor& cond = args.inputs[0];
  const Tensor& a = args.inputs[1];
  const Tensor& b = args.inputs[2];
  Tensor& out = args.outputs[0];
  dispatchDType(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const uint8_t* pc = hostData<uint8_t>(cond);
    const T* pa = hostData<T>(a);
    const T* pb = hostData<T>(b);
    T* po = hostData<T>(out);
    auto sc = broadcastStrides(cond.shape(), out.shape());
    auto sa = broadcastStrides(a.shape(), out.shape());
    auto sb = broadcastStrides(b.shape(), out.shape());
    int64_t i = 0;
    forEachIndex(out.shape(), [&](const std::vector<int64_t>& index) {
      po[i++] = pc[offsetOf(index, sc)] ? pa[offsetOf(index, sa)] : pb[offsetOf(index, sb)];
    });
  });
}

void castKernel(KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  Tensor& out = args.outputs[0];
  dispatchDType(x.dtype(), [&](auto inTag) {
    using TIn = decltype(inTag);
    switch (out.dtype()) {
      case DType::float32:
        mapLoop<TIn, float>(x, out, [](TIn v) { return static_cast<float>(v); });
        break;
      case DType::int32:
        mapLoop<TIn, int32_t>(x, out, [](TIn v) {
          if constexpr (std::is_same_v<TIn, float>) return floatToInt(v);
          else return static_cast<int32_t>(v);
        });
        break;
      case DType::boolean:
        mapLoop<TIn, uint8_t>(x, out, [](TIn v) { return static_cast<uint8_t>(v != 0); });
        break;
    }
  });
}

void clipKernel(KernelArgs& args) {
  double lo = args.attrs.f("min"), hi = args.attrs.f("max");
  unaryFloat([&](double x) { return std::isnan(x) ? x : std::min(std::max(x, lo), hi); })(args);
}

void leakyReluKernel(KernelArgs& args) {
  double alpha = args.attrs.f("alpha");
  unaryFloat([&](double x) { return x > 0 ? x : nanOr(x, alpha * x); })(args);
}

void geluKernel(KernelArgs& args) {
  if (args.attrs.b("approximate")) {
    unaryFloat([](double x) {
      return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
    })(args);
  } else {
    unaryFloat([](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); })(args);
  }
}

}  // namespace

void registerElementwiseKernels(const std::string& backend) {
  auto reg = [&](const char* name, KernelFn fn) { registerKernel(name, backend, std::move(fn)); };

  // Unary.
  GLINT_REGISTER(reg, "Neg",
                 unaryNumeric([](double x) { return -x; }, [](int64_t x) { return -x; }));
  GLINT_REGISTER(
      reg, "Abs",
      unaryNumeric([](double x) { return std::abs(x); }, [](int64_t x) { return x < 0 ? -x : x; }));
  GLINT_REGISTER(reg, "Square",
                 unaryNumeric([](double x) { return x * x; }, [](int64_t x) { return x * x; }));
  GLINT_REGISTER(reg, "Sign",
                 unaryNumeric([](double x) { return nanOr(x, x > 0   ? 1.0
                                                             : x < 0 ? -1.0
                                                                     : 0.0); },
                              [](int64_t x) { return int64_t{x > 0} - int64_t{x < 0}; }));
  GLINT_REGISTER(reg, "Exp", unaryFloat([](double x) { return std::exp(x); }));
  GLINT_REGISTER(reg, "Log", unaryFloat([](double x) { return std::log(x); }));
  GLINT_REGISTER(reg, "Log1p", unaryFloat([](double x) { return std::log1p(x); }));
  GLINT_REGISTER(reg, "Sqrt", unaryFloat([](double x) { return std::sqrt(x); }));
  GLINT_REGISTER(reg, "Rsqrt", unaryFloat([](double x) { return 1.0 / std::sqrt(x); }));
  GLINT_REGISTER(reg, "Reciprocal", unaryFloat([](double x) { return 1.0 / x; }));
  GLINT_REGISTER(reg, "Relu", unaryFloat([](double x) { return x > 0 ? x : nanOr(x, 0.0); }));
  GLINT_REGISTER(reg, "Relu6",
                 unaryFloat([](double x) { return nanOr(x, std::min(std::max(x, 0.0), 6.0)); }));
  GLINT_REGISTER(reg, "LeakyRelu", leakyReluKernel);
  GLINT_REGISTER(reg, "Elu", unaryFloat([](double x) { return x > 0 ? x : std::expm1(x); }));
  GLINT_REGISTER(reg, "Selu", unaryFloat([](double x) {
                   return kSeluScale * (x > 0 ? x : kSeluAlpha * std::expm1(x));
                 }));
  GLINT_REGISTER(reg, "Sigmoid", unaryFloat(sigmoid));
  GLINT_REGISTER(reg, "Tanh", unaryFloat([](double x) { return std::tanh(x); }));
  GLINT_REGISTER(reg, "Softplus", unaryFloat(softplus));
  GLINT_REGISTER(reg, "Gelu", geluKernel);
  GLINT_REGISTER(reg, "Erf", unaryFloat([](double x) { return std::erf(x); }));
  GLINT_REGISTER(reg, "Sin", unaryFloat([](double x) { return std::sin(x); }));
  GLINT_REGISTER(reg, "Cos", unaryFloat([](double x) { return std::cos(x); }));
  GLINT_REGISTER(reg, "Asin", unaryFloat([](double x) { return std::asin(x); }));
  GLINT_REGISTER(reg, "Acos", unaryFloat([](double x) { return std::acos(x); }));
  GLINT_REGISTER(reg, "Atan", unaryFloat([](double x) { return std::atan(x); }));
  GLINT_REGISTER(reg, "Asinh", unaryFloat([](double x) { return std::asinh(x); }));
  GLINT_REGISTER(reg, "Acosh", unaryFloat([](double x) { return std::acosh(x); }));
  GLINT_REGISTER(reg, "Atanh", unaryFloat([](double x) { return std::atanh(x); }));
  GLINT_REGISTER(reg, "Floor", unaryFloat([](double x) { return std::floor(x); }));
  GLINT_REGISTER(reg, "Ceil", unaryFloat([](double x) { return std::ceil(x); }));
  GLINT_REGISTER(reg, "Round", unaryFloat(roundHalfEven));

  // Binary. Int32 arithmetic goes through int64 and wraps.
  GLINT_REGISTER(reg, "Add",
                 binaryNumeric([](double a, double b) { return a + b; },
                               [](int32_t a, int32_t b) { return wrap(int64_t{a} + b); }));
  GLINT_REGISTER(reg, "Sub",
                 binaryNumeric([](double a, double b) { return a - b; },
                               [](int32_t a, int32_t b) { return wrap(int64_t{a} - b); }));
  GLINT_REGISTER(reg, "Mul",
                 binaryNumeric([](double a, double b) { return a * b; },
                               [](int32_t a, int32_t b) { return wrap(int64_t{a} * b); }));
  GLINT_REGISTER(reg, "RealDiv", realDivKernel);
  // Relu's gradient (dy, x): float only (gradients are).
  GLINT_REGISTER(reg, "ReluGrad",
                 binaryNumeric([](double dy, double x) { return dy * (x > 0 ? 1.0 : 0.0); },
                               [](int32_t dy, int32_t x) { return x > 0 ? dy : 0; }));
  GLINT_REGISTER(reg, "Pow",
                 binaryNumeric([](double a, double b) { return std::pow(a, b); }, intPow));
  // int32 operands: the float angle truncated toward zero (TF.js).
  GLINT_REGISTER(reg, "Atan2",
                 binaryNumeric([](double a, double b) { return std::atan2(a, b); },
                               [](int32_t a, int32_t b) {
                                 return static_cast<int32_t>(std::atan2(double(a), double(b)));
                               }));
  GLINT_REGISTER(
      reg, "Maximum",
      binaryNumeric([](double a, double b) { return std::isnan(b) ? b : nanOr(a, std::max(a, b)); },
                    [](int32_t a, int32_t b) { return std::max(a, b); }));
  GLINT_REGISTER(
      reg, "Minimum",
      binaryNumeric([](double a, double b) { return std::isnan(b) ? b : nanOr(a, std::min(a, b)); },
                    [](int32_t a, int32_t b) { return std::min(a, b); }));
  GLINT_REGISTER(reg, "SquaredDifference",
                 binaryNumeric([](double a, double b) { return (a - b) * (a - b); },
                               [](int32_t a, int32_t b) {
                                 uint64_t d = static_cast<uint64_t>(int64_t{a} - b);
                                 return static_cast<int32_t>(static_cast<uint32_t>(d * d));
                               }));
  GLINT_REGISTER(reg, "FloorDiv",
                 binaryNumeric([](double a, double b) { return std::floor(a / b); }, intFloorDiv));
  GLINT_REGISTER(reg, "Mod", binaryNumeric(floatMod, intMod));

  // Comparisons and logic.
  GLINT_REGISTER(reg, "Equal", compare([](auto a, auto b) { return a == b; }));
  GLINT_REGISTER(reg, "NotEqual", compare([](auto a, auto b) { return a != b; }));
  GLINT_REGISTER(reg, "Less", compare([](auto a, auto b) { return a < b; }));
  GLINT_REGISTER(reg, "LessEqual", compare([](auto a, auto b) { return a <= b; }));
  GLINT_REGISTER(reg, "Greater", compare([](auto a, auto b) { return a > b; }));
  GLINT_REGISTER(reg, "GreaterEqual", compare([](auto a, auto b) { return a >= b; }));
  GLINT_REGISTER(reg, "LogicalAnd", logic([](bool a, bool b) { return a && b; }));
  GLINT_REGISTER(reg, "LogicalOr", logic([](bool a, bool b) { return a || b; }));
  GLINT_REGISTER(reg, "LogicalXor", logic([](bool a, bool b) { return a != b; }));
  GLINT_REGISTER(reg, "LogicalNot", [](KernelArgs& args) {
    mapLoop<uint8_t, uint8_t>(args.inputs[0], args.outputs[0],
                              [](uint8_t x) { return static_cast<uint8_t>(x == 0); });
  });
  GLINT_REGISTER(reg, "Select", selectKernel);
  GLINT_REGISTER(reg, "Cast", castKernel);
  GLINT_REGISTER(reg, "ClipByValue", clipKernel);
}

}  // namespace glint::reference
