// glint doctor: the pre-launch checklist natively (the browser's is
// web/apps/doctor). Backends and why the automatic choice picked one, what the
// gl backend runs on, kernel coverage per backend, a precision test per backend
// (matMul / exp / sum against float64 host arithmetic) and a short speed test
// (the standard mlp, batch 64: training steps/s, one-sample predict latency).
//   glint doctor [--json] [--seconds S] [--backend NAME]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "commands.h"
#include "glint/backend.h"
#include "glint/engine.h"
#include "glint/json.h"
#include "glint/model.h"
#include "glint/ops.h"
#include "glint/standard_models.h"

namespace glint::cli {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Deterministic values in [lo, hi), rounded to float32 (what the backends see).
std::vector<float> values(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

struct ErrorStats {
  double maxAbs = 0;
  double maxRel = 0;  // |got - want| / max(1, |want|)
  void add(double got, double want) {
    double a = std::abs(got - want);
    if (!std::isfinite(got)) a = INFINITY;
    maxAbs = std::max(maxAbs, a);
    maxRel = std::max(maxRel, a / std::max(1.0, std::abs(want)));
  }
  void merge(const ErrorStats& o) {
    maxAbs = std::max(maxAbs, o.maxAbs);
    maxRel = std::max(maxRel, o.maxRel);
  }
  Json json() const { return Json{{"maxAbs", maxAbs}, {"maxRel", maxRel}}; }
};

/// Known values through matMul, exp and sum on the active backend, compared
/// with the same arithmetic in double on the host.
Json precisionTest() {
  const int m = 17, k = 33, n = 9;
  std::vector<float> a = values(m * k, 1, -1, 1), b = values(k * n, 2, -1, 1);
  std::vector<float> e = values(257, 3, -6, 4), s = values(1000, 4, 0, 1);
  ErrorStats mm, ex, su;
  tidy([&] {
    std::vector<float> got = matMul(tensor(a, {m, k}), tensor(b, {k, n})).data<float>();
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        double want = 0;
        for (int p = 0; p < k; ++p) want += double(a[i * k + p]) * double(b[p * n + j]);
        mm.add(got[i * n + j], want);
      }
    }
    got = exp(tensor(e, {static_cast<int64_t>(e.size())})).data<float>();
    for (size_t i = 0; i < e.size(); ++i) ex.add(got[i], std::exp(double(e[i])));
    double want = 0;
    for (float v : s) want += v;
    su.add(sum(tensor(s, {static_cast<int64_t>(s.size())})).item(), want);
  });
  ErrorStats all;
  all.merge(mm);
  all.merge(ex);
  all.merge(su);
  Json out = all.json();
  out["ops"] = Json{{"matMul", mm.json()}, {"exp", ex.json()}, {"sum", su.json()}};
  return out;
}

