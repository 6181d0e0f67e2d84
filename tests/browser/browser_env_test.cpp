// Built only into glint_tests_web: prints what the browser gives Glint (one
// "[backend] ..." line per backend, read by tests/browser/run.mjs) and checks
// it against what the harness expects, passed as environment variables:
//   GLINT_EXPECT_GL=1            the gl backend must have started (WebGL2)
//   GLINT_EXPECT_RENDERER=text   and its description must name this renderer
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "glint/glint.h"

namespace glint {
namespace {

TEST(BrowserEnv, BackendsAsExpected) {
  BackendInfo info = backendInfo();
  const BackendStatus* gl = nullptr;
  for (const BackendStatus& s : info.backends) {
    std::printf("[backend] %s priority=%d available=%d software=%d: %s\n", s.name.c_str(),
                s.priority, s.available ? 1 : 0, s.software ? 1 : 0, s.reason.c_str());
    if (s.name == "gl") gl = &s;
  }
  std::fflush(stdout);
  const char* expectGl = std::getenv("GLINT_EXPECT_GL");
  if (!expectGl || std::string(expectGl) != "1") return;
  ASSERT_NE(gl, nullptr) << "gl is not registered";
  ASSERT_TRUE(gl->available) << "gl did not start: " << gl->reason;
  if (const char* renderer = std::getenv("GLINT_EXPECT_RENDERER")) {
    EXPECT_NE(gl->reason.find(renderer), std::string::npos) << gl->reason;
    EXPECT_TRUE(gl->software) << "a software renderer must be flagged: " << gl->reason;
  }
}

TEST(BrowserEnv, GlComputesOnThePage) {
  // Skipped in the runs without gl: the harness's `wasm` run (no WebGL: there
  // is no gl to compute on, and BackendsAsExpected checks that gl was refused)
  // and its `webgpu` run (GLINT_GL=0: the `gl` run has covered gl already).
  const char* expectGl = std::getenv("GLINT_EXPECT_GL");
  if (!expectGl || std::string(expectGl) != "1") GTEST_SKIP() << "gl not expected in this run";
  std::string saved = getBackend();
  setBackend("gl");
  // 1..6 as [2,3] times its transpose: hand-computed [[14, 32], [32, 77]].
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor p = matMul(a, transpose(a));
  EXPECT_EQ(p.backendName(), "gl");
  EXPECT_EQ(p.data<float>(), (std::vector<float>{14, 32, 32, 77}));
  setBackend(saved);
}

}  // namespace
}  // namespace glint
