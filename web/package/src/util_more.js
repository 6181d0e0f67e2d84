// The rest of tf.util: host-side helpers over shapes, dtypes, typed arrays and
// strings that TF.js programs and custom layers call. Glint's dtypes are
// float32, int32 and bool; 'string' exists only as plain JS arrays here.
import {GlintError} from './core.js';
import {assert, arraysEqual, isTypedArray} from './util.js';

export function nearestLargerEven(val) {
  return val % 2 === 0 ? val : val + 1;
}

export function swap(object, left, right) {
  [object[left], object[right]] = [object[right], object[left]];
}

export function distSquared(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; ++i) {
    const d = Number(a[i]) - Number(b[i]);
    s += d * d;
  }
  return s;
}

export function assertShapesMatch(shapeA, shapeB, errorMessagePrefix = '') {
  assert(arraysEqual(shapeA, shapeB),
         () => `${errorMessagePrefix} Shapes ${shapeA} and ${shapeB} must match`);
}

export function assertNonNull(a) {
  assert(a != null, 'The input to the tensor constructor must be a non-null value.');
}

export function assertNonNegativeIntegerDimensions(shape) {
  shape.forEach((d, i) => assert(Number.isInteger(d) && d >= 0,
      () => `Tensor must have a shape of non-negative integers: dimension ${i} is ${d} in [${shape}]`));
}

export function isScalarShape(shape) {
  return shape.length === 0;
}

/** Equal lengths and equal entries, a null entry on either side matching anything. */
export function arraysEqualWithNull(n1, n2) {
  if (n1 === n2) return true;
  if (n1 == null || n2 == null || n1.length !== n2.length) return false;
  for (let i = 0; i < n1.length; ++i) {
    if (n1[i] !== null && n2[i] !== null && n1[i] !== n2[i]) return false;
  }
  return true;
}

export function isInt(a) {
  return a % 1 === 0;
}

export function tanh(x) {
  return Math.tanh(x);
}

/** [width, height] of a near-square grid holding size cells. */
export function sizeToSquarishShape(size) {
  const width = Math.ceil(Math.sqrt(size));
  return [width, Math.ceil(size / width)];
}

export function rightPad(a, size) {
  return a.length >= size ? a : a + ' '.repeat(size - a.length);
}

/**
 * Calls checkFn until it returns true, waiting delayFn(attempt) ms between tries;
 * rejects after maxCounter tries.
 */
export function repeatedTry(checkFn, delayFn = (counter) => 0, maxCounter, scheduleFn) {
  const schedule = scheduleFn ?? ((fn, ms) => setTimeout(fn, ms));
  return new Promise((resolve, reject) => {
    let tries = 0;
    const attempt = () => {
      if (checkFn()) {
        resolve();
        return;
      }
      ++tries;
      const wait = delayFn(tries);
      if (maxCounter != null && tries >= maxCounter) {
        reject(new GlintError(`[util.repeatedTry] gave up after ${tries} tries`));
        return;
      }
      schedule(attempt, wait);
    };
    attempt();
  });
}

/** shape with its one -1 replaced so that it holds size elements. */
export function inferFromImplicitShape(shape, size) {
  let known = 1, implicit = -1;
  shape.forEach((d, i) => {
    if (d === -1) {
      if (implicit !== -1) {
        throw new GlintError(`[util.inferFromImplicitShape] only one -1 is allowed: found at ` +
            `dims ${implicit} and ${i} of [${shape}]`);
      }
      implicit = i;
    } else if (d < 0) {
      throw new GlintError(`[util.inferFromImplicitShape] dim ${i} of [${shape}] is negative`);
    } else {
      known *= d;
    }
  });
  if (implicit === -1) {
    if (size > 0 && size !== known) {
      throw new GlintError(`[util.inferFromImplicitShape] size ${size} does not match shape [${shape}]`);
    }
    return shape;
  }
  if (known === 0 || size % known !== 0) {
    throw new GlintError(`[util.inferFromImplicitShape] cannot infer the -1 of [${shape}] for ${size} elements`);
  }
  const out = shape.slice();
  out[implicit] = size / known;
  return out;
}

