// Optimizers by name and config: model.compile("adam"), and the
// optimizer_config of a TF.js / Keras model.json.
#include <algorithm>
#include <cctype>

#include "glint/optim.h"
#include "src/optim/optim_util.h"

namespace glint {

std::unique_ptr<Optimizer> optimizerFromConfig(const std::string& className, const Config& args) {
  const Json& config = args;
  const std::string op = "optimizerFromConfig";
  check(config.is_object() || config.is_null(), op, "config for '", className,
        "' must be an object, got ", config.dump());
  std::string id;
  for (char c : className)
    if (c != '_') id += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));

  auto num = [&](std::initializer_list<const char*> keys, double fallback) {
    return static_cast<float>(optim::numberOr(op, config, keys, fallback));
  };
  auto flag = [&](std::initializer_list<const char*> keys, bool fallback) {
    return optim::boolOr(op, config, keys, fallback);
  };
  // A learning rate may be a number or a serialized schedule.
  std::shared_ptr<LearningRateSchedule> schedule;
  auto lr = [&](double fallback) -> float {
    const Json* v = optim::findKey(config, {"learningRate", "learning_rate", "lr"});
    if (v && v->is_object()) {
      const Json* cls = optim::findKey(*v, {"class_name", "className"});
      const Json* cfg = optim::findKey(*v, {"config"});
      check(cls && cls->is_string() && cfg, op,
            "learningRate object needs 'class_name' and 'config', got ", v->dump());
      schedule = scheduleFromConfig(cls->get<std::string>(), *cfg);
      return static_cast<float>(fallback);  // unused while the schedule is set
    }
    return num({"learningRate", "learning_rate", "lr"}, fallback);
  };
  const float eps = num({"epsilon"}, 1e-7);

  std::unique_ptr<Optimizer> opt;
  // Defaults are those of TF.js's compile-by-name (tfjs-layers getOptimizer).
  if (id == "sgd") {
    float rate = lr(0.01);
    float m = num({"momentum"}, 0);
    // Keras spells momentum SGD as SGD with momentum > 0.
    opt = m > 0 ? momentum(rate, m, flag({"useNesterov", "nesterov"}, false)) : sgd(rate);
  } else if (id == "momentum") {
    opt = momentum(lr(0.01), num({"momentum"}, 0.9), flag({"useNesterov", "nesterov"}, false));
  } else if (id == "adam") {
    opt = adam(lr(0.001), num({"beta1", "beta_1"}, 0.9), num({"beta2", "beta_2"}, 0.999), eps);
  } else if (id == "adamw") {
    opt = adamw(lr(0.001), num({"beta1", "beta_1"}, 0.9), num({"beta2", "beta_2"}, 0.999), eps,
                num({"weightDecay", "weight_decay"}, 0.004));
  } else if (id == "adamax") {
    opt = adamax(lr(0.002), num({"beta1", "beta_1"}, 0.9), num({"beta2", "beta_2"}, 0.999), eps,
                 num({"decay"}, 0));
  } else if (id == "rmsprop") {
    opt = rmsprop(lr(0.001), num({"decay", "rho"}, 0.9), num({"momentum"}, 0), eps,
                  flag({"centered"}, false));
  } else if (id == "adagrad") {
    opt = adagrad(lr(0.01), num({"initialAccumulatorValue", "initial_accumulator_value"}, 0.1));
  } else if (id == "adadelta") {
    opt = adadelta(lr(1.0), num({"rho"}, 0.95), eps);
  } else {
    fail(op, "unknown optimizer '", className,
         "': expected one of SGD, Momentum, Adam, AdamW, "
         "Adamax, RMSProp, Adagrad, Adadelta (or sgd, momentum, adam, adamw, adamax, rmsprop, "
         "adagrad, adadelta)");
  }
  if (schedule) opt->setSchedule(schedule);
  auto clipKey = [&](std::initializer_list<const char*> keys) -> std::optional<float> {
    if (!optim::findKey(config, keys)) return std::nullopt;
    return num(keys, 0);
  };
  opt->clip.clipNorm = clipKey({"clipnorm", "clipNorm"});
  opt->clip.clipValue = clipKey({"clipvalue", "clipValue"});
  opt->clip.globalClipNorm = clipKey({"global_clipnorm", "globalClipNorm"});
  auto checkClip = [&](const std::optional<float>& v, const char* name) {
    if (v) optim::checkPositive(op, name, *v);
  };
  checkClip(opt->clip.clipNorm, "clipnorm");
  checkClip(opt->clip.clipValue, "clipvalue");
  checkClip(opt->clip.globalClipNorm, "global_clipnorm");
  check(!(opt->clip.clipNorm && opt->clip.globalClipNorm), op,
        "clipnorm and global_clipnorm cannot both be set");
  return opt;
}

}  // namespace glint
