// TF.js ops whose results depend on their inputs' values (unique,
// setdiff1dAsync, inTopKAsync): they read them, as TF.js's do.
import {GlintError} from './core.js';
import {tensor, tidy, asTensor, withInputs} from './tensor.js';
import {ops} from './ops.js';

const need = (op, arg, x) => asTensor(x, op, arg);

function sliceKeys(values, shape, axis) {
  const outer = shape.slice(0, axis).reduce((n, d) => n * d, 1);
  const n = shape[axis], inner = shape.slice(axis + 1).reduce((a, d) => a * d, 1);
  const keys = [];
  for (let i = 0; i < n; ++i) {
    const parts = [];
    for (let o = 0; o < outer; ++o) {
      const start = (o * n + i) * inner;
      for (let j = 0; j < inner; ++j) parts.push(values[start + j]);
    }
    keys.push(parts.join(','));
  }
  return keys;
}

/** {values, indices}: the distinct slices of x along axis in first-seen order, and each slice's index. */
export function unique(x, axis = 0) {
  x = need('unique', 'x', x);
  const rank = Math.max(1, x.rank);
  const ax = axis < 0 ? axis + rank : axis;
  if (x.rank === 0 || !Number.isInteger(ax) || ax < 0 || ax >= x.rank) {
    throw new GlintError(`[unique] axis ${axis} is out of range for x [${x.shape}] (x must be rank >= 1)`);
  }
  const keys = sliceKeys(x.dataSync(), x.shape, ax);
  const firstAt = new Map(), keep = [], indices = new Int32Array(keys.length);
  keys.forEach((k, i) => {
    if (!firstAt.has(k)) {
      firstAt.set(k, keep.length);
      keep.push(i);
    }
    indices[i] = firstAt.get(k);
  });
  const values = tidy(() => ops.gather(x, tensor(Int32Array.from(keep), [keep.length], 'int32'), ax));
  return {values, indices: tensor(indices, [indices.length], 'int32')};
}

/** [out, indices]: the values of 1-D x not in y, in x's order, and where they are in x. */
export function setdiff1dAsync(x, y) {
  return withInputs('setdiff1dAsync', [[x, 'x'], [y, 'y']], setdiff1d);
}

async function setdiff1d(a, b) {
  if (a.rank !== 1 || b.rank !== 1 || a.dtype !== b.dtype) {
    throw new GlintError(`[setdiff1dAsync] x and y must be 1-D of one dtype: got ${a.dtype} [${a.shape}] and ` +
        `${b.dtype} [${b.shape}]`);
  }
  const [xs, ys] = await Promise.all([a.data(), b.data()]);
  const drop = new Set(ys);
  const vals = [], idx = [];
  xs.forEach((v, i) => {
    if (!drop.has(v)) {
      vals.push(v);
      idx.push(i);
    }
  });
  return [tensor(vals, [vals.length], a.dtype), tensor(idx, [idx.length], 'int32')];
}

/**
 * Whether each target class is among the k largest predictions of its row
 * (ties broken towards the lower class index). bool, predictions' shape less the last axis.
 */
export function inTopKAsync(predictions, targets, k = 1) {
  return withInputs('inTopKAsync', [[predictions, 'predictions'], [targets, 'targets']], (p, t) => inTopK(p, t, k));
}

async function inTopK(p, t, k) {
  const classes = p.shape[p.rank - 1];
  if (p.rank < 1 || t.shape.join() !== p.shape.slice(0, -1).join() || !Number.isInteger(k) || k < 0 ||
      k > classes) {
    throw new GlintError(`[inTopKAsync] needs predictions [..., classes], targets of the leading shape and ` +
        `0 <= k <= classes: got predictions [${p.shape}], targets [${t.shape}], k ${k}`);
  }
  const [pv, tv] = await Promise.all([p.data(), t.data()]);
  const out = new Uint8Array(tv.length);
  for (let r = 0; r < tv.length; ++r) {
    const target = tv[r], v = pv[r * classes + target];
    // Rank of the target: classes strictly larger, or equal with a lower index, come first.
    let ahead = 0;
    for (let c = 0; c < classes; ++c) {
      const w = pv[r * classes + c];
      if (w > v || (w === v && c < target)) ++ahead;
    }
    out[r] = ahead < k ? 1 : 0;
  }
  return tensor(Array.from(out, Boolean), t.shape, 'bool');
}
