// glint.worker(): the same API, with the engine in a dedicated Web Worker
// (WebGL through OffscreenCanvas there), so training never blocks the page.
// Every call and property read returns a Promise:
//   const g = await glint.worker();
//   const model = await g.sequential({layers: [await g.layers.dense({units: 1, inputShape: [1]})]});
//   await model.compile({optimizer: 'sgd', loss: 'meanSquaredError'});
//   await model.fit(xs, ys, {epochs: 5, callbacks: {onEpochEnd: (e, logs) => draw(logs)}});
//
// A call's result can be used before it arrives (promise pipelining): pass the
// un-awaited result as an argument, or call its methods, and the messages go
// out at once, so a chain costs one round trip, not one per step:
//   const x = g.tensor(pixels, [1, 784]);
//   const probs = await model.predict(x).data();
// That matters most while the worker trains: it reads messages between
// batches, so each round trip of a chain would wait for a batch.
import {GlintError} from './core.js';
import {startEngineWorker} from './worker_start.js';
import {moduleWorker} from './worker_url.js';

// The ids of pipelined results are the page's to choose; negative, apart from the worker's.
class Rpc {
  constructor(w) {
    this.w = w;
    this.pending = new Map();
    this.callbacks = new Map();
    this.nextId = 1;
    this.nextCb = 1;
    this.nextResult = -1;
    // References the page holds, counted: one is released in the worker when
    // the last proxy for it is collected.
    this.holders = new Map();
    this.released = typeof FinalizationRegistry === 'function' ?
        new FinalizationRegistry((ref) => this.drop(ref)) : null;
    w.onmessage = (e) => this.receive(e.data);
    w.onerror = (e) => {
      const err = new GlintError(`[worker] ${e.message ?? 'the worker failed'}`);
      for (const {reject} of this.pending.values()) reject(err);
      this.pending.clear();
    };
  }
  hold(proxy, ref) {
    if (!this.released) return;
    this.holders.set(ref, (this.holders.get(ref) ?? 0) + 1);
    this.released.register(proxy, ref, proxy);
  }
  drop(ref) {
    const n = (this.holders.get(ref) ?? 1) - 1;
    if (n > 0) {
      this.holders.set(ref, n);
      return;
    }
    this.holders.delete(ref);
    this.w.postMessage({op: 'release', target: ref, path: [], id: 0});
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
  /** A call whose result the worker keeps under a page-chosen id: usable before it arrives. */
  call(target, path, args, failed = null) {
    const as = this.nextResult--;
    const state = {plain: false, value: undefined, error: null};
    let proxy = null;
    // Settled without a reference to keep (a plain value, or an error): the worker's copy goes.
    // Messages already sent that use it were read before this release.
    const forget = () => {
      this.released?.unregister(proxy);
      this.drop(as);
    };
    // On a result that failed: that error, without asking the worker (which let it go).
    const sent = failed ? Promise.reject(failed) : this.send({op: 'call', target, path, args, as});
    const promise = sent.then((value) => {
      if (!(value && value[REF] === as)) {
        state.plain = true;
        state.value = value;
        forget();
      }
      return value;
    }, (e) => {
      state.error = e;
      forget();
      throw e;
    });
    promise.catch(() => {});   // unobserved here: whoever awaits the result sees the error
    proxy = remote(this, as, [], {promise, state});
    return proxy;
  }
  encode(v, transfer) {
    // Remote objects are proxies of functions: test for a reference first.
    if (v && (typeof v === 'object' || typeof v === 'function') && v[REF] !== undefined) {
      const pipelined = v[PENDING];
      // Settled: a value the page has now, or the error the call that uses it fails with.
      if (pipelined?.state.error) throw pipelined.state.error;
      if (pipelined?.state.plain) return this.encode(pipelined.state.value, transfer);
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
const PENDING = Symbol('glint.pendingResult');

/**
 * A proxy for a path on a remote object: call it, await it, or set through it.
 * pending: {promise, state} for a call's result not yet arrived; awaiting the
 * proxy awaits it. `root` keeps the object a path starts from alive.
 */
function remote(rpc, ref, path, pending = null, root = null) {
  const target = function() {};
  // The error of the call whose result this path starts from, once it failed.
  const failed = () => (root ?? proxy)[PENDING]?.state.error ?? null;
  const proxy = new Proxy(target, {
    get(_, key) {
      if (key === REF) return path.length === 0 ? ref : undefined;
      if (key === PENDING) return path.length === 0 ? pending : undefined;
      if (typeof key === 'symbol') return undefined;
      if (pending && path.length === 0 && (key === 'then' || key === 'catch' || key === 'finally')) {
        return pending.promise[key].bind(pending.promise);   // a call's result is its Promise too
      }
      if (key === 'then') {
        if (path.length === 0) return undefined;  // a remote object is not itself a Promise
        const p = failed() ? Promise.reject(failed()) : rpc.send({op: 'get', target: ref, path});
        return p.then.bind(p);
      }
      if (key === 'terminate' && ref === null && path.length === 0) {
        return () => rpc.w.terminate();
      }
      return remote(rpc, ref, [...path, key], null, root ?? proxy);
    },
    set(_, key, value) {
      rpc.send({op: 'set', target: ref, path: [...path, key], value}).catch(() => {});
      return true;
    },
    apply(_, __, args) {
      return rpc.call(ref, path, args, failed());
    },
  });
  if (ref !== null && path.length === 0) rpc.hold(proxy, ref);
  return proxy;
}

/** The proxied API over a started engine worker (a Worker, or an object that talks as one). */
export async function connectWorker(w, options = {}) {
  const rpc = new Rpc(w);
  const api = remote(rpc, null, []);
  await api.ready(options.ready ?? {});
  if (options.backend) await api.setBackend(options.backend);
  return api;
}

/**
 * Starts the engine in a module worker and resolves to its proxied API.
 * options: {ready: options for glint.ready in the worker, backend: a backend to set}.
 */
export async function worker(options = {}) {
  if (typeof Worker !== 'function') throw new GlintError('[worker] Web Workers are not available');
  return connectWorker(options.url ? moduleWorker(options.url) : startEngineWorker(), options);
}
