// matMul: transposes, broadcast batch dimensions, degenerate sizes, and
// shapes large enough to cross the cpu kernel's blocks.
#include "op_harness.h"

namespace glint::testing {
namespace {

using Args = const std::vector<Tensor>&;

auto mm(bool tA = false, bool tB = false) {
  return [tA, tB](Args v) { return matMul(v[0], v[1], tA, tB); };
}

/// Multiples of 1/8 in [-2, 2]: every product and partial sum of a few
/// hundred of them is exact in float, so all backends must agree exactly.
InputSpec Quantized(Shape shape, uint32_t seed) {
  std::vector<float> values(static_cast<size_t>(shapeSize(shape)));
  uint32_t s = seed;
  for (float& v : values) {
    s = s * 1664525u + 1013904223u;
    v = static_cast<float>(static_cast<int>((s >> 16) % 33) - 16) / 8.0f;
  }
  return Fixed(std::move(shape), std::move(values));
}

std::vector<OpCase> cases() {
  return {
      {"mm_basic", {F({2, 3}), F({3, 4})}, mm()},
      {"mm_transpose_a", {F({3, 2}), F({3, 4})}, mm(true, false)},
      {"mm_transpose_b", {F({2, 3}), F({4, 3})}, mm(false, true)},
      {"mm_transpose_both", {F({3, 2}), F({4, 3})}, mm(true, true)},
      {"mm_batch", {F({2, 2, 3}), F({2, 3, 2})}, mm()},
      {"mm_broadcast_batch", {F({2, 1, 3, 4}), F({3, 4, 5})}, mm()},
      {"mm_broadcast_batch_tt", {F({2, 1, 4, 3}), F({3, 5, 4})}, mm(true, true)},
      {"mm_broadcast_matrix_a", {F({3, 4}), F({2, 4, 2})}, mm()},
      {"mm_broadcast_size1_b", {F({2, 2, 3}), F({1, 2, 3})}, mm(false, true)},
      {"mm_m1", {F({1, 3}), F({3, 2})}, mm()},
      {"mm_n1", {F({2, 3}), F({3, 1})}, mm()},
      {"mm_k1", {F({2, 1}), F({1, 3})}, mm()},
      {"mm_k1_transposed", {F({1, 2}), F({3, 1})}, mm(true, true)},
      {"mm_k0", {F({2, 0}), F({0, 3})}, mm()},
      {"mm_k0_transposed", {F({0, 2}), F({3, 0})}, mm(true, true)},
      {"mm_m0", {F({0, 3}), F({3, 2})}, mm()},
      {"mm_n0", {F({2, 3}), F({0, 3})}, mm(false, true)},
      {"mm_batch0", {F({0, 2, 3}), F({3, 2})}, mm()},
      // Past the cpu kernel's 4-row groups (33 = 8 * 4 + 1) ...
      {"mm_33x65x17", {Quantized({33, 65}, 1), Quantized({65, 17}, 2)}, mm(), false},
      {"mm_33x65x17_tt", {Quantized({65, 33}, 3), Quantized({17, 65}, 4)}, mm(true, true), false},
      // ... and its k blocks (128) and n blocks (256).
      {"mm_multi_block", {Quantized({5, 300}, 5), Quantized({300, 260}, 6)}, mm(), false},
      {"mm_multi_block_tb",
       {Quantized({300, 6}, 7), Quantized({260, 300}, 8)},
       mm(true, true),
       false},
      {"mm_batch_blocks", {Quantized({2, 1, 9, 140}, 9), Quantized({3, 140, 7}, 10)}, mm(), false},
      // A Dense 10's three products, and a ragged N and K in broadcast
      // batches: the gl backend pads them to whole texels.
      {"mm_dense10", {Quantized({64, 400}, 11), Quantized({400, 10}, 12)}, mm(), false},
      {"mm_dense10_weight_grad",
       {Quantized({64, 400}, 13), Quantized({64, 10}, 14)},
       mm(true, false),
       false},
      {"mm_dense10_input_grad",
       {Quantized({64, 10}, 15), Quantized({400, 10}, 16)},
       mm(false, true),
       false},
      {"mm_ragged_batches_tt",
       {Quantized({2, 1, 30, 50}, 17), Quantized({3, 13, 30}, 18)},
       mm(true, true),
       false},
  };
}

GLINT_OP_CASES(MatMul, cases());

TEST(MatMulValues, HandComputedOnEveryBackend) {
  BackendScope scope;
  Tensor a = tensor({1, 2, 3, 4}, {2, 2});
  Tensor b = tensor({5, 6, 7, 8}, {2, 2});
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE("backend " + backend);
    setBackend(backend);
    EXPECT_EQ(matMul(a, b).data<float>(), (std::vector<float>{19, 22, 43, 50}));
    EXPECT_EQ(matMul(a, b, true, false).data<float>(), (std::vector<float>{26, 30, 38, 44}));
    EXPECT_EQ(matMul(a, b, false, true).data<float>(), (std::vector<float>{17, 23, 39, 53}));
    EXPECT_EQ(matMul(a, b, true, true).data<float>(), (std::vector<float>{23, 31, 34, 46}));
    // k = 0: a sum of nothing.
    EXPECT_EQ(matMul(zeros({2, 0}), zeros({0, 2})).data<float>(), (std::vector<float>(4, 0)));
    // Broadcast batch: a [2,1,1,2] against b [2,2,1] -> [2,2,1,1].
    Tensor ab = matMul(tensor({1, 2, 3, 4}, {2, 1, 1, 2}), tensor({1, 1, 1, -1}, {2, 2, 1}));
    EXPECT_EQ(ab.shape(), (Shape{2, 2, 1, 1}));
    EXPECT_EQ(ab.data<float>(), (std::vector<float>{3, -1, 7, -1}));
  }
}

TEST(MatMulValues, GradientOfBroadcastOperandIsSummed) {
  // b [2,1] is shared by both batches of a [2,1,2]: its gradient sums over them.
  Tensor a = tensor({1, 2, 3, 4}, {2, 1, 2});
  Tensor b = tensor({1, 1}, {2, 1});
  std::vector<Tensor> g =
      grads([](const std::vector<Tensor>& v) { return matMul(v[0], v[1]); }, {a, b});
  EXPECT_EQ(g[0].data<float>(), (std::vector<float>{1, 1, 1, 1}));
  EXPECT_EQ(g[1].shape(), (Shape{2, 1}));
  EXPECT_EQ(g[1].data<float>(), (std::vector<float>{4, 6}));
}

TEST(OpErrors, MatMul) {
  Tensor a = zeros({2, 3});
  expectError(
      [&] {
        matMul(a, zeros({4, 5}));
      },
      {"[matMul]", "inner dimensions", "[2,3]", "[4,5]", "transposeA=false", "transposeB=false"});
  expectError(
      [&] {
        matMul(zeros({3, 2}), zeros({4, 5}), true, false);
      },
      {"[matMul]", "k = 3", "k = 4", "transposeA=true", "transposeB=false"});
  expectError(
      [&] {
        matMul(a, zeros({5, 2}), false, true);
      },
      {"[matMul]", "k = 3", "k = 2", "transposeB=true"});
  expectError([&] { matMul(zeros({3}), zeros({3, 2})); }, {"[matMul]", "a", "rank >= 2", "[3]"});
  expectError([&] { matMul(a, zeros({3})); }, {"[matMul]", "b", "rank >= 2", "[3]"});
  expectError(
      [&] {
        matMul(zeros({2, 2, 3}), zeros({3, 3, 4}));
      },
      {"[matMul]", "batch", "[2]", "[3]", "[2,2,3]", "[3,3,4]"});
  expectError(
      [&] {
        matMul(tensorBool({1, 0, 1, 0}, {2, 2}), zeros({2, 2}));
      },
      {"[matMul]", "a", "float32", "bool"});
  expectError([&] { matMul(a, Tensor()); }, {"[matMul]", "b", "undefined"});
}

// int32 x int32 is exact int32 (TF.js's CPU kernel), wrapping past int32's
// range; int32 with float32 computes in float32. Checked against sums done here.
TEST(OpsMatMul, Int32IsExactAndWraps) {
  Tensor a = tensorInt({16777217, 2, -3, 100000, 7, 0}, {2, 3});
  Tensor b = tensorInt({1, 5, 0, 100000, 4, -2}, {3, 2});
  Tensor c = matMul(a, b);
  EXPECT_EQ(c.dtype(), DType::int32);
  auto wrap = [](int64_t v) {
    return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
  };
  std::vector<int32_t> want = {
      wrap(16777217LL * 1 + 2LL * 0 + -3LL * 4), wrap(16777217LL * 5 + 2LL * 100000 + -3LL * -2),
      wrap(100000LL * 1 + 7LL * 0 + 0LL * 4), wrap(100000LL * 5 + 7LL * 100000 + 0LL * -2)};
  EXPECT_EQ(c.data<int32_t>(), want);
  // Batched with broadcasting and transposes: the same as the float path on small values.
  Tensor x = tensorInt({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {2, 3, 2});
  Tensor y = tensorInt({1, -1, 2, 0, 3, 1}, {1, 2, 3});
  Tensor exact = matMul(x, y, true, true);
  Tensor viaFloat = matMul(cast(x, DType::float32), cast(y, DType::float32), true, true);
  EXPECT_EQ(exact.shape(), (Shape{2, 2, 2}));
  std::vector<float> f = viaFloat.data<float>();
  std::vector<int32_t> e = exact.data<int32_t>();
  for (size_t i = 0; i < f.size(); ++i) EXPECT_EQ(e[i], static_cast<int32_t>(f[i])) << i;
  Tensor mixed = matMul(tensorInt({1, 2}, {1, 2}), tensor({0.5f, 0.25f}, {2, 1}));
  EXPECT_EQ(mixed.dtype(), DType::float32);
  EXPECT_FLOAT_EQ(mixed.data<float>()[0], 1.0f);
}

}  // namespace
}  // namespace glint::testing
