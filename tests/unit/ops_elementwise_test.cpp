// Element-wise ops: the op table (values on every backend vs reference, and
// gradients vs finite differences), hand-computed values, and error messages.
#include <cmath>
#include <limits>

#include "op_harness.h"

namespace glint::testing {
namespace {

using V = std::vector<Tensor>;
using Fn = std::function<Tensor(const V&)>;

Fn u(Tensor (*f)(const Tensor&)) {
  return [f](const V& v) { return f(v[0]); };
}
Fn b2(Tensor (*f)(const Tensor&, const Tensor&)) {
  return [f](const V& v) { return f(v[0], v[1]); };
}
/// Random floats kept at least `minAbs` away from 0 (kinks, poles).
InputSpec Fk(Shape shape, float minAbs, float lo = -2.0f, float hi = 2.0f) {
  InputSpec s = F(std::move(shape), lo, hi);
  s.minAbs = minAbs;
  return s;
}
InputSpec noGrad(InputSpec s) {
  s.differentiable = false;
  return s;
}
InputSpec Ints(Shape shape, std::vector<float> values) {
  return Fixed(std::move(shape), std::move(values), DType::int32);
}

// Values kept away from integers and half-integers (floor/ceil/round kinks).
const std::vector<float> kOffGrid = {-1.7f, -0.6f, 0.3f, 1.2f, 2.8f, -2.4f};

std::vector<OpCase> unaryCases() {
  return {
      {"neg", {F({2, 3})}, u(&neg)},
      {"neg_int", {I({2, 3}, -5, 5)}, u(&neg), false},
      {"neg_empty", {F({0, 2})}, u(&neg)},
      {"abs", {Fk({2, 3}, 0.1f)}, u(&glint::abs)},
      {"abs_int", {I({4}, -5, 5)}, u(&glint::abs), false},
      {"exp", {F({2, 3})}, u(&glint::exp)},
      {"exp_scalar", {F({})}, u(&glint::exp)},
      {"exp_empty", {F({2, 0, 3})}, u(&glint::exp)},
      {"log", {F({2, 3}, 0.2f, 3.0f)}, u(&glint::log)},
      {"log1p", {F({2, 3}, -0.5f, 2.0f)}, u(&glint::log1p)},
      {"sqrt", {F({2, 3}, 0.2f, 3.0f)}, u(&glint::sqrt)},
      {"rsqrt", {F({2, 3}, 0.2f, 3.0f)}, u(&rsqrt)},
      {"square", {F({2, 3})}, u(&square)},
      {"square_int", {I({2, 2}, -9, 9)}, u(&square), false},
      {"reciprocal", {Fk({2, 3}, 0.3f)}, u(&reciprocal)},
      {"relu", {Fk({2, 3}, 0.05f)}, u(&relu)},
      {"relu6", {Fixed({2, 4}, {-1.5f, -0.3f, 0.4f, 2.0f, 5.5f, 6.7f, 7.9f, 3.1f})}, u(&relu6)},
      // Relu's gradient kernel (ReluGrad): dy * (x > 0), so a NaN or infinite
      // dy gives NaN where x <= 0 (as dy * 0), and x = 0 or NaN passes nothing.
      {"relu_grad_kernel",
       {Fixed({2, 4}, {1.5f, -2.0f, std::nanf(""), INFINITY, -INFINITY, 3.0f, 0.5f, -0.0f}),
        Fixed({2, 4}, {2.0f, 0.0f, -1.0f, -0.0f, 1.0f, std::nanf(""), -3.0f, 4.0f})},
       [](const V& v) {
         Tensor dy = v[0];
         return grad([&](const Tensor& x) { return sum(mul(relu(x), dy)); }, v[1]);
       },
       false},
      {"relu_grad_kernel_vectors_and_rest",
       {F({3, 37}), Fk({3, 37}, 0.05f)},
       [](const V& v) {
         Tensor dy = v[0];
         return grad([&](const Tensor& x) { return sum(mul(relu(x), dy)); }, v[1]);
       },
       false},
      {"leakyRelu", {Fk({2, 3}, 0.05f)}, [](const V& v) { return leakyRelu(v[0]); }},
      {"leakyRelu_alpha",
       {Fk({1, 3, 1}, 0.05f)},
       [](const V& v) { return leakyRelu(v[0], 0.01f); }},
      {"elu", {Fk({2, 3}, 0.05f)}, u(&elu)},
      {"selu", {Fk({2, 3}, 0.05f)}, u(&selu)},
      {"sigmoid", {F({2, 3}, -4.0f, 4.0f)}, u(&sigmoid)},
      {"sigmoid_size1", {F({1, 3, 1}, -4.0f, 4.0f)}, u(&sigmoid)},
      {"tanh", {F({2, 3}, -3.0f, 3.0f)}, u(&glint::tanh)},
      {"softplus", {F({2, 3}, -4.0f, 4.0f)}, u(&softplus)},
      {"gelu", {F({2, 3}, -3.0f, 3.0f)}, [](const V& v) { return gelu(v[0]); }},
      {"gelu_tanh", {F({2, 3}, -3.0f, 3.0f)}, [](const V& v) { return gelu(v[0], true); }},
      {"sin", {F({2, 3}, -3.0f, 3.0f)}, u(&glint::sin)},
      {"cos", {F({2, 3}, -3.0f, 3.0f)}, u(&glint::cos)},
      {"asin", {F({2, 3}, -0.9f, 0.9f)}, u(&glint::asin)},
      {"acos", {F({2, 3}, -0.9f, 0.9f)}, u(&glint::acos)},
      {"atan", {F({2, 3}, -3.0f, 3.0f)}, u(&glint::atan)},
      {"asinh", {F({2, 3}, -3.0f, 3.0f)}, u(&glint::asinh)},
      {"acosh", {F({2, 3}, 1.1f, 4.0f)}, u(&glint::acosh)},
      {"atanh", {F({2, 3}, -0.9f, 0.9f)}, u(&glint::atanh)},
      {"erf", {F({2, 3}, -2.0f, 2.0f)}, u(&glint::erf)},
      {"sign", {Fk({2, 3}, 0.1f)}, u(&sign)},
      {"sign_int", {Ints({5}, {-3, -1, 0, 1, 7})}, u(&sign), false},
      {"floor", {Fixed({2, 3}, kOffGrid)}, u(&glint::floor)},
      {"ceil", {Fixed({2, 3}, kOffGrid)}, u(&glint::ceil)},
      {"round", {Fixed({3, 2}, kOffGrid)}, u(&glint::round)},
  };
}

std::vector<OpCase> binaryCases() {
  InputSpec negBase = Fixed({2, 2}, {-1.5f, -0.7f, 1.3f, -2.0f});
  InputSpec intExponent = noGrad(Fixed({2}, {2.0f, 3.0f}));
  return {
      {"sub", {F({2, 3}), F({3})}, b2(&sub)},
      {"sub_size1", {F({1, 1}), F({2, 3})}, b2(&sub)},
      {"sub_empty", {F({0, 3}), F({3})}, b2(&sub)},
      // Operands in whole texels: out's shape, a bias along the last axes
      // (either side), a single value (the gl backend's texel path).
      {"add_bias_texels", {F({2, 3, 8}), F({8})}, b2(&add)},
      {"sub_bias_first_texels", {F({3, 4}), F({2, 3, 4})}, b2(&sub)},
      {"mul_size1_texels", {F({2, 4}), F({1})}, b2(&mul)},
      {"maximum_same_texels", {F({2, 4}), F({2, 4})}, b2(&maximum)},
      {"div_bias_texels", {F({3, 4}), Fk({4}, 0.5f)}, b2(&div)},
      {"sub_int", {I({2, 3}, -9, 9), I({2, 1}, -9, 9)}, b2(&sub), false},
      {"mul_scalar", {F({}), F({2, 2})}, b2(&mul)},
      {"div", {F({2, 3}), Fk({2, 1}, 0.5f)}, b2(&div)},
      {"div_scalar", {F({2, 3}), Fk({}, 0.5f)}, b2(&div)},
      {"div_int", {I({2, 3}, -9, 9), Ints({3}, {2, -3, 4})}, b2(&div), false},
      {"pow", {F({2, 3}, 0.5f, 2.0f), F({3}, -1.5f, 2.0f)}, b2(&glint::pow)},
      {"pow_negative_base", {negBase, intExponent}, b2(&glint::pow)},
      {"pow_int", {I({2, 3}, -3, 3), I({3}, 0, 4)}, b2(&glint::pow), false},
      {"maximum", {F({2, 3}), F({3})}, b2(&maximum)},
      {"maximum_both", {F({2, 1}), F({1, 3})}, b2(&maximum)},
      {"maximum_int", {I({2, 3}, -5, 5), I({3}, -5, 5)}, b2(&maximum), false},
      {"minimum", {F({2, 3}), F({2, 1})}, b2(&minimum)},
      {"minimum_empty", {F({2, 0}), F({1})}, b2(&minimum)},
      {"minimum_int", {I({4}, -5, 5), I({}, -5, 5)}, b2(&minimum), false},
      {"squaredDifference", {F({2, 3}), F({1, 3})}, b2(&squaredDifference)},
      {"atan2", {F({2, 3}), Fk({3}, 0.2f)}, b2(&glint::atan2)},
      {"atan2_quadrants",
       {Fixed({2, 4}, {1.0f, -1.0f, 1.0f, -1.0f, 0.5f, -2.0f, 3.0f, -0.25f}),
        Fixed({2, 4}, {1.0f, 1.0f, -1.0f, -1.0f, -3.0f, -0.5f, 0.25f, 2.0f})},
       b2(&glint::atan2)},
      {"atan2_int", {I({2, 3}, -9, 9), Ints({3}, {2, -3, 4})}, b2(&glint::atan2), false},
      {"squaredDifference_int", {I({2, 2}, -9, 9), I({2}, -9, 9)}, b2(&squaredDifference), false},
      {"floorDiv",
       {Fixed({2, 3}, {-7.3f, 7.1f, 2.5f, -0.4f, 5.9f, -3.3f}), Fixed({3}, {2.0f, -1.5f, 0.7f})},
       b2(&floorDiv)},
      {"floorDiv_int",
       {Ints({2, 3}, {-7, 7, -7, 7, 0, -1}), Ints({2, 1}, {2, -3})},
       b2(&floorDiv),
       false},
      {"mod",
       {Fixed({2, 3}, {-7.3f, 7.1f, 2.5f, -0.4f, 5.9f, -3.3f}), Fixed({3}, {2.0f, -1.5f, 0.7f})},
       b2(&mod)},
      {"mod_int", {Ints({2, 3}, {-7, 7, -7, 7, 0, -1}), Ints({2, 1}, {3, -3})}, b2(&mod), false},
      {"operators",
       {F({2, 3}), Fk({3}, 0.5f)},
       [](const V& v) { return -(v[0] * v[1] - v[0] / v[1]) + v[1]; }},
      {"operators_scalar",
       {Fk({2, 2}, 0.5f)},
       [](const V& v) { return (2.0f * v[0] + 1.0f) / 3.0f - 1.5f / v[0] - (v[0] - 0.5f) * 4.0f; }},
      {"operators_int",
       {I({2, 2}, -5, 5)},
       [](const V& v) { return (v[0] * 3.0f - 1.0f) + 2.0f; },
       false},
  };
}

std::vector<OpCase> logicCases() {
  auto gt0 = [](const Tensor& x) { return greater(x, scalar(0)); };
  return {
      {"equal_int", {I({2, 3}, -1, 1), I({3}, -1, 1)}, b2(&equal), false},
      {"equal_bool", {B({2, 2}), B({2, 1})}, b2(&equal), false},
      {"equal_float",
       {Fixed({3}, {1.0f, 2.0f, 3.0f}), Fixed({3}, {1.0f, 2.5f, 3.0f})},
       b2(&equal),
       false},
      {"notEqual", {I({3, 1}, -1, 1), I({2}, -1, 1)}, b2(&notEqual), false},
      {"less", {F({2, 3}), F({3})}, b2(&less), false},
      {"lessEqual_int", {I({2, 3}, -2, 2), I({}, -2, 2)}, b2(&lessEqual), false},
      {"greater", {F({2, 1}), F({1, 3})}, b2(&greater), false},
      {"greaterEqual_int", {I({4}, -2, 2), I({4}, -2, 2)}, b2(&greaterEqual), false},
      {"greater_empty", {F({0, 3}), F({3})}, b2(&greater), false},
      {"logicalAnd", {B({2, 3}), B({3})}, b2(&logicalAnd), false},
      {"logicalOr", {B({2, 3}), B({2, 1})}, b2(&logicalOr), false},
      {"logicalXor", {B({4}), B({})}, b2(&logicalXor), false},
      {"logicalNot", {B({2, 2})}, u(&logicalNot), false},
      {"logicalNot_empty", {B({0})}, u(&logicalNot), false},
      {"where", {B({2, 3}), F({2, 3}), F({3})}, [](const V& v) { return where(v[0], v[1], v[2]); }},
      {"where_broadcast_all",
       {B({3}), F({2, 1}), F({})},
       [](const V& v) { return where(v[0], v[1], v[2]); }},
      {"where_int",
       {B({2, 2}), I({2, 2}, -5, 5), I({1}, -5, 5)},
       [](const V& v) { return where(v[0], v[1], v[2]); },
       false},
      {"where_bool",
       {B({3}), B({3}), B({1})},
       [](const V& v) { return where(v[0], v[1], v[2]); },
       false},
      {"where_of_comparison",
       {Fk({2, 3}, 0.05f)},
       [gt0](const V& v) { return where(gt0(v[0]), v[0], v[0] * 0.1f); }},
      {"mask_by_cast",
       {Fk({2, 3}, 0.05f)},
       [gt0](const V& v) { return mul(v[0], cast(gt0(v[0]), DType::float32)); }},
      {"cast_float_float", {F({2, 2})}, [](const V& v) { return cast(v[0], DType::float32); }},
      {"cast_float_int",
       {Fixed({5}, {-1.7f, -0.2f, 0.0f, 2.9f, 3.0f})},
       [](const V& v) { return cast(v[0], DType::int32); },
       false},
      {"cast_float_bool",
       {Fixed({3}, {0.0f, -0.5f, 2.0f})},
       [](const V& v) { return cast(v[0], DType::boolean); },
       false},
      {"cast_int_float",
       {I({2, 2}, -9, 9)},
       [](const V& v) { return cast(v[0], DType::float32); },
       false},
      {"cast_bool_int", {B({4})}, [](const V& v) { return cast(v[0], DType::int32); }, false},
      {"cast_empty",
       {I({0, 2}, 0, 1)},
       [](const V& v) { return cast(v[0], DType::boolean); },
       false},
      {"clipByValue",
       {Fixed({2, 4}, {-2.5f, -1.2f, -0.8f, 0.1f, 0.9f, 1.1f, 3.0f, -0.3f})},
       [](const V& v) { return clipByValue(v[0], -1.0f, 1.0f); }},
      {"clipByValue_point", {F({3})}, [](const V& v) { return clipByValue(v[0], 0.5f, 0.5f); }},
  };
}

GLINT_OP_CASES(ElemUnary, unaryCases());
GLINT_OP_CASES(ElemBinary, binaryCases());
GLINT_OP_CASES(ElemLogic, logicCases());

// ---- hand-computed values (on the reference backend, the oracle) ----------

struct OnReference : ::testing::Test {
  std::string saved = getBackend();
  OnReference() { setBackend("reference"); }
  ~OnReference() override { setBackend(saved); }
};
using ElemValues = OnReference;

void expectFloats(const Tensor& t, const std::vector<float>& want, float tol = 1e-6f) {
  ASSERT_EQ(t.dtype(), DType::float32);
  std::vector<float> got = t.data<float>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0f, std::abs(want[i]))) << "element " << i;
}

