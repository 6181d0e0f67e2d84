// Element-wise kernels: one expression per output element, inputs broadcast
// through generated index maps; one dispatch each. WGSL's i32 arithmetic
// wraps like the reference, so int expressions need no uint detour. Scalars
// that may change between calls (LeakyRelu's alpha, ClipByValue's bounds) go
// through u_params so that they do not compile new pipelines.
#include <cctype>

#include "src/backends/param_block.h"
#include "src/backends/webgpu/kernels.h"
#include "src/backends/webgpu/wgsl.h"
#include "src/core/kernel_selection.h"

namespace glint::webgpu {

namespace {

void reg(const char* name, KernelFn fn) { registerKernel(name, "webgpu", std::move(fn)); }

/// kMathWgsl if `expr` calls one of its helpers, else nothing: the source is
/// built and hashed (pipeline cache) on every call, and Tint parses it on
/// every compile, so Add or Relu skip its 8 KB.
std::string mathFor(const std::string& expr) {
  for (size_t p = expr.find("_("); p != std::string::npos; p = expr.find("_(", p + 2)) {
    size_t b = p;
    auto inName = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    while (b > 0 && inName(expr[b - 1])) --b;
    std::string name = expr.substr(b, p + 1 - b);
    if (name != "isnan_" && name != "isinf_" && name != "inf_" && name != "nan_") return kMathWgsl;
  }
  return "";
}

/// Unary op: `floatExpr` / `intExpr` of x (an empty intExpr: float only).
void runUnary(KernelArgs& a, const std::string& floatExpr, const std::string& intExpr,
              const std::vector<float>& params = {}) {
  bool isInt = a.inputs[0].dtype() == DType::int32;
  const char* t = isInt ? "i32" : "f32";
  const std::string& expr = isInt ? intExpr : floatExpr;
  std::string body =
      mathFor(expr) + "fn value(i: i32) -> " + t + " { let x = in0(i); return " + expr + "; }\n";
  runElementwise(gpuBackend(a), body, a.inputs, a.outputs[0], params);
}

KernelFn unary(std::string floatExpr, std::string intExpr = "") {
  return [floatExpr, intExpr](KernelArgs& a) { runUnary(a, floatExpr, intExpr); };
}

/// Index maps `names[k]` of input k broadcast to `out`, over out's dims merged
/// where every input broadcasts alike, so fewer divisions per element
/// ([2,3,4] + [3,4] indexes as [2,12] + [12]; same shapes need none).
std::string broadcastIndices(const std::vector<std::string>& names,
                             const std::vector<Tensor>& inputs, const Shape& out) {
  size_t n = names.size();
  std::vector<Shape> ins(n);
  Shape merged;
  std::vector<bool> last;  // per input: does the last merged dim broadcast?
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;
    std::vector<bool> stretched(n);
    for (size_t k = 0; k < n; ++k) {
      const Shape& in = inputs[k].shape();
      size_t lead = out.size() - in.size();
      stretched[k] = d < lead || in[d - lead] == 1;
    }
    if (!merged.empty() && stretched == last) {
      merged.back() *= out[d];
      for (size_t k = 0; k < n; ++k) ins[k].back() *= stretched[k] ? 1 : out[d];
    } else {
      merged.push_back(out[d]);
      for (size_t k = 0; k < n; ++k) ins[k].push_back(stretched[k] ? 1 : out[d]);
      last = stretched;
    }
  }
  std::string s;
  for (size_t k = 0; k < n; ++k) s += broadcastIndex(names[k], ins[k], merged);
  return s;
}

/// Reads a = in0, b = in1 (broadcast) as `inType`, returns `expr`.
std::string binaryBody(KernelArgs& a, const std::string& inType, const std::string& outType,
                       const std::string& expr) {
  std::string s = mathFor(expr);
  s += broadcastIndices({"ia", "ib"}, a.inputs, a.outputs[0].shape());
  s += "fn value(i: i32) -> " + outType + " { let a = " + inType +
       "(in0(ia(i))); let b = " + inType + "(in1(ib(i))); return " + expr + "; }\n";
  return s;
}

KernelFn binary(std::string floatExpr, std::string intExpr) {
  return [floatExpr, intExpr](KernelArgs& a) {
    bool isInt = a.inputs[0].dtype() == DType::int32;
    const char* t = isInt ? "i32" : "f32";
    runElementwise(gpuBackend(a), binaryBody(a, t, t, isInt ? intExpr : floatExpr), a.inputs,
                   a.outputs[0]);
  };
}

/// Comparison of any dtype (bools compared as 0/1) -> bool. SwiftShader
/// compiles float != as an ordered comparison (NaN != x false): NaN explicitly.
KernelFn compare(std::string op) {
  return [op](KernelArgs& a) {
    bool isFloat = a.inputs[0].dtype() == DType::float32;
    std::string expr = "a " + op + " b";
    if (isFloat && op == "!=") expr += " || isnan_(a) || isnan_(b)";
    runElementwise(gpuBackend(a), binaryBody(a, isFloat ? "f32" : "i32", "bool", expr), a.inputs,
                   a.outputs[0]);
  };
}

KernelFn logic(std::string expr) {
  return [expr](KernelArgs& a) {
    runElementwise(gpuBackend(a), binaryBody(a, "bool", "bool", expr), a.inputs, a.outputs[0]);
  };
}

void selectKernel(KernelArgs& a) {
  std::string t = wgslType(a.outputs[0].dtype());
  std::string s = broadcastIndices({"ic", "ia", "ib"}, a.inputs, a.outputs[0].shape());
  s += "fn value(i: i32) -> " + t + " { return select(in2(ib(i)), in1(ia(i)), in0(ic(i))); }\n";
  runElementwise(gpuBackend(a), s, a.inputs, a.outputs[0]);
}

void castKernel(KernelArgs& a) {
  DType from = a.inputs[0].dtype(), to = a.outputs[0].dtype();
  std::string expr;
  switch (to) {
    case DType::float32:
      expr = from == DType::boolean ? "select(0.0, 1.0, x)" : "f32(x)";
      break;
    case DType::int32:
      // NaN -> 0; out-of-range floats saturate; the rest truncate toward zero.
      expr = from == DType::float32
                 ? "select(select(select(i32(x), -2147483647 - 1, x < -2147483648.0), 2147483647, "
                   "x >= 2147483648.0), 0, isnan_(x))"
             : from == DType::boolean ? "select(0, 1, x)"
                                      : "x";
      break;
    case DType::boolean:
      // SwiftShader's != is ordered (NaN != 0 false): NaN is true, as in C++.
      expr = from == DType::float32 ? "x != 0.0 || isnan_(x)"
             : from == DType::int32 ? "x != 0"
                                    : "x";
      break;
  }
  std::string s = std::string("fn value(i: i32) -> ") + wgslType(to) +
                  " { let x = in0(i); return " + expr + "; }\n";
  runElementwise(gpuBackend(a), s, a.inputs, a.outputs[0]);
}

}  // namespace

