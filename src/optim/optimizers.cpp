// The optimizers. Update rules follow tfjs-core 4.22 (src/optimizers/*.ts),
// with AdamW adding Keras's decoupled weight decay.
#include <cmath>

#include "glint/engine.h"
#include "glint/ops.h"
#include "glint/optim.h"
#include "glint/optim_ops.h"
#include "src/optim/optim_util.h"

namespace glint {

using optim::checkNonNegative;
using optim::checkUnitInterval;
using optim::cleanNumber;

namespace {

class SGD : public Optimizer {
 public:
  explicit SGD(float lr) : Optimizer(lr, "sgd") {}
  std::string className() const override { return "SGD"; }

 protected:
  std::vector<std::string> slotNames() const override { return {}; }
  void applyOne(const Variable& w, const Tensor& g, const std::vector<Variable>&, float lr,
                int64_t) override {
    w.assign(applyGradientDescent(w, g, lr));
  }
  Json hyperConfig() const override { return Json::object(); }
};

class Momentum : public Optimizer {
 public:
  Momentum(float lr, float momentum, bool nesterov)
      : Optimizer(lr, "momentum"), momentum_(momentum), nesterov_(nesterov) {
    checkNonNegative("momentum", "momentum", momentum);
  }
  std::string className() const override { return "Momentum"; }

 protected:
  std::vector<std::string> slotNames() const override { return {"momentum"}; }
  void applyOne(const Variable& w, const Tensor& g, const std::vector<Variable>& slots, float lr,
                int64_t) override {
    MomentumUpdate u = applyMomentum(w, slots[0], g, lr, momentum_, nesterov_);
    slots[0].assign(u.accum);
    w.assign(u.w);
  }
  Json hyperConfig() const override {
    return {{"momentum", cleanNumber(momentum_)}, {"useNesterov", nesterov_}};
  }

 private:
  float momentum_;
  bool nesterov_;
};

void checkAdamArgs(const char* op, float beta1, float beta2, float epsilon) {
  checkUnitInterval(op, "beta1", beta1);
  checkUnitInterval(op, "beta2", beta2);
  checkNonNegative(op, "epsilon", epsilon);
}

/// Adam, and with `decoupled` AdamW (w -= lr * weightDecay * w before the step).
class Adam : public Optimizer {
 public:
  Adam(float lr, float beta1, float beta2, float epsilon, bool decoupled, float weightDecay)
      : Optimizer(lr, decoupled ? "adamw" : "adam"),
        beta1_(beta1),
        beta2_(beta2),
        epsilon_(epsilon),
        decoupled_(decoupled),
        weightDecay_(weightDecay) {
    const char* op = decoupled ? "adamw" : "adam";
    checkAdamArgs(op, beta1, beta2, epsilon);
    checkNonNegative(op, "weightDecay", weightDecay);
  }
  std::string className() const override { return decoupled_ ? "AdamW" : "Adam"; }

 protected:
  std::vector<std::string> slotNames() const override { return {"m", "v"}; }
  void applyOne(const Variable& w, const Tensor& g, const std::vector<Variable>& slots, float lr,
                int64_t step) override {
    const Variable &m = slots[0], &v = slots[1];
    // TF.js keeps beta^t in float32 variables; here it is exact per step.
    float c1 = static_cast<float>(1.0 - std::pow(static_cast<double>(beta1_), step));
    float c2 = static_cast<float>(1.0 - std::pow(static_cast<double>(beta2_), step));
    AdamUpdate u = applyAdam(w, m, v, g, lr, beta1_, beta2_, epsilon_, c1, c2,
                             decoupled_ ? weightDecay_ : 0.0f);
    m.assign(u.m);
    v.assign(u.v);
    w.assign(u.w);
  }
  Json hyperConfig() const override {
    Json c = {{"beta1", cleanNumber(beta1_)},
              {"beta2", cleanNumber(beta2_)},
              {"epsilon", cleanNumber(epsilon_)}};
    if (decoupled_) c["weightDecay"] = cleanNumber(weightDecay_);
    return c;
  }