/** Axes (a number, an array, or null for all) as non-negative integers. */
export function parseAxisParam(axis, shape) {
  const rank = shape.length;
  const axes = axis == null ? shape.map((_, i) => i) : [].concat(axis);
  assert(axes.every((a) => a >= -rank && a < rank),
         () => `All values in axis param must be in range [-${rank}, ${rank}) but got axis ${axes}`);
  assert(axes.every((a) => isInt(a)), () => `All values in axis param must be integers but got axis ${axes}`);
  return axes.map((a) => (a < 0 ? rank + a : a));
}

/** {newShape, keptDims}: shape without its size-1 dims (only those in axis when given). */
export function squeezeShape(shape, axis) {
  const axes = axis == null || (Array.isArray(axis) && axis.length === 0) ? null :
      new Set(parseAxisParam(axis, shape));
  const newShape = [], keptDims = [];
  shape.forEach((d, i) => {
    if (axes !== null && axes.has(i) && d !== 1) {
      throw new GlintError(`Can't squeeze axis ${i} since its dim '${d}' is not 1`);
    }
    const drop = d === 1 && (axes === null || axes.has(i));
    if (!drop) {
      newShape.push(d);
      keptDims.push(i);
    }
  });
  return {newShape, keptDims};
}

const TYPED = {float32: Float32Array, int32: Int32Array, bool: Uint8Array};

export function getTypedArrayFromDType(dtype, size) {
  const T = TYPED[dtype];
  if (!T) throw new GlintError(`[util.getTypedArrayFromDType] unknown dtype '${dtype}'`);
  return new T(size);
}

export function getArrayFromDType(dtype, size) {
  return dtype === 'string' ? new Array(size) : getTypedArrayFromDType(dtype, size);
}

export function checkConversionForErrors(vals, dtype) {
  for (let i = 0; i < vals.length; ++i) {
    const v = vals[i];
    if (Number.isNaN(v) || !Number.isFinite(v)) {
      throw new GlintError(`A tensor of type ${dtype} being uploaded contains ${v}.`);
    }
  }
}

export function isValidDtype(dtype) {
  return ['bool', 'int32', 'float32', 'complex64', 'string'].includes(dtype);
}

/** Whether casting oldType values to newType can lose information. */
export function hasEncodingLoss(oldType, newType) {
  if (newType === 'complex64') return false;
  if (newType === 'float32') return oldType === 'complex64';
  if (newType === 'int32') return oldType === 'float32' || oldType === 'complex64';
  return !(newType === 'bool' && oldType === 'bool');
}

export function bytesPerElement(dtype) {
  const n = {float32: 4, int32: 4, bool: 1, complex64: 8}[dtype];
  if (n === undefined) throw new GlintError(`Unknown dtype ${dtype}`);
  return n;
}

export function bytesFromStringArray(arr) {
  return arr == null ? 0 : arr.reduce((n, bytes) => n + bytes.length, 0);
}

export function isString(value) {
  return typeof value === 'string' || value instanceof String;
}

export function isBoolean(value) {
  return typeof value === 'boolean';
}

export function isNumber(value) {
  return typeof value === 'number';
}

/** The dtype TF.js gives values: from the first leaf, or the typed array's kind. */
export function inferDtype(values) {
  if (Array.isArray(values)) return inferDtype(values[0]);
  if (values instanceof Float32Array) return 'float32';
  if (values instanceof Int32Array || values instanceof Uint8Array || values instanceof Uint8ClampedArray) {
    return 'int32';
  }
  if (isString(values)) return 'string';
  if (isBoolean(values)) return 'bool';
  return 'float32';
}

export function isFunction(f) {
  return typeof f === 'function';
}

/** The first divisor of size at or above start (size itself when none below). */
export function nearestDivisor(size, start) {
  for (let i = start; i < size; ++i) if (size % i === 0) return i;
  return size;
}

