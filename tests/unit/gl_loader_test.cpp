// The gl backend loads libEGL and libGLESv2 at run time (gl_loader.cpp): where
// they are missing gl is unavailable and says why, and cpu still runs. The
// loader answers once per process, so the missing-library case runs in a child
// process (this binary, with one disabled test enabled) and leaves this
// process's engine alone.
#include <gtest/gtest.h>

#if defined(GLINT_WITH_GL) && !defined(__EMSCRIPTEN__)  // WebGL2 needs no loader

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "glint/glint.h"
#include "op_harness.h"
#include "src/backends/gl/gl_loader.h"

extern char** environ;

namespace glint::testing {
namespace {

constexpr const char* kMissingEgl = "/nonexistent/glint-test/libEGL.so.1";
constexpr const char* kChildTest = "GlLoader.DISABLED_MissingEglLeavesGlUnavailable";

const BackendStatus* statusOf(const BackendInfo& info, const std::string& name) {
  for (const BackendStatus& s : info.backends)
    if (s.name == name) return &s;
  return nullptr;
}
// Not on a temporary: the pointer would dangle.
const BackendStatus* statusOf(BackendInfo&& info, const std::string& name) = delete;

// Runs only in the child started below, with GLINT_EGL_LIBRARY at a missing file.
TEST(GlLoader, DISABLED_MissingEglLeavesGlUnavailable) {
  const char* egl = std::getenv("GLINT_EGL_LIBRARY");
  ASSERT_TRUE(egl && std::strcmp(egl, kMissingEgl) == 0) << "run by GlLoader.MissingEglInAChild";
  BackendInfo info = backendInfo();
  const BackendStatus* gl = statusOf(info, "gl");
  ASSERT_NE(gl, nullptr) << "gl is not registered";
  EXPECT_FALSE(gl->available);
  EXPECT_NE(gl->reason.find(kMissingEgl), std::string::npos) << gl->reason;
  EXPECT_NE(gl->reason.find("GLINT_EGL_LIBRARY"), std::string::npos) << gl->reason;
  std::printf("gl reason: %s\n", gl->reason.c_str());
  auto names = availableBackends();
  EXPECT_EQ(std::find(names.begin(), names.end(), "gl"), names.end());
  expectError([] { setBackend("gl"); }, {"gl", kMissingEgl});
  // The engine runs on cpu.
  EXPECT_EQ(getBackend(), "cpu");
  const BackendInfo after = backendInfo();  // statusOf points into it
  const BackendStatus* cpu = statusOf(after, "cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_TRUE(cpu->available) << cpu->reason;
  Tensor y = matMul(tensor({1, 2, 3, 4}, {2, 2}), tensor({1, 0, 0, 1}, {2, 2}));
  EXPECT_EQ(add(y, tensor({1, 1, 1, 1}, {2, 2})).data<float>(), (std::vector<float>{2, 3, 4, 5}));
}

/// Runs kChildTest in a child process of this binary with `extraEnv`; returns
/// its exit status (-1 if it could not start) and its output in `output`.
int runChild(const std::vector<std::string>& extraEnv, std::string& output) {
  // The child's environment: ours without the variables that would change
  // what it runs (GLINT_GL=0, sharding, an XML report it would overwrite).
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string v = *e;
    if (v.rfind("GTEST_", 0) == 0 || v.rfind("GLINT_GL=", 0) == 0 ||
        v.rfind("GLINT_EGL_LIBRARY=", 0) == 0 || v.rfind("GLINT_GLES_LIBRARY=", 0) == 0)
      continue;
    env.push_back(v);
  }
  env.insert(env.end(), extraEnv.begin(), extraEnv.end());
  std::vector<char*> envp;
  for (std::string& v : env) envp.push_back(v.data());
  envp.push_back(nullptr);
  std::string filter = std::string("--gtest_filter=") + kChildTest;
  std::vector<std::string> args = {"glint_tests", filter, "--gtest_also_run_disabled_tests",
                                   "--gtest_color=no"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int fds[2];
  if (::pipe(fds) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    output = std::string("posix_spawn: ") + std::strerror(rc);
    return -1;
  }
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;)
    if (n > 0) output.append(buf, static_cast<size_t>(n));
    else if (errno != EINTR) break;
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(GlLoader, MissingEglInAChildLeavesGlUnavailableAndCpuRuns) {
  std::string output;
  int status = runChild({std::string("GLINT_EGL_LIBRARY=") + kMissingEgl}, output);
  EXPECT_EQ(status, 0) << output;
  // It ran the one test, and it passed (a filter matching nothing exits 0 too).
  EXPECT_NE(output.find("[  PASSED  ] 1 test."), std::string::npos) << output;
  EXPECT_NE(output.find(std::string("gl reason: cannot load ") + kMissingEgl), std::string::npos)
      << output;
}

// In the normal environment the libraries load and gl probes as before.
TEST(GlLoader, LoadsTheSystemLibraries) {
  if (std::getenv("GLINT_EGL_LIBRARY") || std::getenv("GLINT_GLES_LIBRARY"))
    // Skipped when the caller pointed the loader elsewhere: the system libraries are not what loads.
    GTEST_SKIP() << "GLINT_EGL_LIBRARY / GLINT_GLES_LIBRARY name other libraries";
  std::string why;
  ASSERT_TRUE(gl::loadLibraries(why)) << why;
  EXPECT_NE(glint::eglGetDisplay, nullptr);
  EXPECT_NE(glint::glTexStorage2D, nullptr);
  EXPECT_NE(glint::glClientWaitSync, nullptr);
  const BackendInfo info = backendInfo();  // statusOf points into it
  const BackendStatus* gl = statusOf(info, "gl");
  if (!gl) GTEST_SKIP() << "GLINT_GL=0 leaves gl out";  // skipped: gl not registered in this run
  // Natively gl must start (Mesa llvmpipe at least), as gl_backend_test asserts.
  EXPECT_TRUE(gl->available) << gl->reason;
}

}  // namespace
}  // namespace glint::testing

#endif  // GLINT_WITH_GL && !__EMSCRIPTEN__
