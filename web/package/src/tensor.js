// Tensors in JS: a handle to a C++ tensor, its shape and dtype read lazily,
// scopes (tidy/keep/dispose) tracked here, creation from JS values and
// read-back (dataSync blocks; data() waits for the GPU without stalling it).
import * as core from './core.js';
import {GlintError} from './core.js';

const DTYPES = ['float32', 'int32', 'bool'];
const ARRAY_TYPES = {float32: Float32Array, int32: Int32Array, bool: Uint8Array};

// ---- Scopes ------------------------------------------------------------------------

const scopes = [];  // each a Set of tensors created while it is innermost
const kept = new WeakSet();

// String and complex64 tensors are JS objects over host bytes or two engine
// tensors (string.js, complex.js); memory() counts them as TF.js does from
// this list (weak: a tensor collected without dispose() drops out).
export const jsTensors = new Set();
let jsTensorsPruneAt = 1024;
export function trackJsTensor(t) {
  // Dropped and disposed ones go as the list grows (memory() prunes it too).
  if (jsTensors.size >= jsTensorsPruneAt) {
    for (const ref of jsTensors) {
      const live = ref.deref();
      if (!live || live.isDisposedInternal) jsTensors.delete(ref);
    }
    jsTensorsPruneAt = Math.max(1024, 2 * jsTensors.size);
  }
  jsTensors.add(new WeakRef(t));
}

function track(t) {
  if (scopes.length) scopes[scopes.length - 1].add(t);
}

/** @internal Takes a tensor out of every scope: its new owner disposes it (complex64's parts). */
export function adopt(t) {
  for (const scope of scopes) scope.delete(t);
}

/** Marks a tensor so that no enclosing tidy() disposes it. */
export function keep(t) {
  kept.add(t);
  return t;
}

function collectTensors(value, out, seen = new Set()) {
  if (value instanceof Tensor) {
    out.add(value);
  } else if (value && typeof value === 'object' && !seen.has(value)) {
    seen.add(value);
    if (Array.isArray(value)) for (const v of value) collectTensors(v, out, seen);
    else if (Object.getPrototypeOf(value) === Object.prototype) {
      for (const v of Object.values(value)) collectTensors(v, out, seen);
    }
  }
}

/**
 * Runs fn and disposes every tensor it created except those it returns (a
 * tensor, or arrays/objects of them) and kept ones. Like tf.tidy, fn must
 * not return a Promise.
 */
export function tidy(nameOrFn, maybeFn) {
  const fn = typeof nameOrFn === 'function' ? nameOrFn : maybeFn;
  if (typeof fn !== 'function') throw new GlintError('[tidy] expects a function');
  const scope = new Set();
  scopes.push(scope);
  let result;
  try {
    result = fn();
    if (result instanceof Promise) {
      throw new GlintError('[tidy] the function returned a Promise: tidy cannot track async work');
    }
  } finally {
    scopes.pop();
    const survivors = new Set();
    collectTensors(result, survivors);
    for (const t of scope) {
      if (survivors.has(t) || kept.has(t)) {
        track(t);  // moves to the enclosing scope
      } else {
        t.dispose();
      }
    }
  }
  return result;
}

/** Disposes a tensor, or every tensor in an array/object. */
export function dispose(container) {
  const all = new Set();
  collectTensors(container, all);
  for (const t of all) t.dispose();
}

// ---- Tensor ------------------------------------------------------------------------

export class Tensor {
  /** @internal Wraps a handle from the engine. */
  constructor(id) {
    this.id = id;
    this._shape = null;
    this._dtype = null;
    this.isDisposedInternal = false;
    track(this);
  }

  _info() {
    if (this._shape) return;
    this._assertLive();
    const M = core.module();
    const m = core.mark();
    try {
      const shapePtr = core.alloc(4 * 16), dtypePtr = core.outInt();
      const rank = M._glint_tensor_shape(this.id, shapePtr, 16, dtypePtr);
      if (rank < 0) throw core.engineError();
      this._shape = core.readInts(shapePtr, rank);
      this._dtype = DTYPES[core.heapI32()[dtypePtr >> 2]];
    } finally {
      core.release(m);
    }
  }

