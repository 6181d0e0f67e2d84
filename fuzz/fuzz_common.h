#pragma once
// Shared by the libFuzzer targets: a quiet single-threaded cpu engine, and the
// one rule every target checks: hostile input may only end in glint::Error.
// Anything else (another exception, a leaked tensor) aborts, so libFuzzer
// saves the input as a crash.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "glint/engine.h"
#include "glint/error.h"
#include "glint/io.h"

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
    abortWith("tensors leaked",
              std::to_string(before) + " live before, " + std::to_string(after) + " after");
}

/// Watches what a loader asks its ShardReader for. Properties, checked here
/// independently of checkShardPath: every path stays below model.json's
/// folder by its letters, and no request may exceed what the manifest
/// justifies (the weight limit, then the bytes its specs describe minus what
/// earlier shards returned). Violations trap, so libFuzzer keeps the input.
struct ReaderWatch {
  explicit ReaderWatch(int64_t maxWeightBytes) : limit(maxWeightBytes) {}
  int64_t limit;  // LoadOptions.maxWeightBytes
  int64_t returned = 0;
  std::vector<std::pair<int64_t, int64_t>> requests;  // (maxBytes, returned before it)

  static bool confined(const std::string& path) {
    if (path.empty() || path[0] == '/') return false;
    size_t start = 0;
    for (;;) {
      size_t slash = path.find('/', start);
      std::string part =
          path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
      if (part.empty() || part == "." || part == ".." || part.find('\\') != std::string::npos ||
          part.find('\0') != std::string::npos)
        return false;
      if (slash == std::string::npos) return true;
      start = slash + 1;
    }
  }
  /// Call first thing in the reader.
  void request(const std::string& path, int64_t maxBytes) {
    if (!confined(path)) {
      std::fprintf(stderr, "glint fuzz: reader asked for '%s', outside the folder\n", path.c_str());
      __builtin_trap();
    }
    if (maxBytes < 0 || maxBytes > limit - returned) {
      std::fprintf(stderr, "glint fuzz: reader asked for %lld bytes with %lld of the limit left\n",
                   static_cast<long long>(maxBytes), static_cast<long long>(limit - returned));
      __builtin_trap();
    }
    requests.emplace_back(maxBytes, returned);
  }
  /// Call with what the reader returns.
  void gave(size_t bytes) { returned += static_cast<int64_t>(bytes); }
  /// After a successful load: no request asked for more than the specs describe.
  void checkAgainst(const io::ModelArtifacts& a) const {
    int64_t described = 0;
    for (const io::WeightSpec& s : a.weightSpecs) described += io::weightByteLength(s);
    for (const auto& [maxBytes, before] : requests)
      if (maxBytes > described - before) {
        std::fprintf(stderr,
                     "glint fuzz: reader asked for %lld bytes; the manifest justifies %lld\n",
                     static_cast<long long>(maxBytes), static_cast<long long>(described - before));
        __builtin_trap();
      }
  }
};

}  // namespace glint::fuzz
