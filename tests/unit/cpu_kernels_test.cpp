// Edges of the cpu backend's fast element-wise, reduction and softmax paths
// (src/backends/cpu/elementwise.cpp, reduction.cpp): each broadcast pattern
// they special-case, vector tails (odd lengths), empty and scalar operands,
// int32 wrap-around and special float values; all checked against reference.
#include <cmath>
#include <limits>

#include "op_harness.h"

namespace glint::testing {
namespace {

using V = std::vector<Tensor>;
using Fn = std::function<Tensor(const V&)>;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

Fn u(Tensor (*f)(const Tensor&)) {
  return [f](const V& v) { return f(v[0]); };
}
Fn b2(Tensor (*f)(const Tensor&, const Tensor&)) {
  return [f](const V& v) { return f(v[0], v[1]); };
}
InputSpec Ints(Shape shape, std::vector<float> values) {
  return Fixed(std::move(shape), std::move(values), DType::int32);
}

// Special values for the vectorised exp/sigmoid/tanh: NaN, infinities, the
// overflow / underflow edges, the tanh polynomial's switch point, ties to even.
const std::vector<float> kSpecial = {kNaN,   kInf,   -kInf,  0.0f,   -0.0f,   88.7f, 88.73f,
                                     -87.4f, -103.f, -110.f, 0.624f, -0.626f, 0.5f,  1.5f,
                                     2.5f,   -0.5f,  -2.5f,  20.0f,  -20.0f,  1e-6f, -9.3f};

std::vector<OpCase> unaryCases() {
  Shape s = {static_cast<int64_t>(kSpecial.size())};
  std::vector<OpCase> cases;
  for (auto [name, f] :
       std::vector<std::pair<const char*, Tensor (*)(const Tensor&)>>{{"exp", &glint::exp},
                                                                      {"sigmoid", &sigmoid},
                                                                      {"tanh", &glint::tanh},
                                                                      {"relu", &relu},
                                                                      {"relu6", &relu6},
                                                                      {"sign", &sign},
                                                                      {"round", &glint::round},
                                                                      {"floor", &glint::floor},
                                                                      {"abs", &glint::abs},
                                                                      {"softplus", &softplus},
                                                                      {"elu", &elu}})
    cases.push_back({std::string("special_") + name, {Fixed(s, kSpecial)}, u(f), false});
  // Lengths around the vector widths (tails), and a long one.
  for (int64_t n : {1, 3, 7, 9, 17, 33, 1001}) {
    std::string len = std::to_string(n);
    cases.push_back({"exp_len" + len, {F({n}, -30.0f, 30.0f)}, u(&glint::exp), false});
    cases.push_back({"sigmoid_len" + len, {F({n}, -30.0f, 30.0f)}, u(&sigmoid), false});
    cases.push_back({"tanh_len" + len, {F({n}, -3.0f, 3.0f)}, u(&glint::tanh), false});
  }
  cases.push_back({"tanh_small", {F({64}, -0.7f, 0.7f)}, u(&glint::tanh), false});
  cases.push_back({"sigmoid_grad_odd", {F({3, 5}, -4.0f, 4.0f)}, u(&sigmoid)});
  cases.push_back({"tanh_grad_odd", {F({3, 5})}, u(&glint::tanh)});
  cases.push_back({"leakyRelu_nan",
                   {Fixed({4}, {kNaN, -2.0f, 3.0f, -kInf})},
                   [](const V& v) { return leakyRelu(v[0], 0.1f); },
                   false});
  cases.push_back({"clip_special",
                   {Fixed({5}, {kNaN, -kInf, kInf, 0.3f, -0.7f})},
                   [](const V& v) { return clipByValue(v[0], -0.5f, 0.1f); },
                   false});
  // int32: wrap-around at the limits.
  std::vector<float> limits = {-2147483648.0f, 2147483520.0f, -1, 0, 46341, -7};
  cases.push_back({"neg_int_limits", {Ints({6}, limits)}, u(&neg), false});
  cases.push_back({"abs_int_limits", {Ints({6}, limits)}, u(&glint::abs), false});
  cases.push_back({"square_int_wrap", {Ints({6}, limits)}, u(&square), false});
  cases.push_back({"sign_int", {Ints({6}, limits)}, u(&sign), false});
  // Cast edges: NaN -> 0, saturation, truncation toward zero, to/from bool.
  cases.push_back({"cast_float_int",
                   {Fixed({7}, {kNaN, 3e9f, -3e9f, -1.7f, 1.7f, -0.0f, 5})},
                   [](const V& v) { return cast(v[0], DType::int32); },
                   false});
  cases.push_back({"cast_float_bool",
                   {Fixed({4}, {kNaN, 0.0f, -0.0f, 0.25f})},
                   [](const V& v) { return cast(v[0], DType::boolean); },
                   false});
  cases.push_back({"cast_int_bool_float",
                   {Ints({5}, {0, 1, -3, 7, 0})},
                   [](const V& v) { return cast(cast(v[0], DType::boolean), DType::float32); },
                   false});
  return cases;
}

std::vector<OpCase> broadcastCases() {
  return {
      // Flat: same shape, equal sizes under different ranks, scalars.
      {"add_same_odd", {F({37}), F({37})}, b2(&add), false},
      {"add_rank_differs", {F({1, 6}), F({6})}, b2(&add), false},
      {"sub_scalar_b", {F({5, 7}), F({})}, b2(&sub), false},
      {"sub_scalar_a", {F({}), F({5, 7})}, b2(&sub), false},
      {"mul_ones", {F({1, 1}), F({1})}, b2(&mul), false},
      // Rows: a row vector, a column vector, an outer product.
      {"add_row", {F({4, 37}), F({37})}, b2(&add)},
      {"mul_column", {F({5, 7}), F({5, 1})}, b2(&mul)},
      {"sub_outer", {F({5, 1}), F({1, 7})}, b2(&sub)},
      // Several outer dims: middle stretch, merged dims, size-1 dims, both stretched.
      {"add_middle", {F({3, 1, 5}), F({3, 4, 5})}, b2(&add), false},
      {"mul_4d", {F({2, 3, 4, 5}), F({3, 1, 5})}, b2(&mul), false},
      {"add_collapse", {F({2, 3, 4}), F({3, 4})}, b2(&add), false},
      {"add_unit_dims", {F({4, 1, 6}), F({1, 1, 6})}, b2(&add), false},
      {"max_both_stretched", {F({2, 1, 4}), F({1, 3, 1})}, b2(&maximum), false},
      {"div_row_stretched_a", {F({1, 9}), F({4, 9}, 0.5f, 2.0f)}, b2(&div), false},
      // Empty.
      {"add_empty_rows", {F({0, 3}), F({3})}, b2(&add), false},
      {"mul_empty_inner", {F({2, 0}), F({2, 1})}, b2(&mul), false},
      // NaN propagation in maximum / minimum, either side, broadcast.
      {"maximum_nan",
       {Fixed({2, 3}, {kNaN, 1, -kInf, 2, kNaN, 0}), Fixed({3}, {0, kNaN, 5})},
       b2(&maximum),
       false},
      {"minimum_nan",
       {Fixed({3}, {0, kNaN, 5}), Fixed({2, 3}, {kNaN, 1, -kInf, 2, kNaN, 0})},
       b2(&minimum),
       false},
      {"squaredDifference_col", {F({3, 5}), F({3, 1})}, b2(&squaredDifference), false},
      {"pow_row", {F({3, 4}, 0.5f, 2.0f), F({4})}, b2(&glint::pow), false},
      // floor(a/b) where a float quotient would round up onto an integer.
      {"floorDiv_near_int",
       {Fixed({3}, {3.0000002f, -3.0000002f, -5.0f}), Fixed({3}, {1.0000001f, 1.0000001f, 2.5f})},
       b2(&floorDiv),
       false},
      {"mod_signs",
       {Fixed({2, 3}, {5, -5, 5, -5, 7.5f, -7.5f}), Fixed({2, 1}, {3, -2})},
       b2(&mod),
       false},
      // int32: wrap-around, division / modulo by 0 and -1, floor semantics, pow.
      {"add_int_wrap",
       {Ints({2, 3}, {2147483520, -2147483648.0f, 5, 1, -1, 7}), Ints({3}, {1000, -1, 2147483520})},
       b2(&add),
       false},
      {"mul_int_wrap", {Ints({4}, {65536, -65536, 46341, 3}), Ints({}, {65536})}, b2(&mul), false},
      {"floorDiv_int",
       {Ints({2, 4}, {7, -7, 7, -2147483648.0f, 9, -9, 0, 5}), Ints({4}, {2, 2, 0, -1})},
       b2(&floorDiv),
       false},
      {"mod_int",
       {Ints({2, 4}, {7, -7, 7, -2147483648.0f, 9, -9, 0, 5}), Ints({2, 1}, {-3, 0})},
       b2(&mod),
       false},
      {"pow_int",
       {Ints({5}, {2, -1, 3, 0, -2}), Ints({5}, {31, -3, 21, -1, 3})},
       b2(&glint::pow),
       false},
      {"div_int", {Ints({2, 3}, {7, -7, 0, 1, 2, 3}), Ints({3}, {2, 0, 0})}, b2(&div), false},
      // An operand that repeats along the output (a bias), first or second,
      // with a period that is laid out in long rows, and one too long for it.
      {"sub_bias_rows", {F({3, 100, 8}), F({8})}, b2(&sub), false},
      {"div_bias_first", {F({1, 8}, 0.5f, 2.0f), F({50, 8}, 0.5f, 2.0f)}, b2(&div), false},
      {"add_int_bias", {I({7, 9, 5}, -9, 9), I({9, 5}, -9, 9)}, b2(&add), false},
      {"greater_bias", {F({33, 16}), F({16})}, b2(&greater), false},
      {"mul_bias_long_period", {F({9, 70}), F({70})}, b2(&mul), false},
      // Comparisons, logic and select under broadcasting.
      {"greater_row", {F({3, 5}), F({5})}, b2(&greater), false},
      {"equal_int_col", {I({4, 3}, -2, 2), I({4, 1}, -2, 2)}, b2(&equal), false},
      {"less_nan", {Fixed({3}, {kNaN, 1, 2}), Fixed({}, {1.5f})}, b2(&less), false},
      {"and_outer", {B({3, 1}), B({1, 4})}, b2(&logicalAnd), false},
      {"xor_scalar", {B({7}), B({})}, b2(&logicalXor), false},
      {"where_same",
       {B({9}), F({9}), F({9})},
       [](const V& v) { return where(v[0], v[1], v[2]); },
       false},
      {"where_broadcast",
       {B({3, 1}), F({3, 4}), F({4})},
       [](const V& v) { return where(v[0], v[1], v[2]); }},
      {"where_int_scalar",
       {B({2, 3}), I({}, -5, 5), I({2, 3}, -5, 5)},
       [](const V& v) { return where(v[0], v[1], v[2]); },
       false},
  };
}

std::vector<OpCase> reductionCases() {
  using A = std::vector<int64_t>;
  auto sumOver = [](A axes, bool keep = false) {
    return [axes, keep](const V& v) { return sum(v[0], axes, keep); };
  };
  std::vector<float> nanRow = {1, kNaN, 3, -kInf, 5, 2, 0};
  return {
      // Row sums (innermost reduced), column sums (outer reduced), mixed.
      {"sum_rows_odd", {F({3, 37})}, sumOver({1})},
      {"sum_long_row", {F({2, 4001})}, sumOver({1}), false},
      {"sum_cols", {F({37, 5})}, sumOver({0})},
      {"sum_middle", {F({3, 7, 5})}, sumOver({1}), false},
      // Column sums of short rows, folded several rows at a time, with a rest.
      {"sum_cols_wide", {F({203, 7})}, sumOver({0}), false},
      {"sum_bias_grad", {F({6, 13, 13, 8})}, sumOver({0, 1, 2}), false},
      {"prod_cols_wide",
       {F({130, 3}, 0.9f, 1.1f)},
       [](const V& v) { return prod(v[0], {0}); },
       false},
      {"max_nan_cols_wide",
       {Fixed({70, 2},
              [] {
                std::vector<float> v(140);
                for (int i = 0; i < 140; ++i) v[i] = static_cast<float>((i * 37) % 101);
                v[97] = kNaN;  // column 1, in the second group of rows
                return v;
              }())},
       [](const V& v) { return max(v[0], {0}); },
       false},
      {"min_int_cols_wide",
       {I({150, 3}, -99, 99)},
       [](const V& v) { return min(v[0], {0}); },
       false},
      {"sum_ends", {F({3, 4, 5})}, sumOver({0, 2}), false},
      {"sum_alternate_4d", {F({2, 3, 4, 5})}, sumOver({1, 3}), false},
      {"sum_unit_dims", {F({3, 1, 7, 1})}, sumOver({1, 2}, true), false},
      {"sum_all_odd", {F({5, 3, 3})}, sumOver({}), false},
      {"sum_no_axes", {F({2, 3})}, [](const V& v) { return sum(v[0], A{}, false); }, false},
      {"sum_empty_axis", {F({3, 0})}, sumOver({1}), false},
      {"sum_empty_kept", {F({0, 4})}, sumOver({0}), false},
      {"sum_int_wrap",
       {Ints({3, 2}, {2147483520, 2147483520, -2147483648.0f, -1, 5, 6})},
       sumOver({0}),
       false},
      {"prod_rows", {F({3, 11}, 0.5f, 1.5f)}, [](const V& v) { return prod(v[0], {1}); }, false},
      {"prod_int_cols", {I({9, 3}, -9, 9)}, [](const V& v) { return prod(v[0], {0}); }, false},
      {"max_nan_row", {Fixed({1, 7}, nanRow)}, [](const V& v) { return max(v[0], {1}); }, false},
      {"min_nan_col", {Fixed({7, 1}, nanRow)}, [](const V& v) { return min(v[0], {0}); }, false},
      {"max_rows_odd", {F({4, 19})}, [](const V& v) { return max(v[0], {1}); }, false},
      {"min_int_cols", {I({5, 3}, -9, 9)}, [](const V& v) { return min(v[0], {0}); }, false},
      {"max_empty", {F({2, 0})}, [](const V& v) { return max(v[0], {1}); }, false},
      {"min_int_empty", {I({0, 3}, -9, 9)}, [](const V& v) { return min(v[0], {0}); }, false},
      {"any_rows_odd", {B({3, 13})}, [](const V& v) { return any(v[0], {1}); }, false},
      {"all_cols", {B({13, 3})}, [](const V& v) { return all(v[0], {0}); }, false},
      // ArgMax/ArgMin: along rows and along columns, ties keep the first, NaN never wins.
      {"argMax_row_ties",
       {Fixed({2, 5}, {1, 3, 3, 0, 2, kNaN, 1, 4, 4, kNaN})},
       [](const V& v) { return argMax(v[0], 1); },
       false},
      {"argMin_col_ties",
       {Fixed({3, 4}, {2, 1, kNaN, 0, 1, 1, 5, 0, 1, 0, -1, 3})},
       [](const V& v) { return argMin(v[0], 0); },
       false},
      {"argMax_middle_int",
       {I({2, 5, 3}, -3, 3)},
       [](const V& v) { return argMax(v[0], 1); },
       false},
      // Softmax along the last axis (rows) and an outer axis (columns).
      {"softmax_rows_odd", {F({3, 13}, -5.0f, 5.0f)}, u([](const Tensor& x) {
         return softmax(x);
       })},
      {"softmax_axis0", {F({5, 3})}, [](const V& v) { return softmax(v[0], 0); }},
      {"softmax_middle", {F({2, 3, 4})}, [](const V& v) { return softmax(v[0], 1); }, false},
      {"softmax_large_logits",
       {Fixed({2, 3}, {1000, 999, -1000, 88, 89, 90})},
       u([](const Tensor& x) { return softmax(x); }),
       false},
      {"softmax_special",
       {Fixed({3, 3}, {-kInf, 0, 1, kNaN, 0, 1, -kInf, -kInf, -kInf})},
       u([](const Tensor& x) { return softmax(x); }),
       false},
      {"softmax_single", {F({4, 1})}, u([](const Tensor& x) { return softmax(x); }), false},
  };
}

GLINT_OP_CASES(CpuUnary, unaryCases());
GLINT_OP_CASES(CpuBroadcast, broadcastCases());
GLINT_OP_CASES(CpuReduction, reductionCases());

}  // namespace
}  // namespace glint::testing
