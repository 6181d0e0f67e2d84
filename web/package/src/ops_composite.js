// TF.js ops that Glint builds from its own ops in JS: each is a few engine ops,
// so it runs on every backend and the tape differentiates it.
import {GlintError} from './core.js';
import {Tensor, tensor, tidy, asTensor, withInputs} from './tensor.js';
import {ops} from './ops.js';
import {computedInFloat, named} from './ops_dtype_rules.js';

function need(op, arg, x) {
  return asTensor(x, op, arg);
}

/** TF.js's float-only ops read numbers and arrays as float32, and refuse int32 and bool tensors by name. */
function float(op, x) {
  const t = x instanceof Tensor ? x : tensor(x, undefined, 'float32');
  if (t.dtype !== 'float32') throw new GlintError(`[${op}] x must be float32: got ${t.dtype} [${t.shape}]`);
  return t;
}

/** num evenly spaced values from start to stop (both included). */
export function linspace(start, stop, num) {
  if (!Number.isInteger(num) || num <= 0) {
    throw new GlintError(`[linspace] num must be a positive integer: got ${num}`);
  }
  const step = num > 1 ? (stop - start) / (num - 1) : 0;
  return tensor(Float32Array.from({length: num}, (_, i) => start + i * step), [num]);
}

/** Element-wise sum of tensors of one shape. */
export function addN(tensors) {
  if (!Array.isArray(tensors) || tensors.length === 0) {
    throw new GlintError('[addN] expects a non-empty array of tensors');
  }
  const list = tensors.map((t, i) => need('addN', `tensors[${i}]`, t));
  list.forEach((t, i) => {
    if (t.dtype !== list[0].dtype) {
      throw new GlintError(`[addN] tensors[${i}] is ${t.dtype}, tensors[0] ${list[0].dtype}: addN does not cast`);
    }
    if (t.shape.join() !== list[0].shape.join()) {
      throw new GlintError(`[addN] tensors[${i}] has shape [${t.shape}], tensors[0] [${list[0].shape}]: ` +
          'addN does not broadcast');
    }
  });
  return tidy(() => list.slice(1).reduce((sum, t) => ops.add(sum, t), list[0].clone()));
}

/** An identity matrix [numRows, numColumns], repeated over batchShape. */
export function eye(numRows, numColumns = numRows, batchShape, dtype = 'float32') {
  if (!Number.isInteger(numRows) || numRows < 0 || !Number.isInteger(numColumns) || numColumns < 0) {
    throw new GlintError(`[eye] numRows and numColumns must be non-negative integers: got ` +
        `${numRows}, ${numColumns}`);
  }
  const values = new Float32Array(numRows * numColumns);
  for (let i = 0; i < Math.min(numRows, numColumns); ++i) values[i * numColumns + i] = 1;
  const m = tensor(values, [numRows, numColumns], 'float32');
  const shaped = batchShape ? tidy(() => ops.tile(ops.reshape(m, [...batchShape.map(() => 1),
    numRows, numColumns]), [...batchShape, 1, 1])) : m;
  if (shaped !== m) m.dispose();
  if (dtype === 'float32') return shaped;
  return tidy(() => ops.cast(shaped, dtype));
}

export function clone(x) {
  return need('clone', 'x', x).clone();
}

export function print(x) {
  need('print', 'x', x).print();
}

/** v1 [m] outer v2 [n] -> [m, n]. */
export function outerProduct(v1, v2) {
  const a = need('outerProduct', 'v1', v1), b = need('outerProduct', 'v2', v2);
  if (a.rank !== 1 || b.rank !== 1) {
    throw new GlintError(`[outerProduct] v1 and v2 must be rank 1: got [${a.shape}] and [${b.shape}]`);
  }
  return tidy(() => ops.matMul(ops.reshape(a, [-1, 1]), ops.reshape(b, [1, -1])));
}

/**
 * Vector and matrix norms: ord 'euclidean' | 'fro' | 1 | 2 | Infinity | -Infinity
 * or another p (vectors); over all elements (axis null), one axis, or two axes.
 */
export function norm(x, ord = 'euclidean', axis = null, keepDims = false) {
  return named('norm', () => normOf(need('norm', 'x', x), ord, axis, keepDims));
}

