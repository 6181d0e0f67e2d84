// Training callbacks as TF.js users pass them to fit/fitDataset: the Callback base
// (setModel + empty hooks), CustomCallback over an object of hooks, and
// tf.callbacks.earlyStopping, which sets model.stopTraining when the monitored
// value stops improving.
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

export class EarlyStopping extends Callback {
  /**
   * {monitor = 'val_loss', minDelta = 0, patience = 0, verbose = 0, mode = 'auto', baseline}:
   * stops after `patience` epochs in which `monitor` did not improve by more than minDelta.
   */
  constructor(args = {}) {
    super();
    const {monitor = 'val_loss', minDelta = 0, patience = 0, verbose = 0, mode = 'auto',
      baseline, restoreBestWeights} = args;
    if (restoreBestWeights) {
      throw new GlintError('[earlyStopping] restoreBestWeights is not supported (nor in TF.js)');
    }
    if (!['auto', 'min', 'max'].includes(mode)) {
      throw new GlintError(`[earlyStopping] mode must be 'auto', 'min' or 'max': got '${mode}'`);
    }
    if (!(patience >= 0) || !(minDelta >= 0)) {
      throw new GlintError(`[earlyStopping] patience and minDelta must be >= 0: got ` +
          `${patience}, ${minDelta}`);
    }
    this.monitor = monitor;
    this.patience = patience;
    this.verbose = verbose;
    this.baseline = baseline;
    // 'auto': accuracies grow, everything else (losses) shrinks, as in Keras.
    this.maximize = mode === 'max' || (mode === 'auto' && /acc/.test(monitor));
    this.minDelta = this.maximize ? minDelta : -minDelta;
  }
  improved(current, best) {
    return this.maximize ? current > best : current < best;
  }
  async onTrainBegin() {
    this.wait = 0;
    this.stoppedEpoch = 0;
    this.best = this.baseline ?? (this.maximize ? -Infinity : Infinity);
  }
  async onEpochEnd(epoch, logs = {}) {
    const current = logs[this.monitor];
    if (current === undefined) {
      console.warn(`[earlyStopping] '${this.monitor}' is not in the epoch's logs ` +
          `(${Object.keys(logs).join(', ')}): nothing to watch`);
      return;
    }
    if (this.improved(current - this.minDelta, this.best)) {
      this.best = current;
      this.wait = 0;
      return;
    }
    if (++this.wait >= this.patience) {
      this.stoppedEpoch = epoch;
      if (this.verbose) console.log(`Epoch ${epoch + 1}: early stopping`);
      this.model.stopTraining = true;
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
