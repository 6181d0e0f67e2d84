// glint.data: datasets as async iterables of elements, TF.js's chainable
// subset (array, generator, batch, shuffle, map, take, skip, repeat).
import {GlintError} from './core.js';
import {Tensor, tensor} from './tensor.js';
import {ops} from './ops.js';

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
