// The engine inside a dedicated Web Worker (glint.worker()): answers calls from
// the page. Objects (tensors, layers, models, graph models, optimizers) stay here and travel
// as references; functions passed by the page (callbacks) become messages back.
import * as glint from './index.js';

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

function decode(v) {
  if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v) || v instanceof ArrayBuffer) {
    return v;
  }
  if ('__ref' in v) {
    const o = objects.get(v.__ref);
    if (!o) throw new glint.GlintError(`[worker] reference ${v.__ref} was released`);
    return o;
  }
  if ('__cb' in v) {
    return (...args) => {
      const transfer = [];
      self.postMessage({type: 'callback', cb: v.__cb, args: encode(args, transfer)}, transfer);
    };
  }
  if (Array.isArray(v)) return v.map(decode);
  const out = {};
  for (const [k, x] of Object.entries(v)) out[k] = decode(x);
  return out;
}

async function handle(msg) {
  const owner = msg.target ? decode({__ref: msg.target}) : glint;
  let holder = owner;
  const path = msg.path;
  for (let i = 0; i < path.length - 1; ++i) holder = holder[path[i]];
  const key = path[path.length - 1];
  switch (msg.op) {
    case 'get': return holder[key];
    case 'set':
      holder[key] = decode(msg.value);
      return undefined;
    case 'call': {
      const fn = holder[key];
      if (typeof fn !== 'function') {
        throw new glint.GlintError(`[worker] ${path.join('.')} is not a function`);
      }
      return fn.apply(holder, decode(msg.args));
    }
    case 'release':
      objects.delete(msg.target);
      return undefined;
    default:
      throw new glint.GlintError(`[worker] unknown request '${msg.op}'`);
  }
}

self.onmessage = async (e) => {
  const msg = e.data;
  try {
    const result = await handle(msg);
    const transfer = [];
    self.postMessage({type: 'reply', id: msg.id, result: encode(result, transfer)}, transfer);
  } catch (err) {
    self.postMessage({type: 'reply', id: msg.id,
                      error: {name: err?.name ?? 'Error', message: err?.message ?? String(err)}});
  }
};
