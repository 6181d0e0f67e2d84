// TF.js's dtype rules where the engine's ops take fewer dtypes, applied over
// ops.js's ops (which the Tensor methods call too): int32 and bool inputs of
// float ops, bool inputs of arithmetic, comparisons and reductions, numbers
// read as float32, floorDiv's int32 result, and empty axis lists. Argument
// forms are in ops_arg_forms.js. Found by tests/web/op_table.test.mjs against TF.js 4.22.
import {GlintError} from './core.js';
import {Tensor, asTensor, tidy, scalar, tensor} from './tensor.js';
import {ops} from './ops.js';

const int = (v) => scalar(v, 'int32');

/** fn(), an error of an op it is built of re-thrown naming op as well. */
export function named(op, fn) {
  try {
    return fn();
  } catch (e) {
    if (e instanceof GlintError && !e.message.startsWith(`[${op}]`)) throw new GlintError(`[${op}] ${e.message}`);
    throw e;
  }
}

/**
 * A float op given int32 or bool, as TF.js computes it: in float, the result
 * float32 (toFloat) or stored back in the input's dtype, truncated toward zero
 * and a non-finite value stored as 0 (what its Int32Array and Uint8Array keep).
 */
export function computedInFloat(name, f, toFloat = false) {
  return (x, ...rest) => tidy(() => {
    const t = asTensor(x, name, 'x');
    if (t.dtype !== 'int32' && t.dtype !== 'bool') return f(t, ...rest);  // float32 (complex64 refused there)
    const y = f(ops.cast(t, 'float32'), ...rest);
    if (toFloat) return y;
    const finite = ops.equal(ops.sub(y, y), 0);
    const truncated = ops.cast(ops.where(finite, y, ops.zerosLike(y)), 'int32');
    return t.dtype === 'int32' ? truncated : ops.cast(truncated, t.dtype);
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
ops.exp = computedInFloat('exp', unary('exp'), true);
const erf = computedInFloat('erf', unary('erf'), true);
ops.erf = (x) => {
  if (x instanceof Tensor && x.dtype === 'bool') throw new GlintError(`[erf] x must be float32 or int32: got bool [${x.shape}]`);
  return erf(x);
};
ops.leakyRelu = computedInFloat('leakyRelu', (t, alpha) => base.leakyRelu(t, alpha), true);
ops.logSoftmax = computedInFloat('logSoftmax', (t, axis) => base.logSoftmax(t, axis), true);

for (const name of ['abs', 'neg', 'sign', 'square']) ops[name] = boolAsInt(name, unary(name));
// TF.js's float-only ops read numbers and arrays (typed ones too) as float32.
for (const name of ['ceil', 'cos', 'elu', 'floor', 'log', 'rsqrt', 'sigmoid', 'sin', 'sqrt', 'tanh', 'softmax']) {
  const f = base[name];
  ops[name] = (x, ...rest) => (x instanceof Tensor ? f(x, ...rest) : tidy(() => f(tensor(x, undefined, 'float32'), ...rest)));
}
// Order comparisons of two bool tensors compare them as 0 and 1.
for (const name of ['less', 'lessEqual', 'greater', 'greaterEqual']) {
  ops[name] = (a, b) => tidy(() => {
    const x = asTensor(a, name, 'a'), y = asTensor(b, name, 'b');
    const asInt = (t) => (x.dtype === 'bool' && y.dtype === 'bool' ? ops.cast(t, 'int32') : t);
    return base[name](asInt(x), asInt(y));
  });
}
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
  return (x, axis, keepDims) => named(name, () => tidy(() => {
    const t = asTensor(x, name, 'x');
    if (!(Array.isArray(axis) && axis.length === 0)) return f(t, axis, keepDims);
    const dtype = NO_AXES_DTYPE[name]?.[t.dtype];
    return dtype ? ops.cast(t, dtype) : t.clone();
  }));
}
ops.reverse = (x, axis) => (Array.isArray(axis) && axis.length === 0 ? tidy(() => asTensor(x, 'reverse', 'x').clone()) :
  base.reverse(x, axis));
for (const name of ['sum', 'prod', 'mean']) {
  ops[name] = reduction(name, (t, axis, keepDims) => base[name](t.dtype === 'bool' ? ops.cast(t, 'int32') : t, axis, keepDims));
}
for (const [name, logical] of [['max', 'any'], ['min', 'all']]) {
  ops[name] = reduction(name, (t, axis, keepDims) => (t.dtype === 'bool' ? base[logical] : base[name])(t, axis, keepDims));
}
for (const name of ['any', 'all', 'logSumExp']) ops[name] = reduction(name, base[name]);
ops.moments = (x, axis, keepDims) => (Array.isArray(axis) && axis.length === 0 ?
  tidy(() => {
    const mean = ops.mean(x, [], keepDims);
    return {mean, variance: ops.zerosLike(mean)};
  }) : base.moments(x, axis, keepDims));

// where's a and b meet in the higher dtype (bool < int32 < float32), as in arithmetic.
const ORDER = ['bool', 'int32', 'float32'];
ops.where = (condition, a, b) => tidy(() => {
  const x = asTensor(a, 'where', 'a'), y = asTensor(b, 'where', 'b');
  const dtype = ORDER[Math.max(ORDER.indexOf(x.dtype), ORDER.indexOf(y.dtype))];
  const to = (t) => (t.dtype === dtype || !ORDER.includes(t.dtype) ? t : ops.cast(t, dtype));
  return base.where(condition, to(x), to(y));
});

// floorDiv's result is int32 whatever the operands (TF.js's FloorDiv kernel), a non-finite quotient 0.
ops.floorDiv = (a, b) => tidy(() => {
  const q = base.floorDiv(a, b);
  return q.dtype === 'int32' ? q : ops.cast(ops.where(ops.equal(ops.sub(q, q), 0), q, ops.zerosLike(q)), 'int32');
});