void expectInts(const Tensor& t, const std::vector<int32_t>& want) {
  ASSERT_EQ(t.dtype(), DType::int32);
  EXPECT_EQ(t.data<int32_t>(), want);
}

void expectBools(const Tensor& t, const std::vector<uint8_t>& want) {
  ASSERT_EQ(t.dtype(), DType::boolean);
  EXPECT_EQ(t.data<uint8_t>(), want);
}

constexpr int32_t kIntMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kIntMax = std::numeric_limits<int32_t>::max();

TEST_F(ElemValues, RoundIsHalfToEven) {
  expectFloats(round(tensor1d({2.5f, 3.5f, -2.5f, -0.5f, 0.5f, 1.5f, 2.4f, -2.6f})),
               {2, 4, -2, 0, 0, 2, 2, -3});
  expectFloats(floor(tensor1d({-1.5f, 1.5f})), {-2, 1});
  expectFloats(ceil(tensor1d({-1.5f, 1.5f})), {-1, 2});
}

TEST_F(ElemValues, ModTakesTheDivisorsSign) {
  expectFloats(mod(tensor1d({-7, 7, -7, 7, 5.5f, -5.5f}), tensor1d({3, -3, -3, 3, 2, 2})),
               {2, -2, -1, 1, 1.5f, 0.5f});
  expectInts(mod(tensorInt({-7, 7, -7, 7, 6}, {5}), tensorInt({3, -3, -3, 3, 3}, {5})),
             {2, -2, -1, 1, 0});
}

