// Reductions, arg-extremes, softmax family, moments and batchNorm.
#include <cmath>
#include <limits>

#include "glint/fused_ops.h"
#include "op_harness.h"

namespace glint::testing {
namespace {

using Args = const std::vector<Tensor>&;
constexpr float kInf = std::numeric_limits<float>::infinity();

/// Multiples of 1/4 in [-2, 2]: long sums of them are exact in float, so any
/// summation order must match the reference's double sum.
InputSpec quarters(Shape shape) {
  std::vector<float> v(static_cast<size_t>(shapeSize(shape)));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = 0.25f * static_cast<float>((i * 37 + i / 7) % 17) - 2.0f;
  return Fixed(std::move(shape), std::move(v));
}

std::vector<OpCase> reductionCases() {
  return {
      {"sum_int", {I({2, 3}, -9, 9)}, [](Args v) { return sum(v[0], {0}); }, false},
      {"sum_scalar", {F({})}, [](Args v) { return sum(v[0]); }},
      {"sum_size1", {F({3, 1})}, [](Args v) { return sum(v[0], {1}, true); }},
      // Over leading axes with the kept axes in whole texels (a bias
      // gradient): short, and long enough to be split (axes unsorted; values
      // only, too big for finite differences; exact sums, whatever the order).
      {"sum_leading_texels",
       {F({3, 5, 8})},
       [](Args v) {
         return sum(v[0], {0, 1});
       }},
      {"sum_leading_split",
       {quarters({2050, 2, 12})},
       [](Args v) {
         return sum(v[0], {1, 0}, true);
       },
       false},
      {"sum_leading_inf",
       {Fixed({3, 4},
              {1.0f, kInf, -kInf, 2.0f, 3.0f, 1.0f, -kInf, 1e30f, -1.0f, 2.0f, 0.5f, -1e30f})},
       [](Args v) { return sum(v[0], {0}); },
       false},

      {"max_all", {F({2, 3})}, [](Args v) { return max(v[0]); }},
      {"max_axis_keep", {F({2, 3, 4})}, [](Args v) { return max(v[0], {1}, true); }},
      {"max_neg_axes",
       {F({2, 3, 4})},
       [](Args v) {
         return max(v[0], {-1, 0});
       }},
      {"max_size1", {F({3, 1})}, [](Args v) { return max(v[0], {-1}); }},
      {"max_int", {I({3, 4}, -20, 20)}, [](Args v) { return max(v[0], {1}); }, false},
      // -inf for an empty window: values only (finite differences of inf are NaN).
      {"max_empty_axis", {F({2, 0})}, [](Args v) { return max(v[0], {1}); }, false},
      {"max_empty_kept", {F({0, 3})}, [](Args v) { return max(v[0], {1}, true); }},
      {"min_axis", {F({3, 4})}, [](Args v) { return min(v[0], {0}); }},
      {"min_neg_keep", {F({2, 3, 2})}, [](Args v) { return min(v[0], {-2}, true); }},
      {"min_int", {I({2, 5}, -20, 20)}, [](Args v) { return min(v[0]); }, false},
      {"min_empty_axis", {F({0, 2})}, [](Args v) { return min(v[0], {0}); }, false},

      {"prod_axis", {F({2, 3}, 0.5f, 1.5f)}, [](Args v) { return prod(v[0], {1}); }},
      {"prod_all_neg", {F({2, 2}, -1.5f, 1.5f)}, [](Args v) { return prod(v[0]); }},
      // Row 0 has one zero, row 1 two: the product is multilinear, so
      // finite differences are exact there too.
      {"prod_zeros",
       {Fixed({2, 3}, {1.5f, 0, -2, 0, 0, 3})},
       [](Args v) { return prod(v[0], {-1}, true); }},
      {"prod_int", {I({2, 3}, -4, 4)}, [](Args v) { return prod(v[0], {0}); }, false},
      {"prod_empty", {F({2, 0})}, [](Args v) { return prod(v[0], {1}); }},

      {"any_axis", {B({3, 4})}, [](Args v) { return any(v[0], {1}); }, false},
      {"any_all_keep", {B({2, 3})}, [](Args v) { return any(v[0], {}, true); }, false},
      {"any_empty", {B({2, 0})}, [](Args v) { return any(v[0], {-1}); }, false},
      {"all_axis", {B({3, 4})}, [](Args v) { return all(v[0], {0}); }, false},
      {"all_empty", {B({0, 2})}, [](Args v) { return all(v[0], {0}); }, false},

      {"argmax_axis1", {F({3, 4})}, [](Args v) { return argMax(v[0], 1); }, false},
      {"argmax_neg", {F({2, 3, 2})}, [](Args v) { return argMax(v[0], -2); }, false},
      {"argmax_int_ties", {I({4, 6}, 0, 2)}, [](Args v) { return argMax(v[0], 1); }, false},
      {"argmax_size1", {F({3, 1})}, [](Args v) { return argMax(v[0], 1); }, false},
      {"argmax_empty_other", {F({0, 3})}, [](Args v) { return argMax(v[0], 1); }, false},
      {"argmin_axis0", {F({3, 4})}, [](Args v) { return argMin(v[0], 0); }, false},
      {"argmin_int", {I({2, 5}, -3, 3)}, [](Args v) { return argMin(v[0], -1); }, false},
  };
}

std::vector<OpCase> softmaxCases() {
  return {
      {"softmax_last", {F({2, 3})}, [](Args v) { return softmax(v[0]); }},
      {"softmax_mid_axis", {F({2, 3, 2})}, [](Args v) { return softmax(v[0], 1); }},
      {"softmax_axis0", {F({3, 2})}, [](Args v) { return softmax(v[0], -2); }},
      {"softmax_size1", {F({2, 1})}, [](Args v) { return softmax(v[0]); }},
      {"softmax_large", {F({2, 4}, 500, 600)}, [](Args v) { return softmax(v[0]); }, false},
      {"softmax_empty", {F({0, 3})}, [](Args v) { return softmax(v[0]); }},
      {"logsoftmax_last", {F({2, 3})}, [](Args v) { return logSoftmax(v[0]); }},
      {"logsoftmax_axis0", {F({3, 2})}, [](Args v) { return logSoftmax(v[0], 0); }},
      {"logsoftmax_large", {F({2, 4}, -600, 600)}, [](Args v) { return logSoftmax(v[0]); }, false},
      {"logsumexp_all", {F({2, 3})}, [](Args v) { return logSumExp(v[0]); }},
      {"logsumexp_axis_keep", {F({2, 3, 2})}, [](Args v) { return logSumExp(v[0], {1}, true); }},
      {"logsumexp_neg_axes",
       {F({2, 3, 2})},
       [](Args v) {
         return logSumExp(v[0], {-1, 0});
       }},
      {"logsumexp_size1", {F({3, 1})}, [](Args v) { return logSumExp(v[0], {1}); }},
      {"logsumexp_large",
       {F({3, 2}, 1000, 2000)},
       [](Args v) { return logSumExp(v[0], {1}); },
       false},
      {"logsumexp_empty_axis", {F({2, 0})}, [](Args v) { return logSumExp(v[0], {1}); }, false},
  };
}

std::vector<OpCase> statisticsCases() {
  return {
      {"mean_all", {F({2, 3})}, [](Args v) { return mean(v[0]); }},
      {"mean_axis_keep", {F({2, 3, 2})}, [](Args v) { return mean(v[0], {1}, true); }},
      {"mean_neg_axes",
       {F({2, 3, 2})},
       [](Args v) {
         return mean(v[0], {-1, -3});
       }},
      {"mean_int", {I({2, 3}, -5, 5)}, [](Args v) { return mean(v[0], {1}); }, false},
      // NaN, like TF.js.
      {"mean_empty_axis", {F({2, 0})}, [](Args v) { return mean(v[0], {1}); }, false},
      // gl's long windows (two passes) and leading axes in whole texels (a
      // batch mean per channel), each with the scale on the final pass only.
      // The long ones skip finite differences (an evaluation per element;
      // the small cases check the same gradient).
      {"mean_long_window", {F({2, 4500})}, [](Args v) { return mean(v[0], {1}); }, false},
      {"mean_leading_texels", {F({6, 8})}, [](Args v) { return mean(v[0], {0}); }},
      {"mean_leading_long", {F({4200, 4})}, [](Args v) { return mean(v[0], {0}, true); }, false},
      {"moments_mean", {F({3, 4})}, [](Args v) { return moments(v[0], {0}).mean; }},
      {"moments_variance", {F({3, 4})}, [](Args v) { return moments(v[0], {0}).variance; }},
      {"moments_keep_all",
       {F({2, 2, 3})},
       [](Args v) {
         Moments m = moments(v[0], {}, true);
         return add(m.mean, m.variance);
       }},
      {"moments_nhwc",
       {F({2, 2, 2, 3})},
       [](Args v) {
         return moments(v[0], {0, 1, 2}).variance;
       }},
      {"batchnorm_full",
       {F({2, 3}), F({3}), F({3}, 0.5f, 2), F({3}), F({3})},
       [](Args v) { return batchNorm(v[0], v[1], v[2], v[3], v[4]); }},
      {"batchnorm_no_offset_scale",
       {F({4, 2}), F({2}), F({2}, 0.5f, 2)},
       [](Args v) { return batchNorm(v[0], v[1], v[2], Tensor(), Tensor(), 0.01f); }},
      {"batchnorm_nhwc_keepdims",
       {F({2, 2, 2, 3}), F({1, 1, 1, 3}), F({1, 1, 1, 3}, 0.5f, 2), F({3}), F({1, 3})},
       [](Args v) { return batchNorm(v[0], v[1], v[2], v[3], v[4]); }},
      {"batchnorm_scalar_stats",
       {F({2, 3}), F({}), F({}, 0.5f, 2)},
       [](Args v) { return batchNorm(v[0], v[1], v[2]); }},
  };
}

GLINT_OP_CASES(Reduction, reductionCases());
GLINT_OP_CASES(ReductionSoftmax, softmaxCases());
GLINT_OP_CASES(ReductionStatistics, statisticsCases());

void expectValues(const Tensor& t, const std::vector<float>& want, float tol = 0) {
  std::vector<float> got = t.toFloats();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    else if (std::isinf(want[i])) EXPECT_EQ(got[i], want[i]) << "element " << i;
    else EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
  }
}

TEST(ReductionValues, HandComputed) {
  onEveryBackend([] {
    Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
    expectValues(sum(x, {1}), {6, 15});
    expectValues(max(x, {0}), {4, 5, 6});
    expectValues(min(x, {-1}), {1, 4});
    expectValues(prod(x), {720});
    expectValues(mean(x, {0}), {2.5f, 3.5f, 4.5f});
    expectValues(argMax(tensor({1, 3, 3, 2}, {4})), {1});
    expectValues(argMin(tensor({2, 0, 0, 5}, {2, 2}), 1), {1, 0});
    expectValues(any(tensorBool({0, 0, 1, 0}, {2, 2}), {1}), {0, 1});
    expectValues(all(tensorBool({1, 1, 1, 0}, {2, 2}), {1}), {1, 0});
    expectValues(prod(tensorInt({2, -3, 4}, {3})), {-24});
    Moments m = moments(tensor({1, 2, 3, 4}, {4}), {0});
    expectValues(m.mean, {2.5f});
    expectValues(m.variance, {1.25f});
    float r = 1 / std::sqrt(1.0f + 1e-3f);
    expectValues(batchNorm(tensor({1, 3}, {2}), scalar(2), scalar(1), scalar(0.5f), scalar(2)),
                 {0.5f - 2 * r, 0.5f + 2 * r}, 1e-6f);
  });
}

TEST(ReductionValues, EmptyWindows) {
  onEveryBackend([] {
    Tensor e = zeros({2, 0});
    expectValues(sum(e, {1}), {0, 0});
    expectValues(prod(e, {1}), {1, 1});
    expectValues(max(e, {1}), {-kInf, -kInf});
    expectValues(min(e, {1}), {kInf, kInf});
    float nan = std::numeric_limits<float>::quiet_NaN();
    expectValues(mean(e, {1}), {nan, nan});
    expectValues(logSumExp(e, {1}), {-kInf, -kInf});
    expectValues(any(zeros({2, 0}, DType::boolean), {1}), {0, 0});
    expectValues(all(zeros({2, 0}, DType::boolean), {1}), {1, 1});
  });
}

TEST(ReductionValues, SoftmaxFamilyIsStable) {
  onEveryBackend([] {
    expectValues(softmax(tensor({1000, 1000}, {2})), {0.5f, 0.5f});
    expectValues(softmax(tensor({-1000, 0, -kInf}, {3})), {0, 1, 0});
    expectValues(logSumExp(tensor({1000, 1000}, {2})), {1000 + std::log(2.0f)}, 1e-4f);
    expectValues(logSumExp(tensor({-1000, -1000}, {2})), {-1000 + std::log(2.0f)}, 1e-4f);
    expectValues(logSoftmax(tensor({1000, 1000}, {2})), {-std::log(2.0f), -std::log(2.0f)}, 1e-4f);
    // A window that is all -inf, or has +inf, has an infinite logSumExp, not NaN.
    expectValues(logSumExp(tensor({-kInf, -kInf, 1, -kInf}, {2, 2}), {1}), {-kInf, 1}, 1e-6f);
    expectValues(logSumExp(tensor({kInf, 1}, {2})), {kInf});
  });
}

/// Relative precision where float32 arithmetic can lose it: a softmax's tail
/// probabilities (e^-92 beside 1), log-probabilities of far logits, and sums
/// of 2^17 terms, whose naive running total drifts by ~1e-3; each against
/// double precision of the same inputs.
TEST(ReductionValues, TailsAndLongSumsKeepRelativePrecision) {
  const std::vector<float> row = {0.0f, -20.0f, -80.0f, 3.0f, -0.5f, 12.0f, -60.0f, 11.9f};
  std::vector<float> terms(1 << 17);
  for (size_t i = 0; i < terms.size(); ++i) terms[i] = 0.1f + static_cast<float>(i % 7) * 1e-3f;
  double top = 12.0, total = 0, longSum = 0;
  for (float v : row) total += std::exp(v - top);
  for (float v : terms) longSum += v;
  const double lse = top + std::log(total);
  // Below float's normal range a result may flush to 0.
  auto near = [](float got, double want, double rel) {
    EXPECT_NEAR(got, want, rel * std::abs(want) + std::numeric_limits<float>::min())
        << "relative error " << (got - want) / want;
  };
  onEveryBackend([&] {
    Tensor x = tensor(row, {1, 8});
    std::vector<float> p = softmax(x).toFloats(), lp = logSoftmax(x).toFloats();
    for (size_t i = 0; i < row.size(); ++i) {
      SCOPED_TRACE("logit " + std::to_string(row[i]));
      near(p[i], std::exp(row[i] - lse), 1e-6);
      near(lp[i], row[i] - lse, 1e-6);
    }
    near(logSumExp(x).toFloats()[0], lse, 1e-6);
    // A confident row's cross-entropy, ~1.4e-4: log(1 + the tails' sum), which
    // a float32 log(sum) holds to ~1e-7 / 1.4e-4 only.
    Tensor confident = tensor({0, -20, -80, 3, -0.5f, 12, -60, 1}, {1, 8});
    Tensor label = tensor({0, 0, 0, 0, 0, 1, 0, 0}, {1, 8});
    double tails = 0;
    for (float v : {0.0f, -20.0f, -80.0f, 3.0f, -0.5f, -60.0f, 1.0f}) tails += std::exp(v - 12.0);
    near(softmaxCrossEntropyWithLogits(label, confident).toFloats()[0], std::log1p(tails), 1e-6);
    Tensor t = tensor(terms, {static_cast<int64_t>(terms.size())});
    near(sum(t).toFloats()[0], longSum, 4e-6);
    near(mean(t).toFloats()[0], longSum / static_cast<double>(terms.size()), 4e-6);
  });
}

TEST(ReductionGradients, TiesAndZeros) {
  onEveryBackend([] {
    // Every tied extreme gets the full dy (TF.js semantics).
    expectValues(grad([](const Tensor& x) { return max(x); }, tensor({1, 3, 3}, {3})), {0, 1, 1});
    expectValues(grad([](const Tensor& x) { return min(x, {1}); }, tensor({2, 2, 5, 1}, {2, 2})),
                 {1, 1, 0, 1});
    // One zero: only it gets the product of the others; two zeros: nothing.
    expectValues(grad([](const Tensor& x) { return prod(x); }, tensor({2, 0, 3}, {3})), {0, 6, 0});
    expectValues(grad([](const Tensor& x) { return prod(x); }, tensor({2, 0, 0}, {3})), {0, 0, 0});
    expectValues(grad([](const Tensor& x) { return prod(x); }, tensor({2, -4, 3}, {3})),
                 {-12, 6, -8}, 1e-5f);
    // Softmax of equal logits: the gradient of y[0] is (1/4)(e0 - 1/4).
    Tensor dy = tensor({1, 0, 0, 0}, {4});
    expectValues(grad([](const Tensor& x) { return softmax(x); }, zeros({4}), dy),
                 {0.1875f, -0.0625f, -0.0625f, -0.0625f}, 1e-6f);
  });
}

TEST(OpErrors, Reductions) {
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  expectError([&] { max(x, {2}); }, {"[max]", "axes", "2", "rank 2"});
  expectError([&] { min(x, {-3}); }, {"[min]", "axes", "-3", "rank 2"});
  expectError([&] { prod(x, {1, -1}); }, {"[prod]", "axes", "twice"});
  expectError([&] { mean(x, {0, 0}); }, {"[mean]", "twice"});
  expectError([&] { logSumExp(x, {5}); }, {"[logSumExp]", "axes", "5"});
  expectError([&] { any(x); }, {"[any]", "x", "bool", "float32 [2,3]"});
  expectError([&] { all(tensorInt({1}, {1})); }, {"[all]", "bool", "int32"});
  expectError([&] { max(tensorBool({1}, {1})); }, {"[max]", "float32 or int32", "bool"});
  expectError([&] { sum(Tensor()); }, {"[sum]", "x", "undefined"});
  expectError([&] { logSumExp(tensorInt({1}, {1})); }, {"[logSumExp]", "float32", "int32"});
}

TEST(OpErrors, ArgExtremesAndSoftmax) {
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  expectError([&] { argMax(x, 2); }, {"[argMax]", "axis", "2", "rank 2"});
  expectError([&] { argMin(x, -3); }, {"[argMin]", "axis", "-3"});
  expectError([&] { argMax(zeros({2, 0}), 1); }, {"[argMax]", "axis 1", "[2,0]", "size 0"});
  expectError([&] { argMin(tensorBool({1}, {1})); }, {"[argMin]", "bool"});
  expectError([&] { softmax(tensorInt({1, 2}, {2})); }, {"[softmax]", "logits", "int32"});
  expectError([&] { softmax(x, 2); }, {"[softmax]", "axis", "2"});
  expectError([&] { softmax(scalar(1)); }, {"[softmax]", "axis", "rank 0"});
  expectError([&] { logSoftmax(x, -3); }, {"[logSoftmax]", "axis", "-3"});
}

TEST(OpErrors, MomentsAndBatchNorm) {
  Tensor x = zeros({2, 3});
  Tensor v = ones({3});
  expectError([&] { moments(x, {2}); }, {"[moments]", "axes", "2"});
  expectError([&] { moments(tensorBool({1}, {1}), {0}); }, {"[moments]", "bool"});
  expectError([&] { batchNorm(x, zeros({4}), v); }, {"[batchNorm]", "mean", "[4]", "[2,3]"});
  expectError(
      [&] {
        batchNorm(x, zeros({3}), ones({2, 1, 3}));
      },
      {"[batchNorm]", "variance", "[2,1,3]", "broadcast"});
  expectError([&] { batchNorm(x, zeros({3}), v, zeros({2})); }, {"[batchNorm]", "offset", "[2]"});
  expectError(
      [&] {
        batchNorm(x, zeros({3}), v, Tensor(), zeros({3, 1}));
      },
      {"[batchNorm]", "scale", "[3,1]"});
  expectError(
      [&] {
        batchNorm(x, zeros({3}), tensorInt({1, 1, 1}, {3}));
      },
      {"[batchNorm]", "variance", "int32"});
  expectError([&] { batchNorm(x, zeros({3}), v, Tensor(), Tensor(), 0.0f); },
              {"[batchNorm]", "epsilon", "> 0"});
  expectError([&] { batchNorm(x, zeros({3}), v, Tensor(), Tensor(), -1.0f); },
              {"[batchNorm]", "epsilon"});
  expectError([&] { batchNorm(x, zeros({3}), v, Tensor(), Tensor(), std::nanf("")); },
              {"[batchNorm]", "epsilon", "finite"});
  expectError([&] { batchNorm(x, zeros({3}), v, Tensor(), Tensor(), kInf); },
              {"[batchNorm]", "epsilon", "finite"});
}

}  // namespace
}  // namespace glint::testing
