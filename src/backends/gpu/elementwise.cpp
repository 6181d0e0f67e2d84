#include "src/backends/gpu/elementwise.h"

#include <limits>

#include "glint/error.h"
#include "src/backends/gpu/index.h"
#include "src/backends/gpu/math.h"
#include "src/core/kernel_selection.h"

namespace glint::gpu {

namespace {

// Functions, not globals: kernels built during static initialisation use them.
E nanF() { return E(std::numeric_limits<float>::quiet_NaN()); }

/// `floatRule` for float32 inputs, `intRule` for int32 (none: float only).
template <E (*Float)(E), E (*Int)(E) = nullptr>
E unaryRule(const ElementwiseArgs& a) {
  if (a.dtype == DType::float32) return Float(a.in[0]);
  if constexpr (Int != nullptr) return Int(a.in[0]);
  return E();
}

E same(E x) { return x; }

// Comparisons read bools as 0/1.
E operand(const ElementwiseArgs& a, size_t k) {
  return a.dtype == DType::boolean ? cast(Type::i32, a.in[k]) : a.in[k];
}

E castRule(const ElementwiseArgs& a) {
  E x = a.in[0];
  switch (a.out) {
    case DType::float32:
      return a.dtype == DType::boolean ? select(x, 1.0, 0.0) : cast(Type::f32, x);
    case DType::int32:
      // NaN -> 0; out-of-range floats saturate; the rest truncate toward zero.
      if (a.dtype == DType::float32)
        return select(
            isnan(x), 0,
            select(x >= 2147483648.0, 2147483647,
                   select(x < -2147483648.0, std::numeric_limits<int>::min(), cast(Type::i32, x))));
      return a.dtype == DType::boolean ? select(x, 1, 0) : x;
    case DType::boolean:
      return a.dtype == DType::float32 ? x != 0.0 : a.dtype == DType::int32 ? x != 0 : x;
  }
  return E();
}

void addAll(const std::function<void(const char*, ElementwiseKernel)>& add0) {
  auto add = [&](const char* name, int arity, ElementwiseRule rule) {
    add0(name, ElementwiseKernel{name, arity, rule});
  };
  using A = const ElementwiseArgs&;
  // Unary.
  GLINT_REGISTER(add, "Neg", 1, [](A a) { return -a.in[0]; });
  GLINT_REGISTER(add, "Abs", 1, [](A a) {
    E x = a.in[0];
    return a.isInt() ? select(x < 0, -x, x) : abs(x);
  });
  GLINT_REGISTER(add, "Square", 1, [](A a) { return a.in[0] * a.in[0]; });
  GLINT_REGISTER(add, "Sign", 1, [](A a) {
    E x = a.in[0];
    return a.isInt() ? select(x > 0, 1, 0) - select(x < 0, 1, 0) : select(isnan(x), x, sign(x));
  });
  GLINT_REGISTER(add, "Exp", 1, (unaryRule<exp_>));
  GLINT_REGISTER(add, "Log", 1, (unaryRule<log_>));
  GLINT_REGISTER(add, "Log1p", 1, (unaryRule<log1p_>));
  // The languages leave sqrt of negatives and NaN undefined.
  GLINT_REGISTER(add, "Sqrt", 1, [](A a) {
    E x = a.in[0];
    return a.isInt() ? E() : select(x < 0.0 || isnan(x), nanF(), sqrt(x));
  });
  GLINT_REGISTER(add, "Rsqrt", 1, [](A a) {
    E x = a.in[0];
    return a.isInt() ? E() : select(x < 0.0 || isnan(x), nanF(), 1.0 / sqrt(x));
  });
  GLINT_REGISTER(add, "Reciprocal", 1, [](A a) { return a.isInt() ? E() : 1.0 / a.in[0]; });
  GLINT_REGISTER(add, "Relu", 1, [](A a) {
    E x = a.in[0];
    return a.isInt() ? max(x, 0) : select(x > 0.0 || isnan(x), x, 0.0);
  });
  GLINT_REGISTER(add, "Relu6", 1, [](A a) {
    E x = a.in[0];
    return a.isInt() ? clamp(x, 0, 6) : select(isnan(x), x, clamp(x, 0.0, 6.0));
  });
  GLINT_REGISTER(add, "LeakyRelu", 1, [](A a) {
    E x = a.in[0];
    return a.isInt() ? E() : select(x > 0.0 || isnan(x), x, param("alpha", a.attrs.f("alpha")) * x);
  });
  GLINT_REGISTER(add, "Elu", 1, [](A a) {
    E x = a.in[0];
    return a.isInt() ? E() : select(x > 0.0, x, expm1_(x));
  });
  GLINT_REGISTER(add, "Selu", 1, [](A a) {
    E x = a.in[0];
    return a.isInt() ? E()
                     : 1.0507009873554805 * select(x > 0.0, x, 1.6732632423543772 * expm1_(x));
  });
  GLINT_REGISTER(add, "Sigmoid", 1, (unaryRule<sigmoid_>));
  GLINT_REGISTER(add, "Tanh", 1, (unaryRule<tanh_>));
  GLINT_REGISTER(add, "Softplus", 1, [](A a) {
    E x = a.in[0];
    return a.isInt() ? E() : select(isnan(x), x, max(x, 0.0) + log1p_(exp_(-abs(x))));
  });
  GLINT_REGISTER(add, "Gelu", 1, [](A a) {
    E x = a.in[0];
    if (a.isInt()) return E();
    // 0.5 (1 + tanh z) as sigmoid(2z): no cancellation where tanh z nears -1.
    if (a.attrs.b("approximate"))
      return x * sigmoid_(1.5957691216057308 * (x + 0.044715 * x * x * x));
    return 0.5 * x * (1.0 + erf_(x * 0.7071067811865476));
  });
  GLINT_REGISTER(add, "Erf", 1, (unaryRule<erf_>));
  GLINT_REGISTER(add, "Sin", 1, [](A a) { return a.isInt() ? E() : sincos_(a.in[0]).x(); });
  GLINT_REGISTER(add, "Cos", 1, [](A a) { return a.isInt() ? E() : sincos_(a.in[0]).y(); });
  GLINT_REGISTER(add, "Asin", 1, (unaryRule<asin_>));
  GLINT_REGISTER(add, "Acos", 1, (unaryRule<acos_>));
  GLINT_REGISTER(add, "Atan", 1, (unaryRule<atan_>));
  GLINT_REGISTER(add, "Asinh", 1, (unaryRule<asinh_>));
  GLINT_REGISTER(add, "Acosh", 1, (unaryRule<acosh_>));
  GLINT_REGISTER(add, "Atanh", 1, (unaryRule<atanh_>));
  GLINT_REGISTER(add, "Floor", 1, (unaryRule<floor, same>));
  GLINT_REGISTER(add, "Ceil", 1, (unaryRule<ceil, same>));
  GLINT_REGISTER(add, "Round", 1, (unaryRule<roundEven, same>));
  GLINT_REGISTER(add, "ClipByValue", 1, [](A a) {
    E x = a.in[0];
    if (a.isInt()) return E();
    return select(isnan(x), x,
                  min(max(x, param("min", a.attrs.f("min"))), param("max", a.attrs.f("max"))));
  });
  GLINT_REGISTER(add, "LogicalNot", 1, [](A a) { return !a.in[0]; });
  GLINT_REGISTER(add, "Cast", 1, castRule);

  // Binary. i32 + - * wrap around (the dialect sees to it).
  GLINT_REGISTER(add, "Add", 2, [](A a) { return a.in[0] + a.in[1]; });
  GLINT_REGISTER(add, "Sub", 2, [](A a) { return a.in[0] - a.in[1]; });
  GLINT_REGISTER(add, "Mul", 2, [](A a) { return a.in[0] * a.in[1]; });
  // int32 operands divide as float32 (the output is float32).
  GLINT_REGISTER(add, "RealDiv", 2,
                 [](A a) { return cast(Type::f32, a.in[0]) / cast(Type::f32, a.in[1]); });
  GLINT_REGISTER(add, "Pow", 2,
                 [](A a) { return a.isInt() ? ipow_(a.in[0], a.in[1]) : pow_(a.in[0], a.in[1]); });
  GLINT_REGISTER(add, "Atan2", 2, [](A a) {
    if (a.isInt())
      return cast(Type::i32, atan2_(cast(Type::f32, a.in[0]), cast(Type::f32, a.in[1])));
    return atan2_(a.in[0], a.in[1]);
  });
  GLINT_REGISTER(add, "ReluGrad", 2, [](A a) {  // (dy, x)
    return a.isInt() ? select(a.in[1] > 0, a.in[0], 0) : a.in[0] * select(a.in[1] > 0.0, 1.0, 0.0);
  });
  GLINT_REGISTER(add, "Maximum", 2, [](A a) {
    E x = a.in[0], y = a.in[1];
    return a.isInt() ? max(x, y) : select(isnan(y), y, select(isnan(x), x, max(x, y)));
  });
  GLINT_REGISTER(add, "Minimum", 2, [](A a) {
    E x = a.in[0], y = a.in[1];
    return a.isInt() ? min(x, y) : select(isnan(y), y, select(isnan(x), x, min(x, y)));
  });
  GLINT_REGISTER(add, "SquaredDifference", 2,
                 [](A a) { return (a.in[0] - a.in[1]) * (a.in[0] - a.in[1]); });
  GLINT_REGISTER(add, "FloorDiv", 2, [](A a) {
    return a.isInt() ? ifloorDiv_(a.in[0], a.in[1]) : floorDiv_(a.in[0], a.in[1]);
  });
  GLINT_REGISTER(add, "Mod", 2,
                 [](A a) { return a.isInt() ? imod_(a.in[0], a.in[1]) : fmod_(a.in[0], a.in[1]); });

  // Comparisons (any dtype -> bool) and logic.
  GLINT_REGISTER(add, "Equal", 2, [](A a) { return operand(a, 0) == operand(a, 1); });
  GLINT_REGISTER(add, "NotEqual", 2, [](A a) { return operand(a, 0) != operand(a, 1); });
  GLINT_REGISTER(add, "Less", 2, [](A a) { return operand(a, 0) < operand(a, 1); });
  GLINT_REGISTER(add, "LessEqual", 2, [](A a) { return operand(a, 0) <= operand(a, 1); });
  GLINT_REGISTER(add, "Greater", 2, [](A a) { return operand(a, 0) > operand(a, 1); });
  GLINT_REGISTER(add, "GreaterEqual", 2, [](A a) { return operand(a, 0) >= operand(a, 1); });
  GLINT_REGISTER(add, "LogicalAnd", 2, [](A a) { return a.in[0] && a.in[1]; });
  GLINT_REGISTER(add, "LogicalOr", 2, [](A a) { return a.in[0] || a.in[1]; });
  GLINT_REGISTER(add, "LogicalXor", 2, [](A a) { return a.in[0] != a.in[1]; });
  GLINT_REGISTER(add, "Select", 3, [](A a) { return select(a.in[0], a.in[1], a.in[2]); });
}

/// The kernel's expression, or an error naming what it lacks.
E expression(const ElementwiseKernel& k, const ElementwiseArgs& args) {
  E e = k.rule(args);
  if (!e.valid()) fail(k.name, "the GPU kernel takes float32 inputs, not ", dtypeName(args.dtype));
  return e;
}

}  // namespace

E zero(DType d) {
  switch (d) {
    case DType::float32:
      return E(0.0);
    case DType::int32:
      return E(0);
    case DType::boolean:
      return E(false);
  }
  return E(0.0);
}

void elementwiseKernels(const std::function<void(const char*, ElementwiseKernel)>& add) {
  addAll(add);
}

namespace {

Fn valueFn(const ElementwiseKernel& k, const std::vector<DType>& inputs, DType out,
           const Attrs& attrs, const std::vector<std::string>& indexNames) {
  static const char* const kNames[][3] = {{"x"}, {"a", "b"}, {"c", "a", "b"}};
  if (static_cast<int>(inputs.size()) != k.arity)
    fail(k.name, "takes ", k.arity, " inputs, got ", inputs.size());
  Fn value("value", irType(out), {{"i", Type::i32}});
  E i = value.arg(0);
  ElementwiseArgs args{{}, inputs[k.arity == 3 ? 1 : 0], out, attrs};
  for (size_t n = 0; n < inputs.size(); ++n) {
    const std::string& idx = n < indexNames.size() ? indexNames[n] : std::string();
    E at = idx.empty() ? i : external(idx, Type::i32, {i});
    args.in.push_back(value.let(kNames[k.arity - 1][n],
                                external("in" + std::to_string(n), irType(inputs[n]), {at})));
  }
  value.ret(expression(k, args));
  return value;
}

}  // namespace

std::string valueSource(const Dialect& d, const ElementwiseKernel& k,
                        const std::vector<DType>& inputs, DType out, const Attrs& attrs,
                        const std::vector<std::string>& indexNames, std::vector<float>* params) {
  Fn value = valueFn(k, inputs, out, attrs, indexNames);
  return printCached(d, value, params);
}

std::string elementwiseSource(const Dialect& d, const ElementwiseKernel& k,
                              const std::vector<Tensor>& inputs, const Tensor& out,
                              const Attrs& attrs, std::vector<float>& params) {
  static const std::vector<std::string> kIndex[] = {{""}, {"ia", "ib"}, {"ic", "ia", "ib"}};
  const std::vector<std::string>& names = kIndex[k.arity - 1];
  std::vector<DType> dtypes;
  std::vector<Shape> shapes;
  for (const Tensor& in : inputs) {
    dtypes.push_back(in.dtype());
    shapes.push_back(in.shape());
  }
  // Strides as parameters where the dialect reads them: a program per
  // broadcast pattern, not per shape.
  std::vector<Fn> maps;
  if (k.arity > 1) maps = broadcastIndices(names, shapes, out.shape(), d.intParamsAsUniforms());
  Fn value = valueFn(k, dtypes, out.dtype(), attrs, names);
  std::vector<const Fn*> fns;
  for (const Fn& map : maps) fns.push_back(&map);
  fns.push_back(&value);
  return printCached(d, fns, &params);
}

E fusedActivation(const std::string& name, E x, double alpha) {
  E y = x;
  if (name == "relu") y = select(x > 0.0, x, 0.0);
  else if (name == "relu6") y = clamp(x, 0.0, 6.0);
  else if (name == "elu") y = select(x > 0.0, x, expm1_(x));
  else if (name == "leakyrelu") y = select(x > 0.0, x, alpha * x);
  else if (name == "sigmoid") y = sigmoid_(x);
  else if (name == "tanh") y = tanh_(x);
  else if (name != "linear" && !name.empty()) fail("_FusedMatMul", "unknown activation ", name);
  return y.node().op == Op::ref ? y : select(isnan(x), x, y);
}

std::string activationSource(const Dialect& d, const std::string& name, double alpha,
                             const std::string& fnName) {
  Fn f(fnName, Type::f32, {{"x", Type::f32}});
  f.ret(fusedActivation(name, f.arg(0), alpha));
  return printCached(d, f);
}

std::string floatFunctionSource(const Dialect& d, const ElementwiseKernel& k, const Attrs& attrs,
                                const std::string& name, std::vector<float>* params) {
  std::vector<std::pair<std::string, Type>> ps;
  for (int n = 0; n < k.arity; ++n)
    ps.push_back({std::string(1, static_cast<char>('a' + n)), Type::f32});
  Fn f(name, Type::f32, ps);
  ElementwiseArgs args{{}, DType::float32, DType::float32, attrs};
  for (int n = 0; n < k.arity; ++n) args.in.push_back(f.arg(n));
  f.ret(expression(k, args));
  return printCached(d, f, params);
}

}  // namespace glint::gpu
