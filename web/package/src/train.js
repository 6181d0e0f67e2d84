// Optimizers (glint.train.*): TF.js names and defaults; the update runs in one
// pass per parameter on every backend.
import * as core from './core.js';
import {GlintError} from './core.js';
import {Tensor} from './tensor.js';

const registry = typeof FinalizationRegistry === 'function' ?
    new FinalizationRegistry((id) => core.isReady() && core.module()._glint_optimizer_release(id)) :
    null;

export class Optimizer {
  /** @internal */
  constructor(id) {
    this.id = id;
    registry?.register(this, id, this);
  }
  static create(className, config) {
    return new Optimizer(core.callInt(() => core.module()._glint_optimizer_create(
        core.str(className), core.json(config))));
  }
  _info() {
    return core.callJson(() => core.module()._glint_optimizer_info(this.id));
  }
  getClassName() {
    return this._info().className;
  }
  getConfig() {
    return this._info().config;
  }
  get iterations() {
    return this._info().iterations;
  }
  get learningRate() {
    return this._info().learningRate;
  }
  /** Loss scaling; while enabled, steps with non-finite gradients are skipped and counted. */
  get lossScale() {
    return this._info().lossScale;
  }
  get skippedSteps() {
    return this._info().skippedSteps;
  }
  /**
   * {enabled = true, scale = 32768, dynamic = true, growthInterval = 2000, minScale = 1}:
   * the loss is multiplied by `scale` before differentiating, the gradients divided after; a step
   * whose gradients are not finite is skipped (dynamic: the scale halves, and doubles again
   * after growthInterval finite steps).
   */
  setLossScale({enabled = true, scale = 32768, dynamic = true, growthInterval = 2000,
                minScale = 1} = {}) {
    core.callInt(() => core.module()._glint_optimizer_set_loss_scale(
        this.id, enabled ? 1 : 0, scale, dynamic ? 1 : 0, growthInterval, minScale));
  }
  setLearningRate(lr) {
    core.callInt(() => core.module()._glint_optimizer_set_learning_rate(this.id, lr));
  }
  /** grads: {variableName: Tensor} (as variableGrads returns) or [{name, tensor}]; varList maps names. */
  applyGradients(gradsByName, varList) {
    const pairs = Array.isArray(gradsByName) ? gradsByName.map((g) => [g.name, g.tensor]) :
        Object.entries(gradsByName);
    if (!varList) throw new GlintError('[applyGradients] pass the variables (varList) too');
    const byName = new Map(varList.map((v) => [v.name, v]));
    const vars = [], grads = [];
    for (const [name, g] of pairs) {
      const v = byName.get(name);
      if (!v) throw new GlintError(`[applyGradients] no variable named '${name}' in varList`);
      vars.push(v.id);
      grads.push(g.id);
    }
    core.callInt(() => core.module()._glint_optimizer_apply(this.id, core.ints(vars),
                                                            core.ints(grads), vars.length));
  }
  /** Differentiates f() and steps; returns the loss when returnCost. */
  minimize(f, returnCost = false, varList = []) {
    const id = core.withRegisteredFn(f, (fnId) => core.callInt(() =>
        core.module()._glint_optimizer_minimize(this.id, fnId, returnCost ? 1 : 0,
                                                core.ints(varList.map((v) => v.id)),
                                                varList.length)));
    return returnCost ? new Tensor(id) : null;
  }
  dispose() {
    if (this.id) {
      registry?.unregister(this);
      core.module()._glint_optimizer_release(this.id);
      this.id = 0;
    }
  }
}

// TF.js's optimizer classes: `new tf.AdamOptimizer(...)` is a Glint optimizer
// (the engine's), with TF.js's constructor arguments; epsilon null is TF.js's
// backend epsilon (1e-7 for float32).
const engineOptimizer = (className, config) =>
  core.callInt(() => core.module()._glint_optimizer_create(core.str(className), core.json(config)));
const eps = (e) => e ?? 1e-7;

export class SGDOptimizer extends Optimizer {
  constructor(learningRate) {
    super(engineOptimizer('SGD', {learningRate}));
  }
}
export class MomentumOptimizer extends Optimizer {
  constructor(learningRate, momentum, useNesterov = false) {
    super(engineOptimizer('Momentum', {learningRate, momentum, useNesterov}));
  }
}
export class AdamOptimizer extends Optimizer {
  constructor(learningRate, beta1, beta2, epsilon = null) {
    super(engineOptimizer('Adam', {learningRate, beta1, beta2, epsilon: eps(epsilon)}));
  }
}
export class AdamaxOptimizer extends Optimizer {
  constructor(learningRate, beta1, beta2, epsilon = null, decay = 0) {
    super(engineOptimizer('Adamax', {learningRate, beta1, beta2, epsilon: eps(epsilon), decay}));
  }
}
export class RMSPropOptimizer extends Optimizer {
  constructor(learningRate, decay = 0.9, momentum = 0, epsilon = null, centered = false) {
    super(engineOptimizer('RMSProp', {learningRate, decay, momentum, epsilon: eps(epsilon), centered}));
  }
}
export class AdagradOptimizer extends Optimizer {
  constructor(learningRate, initialAccumulatorValue = 0.1) {
    super(engineOptimizer('Adagrad', {learningRate, initialAccumulatorValue}));
  }
}
export class AdadeltaOptimizer extends Optimizer {
  constructor(learningRate, rho, epsilon = null) {
    super(engineOptimizer('Adadelta', {learningRate, rho, epsilon: eps(epsilon)}));
  }
}

export const train = {
  sgd: (learningRate) => new SGDOptimizer(learningRate),
  momentum: (learningRate, momentum, useNesterov = false) =>
    new MomentumOptimizer(learningRate, momentum, useNesterov),
  adam: (learningRate = 0.001, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-7) =>
    new AdamOptimizer(learningRate, beta1, beta2, epsilon),
  adamw: (learningRate = 0.001, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-7, weightDecay = 0.004) =>
    Optimizer.create('AdamW', {learningRate, beta1, beta2, epsilon, weightDecay}),
  adamax: (learningRate = 0.002, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-7, decay = 0) =>
    new AdamaxOptimizer(learningRate, beta1, beta2, epsilon, decay),
  rmsprop: (learningRate, decay = 0.9, momentum = 0, epsilon = 1e-7, centered = false) =>
    new RMSPropOptimizer(learningRate, decay, momentum, epsilon, centered),
  adagrad: (learningRate, initialAccumulatorValue = 0.1) =>
    new AdagradOptimizer(learningRate, initialAccumulatorValue),
  adadelta: (learningRate = 0.001, rho = 0.95, epsilon = 1e-7) =>
    new AdadeltaOptimizer(learningRate, rho, epsilon),
};

/** tf.OptimizerConstructors: the train.* factories as static methods. */
export class OptimizerConstructors {}
for (const name of ['sgd', 'momentum', 'adam', 'adamax', 'rmsprop', 'adagrad', 'adadelta'])
  OptimizerConstructors[name] = (...args) => train[name](...args);

