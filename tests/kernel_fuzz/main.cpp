// glint_kernel_fuzz: differential fuzzing of the kernels on every backend
// against reference (docs/TESTING.md).
//
//   glint_kernel_fuzz [--seconds S] [--cases N] [--seed X] [--generator NAME]
//                     [--backends a,b] [--regressions FILE] [--replay NAME:K1,K2,...]
//                     [--emit FILE]
//
// Replays the regression file first (every case a fuzz run once shrank),
// then draws random calls until the time or case budget is spent, round-robin
// over the generators; prints cases per generator and backend, the kernels
// and tags reached, the registry's kernels no generator reached, and each
// failure shrunk to its smallest knobs with the line that replays it.
// Exit status 1 when any call failed.
//
// --emit FILE draws the same calls (seed, cases, generator) but runs them on
// reference only and writes each valid one with reference's results as a
// JSON line (emit.h), for tests/kernel_fuzz/check_tfjs.mjs and check_torch.py.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "glint/backend.h"
#include "tests/kernel_fuzz/differential.h"
#include "tests/kernel_fuzz/emit.h"

using namespace glint;
using namespace glint::kfuzz;

namespace {

struct Tally {
  int64_t cases = 0, invalid = 0, failed = 0;
  std::map<std::string, int64_t> tags;
};

std::vector<std::string> splitList(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

int failures = 0;

void report(const Generator& g, const Knobs& knobs, const Call& call, Outcome o,
            const std::vector<std::string>& backends, bool doShrink) {
  Knobs small = doShrink ? shrink(g, knobs, backends, o) : knobs;
  std::optional<Call> smallCall = g.build(small);
  std::printf("FAIL %s on %s: %s\n  call: %s\n  replay: --replay %s:%s\n", g.name.c_str(),
              o.backend.c_str(), o.detail.c_str(),
              (smallCall ? smallCall->describe : call.describe).c_str(), g.name.c_str(),
              knobsText(small).c_str());
  ++failures;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 10;
  int64_t maxCases = -1;
  uint64_t seed =
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  std::string only, regressions, replay, emit;
  std::vector<std::string> backends = availableBackends();
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--seconds") seconds = std::stod(value());
    else if (a == "--cases") maxCases = std::stoll(value());
    else if (a == "--seed") seed = std::stoull(value());
    else if (a == "--generator") only = value();
    else if (a == "--backends") backends = splitList(value(), ',');
    else if (a == "--regressions") regressions = value();
    else if (a == "--replay") replay = value();
    else if (a == "--emit") emit = value();
    else {
      std::fprintf(stderr, "unknown argument %s (see the comment at the top of main.cpp)\n",
                   a.c_str());
      return 2;
    }
  }
  std::string list;
  for (const auto& b : backends) list += (list.empty() ? "" : ",") + b;
  std::printf("kernel fuzz: seed %llu, backends %s\n", static_cast<unsigned long long>(seed),
              list.c_str());

  std::map<std::string, Tally> tally;  // per generator
  std::set<std::string> reached;
  std::function<void(const Generator&, const Knobs&, bool)> runOne =
      [&](const Generator& g, const Knobs& k, bool doShrink) {
        std::optional<Call> call = g.build(k);
        Tally& t = tally[g.name];
        if (!call) {
          ++t.invalid;
          return;
        }
        Outcome o = runCall(*call, backends);
        if (o.kind == Outcome::invalid) {
          ++t.invalid;
          return;
        }
        ++t.cases;
        for (const std::string& tag : call->tags) ++t.tags[tag];
        reached.insert(o.kernels.begin(), o.kernels.end());
        if (o.kind == Outcome::fail) {
          ++t.failed;
          report(g, k, *call, o, backends, doShrink);
        }
      };

  if (!replay.empty()) {
    const Generator* g;
    Knobs k;
    if (!parseReplay(replay, g, k)) {
      std::fprintf(stderr, "--replay wants GENERATOR:K1,K2,... with a known generator\n");
      return 2;
    }
    if (std::optional<Call> call = g->build(k)) {
      std::printf("call: %s\n", call->describe.c_str());
      for (size_t i = 0; i < call->inputs.size(); ++i) {
        std::printf("input %zu %s:", i, shapeText(call->inputs[i].shape).c_str());
        for (float v : call->inputs[i].values) std::printf(" %.9g", v);
        std::printf("\n");
      }
    }
    runOne(*g, k, false);
    std::printf("%s\n", failures ? "replay: FAILED" : "replay: passed");
    return failures ? 1 : 0;
  }
  if (!regressions.empty()) {
    std::ifstream in(regressions);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", regressions.c_str());
      return 2;
    }
    int n = 0;
    for (std::string line; std::getline(in, line);) {
      line = line.substr(0, line.find('#'));
      while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
      if (line.empty()) continue;
      const Generator* g;
      Knobs k;
      if (!parseReplay(line, g, k)) {
        std::fprintf(stderr, "%s: bad line '%s'\n", regressions.c_str(), line.c_str());
        return 2;
      }
      runOne(*g, k, false);
      ++n;
    }
    std::printf("regressions: %d replayed, %d failed\n", n, failures);
  }

  std::vector<const Generator*> gens;
  for (const Generator& g : generators())
    if (only.empty() || g.name == only) gens.push_back(&g);
  if (gens.empty()) {
    std::fprintf(stderr, "no generator named '%s'\n", only.c_str());
    return 2;
  }
  CaseStream stream(seed, gens);
  std::ofstream emitted;
  if (!emit.empty()) {
    emitted.open(emit);
    if (!emitted) {
      std::fprintf(stderr, "cannot write %s\n", emit.c_str());
      return 2;
    }
    runOne = [&](const Generator& g, const Knobs& k, bool) {
      std::optional<Call> call = g.build(k);
      std::optional<Evaluation> want = call ? evaluateReference(*call) : std::nullopt;
      Tally& t = tally[g.name];
      if (!want) {
        ++t.invalid;
        return;
      }
      ++t.cases;
      emitCall(emitted, g, k, *call, *want);
    };
  }
  auto start = std::chrono::steady_clock::now();
  int64_t drawn = 0;
  while (maxCases < 0
             ? std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
                   seconds
             : drawn < maxCases) {
    Knobs k;
    const Generator& g = stream.next(k);
    runOne(g, k, true);
    ++drawn;
  }

  if (!emit.empty()) {
    int64_t n = 0;
    for (const auto& [name, t] : tally) n += t.cases;
    std::printf("emitted %lld calls (reference only) to %s\n", static_cast<long long>(n),
                emit.c_str());
    return emitted.good() ? 0 : 1;
  }
  std::printf("\n%-8s %8s %8s %7s  per backend: %s\n", "family", "cases", "invalid", "failed",
              list.c_str());
  for (const auto& [name, t] : tally) {
    std::printf("%-8s %8lld %8lld %7lld  tags:", name.c_str(), static_cast<long long>(t.cases),
                static_cast<long long>(t.invalid), static_cast<long long>(t.failed));
    for (const auto& [tag, n] : t.tags)
      std::printf(" %s=%lld", tag.c_str(), static_cast<long long>(n));
    std::printf("\n");
  }
  std::string kernels, missing;
  for (const auto& [kernel, on] : kernelTable())
    (reached.count(kernel) ? kernels : missing) += (kernel + " ");
  std::printf("kernels reached (%zu): %s\nkernels no generator reached yet: %s\n", reached.size(),
              kernels.c_str(), missing.c_str());
  std::printf("%s\n", failures ? "kernel fuzz: FAILED" : "kernel fuzz: passed");
  return failures ? 1 : 0;
}
