// tf.util: the array helpers TF.js programs call while preparing data.
import {GlintError} from './core.js';

/** Throws a GlintError with msg() (or msg) when expr is false. */
export function assert(expr, msg) {
  if (!expr) throw new GlintError(typeof msg === 'function' ? msg() : String(msg));
}

/** Shuffles an array (or typed array) in place (Fisher-Yates on Math.random). */
export function shuffle(array) {
  for (let i = array.length - 1; i > 0; --i) {
    const j = Math.floor(Math.random() * (i + 1));
    const t = array[i];
    array[i] = array[j];
    array[j] = t;
  }
}

/** Shuffles two arrays of the same length in place by one permutation. */
export function shuffleCombo(array, array2) {
  if (array.length !== array2.length) {
    throw new GlintError(`[util.shuffleCombo] the arrays' lengths differ: ${array.length} vs ${array2.length}`);
  }
  for (let i = array.length - 1; i > 0; --i) {
    const j = Math.floor(Math.random() * (i + 1));
    [array[i], array[j]] = [array[j], array[i]];
    [array2[i], array2[j]] = [array2[j], array2[i]];
  }
}

/** 0..n-1 in a random order, as a Uint32Array. */
export function createShuffledIndices(n) {
  const indices = new Uint32Array(n);
  for (let i = 0; i < n; ++i) indices[i] = i;
  shuffle(indices);
  return indices;
}

export function sizeFromShape(shape) {
  if (!Array.isArray(shape)) throw new GlintError('[util.sizeFromShape] expects an array of dimensions');
  if (shape.length === 0) return 1;
  return shape.reduce((n, d) => n * d, 1);
}

export function clamp(min, x, max) {
  return Math.max(min, Math.min(x, max));
}

export function sum(array) {
  let s = 0;
  for (let i = 0; i < array.length; ++i) s += array[i];
  return s;
}

export function randUniform(a, b) {
  return a + Math.random() * (b - a);
}

export function isTypedArray(a) {
  return ArrayBuffer.isView(a) && !(a instanceof DataView);
}

/** Nested arrays (and typed arrays in them) to one flat array. */
export function flatten(values, out = []) {
  if (Array.isArray(values) || isTypedArray(values)) {
    for (let i = 0; i < values.length; ++i) flatten(values[i], out);
  } else {
    out.push(values);
  }
  return out;
}

export function arraysEqual(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; ++i) if (a[i] !== b[i]) return false;
  return true;
}

export function now() {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

import * as more from './util_more.js';
import {fingerPrint64, hexToLong} from './util_long.js';

export const util = {
  assert, shuffle, shuffleCombo, createShuffledIndices, sizeFromShape, clamp, sum, randUniform,
  isTypedArray, flatten, arraysEqual, now, fingerPrint64, hexToLong, ...more,
};