function normOf(x, ord, axis, keepDims) {
  if (x.rank === 0 && axis == null) return ops.abs(x);
  const axes = axis === null || axis === undefined ? null : Array.isArray(axis) ? axis : [axis];
  if (axes !== null && axes.length > 2) {
    throw new GlintError(`[norm] axis must be null, one axis or two: got ${JSON.stringify(axis)}`);
  }
  return tidy(() => {
    const a = ops.abs(x);
    // No axes ([]): the norm of each element alone.
    if (axes === null || axes.length <= 1) {
      const ax = axes === null ? null : axes.length ? axes[0] : [];
      // 'fro' is a matrix norm only, as in TF.js.
      if (ord === 'euclidean' || ord === 2) {
        return ops.sqrt(ops.sum(ops.square(x), ax, keepDims));
      }
      if (ord === 1) return ops.sum(a, ax, keepDims);
      if (ord === Infinity) return ops.max(a, ax, keepDims);
      if (ord === -Infinity) return ops.min(a, ax, keepDims);
      if (typeof ord === 'number' && ord > 0) {
        return ops.pow(ops.sum(ops.pow(a, ord), ax, keepDims), 1 / ord);
      }
      throw new GlintError(`[norm] ord ${ord} is not supported for a vector norm`);
    }
    const [rowAxis, colAxis] = axes.map((v) => (v < 0 ? v + x.rank : v));
    const keep = (t) => (keepDims ? t : ops.squeeze(t, [rowAxis, colAxis]));
    if (ord === 'euclidean' || ord === 'fro') {
      return keep(ops.sqrt(ops.sum(ops.sum(ops.square(x), rowAxis, true), colAxis, true)));
    }
    if (ord === 1) return keep(ops.max(ops.sum(a, rowAxis, true), colAxis, true));
    if (ord === Infinity) return keep(ops.max(ops.sum(a, colAxis, true), rowAxis, true));
    if (ord === -Infinity) return keep(ops.min(ops.sum(a, colAxis, true), rowAxis, true));
    throw new GlintError(`[norm] ord ${ord} is not supported for a matrix norm`);
  });
}

export function euclideanNorm(x, axis = null, keepDims = false) {
  return named('euclideanNorm', () => norm(x, 'euclidean', axis, keepDims));
}

/** log(sigmoid(x)) = -softplus(-x), stable for large |x|. */
export const logSigmoid = computedInFloat('logSigmoid', (x) => tidy(() => ops.neg(ops.softplus(ops.neg(x)))));

/** 1 where x > 0, else alpha (an int32 x: alpha truncated, as TF.js stores it). */
export const step = computedInFloat('step', (x, alpha = 0) =>
  tidy(() => ops.where(ops.greater(x, 0), ops.onesLike(x), ops.mul(ops.onesLike(x), alpha))));

/** a / b, and 0 where b is 0. */
export function divNoNan(a, b) {
  const x = need('divNoNan', 'a', a), y = need('divNoNan', 'b', b);
  return named('divNoNan', () => tidy(() => {
    const zero = ops.equal(y, 0);
    const safe = ops.where(zero, ops.onesLike(y), y);
    const q = ops.div(x, safe);
    return ops.where(zero, ops.zerosLike(q), q);
  }));
}

export function isNaN(x) {
  x = need('isNaN', 'x', x);
  return ops.notEqual(x, x);
}

export function isInf(x) {
  x = need('isInf', 'x', x);
  return tidy(() => ops.equal(ops.abs(x), Infinity));
}

export function isFinite(x) {
  x = need('isFinite', 'x', x);
  return tidy(() => ops.logicalNot(ops.logicalOr(isNaN(x), isInf(x))));
}

export function tan(x) {
  return tidy(() => {
    const t = float('tan', x);
    return ops.div(ops.sin(t), ops.cos(t));
  });
}

export const sinh = computedInFloat('sinh', (x) => tidy(() => ops.mul(ops.sub(ops.exp(x), ops.exp(ops.neg(x))), 0.5)));

export function cosh(x) {
  return tidy(() => {
    const t = float('cosh', x);
    return ops.mul(ops.add(ops.exp(t), ops.exp(ops.neg(t))), 0.5);
  });
}

/**
 * Running sums along axis: a product with a triangular matrix of ones, so the
 * tape differentiates it (exclusive: the sums before each element; reverse:
 * from the end).
 */
export function cumsum(x, axis = 0, exclusive = false, reverse = false) {
  x = need('cumsum', 'x', x);
  const ax = axis < 0 ? axis + x.rank : axis;
  if (!Number.isInteger(ax) || ax < 0 || ax >= x.rank) {
    throw new GlintError(`[cumsum] axis ${axis} is out of range for shape [${x.shape}]`);
  }
  const n = x.shape[ax];
  if (x.size === 0) return x.clone();
  const mask = new Float32Array(n * n);
  for (let from = 0; from < n; ++from) {
    for (let to = 0; to < n; ++to) {
      const included = reverse ? (exclusive ? from > to : from >= to) : (exclusive ? from < to : from <= to);
      if (included) mask[from * n + to] = 1;
    }
  }
  return tidy(() => {
    const perm = Array.from({length: x.rank}, (_, i) => i).filter((i) => i !== ax).concat(ax);
    const moved = ops.transpose(x, perm);
    const rows = ops.reshape(ops.cast(moved, 'float32'), [-1, n]);
    const summed = ops.reshape(ops.matMul(rows, tensor(mask, [n, n])), moved.shape);
    const inverse = perm.map((_, i) => perm.indexOf(i));
    const out = ops.transpose(summed, inverse);
    return x.dtype === 'float32' ? out : ops.cast(out, x.dtype);
  });
}

