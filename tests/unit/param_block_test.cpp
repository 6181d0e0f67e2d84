// ParamBlock (src/backends/param_block.h): the GPU kernels' named scalars.
#include "src/backends/param_block.h"

#include <gtest/gtest.h>

#include "tests/unit/op_harness.h"

namespace glint {
namespace {

TEST(ParamBlock, NamesBecomeTheirArrayElements) {
  ParamBlock p;
  p.add("lr", 0.5).add("beta_1", 0.25).add("n", 7);
  EXPECT_EQ(p.expand("w - $lr * g + $beta_1 * m; int($n) $lr"),
            "w - u_params[0] * g + u_params[1] * m; int(u_params[2]) u_params[0]");
  EXPECT_EQ(p.values(), (std::vector<float>{0.5f, 0.25f, 7.0f}));
  EXPECT_EQ(p.expand("no names here"), "no names here");
}

TEST(ParamBlock, UnknownNameFailsNamingIt) {
  ParamBlock p;
  p.add("lr", 0.1).add("momentum", 0.9);
  testing::expectError([&] { p.expand("x * $beta1"); }, {"ParamBlock", "$beta1", "lr, momentum"});
  testing::expectError([&] { ParamBlock().expand("$lr"); }, {"$lr", "none"});
}

}  // namespace
}  // namespace glint