 private:
  float beta1_, beta2_, epsilon_;
  bool decoupled_;
  float weightDecay_;
};

class Adamax : public Optimizer {
 public:
  Adamax(float lr, float beta1, float beta2, float epsilon, float decay)
      : Optimizer(lr, "adamax"), beta1_(beta1), beta2_(beta2), epsilon_(epsilon), decay_(decay) {
    checkAdamArgs("adamax", beta1, beta2, epsilon);
    checkNonNegative("adamax", "decay", decay);
  }
  std::string className() const override { return "Adamax"; }

 protected:
  std::vector<std::string> slotNames() const override { return {"m", "v"}; }
  void applyOne(const Variable& w, const Tensor& g, const std::vector<Variable>& slots, float lr,
                int64_t step) override {
    const Variable &m = slots[0], &u = slots[1];
    double lrT = lr / (1.0 + static_cast<double>(step - 1) * decay_);
    float scale = static_cast<float>(-lrT / (1.0 - std::pow(static_cast<double>(beta1_), step)));
    Tensor mNew = m * beta1_ + g * (1 - beta1_);
    Tensor uNew = maximum(u * beta2_, abs(g));
    m.assign(mNew);
    u.assign(uNew);
    w.assign(mNew / (uNew + epsilon_) * scale + w);
  }
  Json hyperConfig() const override {
    return {{"beta1", cleanNumber(beta1_)},
            {"beta2", cleanNumber(beta2_)},
            {"epsilon", cleanNumber(epsilon_)},
            {"decay", cleanNumber(decay_)}};
  }

 private:
  float beta1_, beta2_, epsilon_, decay_;
};

class RMSProp : public Optimizer {
 public:
  RMSProp(float lr, float decay, float momentum, float epsilon, bool centered)
      : Optimizer(lr, "rmsprop"),
        decay_(decay),
        momentum_(momentum),
        epsilon_(epsilon),
        centered_(centered) {
    checkUnitInterval("rmsprop", "decay", decay);
    checkNonNegative("rmsprop", "momentum", momentum);
    checkNonNegative("rmsprop", "epsilon", epsilon);
  }
  std::string className() const override { return "RMSProp"; }

 protected:
  std::vector<std::string> slotNames() const override {
    if (centered_) return {"rms", "momentum", "mg"};
    return {"rms", "momentum"};
  }
  void applyOne(const Variable& w, const Tensor& g, const std::vector<Variable>& slots, float lr,
                int64_t) override {
    const Variable &ms = slots[0], &mom = slots[1];
    Tensor msNew = ms * decay_ + square(g) * (1 - decay_);
    Tensor denom;
    if (centered_) {
      // TF's centered rule, sqrt(ms - mg^2 + eps). (TF.js 4.22 subtracts eps,
      // which gives NaN once |g| is small; deliberately not copied.)
      const Variable& mg = slots[2];
      Tensor mgNew = mg * decay_ + g * (1 - decay_);
      denom = sqrt(msNew - square(mgNew) + epsilon_);
      mg.assign(mgNew);
    } else {
      denom = sqrt(msNew + epsilon_);
    }
    Tensor momNew = mom * momentum_ + g * lr / denom;
    ms.assign(msNew);
    mom.assign(momNew);
    w.assign(w - momNew);
  }
  Json hyperConfig() const override {
    return {{"decay", cleanNumber(decay_)},
            {"momentum", cleanNumber(momentum_)},
            {"epsilon", cleanNumber(epsilon_)},
            {"centered", centered_}};
  }

 private:
  float decay_, momentum_, epsilon_;
  bool centered_;
};

class Adagrad : public Optimizer {
 public:
  Adagrad(float lr, float initial) : Optimizer(lr, "adagrad"), initial_(initial) {
    checkNonNegative("adagrad", "initialAccumulatorValue", initial);
  }
  std::string className() const override { return "Adagrad"; }

