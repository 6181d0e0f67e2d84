// model.fit and model.fitDataset: JS drives the engine's one epoch loop
// (include/glint/fit_run.h) event by event. The engine shuffles, splits,
// weighs classes, guards against divergence, skips a batch whose device was
// lost and keeps the history; this file reads the logged values (awaiting
// them where the backend cannot block), feeds dataset batches, fires the
// JS callbacks and yields to the page between events.
import * as core from './core.js';
import {GlintError} from './core.js';
import {Tensor, dispose, nextTick, waitForQuiet} from './tensor.js';
import {webgpuRecovered, webgpuSnapshot} from './webgpu.js';
import {EarlyStopping} from './callbacks.js';

// FitRun::Event, in its order.
const EVENTS = ['trainBegin', 'epochBegin', 'batchBegin', 'needBatch', 'validationBatch', 'read',
  'batchEnd', 'batchSkipped', 'epochEnd', 'trainEnd', 'done'];

// Logs from the engine; a non-finite value comes as "NaN", "Infinity" or
// "-Infinity" (JSON has no such numbers) and becomes that number.
function parseLogs(text) {
  return JSON.parse(text, (k, v) => (v === 'NaN' || v === 'Infinity' || v === '-Infinity' ?
    Number(v) : v));
}

function now() {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

/** Resolves at the next animation frame (a task in node), as tf.nextFrame. */
export function nextFrame() {
  if (typeof requestAnimationFrame === 'function') {
    return new Promise((r) => requestAnimationFrame(() => r()));
  }
  return nextTick();
}

export class CallbackList {
  constructor(callbacks, model) {
    this.list = (callbacks ? (Array.isArray(callbacks) ? callbacks : [callbacks]) : []).map((c) => {
      if (c && typeof c === 'object') {
        if ('setModel' in c && typeof c.setModel === 'function') c.setModel(model);
        else c.model = model;
      }
      return c;
    });
  }
  async fire(name, ...args) {
    for (const c of this.list) {
      if (c && typeof c[name] === 'function') await c[name](...args);
    }
  }
}

/**
 * yieldEvery as TF.js: 'batch', 'epoch', 'never', or 'auto' (at most
 * frameBudgetMs of work before an animation frame).
 */
export function yielder(yieldEvery, frameBudgetMs) {
  let last = now();
  return async (where) => {
    if (yieldEvery === 'never') return;
    if (yieldEvery === 'batch' || (yieldEvery === 'epoch' && where === 'epoch')) {
      await nextTick();
      await waitForQuiet();
      last = now();
    } else if (yieldEvery === 'auto' && now() - last >= frameBudgetMs) {
      await nextFrame();
      await waitForQuiet();
      last = now();
    }
  };
}

/** Reads the run's logged values and hands them back (or says the device was lost). */
async function readValues(M, id) {
  const values = new Tensor(core.callInt(() => M._glint_fit_run_values(id)));
  let data;
  try {
    data = M._glint_backend_reads_sync() === 1 ? values.dataSync() : await values.data();
  } catch (e) {
    if (!e.deviceLost) throw e;
    core.callInt(() => M._glint_fit_run_lost(id));
    await webgpuRecovered(M);  // a lost WebGPU device: its replacement
    return;
  }
  core.callInt(() => M._glint_fit_run_provide(id, core.bytes(data), data.length));
}

/**
 * Runs the engine's run `id` to its end. feed(validating) answers the
 * dataset's batch requests; epochBegin(epoch) sees each epoch start.
 * Returns the engine's history ({epoch, history, deviceLosses}).
 */
export async function drive(model, id, {callbacks, yieldNow, verbose = 0, epochs, feed, epochBegin}) {
  const M = core.module();
  const cbs = new CallbackList(callbacks, model);
  model.isTraining = true;
  try {
    for (;;) {
      const event = EVENTS[core.callInt(() => M._glint_fit_run_next(id))];
      if (event === 'done') break;
      if (event === 'read') {
        await readValues(M, id);
        continue;
      }
      if (event === 'validationBatch') {
        await yieldNow('batch');
        continue;
      }
      if (event === 'batchSkipped') {  // the device was lost: wait for its replacement
        await webgpuRecovered(M);
        continue;
      }
      const state = parseLogs(core.callString(() => M._glint_fit_run_state(id)));
      switch (event) {
        case 'trainBegin':
          await cbs.fire('onTrainBegin', {});
          break;
        case 'epochBegin':
          if (epochBegin) await epochBegin(state.epoch);
          await cbs.fire('onEpochBegin', state.epoch, {});
          break;
        case 'batchBegin':
          await cbs.fire('onBatchBegin', state.batch, state.logs);
          break;
        case 'needBatch':
          await feed(state.validating);
          break;
        case 'batchEnd':
          await webgpuSnapshot(M);
          await cbs.fire('onBatchEnd', state.batch, state.logs);
          await yieldNow('batch');
          break;
        case 'epochEnd':
          if (verbose) {
            console.log(`Epoch ${state.epoch + 1}/${epochs} ` + Object.entries(state.logs)
                .map(([k, v]) => `${k}=${v.toFixed(4)}`).join(' '));
          }
          await cbs.fire('onEpochEnd', state.epoch, state.logs);
          await yieldNow('epoch');
          break;
        case 'trainEnd':
          await cbs.fire('onTrainEnd', {});  // TF.js passes no logs here
          break;
        default:
          throw new GlintError(`[fit] internal: unexpected event ${event}`);
      }
    }
    return parseLogs(core.callString(() => M._glint_fit_run_history(id)));
  } finally {
    model.isTraining = false;
    M._glint_fit_run_dispose(id);
  }
}

/**
 * Callbacks that run in the engine (earlyStopping) get a handle each for the
 * run; make(engineIds) creates the run. The rest stay JS.
 */
function withEngineCallbacks(callbacks, make) {
  const list = callbacks ? (Array.isArray(callbacks) ? callbacks : [callbacks]) : [];
  const engine = list.filter((c) => c instanceof EarlyStopping);
  const handles = [];
  try {
    for (const c of engine) handles.push(c._start());
    return {id: make(handles), js: list.filter((c) => !(c instanceof EarlyStopping)),
      finish: () => engine.forEach((c, i) => c._finish(handles[i]))};
  } catch (e) {
    for (const h of handles) core.module()._glint_early_stopping_dispose(h);
    throw e;
  }
}

function ids(list) {
  return core.ints(list.map((t) => t.id));
}

/** model.fit's loop; options as TF.js's (model.js checks them first). */
export async function fitTensors(model, xs, ys, options) {
  const {
    batchSize = 32, epochs = 1, shuffle = true, validationSplit = 0, validationData,
    callbacks, initialEpoch = 0, verbose = 0, yieldEvery = 'auto', frameBudgetMs = 12, seed,
    classWeight,
  } = options;
  const engineOptions = {epochs, batchSize, shuffle, validationSplit, initialEpoch,
    seed: seed ?? null, sliceValidation: yieldEvery === 'batch' || yieldEvery === 'auto'};
  if (validationData) {
    engineOptions.validationX = (Array.isArray(validationData[0]) ? validationData[0] :
      [validationData[0]]).map((t) => t.id);
    engineOptions.validationY = (Array.isArray(validationData[1]) ? validationData[1] :
      [validationData[1]]).map((t) => t.id);
  }
  if (classWeight !== undefined && classWeight !== null) {
    for (const [c, w] of Object.entries(classWeight)) {
      if (!Number.isInteger(Number(c)) || typeof w !== 'number' || !Number.isFinite(w)) {
        throw new GlintError(`[fit] classWeight maps class ids to finite numbers: got ${c}: ${w}`);
      }
    }
    engineOptions.classWeight = classWeight;
  }
  model.stopTraining = false;
  const M = core.module();
  const run = withEngineCallbacks(callbacks, (handles) => core.callInt(() =>
    M._glint_fit_run_tensors(model.id, ids(xs), xs.length, ids(ys), ys.length,
        core.json({...engineOptions, callbacks: handles}))));
  const state = parseLogs(core.callString(() => M._glint_fit_run_state(run.id)));
  let h;
  try {
    h = await drive(model, run.id, {callbacks: run.js, verbose, epochs,
      yieldNow: yielder(yieldEvery, frameBudgetMs)});
  } finally {
    run.finish();
  }
  return {epoch: h.epoch, history: h.history,
    params: {epochs, batchSize, samples: state.samples}, deviceLosses: h.deviceLosses};
}

/**
 * model.fitDataset's loop: batches from the dataset ({xs, ys} or [xs, ys]
 * elements), validation from a dataset or [x, y] tensors.
 */
export async function fitDataset(model, dataset, options = {}) {
  const {epochs = 1, batchesPerEpoch, callbacks, validationData, verbose = 0,
    initialEpoch = 0, yieldEvery = 'batch', frameBudgetMs = 12} = options;
  if (!dataset || typeof dataset.iterator !== 'function') {
    throw new GlintError('[fitDataset] dataset must be a tf.data.Dataset');
  }
  if (model.isTraining) throw new GlintError('[fitDataset] the model is already training');
  model.stopTraining = false;
  const M = core.module();
  const run = withEngineCallbacks(callbacks, (handles) => core.callInt(() =>
    M._glint_fit_run_dataset(model.id, core.json({epochs, initialEpoch,
      batchesPerEpoch: batchesPerEpoch ?? null, callbacks: handles}), validationData ? 1 : 0)));
  const id = run.id;
  let train = null, validation = null, validationFed = false;
  // A training batch is trained on after the next event: its tensors go
  // when the next batch is asked for, or at the end.
  let held = null;
  const release = () => {
    if (held) dispose(held);
    held = null;
  };
  const xy = (e) => {
    const {xs, ys} = Array.isArray(e) ? {xs: e[0], ys: e[1]} : e;
    return {xs: Array.isArray(xs) ? xs : [xs], ys: Array.isArray(ys) ? ys : [ys]};
  };
  const feedNone = () => core.callInt(() => M._glint_fit_run_feed(id, 0, 0, 0, 0, 0));
  const feedTensors = (xs, ys, batchSize) => core.callInt(() => M._glint_fit_run_feed(
      id, ids(xs), xs.length, ids(ys), ys.length, batchSize));
  const feed = async (validating) => {
    release();
    if (validating && Array.isArray(validationData)) {
      // [x, y] tensors: fed once, evaluated 32 rows at a time (evaluate's default).
      if (validationFed) return feedNone();
      validationFed = true;
      const {xs, ys} = xy(validationData);
      return feedTensors(xs, ys, 32);
    }
    const iterator = validating ? (validation ??= await validationData.iterator()) : train;
    const next = await iterator.next();
    if (next.done) return feedNone();
    const {xs, ys} = xy(next.value);
    if (validating) {  // evaluated as it is fed
      try {
        feedTensors(xs, ys, 0);
      } finally {
        dispose(next.value);
      }
      return;
    }
    held = next.value;
    feedTensors(xs, ys, 0);
  };
  let h;
  try {
    h = await drive(model, id, {callbacks: run.js, verbose, epochs, feed,
    yieldNow: yielder(yieldEvery, frameBudgetMs),
    epochBegin: async () => {
      // With batchesPerEpoch, epochs go on through one pass over the data (TF.js).
      if (batchesPerEpoch === undefined || !train) train = await dataset.iterator();
      validation = null;
      validationFed = false;
    }});
  } finally {
    release();
    run.finish();
  }
  return {epoch: h.epoch, history: h.history, deviceLosses: h.deviceLosses};
}
