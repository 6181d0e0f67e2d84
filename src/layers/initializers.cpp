// Weight initializers (TF.js / Keras semantics and configs).
#include "glint/initializers.h"

#include <cctype>
#include <cmath>
#include <functional>
#include <map>

#include "glint/error.h"
#include "glint/json.h"
#include "glint/ops.h"
#include "src/core/name_table.h"

namespace glint {

Initializer::~Initializer() = default;

namespace initializers {

namespace {

const char* kOp = "initializers";

Json seedJson(const Seed& seed) { return seed ? Json(*seed) : Json(nullptr); }

void checkShape(const std::string& cls, const Shape& shape, DType dtype) {
  for (int64_t d : shape)
    check(d >= 0, kOp, cls, ": shape ", shapeToString(shape), " has a negative dimension");
  check(dtype != DType::boolean, kOp, cls, ": dtype bool is not supported (float32 or int32)");
}

Tensor asDType(const Tensor& t, DType dtype) {
  return dtype == DType::float32 ? t : cast(t, dtype);
}

/// Initializers whose values are a function of (shape): the class, its
/// config and how to draw float32 values.
class Simple : public Initializer {
 public:
  using Draw = std::function<Tensor(const Shape&)>;
  Simple(std::string cls, Json config, Draw draw)
      : cls_(std::move(cls)), config_(std::move(config)), draw_(std::move(draw)) {}
  Tensor init(const Shape& shape, DType dtype) const override {
    checkShape(cls_, shape, dtype);
    return asDType(draw_(shape), dtype);
  }
  std::string className() const override { return cls_; }
  Json getConfig() const override { return config_; }

