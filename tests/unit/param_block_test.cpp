// ParamBlock (src/backends/param_block.h): the GPU kernels' named scalars.
#include "src/backends/param_block.h"

#include <gtest/gtest.h>

#include "src/backends/optim_params.h"
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

TEST(ParamBlock, AdamParamsHoldTheUpdatesScalars) {
  Attrs a;
  a.set("lr", 0.01).set("beta1", 0.9).set("beta2", 0.999).set("epsilon", 1e-7);
  a.set("biasCorrection1", 0.1).set("biasCorrection2", 0.001).set("weightDecay", 0.5);
  ParamBlock p = adamParams(a);
  const std::vector<float>& v = p.values();
  auto at = [&](const char* name) {
    std::string ref = p.expand(std::string("$") + name);  // "u_params[i]"
    return v.at(std::stoul(ref.substr(9, ref.size() - 10)));
  };
  EXPECT_FLOAT_EQ(at("lr"), 0.01f);
  EXPECT_FLOAT_EQ(at("oneMinusBeta1"), 0.1f);
  EXPECT_FLOAT_EQ(at("oneMinusBeta2"), static_cast<float>(1 - 0.999));
  EXPECT_FLOAT_EQ(at("epsilon"), 1e-7f);
  EXPECT_FLOAT_EQ(at("decay"), 0.005f);
}

}  // namespace
}  // namespace glint
