// glint.worker(): the same API, with the engine in a dedicated Web Worker
// (WebGL through OffscreenCanvas there), so training never blocks the page.
// Every call and property read returns a Promise:
//   const g = await glint.worker();
//   const model = await g.sequential({layers: [await g.layers.dense({units: 1, inputShape: [1]})]});
//   await model.compile({optimizer: 'sgd', loss: 'meanSquaredError'});
//   await model.fit(xs, ys, {epochs: 5, callbacks: {onEpochEnd: (e, logs) => draw(logs)}});
import {GlintError} from './core.js';
import {startEngineWorker} from './worker_start.js';
import {moduleWorker} from './worker_url.js';

class Rpc {
  constructor(w) {
    this.w = w;
    this.pending = new Map();
    this.callbacks = new Map();
    this.nextId = 1;
    this.nextCb = 1;
    this.released = typeof FinalizationRegistry === 'function' ?
        new FinalizationRegistry((ref) => this.w.postMessage({op: 'release', target: ref, path: [],
                                                              id: 0})) :
        null;
    w.onmessage = (e) => this.receive(e.data);
    w.onerror = (e) => {
      const err = new GlintError(`[worker] ${e.message ?? 'the worker failed'}`);
      for (const {reject} of this.pending.values()) reject(err);
      this.pending.clear();
    };
  }
  receive(msg) {
    if (msg.type === 'callback') {
      const fn = this.callbacks.get(msg.cb);
      if (fn) fn(...this.decode(msg.args));
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (msg.error) {
      const e = new GlintError(msg.error.message);
      e.name = msg.error.name;
      p.reject(e);
    } else {
      p.resolve(this.decode(msg.result));
    }
  }
  send(msg) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, {resolve, reject});
      const transfer = [];
      this.w.postMessage({...msg, id, args: this.encode(msg.args ?? [], transfer),
                          value: this.encode(msg.value, transfer)}, transfer);
    });
  }
  encode(v, transfer) {
    // Remote objects are proxies of functions: test for a reference first.
    if (v && (typeof v === 'object' || typeof v === 'function') && v[REF] !== undefined) {
      return {__ref: v[REF]};
    }
    if (typeof v === 'function') {
      const id = this.nextCb++;
      this.callbacks.set(id, v);
      return {__cb: id};
    }
    if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v) || v instanceof ArrayBuffer) {
      return v;
    }
    if (Array.isArray(v)) return v.map((x) => this.encode(x, transfer));
    const out = {};
    for (const [k, x] of Object.entries(v)) out[k] = this.encode(x, transfer);
    return out;
  }
  decode(v) {
    if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v) || v instanceof ArrayBuffer) {
      return v;
    }
    if ('__ref' in v) return remote(this, v.__ref, []);
    if (Array.isArray(v)) return v.map((x) => this.decode(x));
    const out = {};
    for (const [k, x] of Object.entries(v)) out[k] = this.decode(x);
    return out;
  }
}

const REF = Symbol('glint.remoteRef');

/** A proxy for a path on a remote object: call it, await it, or set through it. */
function remote(rpc, ref, path) {
  const target = function() {};
  const proxy = new Proxy(target, {
    get(_, key) {
      if (key === REF) return path.length === 0 ? ref : undefined;
      if (typeof key === 'symbol') return undefined;
      if (key === 'then') {
        if (path.length === 0) return undefined;  // a remote object is not itself a Promise
        const p = rpc.send({op: 'get', target: ref, path});
        return p.then.bind(p);
      }
      if (key === 'terminate' && ref === null && path.length === 0) {
        return () => rpc.w.terminate();
      }
      return remote(rpc, ref, [...path, key]);
    },
    set(_, key, value) {
      rpc.send({op: 'set', target: ref, path: [...path, key], value}).catch(() => {});
      return true;
    },
    apply(_, __, args) {
      return rpc.send({op: 'call', target: ref, path, args});
    },
  });
  if (ref !== null && path.length === 0) rpc.released?.register(proxy, ref);
  return proxy;
}

/**
 * Starts the engine in a module worker and resolves to its proxied API.
 * options: {ready: options for glint.ready in the worker, backend: a backend to set}.
 */
export async function worker(options = {}) {
  if (typeof Worker !== 'function') throw new GlintError('[worker] Web Workers are not available');
  const w = options.url ? moduleWorker(options.url) : startEngineWorker();
  const rpc = new Rpc(w);
  const api = remote(rpc, null, []);
  await api.ready(options.ready ?? {});
  if (options.backend) await api.setBackend(options.backend);
  return api;
}