TEST_F(ElemValues, FloorDivFloors) {
  expectInts(floorDiv(tensorInt({-7, 7, 7, -7, 6}, {5}), tensorInt({2, -2, 2, -2, 3}, {5})),
             {-4, -4, 3, 3, 2});
  expectFloats(floorDiv(tensor1d({-7, 7, 7.5f}), tensor1d({2, -2, 0.5f})), {-4, -4, 15});
}

TEST_F(ElemValues, IntegerEdgeCasesAreDefined) {
  // Division by zero gives 0; INT32_MIN / -1 wraps; arithmetic wraps modulo 2^32.
  expectInts(floorDiv(tensorInt({5, -5, 0, kIntMin}, {4}), tensorInt({0, 0, 0, -1}, {4})),
             {0, 0, 0, kIntMin});
  expectInts(mod(tensorInt({5, -5, kIntMin}, {3}), tensorInt({0, 0, -1}, {3})), {0, 0, 0});
  expectInts(add(tensorInt({kIntMax}, {1}), tensorInt({1}, {1})), {kIntMin});
  expectInts(neg(tensorInt({kIntMin, 3}, {2})), {kIntMin, -3});
  expectInts(abs(tensorInt({kIntMin, -3}, {2})), {kIntMin, 3});
  expectInts(
      pow(tensorInt({2, -2, 2, -1, 0, 1, 3}, {7}), tensorInt({10, 3, -1, -3, -1, -5, 0}, {7})),
      {1024, -8, 0, -1, 0, 1, 1});
  expectInts(sign(tensorInt({-5, 0, 3}, {3})), {-1, 0, 1});
  expectInts(squaredDifference(tensorInt({kIntMax, -3}, {2}), tensorInt({kIntMax, 4}, {2})),
             {0, 49});
}