void registerElementwiseKernels() {
  // Unary. WGSL leaves sqrt of negatives and NaN undefined: NaN explicitly.
  GLINT_REGISTER(reg, "Neg", unary("-x", "-x"));
  GLINT_REGISTER(reg, "Abs", unary("abs(x)", "select(x, -x, x < 0)"));
  GLINT_REGISTER(reg, "Square", unary("x * x", "x * x"));
  GLINT_REGISTER(
      reg, "Sign",
      unary("select(sign(x), x, isnan_(x))", "select(0, 1, x > 0) - select(0, 1, x < 0)"));
  GLINT_REGISTER(reg, "Exp", unary("exp_(x)"));
  GLINT_REGISTER(reg, "Log", unary("log_(x)"));
  GLINT_REGISTER(reg, "Log1p", unary("log1p_(x)"));
  GLINT_REGISTER(reg, "Sqrt", unary("select(sqrt(x), nan_(), x < 0.0 || isnan_(x))"));
  GLINT_REGISTER(reg, "Rsqrt", unary("select(1.0 / sqrt(x), nan_(), x < 0.0 || isnan_(x))"));
  GLINT_REGISTER(reg, "Reciprocal", unary("1.0 / x"));
  GLINT_REGISTER(reg, "Relu", unary("select(0.0, x, x > 0.0 || isnan_(x))"));
  GLINT_REGISTER(reg, "Relu6", unary("select(clamp(x, 0.0, 6.0), x, isnan_(x))"));
  GLINT_REGISTER(reg, "LeakyRelu", [](KernelArgs& a) {
    ParamBlock p;
    p.add("alpha", a.attrs.f("alpha"));
    runUnary(a, p.expand("select($alpha * x, x, x > 0.0 || isnan_(x))"), "", p.values());
  });
  GLINT_REGISTER(reg, "Elu", unary("select(expm1_(x), x, x > 0.0)"));
  GLINT_REGISTER(reg, "Selu",
                 unary("1.0507009873554805 * select(1.6732632423543772 * expm1_(x), x, x > 0.0)"));
  GLINT_REGISTER(reg, "Sigmoid", unary("sigmoid_(x)"));
  GLINT_REGISTER(reg, "Tanh", unary("tanh_(x)"));
  GLINT_REGISTER(reg, "Softplus",
                 unary("select(max(x, 0.0) + log1p_(exp_(-abs(x))), x, isnan_(x))"));
  GLINT_REGISTER(reg, "Gelu", [](KernelArgs& a) {
    if (a.attrs.b("approximate"))
      // 0.5 (1 + tanh z) as sigmoid(2z): no cancellation where tanh z nears -1.
      runUnary(a, "x * sigmoid_(1.5957691216057308 * (x + 0.044715 * x * x * x))", "");
    else runUnary(a, "0.5 * x * (1.0 + erf_(x * 0.7071067811865476))", "");
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
  GLINT_REGISTER(reg, "Round", unary("round(x)"));  // WGSL rounds halves to even

  // Binary.
  GLINT_REGISTER(reg, "Add", binary("a + b", "a + b"));
  GLINT_REGISTER(reg, "Sub", binary("a - b", "a - b"));
  GLINT_REGISTER(reg, "Mul", binary("a * b", "a * b"));
  GLINT_REGISTER(reg, "RealDiv", [](KernelArgs& a) {
    runElementwise(gpuBackend(a), binaryBody(a, "f32", "f32", "a / b"), a.inputs, a.outputs[0]);
  });
  GLINT_REGISTER(reg, "Pow", binary("pow_(a, b)", "ipow_(a, b)"));
  GLINT_REGISTER(reg, "Atan2", binary("atan2_(a, b)", "i32(atan2_(f32(a), f32(b)))"));
  GLINT_REGISTER(reg, "ReluGrad",
                 binary("a * select(0.0, 1.0, b > 0.0)", "select(0, a, b > 0)"));  // (dy, x)
  GLINT_REGISTER(reg, "Maximum",
                 binary("select(select(max(a, b), a, isnan_(a)), b, isnan_(b))", "max(a, b)"));
  GLINT_REGISTER(reg, "Minimum",
                 binary("select(select(min(a, b), a, isnan_(a)), b, isnan_(b))", "min(a, b)"));
  GLINT_REGISTER(reg, "SquaredDifference", binary("(a - b) * (a - b)", "(a - b) * (a - b)"));
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
    runElementwise(gpuBackend(a), "fn value(i: i32) -> bool { return !in0(i); }\n", a.inputs,
                   a.outputs[0]);
  });
  GLINT_REGISTER(reg, "Select", selectKernel);
  GLINT_REGISTER(reg, "Cast", castKernel);
  GLINT_REGISTER(reg, "ClipByValue", [](KernelArgs& a) {
    ParamBlock p;
    p.add("min", a.attrs.f("min")).add("max", a.attrs.f("max"));
    runUnary(a, p.expand("select(min(max(x, $min), $max), x, isnan_(x))"), "", p.values());
  });
}

}  // namespace glint::webgpu