  _assertLive() {
    if (this.isDisposedInternal) throw new GlintError('[Tensor] the tensor is disposed');
  }

  get shape() {
    this._info();
    return this._shape.slice();
  }
  get dtype() {
    this._info();
    return this._dtype;
  }
  get rank() {
    this._info();
    return this._shape.length;
  }
  get size() {
    this._info();
    return this._shape.reduce((a, b) => a * b, 1);
  }
  get isDisposed() {
    return this.isDisposedInternal;
  }

  /**
   * TF.js's dataToGPU on the webgpu backend: {tensorRef, buffer}, a copy of
   * the values in a GPUBuffer of glint's device (glint.webgpu.device()), after
   * the work recorded before; it lives until tensorRef is disposed. Other
   * backends have no GPU buffer to give: an error, as TF.js's cpu backend.
   */
  dataToGPU(options) {   
    this._assertLive();
    const M = core.module();
    const id = core.callInt(() => M._glint_tensor_to_gpu(this.id));
    const buffer = M.__glintGpuBuffer ?? null;
    M.__glintGpuBuffer = null;
    return {tensorRef: new Tensor(id), buffer};
  }

  /** Blocking read-back (waits for the GPU on gl). Prefer `await data()`. */
  dataSync() {
    this._assertLive();
    this._info();
    const M = core.module();
    const m = core.mark();
    try {
      const lenPtr = core.outInt();
      const p = M._glint_tensor_read(this.id, lenPtr);
      if (!p) throw core.engineError();
      return toTyped(core.readBytes(p, core.heapI32()[lenPtr >> 2]), this._dtype);
    } finally {
      core.release(m);
    }
  }

  /** Read-back that never stalls the GPU pipeline: polls a fence between frames. */
  async data() {
    this._assertLive();
    this._info();
    const readId = core.callInt(() => core.module()._glint_read_start(this.id));
    return toTyped(await finishRead(readId), this._dtype);
  }

  // Numbers for every dtype, bool too (0 and 1), as TF.js returns them.
  arraySync() {
    return nest(Array.from(this.dataSync(), Number), this.shape);
  }
  async array() {
    return nest(Array.from(await this.data(), Number), this.shape);
  }

  dispose() {
    if (this.isDisposedInternal) return;
    this.isDisposedInternal = true;
    if (core.isReady()) core.module()._glint_tensor_release(this.id);
  }

  /** Another handle to the same data; disposing one keeps the other. */
  clone() {
    this._assertLive();
    return new Tensor(core.callInt(() => core.module()._glint_tensor_clone(this.id)));
  }

  toString() {
    if (this.isDisposedInternal) return 'Tensor (disposed)';
    return core.callString(() => core.module()._glint_tensor_to_string(this.id));
  }

  print() {
    console.log(this.toString());
  }
}

/** A mutable tensor (weights, state). */
export class Variable extends Tensor {
  constructor(id, name) {
    super(id);
    this.name = name;
    kept.add(this);  // variables outlive tidy(), as in TF.js
  }
  /** True also after tf.disposeVariables() freed it (as TF.js). */
  get isDisposed() {
    return this.isDisposedInternal ||
        (core.isReady() && core.callInt(() => core.module()._glint_tensor_is_disposed(this.id)) === 1);
  }
  /** Replaces the value (same shape and dtype). */
  assign(value) {
    this._assertLive();
    core.callInt(() => core.module()._glint_variable_assign(this.id, value.id));
  }
}

export function variable(initial, trainable = true, name = undefined) {
  const t = asTensor(initial, 'variable', 'initialValue');
  if (t._parts) throw new GlintError('[variable] initialValue is complex64: variables are real (keep two)');
  const id = core.callInt(() => core.module()._glint_variable(t.id, trainable ? 1 : 0,
                                                              core.str(name ?? '')));
  if (t !== initial) t.dispose();
  const v = new Variable(id, name);
  v.trainable = trainable;
  return v;
}

function toTyped(bytes, dtype) {
  const T = ARRAY_TYPES[dtype];
  return new T(bytes.buffer, bytes.byteOffset, bytes.byteLength / T.BYTES_PER_ELEMENT);
}