TEST_F(ElemValues, IntDivisionReturnsFloat) {
  expectFloats(div(tensorInt({7, -7, 1}, {3}), tensorInt({2, 2, 3}, {3})), {3.5f, -3.5f, 1.0f / 3});
  expectFloats(tensorInt({3}, {1}) / 2.0f, {1.5f});
  expectInts(tensorInt({3, -4}, {2}) * 2.0f - 1.0f, {5, -9});
}

TEST_F(ElemValues, StableSigmoidAndSoftplus) {
  Tensor x = tensor1d({100, -100, 0});
  std::vector<float> s = sigmoid(x).data<float>();
  EXPECT_EQ(s[0], 1.0f);
  EXPECT_TRUE(std::isfinite(s[1]) && s[1] >= 0.0f && s[1] < 1e-30f);
  EXPECT_EQ(s[2], 0.5f);
  std::vector<float> p = softplus(x).data<float>();
  EXPECT_EQ(p[0], 100.0f);
  EXPECT_TRUE(std::isfinite(p[1]) && p[1] >= 0.0f && p[1] < 1e-30f);
  EXPECT_NEAR(p[2], 0.69314718f, 1e-7);
  // Their gradients stay finite as well.
  std::vector<float> g = grad([](const Tensor& t) { return sigmoid(t); }, x).data<float>();
  EXPECT_TRUE(std::isfinite(g[0]) && std::isfinite(g[1]));
  EXPECT_NEAR(g[2], 0.25f, 1e-7);
}

