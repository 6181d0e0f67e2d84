// Learning-rate schedules (Keras semantics, names and config keys).
#include <cmath>
#include <numbers>

#include "glint/optim.h"
#include "src/optim/optim_util.h"

namespace glint {

using optim::checkNonNegative;
using optim::checkPositive;
using optim::cleanNumber;

LearningRateSchedule::~LearningRateSchedule() = default;

namespace {

void checkStep(const std::string& cls, int64_t step) {
  check(step >= 0, cls, "step must be >= 0, got ", step);
}

class ExponentialDecay : public LearningRateSchedule {
 public:
  ExponentialDecay(float initial, int64_t steps, float rate, bool staircase)
      : initial_(initial), steps_(steps), rate_(rate), staircase_(staircase) {
    checkPositive("exponentialDecay", "initial", initial);
    check(steps > 0, "exponentialDecay", "decaySteps must be > 0, got ", steps);
    checkPositive("exponentialDecay", "decayRate", rate);
  }
  float at(int64_t step) const override {
    checkStep(className(), step);
    double p = static_cast<double>(step) / static_cast<double>(steps_);
    if (staircase_) p = std::floor(p);
    return static_cast<float>(initial_ * std::pow(static_cast<double>(rate_), p));
  }
  Json getConfig() const override {
    return {{"initial_learning_rate", cleanNumber(initial_)},
            {"decay_steps", steps_},
            {"decay_rate", cleanNumber(rate_)},
            {"staircase", staircase_}};
  }
  std::string className() const override { return "ExponentialDecay"; }

 private:
  float initial_;
  int64_t steps_;
  float rate_;
  bool staircase_;
};

class InverseTimeDecay : public LearningRateSchedule {
 public:
  InverseTimeDecay(float initial, int64_t steps, float rate, bool staircase)
      : initial_(initial), steps_(steps), rate_(rate), staircase_(staircase) {
    checkPositive("inverseTimeDecay", "initial", initial);
    check(steps > 0, "inverseTimeDecay", "decaySteps must be > 0, got ", steps);
    checkNonNegative("inverseTimeDecay", "decayRate", rate);
  }
  float at(int64_t step) const override {
    checkStep(className(), step);
    double p = static_cast<double>(step) / static_cast<double>(steps_);
    if (staircase_) p = std::floor(p);
    return static_cast<float>(initial_ / (1.0 + static_cast<double>(rate_) * p));
  }
  Json getConfig() const override {
    return {{"initial_learning_rate", cleanNumber(initial_)},
            {"decay_steps", steps_},
            {"decay_rate", cleanNumber(rate_)},
            {"staircase", staircase_}};
  }
  std::string className() const override { return "InverseTimeDecay"; }

 private:
  float initial_;
  int64_t steps_;
  float rate_;
  bool staircase_;
};

class PiecewiseConstant : public LearningRateSchedule {
 public:
  PiecewiseConstant(std::vector<int64_t> boundaries, std::vector<float> values)
      : boundaries_(std::move(boundaries)), values_(std::move(values)) {
    const char* op = "piecewiseConstant";
    check(values_.size() == boundaries_.size() + 1, op,
          "values needs one more entry than "
          "boundaries: got ",
          boundaries_.size(), " boundaries and ", values_.size(), " values");
    for (size_t i = 1; i < boundaries_.size(); ++i)
      check(boundaries_[i] > boundaries_[i - 1], op, "boundaries must increase: boundaries[", i,
            "] = ", boundaries_[i], " after ", boundaries_[i - 1]);
    for (float v : values_) checkNonNegative(op, "each value", v);
  }
  float at(int64_t step) const override {
    checkStep(className(), step);
    size_t i = 0;
    while (i < boundaries_.size() && step > boundaries_[i]) ++i;
    return values_[i];
  }
  Json getConfig() const override {
    Json values = Json::array();
    for (float v : values_) values.push_back(cleanNumber(v));
    return {{"boundaries", boundaries_}, {"values", values}};
  }
  std::string className() const override { return "PiecewiseConstantDecay"; }

 private:
  std::vector<int64_t> boundaries_;
  std::vector<float> values_;
};

class CosineDecay : public LearningRateSchedule {
 public:
  CosineDecay(float initial, int64_t steps, float alpha)
      : initial_(initial), steps_(steps), alpha_(alpha) {
    checkPositive("cosineDecay", "initial", initial);
    check(steps > 0, "cosineDecay", "decaySteps must be > 0, got ", steps);
    check(std::isfinite(alpha) && alpha >= 0 && alpha <= 1, "cosineDecay",
          "alpha must be in [0, 1], got ", alpha);
  }
  float at(int64_t step) const override {
    checkStep(className(), step);
    double frac = static_cast<double>(std::min(step, steps_)) / static_cast<double>(steps_);
    double cosine = 0.5 * (1.0 + std::cos(std::numbers::pi * frac));
    return static_cast<float>(initial_ * ((1.0 - alpha_) * cosine + alpha_));
  }
  Json getConfig() const override {
    return {{"initial_learning_rate", cleanNumber(initial_)},
            {"decay_steps", steps_},
            {"alpha", cleanNumber(alpha_)}};
  }
  std::string className() const override { return "CosineDecay"; }

