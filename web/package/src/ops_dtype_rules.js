// TF.js's rules for inputs the engine's ops take in one form only, applied over
// ops.js's ops (which the Tensor methods call too): int32 and bool inputs of
// float ops, bool inputs of arithmetic, rank-3 (unbatched) images of the
// windowed ops, rank-1 operands of dot, and floorDiv's int32 result.
// Found by tests/web/op_table.test.mjs against TF.js 4.22.
import {GlintError} from './core.js';
import {asTensor, tidy, scalar} from './tensor.js';
import {ops} from './ops.js';

const int = (v) => scalar(v, 'int32');

/**
 * A float op given int32 or bool, as TF.js computes it: in float, the result
 * float32 (toFloat) or stored back in the input's dtype, int32 truncated
 * toward zero and a non-finite value stored as 0 (what its Int32Array keeps).
 */
export function computedInFloat(name, f, toFloat = false) {
  return (x, ...rest) => tidy(() => {
    const t = asTensor(x, name, 'x');
    if (t.dtype !== 'int32' && t.dtype !== 'bool') return f(t, ...rest);  // float32 (complex64 refused there)
    const y = f(ops.cast(t, 'float32'), ...rest);
    if (toFloat) return y;
    const finite = ops.equal(ops.sub(y, y), 0);
    return ops.cast(ops.where(finite, y, ops.zerosLike(y)), t.dtype);
  });
}

/** An op the engine defines on float32 and int32, given bool: computed in int32, the result bool again. */
function boolAsInt(name, f) {
  return (x, ...rest) => tidy(() => {
    const t = asTensor(x, name, 'x');
    if (t.dtype !== 'bool') return f(t, ...rest);
    return ops.cast(f(ops.cast(t, 'int32'), ...rest), 'bool');
  });
}

/** An op with an exact int32 form (intForm), the engine's float32 one otherwise; bool computed as int32. */
function withIntForm(name, f, intForm) {
  return boolAsInt(name, (t, ...rest) => (t.dtype === 'int32' ? intForm(t, ...rest) : f(t, ...rest)));
}

// The forms replaced, called for the inputs they take (whatever wrapped them before: complex.js's too).
const base = {...ops};
const unary = (name) => (t) => base[name](t);

for (const name of ['asin', 'acos', 'atan', 'asinh', 'acosh', 'atanh', 'log1p', 'reciprocal', 'selu', 'softplus']) {
  ops[name] = computedInFloat(name, unary(name));
}
for (const name of ['exp', 'erf']) ops[name] = computedInFloat(name, unary(name), true);
ops.leakyRelu = computedInFloat('leakyRelu', (t, alpha) => base.leakyRelu(t, alpha), true);
ops.logSoftmax = computedInFloat('logSoftmax', (t, axis) => base.logSoftmax(t, axis), true);

for (const name of ['abs', 'neg', 'sign', 'square']) ops[name] = boolAsInt(name, unary(name));
ops.relu = withIntForm('relu', unary('relu'), (t) => ops.maximum(t, int(0)));
ops.relu6 = withIntForm('relu6', unary('relu6'), (t) => ops.minimum(ops.maximum(t, int(0)), int(6)));
ops.round = withIntForm('round', unary('round'), (t) => t.clone());
// Clamped, then truncated toward zero as TF.js stores it: for integers, a clamp to the truncated bounds.
ops.clipByValue = withIntForm('clipByValue', (t, lo, hi) => base.clipByValue(t, lo, hi), (t, lo, hi) => {
  if (!(lo <= hi)) {
    throw new GlintError(`[clipByValue] clipValueMin (${lo}) must be at most clipValueMax (${hi})`);
  }
  return ops.minimum(ops.maximum(t, int(Math.trunc(lo))), int(Math.trunc(hi)));
});

