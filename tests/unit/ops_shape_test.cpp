// Shape, indexing and creation ops: the op table (values on every backend,
// gradients by finite differences), hand-computed values, and error messages.
#include <numeric>

#include "op_harness.h"

namespace glint::testing {
namespace {

using Ts = std::vector<Tensor>;
using Fn = std::function<Tensor(const Ts&)>;

InputSpec Idx(Shape shape, std::vector<float> values) {
  return Fixed(std::move(shape), std::move(values), DType::int32);
}

std::vector<OpCase> transposeConcatCases() {
  auto cat = [](int64_t axis) { return [axis](const Ts& v) { return concat(v, axis); }; };
  return {
      {"transpose_2d", {F({2, 3})}, [](const Ts& v) { return transpose(v[0]); }},
      {"transpose_3d",
       {F({2, 3, 4})},
       [](const Ts& v) {
         return transpose(v[0], {1, 2, 0});
       }},
      {"transpose_size1",
       {F({1, 3, 1})},
       [](const Ts& v) {
         return transpose(v[0], {2, 0, 1});
       }},
      // Only axes of length 1 move: a view (a batch of one, time-major).
      {"transpose_batch1_time_major",
       {F({1, 3, 4})},
       [](const Ts& v) {
         return transpose(v[0], {1, 0, 2});
       }},
      {"transpose_size1_and_swap",
       {F({3, 1, 4})},
       [](const Ts& v) {
         return transpose(v[0], {2, 1, 0});
       }},
      {"transpose_identity",
       {F({2, 3})},
       [](const Ts& v) {
         return transpose(v[0], {0, 1});
       }},
      {"transpose_empty", {F({0, 3})}, [](const Ts& v) { return transpose(v[0]); }},
      {"transpose_int",
       {I({2, 3, 2}, -9, 9)},
       [](const Ts& v) {
         return transpose(v[0], {2, 0, 1});
       },
       false},
      {"transpose_bool", {B({2, 3})}, [](const Ts& v) { return transpose(v[0]); }, false},
      {"concat_axis0", {F({2, 3}), F({1, 3})}, cat(0)},
      {"concat_neg_axis", {F({2, 1}), F({2, 3}), F({2, 2})}, cat(-1)},
      {"concat_middle", {F({2, 1, 2}), F({2, 2, 2})}, cat(1)},
      {"concat_empty_part", {F({2, 0}), F({2, 3}), F({2, 0})}, cat(1)},
      {"concat_all_empty", {F({0, 2}), F({0, 2})}, cat(0)},
      {"concat_single", {F({3})}, cat(0)},
      // Whole texels (rows a multiple of 4 wide): gl copies texels.
      {"concat_texels_axis0", {F({2, 4}), F({3, 4})}, cat(0)},
      {"concat_texels_axis1", {F({2, 4}), F({2, 0}), F({2, 8})}, cat(1)},
      {"concat_texels_int", {I({1, 2, 4}, -9, 9), I({1, 1, 4}, -9, 9)}, cat(1), false},
      {"concat_int", {I({2, 2}, -9, 9), I({2, 1}, -9, 9)}, cat(1), false},
      {"concat_bool", {B({1, 3}), B({2, 3})}, cat(0), false},
      {"stack_axis1", {F({2, 3}), F({2, 3})}, [](const Ts& v) { return stack(v, 1); }},
      {"stack_neg_axis", {F({2}), F({2}), F({2})}, [](const Ts& v) { return stack(v, -1); }},
      {"stack_single", {F({3})}, [](const Ts& v) { return stack(v); }},
      {"stack_empty", {F({0, 2}), F({0, 2})}, [](const Ts& v) { return stack(v, 2); }},
      {"stack_int", {I({2}, -9, 9), I({2}, -9, 9)}, [](const Ts& v) { return stack(v); }, false},
  };
}

std::vector<OpCase> sliceCases() {
  // Reordering the parts makes every part's values and gradient visible.
  auto reordered = [](std::vector<Tensor> parts, int64_t axis) {
    std::reverse(parts.begin(), parts.end());
    return concat(parts, axis);
  };
  return {
      {"split_num", {F({2, 6})}, [=](const Ts& v) { return reordered(split(v[0], 3, 1), 1); }},
      {"split_sizes_infer",
       {F({5, 2})},
       [=](const Ts& v) {
         return reordered(split(v[0], {1, -1, 2}, -2), 0);
       }},
      {"split_zero_part",
       {F({3, 2})},
       [=](const Ts& v) {
         return reordered(split(v[0], {0, 3}, 0), 0);
       }},
      {"split_int",
       {I({4}, -9, 9)},
       [=](const Ts& v) { return reordered(split(v[0], 2), 0); },
       false},
      {"unstack_axis1",
       {F({2, 3, 2})},
       [=](const Ts& v) { return reordered(unstack(v[0], 1), 0); }},
      {"unstack_neg_axis",
       {F({2, 3})},
       [=](const Ts& v) { return reordered(unstack(v[0], -1), 0); }},
      {"slice_2d",
       {F({3, 4})},
       [](const Ts& v) {
         return slice(v[0], {1, 1}, {2, -1});
       }},
      {"slice_short_begin", {F({2, 3, 2})}, [](const Ts& v) { return slice(v[0], {1}, {1}); }},
      {"slice_size1",
       {F({1, 4})},
       [](const Ts& v) {
         return slice(v[0], {0, 3}, {1, 1});
       }},
      {"slice_empty",
       {F({3, 2})},
       [](const Ts& v) {
         return slice(v[0], {3, 0}, {0, 2});
       }},
      {"slice_whole",
       {F({2, 2})},
       [](const Ts& v) {
         return slice(v[0], {0, 0}, {-1, -1});
       }},
      {"slice_int",
       {I({3, 3}, -9, 9)},
       [](const Ts& v) {
         return slice(v[0], {1, 0}, {2, 2});
       },
       false},
      {"slice_bool", {B({4})}, [](const Ts& v) { return slice(v[0], {1}, {2}); }, false},
      {"strided_step2", {F({5})}, [](const Ts& v) { return stridedSlice(v[0], {1}, {5}, {2}); }},
      {"strided_reverse",
       {F({5})},
       [](const Ts& v) { return stridedSlice(v[0], {-1}, {-6}, {-1}); }},
      {"strided_masks",
       {F({3, 4})},
       [](const Ts& v) {
         return stridedSlice(v[0], {2, 1}, {0, 3}, {-2, 1}, 1, 1);
       }},
      {"strided_ellipsis_shrink",
       {F({2, 3, 4})},
       [](const Ts& v) {
         return stridedSlice(v[0], {0, 1}, {0, 2}, {1, 1}, 0, 0, 1, 0, 2);
       }},
      {"strided_newaxis",
       {F({2, 3})},
       [](const Ts& v) {
         return stridedSlice(v[0], {0, 0, 1}, {0, 0, 3}, {1, 1, 1}, 2, 2, 0, 1);
       }},
      {"strided_empty_result",
       {F({3, 2})},
       [](const Ts& v) { return stridedSlice(v[0], {2}, {1}, {1}); }},
      {"strided_int",
       {I({4, 2}, -9, 9)},
       [](const Ts& v) {
         return stridedSlice(v[0], {3, 1}, {0, 2}, {-2, 1});
       },
       false},
      {"strided_bool",
       {B({5})},
       [](const Ts& v) { return stridedSlice(v[0], {0}, {5}, {3}); },
       false},
      {"reverse_axis", {F({2, 3, 2})}, [](const Ts& v) { return reverse(v[0], {1}); }},
      {"reverse_all", {F({2, 3})}, [](const Ts& v) { return reverse(v[0]); }},
      {"reverse_neg_axes",
       {F({2, 1, 3})},
       [](const Ts& v) {
         return reverse(v[0], {-1, 0});
       }},
      {"reverse_empty",
       {F({0, 2})},
       [](const Ts& v) {
         return reverse(v[0], {0, 1});
       }},
      {"reverse_scalar", {F({})}, [](const Ts& v) { return reverse(v[0]); }},
      {"reverse_int", {I({4}, -9, 9)}, [](const Ts& v) { return reverse(v[0]); }, false},
      {"reverse_bool", {B({2, 2})}, [](const Ts& v) { return reverse(v[0], {1}); }, false},
  };
}

std::vector<OpCase> padTileReshapeCases() {
  return {
      {"pad_2d",
       {F({2, 3})},
       [](const Ts& v) {
         return pad(v[0], {{1, 0}, {2, 1}}, 0.5f);
       }},
      {"pad_size1",
       {F({1, 1})},
       [](const Ts& v) {
         return pad(v[0], {{0, 2}, {1, 1}});
       }},
      {"pad_empty_input",
       {F({0, 2})},
       [](const Ts& v) {
         return pad(v[0], {{1, 1}, {0, 1}}, 3);
       }},
      {"pad_none",
       {F({3})},
       [](const Ts& v) {
         return pad(v[0], {{0, 0}});
       }},
      {"pad_scalar", {F({})}, [](const Ts& v) { return pad(v[0], {}); }},
      {"pad_int",
       {I({2, 2}, -9, 9)},
       [](const Ts& v) {
         return pad(v[0], {{1, 1}, {0, 0}}, 7);
       },
       false},
      {"pad_bool",
       {B({2})},
       [](const Ts& v) {
         return pad(v[0], {{1, 1}}, 1);
       },
       false},
      {"tile_2d",
       {F({2, 3})},
       [](const Ts& v) {
         return tile(v[0], {2, 1});
       }},
      {"tile_3d",
       {F({1, 2, 2})},
       [](const Ts& v) {
         return tile(v[0], {2, 2, 3});
       }},
      {"tile_zero_reps",
       {F({2, 2})},
       [](const Ts& v) {
         return tile(v[0], {0, 2});
       }},
      {"tile_empty_input",
       {F({0, 2})},
       [](const Ts& v) {
         return tile(v[0], {3, 1});
       }},
      {"tile_scalar", {F({})}, [](const Ts& v) { return tile(v[0], {}); }},
      {"tile_int", {I({2}, -9, 9)}, [](const Ts& v) { return tile(v[0], {3}); }, false},
      {"tile_bool",
       {B({1, 2})},
       [](const Ts& v) {
         return tile(v[0], {2, 2});
       },
       false},
      {"reshape_infer",
       {F({2, 3})},
       [](const Ts& v) {
         return reshape(v[0], {3, -1});
       }},
      {"reshape_scalar", {F({1, 1})}, [](const Ts& v) { return reshape(v[0], {}); }},
      {"reshape_empty",
       {F({0, 3})},
       [](const Ts& v) {
         return reshape(v[0], {3, 0, 1});
       }},
      {"expand_dims_neg", {F({2, 3})}, [](const Ts& v) { return expandDims(v[0], -1); }},
      {"expand_dims_scalar", {F({})}, [](const Ts& v) { return expandDims(v[0], 0); }},
      {"squeeze_all", {F({1, 3, 1})}, [](const Ts& v) { return squeeze(v[0]); }},
      {"squeeze_neg_axis", {F({1, 3, 1})}, [](const Ts& v) { return squeeze(v[0], {-1}); }},
      {"squeeze_int", {I({1, 2}, -9, 9)}, [](const Ts& v) { return squeeze(v[0]); }, false},
  };
}

std::vector<OpCase> indexingCases() {
  return {
      {"gather_axis0_repeats",
       {F({4, 3}), Idx({5}, {3, 0, 2, 0, 1})},
       [](const Ts& v) { return gather(v[0], v[1]); }},
      {"gather_axis1_2d_indices",
       {F({2, 4, 2}), Idx({2, 2}, {1, 3, 1, 0})},
       [](const Ts& v) { return gather(v[0], v[1], 1); }},
      {"gather_neg_axis",
       {F({3, 4}), Idx({3}, {3, 3, 0})},
       [](const Ts& v) { return gather(v[0], v[1], -1); }},
      {"gather_scalar_index",
       {F({3, 2}), Idx({}, {2})},
       [](const Ts& v) { return gather(v[0], v[1]); }},
      {"gather_out_of_range",
       {F({3, 2}), Idx({3}, {-1, 1, 3})},
       [](const Ts& v) { return gather(v[0], v[1]); }},
      {"gather_empty_indices",
       {F({3, 2}), Idx({0}, {})},
       [](const Ts& v) { return gather(v[0], v[1], 0); }},
      {"gather_empty_x",
       {F({0, 2}), Idx({2}, {0, 0})},
       [](const Ts& v) { return gather(v[0], v[1]); }},
      {"gather_int",
       {I({3, 2}, -9, 9), Idx({2}, {2, 0})},
       [](const Ts& v) { return gather(v[0], v[1], 0); },
       false},
      {"gather_bool",
       {B({2, 3}), Idx({4}, {2, 2, 0, 1})},
       [](const Ts& v) { return gather(v[0], v[1], 1); },
       false},
      {"segsum_1d",
       {F({5}), Idx({5}, {0, 2, 0, -1, 1})},
       [](const Ts& v) { return unsortedSegmentSum(v[0], v[1], 3); }},
      {"segsum_rows",
       {F({4, 3}), Idx({4}, {1, 1, 0, 3})},
       [](const Ts& v) { return unsortedSegmentSum(v[0], v[1], 4); }},
      {"segsum_2d_ids",
       {F({2, 2, 3}), Idx({2, 2}, {0, 1, 1, 5})},
       [](const Ts& v) { return unsortedSegmentSum(v[0], v[1], 2); }},
      {"segsum_empty_x",
       {F({0, 2}), Idx({0}, {})},
       [](const Ts& v) { return unsortedSegmentSum(v[0], v[1], 3); }},
      {"segsum_int",
       {I({3, 2}, -9, 9), Idx({3}, {1, 0, 1})},
       [](const Ts& v) { return unsortedSegmentSum(v[0], v[1], 2); },
       false},
      {"onehot_1d", {Idx({4}, {0, 2, -1, 3})}, [](const Ts& v) { return oneHot(v[0], 3); }, false},
      {"onehot_2d",
       {Idx({2, 2}, {1, 0, 1, 1})},
       [](const Ts& v) { return oneHot(v[0], 2, 5.0f, -1.0f); },
       false},
      {"onehot_depth0", {Idx({3}, {0, 1, 2})}, [](const Ts& v) { return oneHot(v[0], 0); }, false},
  };
}

GLINT_OP_CASES(ShapeTransposeConcat, transposeConcatCases());
GLINT_OP_CASES(ShapeSlice, sliceCases());
GLINT_OP_CASES(ShapePadTile, padTileReshapeCases());
GLINT_OP_CASES(ShapeIndexing, indexingCases());

// ---- Hand-computed values, checked on every backend. ------------------------

struct EveryBackend {
  std::string saved = getBackend();
  ~EveryBackend() { setBackend(saved); }
  void run(const std::function<void()>& body) {
    for (const std::string& b : testBackends()) {
      SCOPED_TRACE("backend " + b);
      setBackend(b);
      body();
    }
  }
};

void expectFloats(const Tensor& t, const Shape& shape, const std::vector<float>& values) {
  ASSERT_EQ(t.dtype(), DType::float32);
  ASSERT_EQ(t.shape(), shape);
  EXPECT_EQ(t.data<float>(), values);
}

void expectInts(const Tensor& t, const Shape& shape, const std::vector<int32_t>& values) {
  ASSERT_EQ(t.dtype(), DType::int32);
  ASSERT_EQ(t.shape(), shape);
  EXPECT_EQ(t.data<int32_t>(), values);
}

/// [0, 1, ..., n-1] as a float tensor of `shape`.
Tensor iota(const Shape& shape) {
  std::vector<float> v(static_cast<size_t>(shapeSize(shape)));
  std::iota(v.begin(), v.end(), 0.0f);
  return tensor(v, shape);
}

TEST(ShapeValues, TransposeConcatStack) {
  EveryBackend().run([] {
    expectFloats(transpose(iota({2, 3})), {3, 2}, {0, 3, 1, 4, 2, 5});
    // out[i][j][k] = x[k][i][j] for perm {1, 2, 0}.
    expectFloats(transpose(iota({2, 2, 2}), {1, 2, 0}), {2, 2, 2}, {0, 4, 1, 5, 2, 6, 3, 7});
    expectInts(transpose(tensorInt({1, 2, 3, 4}, {2, 2})), {2, 2}, {1, 3, 2, 4});
    expectFloats(concat({iota({2, 1}), tensor({7, 8, 9, 10}, {2, 2})}, -1), {2, 3},
                 {0, 7, 8, 1, 9, 10});
    expectFloats(concat({iota({1, 2}), tensor({5, 6}, {1, 2})}, 0), {2, 2}, {0, 1, 5, 6});
    Tensor b = concat({tensorBool({1, 0}, {2}), tensorBool({1}, {1})});
    EXPECT_EQ(b.data<uint8_t>(), (std::vector<uint8_t>{1, 0, 1}));
    expectFloats(stack({tensor({1, 2}, {2}), tensor({3, 4}, {2})}, 1), {2, 2}, {1, 3, 2, 4});
    expectFloats(stack({tensor({1, 2}, {2}), tensor({3, 4}, {2})}, 0), {2, 2}, {1, 2, 3, 4});
  });
}

TEST(ShapeValues, SplitSliceUnstack) {
  EveryBackend().run([] {
    std::vector<Tensor> parts = split(iota({2, 4}), {1, -1, 1}, 1);
    ASSERT_EQ(parts.size(), 3u);
    expectFloats(parts[0], {2, 1}, {0, 4});
    expectFloats(parts[1], {2, 2}, {1, 2, 5, 6});
    expectFloats(parts[2], {2, 1}, {3, 7});
    parts = split(iota({4}), 2);
    expectFloats(parts[1], {2}, {2, 3});
    expectFloats(slice(iota({3, 4}), {1, 2}, {2, -1}), {2, 2}, {6, 7, 10, 11});
    expectFloats(slice(iota({3, 2}), {2}, {-1}), {1, 2}, {4, 5});
    parts = unstack(iota({2, 3}), 1);
    ASSERT_EQ(parts.size(), 3u);
    expectFloats(parts[2], {2}, {2, 5});
    EXPECT_TRUE(unstack(iota({0, 2})).empty());
  });
}

TEST(ShapeValues, StridedSliceMasks) {
  EveryBackend().run([] {
    Tensor x = iota({2, 3, 4});  // x[i][j][k] = 12i + 4j + k
    // x[0:2, 1:3]
    expectFloats(stridedSlice(x, {0, 1}, {2, 3}), {2, 2, 4},
                 {4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23});
    // x[..., 1]
    expectFloats(stridedSlice(x, {0, 1}, {0, 2}, {1, 1}, 0, 0, 1, 0, 2), {2, 3},
                 {1, 5, 9, 13, 17, 21});
    // x[:, ::-1, -1]
    expectFloats(stridedSlice(x, {0, 0, -1}, {0, 0, 0}, {1, -1, 1}, 3, 3, 0, 0, 4), {2, 3},
                 {11, 7, 3, 23, 19, 15});
    // x[newaxis, 1, 1:3]
    expectFloats(stridedSlice(x, {0, 1, 1}, {0, 2, 3}, {1, 1, 1}, 0, 0, 0, 1, 2), {1, 2, 4},
                 {16, 17, 18, 19, 20, 21, 22, 23});
    // x[-1:-3:-1, ..., 1::2]
    expectFloats(stridedSlice(x, {-1, 0, 1}, {-3, 0, 0}, {-1, 1, 2}, 0, 4, 2), {2, 3, 2},
                 {13, 15, 17, 19, 21, 23, 1, 3, 5, 7, 9, 11});
    // x[..., newaxis, 0]
    expectFloats(stridedSlice(x, {0, 0, 0}, {0, 0, 1}, {1, 1, 1}, 0, 0, 1, 2, 4), {2, 3, 1},
                 {0, 4, 8, 12, 16, 20});
    // x[1:2]: trailing dimensions are kept whole.
    expectFloats(stridedSlice(x, {1}, {2}), {1, 3, 4},
                 {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23});
    // x[1, newaxis, ..., 2] with shrink on 0 and 3: the ellipsis covers dim 1.
    expectFloats(stridedSlice(x, {1, 0, 0, 2}, {2, 0, 0, 3}, {1, 1, 1, 1}, 0, 0, 4, 2, 9), {1, 3},
                 {14, 18, 22});

    Tensor v = iota({5});
    expectFloats(stridedSlice(v, {-10}, {10}), {5}, {0, 1, 2, 3, 4});        // clamped
    expectFloats(stridedSlice(v, {3}, {1}), {0}, {});                        // empty
    expectFloats(stridedSlice(v, {10}, {-10}, {-1}), {5}, {4, 3, 2, 1, 0});  // clamped, reversed
    expectFloats(stridedSlice(v, {0}, {0}, {-1}, 1, 1), {5}, {4, 3, 2, 1, 0});
    expectFloats(stridedSlice(v, {0}, {5}, {3}), {2}, {0, 3});
    expectFloats(stridedSlice(v, {4}, {0}, {-3}), {2}, {4, 1});
    expectFloats(stridedSlice(v, {-1}, {0}, {1}, 0, 0, 0, 0, 1), {}, {4});
    expectFloats(stridedSlice(v, {1}, {-1}, {1}, 0, 0, 0, 0, 0), {3}, {1, 2, 3});
    expectFloats(stridedSlice(scalar(7), {0}, {0}, {1}, 0, 0, 0, 1), {1}, {7});
    expectInts(stridedSlice(tensorInt({1, 2, 3, 4}, {4}), {-2}, {0}, {-1}), {2}, {3, 2});
  });
}

TEST(ShapeValues, PadTileReverse) {
  EveryBackend().run([] {
    expectFloats(pad(tensor({1, 2, 3, 4}, {2, 2}), {{1, 0}, {0, 2}}, 9), {3, 4},
                 {9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9});
    expectInts(pad(tensorInt({5}, {1}), {{2, 1}}, 7), {4}, {7, 7, 5, 7});
    expectFloats(pad(tensor({}, {0}), {{1, 1}}, -1), {2}, {-1, -1});
    expectFloats(tile(tensor({1, 2}, {1, 2}), {2, 2}), {2, 4}, {1, 2, 1, 2, 1, 2, 1, 2});
    expectInts(tile(tensorInt({3, 4}, {2, 1}), {2, 1}), {4, 1}, {3, 4, 3, 4});
    expectFloats(tile(iota({2}), {0}), {0}, {});
    expectFloats(reverse(iota({2, 3}), {1}), {2, 3}, {2, 1, 0, 5, 4, 3});
    expectFloats(reverse(iota({2, 3})), {2, 3}, {5, 4, 3, 2, 1, 0});
    expectFloats(reverse(iota({2, 2}), {-2}), {2, 2}, {2, 3, 0, 1});
    Tensor b = reverse(tensorBool({1, 0, 0}, {3}));
    EXPECT_EQ(b.data<uint8_t>(), (std::vector<uint8_t>{0, 0, 1}));
  });
}

TEST(ShapeValues, ExpandSqueezeReshape) {
  Tensor x = iota({2, 3});
  EXPECT_EQ(expandDims(x, 0).shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(expandDims(x, 1).shape(), (Shape{2, 1, 3}));
  EXPECT_EQ(expandDims(x, -1).shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(expandDims(scalar(1), -1).shape(), (Shape{1}));
  EXPECT_EQ(squeeze(iota({1, 2, 1, 1})).shape(), (Shape{2}));
  EXPECT_EQ(squeeze(iota({1, 2, 1, 1}), {0, -1}).shape(), (Shape{2, 1}));
  EXPECT_EQ(squeeze(iota({1, 1})).shape(), (Shape{}));
  expectFloats(reshape(x, {3, -1}), {3, 2}, {0, 1, 2, 3, 4, 5});
  expectFloats(reshape(iota({0, 2}), {-1, 4}), {0, 4}, {});
  // Views share the buffer: no copy is made.
  MemoryInfo before = memory();
  Tensor views = squeeze(expandDims(reshape(x, {6}), 1));
  EXPECT_EQ(memory().numBuffers, before.numBuffers);
  expectFloats(views, {6}, {0, 1, 2, 3, 4, 5});
}

TEST(ShapeValues, GatherSegmentSumOneHot) {
  EveryBackend().run([] {
    Tensor x = iota({3, 2});
    expectFloats(gather(x, tensorInt({2, 0, 2}, {3})), {3, 2}, {4, 5, 0, 1, 4, 5});
    expectFloats(gather(x, tensorInt({1, 0, 1, 1}, {2, 2}), 1), {3, 2, 2},
                 {1, 0, 1, 1, 3, 2, 3, 3, 5, 4, 5, 5});
    expectFloats(gather(x, tensorInt({1}, {})), {2}, {2, 3});
    // Out-of-range indices give zeros.
    expectFloats(gather(x, tensorInt({-1, 3, 1}, {3})), {3, 2}, {0, 0, 0, 0, 2, 3});
    expectInts(gather(tensorInt({4, 5, 6}, {3}), tensorInt({2, 2, 0}, {3})), {3}, {6, 6, 4});

    expectFloats(
        unsortedSegmentSum(tensor({1, 2, 3, 4, 5}, {5}), tensorInt({0, 2, 0, -1, 7}, {5}), 3), {3},
        {4, 0, 2});
    expectFloats(unsortedSegmentSum(iota({3, 2}), tensorInt({1, 1, 0}, {3}), 2), {2, 2},
                 {4, 5, 2, 4});
    expectInts(
        unsortedSegmentSum(tensorInt({1, 2, 3, 4}, {2, 2}), tensorInt({0, 1, 1, 0}, {2, 2}), 2),
        {2}, {5, 5});

    expectFloats(oneHot(tensorInt({0, 2, -1, 3}, {4}), 3), {4, 3},
                 {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0});
    expectFloats(oneHot(tensorInt({1}, {1, 1}), 2, 5, -1), {1, 1, 2}, {-1, 5});
  });
}

TEST(ShapeGradients, HandComputed) {
  EveryBackend().run([] {
    // Repeated indices add up; out-of-range ones contribute nothing.
    Tensor g = grad(
        [](const Tensor& x) {
          return sum(gather(x, tensorInt({0, 0, 2, 5}, {4})));
        },
        tensor({1, 2, 3}, {3}));
    expectFloats(g, {3}, {2, 0, 1});
    // Along axis 1 with a [2] index tensor: column 1 picked twice.
    g = grad(
        [](const Tensor& x) {
          return sum(gather(x, tensorInt({1, 1}, {2}), 1));
        },
        iota({2, 3}));
    expectFloats(g, {2, 3}, {0, 2, 0, 0, 2, 0});
    g = grad([](const Tensor& x) { return sum(tile(x, {3, 2})); }, iota({1, 2}));
    expectFloats(g, {1, 2}, {6, 6});
    g = grad([](const Tensor& x) { return sum(stridedSlice(x, {4}, {0}, {-2})); }, iota({5}));
    expectFloats(g, {5}, {0, 0, 1, 0, 1});
    g = grad([](const Tensor& x) { return sum(pad(x, {{2, 1}}, 4)); }, iota({2}));
    expectFloats(g, {2}, {1, 1});
  });
}

// ---- Creation ops ------------------------------------------------------------

TEST(CreationOps, FillZerosOnesRange) {
  expectFloats(fill({2, 2}, 1.5f), {2, 2}, {1.5f, 1.5f, 1.5f, 1.5f});
  expectInts(fill({3}, 2.0f, DType::int32), {3}, {2, 2, 2});
  EXPECT_EQ(fill({2}, 3.0f, DType::boolean).data<uint8_t>(), (std::vector<uint8_t>{1, 1}));
  expectFloats(zeros({2, 0}), {2, 0}, {});
  expectFloats(zeros({}), {}, {0});
  expectInts(ones({2}, DType::int32), {2}, {1, 1});
  expectInts(zerosLike(tensorInt({4, 5}, {1, 2})), {1, 2}, {0, 0});
  expectFloats(onesLike(tensor({4, 5}, {2, 1})), {2, 1}, {1, 1});
  EXPECT_EQ(onesLike(tensorBool({0}, {1})).dtype(), DType::boolean);
  expectFloats(range(0, 5), {5}, {0, 1, 2, 3, 4});
  expectFloats(range(1, 2, 0.25f), {4}, {1, 1.25f, 1.5f, 1.75f});
  expectFloats(range(3, 0, -1), {3}, {3, 2, 1});
  expectFloats(range(3, 3), {0}, {});
  expectFloats(range(3, 1), {0}, {});
  expectInts(range(-2, 2, 2, DType::int32), {2}, {-2, 0});
}

TEST(CreationOps, Errors) {
  expectError([] { fill({2, -1}, 0); }, {"[fill]", "[2,-1]", "negative"});
  expectError([] { range(0, 5, 0); }, {"[range]", "step"});
  expectError([] { range(0, 5, 1, DType::boolean); }, {"[range]", "bool"});
  expectError([] { reshape(iota({2, 3}), {4, -1}); }, {"[reshape]", "[4,-1]", "[2,3]"});
  expectError([] { reshape(iota({2, 3}), {-1, -1}); }, {"[reshape]", "more than one -1"});
  expectError([] { reshape(iota({2, 3}), {5}); }, {"[reshape]", "6 elements", "[5]"});
}

// ---- Errors --------------------------------------------------------------------

TEST(OpErrors, ShapeOps) {
  Tensor x = iota({2, 3});
  expectError([] { transpose(iota({2, 3, 4}), {0, 2}); }, {"[transpose]", "perm", "rank 3"});
  expectError([] { transpose(iota({2, 3}), {1, 1}); }, {"[transpose]", "[1,1]", "permutation"});
  expectError([] { transpose(iota({2, 3}), {0, 2}); }, {"[transpose]", "permutation"});
  expectError([] { concat({}); }, {"[concat]", "empty"});
  expectError(
      [=] {
        concat({x, iota({3, 3})}, 1);
      },
      {"[concat]", "[3,3]", "[2,3]", "dimension 0", "only axis 1"});
  expectError([=] { concat({x, tensorInt({1, 2, 3}, {1, 3})}); }, {"[concat]", "int32", "dtype"});
  expectError([=] { concat({x, iota({6})}); }, {"[concat]", "rank"});
  expectError([=] { concat({x}, 2); }, {"[concat]", "axis 2", "rank 2"});
  expectError([] { concat({scalar(1), scalar(2)}); }, {"[concat]", "scalars"});
  expectError([=] { concat({x, Tensor()}); }, {"[concat]", "xs[1]", "undefined"});
  expectError([=] { split(x, 2, 1); }, {"[split]", "numSplits (2)", "x.shape[1] (3)"});
  expectError([=] { split(x, 0, 1); }, {"[split]", "numSplits", "positive"});
  expectError([=] { split(x, {1, 1}, 1); }, {"[split]", "[1,1]", "add up to 2", "(3)"});
  expectError([=] { split(x, {2, 2, -1}, 1); }, {"[split]", "add up to 4", "more than"});
  expectError([=] { split(x, {-1, -1, 3}, 1); }, {"[split]", "more than one -1"});
  expectError([=] { split(x, {-2, 5}, 1); }, {"[split]", "negative"});
  expectError([=] { split(x, 1, -3); }, {"[split]", "axis -3", "rank 2"});
  expectError([=] { slice(x, {1, 2}, {2, 1}); }, {"[slice]", "begin[0] + size[0] = 3", "[2,3]"});
  expectError([=] { slice(x, {0, 4}, {1, -1}); }, {"[slice]", "begin[1] = 4", "out of range"});
  expectError([=] { slice(x, {-1}, {1}); }, {"[slice]", "begin[0] = -1"});
  expectError([=] { slice(x, {0, 0}, {1, -2}); }, {"[slice]", "size[1]", "negative"});
  expectError([=] { slice(x, {0, 0, 0}, {}); }, {"[slice]", "at most one entry"});
  expectError([=] { pad(x, {{0, 1}}); }, {"[pad]", "paddings has 1", "rank 2"});
  expectError([=] { pad(x, {{0, 1}, {-1, 0}}); }, {"[pad]", "paddings[1] = (-1, 0)", "negative"});
  expectError([=] { tile(x, {2}); }, {"[tile]", "reps [2]", "rank 2"});
  expectError([=] { tile(x, {1, -2}); }, {"[tile]", "reps[1] = -2", "negative"});
  expectError([=] { expandDims(x, 3); }, {"[expandDims]", "axis 3", "[-3, 2]"});
  expectError([=] { expandDims(x, -4); }, {"[expandDims]", "axis -4"});
  expectError([=] { squeeze(x, {0}); }, {"[squeeze]", "axis 0", "[2,3]", "size is 2"});
  expectError([=] { squeeze(x, {2}); }, {"[squeeze]", "axes", "out of range"});
  expectError([] { stack({}); }, {"[stack]", "empty"});
  expectError([=] { stack({x, iota({3, 2})}); }, {"[stack]", "xs[1]", "[3,2]", "same shape"});
  expectError([=] { stack({x, x}, 3); }, {"[stack]", "axis 3"});
  expectError([] { unstack(scalar(1)); }, {"[unstack]", "rank 0"});
  expectError([=] { reverse(x, {0, -2}); }, {"[reverse]", "twice"});
  expectError([=] { reverse(x, {2}); }, {"[reverse]", "axes 2", "rank 2"});
}

TEST(OpErrors, StridedSlice) {
  Tensor x = iota({2, 3});
  expectError([=] { stridedSlice(x, {0, 0}, {1}); }, {"[stridedSlice]", "same length"});
  expectError([=] { stridedSlice(x, {0}, {1}, {0}); }, {"[stridedSlice]", "strides[0] is 0"});
  expectError(
      [=] {
        stridedSlice(x, {0, 0}, {1, 1}, {1, 1}, 0, 0, 3);
      },
      {"[stridedSlice]", "ellipsis"});
  expectError(
      [=] {
        stridedSlice(x, {0, 0, 0}, {1, 1, 1});
      },
      {"[stridedSlice]", "more dimensions", "[2,3]"});
  expectError(
      [=] {
        stridedSlice(x, {0, 3}, {0, 4}, {1, 1}, 0, 0, 0, 0, 2);
      },
      {"[stridedSlice]", "begin[1] = 3", "out of range", "dimension 1"});
  expectError([=] { stridedSlice(x, {-3}, {0}, {1}, 0, 0, 0, 0, 1); },
              {"[stridedSlice]", "begin[0] = -3"});
  expectError([=] { stridedSlice(x, {1}, {0}, {-1}, 0, 0, 0, 0, 1); },
              {"[stridedSlice]", "strides[0] = -1", "positive"});
}

TEST(OpErrors, IndexingOps) {
  Tensor x = iota({3, 2});
  expectError([=] { gather(x, tensor({0, 1}, {2})); }, {"[gather]", "indices", "int32", "float32"});
  expectError([=] { gather(x, tensorInt({0}, {1}), 2); }, {"[gather]", "axis 2", "rank 2"});
  expectError([] { gather(scalar(1), tensorInt({0}, {1})); }, {"[gather]", "rank 0"});
  expectError(
      [=] {
        unsortedSegmentSum(x, tensorInt({0, 1}, {2}), 2);
      },
      {"[unsortedSegmentSum]", "segmentIds", "[2]", "[3,2]", "leading"});
  expectError(
      [=] {
        unsortedSegmentSum(x, tensor({0, 1, 1}, {3}), 2);
      },
      {"[unsortedSegmentSum]", "segmentIds", "int32"});
  expectError(
      [=] {
        unsortedSegmentSum(x, tensorInt({0, 1, 1}, {3}), -1);
      },
      {"[unsortedSegmentSum]", "numSegments", "-1"});
  expectError([] { unsortedSegmentSum(tensorBool({1}, {1}), tensorInt({0}, {1}), 1); },
              {"[unsortedSegmentSum]", "x", "bool"});
  expectError([] { oneHot(tensorInt({0}, {1}), -1); }, {"[oneHot]", "depth", "-1"});
  expectError([] { oneHot(tensor({0}, {1}), 2); }, {"[oneHot]", "indices", "int32"});
}

}  // namespace
}  // namespace glint::testing