TEST_F(ElemValues, Activations) {
  expectFloats(gelu(tensor1d({1, -2})), {0.84134474606854f, -0.04550026389635842f});
  expectFloats(gelu(tensor1d({1, -2}), true), {0.8411919906082768f, -0.04540230591222494f});
  expectFloats(selu(tensor1d({1, -1})), {1.0507009873554805f, -1.1113307378125625f});
  expectFloats(elu(tensor1d({2, -1})), {2, -0.6321205588285577f});
  expectFloats(relu6(tensor1d({-1, 3, 7})), {0, 3, 6});
  expectFloats(leakyRelu(tensor1d({-2, 3}), 0.1f), {-0.2f, 3});
  expectFloats(clipByValue(tensor1d({-2, 0.5f, 2}), -1, 1), {-1, 0.5f, 1});
  expectFloats(rsqrt(tensor1d({4})), {0.5f});
  expectFloats(reciprocal(tensor1d({-4})), {-0.25f});
}

TEST_F(ElemValues, ComparisonsLogicAndCast) {
  Tensor a = tensor1d({1, 2, NAN});
  Tensor b = tensor1d({2, 2, NAN});
  expectBools(equal(a, b), {0, 1, 0});
  expectBools(notEqual(a, b), {1, 0, 1});
  expectBools(less(a, b), {1, 0, 0});
  expectBools(lessEqual(a, b), {1, 1, 0});
  expectBools(greater(a, b), {0, 0, 0});
  expectBools(greaterEqual(a, b), {0, 1, 0});
  Tensor p = tensorBool({0, 0, 1, 1}, {4});
  Tensor q = tensorBool({0, 1, 0, 1}, {4});
  expectBools(logicalAnd(p, q), {0, 0, 0, 1});
  expectBools(logicalOr(p, q), {0, 1, 1, 1});
  expectBools(logicalXor(p, q), {0, 1, 1, 0});
  expectBools(logicalNot(p), {1, 1, 0, 0});
  expectInts(cast(tensor1d({-1.7f, 2.9f, NAN, 3e9f, -3e9f}), DType::int32),
             {-1, 2, 0, kIntMax, kIntMin});
  expectBools(cast(tensor1d({0, 0.5f, -1}), DType::boolean), {0, 1, 1});
  expectFloats(where(tensorBool({1, 0}, {2}), tensor1d({1, 2}), scalar(9)), {1, 9});
}