/// The standard mlp at batch 64 on random data: training steps/s for
/// trainSeconds, then one-sample predict latency (median) for predictSeconds.
Json speedTest(double trainSeconds, double predictSeconds) {
  setSeed(7);
  ModelPtr model = standardModel("mlp");
  const int batch = 64;
  std::vector<float> xs = values(batch * 784, 5, 0, 1);
  std::vector<float> ys(batch * 10, 0.0f);
  std::mt19937 rng(6);
  for (int i = 0; i < batch; ++i) ys[i * 10 + rng() % 10] = 1.0f;
  Tensor x = tensor(xs, {batch, 784}), y = tensor(ys, {batch, 10});
  for (int i = 0; i < 2; ++i) model->trainOnBatch({x}, {y});  // warm-up: shaders, pools
  int steps = 0;
  auto t0 = Clock::now();
  double loss = 0;
  do {
    loss = model->trainOnBatch({x}, {y}).at("loss");
    ++steps;
  } while (secondsSince(t0) < trainSeconds);
  double trainElapsed = secondsSince(t0);
  Tensor one = tensor(std::vector<float>(xs.begin(), xs.begin() + 784), {1, 784});
  model->predict(one).data<float>();  // warm-up
  std::vector<double> ms;
  t0 = Clock::now();
  do {
    auto p0 = Clock::now();
    model->predict(one).data<float>();
    ms.push_back(secondsSince(p0) * 1000);
  } while (secondsSince(t0) < predictSeconds || ms.size() < 3);
  std::sort(ms.begin(), ms.end());
  return Json{{"model", "mlp 784-128-10, batch 64, adam"},
              {"trainSteps", steps},
              {"trainSeconds", trainElapsed},
              {"stepsPerSecond", steps / trainElapsed},
              {"samplesPerSecond", steps * batch / trainElapsed},
              {"finalLoss", loss},
              {"predictRuns", ms.size()},
              {"predictMsMedian", ms[ms.size() / 2]},
              {"predictMsMin", ms.front()}};
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

void printText(const Json& r) {
  std::cout << "Glint doctor (native)\n\nBackends\n";
  for (const Json& b : r["backends"]) {
    std::cout << "  " << (b["available"].get<bool>() ? "[ok] " : "[--] ")
              << b["name"].get<std::string>() << " (priority " << b["priority"].get<int>() << ")"
              << (b["software"].get<bool>() ? " software renderer" : "") << ": "
              << b["reason"].get<std::string>() << "\n";
  }
  std::cout << "  active: " << r["active"].get<std::string>() << " (" << r["why"].get<std::string>()
            << ")\n\nKernel coverage (" << r["kernels"]["total"].get<int>() << " kernels)\n";
  for (const auto& [name, c] : r["kernels"]["perBackend"].items()) {
    std::cout << "  " << name << ": " << c["implemented"].get<int>() << " implemented";
    if (c["missing"].empty()) {
      std::cout << ", none missing\n";
    } else {
      std::cout << ", MISSING:";
      for (const Json& k : c["missing"]) std::cout << " " << k.get<std::string>();
      std::cout << "\n";
    }
  }
  std::cout
      << "\nPrecision (matMul 17x33x9, exp, sum of 1000 vs float64; rel = err / max(1, |want|))\n";
  for (const auto& [name, p] : r["precision"].items()) {
    if (p.contains("error")) {
      std::cout << "  " << name << ": FAILED: " << p["error"].get<std::string>() << "\n";
      continue;
    }
    std::cout << "  " << name << ": max abs " << fmt("%.2e", p["maxAbs"].get<double>())
              << ", max rel " << fmt("%.2e", p["maxRel"].get<double>()) << "  (matMul "
              << fmt("%.1e", p["ops"]["matMul"]["maxRel"].get<double>()) << ", exp "
              << fmt("%.1e", p["ops"]["exp"]["maxRel"].get<double>()) << ", sum "
              << fmt("%.1e", p["ops"]["sum"]["maxRel"].get<double>()) << ")"
              << (p["ok"].get<bool>() ? "" : "  TOO LARGE") << "\n";
  }
  std::cout << "\nSpeed (mlp 784-128-10, batch 64, random data)\n";
  for (const auto& [name, s] : r["speed"].items()) {
    if (s.contains("error")) {
      std::cout << "  " << name << ": FAILED: " << s["error"].get<std::string>() << "\n";
      continue;
    }
    std::cout << "  " << name << ": " << fmt("%.1f", s["stepsPerSecond"].get<double>())
              << " training steps/s (" << fmt("%.0f", s["samplesPerSecond"].get<double>())
              << " samples/s), predict 1 sample "
              << fmt(s["predictMsMedian"].get<double>() < 1 ? "%.3f" : "%.2f",
                     s["predictMsMedian"].get<double>())
              << " ms (median of " << s["predictRuns"].get<int>() << ")\n";
  }
  std::cout << "\n"
            << (r["ok"].get<bool>() ? "all checks passed" : "PROBLEMS FOUND (see above)") << "\n";
}

}  // namespace

int doctorCommand(const DoctorArgs& args) {
  Json r;
  r["platform"] = "native";
  std::string auto_ = getBackend();  // the automatic choice, before any setBackend
  BackendInfo info = backendInfo();
  r["active"] = auto_;
  r["why"] = info.why;
  r["backends"] = Json::array();
  std::vector<std::string> available;
  for (const BackendStatus& b : info.backends) {
    r["backends"].push_back(Json{{"name", b.name},
                                 {"priority", b.priority},
                                 {"available", b.available},
                                 {"reason", b.reason},
                                 {"software", b.software}});
    if (b.available && (args.backend.empty() || args.backend == b.name))
      available.push_back(b.name);
  }

  auto table = kernelTable();
  r["kernels"]["total"] = table.size();
  r["kernels"]["perBackend"] = Json::object();
  bool ok = true;
  for (const std::string& b : registeredBackends()) {
    Json missing = Json::array();
    int implemented = 0;
    for (const auto& [kernel, have] : table) {
      if (std::find(have.begin(), have.end(), b) != have.end()) ++implemented;
      else missing.push_back(kernel);
    }
    ok = ok && missing.empty();
    r["kernels"]["perBackend"][b] = Json{{"implemented", implemented}, {"missing", missing}};
  }

  r["precision"] = Json::object();
  r["speed"] = Json::object();
  for (const std::string& b : available) {
    try {
      setBackend(b);
      Json p = precisionTest();
      p["ok"] = p["maxRel"].get<double>() < 1e-4;
      ok = ok && p["ok"].get<bool>();
      r["precision"][b] = p;
    } catch (const std::exception& e) {
      r["precision"][b] = Json{{"error", e.what()}, {"ok", false}};
      ok = false;
    }
  }
  for (const std::string& b : available) {
    try {
      setBackend(b);
      // The scalar reference backend is the oracle, not a runtime: a short look suffices.
      double s = b == "reference" ? std::min(args.seconds, 1.0) : args.seconds;
      r["speed"][b] = speedTest(0.75 * s, 0.25 * s);
    } catch (const std::exception& e) {
      r["speed"][b] = Json{{"error", e.what()}};
      ok = false;
    }
  }
  if (!available.empty()) setBackend(auto_);
  r["ok"] = ok;
  if (args.json) std::cout << r.dump(2) << "\n";
  else printText(r);
  return ok ? 0 : 1;
}

}  // namespace glint::cli
