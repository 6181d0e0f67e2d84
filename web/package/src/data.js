// glint.data: datasets as async iterables of elements, TF.js's chainable
// subset (array, generator, batch, shuffle, map, take, skip, repeat).
import {GlintError} from './core.js';
import {Tensor, tensor, dispose} from './tensor.js';
import {ops} from './ops.js';
import {DivergenceGuard} from './divergence.js';

export class Dataset {
  constructor(makeIterator) {
    this._make = makeIterator;  // () => async iterator
  }
  [Symbol.asyncIterator]() {
    return this._make();
  }
  async iterator() {
    return this._make();
  }
  map(fn) {
    const src = this;
    return new Dataset(async function* () {
      for await (const e of src) yield fn(e);
    });
  }
  take(n) {
    const src = this;
    return new Dataset(async function* () {
      if (n <= 0) return;
      let i = 0;
      for await (const e of src) {
        yield e;
        if (++i >= n) return;
      }
    });
  }
  skip(n) {
    const src = this;
    return new Dataset(async function* () {
      let i = 0;
      for await (const e of src) if (i++ >= n) yield e;
    });
  }
  repeat(count = Infinity) {
    const src = this;
    return new Dataset(async function* () {
      for (let r = 0; r < count; ++r) yield* src;
    });
  }
  /** Shuffles within a window of bufferSize elements. */
  shuffle(bufferSize, seed) {
    if (!(bufferSize >= 1)) throw new GlintError('[shuffle] bufferSize must be >= 1');
    const src = this;
    let s = (seed ?? Math.floor(Math.random() * 2 ** 31)) >>> 0;
    const rand = () => {
      s = (s + 0x6D2B79F5) >>> 0;
      let t = Math.imul(s ^ (s >>> 15), s | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    return new Dataset(async function* () {
      const buf = [];
      for await (const e of src) {
        buf.push(e);
        if (buf.length >= bufferSize) {
          const i = Math.floor(rand() * buf.length);
          yield buf[i];
          buf[i] = buf[buf.length - 1];
          buf.pop();
        }
      }
      while (buf.length) {
        const i = Math.floor(rand() * buf.length);
        yield buf[i];
        buf[i] = buf[buf.length - 1];
        buf.pop();
      }
    });
  }
  /** Stacks `size` elements: numbers/arrays become tensors, objects batch per key. */
  batch(size, smallLastBatch = true) {
    const src = this;
    return new Dataset(async function* () {
      let buf = [];
      for await (const e of src) {
        buf.push(e);
        if (buf.length === size) {
          yield stackElements(buf);
          buf = [];
        }
      }
      if (buf.length && smallLastBatch) yield stackElements(buf);
    });
  }
  async forEachAsync(fn) {
    for await (const e of this) await fn(e);
  }
  async toArray() {
    const out = [];
    for await (const e of this) out.push(e);
    return out;
  }
}

function stackElements(items) {
  const first = items[0];
  if (first instanceof Tensor) {
    return ops.stack(items);
  }
  if (typeof first === 'number' || Array.isArray(first) || ArrayBuffer.isView(first)) {
    return tensor(items.map((x) => ArrayBuffer.isView(x) ? Array.from(x) : x));
  }
  if (first && typeof first === 'object') {
    const out = {};
    for (const k of Object.keys(first)) out[k] = stackElements(items.map((x) => x[k]));
    return out;
  }
  throw new GlintError(`[batch] cannot batch elements of type ${typeof first}`);
}

export const data = {
  Dataset,
  array: (items) => new Dataset(async function* () {
    yield* items;
  }),
  generator: (gen) => new Dataset(async function* () {
    yield* gen();
  }),
  /** A dataset calling f() for each element: f returns (a promise of) {value, done}. */
  func: (f) => new Dataset(async function* () {
    for (;;) {
      const r = await f();
      if (!r || typeof r !== 'object' || !('done' in r)) {
        throw new GlintError('[data.func] the function must return {value, done}');
      }
      if (r.done) return;
      yield r.value;
    }
  }),
  zip: (datasets) => new Dataset(async function* () {
    const its = (Array.isArray(datasets) ? datasets : Object.values(datasets))
        .map((d) => d[Symbol.asyncIterator]());
    const keys = Array.isArray(datasets) ? null : Object.keys(datasets);
    for (;;) {
      const rs = await Promise.all(its.map((it) => it.next()));
      if (rs.some((r) => r.done)) return;
      const vals = rs.map((r) => r.value);
      yield keys ? Object.fromEntries(keys.map((k, i) => [k, vals[i]])) : vals;
    }
  }),
};

/** model.fitDataset(dataset, {epochs, batchesPerEpoch, callbacks, validationData}). */
export async function fitDataset(model, dataset, options = {}) {
  const {epochs = 1, batchesPerEpoch, callbacks, validationData, verbose = 0} = options;
  const history = {epoch: [], history: {}};
  const cbs = (callbacks ? (Array.isArray(callbacks) ? callbacks : [callbacks]) : []);
  // Callbacks see the model, as fit's do (earlyStopping sets model.stopTraining).
  for (const c of cbs) {
    if (c && typeof c.setModel === 'function') c.setModel(model);
    else if (c && typeof c === 'object') c.model = model;
  }
  const fire = async (name, ...a) => {
    for (const c of cbs) if (typeof c[name] === 'function') await c[name](...a);
  };
  const xy = (e) => Array.isArray(e) ? {xs: e[0], ys: e[1]} : e;
  const guard = new DivergenceGuard(model, 'fitDataset');
  try {
    await fire('onTrainBegin', {});
    for (let epoch = 0; epoch < epochs && !model.stopTraining; ++epoch) {
      await fire('onEpochBegin', epoch, {});
      const sums = {};
      let seen = 0, b = 0;
      for await (const element of dataset) {
        const {xs, ys} = xy(element);
        const size = (Array.isArray(xs) ? xs[0] : xs).shape[0];
        let logs;
        try {
          guard.beforeStep();
          logs = await model.trainOnBatchLogs(xs, ys);
        } finally {
          dispose(element);
        }
        guard.afterStep(logs, epoch + 1, b + 1);
        for (const [k, v] of Object.entries(logs)) sums[k] = (sums[k] ?? 0) + v * size;
        seen += size;
        await fire('onBatchEnd', b, {batch: b, size, ...logs});
        await new Promise((r) => setTimeout(r, 0));
        if (++b === batchesPerEpoch || model.stopTraining) break;
      }
      const logs = {};
      for (const [k, v] of Object.entries(sums)) logs[k] = v / Math.max(1, seen);
      if (validationData) {
        const v = Array.isArray(validationData) ?
            await model.evaluateLogsAsync(validationData[0], validationData[1]) :
            await evaluateDataset(model, validationData);
        for (const [k, value] of Object.entries(v)) logs['val_' + k] = value;
      }
      history.epoch.push(epoch);
      for (const [k, v] of Object.entries(logs)) (history.history[k] ??= []).push(v);
      if (verbose) console.log(`Epoch ${epoch + 1}/${epochs}`, logs);
      await fire('onEpochEnd', epoch, logs);
    }
    await fire('onTrainEnd', {});
  } finally {
    guard.release();
  }
  return history;
}

async function evaluateDataset(model, dataset) {
  const sums = {};
  let seen = 0;
  for await (const e of dataset) {
    const {xs, ys} = Array.isArray(e) ? {xs: e[0], ys: e[1]} : e;
    const size = (Array.isArray(xs) ? xs[0] : xs).shape[0];
    const logs = await model.evaluateLogsAsync(xs, ys, {batchSize: size});
    dispose(e);
    for (const [k, v] of Object.entries(logs)) sums[k] = (sums[k] ?? 0) + v * size;
    seen += size;
  }
  const out = {};
  for (const [k, v] of Object.entries(sums)) out[k] = v / Math.max(1, seen);
  return out;
}