TEST_F(ElemValues, GradientsFollowTfjsConventions) {
  auto g2 = [](auto f, const Tensor& a, const Tensor& b) {
    return grads([f](const V& v) { return f(v[0], v[1]); }, {a, b});
  };
  // maximum / minimum: ties go to a.
  V gm = g2([](const Tensor& x, const Tensor& y) { return maximum(x, y); }, tensor1d({1, 2}),
            tensor1d({1, 3}));
  expectFloats(gm[0], {1, 0});
  expectFloats(gm[1], {0, 1});
  V gn = g2([](const Tensor& x, const Tensor& y) { return minimum(x, y); }, tensor1d({1, 2}),
            tensor1d({1, 3}));
  expectFloats(gn[0], {1, 1});
  expectFloats(gn[1], {0, 0});
  // pow: the exponent's gradient is 0 where the base is <= 0.
  V gp = g2([](const Tensor& x, const Tensor& y) { return pow(x, y); }, tensor1d({-2, 0, 2}),
            tensor1d({2, 2, 2}));
  expectFloats(gp[0], {-4, 0, 4});
  expectFloats(gp[1], {0, 0, 4 * 0.6931471805599453f});
  // relu6 and clipByValue pass gradients only inside their range.
  expectFloats(grad([](const Tensor& x) { return relu6(x); }, tensor1d({-1, 3, 7})), {0, 1, 0});
  expectFloats(grad([](const Tensor& x) { return clipByValue(x, -1, 1); }, tensor1d({-2, 0, 2})),
               {0, 1, 0});
  expectFloats(grad([](const Tensor& x) { return round(x); }, tensor1d({0.3f, 1.7f})), {0, 0});
  // where: masked and summed back to each operand's shape.
  V gw = grads(
      [](const V& v) {
        return where(tensorBool({1, 0, 1}, {3}), v[0], v[1]);
      },
      {tensor1d({5}), tensor1d({1, 2, 3})});
  expectFloats(gw[0], {2});
  expectFloats(gw[1], {0, 1, 0});
}

// ---- error messages ----------------------------------------------------------

TEST(OpErrors, ElementwiseUnaryDTypes) {
  expectError([] { exp(tensorInt({1}, {1})); },
              {"[exp]", "x must be float32", "int32 [1]", "cast"});
  expectError([] { neg(tensorBool({1}, {1})); }, {"[neg]", "float32 or int32", "bool [1]"});
  expectError([] { sigmoid(Tensor()); }, {"[sigmoid]", "x is an undefined tensor"});
  expectError(
      [] {
        Tensor t = tensor1d({1});
        t.dispose();
        relu(t);
      },
      {"[relu]", "disposed"});
  expectError([] { leakyRelu(tensor1d({1}), NAN); }, {"[leakyRelu]", "alpha", "finite"});
  expectError([] { leakyRelu(tensor1d({1}), INFINITY); }, {"[leakyRelu]", "alpha", "inf"});
}

