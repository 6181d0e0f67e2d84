// Training callbacks as TF.js users pass them to fit/fitDataset: the Callback base
// (setModel + empty hooks), CustomCallback over an object of hooks, and
// tf.callbacks.earlyStopping (the engine's EarlyStopping, run inside fit's loop).
import * as core from './core.js';
import {GlintError} from './core.js';

const HOOKS = ['onTrainBegin', 'onTrainEnd', 'onEpochBegin', 'onEpochEnd', 'onBatchBegin',
  'onBatchEnd', 'onYield'];

export class Callback {
  constructor() {
    this.model = null;
    this.params = null;
  }
  setModel(model) {
    this.model = model;
  }
  setParams(params) {
    this.params = params;
  }
  async onTrainBegin(logs) {}
  async onTrainEnd(logs) {}
  async onEpochBegin(epoch, logs) {}
  async onEpochEnd(epoch, logs) {}
  async onBatchBegin(batch, logs) {}
  async onBatchEnd(batch, logs) {}
}

/** new CustomCallback({onEpochEnd: (epoch, logs) => ..., ...}) */
export class CustomCallback extends Callback {
  constructor(args = {}) {
    super();
    for (const hook of HOOKS) {
      if (args[hook] !== undefined && typeof args[hook] !== 'function') {
        throw new GlintError(`[CustomCallback] ${hook} must be a function: got ${typeof args[hook]}`);
      }
      if (args[hook]) this[hook] = async (...a) => args[hook](...a);
    }
  }
}

/**
 * tf.callbacks.earlyStopping: runs inside the engine's fit loop (the C++
 * EarlyStopping that native fit has too), so its hooks are not JS. After a
 * fit, wait, best and stoppedEpoch are the engine's.
 */
export class EarlyStopping extends Callback {
  /**
   * {monitor = 'val_loss', minDelta = 0, patience = 0, verbose = 0, mode = 'auto', baseline,
   * restoreBestWeights = false}: stops after `patience` epochs in which `monitor` did not
   * improve by more than minDelta; restoreBestWeights (beyond TF.js) then puts the best
   * epoch's weights back.
   */
  constructor(args = {}) {
    super();
    const {monitor = 'val_loss', minDelta = 0, patience = 0, verbose = 0, mode = 'auto',
      baseline, restoreBestWeights = false} = args;
    if (!['auto', 'min', 'max'].includes(mode)) {
      throw new GlintError(`[earlyStopping] mode must be 'auto', 'min' or 'max': got '${mode}'`);
    }
    if (!(patience >= 0) || !Number.isFinite(minDelta)) {
      throw new GlintError(`[earlyStopping] patience must be >= 0 and minDelta finite: got ` +
          `${patience}, ${minDelta}`);
    }
    this.monitor = monitor;
    this.patience = patience;
    this.verbose = verbose;
    this.baseline = baseline;
    this.mode = mode;
    this.minDelta = Math.abs(minDelta);
    this.restoreBestWeights = Boolean(restoreBestWeights);
    this.wait = 0;
    this.stoppedEpoch = 0;
    this.best = undefined;
  }

  /** The engine's callback for one run (fit.js): a handle, freed by _finish. */
  _start() {
    return core.callInt(() => core.module()._glint_early_stopping(core.json({
      monitor: this.monitor, minDelta: this.minDelta, patience: this.patience, mode: this.mode,
      baseline: this.baseline ?? null, restoreBestWeights: this.restoreBestWeights})));
  }

  _finish(id) {
    const M = core.module();
    try {
      const state = JSON.parse(core.callString(() => M._glint_early_stopping_state(id)),
          (k, v) => (v === 'NaN' || v === 'Infinity' || v === '-Infinity' ? Number(v) : v));
      Object.assign(this, state);
      if (this.verbose && this.stoppedEpoch > 0) console.log(`Epoch ${this.stoppedEpoch + 1}: early stopping`);
    } finally {
      M._glint_early_stopping_dispose(id);
    }
  }
}

export const callbacks = {
  earlyStopping: (args) => new EarlyStopping(args),
};

/** tf.History: records each epoch's number and logs (model.fit returns the same record). */
export class History extends Callback {
  async onTrainBegin() {
    this.epoch = [];
    this.history = {};
  }
  async onEpochEnd(epoch, logs = {}) {
    this.epoch.push(epoch);
    for (const [k, v] of Object.entries(logs)) {
      const value = v && typeof v.dataSync === 'function' ? (await v.data())[0] : v;
      (this.history[k] ??= []).push(value);
    }
  }
  /** Values already read: History stores numbers. */
  async syncData() {}
}

/** tf.CallbackList: a list of callbacks called together, in order. */
export class CallbackList {
  constructor(callbacks = [], queueLength = 10) {
    this.callbacks = callbacks.slice();
    this.queueLength = queueLength;
  }
  append(callback) {
    this.callbacks.push(callback);
  }
  setParams(params) {
    for (const c of this.callbacks) c.setParams?.(params);
  }
  setModel(model) {
    for (const c of this.callbacks) c.setModel?.(model);
  }
  async _each(hook, ...args) {
    for (const c of this.callbacks) if (typeof c[hook] === 'function') await c[hook](...args);
  }
  onEpochBegin(epoch, logs = {}) {
    return this._each('onEpochBegin', epoch, logs);
  }
  onEpochEnd(epoch, logs = {}) {
    return this._each('onEpochEnd', epoch, logs);
  }
  onBatchBegin(batch, logs = {}) {
    return this._each('onBatchBegin', batch, logs);
  }
  onBatchEnd(batch, logs = {}) {
    return this._each('onBatchEnd', batch, logs);
  }
  onTrainBegin(logs = {}) {
    return this._each('onTrainBegin', logs);
  }
  onTrainEnd(logs = {}) {
    return this._each('onTrainEnd', logs);
  }
}