// sum and prod of bool count in int32; mean is float32; max and min of bool are any and all.
// An empty axis list reduces nothing (the engine reads [] as every axis): x in the result's dtype.
const NO_AXES_DTYPE = {sum: {bool: 'int32'}, prod: {bool: 'int32'}, mean: {bool: 'float32', int32: 'float32'}};
function reduction(name, f) {
  return (x, axis, keepDims) => tidy(() => {
    const t = asTensor(x, name, 'x');
    if (!(Array.isArray(axis) && axis.length === 0)) return f(t, axis, keepDims);
    const dtype = NO_AXES_DTYPE[name]?.[t.dtype];
    return dtype ? ops.cast(t, dtype) : t.clone();
  });
}
for (const name of ['sum', 'prod', 'mean']) {
  ops[name] = reduction(name, (t, axis, keepDims) => base[name](t.dtype === 'bool' ? ops.cast(t, 'int32') : t, axis, keepDims));
}
for (const [name, logical] of [['max', 'any'], ['min', 'all']]) {
  ops[name] = reduction(name, (t, axis, keepDims) => (t.dtype === 'bool' ? base[logical] : base[name])(t, axis, keepDims));
}
for (const name of ['any', 'all', 'logSumExp']) ops[name] = reduction(name, base[name]);

// floorDiv's result is int32 whatever the operands (TF.js's FloorDiv kernel).
ops.floorDiv = (a, b) => tidy(() => {
  const q = base.floorDiv(a, b);
  return q.dtype === 'int32' ? q : ops.cast(q, 'int32');
});

// dot: vector . vector -> scalar, matrix . vector -> vector, vector . matrix -> vector.
ops.dot = (a, b) => tidy(() => {
  const x = asTensor(a, 'dot', 't1'), y = asTensor(b, 'dot', 't2');
  if (x.rank < 1 || x.rank > 2 || y.rank < 1 || y.rank > 2) {
    throw new GlintError(`[dot] t1 and t2 must be rank 1 or 2: got [${x.shape}] and [${y.shape}]`);
  }
  const inner = (t, first) => (t.rank === 2 ? t.shape[first ? 1 : 0] : t.shape[0]);
  if (inner(x, true) !== inner(y, false)) {
    throw new GlintError(`[dot] inner dimensions differ: t1 [${x.shape}], t2 [${y.shape}]`);
  }
  const m = base.matMul(x.rank === 1 ? ops.reshape(x, [1, -1]) : x, y.rank === 1 ? ops.reshape(y, [-1, 1]) : y);
  if (x.rank === 2 && y.rank === 2) return m;
  return ops.reshape(m, x.rank === 1 && y.rank === 1 ? [] : [-1]);
});

// avgPool with numeric or explicit padding: TF.js averages the real pixels of each
// window only, so the sums over the zero-padded input divided by the count of real ones.
ops.avgPool = (x, filterSize, strides, pad = 'valid') => {
  if (typeof pad === 'string') return base.avgPool(x, filterSize, strides, pad);
  const explicit = Array.isArray(pad) && pad.length === 4 && pad.every((p) => Array.isArray(p) && p.length === 2 &&
      p.every((v) => Number.isInteger(v) && v >= 0)) && pad[0].concat(pad[3]).every((v) => v === 0);
  if (!(Number.isInteger(pad) && pad >= 0) && !explicit) {
    throw new GlintError(`[avgPool] pad must be 'same', 'valid', a non-negative integer or ` +
        `[[0, 0], [top, bottom], [left, right], [0, 0]]: got ${JSON.stringify(pad)}`);
  }
  const paddings = explicit ? pad : [[0, 0], [pad, pad], [pad, pad], [0, 0]];
  return tidy(() => {
    const t = asTensor(x, 'avgPool', 'x');
    const window = (v) => base.avgPool(ops.pad(v, paddings), filterSize, strides, 'valid');
    return ops.div(window(t), window(ops.onesLike(t)));
  });
};

// The windowed ops given one image [h, w, c]: run on a batch of one, the result without it.
for (const name of ['conv2d', 'depthwiseConv2d', 'maxPool', 'avgPool']) {
  const f = ops[name];
  ops[name] = (x, ...rest) => tidy(() => {
    const t = asTensor(x, name, 'x');
    return t.rank === 3 ? ops.squeeze(f(ops.expandDims(t, 0), ...rest), [0]) : f(t, ...rest);
  });
}