TEST(OpErrors, ElementwiseBinary) {
  expectError([] { sub(zeros({2, 3}), zeros({4})); }, {"[sub]", "[2,3]", "[4]", "broadcast"});
  expectError([] { div(zeros({2}), zeros({2}, DType::int32)); }, {"[div]", "float32", "int32"});
  expectError([] { pow(zeros({2}, DType::boolean), zeros({2}, DType::boolean)); },
              {"[pow]", "a must be float32 or int32", "bool [2]"});
  expectError([] { tensorInt({1}, {1}) + 2.5f; }, {"[add]", "2.5", "int32 [1]", "cast"});
  expectError([] { 1.0f / zeros({2}, DType::boolean); }, {"[div]", "bool"});
  expectError([] { mod(zeros({3}), zeros({2, 2})); }, {"[mod]", "[3]", "[2,2]"});
}

/// The transcendentals where a loose formula shows, against double precision
/// of the same float input on every backend: tiny arguments (tanh, log1p, elu
/// and softplus's tail are ~x or ~e^x there, so the check is relative, which
/// the op table's absolute floor of 1e-6 does not see), both sides of the
/// branch points of a piecewise formula (tanh's polynomial ends at 0.625),
/// large arguments and the IEEE specials.
TEST(ElementwisePrecision, SmallLargeAndSpecialArguments) {
  const std::vector<float> xs = {0.0f,     -0.0f,     1e-30f, -3e-20f,  1e-8f,   -2e-7f,
                                 1e-4f,    -3e-3f,    0.3f,   -0.6249f, 0.6251f, 1.0f,
                                 -2.5f,    9.0f,      20.0f,  -30.0f,   80.0f,   -80.0f,
                                 INFINITY, -INFINITY, NAN,    1.0001f,  0.9999f};
  struct Case {
    const char* name;
    Tensor (*op)(const Tensor&);
    double (*ref)(double);
  };
  const Case cases[] = {
      {"tanh", &glint::tanh, [](double x) { return std::tanh(x); }},
      {"sigmoid", &glint::sigmoid, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
      {"exp", &glint::exp, [](double x) { return std::exp(x); }},
      {"log1p", &glint::log1p, [](double x) { return std::log1p(x); }},
      {"elu", &glint::elu, [](double x) { return x > 0 ? x : std::expm1(x); }},
      {"softplus", &glint::softplus,
       [](double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))); }},
      {"selu", &glint::selu,
       [](double x) {
         return 1.0507009873554805 * (x > 0 ? x : 1.6732632423543772 * std::expm1(x));
       }},
      {"log", &glint::log, [](double x) { return std::log(x); }},
      {"sqrt", &glint::sqrt, [](double x) { return std::sqrt(x); }},
      {"rsqrt", &glint::rsqrt, [](double x) { return 1.0 / std::sqrt(x); }},
      {"reciprocal", &glint::reciprocal, [](double x) { return 1.0 / x; }},
      {"sin", &glint::sin, [](double x) { return std::sin(x); }},
      {"cos", &glint::cos, [](double x) { return std::cos(x); }},
      {"asin", &glint::asin, [](double x) { return std::asin(x); }},
      {"acos", &glint::acos, [](double x) { return std::acos(x); }},
      {"atan", &glint::atan, [](double x) { return std::atan(x); }},
      {"asinh", &glint::asinh, [](double x) { return std::asinh(x); }},
      {"acosh", &glint::acosh, [](double x) { return std::acosh(x); }},
      {"atanh", &glint::atanh, [](double x) { return std::atanh(x); }},
      {"erf", &glint::erf, [](double x) { return std::erf(x); }},
      {"gelu", [](const Tensor& x) { return glint::gelu(x); },
       [](double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }},
      {"gelu_tanh", [](const Tensor& x) { return glint::gelu(x, true); },
       [](double x) {
         return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
       }},
  };
  onEveryBackend([&] {
    Tensor x = tensor1d(xs);
    for (const Case& c : cases) {
      std::vector<float> y = c.op(x).toFloats();
      for (size_t i = 0; i < xs.size(); ++i) {
        const float want = static_cast<float>(c.ref(xs[i]));
        SCOPED_TRACE(std::string(c.name) + "(" + std::to_string(xs[i]) + ")");
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(y[i])) << y[i];
        } else if (std::isinf(want)) {
          EXPECT_EQ(y[i], want);
        } else {
          // 16 float32 steps (the GPU backends' erf, 1.5e-7 absolute, leaves
          // gelu(-2.5) ~1e-6 relative); results below float's normal range
          // may flush to 0.
          EXPECT_NEAR(y[i], want, 2e-6 * std::abs(want) + std::numeric_limits<float>::min())
              << "relative error " << (y[i] - want) / want;
        }
      }
    }
  });
}

