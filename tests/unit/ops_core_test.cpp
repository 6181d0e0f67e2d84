// The seed of the op table: add, mul, sum on every backend with gradients.
#include "op_harness.h"

namespace glint::testing {
namespace {

std::vector<OpCase> cases() {
  auto add2 = [](const std::vector<Tensor>& v) { return add(v[0], v[1]); };
  auto mul2 = [](const std::vector<Tensor>& v) { return mul(v[0], v[1]); };
  return {
      {"add_same", {F({2, 3}), F({2, 3})}, add2},
      {"add_broadcast_row", {F({2, 3}), F({3})}, add2},
      {"add_broadcast_both", {F({2, 1, 3}), F({4, 1})}, add2},
      {"add_scalar", {F({}), F({2, 2})}, add2},
      {"add_empty", {F({0, 3}), F({1, 3})}, add2},
      {"add_int", {I({2, 2}, -5, 5), I({2}, -5, 5)}, add2, false},
      {"mul_broadcast", {F({3, 1}), F({1, 4})}, mul2},
      {"sum_all", {F({2, 3})}, [](const std::vector<Tensor>& v) { return sum(v[0]); }},
      {"sum_axis_keep",
       {F({2, 3, 4})},
       [](const std::vector<Tensor>& v) { return sum(v[0], {1}, true); }},
      {"sum_neg_axes",
       {F({2, 3, 4})},
       [](const std::vector<Tensor>& v) {
         return sum(v[0], {-1, 0});
       }},
      {"sum_empty_axis", {F({2, 0})}, [](const std::vector<Tensor>& v) { return sum(v[0], {1}); }},
  };
}

GLINT_OP_CASES(Core, cases());

TEST(OpErrors, AddNamesTheShapes) {
  expectError(
      [] {
        add(tensor({1, 2, 3}, {3}), tensor({1, 2}, {2}));
      },
      {"[add]", "[3]", "[2]", "broadcast"});
  expectError([] { add(tensor({1}, {1}), tensorInt({1}, {1})); }, {"[add]", "float32", "int32"});
  expectError([] { sum(tensor({1, 2}, {2}), {1}); }, {"[sum]", "axes", "rank 1"});
}

}  // namespace
}  // namespace glint::testing
