// The measured backend choice: time the caller's step (a model's training
// step) on each candidate backend and keep the fastest. Priorities guess
// (a GPU backend first); on a given device and model the guess can be wrong
// both ways: on an H200 host the gl backend trained the standard mlp at a
// third of the 16-core cpu backend's speed, while a phone's GPU may beat its
// CPU several times over.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "glint/engine.h"
#include "glint/error.h"
#include "src/core/engine_state.h"

namespace glint {

bool backendChosenAutomatically() {
  Engine& e = Engine::get();
  std::lock_guard<std::recursive_mutex> lock(e.backendMutex);
  return !e.chosenOnPurpose;
}

std::vector<std::string> calibrationCandidates() {
  Engine& e = Engine::get();
  std::lock_guard<std::recursive_mutex> lock(e.backendMutex);
  std::vector<std::string> names;
  for (auto& entry : e.backends) {
    Backend* b = e.backend(entry.name);
    // reference is the tests' oracle (plain loops), never the fast choice.
    if (b && entry.name != "reference" && !b->isSoftware()) names.push_back(entry.name);
  }
  return names;
}

namespace {

std::string describe(const Calibration& c) {
  std::string s = "calibrated: fastest for " + c.what + " (";
  for (size_t i = 0; i < c.timings.size(); ++i) {
    const BackendTiming& t = c.timings[i];
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.3g", t.msPerStep);
    s += (i ? ", " : "") + t.backend + " " +
         (t.msPerStep >= 0 ? std::string(ms) + " ms/step" : "failed");
  }
  return s + ")";
}

}  // namespace

void recordCalibration(const Calibration& c) {
  Engine& e = Engine::get();
  std::lock_guard<std::recursive_mutex> lock(e.backendMutex);
  Backend* b = e.entry(c.chosen) ? e.backend(c.chosen) : nullptr;
  check(b != nullptr, "calibrateBackends", "the chosen backend '", c.chosen, "' is not available");
  e.calibration = c;
  e.calibrated = true;
  e.chosenOnPurpose = true;
  e.activeWhy = describe(c);
  e.activeBackend.store(b, std::memory_order_release);
}

Calibration calibrateBackends(const std::function<void()>& step, const std::string& what,
                              const CalibrateOptions& options) {
  const std::string op = "calibrateBackends";
  check(options.warmup >= 0 && options.runs >= 1 && options.budgetSeconds >= 0, op,
        "warmup must be >= 0, runs >= 1 and budgetSeconds >= 0, got ", options.warmup, ", ",
        options.runs, ", ", options.budgetSeconds);
  std::vector<std::string> names =
      options.candidates.empty() ? calibrationCandidates() : options.candidates;
  check(!names.empty(), op,
        "no backend to time (every available one is reference or a software renderer)");
  Engine& e = Engine::get();
  const std::string before = getBackend();
  const std::string whyBefore = e.activeWhy;
  const bool onPurposeBefore = e.chosenOnPurpose;
  Calibration c;
  c.what = what;
  double best = -1;
  for (const std::string& name : names) {
    BackendTiming t;
    t.backend = name;
    try {
      setBackend(name);
      Backend& b = e.active();
      for (int i = 0; i < options.warmup; ++i) {
        step();
        b.finish();
      }
      double total = 0;
      while (t.runs < options.runs && (t.runs == 0 || total < options.budgetSeconds)) {
        auto t0 = std::chrono::steady_clock::now();
        step();
        b.finish();
        total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        ++t.runs;
      }
      t.msPerStep = total * 1e3 / t.runs;
      if (best < 0 || t.msPerStep < best) {
        best = t.msPerStep;
        c.chosen = name;
      }
    } catch (const std::exception& ex) {
      t.error = ex.what();
      t.runs = 0;
    }
    c.timings.push_back(t);
  }
  if (c.chosen.empty()) {
    // Nothing ran: leave the choice as it was.
    std::lock_guard<std::recursive_mutex> lock(e.backendMutex);
    setBackend(before);
    e.activeWhy = whyBefore;
    e.chosenOnPurpose = onPurposeBefore;
    std::string errors;
    for (const BackendTiming& t : c.timings) errors += "; " + t.backend + ": " + t.error;
    fail(op, "the step failed on every backend", errors);
  }
  recordCalibration(c);
  return c;
}

}  // namespace glint