/// pow's relative precision: large results, a base near 1 with a large
/// exponent, integer powers, negative bases. Within 16 float32 steps plus
/// 1e-7 |b log2 a|: the GPU backends' exp2(b log2 a) rounds its argument to
/// float32 (TF.js's webgl pow is GLSL's pow(|a|, b), which GLSL specifies as
/// that), an error that grows with it.
TEST(ElementwisePrecision, PowKeepsRelativePrecision) {
  const std::vector<std::pair<float, float>> ab = {
      {2, 10},           {10, -3}, {3, 20},     {0.3f, 50},  {1.0001f, 10000},
      {0.9999f, -20000}, {-2, 3},  {-2, -4},    {7, 0.5f},   {1e-20f, 1.5f},
      {123.456f, 7.5f},  {5, 2},   {0.5f, 126}, {1.5f, -100}};
  std::vector<float> as, bs;
  for (auto [a, b] : ab) {
    as.push_back(a);
    bs.push_back(b);
  }
  onEveryBackend([&] {
    std::vector<float> y = pow(tensor1d(as), tensor1d(bs)).toFloats();
    for (size_t i = 0; i < ab.size(); ++i) {
      const double want = std::pow(static_cast<double>(as[i]), static_cast<double>(bs[i]));
      SCOPED_TRACE("pow(" + std::to_string(as[i]) + ", " + std::to_string(bs[i]) + ")");
      const double t = std::abs(bs[i] * std::log2(std::abs(static_cast<double>(as[i]))));
      EXPECT_NEAR(y[i], want,
                  (2e-6 + 1e-7 * t) * std::abs(want) + std::numeric_limits<float>::min())
          << "relative error " << (y[i] - want) / want;
    }
  });
}

TEST(OpErrors, ElementwiseLogic) {
  expectError([] { less(zeros({2}, DType::boolean), zeros({2}, DType::boolean)); },
              {"[less]", "float32 or int32", "bool"});
  expectError([] { equal(zeros({2}), zeros({2}, DType::int32)); }, {"[equal]", "float32", "int32"});
  expectError([] { logicalAnd(zeros({2}), zeros({2}, DType::boolean)); },
              {"[logicalAnd]", "a must be bool", "float32 [2]"});
  expectError([] { logicalNot(zeros({2}, DType::int32)); }, {"[logicalNot]", "bool", "int32"});
  expectError([] { where(zeros({2}), zeros({2}), zeros({2})); },
              {"[where]", "condition must be bool", "float32 [2]"});
  expectError([] { where(zeros({2}, DType::boolean), zeros({3}), zeros({3})); },
              {"[where]", "condition bool [2]", "a float32 [3]", "broadcast"});
  expectError([] { where(zeros({2}, DType::boolean), zeros({2}), zeros({2}, DType::int32)); },
              {"[where]", "float32", "int32"});
  expectError([] { clipByValue(zeros({2}), 2, 1); },
              {"[clipByValue]", "minValue (2)", "maxValue (1)"});
  expectError([] { clipByValue(zeros({2}), -INFINITY, 1); }, {"[clipByValue]", "finite"});
  expectError([] { clipByValue(zeros({2}), 0, NAN); }, {"[clipByValue]", "finite"});
  expectError([] { clipByValue(zeros({2}, DType::int32), 0, 1); },
              {"[clipByValue]", "float32", "int32"});
  expectError([] { cast(Tensor(), DType::int32); }, {"[cast]", "undefined"});
}

}  // namespace
}  // namespace glint::testing