 protected:
  std::vector<std::string> slotNames() const override { return {"accumulator"}; }
  Tensor initialSlot(const Variable& w, size_t) const override { return fill(w.shape(), initial_); }
  void applyOne(const Variable& w, const Tensor& g, const std::vector<Variable>& slots, float lr,
                int64_t) override {
    const Variable& acc = slots[0];
    Tensor accNew = acc + square(g);
    acc.assign(accNew);
    // TF.js adds the backend epsilon (1e-7 for float32) under the root.
    w.assign(g / sqrt(accNew + 1e-7f) * -lr + w);
  }
  Json hyperConfig() const override { return {{"initialAccumulatorValue", cleanNumber(initial_)}}; }

 private:
  float initial_;
};

class Adadelta : public Optimizer {
 public:
  Adadelta(float lr, float rho, float epsilon)
      : Optimizer(lr, "adadelta"), rho_(rho), epsilon_(epsilon) {
    checkUnitInterval("adadelta", "rho", rho);
    checkNonNegative("adadelta", "epsilon", epsilon);
  }
  std::string className() const override { return "Adadelta"; }

 protected:
  std::vector<std::string> slotNames() const override { return {"accum_grad", "accum_var"}; }
  void applyOne(const Variable& w, const Tensor& g, const std::vector<Variable>& slots, float lr,
                int64_t) override {
    const Variable &accGrad = slots[0], &accUpdate = slots[1];
    Tensor accGradNew = accGrad * rho_ + square(g) * (1 - rho_);
    // Keras / TF / the paper: scaled by the updated accumulator. TF.js 4.22 uses
    // the previous one, which keeps both accumulators equal, so its "Adadelta"
    // is plain SGD; deliberately not copied (slot names still match TF.js).
    Tensor update = sqrt(accUpdate + epsilon_) / sqrt(accGradNew + epsilon_) * g;
    Tensor accUpdateNew = accUpdate * rho_ + square(update) * (1 - rho_);
    accGrad.assign(accGradNew);
    accUpdate.assign(accUpdateNew);
    w.assign(update * -lr + w);
  }
  Json hyperConfig() const override {
    return {{"rho", cleanNumber(rho_)}, {"epsilon", cleanNumber(epsilon_)}};
  }

 private:
  float rho_, epsilon_;
};

}  // namespace

std::unique_ptr<Optimizer> sgd(float learningRate) { return std::make_unique<SGD>(learningRate); }

std::unique_ptr<Optimizer> momentum(float learningRate, float momentum, bool useNesterov) {
  return std::make_unique<Momentum>(learningRate, momentum, useNesterov);
}

std::unique_ptr<Optimizer> adam(float learningRate, float beta1, float beta2, float epsilon) {
  return std::make_unique<Adam>(learningRate, beta1, beta2, epsilon, false, 0.0f);
}

std::unique_ptr<Optimizer> adamw(float learningRate, float beta1, float beta2, float epsilon,
                                 float weightDecay) {
  return std::make_unique<Adam>(learningRate, beta1, beta2, epsilon, true, weightDecay);
}

std::unique_ptr<Optimizer> adamax(float learningRate, float beta1, float beta2, float epsilon,
                                  float decay) {
  return std::make_unique<Adamax>(learningRate, beta1, beta2, epsilon, decay);
}

std::unique_ptr<Optimizer> rmsprop(float learningRate, float decay, float momentum, float epsilon,
                                   bool centered) {
  return std::make_unique<RMSProp>(learningRate, decay, momentum, epsilon, centered);
}

std::unique_ptr<Optimizer> adagrad(float learningRate, float initialAccumulatorValue) {
  return std::make_unique<Adagrad>(learningRate, initialAccumulatorValue);
}

std::unique_ptr<Optimizer> adadelta(float learningRate, float rho, float epsilon) {
  return std::make_unique<Adadelta>(learningRate, rho, epsilon);
}

}  // namespace glint
