#pragma once
// Shared by the libFuzzer targets: a quiet single-threaded cpu engine, and the
// one rule every target checks: hostile input may only end in glint::Error.
// Anything else (another exception, a leaked tensor) aborts, so libFuzzer
// saves the input as a crash.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "glint/engine.h"
#include "glint/error.h"

namespace glint::fuzz {

inline void setUp() {
  ::setenv("GLINT_GL", "0", 1);  // no EGL probe: the fuzzers test parsers, not drivers
  ::setenv("GLINT_NUM_THREADS", "1", 1);
  setBackend("cpu");
}

[[noreturn]] inline void abortWith(const char* what, const std::string& detail) {
  std::fprintf(stderr, "glint fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

/// Runs fn; glint::Error is the expected answer to bad input. Afterwards every
/// tensor fn made must be gone.
template <class Fn>
void expectOnlyGlintErrors(Fn&& fn) {
  int64_t before = memory().numTensors;
  try {
    fn();
  } catch (const Error&) {
  } catch (const std::exception& e) {
    abortWith("an exception other than glint::Error escaped", e.what());
  } catch (...) {
    abortWith("a non-std exception escaped", "?");
  }
  int64_t after = memory().numTensors;
  if (after != before)
    abortWith("tensors leaked", std::to_string(before) + " live before, " + std::to_string(after) + " after");
}

}  // namespace glint::fuzz
