// The GPU kernel IR (src/backends/gpu): the printers' spellings, and the math
// library's numerics judged apart from any GPU compiler — an interpreter here
// runs each IR function in float32/int32 arithmetic and compares it with
// double-precision libm (the op tables then check what the GPUs make of it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#include "glint/error.h"
#include "src/backends/gpu/cells.h"
#include "src/backends/gpu/elementwise.h"
#include "src/backends/gpu/fold.h"
#include "src/backends/gpu/index.h"
#include "src/backends/gpu/math.h"
#include "src/backends/gpu/optim.h"
#include "src/backends/gpu/printer.h"

namespace glint::gpu {
namespace {

// ---- An interpreter of the IR, float32 and wrapping int32 as the GPUs have them.

struct V {
  Type t = Type::f32;
  float f = 0, y = 0;  // y: a vec2's second lane
  uint32_t u = 0;      // i32 and u32 bits
  bool b = false;
  int32_t i() const { return static_cast<int32_t>(u); }
};

V fv(float f) { return V{Type::f32, f}; }
V iv(int32_t i) { return V{Type::i32, 0, 0, static_cast<uint32_t>(i)}; }
V uv(uint32_t u) { return V{Type::u32, 0, 0, u}; }
V bv(bool b) { return V{Type::boolean, 0, 0, 0, b}; }

float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t floatToBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

using Env = std::map<std::string, V>;
V callFn(const Fn& f, const std::vector<V>& args);
/// What a backend's prelude would define, for the IR that calls it (external).
std::map<std::string, std::function<V(const std::vector<V>&)>>& externals() {
  static std::map<std::string, std::function<V(const std::vector<V>&)>> m;
  return m;
}

V eval(const E& e, Env& env) {
  const Node& n = e.node();
  auto a = [&](size_t k) { return eval(n.args[k], env); };
  switch (n.op) {
    case Op::literal:
      if (n.type == Type::f32) return fv(bitsToFloat(static_cast<uint32_t>(n.bits)));
      if (n.type == Type::boolean) return bv(n.bits != 0);
      return V{n.type, 0, 0, static_cast<uint32_t>(n.bits)};
    case Op::ref:
      return env.at(n.name);
    case Op::param:
      return n.type == Type::i32 ? iv(static_cast<int32_t>(n.value))
                                 : fv(static_cast<float>(n.value));
    case Op::neg: {
      V x = a(0);
      return x.t == Type::f32 ? fv(-x.f) : V{x.t, 0, 0, 0u - x.u};
    }
    case Op::lnot:
      return bv(!a(0).b);
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::div: {
      V x = a(0), y = a(1);
      if (x.t == Type::f32) {
        float r = n.op == Op::add   ? x.f + y.f
                  : n.op == Op::sub ? x.f - y.f
                  : n.op == Op::mul ? x.f * y.f
                                    : x.f / y.f;
        return fv(r);
      }
      uint32_t r = n.op == Op::add   ? x.u + y.u
                   : n.op == Op::sub ? x.u - y.u
                   : n.op == Op::mul ? x.u * y.u
                                     : x.u / y.u;
      return V{x.t, 0, 0, r};
    }
    case Op::mod:
      return iv(a(0).i() % a(1).i());
    case Op::band:
      return V{n.type, 0, 0, a(0).u & a(1).u};
    case Op::bor:
      return V{n.type, 0, 0, a(0).u | a(1).u};
    case Op::bxor:
      return V{n.type, 0, 0, a(0).u ^ a(1).u};
    case Op::shl:
      return V{n.type, 0, 0, a(0).u << a(1).u};
    case Op::shr: {
      V x = a(0);
      uint32_t s = a(1).u;
      return V{n.type, 0, 0, x.t == Type::i32 ? static_cast<uint32_t>(x.i() >> s) : x.u >> s};
    }
    case Op::eq:
    case Op::ne:
    case Op::lt:
    case Op::le:
    case Op::gt:
    case Op::ge: {
      V x = a(0), y = a(1);
      double p, q;
      if (x.t == Type::f32) p = x.f, q = y.f;
      else if (x.t == Type::i32) p = x.i(), q = y.i();
      else if (x.t == Type::u32) p = x.u, q = y.u;
      else p = x.b, q = y.b;
      switch (n.op) {
        case Op::eq:
          return bv(p == q);
        case Op::ne:
          return bv(p != q);
        case Op::lt:
          return bv(p < q);
        case Op::le:
          return bv(p <= q);
        case Op::gt:
          return bv(p > q);
        default:
          return bv(p >= q);
      }
    }
    case Op::land:
      return bv(a(0).b && a(1).b);
    case Op::lor:
      return bv(a(0).b || a(1).b);
    case Op::select:
      return a(0).b ? a(1) : a(2);
    case Op::cast: {
      V x = a(0);
      double v = x.b;
      if (x.t == Type::f32) v = x.f;
      if (x.t == Type::i32) v = x.i();
      if (x.t == Type::u32) v = x.u;
      if (n.type == Type::f32) return fv(static_cast<float>(v));
      if (x.t != Type::f32) return V{n.type, 0, 0, x.t == Type::boolean ? uint32_t(x.b) : x.u};
      v = std::trunc(v);  // float to int: in range wherever the library casts
      return n.type == Type::i32
                 ? iv(static_cast<int32_t>(std::clamp(v, -2147483648.0, 2147483647.0)))
                 : uv(static_cast<uint32_t>(std::clamp(v, 0.0, 4294967295.0)));
    }
    case Op::bitcast: {
      V x = a(0);
      if (n.type == Type::f32) return fv(bitsToFloat(x.u));
      return V{n.type, 0, 0, x.t == Type::f32 ? floatToBits(x.f) : x.u};
    }
    case Op::builtin: {
      V x = a(0);
      const std::string& b = n.name;
      if (b == "isnan") return bv(std::isnan(x.f));
      if (b == "isinf") return bv(std::isinf(x.f));
      if (x.t == Type::i32) {
        if (b == "abs") return iv(x.i() < 0 ? -x.i() : x.i());
        if (b == "min") return iv(std::min(x.i(), a(1).i()));
        if (b == "max") return iv(std::max(x.i(), a(1).i()));
        if (b == "clamp") return iv(std::min(std::max(x.i(), a(1).i()), a(2).i()));
      }
      if (b == "abs") return fv(std::fabs(x.f));
      if (b == "min") return fv(std::fmin(x.f, a(1).f));
      if (b == "max") return fv(std::fmax(x.f, a(1).f));
      if (b == "clamp") return fv(std::fmin(std::fmax(x.f, a(1).f), a(2).f));
      if (b == "floor") return fv(std::floor(x.f));
      if (b == "ceil") return fv(std::ceil(x.f));
      if (b == "fract") return fv(x.f - std::floor(x.f));
      if (b == "sqrt") return fv(std::sqrt(x.f));
      if (b == "sign") return fv(x.f > 0 ? 1.0f : x.f < 0 ? -1.0f : 0.0f);
      if (b == "exp2") return fv(std::exp2(x.f));
      if (b == "log2") return fv(std::log2(x.f));
      if (b == "sin") return fv(std::sin(x.f));
      if (b == "cos") return fv(std::cos(x.f));
      if (b == "roundEven") return fv(std::nearbyint(x.f));
      ADD_FAILURE() << "no builtin " << b;
      return x;
    }
    case Op::call: {
      std::vector<V> args;
      for (size_t k = 0; k < n.args.size(); ++k) args.push_back(a(k));
      return callFn(*n.fn, args);
    }
    case Op::external: {
      auto f = externals().find(n.name);
      if (f == externals().end()) {
        ADD_FAILURE() << "external " << n.name;
        return fv(0);
      }
      std::vector<V> args;
      for (size_t k = 0; k < n.args.size(); ++k) args.push_back(a(k));
      return f->second(args);
    }
    case Op::vec2:
      return V{Type::vec2f, a(0).f, a(1).f};
    case Op::member: {
      V x = a(0);
      return fv(n.bits ? x.y : x.f);
    }
  }
  return fv(0);
}

std::optional<V> run(const std::vector<Stmt>& block, Env& env) {
  for (const Stmt& s : block) {
    switch (s.kind) {
      case Stmt::let:
      case Stmt::var:
        env[s.name] = s.value.valid() ? eval(s.value, env) : V{s.type};
        break;
      case Stmt::assign:
        env[s.name] = eval(s.value, env);
        break;
      case Stmt::ret:
        return eval(s.value, env);
      case Stmt::ifElse:
        if (auto r = run(eval(s.value, env).b ? s.body : s.orElse, env)) return r;
        break;
      case Stmt::loop:
        run(s.init, env);
        for (int guard = 0; eval(s.value, env).b; ++guard) {
          if (guard > 100000) {
            ADD_FAILURE() << "runaway loop";
            return std::nullopt;
          }
          if (auto r = run(s.body, env)) return r;
          run(s.step, env);
        }
        break;
    }
  }
  return std::nullopt;
}

V callFn(const Fn& f, const std::vector<V>& args) {
  Env env;
  for (size_t k = 0; k < args.size(); ++k) env[f.params[k].first] = args[k];
  std::optional<V> r = run(f.body, env);
  if (!r) ADD_FAILURE() << f.name << " fell off its end";
  return r.value_or(fv(0));
}

float run1(E (*fn)(E), float x) {
  Env env;
  return eval(fn(E(x)), env).f;
}
float run2(E (*fn)(E, E), float a, float b) {
  Env env;
  return eval(fn(E(a), E(b)), env).f;
}

// ---- Checking numerics against double precision.

std::vector<float> probes() {
  std::vector<float> v = {0.0f,   -0.0f,  1.0f,   -1.0f,   0.5f,     -0.5f,    0.29f,
                          -0.29f, 0.625f, 1e-30f, -1e-30f, 1e-7f,    2.0f,     3.0f,
                          88.0f,  88.7f,  89.0f,  -87.0f,  -103.9f,  -104.5f,  1e5f,
                          1e10f,  1e30f,  -1e30f, 3.4e38f, 1.2e-38f, 0.99999f, 1.00001f};
  for (float e = -12; e <= 12; e += 0.37f) {
    v.push_back(std::pow(10.0f, e / 3));
    v.push_back(-std::pow(10.0f, e / 3));
  }
  for (float x = -12; x <= 12; x += 0.173f) v.push_back(x);
  v.push_back(std::numeric_limits<float>::infinity());
  v.push_back(-std::numeric_limits<float>::infinity());
  v.push_back(std::numeric_limits<float>::quiet_NaN());
  return v;
}

/// |got - want| within `ulps` float32 ulps of want, or `abs` absolutely;
/// NaN and infinities exactly where want has them.
void expectClose(const char* what, double in, float got, double want, double ulps, double abs = 0) {
  float w = static_cast<float>(want);
  if (std::isnan(w) || std::isnan(got)) {
    EXPECT_EQ(std::isnan(w), std::isnan(got))
        << what << "(" << in << ") = " << got << ", not " << want;
    return;
  }
  if (std::isinf(w) || std::isinf(got)) {
    EXPECT_EQ(w, got) << what << "(" << in << ")";
    return;
  }
  double ulp = std::max(std::ldexp(1.0, std::ilogb(std::max(std::fabs(want), 1.17549435e-38)) - 23),
                        1.4e-45);
  EXPECT_LE(std::fabs(got - want), ulps * ulp + abs)
      << what << "(" << in << ") = " << got << ", want " << want << " ("
      << std::fabs(got - want) / ulp << " ulp)";
}

TEST(GpuMath, TranscendentalsWithinUlpsOfDouble) {
  for (float x : probes()) {
    double d = x;
    expectClose("exp_", d, run1(exp_, x), std::exp(d), 2);
    expectClose("log_", d, run1(log_, x), std::log(d), 2);
    expectClose("expm1_", d, run1(expm1_, x), std::expm1(d), 3);
    expectClose("log1p_", d, run1(log1p_, x), std::log1p(d), 3);
    expectClose("tanh_", d, run1(tanh_, x), std::tanh(d), 3);
    expectClose("sigmoid_", d, run1(sigmoid_, x), 1 / (1 + std::exp(-d)), 3);
    expectClose("erf_", d, run1(erf_, x), std::erf(d), 4, 2e-7);
    expectClose("atan_", d, run1(atan_, x), std::atan(d), 3);
    expectClose("asinh_", d, run1(asinh_, x), std::asinh(d), 4);
    expectClose("asin_", d, run1(asin_, x), std::asin(d), 4);
    expectClose("acos_", d, run1(acos_, x), std::acos(d), 4, 1e-7);
    expectClose("acosh_", d, run1(acosh_, x), std::acosh(d), 4, 1e-7);
    expectClose("atanh_", d, run1(atanh_, x), std::atanh(d), 4);
    if (std::fabs(x) <= 1e4f || !std::isfinite(x)) {
      Env env;
      V sc = eval(sincos_(E(x)), env);
      // Near a zero of sin or cos the result is as good as x's own rounding.
      expectClose("sin", d, sc.f, std::sin(d), 3, 1.5e-7);
      expectClose("cos", d, sc.y, std::cos(d), 3, 1.5e-7);
    }
  }
}

TEST(GpuMath, BinaryFunctionsMatchDouble) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> xs = {0.0f,  -0.0f,   1.0f,  -1.0f,  2.0f,  -2.0f,  0.5f,  3.0f, -3.0f,
                           1e-6f, 0.9999f, 7.25f, -7.25f, 1e30f, 1e-30f, 0.44f, inf,  -inf};
  for (float a : xs)
    for (float b : xs) {
      double da = a, db = b;
      expectClose("pow_", da, run2(pow_, a, b), std::pow(da, db), 4);
      expectClose("atan2_", da, run2(atan2_, a, b), std::atan2(da, db), 3);
      if (b != 0) {
        // Exact below 2^24; beyond, the float32 nearest the quotient.
        expectClose("floorDiv_", da, run2(floorDiv_, a, b), std::floor(da / db), 1);
        double m = std::fmod(da, db);
        if (m != 0 && (m < 0) != (db < 0)) m += db;
        if (!std::isinf(a)) expectClose("fmod_", da, run2(fmod_, a, b), m, 1);
      }
    }
}

TEST(GpuMath, IntDivisionRoundsAsTheReference) {
  auto runI = [](E (*fn)(E, E), int a, int b) {
    Env env;
    return eval(fn(E(a), E(b)), env).i();
  };
  for (int a : {7, -7, 0, 1, -1, 13, -13, 2147483647, -2147483647 - 1})
    for (int b : {2, -2, 3, -3, 1, -1, 5, 0}) {
      int64_t fd = b == 0 ? 0 : static_cast<int64_t>(std::floor(double(a) / b));
      if (b != 0 && fd <= 2147483647) EXPECT_EQ(runI(ifloorDiv_, a, b), fd) << a << " // " << b;
      int64_t m = b == 0 || b == -1 ? 0 : int64_t(a) - fd * b;
      EXPECT_EQ(runI(imod_, a, b), m) << a << " % " << b;
    }
  EXPECT_EQ(runI(ipow_, 3, 4), 81);
  EXPECT_EQ(runI(ipow_, -2, 3), -8);
  EXPECT_EQ(runI(ipow_, -1, -3), -1);
  EXPECT_EQ(runI(ipow_, 2, -1), 0);
  EXPECT_EQ(runI(ipow_, 2, 31), -2147483647 - 1);  // wraps like the reference
}

TEST(GpuOptim, AdamUpdateMatchesItsFormulaInDouble) {
  Attrs a;
  a.set("lr", 0.01).set("beta1", 0.9).set("beta2", 0.999).set("epsilon", 1e-7);
  a.set("biasCorrection1", 0.1).set("biasCorrection2", 0.001).set("weightDecay", 0.5);
  OptimizerUpdate adam = nullptr;
  optimizerKernels([&](const char* name, OptimizerUpdate u) {
    if (std::string(name) == "ApplyAdam") adam = u;
  });
  ASSERT_NE(adam, nullptr);
  const double w = 0.7, m = 0.2, v = 0.05, g = -0.3;
  Fn body("update", Type::f32, {});
  std::vector<E> outs = adam(body, {E(w), E(m), E(v), E(g)}, a);
  body.ret(outs[0]);
  Env env;
  auto result = run(body.body, env);
  ASSERT_TRUE(result);
  double m1 = 0.9 * m + 0.1 * g, v1 = 0.999 * v + 0.001 * g * g;
  double w1 = w - 0.01 * 0.5 * w - 0.01 * (m1 / 0.1) / (std::sqrt(v1 / 0.001) + 1e-7);
  EXPECT_NEAR(result->f, w1, 1e-6);
  EXPECT_NEAR(env.at(localName(outs[1])).f, m1, 1e-7);
  EXPECT_NEAR(env.at(localName(outs[2])).f, v1, 1e-7);
  // Per-step scalars are uniforms in both languages: one program per kernel.
  std::vector<float> p1, p2;
  std::string s1 = printBodyCached(glsl(), body, &p1);
  a.set("biasCorrection1", 0.2).set("lr", 0.02);
  Fn body2("update", Type::f32, {});
  outs = adam(body2, {E(w), E(m), E(v), E(g)}, a);
  body2.ret(outs[0]);
  EXPECT_EQ(printBodyCached(glsl(), body2, &p2), s1);
  EXPECT_NE(p1, p2);
  EXPECT_NE(s1.find("u_params["), std::string::npos) << s1;
}

// NumPy broadcasting's source index, computed from coordinates.
int64_t broadcastSource(const Shape& in, const Shape& out, int64_t i) {
  std::vector<int64_t> os = stridesOf(out), is = stridesOf(in);
  size_t lead = out.size() - in.size();
  int64_t r = 0;
  for (size_t d = 0; d < out.size(); ++d) {
    int64_t c = i / os[d];
    i -= c * os[d];
    if (d >= lead && in[d - lead] != 1) r += c * is[d - lead];
  }
  return r;
}

TEST(GpuIndex, BroadcastMapsMatchNumPyRules) {
  const Shape out = {2, 3, 1, 4, 5};
  const std::vector<Shape> ins = {{2, 3, 1, 4, 5}, {4, 5}, {3, 1, 1},      {1},
                                  {2, 1, 1, 4, 1}, {5},    {1, 3, 1, 4, 1}};
  for (const Shape& in : ins) {
    Fn f = broadcastIndex("ia", in, out);
    for (int64_t i = 0; i < shapeSize(out); ++i)
      ASSERT_EQ(callFn(f, {iv(static_cast<int32_t>(i))}).i(), broadcastSource(in, out, i))
          << "element " << i << " of an input of rank " << in.size();
  }
  // Merged over the dims that broadcast alike, all inputs at once; strides
  // as literals and as parameters.
  const std::vector<Shape> three = {ins[1], ins[2], ins[4]};
  for (bool asParams : {false, true}) {
    std::vector<Fn> maps = broadcastIndices({"ia", "ib", "ic"}, three, out, asParams);
    for (size_t k = 0; k < maps.size(); ++k) {
      const Shape& in = three[k];
      for (int64_t i = 0; i < shapeSize(out); ++i)
        ASSERT_EQ(callFn(maps[k], {iv(static_cast<int32_t>(i))}).i(), broadcastSource(in, out, i))
            << (asParams ? "strides as parameters" : "literal strides");
    }
  }
}

// Strides as parameters: in GLSL every shape of one broadcast pattern prints
// the same program, and the parameters carry the shape (i32 words); WGSL
// prints them as literals (a program per shape, no parameter).
TEST(GpuIndex, StridesAsParametersShareOneProgramAcrossShapes) {
  const std::vector<std::pair<Shape, Shape>> calls = {
      {{3, 4}, {2, 3, 4}}, {{7, 5}, {6, 7, 5}}, {{2, 9}, {4, 2, 9}}};
  std::string first, firstWgsl;
  std::vector<float> firstParams;
  for (const auto& [in, out] : calls) {
    Fn ia = broadcastIndex("ia", {out[0], 1, out[2]}, out, true);
    Fn ib = broadcastIndex("ib", in, out, true);
    std::vector<float> params, wgslParams;
    std::string text = printCached(glsl(), {&ia, &ib}, &params);
    std::string wgslText = printCached(wgsl(), {&ia, &ib}, &wgslParams);
    EXPECT_TRUE(wgslParams.empty());
    EXPECT_NE(wgslText.find(std::to_string(out[1] * out[2])), std::string::npos) << wgslText;
    if (first.empty()) {
      first = text;
      firstWgsl = wgslText;
      firstParams = params;
      EXPECT_NE(text.find("u_ints["), std::string::npos) << text;
    } else {
      EXPECT_EQ(text, first);
      EXPECT_NE(params, firstParams);
      EXPECT_NE(wgslText, firstWgsl);
    }
    // The words are the strides' bits: ia's first is out's stride of dim 0.
    ASSERT_FALSE(params.empty());
    int32_t word;
    std::memcpy(&word, params.data(), 4);
    EXPECT_EQ(word, out[1] * out[2]);
  }
  // In GLSL an i32 parameter never prints as a literal, even though f32 ones do.
  const E i = ref("i", Type::i32);
  EXPECT_EQ(printExpr(glsl(), i < iparam("n", 12)), "i < u_ints[0]");
  EXPECT_EQ(printExpr(wgsl(), i < iparam("n", 12)), "i < 12");
  EXPECT_THROW(iparam("n", int64_t{1} << 31), Error);
}

// ---- The printers.

TEST(GpuPrinter, MinimalParenthesesAndEachLanguagesSpelling) {
  E x = ref("x", Type::f32), y = ref("y", Type::f32);
  EXPECT_EQ(printExpr(glsl(), x * (y + 1.0) - x / (x * y)), "x * (y + 1.0) - x / (x * y)");
  EXPECT_EQ(printExpr(glsl(), x - (y - x)), "x - (y - x)");
  EXPECT_EQ(printExpr(glsl(), -(x + y) * -x), "-(x + y) * -x");
  EXPECT_EQ(printExpr(glsl(), select(x > 0.0 || isnan(x), x, 0.25 * x)),
            "x > 0.0 || isnan(x) ? x : 0.25 * x");
  EXPECT_EQ(printExpr(wgsl(), select(x > 0.0 || isnan(x), x, 0.25 * x)),
            "select(0.25 * x, x, x > 0.0 || isnan_(x))");
  // WGSL does not mix && and ||, nor & and ==: both print the parentheses.
  E b = ref("b", Type::boolean);
  EXPECT_EQ(printExpr(wgsl(), (b && x < y) || b), "(b && x < y) || b");
  E i = ref("i", Type::i32);
  EXPECT_EQ(printExpr(wgsl(), (i & 3) == 0), "(i & 3) == 0");
  // GLSL's signed overflow is undefined: i32 arithmetic wraps through uint.
  EXPECT_EQ(printExpr(glsl(), i * i + 1), "int(uint(i) * uint(i) + 1u)");
  EXPECT_EQ(printExpr(wgsl(), i * i + 1), "i * i + 1");
  EXPECT_EQ(printExpr(glsl(), -i), "int(0u - uint(i))");
  // Round-trip decimals; non-finite values as each language can have them.
  EXPECT_EQ(printExpr(glsl(), E(0.1f) + E(1e30f)), "0.1 + 1e+30");
  EXPECT_EQ(printExpr(glsl(), E(std::numeric_limits<float>::infinity())), "INF");
  EXPECT_EQ(printExpr(wgsl(), E(-std::numeric_limits<float>::infinity())), "-inf_()");
  EXPECT_EQ(printExpr(wgsl(), E(std::numeric_limits<float>::quiet_NaN())), "nan_()");
  EXPECT_EQ(printExpr(wgsl(), bitcast(Type::u32, x) >> 31), "bitcast<u32>(x) >> 31u");
  EXPECT_EQ(printExpr(glsl(), bitcast(Type::u32, x) >> 31), "floatBitsToUint(x) >> 31u");
  // Parameters: a uniform's element in WGSL, the value in GLSL.
  ParamList p;
  EXPECT_EQ(printExpr(wgsl(), param("alpha", 0.2) * x, &p), "u_params[0] * x");
  EXPECT_EQ(p.values, std::vector<float>{0.2f});
  EXPECT_EQ(printExpr(glsl(), param("alpha", 0.2) * x), "0.2 * x");
}

TEST(GpuPrinter, FunctionsComeWithTheirCalleesFirst) {
  Fn f("value", Type::f32, {{"i", Type::i32}});
  f.ret(tanh_(external("in0", Type::f32, {f.arg(0)})));
  for (const Dialect* d : {&glsl(), &wgsl()}) {
    std::string s = print(*d, {&f});
    size_t expAt = s.find("exp_("), tanhAt = s.find("tanh_("), valueAt = s.find("value(");
    ASSERT_NE(expAt, std::string::npos) << s;
    EXPECT_LT(expAt, tanhAt);
    EXPECT_LT(tanhAt, valueAt);
    EXPECT_EQ(s.find("erf_"), std::string::npos) << "only what value() calls";
  }
}

TEST(GpuElementwise, EveryKernelPrintsInBothLanguages) {
  int n = 0;
  elementwiseKernels([&](const char* name, ElementwiseKernel k) {
    ++n;
    Attrs attrs;
    attrs.set("alpha", 0.2).set("min", -1.0).set("max", 1.0).set("approximate", false);
    std::vector<DType> in(k.arity, DType::float32);
    DType out = DType::float32;
    std::string s(name);
    if (s.rfind("Logical", 0) == 0) std::fill(in.begin(), in.end(), DType::boolean);
    if (s == "Select") in[0] = DType::boolean;
    if (s.find("Equal") != std::string::npos || s == "Less" || s == "Greater" ||
        s.rfind("Logical", 0) == 0)
      out = DType::boolean;
    std::vector<std::string> idx(k.arity, "");
    for (const Dialect* d : {&glsl(), &wgsl()}) {
      std::string text = valueSource(*d, k, in, out, attrs, idx);
      EXPECT_NE(text.find("value("), std::string::npos) << name;
    }
  });
  EXPECT_GE(n, 56);  // as many as gl and webgpu each had written out before
}

// ---- Reductions as folds (src/backends/gpu/fold.h), against their definitions.

/// `values` folded by `f` as the backends schedule it: `shares` strided
/// shares, each from init through fstep and out through fdone, combined by
/// fmerge (from fdone(init)), then fresult.
V foldValues(const Fold& f, const std::vector<V>& values, size_t shares) {
  Env env;
  const V init = eval(f.init, env);
  V merged = callFn(f.done, {init});
  for (size_t s = 0; s < shares; ++s) {
    V acc = init;
    for (size_t i = s; i < values.size(); i += shares) acc = callFn(f.step, {acc, values[i]});
    merged = callFn(f.merge, {merged, callFn(f.done, {acc})});
  }
  return callFn(f.result, {merged});
}

TEST(GpuFold, ReductionsMatchTheirDefinitions) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = INFINITY;
  const int32_t imin = std::numeric_limits<int32_t>::min(),
                imax = std::numeric_limits<int32_t>::max();
  auto floats = [](std::vector<float> xs) {
    std::vector<V> v;
    for (float x : xs) v.push_back(fv(x));
    return v;
  };
  auto ints = [](std::vector<int32_t> xs) {
    std::vector<V> v;
    for (int32_t x : xs) v.push_back(iv(x));
    return v;
  };
  const Fold& fsum = fold(Reduction::sum, DType::float32);
  // 1e8 then a thousand ones: a float32 running sum never moves off 1e8
  // (its spacing there is 8); the compensated sum is exact in one share and
  // within the spacing when shares are combined.
  std::vector<V> big = floats({1e8f});
  for (int i = 0; i < 1000; ++i) big.push_back(fv(1.0f));
  EXPECT_EQ(foldValues(fsum, big, 1).f, 100001000.0f);
  EXPECT_NEAR(foldValues(fsum, big, 3).f, 100001000.0, 8.0);
  EXPECT_EQ(foldValues(fsum, floats({inf, 1.0f, 2.0f}), 1).f, inf);  // no inf - inf NaN
  EXPECT_EQ(foldValues(fsum, {}, 2).f, 0.0f);
  // int32 sums and products wrap, as the reference's.
  EXPECT_EQ(foldValues(fold(Reduction::sum, DType::int32), ints({imax, 1, 5}), 2).i(), imin + 5);
  EXPECT_EQ(foldValues(fold(Reduction::prod, DType::int32), ints({65536, 65536, 3}), 1).i(), 0);
  EXPECT_EQ(foldValues(fold(Reduction::prod, DType::int32), ints({3, -5, 7}), 2).i(), -105);
  EXPECT_EQ(foldValues(fold(Reduction::prod, DType::float32), floats({0.5f, -4.0f, 3.0f}), 2).f,
            -6.0f);
  // Max and Min: a NaN wins wherever it sits; empty windows give the identity.
  for (size_t shares : {1, 2, 3}) {
    EXPECT_TRUE(std::isnan(
        foldValues(fold(Reduction::max, DType::float32), floats({1.0f, nan, 3.0f}), shares).f));
    EXPECT_TRUE(std::isnan(
        foldValues(fold(Reduction::min, DType::float32), floats({1.0f, 2.0f, nan}), shares).f));
    EXPECT_EQ(
        foldValues(fold(Reduction::max, DType::float32), floats({-2.0f, 5.0f, 3.0f}), shares).f,
        5.0f);
    EXPECT_EQ(foldValues(fold(Reduction::min, DType::int32), ints({imax, -7, 4}), shares).i(), -7);
    EXPECT_EQ(foldValues(fold(Reduction::max, DType::int32), ints({imin, imin + 1}), shares).i(),
              imin + 1);
  }
  EXPECT_EQ(foldValues(fold(Reduction::max, DType::float32), {}, 1).f, -inf);
  EXPECT_EQ(foldValues(fold(Reduction::min, DType::int32), {}, 1).i(), imax);
  // Any and All.
  const std::vector<V> mixed = {bv(false), bv(true), bv(false)}, none = {bv(false), bv(false)};
  EXPECT_TRUE(foldValues(fold(Reduction::any, DType::boolean), mixed, 2).b);
  EXPECT_FALSE(foldValues(fold(Reduction::any, DType::boolean), none, 2).b);
  EXPECT_FALSE(foldValues(fold(Reduction::all, DType::boolean), mixed, 1).b);
  EXPECT_TRUE(foldValues(fold(Reduction::all, DType::boolean), {bv(true), bv(true)}, 2).b);
  EXPECT_TRUE(foldValues(fold(Reduction::all, DType::boolean), {}, 1).b);
  // Mean: the sum times its scale, and an empty window's NaN kept.
  EXPECT_EQ(foldValues(meanFold(0.25), floats({1.0f, 2.0f, 3.0f, 4.0f}), 2).f, 2.5f);
  EXPECT_TRUE(std::isnan(foldValues(meanFold(std::nan("")), {}, 1).f));
  EXPECT_THROW(fold(Reduction::any, DType::float32), Error);
  // Every fold prints in both languages, its four functions by the names the
  // backends call.
  for (Reduction r : {Reduction::sum, Reduction::prod, Reduction::max, Reduction::min}) {
    for (DType d : {DType::float32, DType::int32}) {
      for (const Dialect* dialect : {&glsl(), &wgsl()}) {
        std::string text = print(*dialect, fold(r, d).fns());
        for (const char* name : {"fstep(", "fdone(", "fmerge(", "fresult("})
          EXPECT_NE(text.find(name), std::string::npos) << name << " in\n" << text;
      }
    }
  }
}

