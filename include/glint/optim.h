#pragma once
// Optimizers, learning-rate schedules and gradient clipping.
//
// Update rules follow TensorFlow.js 4.22 (tfjs-core/src/optimizers), config
// keys follow what TF.js writes in model.json ("learningRate", "beta1", ...),
// and optimizer state is named as TF.js names it ("iter", "<var>/m", ...), so
// training saved by either side resumes on the other. Everything is written
// with ops, so it runs on every backend; SGD, Momentum, Adam and AdamW update
// through the one-pass ops of glint/optim_ops.h.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "glint/config.h"
#include "glint/json_fwd.h"
#include "glint/tensor.h"

namespace glint {

// ---- Learning-rate schedules ------------------------------------------------

/// Learning rate as a function of the optimizer's step count (0 on the first
/// step, as in Keras). Class names and config keys are Keras's.
class LearningRateSchedule {
 public:
  virtual ~LearningRateSchedule();
  virtual float at(int64_t step) const = 0;
  virtual Json getConfig() const = 0;
  virtual std::string className() const = 0;
};

/// initial * decayRate^(step / decaySteps); the exponent is floored when
/// `staircase`. Keras ExponentialDecay.
std::shared_ptr<LearningRateSchedule> exponentialDecay(float initial, int64_t decaySteps,
                                                       float decayRate, bool staircase = false);
/// values[0] while step <= boundaries[0], values[i] while boundaries[i-1] < step
/// <= boundaries[i], values.back() after the last boundary. Needs
/// values.size() == boundaries.size() + 1 and increasing boundaries.
std::shared_ptr<LearningRateSchedule> piecewiseConstant(std::vector<int64_t> boundaries,
                                                        std::vector<float> values);
/// initial * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decaySteps) / decaySteps)) + alpha).
std::shared_ptr<LearningRateSchedule> cosineDecay(float initial, int64_t decaySteps,
                                                  float alpha = 0.0f);
/// (initial - end) * (1 - min(step, decaySteps) / decaySteps)^power + end; with
/// `cycle`, decaySteps grows to the next multiple that covers step.
std::shared_ptr<LearningRateSchedule> polynomialDecay(float initial, int64_t decaySteps,
                                                      float end = 1e-4f, float power = 1.0f,
                                                      bool cycle = false);
/// initial / (1 + decayRate * step / decaySteps); the ratio floored when `staircase`.
std::shared_ptr<LearningRateSchedule> inverseTimeDecay(float initial, int64_t decaySteps,
                                                       float decayRate, bool staircase = false);
/// By Keras class name ("ExponentialDecay", "PiecewiseConstantDecay",
/// "CosineDecay", "PolynomialDecay", "InverseTimeDecay") and its config.
std::shared_ptr<LearningRateSchedule> scheduleFromConfig(const std::string& className,
                                                         const Config& config);

// ---- Gradient clipping ------------------------------------------------------

/// Keras's clipnorm / clipvalue / global_clipnorm. Applied in applyGradients
/// before the update: norms first, then values. clipNorm and globalClipNorm
/// exclude each other. Each must be finite and > 0.
struct ClipOptions {
  std::optional<float> clipValue = std::nullopt;       // each element into [-v, v]
  std::optional<float> clipNorm = std::nullopt;        // each gradient to L2 norm <= c
  std::optional<float> globalClipNorm = std::nullopt;  // all gradients together to L2 norm <= c
};

/// x * clipNorm / max(||x||_2, clipNorm): unchanged when its norm is within.
Tensor clipByNorm(const Tensor& x, float clipNorm);
/// Scales every gradient by clipNorm / max(globalNorm, clipNorm), globalNorm
/// being the L2 norm of all of them together. Undefined entries stay undefined.
std::vector<Tensor> clipByGlobalNorm(const std::vector<Tensor>& grads, float clipNorm);
/// sqrt(sum of squares of every element of every defined tensor), a scalar.
Tensor globalNorm(const std::vector<Tensor>& tensors);

// ---- Loss scaling -------------------------------------------------------------

/// Loss scaling (for float16 activations, and a guard against divergence):
/// minimize() multiplies the loss by `scale` before differentiating and divides
/// the gradients by it after. While enabled, a step whose gradients hold a NaN
/// or an infinity is skipped (the variables and the optimizer state stay as
/// they were, iterations() does not advance) and counted in skippedSteps();
/// with `dynamic`, the scale then halves (not below minScale) and doubles after
/// growthInterval finite steps in a row (Keras's LossScaleOptimizer rule).
/// Powers of two keep the scaling exact in float32.
struct LossScale {
  bool enabled = false;
  float scale = 32768.0f;
  bool dynamic = true;
  int64_t growthInterval = 2000;
  float minScale = 1.0f;
};

// ---- Optimizers ---------------------------------------------------------------

/// Base of all optimizers. Per-variable state ("slots": Adam's m and v, ...)
/// is created on a variable's first update, keyed by the variable's identity
/// and saved under its name.
class Optimizer {
 public:
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  virtual ~Optimizer();

  /// One step: updates each variable in place from its gradient (clipped per
  /// `clip`). An undefined gradient skips its variable. Throws glint::Error
  /// naming the optimizer, the variable and the shapes when counts, shapes or
  /// dtypes disagree. Runs inside a scope: leaves no tensors behind.
  void applyGradients(const std::vector<Variable>& vars, const std::vector<Tensor>& grads);
  /// Differentiates loss() with respect to varList (empty: every trainable
  /// variable loss() reads), applies the gradients, returns the loss value
  /// (unscaled when loss scaling is on).
  Tensor minimize(const std::function<Tensor()>& loss, const std::vector<Variable>& varList = {});