/** max(0, x) + alpha * min(0, x), alpha broadcast against x. */
export const prelu = computedInFloat('prelu', (x, alpha) => {
  const a = need('prelu', 'alpha', alpha);
  return tidy(() => ops.add(ops.relu(x), ops.mul(a, ops.minimum(x, 0))));
}, true);

export const expm1 = computedInFloat('expm1', (x) => tidy(() => ops.sub(ops.exp(x), 1)));

/** x broadcast to shape (numpy rules; x's rank at most shape's). */
export function broadcastTo(x, shape) {
  x = need('broadcastTo', 'x', x);
  if (!Array.isArray(shape) || x.rank > shape.length) {
    throw new GlintError(`[broadcastTo] cannot broadcast [${x.shape}] to ${JSON.stringify(shape)}`);
  }
  const padded = [...Array(shape.length - x.rank).fill(1), ...x.shape];
  padded.forEach((d, i) => {
    if (d !== 1 && d !== shape[i]) {
      throw new GlintError(`[broadcastTo] cannot broadcast [${x.shape}] to [${shape}]: ` +
          `dimension ${i} is ${d}, not 1 or ${shape[i]}`);
    }
  });
  return tidy(() => ops.tile(ops.reshape(x, padded), padded.map((d, i) => (d === 1 ? shape[i] : 1))));
}

/** Coordinate grids of two 1-D tensors: indexing 'xy' (default) or 'ij'. */
export function meshgrid(x, y, {indexing = 'xy'} = {}) {
  if (indexing !== 'xy' && indexing !== 'ij') {
    throw new GlintError(`[meshgrid] indexing must be 'xy' or 'ij': got '${indexing}'`);
  }
  const a = need('meshgrid', 'x', x), b = y === undefined ? a : need('meshgrid', 'y', y);
  const [n, m] = [a.size, b.size];
  return tidy(() => {
    const fa = ops.reshape(a, [-1]), fb = ops.reshape(b, [-1]);
    if (indexing === 'xy') {
      return [ops.tile(ops.reshape(fa, [1, n]), [m, 1]), ops.tile(ops.reshape(fb, [m, 1]), [1, n])];
    }
    return [ops.tile(ops.reshape(fa, [n, 1]), [1, m]), ops.tile(ops.reshape(fb, [1, m]), [n, 1])];
  });
}

/** 1-D convolution [batch, width, in] * [fw, in, out], as a conv2d of height 1. */
export function conv1d(x, filter, stride = 1, pad = 'valid', dataFormat = 'NWC', dilation = 1) {
  if (dataFormat !== 'NWC') throw new GlintError(`[conv1d] dataFormat must be 'NWC' (got '${dataFormat}')`);
  x = need('conv1d', 'x', x);
  const f = need('conv1d', 'filter', filter);
  const batched = x.rank === 3;
  if (!(x.rank === 2 || batched) || f.rank !== 3) {
    throw new GlintError(`[conv1d] x must be rank 2 or 3 and filter rank 3: got [${x.shape}] and [${f.shape}]`);
  }
  const padArg = typeof pad === 'number' ? [[0, 0], [0, 0], [pad, pad], [0, 0]] : pad;
  return named('conv1d', () => tidy(() => {
    const x4 = ops.reshape(x, batched ? [x.shape[0], 1, x.shape[1], x.shape[2]] : [1, 1, ...x.shape]);
    const y = ops.conv2d(x4, ops.expandDims(f, 0), [1, stride], padArg, 'NHWC', [1, dilation]);
    return ops.reshape(y, batched ? [y.shape[0], y.shape[2], y.shape[3]] : [y.shape[2], y.shape[3]]);
  }));
}