// ---- The recurrent cells' gate math (src/backends/gpu/cells.h): gradients
// against finite differences of the forward math, in the interpreter.

/// The cell activations as cellActivations defines them (sigmoid, tanh), in
/// float32, for the externals the gate math calls.
void cellExternals() {
  auto f1 = [](float (*f)(float)) {
    return [f](const std::vector<V>& a) { return fv(f(a[0].f)); };
  };
  externals()["ract"] = f1([](float x) { return 1.0f / (1.0f + std::exp(-x)); });
  externals()["act"] = f1([](float x) { return std::tanh(x); });
  externals()["ractD"] = [](const std::vector<V>& a) { return fv(a[1].f * (1.0f - a[1].f)); };
  externals()["actD"] = [](const std::vector<V>& a) { return fv(1.0f - a[1].f * a[1].f); };
}

/// Runs `body` (lets over the locals in `env`), returning the env with its lets.
Env runBody(const Fn& body, Env env) {
  run(body.body, env);
  return env;
}

/// d loss / d env[name] by central differences.
double numericGrad(const std::function<double(const Env&)>& loss, Env env,
                   const std::string& name) {
  const float h = 1e-2f, x = env[name].f;
  env[name] = fv(x + h);
  double up = loss(env);
  env[name] = fv(x - h);
  double down = loss(env);
  return (up - down) / (2.0 * h);
}

