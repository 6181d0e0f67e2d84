// profile(): each kernel's record against what the test computes itself
// (output shapes and bytes, the engine's counters before and after).
#include <gtest/gtest.h>

#include "glint/glint.h"
#include "tests/unit/op_harness.h"

namespace glint::testing {
namespace {

TEST(Profile, RecordsEachKernelWithItsShapesAndBytes) {
  onEveryBackend([] {
    Tensor a = tensor(std::vector<float>(6, 0.5f), {2, 3});
    Tensor b = tensor(std::vector<float>(12, -1.0f), {3, 4});
    MemoryInfo before = memory();
    Tensor m, y;  // both kept: a C++ temporary would be freed inside
    ProfileInfo p = profile([&] {
      m = matMul(a, b);
      y = relu(m);
    });
    MemoryInfo after = memory();
    ASSERT_EQ(p.kernels.size(), 2u);
    EXPECT_EQ(p.kernels[0].name, "BatchMatMul");
    EXPECT_EQ(p.kernels[0].inputShapes, (std::vector<Shape>{{2, 3}, {3, 4}}));
    EXPECT_EQ(p.kernels[0].outputShapes, (std::vector<Shape>{{2, 4}}));
    EXPECT_EQ(p.kernels[1].name, "Relu");
    EXPECT_EQ(p.kernels[1].outputShapes, (std::vector<Shape>{{2, 4}}));
    for (const KernelRecord& k : p.kernels) {
      EXPECT_EQ(k.backend, getBackend());
      EXPECT_EQ(k.bytesAdded, 2 * 4 * 4) << k.name;  // one float [2, 4] each
      EXPECT_EQ(k.tensorsAdded, 1) << k.name;
      EXPECT_GE(k.kernelTimeMs, 0.0);
    }
    EXPECT_EQ(p.kernels[1].totalBytesSnapshot, after.numBytes);
    EXPECT_EQ(p.kernels[1].totalTensorsSnapshot, after.numTensors);
    EXPECT_EQ(p.newBytes, after.numBytes - before.numBytes);
    EXPECT_EQ(p.newTensors, after.numTensors - before.numTensors);
    EXPECT_EQ(p.newTensors, 2);
    EXPECT_GE(p.peakBytes, after.numBytes);
    EXPECT_EQ(y.shape(), (Shape{2, 4}));
  });
}

TEST(Profile, PeakCountsWhatWasFreedBeforeTheEnd) {
  BackendScope scope("reference");
  Tensor x = tensor(std::vector<float>(1000, 1.0f), {1000});
  int64_t start = memory().numBytes;
  ProfileInfo p = profile([&] {
    Tensor big = tile(x, {64});  // 256,000 bytes, freed at once
    big.dispose();
  });
  EXPECT_EQ(p.newBytes, 0);
  EXPECT_EQ(p.newTensors, 0);
  EXPECT_GE(p.peakBytes, start + 64 * 1000 * 4);
}

TEST(Profile, NestsAndEndsWhenTheFunctionThrows) {
  BackendScope scope("reference");
  Tensor x = tensor({1.0f, 2.0f}, {2});
  ProfileInfo inner;
  ProfileInfo outer = profile([&] {
    Tensor a = exp(x);
    inner = profile([&] { Tensor b = neg(a); });
  });
  ASSERT_EQ(inner.kernels.size(), 1u);
  EXPECT_EQ(inner.kernels[0].name, "Neg");
  ASSERT_EQ(outer.kernels.size(), 2u);  // the outer one sees the inner one's kernels
  EXPECT_EQ(outer.kernels[0].name, "Exp");
  EXPECT_THROW(profile([&] { matMul(x, x); }), Error);
  // The failed profile was closed: a new one records only its own kernels.
  ProfileInfo after = profile([&] { Tensor c = abs(x); });
  ASSERT_EQ(after.kernels.size(), 1u);
  EXPECT_EQ(after.kernels[0].name, "Abs");
  expectError([] { endProfile(); }, {"endProfile", "without a matching startProfile"});
}

}  // namespace
}  // namespace glint::testing