/** Slices of x at the index tuples in indices' last axis (a gather on the flattened leading axes). */
export function gatherND(x, indices) {
  x = need('gatherND', 'x', x);
  const idx = indices instanceof Tensor ? indices : tensor(indices, undefined, 'int32');
  try {
    const k = idx.shape[idx.rank - 1];
    if (idx.dtype !== 'int32' || !(k >= 1 && k <= x.rank)) {
      throw new GlintError(`[gatherND] indices must be int32 with a last dimension of 1..${x.rank}: ` +
          `got ${idx.dtype} [${idx.shape}]`);
    }
    // Row-major strides of x's first k axes.
    const strides = new Array(k).fill(1);
    for (let i = k - 2; i >= 0; --i) strides[i] = strides[i + 1] * x.shape[i + 1];
    return tidy(() => {
      const flatIdx = ops.sum(ops.mul(idx, tensor(strides, [k], 'int32')), -1);
      const rows = ops.reshape(x, [-1, ...x.shape.slice(k)]);
      return ops.gather(rows, flatIdx);
    });
  } finally {
    if (idx !== indices) idx.dispose();
  }
}

/** Counts of (label, prediction) pairs: [numClasses, numClasses] int32. */
export function confusionMatrix(labels, predictions, numClasses) {
  const l = need('confusionMatrix', 'labels', labels), p = need('confusionMatrix', 'predictions', predictions);
  if (l.rank !== 1 || p.rank !== 1 || l.shape[0] !== p.shape[0]) {
    throw new GlintError(`[confusionMatrix] labels and predictions must be 1-D of one length: ` +
        `got [${l.shape}] and [${p.shape}]`);
  }
  if (!Number.isInteger(numClasses) || numClasses < 1) {
    throw new GlintError(`[confusionMatrix] numClasses must be a positive integer: got ${numClasses}`);
  }
  return tidy(() => ops.cast(ops.matMul(
      ops.oneHot(ops.cast(l, 'int32'), numClasses, 1, 0, 'float32'),
      ops.oneHot(ops.cast(p, 'int32'), numClasses, 1, 0, 'float32'), true, false), 'int32'));
}

/** The rows of x (along axis) where mask is true; reads the mask. */
export function booleanMaskAsync(x, mask, axis = 0) {
  return withInputs('booleanMaskAsync', [[x, 'x'], [mask, 'mask']], (t, m) => booleanMask(t, m, axis));
}

async function booleanMask(x, m, axis) {
  if (m.rank < 1 || m.shape.some((d, i) => d !== x.shape[axis + i])) {
    throw new GlintError(`[booleanMaskAsync] mask [${m.shape}] must match x [${x.shape}] from axis ${axis}`);
  }
  const flags = await m.data();
  const keep = [];
  for (let i = 0; i < flags.length; ++i) if (flags[i]) keep.push(i);
  return tidy(() => {
    const lead = x.shape.slice(0, axis);
    const flat = ops.reshape(x, [...lead, m.size, ...x.shape.slice(axis + m.rank)]);
    return ops.gather(flat, tensor(keep, [keep.length], 'int32'), axis);
  });
}

/** Coordinates of the true elements of condition: [count, rank] int32; reads it. */
export async function whereAsync(condition) {
  const c = need('whereAsync', 'condition', condition);
  const flags = await c.data();
  const coords = [];
  for (let i = 0; i < flags.length; ++i) {
    if (!flags[i]) continue;
    let rest = i;
    const at = new Array(c.rank);
    for (let d = c.rank - 1; d >= 0; --d) {
      at[d] = rest % c.shape[d];
      rest = Math.floor(rest / c.shape[d]);
    }
    coords.push(...at);
  }
  const count = flags.reduce((k, f) => k + (f ? 1 : 0), 0);
  return tensor(Int32Array.from(coords), [count, c.rank], 'int32');
}

/** tf.metrics.r2Score: 1 - (residual sum of squares) / (total sum of squares), over all elements. */
export function r2Score(yTrue, yPred) {
  const t = need('r2Score', 'yTrue', yTrue), p = need('r2Score', 'yPred', yPred);
  return tidy(() => ops.sub(1, ops.div(ops.sum(ops.square(ops.sub(t, p))),
                                       ops.sum(ops.square(ops.sub(t, ops.mean(t)))))));
}

// TF.js's rank-checked aliases (slice2d, concat1d, ...).
function ranked(name, rank, fn) {
  return (x, ...rest) => {
    const first = Array.isArray(x) ? x[0] : x;
    if (first instanceof Tensor && first.rank !== rank) {
      throw new GlintError(`[${name}] expects a rank-${rank} tensor: got shape [${first.shape}]`);
    }
    return fn(x, ...rest);
  };
}

export const rankedAliases = {};
for (const r of [1, 2, 3, 4]) {
  rankedAliases[`slice${r}d`] = ranked(`slice${r}d`, r, ops.slice);
  rankedAliases[`concat${r}d`] = ranked(`concat${r}d`, r, ops.concat);
  rankedAliases[`reverse${r}d`] = ranked(`reverse${r}d`, r, ops.reverse);
  rankedAliases[`pad${r}d`] = ranked(`pad${r}d`, r, ops.pad);
}