 private:
  float initial_;
  int64_t steps_;
  float alpha_;
};

class PolynomialDecay : public LearningRateSchedule {
 public:
  PolynomialDecay(float initial, int64_t steps, float end, float power, bool cycle)
      : initial_(initial), steps_(steps), end_(end), power_(power), cycle_(cycle) {
    checkPositive("polynomialDecay", "initial", initial);
    check(steps > 0, "polynomialDecay", "decaySteps must be > 0, got ", steps);
    checkNonNegative("polynomialDecay", "end", end);
    checkPositive("polynomialDecay", "power", power);
  }
  float at(int64_t step) const override {
    checkStep(className(), step);
    double steps = static_cast<double>(steps_);
    double s = static_cast<double>(step);
    if (cycle_) {
      // The period stretches to the next multiple of decaySteps (Keras).
      double mult = step == 0 ? 1.0 : std::ceil(s / steps);
      steps *= mult;
    } else {
      s = std::min(s, steps);
    }
    double lr = (initial_ - static_cast<double>(end_)) * std::pow(1.0 - s / steps, power_) + end_;
    return static_cast<float>(lr);
  }
  Json getConfig() const override {
    return {{"initial_learning_rate", cleanNumber(initial_)},
            {"decay_steps", steps_},
            {"end_learning_rate", cleanNumber(end_)},
            {"power", cleanNumber(power_)},
            {"cycle", cycle_}};
  }
  std::string className() const override { return "PolynomialDecay"; }

 private:
  float initial_;
  int64_t steps_;
  float end_;
  float power_;
  bool cycle_;
};

}  // namespace

std::shared_ptr<LearningRateSchedule> exponentialDecay(float initial, int64_t decaySteps,
                                                       float decayRate, bool staircase) {
  return std::make_shared<ExponentialDecay>(initial, decaySteps, decayRate, staircase);
}
std::shared_ptr<LearningRateSchedule> inverseTimeDecay(float initial, int64_t decaySteps,
                                                       float decayRate, bool staircase) {
  return std::make_shared<InverseTimeDecay>(initial, decaySteps, decayRate, staircase);
}
std::shared_ptr<LearningRateSchedule> piecewiseConstant(std::vector<int64_t> boundaries,
                                                        std::vector<float> values) {
  return std::make_shared<PiecewiseConstant>(std::move(boundaries), std::move(values));
}
std::shared_ptr<LearningRateSchedule> cosineDecay(float initial, int64_t decaySteps, float alpha) {
  return std::make_shared<CosineDecay>(initial, decaySteps, alpha);
}
std::shared_ptr<LearningRateSchedule> polynomialDecay(float initial, int64_t decaySteps, float end,
                                                      float power, bool cycle) {
  return std::make_shared<PolynomialDecay>(initial, decaySteps, end, power, cycle);
}

std::shared_ptr<LearningRateSchedule> scheduleFromConfig(const std::string& className,
                                                         const Config& args) {
  const Json& config = args;
  const std::string op = "scheduleFromConfig";
  check(config.is_object(), op, "config for '", className, "' must be an object, got ",
        config.dump());
  auto num = [&](const char* key, double fallback) {
    return optim::numberOr(op, config, {key}, fallback);
  };
  auto need = [&](const char* key) {
    check(optim::findKey(config, {key}) != nullptr, op, className, " config lacks '", key, "'");
    return num(key, 0);
  };
  auto flag = [&](const char* key) { return optim::boolOr(op, config, {key}, false); };
  const bool decaying = className == "ExponentialDecay" || className == "InverseTimeDecay" ||
                        className == "CosineDecay" || className == "PolynomialDecay";
  double initial = 0, steps = 0;
  if (decaying) {  // in order, so the first missing key is the one named
    initial = need("initial_learning_rate");
    steps = need("decay_steps");
  }
  auto n = static_cast<int64_t>(steps);
  if (className == "ExponentialDecay")
    return exponentialDecay(initial, n, need("decay_rate"), flag("staircase"));
  if (className == "InverseTimeDecay")
    return inverseTimeDecay(initial, n, need("decay_rate"), flag("staircase"));
  if (className == "CosineDecay") return cosineDecay(initial, n, num("alpha", 0));
  if (className == "PolynomialDecay") {
    double end = num("end_learning_rate", 1e-4), power = num("power", 1);
    return polynomialDecay(initial, n, end, power, flag("cycle"));
  }
  if (className == "PiecewiseConstantDecay") {
    const Json* b = optim::findKey(config, {"boundaries"});
    const Json* v = optim::findKey(config, {"values"});
    check(b && b->is_array() && v && v->is_array(), op,
          "PiecewiseConstantDecay config needs arrays 'boundaries' and 'values'");
    std::vector<int64_t> boundaries;
    std::vector<float> values;
    for (const Json& x : *b) {
      check(x.is_number(), op, "boundaries must hold numbers, got ", x.dump());
      boundaries.push_back(x.get<int64_t>());
    }
    for (const Json& x : *v) {
      check(x.is_number(), op, "values must hold numbers, got ", x.dump());
      values.push_back(x.get<float>());
    }
    return piecewiseConstant(std::move(boundaries), std::move(values));
  }
  fail(op, "unknown learning-rate schedule '", className,
       "'; known: ExponentialDecay, PiecewiseConstantDecay, CosineDecay, PolynomialDecay, "
       "InverseTimeDecay");
}

}  // namespace glint