 private:
  std::string cls_;
  Json config_;
  Draw draw_;
};

std::string normalizeMode(const std::string& mode) {
  std::string k = nameKey(mode);
  if (k == "fanin") return "fan_in";
  if (k == "fanout") return "fan_out";
  if (k == "fanavg") return "fan_avg";
  fail(kOp, "VarianceScaling: mode must be fan_in, fan_out or fan_avg, got '", mode, "'");
}

std::string normalizeDistribution(const std::string& distribution) {
  std::string k = nameKey(distribution);
  if (k == "normal") return "normal";
  if (k == "uniform") return "uniform";
  if (k == "truncatednormal") return "truncated_normal";
  if (k == "untruncatednormal") return "untruncated_normal";
  fail(kOp, "VarianceScaling: distribution must be normal, uniform, truncated_normal or ",
       "untruncated_normal, got '", distribution, "'");
}

/// Orthonormal columns of a random [m, n] (m >= n) matrix by modified
/// Gram-Schmidt in double; R's diagonal comes out positive, as after
/// TF.js's sign correction.
std::vector<double> orthonormalColumns(const std::vector<float>& a, int64_t m, int64_t n) {
  std::vector<double> q(a.begin(), a.end());
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < j; ++i) {
      double r = 0;
      for (int64_t k = 0; k < m; ++k) r += q[k * n + i] * q[k * n + j];
      for (int64_t k = 0; k < m; ++k) q[k * n + j] -= r * q[k * n + i];
    }
    double norm = 0;
    for (int64_t k = 0; k < m; ++k) norm += q[k * n + j] * q[k * n + j];
    norm = std::sqrt(norm);
    check(norm > 1e-12, kOp, "Orthogonal: degenerate random matrix; try another seed");
    for (int64_t k = 0; k < m; ++k) q[k * n + j] /= norm;
  }
  return q;
}

/// A JSON number under a snake_case or camelCase key, else `fallback`.
double number(const Json& config, const std::string& snake, const std::string& camel,
              double fallback, const std::string& cls) {
  for (const std::string& k : {snake, camel}) {
    if (!config.contains(k) || config[k].is_null()) continue;
    check(config[k].is_number(), kOp, cls, ": config '", k, "' must be a number, got ",
          config[k].dump());
    return config[k].get<double>();
  }
  return fallback;
}

Seed seedOf(const Json& config, const std::string& cls) {
  if (!config.contains("seed") || config["seed"].is_null()) return std::nullopt;
  check(config["seed"].is_number(), kOp, cls, ": config 'seed' must be a number or null, got ",
        config["seed"].dump());
  return static_cast<uint64_t>(config["seed"].get<double>());
}

std::string text(const Json& config, const std::string& k, const std::string& fallback,
                 const std::string& cls) {
  if (!config.contains(k) || config[k].is_null()) return fallback;
  check(config[k].is_string(), kOp, cls, ": config '", k, "' must be a string, got ",
        config[k].dump());
  return config[k].get<std::string>();
}

const std::vector<std::string>& knownClasses() {
  static const std::vector<std::string> k = {"Zeros",           "Ones",          "Constant",
                                             "RandomNormal",    "RandomUniform", "TruncatedNormal",
                                             "VarianceScaling", "Orthogonal",    "Identity",
                                             "GlorotUniform",   "GlorotNormal",  "HeUniform",
                                             "HeNormal",        "LeCunUniform",  "LeCunNormal"};
  return k;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

std::pair<double, double> computeFans(const Shape& shape) {
  size_t r = shape.size();
  if (r == 2) return {static_cast<double>(shape[0]), static_cast<double>(shape[1])};
  if (r >= 3 && r <= 5) {
    double field = 1;
    for (size_t i = 0; i + 2 < r; ++i) field *= static_cast<double>(shape[i]);
    return {field * static_cast<double>(shape[r - 2]), field * static_cast<double>(shape[r - 1])};
  }
  double root = std::sqrt(static_cast<double>(shapeSize(shape)));
  return {root, root};
}

std::shared_ptr<Initializer> zeros() {
  class Z : public Initializer {
   public:
    Tensor init(const Shape& s, DType d) const override {
      checkShape("Zeros", s, d);
      return glint::zeros(s, d);
    }
    std::string className() const override { return "Zeros"; }
    Json getConfig() const override { return Json::object(); }
  };
  return std::make_shared<Z>();
}

std::shared_ptr<Initializer> ones() {
  class O : public Initializer {
   public:
    Tensor init(const Shape& s, DType d) const override {
      checkShape("Ones", s, d);
      return glint::ones(s, d);
    }
    std::string className() const override { return "Ones"; }
    Json getConfig() const override { return Json::object(); }
  };
  return std::make_shared<O>();
}

std::shared_ptr<Initializer> constant(double value) {
  check(std::isfinite(value), kOp, "Constant: value must be finite, got ", value);
  class C : public Initializer {
   public:
    explicit C(double v) : v_(v) {}
    Tensor init(const Shape& s, DType d) const override {
      checkShape("Constant", s, d);
      return fill(s, static_cast<float>(v_), d);
    }
    std::string className() const override { return "Constant"; }
    Json getConfig() const override { return Json{{"value", v_}}; }

   private:
    double v_;
  };
  return std::make_shared<C>(value);
}

std::shared_ptr<Initializer> randomNormal(double mean, double stddev, Seed seed) {
  check(stddev >= 0 && std::isfinite(stddev) && std::isfinite(mean), kOp,
        "RandomNormal: needs a finite mean and stddev >= 0, got mean ", mean, ", stddev ", stddev);
  return std::make_shared<Simple>(
      "RandomNormal", Json{{"mean", mean}, {"stddev", stddev}, {"seed", seedJson(seed)}},
      [=](const Shape& s) { return glint::randomNormal(s, float(mean), float(stddev), seed); });
}

std::shared_ptr<Initializer> randomUniform(double minval, double maxval, Seed seed) {
  check(std::isfinite(minval) && std::isfinite(maxval) && minval <= maxval, kOp,
        "RandomUniform: needs finite minval <= maxval, got ", minval, ", ", maxval);
  return std::make_shared<Simple>(
      "RandomUniform", Json{{"minval", minval}, {"maxval", maxval}, {"seed", seedJson(seed)}},
      [=](const Shape& s) { return glint::randomUniform(s, float(minval), float(maxval), seed); });
}

std::shared_ptr<Initializer> truncatedNormal(double mean, double stddev, Seed seed) {
  check(stddev >= 0 && std::isfinite(stddev) && std::isfinite(mean), kOp,
        "TruncatedNormal: needs a finite mean and stddev >= 0, got mean ", mean, ", stddev ",
        stddev);
  return std::make_shared<Simple>(
      "TruncatedNormal", Json{{"mean", mean}, {"stddev", stddev}, {"seed", seedJson(seed)}},
      [=](const Shape& s) { return glint::truncatedNormal(s, float(mean), float(stddev), seed); });
}

std::shared_ptr<Initializer> varianceScaling(double scale, const std::string& modeName,
                                             const std::string& distributionName, Seed seed) {
  check(scale > 0 && std::isfinite(scale), kOp,
        "VarianceScaling: scale must be positive and finite, got ", scale);
  std::string mode = normalizeMode(modeName);
  std::string dist = normalizeDistribution(distributionName);
  Json config{{"scale", scale}, {"mode", mode}, {"distribution", dist}, {"seed", seedJson(seed)}};
  return std::make_shared<Simple>("VarianceScaling", config, [=](const Shape& s) {
    auto [fanIn, fanOut] = computeFans(s);
    double fan = mode == "fan_in" ? fanIn : mode == "fan_out" ? fanOut : (fanIn + fanOut) / 2;
    double var = scale / std::max(1.0, fan);
    if (dist == "uniform") {
      float limit = static_cast<float>(std::sqrt(3 * var));
      return glint::randomUniform(s, -limit, limit, seed);
    }
    if (dist == "untruncated_normal")
      return glint::randomNormal(s, 0, static_cast<float>(std::sqrt(var)), seed);
    // TF.js's "normal" is a truncated normal without Keras's stddev correction.
    double stddev = std::sqrt(var) / (dist == "truncated_normal" ? 0.87962566103423978 : 1.0);
    return glint::truncatedNormal(s, 0, static_cast<float>(stddev), seed);
  });
}

std::shared_ptr<Initializer> glorotUniform(Seed seed) {
  return varianceScaling(1.0, "fan_avg", "uniform", seed);
}
std::shared_ptr<Initializer> glorotNormal(Seed seed) {
  return varianceScaling(1.0, "fan_avg", "normal", seed);
}
std::shared_ptr<Initializer> heUniform(Seed seed) {
  return varianceScaling(2.0, "fan_in", "uniform", seed);
}
std::shared_ptr<Initializer> heNormal(Seed seed) {
  return varianceScaling(2.0, "fan_in", "normal", seed);
}
std::shared_ptr<Initializer> lecunUniform(Seed seed) {
  return varianceScaling(1.0, "fan_in", "uniform", seed);
}
std::shared_ptr<Initializer> lecunNormal(Seed seed) {
  return varianceScaling(1.0, "fan_in", "normal", seed);
}

std::shared_ptr<Initializer> orthogonal(double gain, Seed seed) {
  check(std::isfinite(gain), kOp, "Orthogonal: gain must be finite, got ", gain);
  return std::make_shared<Simple>(
      "Orthogonal", Json{{"gain", gain}, {"seed", seedJson(seed)}}, [=](const Shape& s) {
        check(s.size() >= 2, kOp, "Orthogonal: shape must have rank >= 2, got ", shapeToString(s));
        if (shapeSize(s) == 0) return glint::zeros(s);
        int64_t cols = s.back();
        int64_t rows = shapeSize(s) / cols;
        int64_t m = std::max(rows, cols), n = std::min(rows, cols);
        std::vector<float> a = glint::randomNormal({m, n}, 0, 1, seed).data<float>();
        std::vector<double> q = orthonormalColumns(a, m, n);
        std::vector<float> out(static_cast<size_t>(rows * cols));
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c) {
            double v = rows >= cols ? q[r * n + c] : q[c * n + r];
            out[r * cols + c] = static_cast<float>(gain * v);
          }
        return tensor(out, s);
      });
}

std::shared_ptr<Initializer> identity(double gain) {
  check(std::isfinite(gain), kOp, "Identity: gain must be finite, got ", gain);
  return std::make_shared<Simple>("Identity", Json{{"gain", gain}}, [=](const Shape& s) {
    check(s.size() == 2 && s[0] == s[1], kOp,
          "Identity: only square matrices can be initialized, got shape ", shapeToString(s));
    std::vector<float> v(static_cast<size_t>(s[0] * s[0]), 0.0f);
    for (int64_t i = 0; i < s[0]; ++i) v[i * s[0] + i] = static_cast<float>(gain);
    return tensor(v, s);
  });
}

Json serialize(const Initializer& initializer) {
  return Json{{"class_name", initializer.className()}, {"config", initializer.getConfig()}};
}

std::shared_ptr<Initializer> fromConfig(const Config& config) {
  const Json& j = config;
  check(j.is_object(), kOp, "fromConfig expects {\"class_name\": ..., \"config\": {...}}, got ",
        j.dump());
  std::string cls;
  for (const char* k : {"class_name", "className"})
    if (j.contains(k) && j[k].is_string()) cls = j[k].get<std::string>();
  check(!cls.empty(), kOp, "fromConfig: missing string 'class_name' in ", j.dump());
  Json c = j.contains("config") && j["config"].is_object() ? j["config"] : Json::object();
  std::string k = nameKey(cls);
  Seed seed = seedOf(c, cls);
  if (k == "zeros") return zeros();
  if (k == "ones") return ones();
  if (k == "constant") {
    check(c.contains("value"), kOp, "Constant: config needs 'value', got ", c.dump());
    return constant(number(c, "value", "value", 0, cls));
  }
  if (k == "randomnormal")
    return randomNormal(number(c, "mean", "mean", 0, cls), number(c, "stddev", "stddev", 0.05, cls),
                        seed);
  if (k == "randomuniform")
    return randomUniform(number(c, "minval", "minval", -0.05, cls),
                         number(c, "maxval", "maxval", 0.05, cls), seed);
  if (k == "truncatednormal")
    return truncatedNormal(number(c, "mean", "mean", 0, cls),
                           number(c, "stddev", "stddev", 0.05, cls), seed);
  if (k == "variancescaling")
    return varianceScaling(number(c, "scale", "scale", 1.0, cls), text(c, "mode", "fan_in", cls),
                           text(c, "distribution", "normal", cls), seed);
  // Keras 3 names these two classes OrthogonalInitializer and IdentityInitializer.
  if (k == "orthogonal" || k == "orthogonalinitializer")
    return orthogonal(number(c, "gain", "gain", 1.0, cls), seed);
  if (k == "identity" || k == "identityinitializer")
    return identity(number(c, "gain", "gain", 1.0, cls));
  if (k == "glorotuniform") return glorotUniform(seed);
  if (k == "glorotnormal") return glorotNormal(seed);
  if (k == "heuniform") return heUniform(seed);
  if (k == "henormal") return heNormal(seed);
  if (k == "lecununiform") return lecunUniform(seed);
  if (k == "lecunnormal") return lecunNormal(seed);
  fail(kOp, "unknown initializer '", cls, "'; known: ", joined(knownClasses()));
}

std::shared_ptr<Initializer> get(const std::string& name) {
  return fromConfig(Json{{"class_name", name}, {"config", Json::object()}});
}

}  // namespace initializers
}  // namespace glint