/** Row-major strides of shape, without the last (always 1). */
export function computeStrides(shape) {
  const rank = shape.length;
  if (rank < 2) return [];
  const strides = new Array(rank - 1);
  strides[rank - 2] = shape[rank - 1];
  for (let i = rank - 3; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

export function locToIndex(locs, rank, strides) {
  if (rank === 0) return 0;
  if (rank === 1) return locs[0];
  let index = locs[locs.length - 1];
  for (let i = 0; i < locs.length - 1; ++i) index += strides[i] * locs[i];
  return index;
}

export function indexToLoc(index, rank, strides) {
  if (rank === 0) return [];
  if (rank === 1) return [index];
  const locs = new Array(rank);
  for (let i = 0; i < rank - 1; ++i) {
    locs[i] = Math.floor(index / strides[i]);
    index -= locs[i] * strides[i];
  }
  locs[rank - 1] = index;
  return locs;
}

/** A flat array as nested arrays of shape (a scalar shape gives the one value). */
export function toNestedArray(shape, a, isComplex = false) {
  if (shape.length === 0) return a[0];
  const dims = shape.slice();
  if (isComplex) dims[dims.length - 1] *= 2;
  const size = dims.reduce((n, d) => n * d, 1);
  if (size === 0) return [];
  if (size !== a.length) {
    throw new GlintError(`[util.toNestedArray] [${shape}]${isComplex ? ' (complex)' : ''} does not ` +
        `match the ${a.length} values`);
  }
  const build = (offset, d) => {
    if (d === dims.length - 1) return Array.from({length: dims[d]}, (_, i) => a[offset + i]);
    const stride = dims.slice(d + 1).reduce((n, x) => n * x, 1);
    return Array.from({length: dims[d]}, (_, i) => build(offset + i * stride, d + 1));
  };
  return build(0, 0);
}

export function makeOnesTypedArray(size, dtype) {
  return getArrayFromDType(dtype, size).fill(1);
}

export function makeZerosTypedArray(size, dtype) {
  if (dtype === 'string') throw new GlintError(`[util.makeZerosTypedArray] unknown dtype '${dtype}'`);
  return getTypedArrayFromDType(dtype, size);
}

export function makeZerosNestedTypedArray(shape, dtype) {
  const size = shape.reduce((n, d) => n * d, 1);
  return toNestedArray(shape, makeZerosTypedArray(size, dtype));
}

export function isPromise(object) {
  return object != null && typeof object === 'object' || typeof object === 'function' ?
      typeof object.then === 'function' : false;
}

/** A one-element typed array holding value as dtype. */
export function createScalarValue(value, dtype) {
  if (dtype === 'string') return [encodeString(value)];
  return toTypedArray([value], dtype);
}

/** Nested arrays or a typed array as the typed array of dtype (bool: 1 for truthy). */
export function toTypedArray(a, dtype) {
  if (dtype === 'string') throw new GlintError('[util.toTypedArray] cannot convert a string array to a typed array');
  const flat = Array.isArray(a) ? flattenDeep(a) : a;
  if (dtype === 'bool') return Uint8Array.from(flat, (v) => (v ? 1 : 0));
  const T = TYPED[dtype];
  if (!T) throw new GlintError(`[util.toTypedArray] unknown dtype '${dtype}'`);
  return flat instanceof T ? flat : T.from(flat, Number);
}

function flattenDeep(a, out = []) {
  for (const v of a) {
    if (Array.isArray(v) || isTypedArray(v)) flattenDeep(v, out);
    else out.push(v);
  }
  return out;
}

/** Backend values (or an ArrayBuffer) as the typed array of dtype. */
export function convertBackendValuesAndArrayBuffer(data, dtype) {
  if (Array.isArray(data)) return data;
  const T = TYPED[dtype];
  if (!T) throw new GlintError(`[util.convertBackendValuesAndArrayBuffer] unknown dtype '${dtype}'`);
  if (data instanceof ArrayBuffer) return new T(data);
  if (data instanceof T) return data;
  return new T(data.buffer, data.byteOffset, data.byteLength / T.BYTES_PER_ELEMENT);
}

export function encodeString(s, encoding = 'utf-8') {
  if (!/^utf-?8$/i.test(encoding)) {
    throw new GlintError(`[util.encodeString] only utf-8 encoding is supported: got '${encoding}'`);
  }
  return new TextEncoder().encode(s);
}

export function decodeString(bytes, encoding = 'utf-8') {
  return new TextDecoder(encoding).decode(bytes);
}

/** The platform's fetch (a page's, or node's). */
export function fetch(path, requestInits) {
  if (typeof globalThis.fetch !== 'function') {
    throw new GlintError('[util.fetch] this platform has no fetch');
  }
  return globalThis.fetch(path, requestInits);
}

