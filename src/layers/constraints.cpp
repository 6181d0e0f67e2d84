// Weight constraints (TF.js's MaxNorm, UnitNorm, NonNeg, MinMaxNorm), written with ops.
#include <cctype>
#include <cmath>

#include "glint/json.h"
#include "glint/ops.h"
#include "glint/regularizers.h"
#include "src/ops/op_util.h"

namespace glint {

Constraint::~Constraint() = default;

namespace constraints {

namespace {

constexpr float kEps = 1e-7f;  // TF.js's epsilon() in the norm denominators

Tensor checked(const std::string& cls, const Tensor& w, int axis) {
  ops::checkDType("constraints", "weights", w, {DType::float32});
  normalizeAxis("constraints", cls + " axis", axis, w.rank());
  return w;
}

Tensor l2Norms(const Tensor& w, int axis) { return sqrt(sum(square(w), {axis}, true)); }

/// w * desired / (eps + norms), desired = rate * clip(norms, lo, hi) + (1 - rate) * norms.
Tensor rescale(const Tensor& w, int axis, float lo, float hi, float rate) {
  Tensor norms = l2Norms(w, axis);
  Tensor desired = add(mul(clipByValue(norms, lo, hi), scalar(rate)), mul(norms, scalar(1 - rate)));
  return mul(w, div(desired, add(norms, scalar(kEps))));
}

class MaxNorm : public Constraint {
 public:
  MaxNorm(double maxValue, int axis) : max_(maxValue), axis_(axis) {
    check(maxValue >= 0 && std::isfinite(maxValue), "constraints",
          "MaxNorm: max_value must be finite and >= 0, got ", maxValue);
  }
  Tensor apply(const Tensor& w) const override {
    return rescale(checked("MaxNorm", w, axis_), axis_, 0.0f, static_cast<float>(max_), 1.0f);
  }
  std::string className() const override { return "MaxNorm"; }
  Json getConfig() const override { return Json{{"max_value", max_}, {"axis", axis_}}; }

 private:
  double max_;
  int axis_;
};

class UnitNorm : public Constraint {
 public:
  explicit UnitNorm(int axis) : axis_(axis) {}
  Tensor apply(const Tensor& w) const override {
    checked("UnitNorm", w, axis_);
    return div(w, add(l2Norms(w, axis_), scalar(kEps)));
  }
  std::string className() const override { return "UnitNorm"; }
  Json getConfig() const override { return Json{{"axis", axis_}}; }

 private:
  int axis_;
};

class NonNeg : public Constraint {
 public:
  Tensor apply(const Tensor& w) const override {
    ops::checkDType("constraints", "weights", w, {DType::float32});
    return relu(w);
  }
  std::string className() const override { return "NonNeg"; }
  Json getConfig() const override { return Json::object(); }
};

class MinMaxNorm : public Constraint {
 public:
  MinMaxNorm(double lo, double hi, double rate, int axis)
      : lo_(lo), hi_(hi), rate_(rate), axis_(axis) {
    check(std::isfinite(lo) && std::isfinite(hi) && lo >= 0 && lo <= hi, "constraints",
          "MinMaxNorm: needs 0 <= min_value <= max_value, got ", lo, ", ", hi);
    check(rate >= 0 && rate <= 1, "constraints", "MinMaxNorm: rate must be in [0, 1], got ", rate);
  }
  Tensor apply(const Tensor& w) const override {
    return rescale(checked("MinMaxNorm", w, axis_), axis_, static_cast<float>(lo_),
                   static_cast<float>(hi_), static_cast<float>(rate_));
  }
  std::string className() const override { return "MinMaxNorm"; }
  Json getConfig() const override {
    return Json{{"min_value", lo_}, {"max_value", hi_}, {"rate", rate_}, {"axis", axis_}};
  }

 private:
  double lo_, hi_, rate_;
  int axis_;
};

double number(const Json& c, const std::string& snake, const std::string& camel, double fallback,
              const std::string& cls) {
  for (const std::string& k : {snake, camel}) {
    if (!c.contains(k) || c[k].is_null()) continue;
    check(c[k].is_number(), "constraints", cls, ": config '", k, "' must be a number, got ",
          c[k].dump());
    return c[k].get<double>();
  }
  return fallback;
}

std::string key(const std::string& name) {
  std::string k;
  for (char c : name)
    if (c != '_') k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return k;
}

}  // namespace

std::shared_ptr<Constraint> maxNorm(double maxValue, int axis) {
  return std::make_shared<MaxNorm>(maxValue, axis);
}
std::shared_ptr<Constraint> nonNeg() { return std::make_shared<NonNeg>(); }
std::shared_ptr<Constraint> unitNorm(int axis) { return std::make_shared<UnitNorm>(axis); }
std::shared_ptr<Constraint> minMaxNorm(double minValue, double maxValue, double rate, int axis) {
  return std::make_shared<MinMaxNorm>(minValue, maxValue, rate, axis);
}

Json serialize(const Constraint& c) {
  return Json{{"class_name", c.className()}, {"config", c.getConfig()}};
}

std::shared_ptr<Constraint> fromConfig(const Config& config) {
  const Json& j = config;
  check(j.is_object(), "constraints",
        "fromConfig expects {\"class_name\": ..., \"config\": {...}}, got ", j.dump());
  std::string cls;
  for (const char* k : {"class_name", "className"})
    if (j.contains(k) && j[k].is_string()) cls = j[k].get<std::string>();
  check(!cls.empty(), "constraints", "fromConfig: missing string 'class_name' in ", j.dump());
  Json c = j.contains("config") && j["config"].is_object() ? j["config"] : Json::object();
  std::string k = key(cls);
  int axis = static_cast<int>(number(c, "axis", "axis", 0, cls));
  if (k == "maxnorm") return maxNorm(number(c, "max_value", "maxValue", 2.0, cls), axis);
  if (k == "unitnorm") return unitNorm(axis);
  if (k == "nonneg") return nonNeg();
  if (k == "minmaxnorm")
    return minMaxNorm(number(c, "min_value", "minValue", 0.0, cls),
                      number(c, "max_value", "maxValue", 1.0, cls),
                      number(c, "rate", "rate", 1.0, cls), axis);
  fail("constraints", "unknown constraint '", cls,
       "'; known: MaxNorm, MinMaxNorm, NonNeg, UnitNorm");
}

std::shared_ptr<Constraint> get(const std::string& name) {
  return fromConfig(Json{{"class_name", name}, {"config", Json::object()}});
}

}  // namespace constraints
}  // namespace glint