function nest(flat, shape) {
  if (shape.length === 0) return flat[0];
  let level = flat;
  for (let d = shape.length - 1; d > 0; --d) {
    const size = shape[d], next = [];
    for (let i = 0; i < level.length; i += size) next.push(level.slice(i, i + size));
    level = next;
  }
  return level;
}

// In browsers a MessageChannel turn (not clamped like setTimeout); setImmediate in node.
let channel = null;
const waiting = [];
/** The bytes of a read that glint_read_start (or a graph run) started, once it landed. */
export async function finishRead(readId) {
  const M = core.module();
  const gpuRead = M._glint_read_gpu_id(readId);
  if (gpuRead > 0 && M.glintWebGPUReadDone) await M.glintWebGPUReadDone(gpuRead);
  for (;;) {
    const r = M._glint_read_poll(readId);
    if (r < 0) throw core.engineError();
    if (r === 1) break;
    await nextTick();
  }
  const m = core.mark();
  try {
    const lenPtr = core.outInt();
    const p = M._glint_read_take(readId, lenPtr);
    if (!p) throw core.engineError();
    return core.readBytes(p, core.heapI32()[lenPtr >> 2]);
  } finally {
    core.release(m);
  }
}

export function nextTick() {
  if (typeof setImmediate === 'function') return new Promise((r) => setImmediate(r));
  if (typeof MessageChannel === 'function') {
    if (!channel) {
      channel = new MessageChannel();
      channel.port1.onmessage = () => waiting.shift()?.();
    }
    return new Promise((r) => {
      waiting.push(r);
      channel.port2.postMessage(0);
    });
  }
  return new Promise((r) => setTimeout(r, 0));
}

// Where requests arrive from outside between the steps of a long loop (glint.worker()),
// the loop's yields also wait while requests keep coming: a chain of calls that is
// not pipelined then answers in one go, not one training step per call.
let quietWait = null;
/** @internal Set by worker_main.js. */
export function setQuietWait(fn) {
  quietWait = fn;
}

/** After a loop's yield: in a worker, waits as long as requests keep coming. */
export async function waitForQuiet() {
  if (quietWait) await quietWait();
}

// ---- Creation ------------------------------------------------------------------------

// string tensors are made in string.js, which registers its maker here.
let makeStringTensor = () => {
  throw new GlintError('[tensor] string tensors are not available in this build');
};
/** @internal */
export function setStringTensorMaker(make) {
  makeStringTensor = make;
}

function inferShape(values) {
  const shape = [];
  let v = values;
  while (Array.isArray(v) || ArrayBuffer.isView(v)) {
    shape.push(v.length);
    if (v.length === 0) break;
    v = v[0];
  }
  return shape;
}

function flatten(values, out) {
  if (Array.isArray(values)) {
    for (const v of values) flatten(v, out);
  } else if (ArrayBuffer.isView(values)) {
    for (let i = 0; i < values.length; ++i) out.push(values[i]);
  } else {
    out.push(values);
  }
  return out;
}

// TF.js's inference: integer typed arrays are int32 (a Uint8Array too: pixels,
// not booleans), other numbers float32, booleans bool.
function inferDtype(values) {
  let leaf = values;
  while (Array.isArray(leaf) && leaf.length) leaf = leaf[0];
  if (typeof leaf === 'string') return 'string';
  if (values instanceof Int32Array || values instanceof Uint8Array ||
      values instanceof Uint8ClampedArray) {
    return 'int32';
  }
  let v = values;
  while (Array.isArray(v) && v.length) v = v[0];
  return typeof v === 'boolean' ? 'bool' : 'float32';
}

/**
 * tensor(values, shape?, dtype?): values are a number, a (nested) array, or a
 * typed array (flat, with a shape).
 */
