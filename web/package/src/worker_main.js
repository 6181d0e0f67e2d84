// The engine inside a dedicated Web Worker (glint.worker()): answers calls from
// the page. Objects (tensors, layers, models, graph models, optimizers) stay here and travel
// as references; functions passed by the page (callbacks) become messages back.
import * as glint from './index.js';
import {nextTick, setQuietWait} from './tensor.js';

const objects = new Map();
let nextRef = 1;

function isRemotable(v) {
  return v instanceof glint.Tensor || v instanceof glint.Layer || v instanceof glint.Optimizer ||
      v instanceof glint.SymbolicTensor || v instanceof glint.data.Dataset || v instanceof glint.GraphModel;
}

function encode(v, transfer) {
  if (isRemotable(v)) {
    const id = nextRef++;
    objects.set(id, v);
    return {__ref: id};
  }
  if (ArrayBuffer.isView(v)) {
    transfer.push(v.buffer);
    return v;
  }
  if (v instanceof ArrayBuffer || v instanceof Date || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => encode(x, transfer));
  const out = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'function') out[k] = encode(x, transfer);
  }
  return out;
}

// A reference to a call's result the page chose (promise pipelining): a Promise
// while that call runs. Found when the message arrives, so a release that
// follows it cannot take the object away first.
function lookup(ref) {
  if (!objects.has(ref)) throw new glint.GlintError(`[worker] reference ${ref} was released`);
  return objects.get(ref);
}

// Decoding collects the Promises of results still being computed; resolve() fills them in.
function decode(v, waits) {
  if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v) || v instanceof ArrayBuffer) {
    return v;
  }
  if ('__ref' in v) {
    const o = lookup(v.__ref);
    if (o instanceof Pending) waits.push(o);
    return o;
  }
  if ('__cb' in v) {
    return (...args) => {
      const transfer = [];
      self.postMessage({type: 'callback', cb: v.__cb, args: encode(args, transfer)}, transfer);
    };
  }
  if (Array.isArray(v)) return v.map((x) => decode(x, waits));
  const out = {};
  for (const [k, x] of Object.entries(v)) out[k] = decode(x, waits);
  return out;
}

/** A pipelined result not computed yet. */
class Pending {
  constructor(promise) {
    this.promise = promise;
  }
}

function resolve(v, done) {
  if (v instanceof Pending) return done.get(v);
  if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v) || v instanceof ArrayBuffer ||
      isRemotable(v) || !(Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype)) {
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => resolve(x, done));
  const out = {};
  for (const [k, x] of Object.entries(v)) out[k] = resolve(x, done);
  return out;
}

async function handle(msg) {
  const waits = [];
  let owner = msg.target ? lookup(msg.target) : glint;
  if (owner instanceof Pending) waits.push(owner);
  let args = msg.op === 'call' ? decode(msg.args, waits) : null;
  let value = msg.op === 'set' ? decode(msg.value, waits) : undefined;
  if (waits.length) {
    // A pipelined argument or target: its call's error is this call's error.
    const done = new Map();
    for (const p of waits) done.set(p, await p.promise);
    owner = resolve(owner, done);
    args = resolve(args, done);
    value = resolve(value, done);
  }
  let holder = owner;
  const path = msg.path;
  for (let i = 0; i < path.length - 1; ++i) holder = holder[path[i]];
  const key = path[path.length - 1];
  switch (msg.op) {
    case 'get': return holder[key];
    case 'set':
      holder[key] = value;
      return undefined;
    case 'call': {
      const fn = holder[key];
      if (typeof fn !== 'function') {
        throw new glint.GlintError(`[worker] ${path.join('.')} is not a function`);
      }
      return fn.apply(holder, args);
    }
    default:
      throw new glint.GlintError(`[worker] unknown request '${msg.op}'`);
  }
}

function reply(msg, result) {
  if (msg.as !== undefined && isRemotable(result)) return {__ref: msg.as};
  const transfer = [];
  const encoded = encode(result, transfer);
  // A pipelined result stays here until the page releases it: its arrays are copied, not moved.
  if (msg.as !== undefined) transfer.length = 0;
  return {encoded, transfer};
}

// A page's calls often come as a chain, each sent when the last one's answer
// arrives. Training (fit) yields between batches; after a request it waits a
// few milliseconds for the next one before it takes the next batch, so the
// chain does not wait a batch per call.
const QUIET_MS = 4;
let lastRequest = -Infinity;
const clock = () => performance.now();
setQuietWait(async () => {
  while (clock() - lastRequest < QUIET_MS) await nextTick();
});

self.onmessage = async (e) => {
  const msg = e.data;
  if (msg.op === 'release') {
    objects.delete(msg.target);
    return;
  }
  lastRequest = clock();
  let settle = null;
  if (msg.as !== undefined) {
    const pending = new Pending(new Promise((res, rej) => {
      settle = {res, rej};
    }));
    pending.promise.catch(() => {});   // seen by the calls that use it, and by the page
    objects.set(msg.as, pending);
  }
  try {
    const result = await handle(msg);
    if (settle) {
      objects.set(msg.as, result);
      settle.res(result);
    }
    lastRequest = clock();
    const r = reply(msg, result);
    if (r.__ref !== undefined) self.postMessage({type: 'reply', id: msg.id, result: r});
    else self.postMessage({type: 'reply', id: msg.id, result: r.encoded}, r.transfer);
  } catch (err) {
    // Kept (rejected) until the page releases it: a call that used it fails with this error.
    settle?.rej(err);
    lastRequest = clock();
    self.postMessage({type: 'reply', id: msg.id,
                      error: {name: err?.name ?? 'Error', message: err?.message ?? String(err)}});
  }
};