TEST(GpuCells, GateGradientsMatchFiniteDifferences) {
  cellExternals();
  const Type F = Type::f32;
  auto r = [&](const char* n) { return ref(n, F); };
  // LSTM: loss = wh * h + wc * c, so dh = wh and dc = wc (c's own path).
  const float wh = 0.7f, wc = -1.3f;
  Fn fwd("fwd", F, {});
  LstmState st = lstmStep(fwd, lstmGates(fwd), r("cPrev"));
  auto lstmLoss = [&](const Env& in) {
    Env e = runBody(fwd, in);
    return static_cast<double>(wh) * e.at("h").f + static_cast<double>(wc) * e.at("c").f;
  };
  Fn back("back", F, {});
  LstmGrads d = lstmStepGrad(back, lstmGates(back), r("cPrev"), r("c"), r("dh"), r("dc"));
  Env in = {{"z0", fv(0.3f)},
            {"z1", fv(-0.8f)},
            {"z2", fv(1.1f)},
            {"z3", fv(0.05f)},
            {"cPrev", fv(-0.6f)}};
  Env grads = in;
  grads["c"] = runBody(fwd, in).at("c");
  grads["dh"] = fv(wh);
  grads["dc"] = fv(wc);
  grads = runBody(back, grads);
  for (int k = 0; k < 4; ++k) {
    const std::string z = "z" + std::to_string(k);
    EXPECT_NEAR(grads.at(localName(d.dz[k])).f, numericGrad(lstmLoss, in, z), 2e-3) << z;
  }
  EXPECT_NEAR(grads.at(localName(d.dcPrev)).f, numericGrad(lstmLoss, in, "cPrev"), 2e-3);

  // GRU, both placements of the reset gate: loss = w * h.
  const float w = 0.9f;
  for (bool resetAfter : {false, true}) {
    Fn gf("gru", F, {});
    GruGates g = gruGates(gf, r("hc"), resetAfter);
    gf.let("h", gruOutput(g, r("hPrev")));
    auto gruLoss = [&](const Env& e) { return static_cast<double>(w) * runBody(gf, e).at("h").f; };
    Fn gb("gruGrad", F, {});
    GruGates gg = gruGates(gb, r("hc"), resetAfter);
    GruGrads gd = gruStepGrad(gb, gg, r("hPrev"), r("hc"), r("dh"), resetAfter);
    const E dhc = resetAfter ? gd.daPre * gg.r : gd.daPre, dhPrev = r("dh") * gg.z;
    Env gin = {{"xz", fv(0.4f)},  {"hz", fv(-0.2f)}, {"xr", fv(0.7f)},   {"hr", fv(0.1f)},
               {"xa", fv(-0.5f)}, {"hc", fv(0.8f)},  {"hPrev", fv(0.3f)}};
    Env ge = gin;
    ge["dh"] = fv(w);
    ge = runBody(gb, ge);
    const std::string how = resetAfter ? "reset after" : "reset before";
    EXPECT_NEAR(eval(gd.dzPre, ge).f, numericGrad(gruLoss, gin, "xz"), 2e-3) << how;
    EXPECT_NEAR(eval(gd.drPre, ge).f, numericGrad(gruLoss, gin, "xr"), 2e-3) << how;
    EXPECT_NEAR(eval(gd.daPre, ge).f, numericGrad(gruLoss, gin, "xa"), 2e-3) << how;
    EXPECT_NEAR(eval(dhc, ge).f, numericGrad(gruLoss, gin, "hc"), 2e-3) << how;
    EXPECT_NEAR(eval(dhPrev, ge).f, numericGrad(gruLoss, gin, "hPrev"), 2e-3) << how;
  }

  // GRUResetState: r * hPrev.
  Fn rf("reset", F, {});
  GruGates rg = gruGates(rf, E(0.0), false);
  rf.let("y", rg.r * r("hPrev"));
  auto resetLoss = [&](const Env& e) { return static_cast<double>(w) * runBody(rf, e).at("y").f; };
  Fn rb("resetGrad", F, {});
  GruGates rbg = gruGates(rb, E(0.0), false);
  E dr = gruResetStateGrad(rb, rbg, r("hPrev"), r("dy"));
  Env rin = {{"xz", fv(0.4f)}, {"hz", fv(-0.2f)}, {"xr", fv(0.7f)},
             {"hr", fv(0.1f)}, {"xa", fv(-0.5f)}, {"hPrev", fv(0.3f)}};
  Env re = rin;
  re["dy"] = fv(w);
  re = runBody(rb, re);
  EXPECT_NEAR(eval(dr, re).f, numericGrad(resetLoss, rin, "xr"), 2e-3);
  // Both languages print the gate math (the vec4 form calls gl's ract4 & co.).
  Fn v4("texel", Type::vec4f, {});
  Type V4 = Type::vec4f;
  lstmStep(v4, lstmGates(v4, V4), ref("cPrev", V4));
  const std::string text = printBody(glsl(), v4);
  EXPECT_NE(text.find("vec4 a2 = act4(z2);"), std::string::npos) << text;
  EXPECT_NE(printBody(wgsl(), back).find("let dz3 = "), std::string::npos);
}

}  // namespace
}  // namespace glint::gpu