export function tensor(values, shape, dtype) {
  if (values instanceof Tensor) throw new GlintError('[tensor] values is already a Tensor');
  dtype = dtype ?? inferDtype(values);
  if (dtype === 'string') return makeStringTensor(values, shape);
  const code = DTYPES.indexOf(dtype);
  if (dtype === 'complex64') {
    throw new GlintError('[tensor] a complex64 tensor is not made from values: use complex(real, imag)');
  }
  if (code < 0) throw new GlintError(`[tensor] dtype must be float32, int32, bool or string: got ${dtype}`);
  const inferred = typeof values === 'number' || typeof values === 'boolean' ? [] :
      ArrayBuffer.isView(values) ? [values.length] : inferShape(values);
  shape = shape ?? inferred;
  let flat;
  if (ArrayBuffer.isView(values) && values instanceof ARRAY_TYPES[dtype]) {
    flat = values;
  } else {
    const list = typeof values === 'number' || typeof values === 'boolean' ? [values] :
        flatten(values, []);
    for (const v of list) {
      if (typeof v !== 'number' && typeof v !== 'boolean') {
        throw new GlintError(`[tensor] values must be numbers or booleans: found ${typeof v}`);
      }
    }
    // bool: true where the value rounds to non-zero, as TF.js stores it (never 255 for -1).
    flat = ARRAY_TYPES[dtype].from(list, dtype === 'bool' ? (v) => (Math.round(Number(v)) !== 0 ? 1 : 0) : (v) => Number(v));
  }
  const expected = shape.reduce((a, b) => a * b, 1);
  if (flat.length !== expected) {
    throw new GlintError(`[tensor] ${flat.length} values do not fill shape [${shape}] ` +
        `(${expected} elements)`);
  }
  const id = core.callInt(() => core.module()._glint_tensor(core.bytes(flat), code,
                                                            core.ints(shape), shape.length));
  return new Tensor(id);
}

export function scalar(value, dtype) {
  return tensor(value, [], dtype);
}
function ranked(rank) {
  return (values, shape, dtype) => {
    // tensor1d(values, dtype) is TF.js's form: a string there is the dtype.
    if (typeof shape === 'string') [shape, dtype] = [undefined, shape];
    const t = tensor(values, shape, dtype);
    if (t.rank !== rank) {
      const s = t.shape;
      t.dispose();
      throw new GlintError(`[tensor${rank}d] values must have rank ${rank}: got shape [${s}]`);
    }
    return t;
  };
}
export const tensor1d = ranked(1);
export const tensor2d = ranked(2);
export const tensor3d = ranked(3);
export const tensor4d = ranked(4);
export const tensor5d = ranked(5);
export const tensor6d = ranked(6);

/** A Tensor as is; numbers and arrays become a new tensor (dtype like `like`). */
export function asTensor(x, op, arg, like) {
  if (x instanceof Tensor) {
    x._assertLive();
    return x;
  }
  if (typeof x === 'string') return tensor(x);
  if (typeof x === 'number' || typeof x === 'boolean' || Array.isArray(x) ||
      ArrayBuffer.isView(x)) {
    // Numbers take the dtype of the tensor they meet (like.dtype); int32 also
    // applies to arrays for index inputs (like = {dtype: 'int32'}).
    const dtype = like && like.dtype === 'int32' && !(like instanceof Tensor) ? 'int32' :
        typeof x === 'number' && like instanceof Tensor ? like.dtype : undefined;
    return tensor(x, undefined, dtype === 'bool' ? undefined : dtype);
  }
  throw new GlintError(`[${op}] ${arg} must be a Tensor, a number or an array: got ${typeof x}`);
}

/**
 * fn(...tensors) for inputs given as tensors or raw values ([[value, arg],
 * ...] of op); the tensors made from raw values are freed when it settles
 * (async ops that outlive a tidy).
 */
export async function withInputs(op, inputs, fn) {
  const tensors = inputs.map(([x, arg]) => asTensor(x, op, arg));
  try {
    return await fn(...tensors);
  } finally {
    tensors.forEach((t, i) => {
      if (t !== inputs[i][0]) t.dispose();
    });
  }
}

core.setCallHandler((fn, ids) => {
  // The C++ side owns the argument handles; wrap copies so JS disposal is independent.
  const args = ids.map((id) => new Tensor(core.callInt(() => core.module()._glint_tensor_clone(id))));
  let resultId;
  const result = tidy(() => fn(...args));
  try {
    if (!(result instanceof Tensor)) {
      throw new GlintError('[grad] the function must return a Tensor');
    }
    if (result._parts) throw new GlintError('[grad] the function must return a real tensor: got complex64');
    resultId = core.callInt(() => core.module()._glint_tensor_clone(result.id));
  } finally {
    dispose(args);
    if (result instanceof Tensor) result.dispose();
  }
  return resultId;
});
