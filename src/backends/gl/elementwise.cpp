// Element-wise kernels: one expression per output element, inputs broadcast
// through generated index maps. Int32 arithmetic goes through uint so it wraps
// like the reference (GLSL leaves signed overflow undefined).
#include "src/backends/gl/kernels.h"
#include "src/backends/gl/math_glsl.h"
#include "src/backends/gl/shader.h"
#include "src/core/kernel_selection.h"

namespace glint::gl {

namespace {

void reg(const char* name, KernelFn fn) { registerKernel(name, "gl", std::move(fn)); }

/// Unary op: `floatExpr` / `intExpr` of x (an empty intExpr: float only).
KernelFn unary(std::string floatExpr, std::string intExpr = "") {
  return [floatExpr, intExpr](KernelArgs& a) {
    bool isInt = a.inputs[0].dtype() == DType::int32;
    const char* t = isInt ? "int" : "float";
    std::string body = std::string(kMathGlsl) + t + " value(int i) { " + t +
                       " x = in0(i); return " + (isInt ? intExpr : floatExpr) + "; }\n";
    runAligned(glBackend(a), body, a.inputs, a.outputs[0]);
  };
}

/// Reads a = in0, b = in1 (broadcast) as `T`, returns `expr`.
std::string binaryBody(KernelArgs& a, const std::string& inType, const std::string& outType,
                       const std::string& expr) {
  const Shape& out = a.outputs[0].shape();
  std::string s = kMathGlsl;
  s += broadcastIndex("ia", a.inputs[0].shape(), out);
  s += broadcastIndex("ib", a.inputs[1].shape(), out);
  s += outType + " value(int i) { " + inType + " a = " + inType + "(in0(ia(i))); " + inType +
       " b = " + inType + "(in1(ib(i))); return " + expr + "; }\n";
  return s;
}

/// GLSL: texel t's 4 values of input k, which has out's shape or repeats
/// along out's leading axes (a bias [C] of [N, H, W, C]) in whole texels, or
/// is a single value; "" when it is none of those.
std::string texelOf(const Tensor& in, int k, const Shape& out) {
  const std::string f = "ftexel" + std::to_string(k);
  if (in.shape() == out) return f + "(t)";
  if (in.size() == 1) return f + "(0).xxxx";
  const Shape& s = in.shape();
  if (in.size() % 4 != 0 || s.size() > out.size()) return "";
  for (size_t d = 0; d < s.size(); ++d)
    if (s[d] != out[out.size() - s.size() + d]) return "";
  return f + "(t % " + std::to_string(in.size() / 4) + ")";
}

/// Float binary ops whose operands read in whole texels (texelOf): a texel
/// per fragment, no index arithmetic per element. False when they do not.
bool binaryTexels(KernelArgs& a, const std::string& expr) {
  const Tensor& out = a.outputs[0];
  if (out.dtype() != DType::float32 || a.inputs[0].dtype() != DType::float32 ||
      a.inputs[1].dtype() != DType::float32 || out.size() % 4 != 0)
    return false;
  const std::string ta = texelOf(a.inputs[0], 0, out.shape());
  const std::string tb = texelOf(a.inputs[1], 1, out.shape());
  if (ta.empty() || tb.empty()) return false;
  std::string s =
      std::string(kMathGlsl) + "float op_(float a, float b) { return " + expr +
      "; }\nvec4 texelValue(int t) {\n  vec4 a = " + ta + ", b = " + tb +
      ";\n  return vec4(op_(a.x, b.x), op_(a.y, b.y), op_(a.z, b.z), op_(a.w, b.w));\n}\n";
  runTexels(glBackend(a), s, operands(a.inputs), textureOf(a.outputs[0]), out.size() / 4);
  return true;
}

KernelFn binary(std::string floatExpr, std::string intExpr) {
  return [floatExpr, intExpr](KernelArgs& a) {
    bool isInt = a.inputs[0].dtype() == DType::int32;
    if (!isInt && binaryTexels(a, floatExpr)) return;
    const char* t = isInt ? "int" : "float";
    runAligned(glBackend(a), binaryBody(a, t, t, isInt ? intExpr : floatExpr), a.inputs,
               a.outputs[0]);
  };
}

/// Comparison of any dtype (bools compared as 0/1) -> bool.
KernelFn compare(std::string op) {
  return [op](KernelArgs& a) {
    DType d = a.inputs[0].dtype();
    const char* t = d == DType::float32 ? "float" : "int";
    runAligned(glBackend(a), binaryBody(a, t, "bool", "a " + op + " b"), a.inputs, a.outputs[0]);
  };
}

KernelFn logic(std::string expr) {
  return [expr](KernelArgs& a) {
    runAligned(glBackend(a), binaryBody(a, "bool", "bool", expr), a.inputs, a.outputs[0]);
  };
}

void selectKernel(KernelArgs& a) {
  const Shape& out = a.outputs[0].shape();
  std::string t = glslType(a.outputs[0].dtype());
  std::string s = broadcastIndex("ic", a.inputs[0].shape(), out) +
                  broadcastIndex("ia", a.inputs[1].shape(), out) +
                  broadcastIndex("ib", a.inputs[2].shape(), out);
  s += t + " value(int i) { return in0(ic(i)) ? in1(ia(i)) : in2(ib(i)); }\n";
  runAligned(glBackend(a), s, a.inputs, a.outputs[0]);
}

void castKernel(KernelArgs& a) {
  DType from = a.inputs[0].dtype(), to = a.outputs[0].dtype();
  std::string expr;
  switch (to) {
    case DType::float32:
      expr = from == DType::boolean ? "x ? 1.0 : 0.0" : "float(x)";
      break;
    case DType::int32:
      // NaN -> 0; out-of-range floats saturate; the rest truncate toward zero.
      expr = from == DType::float32   ? "isnan(x) ? 0 : x >= 2147483648.0 ? 2147483647 : "
                                        "x < -2147483648.0 ? (-2147483647 - 1) : int(x)"
             : from == DType::boolean ? "x ? 1 : 0"
                                      : "x";
      break;
    case DType::boolean:
      expr = from == DType::float32 ? "x != 0.0" : from == DType::int32 ? "x != 0" : "x";
      break;
  }
  std::string s = std::string(glslType(to)) + " value(int i) { " + glslType(from) +
                  " x = in0(i); return " + expr + "; }\n";
  runAligned(glBackend(a), s, a.inputs, a.outputs[0]);
}

}  // namespace

void registerElementwiseKernels() {
  // Unary.
  GLINT_REGISTER(reg, "Neg", unary("-x", "int(0u - uint(x))"));
  GLINT_REGISTER(reg, "Abs", unary("abs(x)", "x < 0 ? int(0u - uint(x)) : x"));
  GLINT_REGISTER(reg, "Square", unary("x * x", "int(uint(x) * uint(x))"));
  GLINT_REGISTER(reg, "Sign", unary("isnan(x) ? x : sign(x)", "sign(x)"));
  GLINT_REGISTER(reg, "Exp", unary("exp_(x)"));
  GLINT_REGISTER(reg, "Log", unary("log_(x)"));
  GLINT_REGISTER(reg, "Log1p", unary("log1p_(x)"));
  GLINT_REGISTER(reg, "Sqrt", unary("sqrt(x)"));
  GLINT_REGISTER(reg, "Rsqrt", unary("1.0 / sqrt(x)"));
  GLINT_REGISTER(reg, "Reciprocal", unary("1.0 / x"));
  GLINT_REGISTER(reg, "Relu", unary("x > 0.0 ? x : (isnan(x) ? x : 0.0)"));
  GLINT_REGISTER(reg, "Relu6", unary("isnan(x) ? x : clamp(x, 0.0, 6.0)"));
  GLINT_REGISTER(reg, "LeakyRelu", [](KernelArgs& a) {
    unary("x > 0.0 ? x : (isnan(x) ? x : " + floatLit(a.attrs.f("alpha")) + " * x)")(a);
  });
  GLINT_REGISTER(reg, "Elu", unary("x > 0.0 ? x : expm1_(x)"));
  GLINT_REGISTER(reg, "Selu",
                 unary("1.0507009873554805 * (x > 0.0 ? x : 1.6732632423543772 * expm1_(x))"));
  GLINT_REGISTER(reg, "Sigmoid", unary("sigmoid_(x)"));
  GLINT_REGISTER(reg, "Tanh", unary("tanh_(x)"));
  GLINT_REGISTER(reg, "Softplus", unary("isnan(x) ? x : max(x, 0.0) + log1p_(exp_(-abs(x)))"));
  GLINT_REGISTER(reg, "Gelu", [](KernelArgs& a) {
    if (a.attrs.b("approximate"))
      // 0.5 (1 + tanh z) as sigmoid(2z): no cancellation where tanh z nears -1.
      unary("x * sigmoid_(1.5957691216057308 * (x + 0.044715 * x * x * x))")(a);
    else unary("0.5 * x * (1.0 + erf_(x * 0.7071067811865476))")(a);
  });
  GLINT_REGISTER(reg, "Erf", unary("erf_(x)"));
  GLINT_REGISTER(reg, "Sin", unary("sincos_(x).x"));
  GLINT_REGISTER(reg, "Cos", unary("sincos_(x).y"));
  GLINT_REGISTER(reg, "Asin", unary("asin_(x)"));
  GLINT_REGISTER(reg, "Acos", unary("acos_(x)"));
  GLINT_REGISTER(reg, "Atan", unary("atan_(x)"));
  GLINT_REGISTER(reg, "Asinh", unary("asinh_(x)"));
  GLINT_REGISTER(reg, "Acosh", unary("acosh_(x)"));
  GLINT_REGISTER(reg, "Atanh", unary("atanh_(x)"));
  GLINT_REGISTER(reg, "Floor", unary("floor(x)"));
  GLINT_REGISTER(reg, "Ceil", unary("ceil(x)"));
  GLINT_REGISTER(reg, "Round", unary("roundEven(x)"));

  // Binary.
  GLINT_REGISTER(reg, "Add", binary("a + b", "int(uint(a) + uint(b))"));
  GLINT_REGISTER(reg, "Sub", binary("a - b", "int(uint(a) - uint(b))"));
  GLINT_REGISTER(reg, "Mul", binary("a * b", "int(uint(a) * uint(b))"));
  GLINT_REGISTER(reg, "RealDiv", [](KernelArgs& a) {
    runAligned(glBackend(a), binaryBody(a, "float", "float", "a / b"), a.inputs, a.outputs[0]);
  });
  GLINT_REGISTER(reg, "Pow", binary("pow_(a, b)", "ipow_(a, b)"));
  GLINT_REGISTER(reg, "Atan2", binary("atan2_(a, b)", "int(atan2_(float(a), float(b)))"));
  GLINT_REGISTER(reg, "ReluGrad", binary("a * (b > 0.0 ? 1.0 : 0.0)", "b > 0 ? a : 0"));  // (dy, x)
  GLINT_REGISTER(reg, "Maximum", binary("isnan(b) ? b : isnan(a) ? a : max(a, b)", "max(a, b)"));
  GLINT_REGISTER(reg, "Minimum", binary("isnan(b) ? b : isnan(a) ? a : min(a, b)", "min(a, b)"));
  GLINT_REGISTER(reg, "SquaredDifference",
                 binary("(a - b) * (a - b)", "int((uint(a) - uint(b)) * (uint(a) - uint(b)))"));
  GLINT_REGISTER(reg, "FloorDiv", binary("floorDiv_(a, b)", "ifloorDiv_(a, b)"));
  GLINT_REGISTER(reg, "Mod", binary("fmod_(a, b)", "imod_(a, b)"));

  // Comparisons and logic.
  GLINT_REGISTER(reg, "Equal", compare("=="));
  GLINT_REGISTER(reg, "NotEqual", compare("!="));
  GLINT_REGISTER(reg, "Less", compare("<"));
  GLINT_REGISTER(reg, "LessEqual", compare("<="));
  GLINT_REGISTER(reg, "Greater", compare(">"));
  GLINT_REGISTER(reg, "GreaterEqual", compare(">="));
  GLINT_REGISTER(reg, "LogicalAnd", logic("a && b"));
  GLINT_REGISTER(reg, "LogicalOr", logic("a || b"));
  GLINT_REGISTER(reg, "LogicalXor", logic("a != b"));
  GLINT_REGISTER(reg, "LogicalNot", [](KernelArgs& a) {
    runAligned(glBackend(a), "bool value(int i) { return !in0(i); }\n", a.inputs, a.outputs[0]);
  });
  GLINT_REGISTER(reg, "Select", selectKernel);
  GLINT_REGISTER(reg, "Cast", castKernel);
  GLINT_REGISTER(reg, "ClipByValue", [](KernelArgs& a) {
    unary("isnan(x) ? x : min(max(x, " + floatLit(a.attrs.f("min")) + "), " +
          floatLit(a.attrs.f("max")) + ")")(a);
  });
}

}  // namespace glint::gl
