// Generators for element-wise kernels: unary ops at every rank 0-6 (sizes
// crossing the vector widths), binary ops under every broadcasting pattern
// (size-1 dims on either side, lower-rank operands), specials where they
// mean something.
#include <cmath>

#include "tests/kernel_fuzz/fuzz_case.h"

namespace glint::kfuzz {

namespace {

struct UnaryOp {
  const char* name;
  Tensor (*fn)(const Tensor&);
  bool positive;  // domain (0, inf) unless specials are drawn
};

Tensor geluExact(const Tensor& x) { return gelu(x, false); }
Tensor geluApprox(const Tensor& x) { return gelu(x, true); }
Tensor leaky(const Tensor& x) { return leakyRelu(x, 0.2f); }
Tensor clip(const Tensor& x) { return clipByValue(x, -0.5f, 1.25f); }

const UnaryOp kUnary[] = {
    {"neg", &neg, false},
    {"abs", &glint::abs, false},
    {"exp", &glint::exp, false},
    {"log", &glint::log, true},
    {"log1p", &glint::log1p, true},
    {"sqrt", &glint::sqrt, true},
    {"rsqrt", &rsqrt, true},
    {"square", &square, false},
    {"reciprocal", &reciprocal, true},
    {"relu", &relu, false},
    {"relu6", &relu6, false},
    {"leakyRelu", &leaky, false},
    {"elu", &elu, false},
    {"selu", &selu, false},
    {"sigmoid", &sigmoid, false},
    {"tanh", &glint::tanh, false},
    {"softplus", &softplus, false},
    {"gelu", &geluExact, false},
    {"geluApprox", &geluApprox, false},
    {"sin", &glint::sin, false},
    {"cos", &glint::cos, false},
    {"sign", &sign, false},
    {"floor", &glint::floor, false},
    {"ceil", &glint::ceil, false},
    {"round", &glint::round, false},
    {"clipByValue", &clip, false},
    {"asin", &glint::asin, false},
    {"acos", &glint::acos, false},
    {"atan", &glint::atan, false},
    {"asinh", &glint::asinh, false},
    {"acosh", &glint::acosh, false},
    {"atanh", &glint::atanh, false},
    {"erf", &glint::erf, false},
};
Shape drawShape(Rng& r, int64_t rank, int64_t maxElements) {
  Shape s;
  for (int64_t i = 0; i < rank; ++i) s.push_back(drawSize(r, i + 1 == rank ? 70 : 9));
  while (numElements(s) > maxElements) {
    for (auto& d : s) d = std::max<int64_t>(1, d / 2);
  }
  return s;
}

/// The op in TF.js's terms; TF.js has no gelu op: torch's.
Json unarySpec(const std::string& name) {
  if (name == "gelu") return {{"torch", "gelu"}, {"attrs", {{"approximate", "none"}}}};
  if (name == "geluApprox") return {{"torch", "gelu"}, {"attrs", {{"approximate", "tanh"}}}};
  Json attrs = Json::object();
  if (name == "leakyRelu") attrs = {{"alpha", 0.2}};
  if (name == "clipByValue") attrs = {{"clipValueMin", -0.5}, {"clipValueMax", 1.25}};
  return {{"op", name}, {"attrs", attrs}};
}

// knobs: op, rank, d0..d5, valueClass, seed
const Register unary({
    "unary",
    {"Neg",         "Abs",  "Exp",   "Log",       "Log1p", "Sqrt",  "Rsqrt",   "Square",
     "Reciprocal",  "Relu", "Relu6", "LeakyRelu", "Elu",   "Selu",  "Sigmoid", "Tanh",
     "Softplus",    "Gelu", "Sin",   "Cos",       "Sign",  "Floor", "Ceil",    "Round",
     "ClipByValue", "Asin", "Acos",  "Atan",      "Asinh", "Acosh", "Atanh",   "Erf"},
    [](Rng& r) {
      int64_t rank = drawInt(r, 0, 6);
      Shape s = drawShape(r, rank, 4096);
      Knobs k{drawInt(r, 0, static_cast<int64_t>(std::size(kUnary)) - 1), rank};
      for (int64_t i = 0; i < 6; ++i) k.push_back(i < rank ? s[i] : 1);
      k.push_back(drawInt(r, 0, 2));
      k.push_back(static_cast<int64_t>(r() >> 1));
      return k;
    },
    [](const Knobs& k) -> std::optional<Call> {
      if (k[0] < 0 || k[0] >= static_cast<int64_t>(std::size(kUnary))) return std::nullopt;
      if (k[1] < 0 || k[1] > 6) return std::nullopt;
      const UnaryOp& op = kUnary[k[0]];
      Shape s(k.begin() + 2, k.begin() + 2 + k[1]);
      for (int64_t d : s)
        if (d < 0) return std::nullopt;
      int64_t vc = k[8];
      if (op.positive && vc != kSpecials) vc = kPositive;
      Call call;
      call.inputs = {floats(s, vc, static_cast<uint64_t>(k[9]))};
      auto fn = op.fn;
      call.fn = [fn](const std::vector<Tensor>& x) { return fn(x[0]); };
      call.describe = std::string(op.name) + " x " + shapeText(s);
      call.spec = unarySpec(op.name);
      call.tags = {"rank" + std::to_string(s.size())};
      if (numElements(s) == 0) call.tags.push_back("empty");
      if (vc == kSpecials) call.tags.push_back("specials");
      // Gradients against reference's tape, not finite differences: kinks
      // (relu at 0, abs, round) must follow reference's convention too.
      call.checkGrad = vc != kSpecials;
      call.rtol = 2e-6 * 16;  // the precision tests' 16 float32 steps
      if (std::string(op.name) == "sin" || std::string(op.name) == "cos") {
        // Intended: past |x| = 1e5 the GPU backends use the renderer's sin
        // and cos (src/backends/gpu/math.cpp): bounded, not exact.
        std::vector<float> x = call.inputs[0].values;
        call.alsoRight = [x](size_t i, float got) {
          return std::abs(x[i]) > 1e5f && got >= -1.0f && got <= 1.0f;
        };
      }
      return call;
    },
    static_cast<int64_t>(std::size(kUnary)),
});

struct BinaryOp {
  const char* name;
  Tensor (*fn)(const Tensor&, const Tensor&);
  bool positiveB;  // divisors and exponents' bases kept away from 0
};
const BinaryOp kBinary[] = {
    {"add", &add, false},
    {"sub", &sub, false},
    {"mul", &mul, false},
    {"div", &glint::div, true},
    {"pow", &glint::pow, false},
    {"maximum", &maximum, false},
    {"minimum", &minimum, false},
    {"squaredDifference", &squaredDifference, false},
    {"floorDiv", &floorDiv, true},
    {"mod", &mod, true},
    {"equal", &equal, false},
    {"notEqual", &notEqual, false},
    {"less", &less, false},
    {"lessEqual", &lessEqual, false},
    {"greater", &greater, false},
    {"greaterEqual", &greaterEqual, false},
    {"atan2", &glint::atan2, false},
};
bool comparison(const std::string& n) {
  return n == "equal" || n == "notEqual" || n == "less" || n == "lessEqual" || n == "greater" ||
         n == "greaterEqual";
}

// knobs: op, rank, d0..d5, maskA, maskB, dropB (leading dims b lacks), int32, valueClass, seed
const Register binary({
    "binary",
    {"Add", "Sub", "Mul", "Div", "Pow", "Maximum", "Minimum", "SquaredDifference", "FloorDiv",
     "Mod", "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "Atan2"},
    [](Rng& r) {
      int64_t rank = drawInt(r, 0, 6);
      Shape s = drawShape(r, rank, 4096);
      Knobs k{drawInt(r, 0, static_cast<int64_t>(std::size(kBinary)) - 1), rank};
      for (int64_t i = 0; i < 6; ++i) k.push_back(i < rank ? s[i] : 1);
      k.push_back(coin(r) ? drawInt(r, 0, 63) : 0);
      k.push_back(coin(r) ? drawInt(r, 0, 63) : 0);
      k.push_back(coin(r, 0.3) ? drawInt(r, 0, rank) : 0);
      k.push_back(coin(r, 0.2) ? 1 : 0);
      k.push_back(drawInt(r, 0, 2));
      k.push_back(static_cast<int64_t>(r() >> 1));
      return k;
    },
    [](const Knobs& k) -> std::optional<Call> {
      if (k[0] < 0 || k[0] >= static_cast<int64_t>(std::size(kBinary))) return std::nullopt;
      if (k[1] < 0 || k[1] > 6 || k[10] < 0 || k[10] > k[1]) return std::nullopt;
      const BinaryOp& op = kBinary[k[0]];
      std::string name = op.name;
      bool asInt = k[11] != 0 && name != "pow" && name != "div";
      Shape full(k.begin() + 2, k.begin() + 2 + k[1]), a = full, b;
      for (size_t i = 0; i < full.size(); ++i) {
        if (full[i] < 0) return std::nullopt;
        if (k[8] >> i & 1) a[i] = 1;
      }
      for (size_t i = static_cast<size_t>(k[10]); i < full.size(); ++i)
        b.push_back(k[9] >> i & 1 ? 1 : full[i]);
      int64_t vc = k[12];
      uint64_t seed = static_cast<uint64_t>(k[13]);
      Call call;
      if (asInt) {
        int lo = op.positiveB ? 1 : -9;
        call.inputs = {ints(a, -9, 9, seed), ints(b, lo, 9, seed + 1)};
        if (op.positiveB && (seed & 1))
          for (float& v : call.inputs[1].values) v = -v;  // negative divisors too
      } else {
        call.inputs = {floats(a, vc, seed),
                       floats(b, op.positiveB && vc != kSpecials ? kPositive : vc, seed + 1)};
        if (name == "pow" && vc != kSpecials) {
          // Real results: positive bases, or integral exponents for negative ones.
          call.inputs[0] = floats(a, kPositive, seed);
        }
        if (vc == kSpecials) call.tags.push_back("specials");
      }
      auto fn = op.fn;
      call.fn = [fn](const std::vector<Tensor>& x) { return fn(x[0], x[1]); };
      call.describe = name + (asInt ? " int32" : "") + " a " + shapeText(a) + " b " + shapeText(b);
      call.spec = {{"op", name}, {"attrs", Json::object()}};
      call.tags.push_back("rank" + std::to_string(full.size()));
      if (a != full || b != full) call.tags.push_back("broadcast");
      if (b.size() < full.size()) call.tags.push_back("lowerRank");
      if (asInt) call.tags.push_back("int32");
      call.checkGrad = !asInt && vc != kSpecials && !comparison(name);
      call.rtol = 2e-6 * 16;
      return call;
    },
    static_cast<int64_t>(std::size(kBinary)),
});

}  // namespace
}  // namespace glint::kfuzz