  /// Steps taken so far (applyGradients calls).
  int64_t iterations() const { return iterations_; }
  /// The learning rate the next step uses (the schedule's value when one is set).
  float learningRate() const;
  /// A fixed learning rate (finite, > 0); drops any schedule.
  void setLearningRate(float lr);
  void setSchedule(std::shared_ptr<LearningRateSchedule> schedule);
  const std::shared_ptr<LearningRateSchedule>& schedule() const { return schedule_; }

  /// Validated at each step.
  ClipOptions clip;
  /// Off by default; see LossScale. `lossScale.scale` is the current scale.
  LossScale lossScale;
  /// Steps skipped for non-finite gradients while loss scaling was on.
  int64_t skippedSteps() const { return skippedSteps_; }

  /// "SGD", "Momentum", "Adam", "AdamW", "Adamax", "RMSProp", "Adagrad", "Adadelta".
  virtual std::string className() const = 0;
  /// TF.js keys ("learningRate", ...); a schedule appears as
  /// {"class_name": ..., "config": ...}; clipping as Keras's "clipnorm",
  /// "clipvalue", "global_clipnorm" (only when set).
  Json getConfig() const;

  /// State for saving: ("iter", int32 scalar), then each slot kind in turn for
  /// every variable in first-update order, named "<varName>/<slot>" (TF.js
  /// order and names). The tensors are snapshots owned by the caller.
  std::vector<std::pair<std::string, Tensor>> getWeights() const;
  /// Restores getWeights() output: replaces all state; each slot binds to the
  /// variable of that name on its next update, so training resumes exactly.
  void setWeights(const std::vector<std::pair<std::string, Tensor>>& weights);
  /// Frees all slots (the iteration count stays).
  void dispose();

 protected:
  Optimizer(float learningRate, const std::string& factoryName);

  /// Slot kinds, in save order (e.g. {"m", "v"}).
  virtual std::vector<std::string> slotNames() const = 0;
  /// A fresh slot value for `var` (zeros unless overridden).
  virtual Tensor initialSlot(const Variable& var, size_t slot) const;
  /// Updates `var` (and its slots, via assign) from `grad`. `step` counts
  /// from 1 (this step); `lr` is this step's learning rate.
  virtual void applyOne(const Variable& var, const Tensor& grad, const std::vector<Variable>& slots,
                        float lr, int64_t step) = 0;
  /// Optimizer-specific config keys (learningRate is added by getConfig).
  virtual Json hyperConfig() const = 0;

 private:
  struct Entry {
    std::string name;             // the variable's name
    int64_t varId = -1;           // the variable's tensor id; -1 until bound (after setWeights)
    std::vector<Variable> slots;  // empty until created or restored
  };
  Entry& entryFor(const Variable& var);

  float lr_;
  std::shared_ptr<LearningRateSchedule> schedule_;
  int64_t iterations_ = 0;
  int64_t skippedSteps_ = 0;
  int64_t finiteInARow_ = 0;                     // for the dynamic loss scale's growth
  std::vector<Entry> entries_;                   // first-update order
  std::unordered_map<int64_t, size_t> byVarId_;  // variable id -> entries_ index
};

std::unique_ptr<Optimizer> sgd(float learningRate = 0.01f);
/// accum = momentum * accum + g; w -= lr * accum (Nesterov: w -= lr * (g + momentum * accum)).
std::unique_ptr<Optimizer> momentum(float learningRate, float momentum, bool useNesterov = false);
/// TF.js Adam: w -= lr * mHat / (sqrt(vHat) + epsilon), mHat = m / (1 - beta1^t).
std::unique_ptr<Optimizer> adam(float learningRate = 1e-3f, float beta1 = 0.9f,
                                float beta2 = 0.999f, float epsilon = 1e-7f);
/// Adam plus decoupled weight decay (Keras AdamW): w -= lr * weightDecay * w.
std::unique_ptr<Optimizer> adamw(float learningRate = 1e-3f, float beta1 = 0.9f,
                                 float beta2 = 0.999f, float epsilon = 1e-7f,
                                 float weightDecay = 0.004f);
/// TF.js Adamax (infinity norm); `decay` scales lr by 1 / (1 + decay * (t - 1)).
std::unique_ptr<Optimizer> adamax(float learningRate = 0.002f, float beta1 = 0.9f,
                                  float beta2 = 0.999f, float epsilon = 1e-7f, float decay = 0.0f);
/// TF.js RMSProp; `centered` divides by sqrt(ms - mg^2 + epsilon) (TF's rule).
std::unique_ptr<Optimizer> rmsprop(float learningRate = 1e-3f, float decay = 0.9f,
                                   float momentum = 0.0f, float epsilon = 1e-7f,
                                   bool centered = false);
/// Accumulators start at initialAccumulatorValue; w -= lr * g / sqrt(acc + 1e-7).
std::unique_ptr<Optimizer> adagrad(float learningRate = 0.01f,
                                   float initialAccumulatorValue = 0.1f);
/// Zeiler's rule as Keras: acc = rho*acc + (1-rho)g^2; d = sqrt(accD + eps) /
/// sqrt(acc + eps) * g; accD = rho*accD + (1-rho)d^2; w -= lr * d. (TF.js 4.22
/// divides by the previous acc, which reduces it to SGD; not copied.)
std::unique_ptr<Optimizer> adadelta(float learningRate = 1e-3f, float rho = 0.95f,
                                    float epsilon = 1e-7f);

/// By class name ("Adam", "RMSProp", ...) or identifier ("adam", "rmsprop",
/// ..., as model.compile accepts) with a config in TF.js (camelCase) or Keras
/// (snake_case) keys; missing keys take the defaults TF.js's compile uses.
std::unique_ptr<Optimizer> optimizerFromConfig(const std::string& className,
                                               const Config& config = Config::object());

}  // namespace glint
