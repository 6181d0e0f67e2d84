// The op table of tests/web/op_table.test.mjs: for each TF.js op, how to draw
// its arguments from a seeded generator. An argument is plain data (numbers,
// arrays, strings: passed as they are), a T (a tensor, built by the module
// under test) or a Raw (a tensor's values passed as a number, a nested array
// or a typed array, as TF.js programs do). Both modules get the same draw.
import {values, int, size} from './shared_cases.mjs';

/** A tensor argument: built with m.tensor(v, shape, dtype). */
export class T {
  constructor(v, shape, dtype) {
    Object.assign(this, {v, shape, dtype});
  }
}

/** A tensor's values passed without a tensor: 'number', 'nested' or 'typed'. */
export class Raw {
  constructor(form, v, shape, dtype) {
    Object.assign(this, {form, v, shape, dtype});
  }
  value() {
    if (this.form === 'number') return this.v[0];
    if (this.form === 'typed') return this.dtype === 'int32' ? Int32Array.from(this.v) : Float32Array.from(this.v);
    return nest(this.v, this.shape);
  }
}

function nest(v, shape) {
  if (shape.length === 0) return v[0];
  const step = size(shape.slice(1));
  return Array.from({length: shape[0]}, (_, i) => nest(v.slice(i * step, (i + 1) * step), shape.slice(1)));
}

const pick = (r, list) => list[Math.floor(r() * list.length)];
const chance = (r, p) => r() < p;

/** A random shape: rank in [min, max], dims mostly 2..4, some 1, some 0 (zero). */
export function shapeOf(r, {min = 0, max = 4, zero = true, lo = 1, hi = 4} = {}) {
  return Array.from({length: int(r, min, max)}, () => {
    const u = r();
    return zero && u < 0.06 ? 0 : u < 0.25 ? lo : int(r, Math.max(lo, 2), hi);
  });
}

/** Random values of a dtype: bool 0/1, int32 integers in [lo, hi], float32 uniforms. */
function draw(r, n, dtype, lo, hi) {
  if (dtype === 'bool') return Array.from({length: n}, () => (chance(r, 0.5) ? 1 : 0));
  if (dtype === 'int32') return Array.from({length: n}, () => int(r, Math.ceil(lo), Math.floor(hi)));
  return values(r, n, lo, hi);
}

export const tensorOnly = (r, shape, dtype = 'float32', lo = -3, hi = 3) => new T(draw(r, size(shape), dtype, lo, hi), shape, dtype);

/**
 * A tensor argument of the drawn values; one time in ten (int32 and float32, not
 * empty: a nested array cannot say [0, 3]) a nested array of them instead.
 */
export const t = (r, shape, dtype = 'float32', lo = -3, hi = 3) => {
  const x = tensorOnly(r, shape, dtype, lo, hi);
  return dtype !== 'bool' && x.v.length && chance(r, 0.1) ? new Raw('nested', x.v, shape, dtype) : x;
};

/** A tensor argument, one time in six given as a number, a nested array or a typed array instead (not when empty). */
function operand(r, shape, dtype, lo = -3, hi = 3) {
  const x = tensorOnly(r, shape, dtype, lo, hi);
  if (dtype === 'bool' || (!x.v.length && shape.length > 1) || !chance(r, 1 / 6)) return x;
  const form = shape.length === 0 ? pick(r, ['number', 'nested']) : pick(r, ['nested', 'typed']);
  // A typed array carries no shape: only rank 1 keeps it.
  if (form === 'typed' && shape.length !== 1) return new Raw('nested', x.v, shape, dtype);
  return new Raw(form, x.v, shape, dtype);
}

/** Two shapes that broadcast (trailing dims equal or 1), one time in twelve two that do not. */
function broadcastPair(r) {
  const a = shapeOf(r);
  let b = a.slice(int(r, 0, a.length)).map((d) => (chance(r, 0.3) ? 1 : d));
  if (b.length && chance(r, 1 / 12)) b[int(r, 0, b.length - 1)] = 5;
  return chance(r, 0.5) ? [a, b] : [b, a];
}

/** An axis of a rank (negative half the time), or null for all; for rank 0, null or 0. */
function axisOf(r, rank, {allowNull = true, list = true} = {}) {
  if (rank === 0) return allowNull && chance(r, 0.5) ? null : 0;
  if (allowNull && chance(r, 0.2)) return null;
  if (list && chance(r, 0.25)) {
    const axes = [...Array(rank).keys()].filter(() => chance(r, 0.5));
    return axes.map((a) => (chance(r, 0.3) ? a - rank : a));
  }
  const a = int(r, 0, rank - 1);
  return chance(r, 0.4) ? a - rank : a;
}

const DTYPES = ['float32', 'int32'];
const ANY = [...DTYPES, 'bool'];
/** One draw in ten a bad argument (out of range, mismatched), where TF.js throws and glint-ml must too. */
const bad = (r) => chance(r, 0.1);

// ---- Element-wise ---------------------------------------------------------------

// [op, lo, hi, grad]: the values drawn (beyond a domain, both must give NaN).
const UNARY = [['abs', -3, 3, true], ['acos', -1.1, 1.1, true], ['acosh', 0.9, 4, true], ['asin', -1.1, 1.1, true],
  ['asinh', -3, 3, true], ['atan', -3, 3, true], ['atanh', -1.1, 1.1, true], ['ceil', -3, 3, false],
  ['cos', -3, 3, true], ['cosh', -3, 3, true], ['elu', -3, 3, true], ['erf', -3, 3, true], ['exp', -3, 3, true],
  ['expm1', -3, 3, true], ['floor', -3, 3, false], ['isFinite', -3, 3, false], ['isInf', -3, 3, false],
  ['isNaN', -3, 3, false], ['log', -0.5, 4, true], ['log1p', -1.5, 4, true], ['logSigmoid', -3, 3, true],
  ['neg', -3, 3, true], ['reciprocal', -3, 3, true], ['relu', -3, 3, true], ['relu6', -8, 8, true],
  ['round', -3, 3, false], ['rsqrt', -0.5, 4, true], ['selu', -3, 3, true], ['sigmoid', -3, 3, true],
  ['sign', -3, 3, false], ['sin', -3, 3, true], ['sinh', -3, 3, true], ['softplus', -3, 3, true],
  ['sqrt', -0.5, 4, true], ['square', -3, 3, true], ['step', -3, 3, false], ['tan', -1.4, 1.4, true],
  ['tanh', -3, 3, true], ['clone', -3, 3, true], ['zerosLike', -3, 3, false], ['onesLike', -3, 3, false]];

const unary = UNARY.map(([op, lo, hi, grad]) => ({op, grad, args: (r) => {
  const dtype = chance(r, 0.15) ? 'bool' : pick(r, DTYPES);
  return [operand(r, shapeOf(r), dtype, lo, hi)];
}}));

const BINARY = ['add', 'sub', 'mul', 'div', 'divNoNan', 'floorDiv', 'mod', 'pow', 'maximum', 'minimum',
  'squaredDifference', 'atan2', 'equal', 'notEqual', 'less', 'lessEqual', 'greater', 'greaterEqual'];
const NOT_DIFFERENTIABLE = new Set(['floorDiv', 'equal', 'notEqual', 'less', 'lessEqual', 'greater', 'greaterEqual']);

const binary = BINARY.map((op) => ({op, grad: !NOT_DIFFERENTIABLE.has(op), args: (r) => {
  const [sa, sb] = broadcastPair(r);
  const da = pick(r, [...DTYPES, ...(chance(r, 0.2) ? ['bool'] : [])]), db = chance(r, 0.7) ? da : pick(r, DTYPES);
  // pow: bases away from 0 and small exponents, so that the values stay finite.
  if (op === 'pow') return [operand(r, sa, da, 0.2, 3), operand(r, sb, db, -2, 2)];
  return [operand(r, sa, da), operand(r, sb, db)];
}}));

const logical = ['logicalAnd', 'logicalOr', 'logicalXor'].map((op) => ({op, args: (r) => {
  const [sa, sb] = broadcastPair(r);
  return [t(r, sa, 'bool'), t(r, sb, 'bool')];
}}));

const elementwiseMore = [
  {op: 'logicalNot', args: (r) => [t(r, shapeOf(r), 'bool')]},
  {op: 'bitwiseAnd', method: false, args: (r) => {
    const s = shapeOf(r);
    return [t(r, s, 'int32', -1000, 1000), t(r, chance(r, 0.1) ? [...s, 2] : s, 'int32', -1000, 1000)];
  }},
  {op: 'leakyRelu', grad: true, args: (r) => [t(r, shapeOf(r), pick(r, DTYPES)), ...(chance(r, 0.5) ? [r()] : [])]},
  {op: 'step', name: 'step alpha', args: (r) => [t(r, shapeOf(r), pick(r, DTYPES)), r() * 2 - 1]},
  {op: 'prelu', grad: true, args: (r) => {
    const s = shapeOf(r, {min: 1});
    return [t(r, s, pick(r, DTYPES)), t(r, s.slice(int(r, 0, s.length)))];
  }},
  {op: 'clipByValue', grad: true, args: (r) => {
    const lo = r() * 4 - 3;
    return [t(r, shapeOf(r), pick(r, DTYPES)), lo, chance(r, 0.1) ? lo - 1 : lo + r() * 3];
  }},
  {op: 'cast', args: (r) => [t(r, shapeOf(r), pick(r, [...DTYPES, 'bool'])), pick(r, [...DTYPES, 'bool'])]},
  {op: 'where', grad: true, args: (r) => {
    const [sa, sb] = broadcastPair(r);
    const dtype = pick(r, DTYPES);
    return [t(r, chance(r, 0.5) ? sa : sb, 'bool'), t(r, sa, dtype), t(r, sb, dtype)];
  }, method: (x, c, b) => x.where(c, b), methodArgs: ([c, a, b]) => [a, c, b]},
  {op: 'addN', method: false, grad: true, args: (r) => {
    const s = shapeOf(r), dtype = pick(r, DTYPES);
    return [Array.from({length: int(r, 1, 4)}, () => t(r, chance(r, 0.05) ? [...s, 2] : s, dtype))];
  }},
];

// ---- Reductions and scans ---------------------------------------------------------

const reductions = ['sum', 'mean', 'max', 'min', 'prod', 'logSumExp', 'euclideanNorm'].map((op) => ({op,
  grad: true, args: (r) => {
    const s = shapeOf(r);
    return [t(r, s, op === 'logSumExp' || op === 'mean' ? 'float32' : pick(r, ANY), -2, 2),
      bad(r) ? s.length + 1 : axisOf(r, s.length), chance(r, 0.5)];
  }}));

const boolReductions = ['any', 'all'].map((op) => ({op, args: (r) => {
  const s = shapeOf(r);
  return [t(r, s, 'bool'), axisOf(r, s.length), chance(r, 0.5)];
}}));

const argReductions = ['argMax', 'argMin'].map((op) => ({op, args: (r) => {
  const s = shapeOf(r, {min: 1, zero: false});
  return [t(r, s, pick(r, DTYPES)), ...(chance(r, 0.8) ? [axisOf(r, s.length, {allowNull: false, list: false})] : [])];
}}));

const scans = ['cumsum', 'cumprod'].map((op) => ({op, grad: true, args: (r) => {
  const s = shapeOf(r, {min: 1});
  return [t(r, s, pick(r, DTYPES), -1.5, 1.5), axisOf(r, s.length, {allowNull: false, list: false}), chance(r, 0.5),
    chance(r, 0.5)];
}}));

const reductionsMore = [
  {op: 'norm', grad: true, args: (r) => {
    const s = shapeOf(r, {min: 1, max: 3}), ord = pick(r, ['euclidean', 'fro', 1, 2, Infinity, -Infinity]);
    const axis = s.length >= 2 && chance(r, 0.3) ? [0, -1] : axisOf(r, s.length, {list: false});
    return [t(r, s), ord, axis, chance(r, 0.5)];
  }},
  {op: 'moments', grad: true, method: false, args: (r) => {
    const s = shapeOf(r);
    return [t(r, s, pick(r, DTYPES)), axisOf(r, s.length), chance(r, 0.5)];
  }},
  {op: 'softmax', grad: true, args: (r) => {
    const s = shapeOf(r, {min: 1});
    return [t(r, s), ...(chance(r, 0.7) ? [] : [pick(r, [-1, s.length - 1, 0])])];
  }},
  {op: 'logSoftmax', grad: true, args: (r) => {
    const s = shapeOf(r, {min: 1});
    return [t(r, s), ...(chance(r, 0.7) ? [] : [pick(r, [-1, s.length - 1, 0])])];
  }},
];

// ---- Products ----------------------------------------------------------------------

const products = [
  {op: 'matMul', grad: true, args: (r) => {
    const m = int(r, 1, 4), k = int(r, 1, 4), n = int(r, 1, 4), ta = chance(r, 0.3), tb = chance(r, 0.3);
    const batch = chance(r, 0.4) ? [int(r, 1, 3)] : [];
    const bb = batch.length && chance(r, 0.3) ? [1] : batch;
    const dtype = pick(r, DTYPES);
    return [t(r, [...batch, ...(ta ? [k, m] : [m, k])], dtype),
      t(r, [...bb, ...(tb ? [n, chance(r, 0.05) ? k + 1 : k] : [k, n])], dtype), ta, tb];
  }},
  {op: 'dot', grad: true, args: (r) => {
    const k = int(r, 1, 4), ra = int(r, 1, 2), rb = int(r, 1, 2), dtype = pick(r, DTYPES);
    return [t(r, ra === 1 ? [k] : [int(r, 1, 3), k], dtype), t(r, rb === 1 ? [k] : [k, int(r, 1, 3)], dtype)];
  }},
  {op: 'outerProduct', method: false, grad: true, args: (r) => [t(r, [int(r, 0, 4)]), t(r, [int(r, 1, 4)])]},
  {op: 'einsum', method: false, grad: true, args: (r) => {
    const eq = pick(r, ['ij,jk->ik', 'i,j->ij', 'bij,bjk->bik', 'ij->ji', 'ij->j', 'ii->i']);
    const dims = {b: int(r, 1, 3), i: int(r, 1, 3), j: int(r, 1, 4), k: int(r, 1, 3)};
    return [eq, ...eq.split('->')[0].split(',').map((term) => t(r, [...term].map((c) => dims[c])))];
  }},
];

// ---- Shapes and layout ---------------------------------------------------------------

function someShape(r, total, rank) {
  // A factorisation of total into rank dims (the rest 1), with maybe one -1.
  const out = Array(rank).fill(1);
  let left = total;
  for (let i = 0; i < rank - 1 && left > 1; ++i) {
    const f = [2, 3, 4].find((d) => left % d === 0 && chance(r, 0.6));
    if (f) {
      out[i] = f;
      left /= f;
    }
  }
  if (rank) out[rank - 1] = left;
  if (rank && total && chance(r, 0.4)) out[int(r, 0, rank - 1)] = -1;
  return out;
}

const layout = [
  {op: 'reshape', grad: true, args: (r) => {
    const s = shapeOf(r, {zero: false}), target = someShape(r, size(s), int(r, 0, 4));
    if (chance(r, 0.1) && target.length) target[0] += 1;
    return [t(r, s, pick(r, [...DTYPES, 'bool'])), target];
  }},
  {op: 'transpose', grad: true, args: (r) => {
    const s = shapeOf(r);
    const perm = [...s.keys()].sort(() => r() - 0.5);
    if (perm.length && bad(r)) perm[0] = perm.length;
    return [t(r, s, pick(r, [...DTYPES, 'bool'])), ...(chance(r, 0.3) ? [] : [perm])];
  }},
  {op: 'expandDims', grad: true, args: (r) => {
    const s = shapeOf(r, {max: 3});
    const reach = s.length + (bad(r) ? 2 : 0);
    return [t(r, s, pick(r, ANY)), ...(chance(r, 0.2) ? [] : [int(r, -reach - 1, reach)])];
  }},
  {op: 'squeeze', grad: true, args: (r) => {
    const s = shapeOf(r).map((d) => (chance(r, 0.4) ? 1 : d));
    const ones = [...s.keys()].filter((i) => s[i] === 1);
    const axis = chance(r, 0.4) || !ones.length ? undefined : ones.filter(() => chance(r, 0.6)).map((a) => (chance(r, 0.3) ? a - s.length : a));
    if (axis && s.length && bad(r)) axis.push(int(r, 0, s.length - 1));
    return [t(r, s, pick(r, ANY)), ...(axis ? [axis] : [])];
  }},
  {op: 'tile', grad: true, args: (r) => {
    const s = shapeOf(r, {min: 1, max: 3});
    return [t(r, s, pick(r, ANY)), bad(r) ? [2] : s.map(() => int(r, 1, 3))];
  }},
  {op: 'reverse', grad: true, args: (r) => {
    const s = shapeOf(r);
    return [t(r, s, pick(r, ANY)), ...(chance(r, 0.3) ? [] : [axisOf(r, s.length, {allowNull: false})])];
  }},
  {op: 'slice', grad: true, args: (r) => {
    const s = shapeOf(r, {min: 1});
    const begin = s.map((d) => int(r, 0, d));
    const sz = s.map((d, i) => (chance(r, 0.2) ? -1 : int(r, 0, d - begin[i]) + (bad(r) ? 2 : 0)));
    return [t(r, s, pick(r, ANY)), begin, ...(chance(r, 0.15) ? [] : [sz])];
  }},
  {op: 'stridedSlice', grad: true, args: (r) => {
    const s = shapeOf(r, {min: 1, max: 3, zero: false});
    const begin = s.map((d) => int(r, -d, d - 1)), end = s.map((d) => int(r, -d, d));
    const strides = s.map(() => pick(r, [1, 1, 2, -1]));
    const masks = [int(r, 0, 7), int(r, 0, 7), chance(r, 0.2) ? 1 << int(r, 0, s.length - 1) : 0, chance(r, 0.2) ? int(r, 1, 3) : 0,
      chance(r, 0.3) ? 1 : 0];
    return [t(r, s, pick(r, ANY)), begin, end, strides, ...masks];
  }},
  {op: 'pad', grad: true, args: (r) => {
    const s = shapeOf(r, {min: 1});
    return [t(r, s, pick(r, ANY)), s.map(() => [int(r, bad(r) ? -1 : 0, 2), int(r, 0, 2)]), ...(chance(r, 0.5) ? [int(r, -3, 3)] : [])];
  }},
  {op: 'mirrorPad', grad: true, args: (r) => {
    const s = shapeOf(r, {min: 1, max: 3, zero: false}), mode = pick(r, ['reflect', 'symmetric']);
    const most = (d) => (mode === 'reflect' ? d - 1 : d);
    return [t(r, s, pick(r, ANY)), s.map((d) => [int(r, 0, most(d)), int(r, 0, most(d))]), mode];
  }},
  {op: 'concat', grad: true, args: (r) => {
    const s = shapeOf(r, {min: 1}), axis = int(r, -s.length, s.length - 1), dtype = pick(r, ANY);
    const a = (axis + s.length) % s.length;
    return [Array.from({length: int(r, 1, 3)}, () => t(r, s.map((d, i) => (i === a ? int(r, 0, 3) : bad(r) ? d + 1 : d)), dtype)), axis];
  }, method: (x, rest, axis) => x.concat(rest, axis), methodArgs: ([xs, axis]) => [xs[0], xs.slice(1), axis]},
  {op: 'stack', grad: true, args: (r) => {
    const s = shapeOf(r), dtype = pick(r, ANY);
    return [Array.from({length: int(r, 1, 3)}, () => t(r, bad(r) ? [...s, 2] : s, dtype)), int(r, -s.length - 1, s.length)];
  }, method: (x, rest, axis) => x.stack(rest, axis), methodArgs: ([xs, axis]) => [xs[0], xs.slice(1), axis]},
  {op: 'unstack', grad: true, args: (r) => {
    const s = shapeOf(r, {min: 1, zero: false});
    return [t(r, s, pick(r, ANY)), ...(chance(r, 0.3) ? [] : [int(r, -s.length, s.length - 1)])];
  }},
  {op: 'split', grad: true, args: (r) => {
    const s = shapeOf(r, {min: 1}), axis = int(r, -s.length, s.length - 1), d = s[(axis + s.length) % s.length];
    let how;
    if (chance(r, 0.5)) {
      how = [1, 2, 3, 4].filter((n) => d % n === 0 && n <= Math.max(d, 1)).sort(() => r() - 0.5)[0] ?? 1;
    } else {
      how = [];
      for (let left = d; left > 0;) {
        const n = int(r, 1, left);
        how.push(n);
        left -= n;
      }
      if (how.length > 1 && chance(r, 0.3)) how[int(r, 0, how.length - 1)] = -1;
      if (!how.length) how = [0];
      if (bad(r)) how.push(1);
    }
    return [t(r, s, pick(r, ANY)), how, axis];
  }},
  {op: 'gather', grad: true, args: (r) => {
    const s = shapeOf(r, {min: 1, zero: false}), axis = int(r, -s.length, s.length - 1), d = s[(axis + s.length) % s.length];
    const is = shapeOf(r, {max: 2});
    // batchDims 1: x and indices share their first dimension, gathered along an axis after it.
    if (s.length >= 2 && chance(r, 0.25)) {
      const ax = int(r, 1, s.length - 1);
      return [t(r, s, pick(r, ANY)), new T(draw(r, s[0] * 2, 'int32', 0, s[ax] - 1), [s[0], 2], 'int32'), ax, 1];
    }
    return [t(r, s, pick(r, ANY)), operand(r, is, 'int32', 0, d - 1 + (bad(r) ? 2 : 0)), ...(chance(r, 0.3) ? [] : [axis])];
  }},
  {op: 'gatherND', method: false, grad: true, args: (r) => {
    const s = shapeOf(r, {min: 1, zero: false}), k = int(r, 1, s.length), n = int(r, 0, 4);
    const idx = Array.from({length: n}, () => s.slice(0, k).map((d) => int(r, 0, d - 1))).flat();
    return [t(r, s, pick(r, ANY)), new T(idx, [n, k], 'int32')];
  }},
  {op: 'broadcastTo', grad: true, args: (r) => {
    const s = shapeOf(r, {max: 3}).map((d) => (chance(r, 0.5) ? 1 : d));
    const target = [...shapeOf(r, {max: 1, zero: false}), ...s.map((d) => (d === 1 ? int(r, 1, 3) : d))];
    return [t(r, s, pick(r, ANY)), target];
  }},
  {op: 'broadcastArgs', method: false, args: (r) => {
    const [a, b] = broadcastPair(r);
    return [new T(a, [a.length], 'int32'), new T(b, [b.length], 'int32')];
  }},
  {op: 'oneHot', args: (r) => {
    const s = shapeOf(r, {max: 2}), depth = int(r, 1, 5);
    const extra = chance(r, 0.5) ? [r() * 4, r()] : [];
    if (extra.length && chance(r, 0.5)) extra.push(pick(r, ['float32', 'int32']));
    return [t(r, s, bad(r) ? 'float32' : 'int32', -1, depth), depth, ...extra];
  }},
  {op: 'depthToSpace', grad: true, args: (r) => {
    const b = int(r, 2, 3);
    return [t(r, [int(r, 1, 2), int(r, 1, 3), int(r, 1, 3), b * b * int(r, 1, 2)], pick(r, DTYPES)), b];
  }},
  {op: 'diag', method: false, args: (r) => [t(r, shapeOf(r, {min: 1, max: 2}), pick(r, DTYPES))]},
  {op: 'ensureShape', method: false, args: (r) => {
    const s = shapeOf(r);
    return [t(r, s), chance(r, 0.2) ? [...s, 1] : s.map((d) => (chance(r, 0.3) ? null : d))];
  }},
  {op: 'meshgrid', method: false, args: (r) => [t(r, [int(r, 0, 4)]), t(r, [int(r, 1, 4)]),
    ...(chance(r, 0.5) ? [{indexing: pick(r, ['xy', 'ij'])}] : [])]},
];

const rankedAliases = [1, 2, 3, 4].flatMap((k) => [
  {op: `slice${k}d`, method: false, grad: true, args: (r) => {
    const s = shapeOf(r, {min: k, max: k});
    const begin = s.map((d) => int(r, 0, d)), sz = s.map((d, i) => int(r, 0, d - begin[i]));
    return k === 1 ? [t(r, s), begin[0], sz[0]] : [t(r, s), begin, sz];
  }},
  {op: `concat${k}d`, method: false, grad: true, args: (r) => {
    const s = shapeOf(r, {min: k, max: k}), axis = k === 1 ? 0 : int(r, 0, k - 1);
    return [[0, 1].map(() => t(r, s.map((d, i) => (i === axis ? int(r, 0, 3) : d)))), ...(k === 1 ? [] : [axis])];
  }},
  {op: `reverse${k}d`, method: false, grad: true, args: (r) => {
    const s = shapeOf(r, {min: k, max: k});
    return [t(r, s), ...(k > 1 && chance(r, 0.5) ? [int(r, 0, k - 1)] : [])];
  }},
  {op: `pad${k}d`, method: false, grad: true, args: (r) => {
    const s = shapeOf(r, {min: k, max: k}), pads = s.map(() => [int(r, 0, 2), int(r, 0, 2)]);
    return [t(r, s), k === 1 ? pads[0] : pads, ...(chance(r, 0.5) ? [r()] : [])];
  }},
]);

// ---- Creation ------------------------------------------------------------------------

const creation = [
  {op: 'tensor', args: (r) => {
    const s = shapeOf(r), dtype = pick(r, [...DTYPES, 'bool']), x = t(r, s, dtype);
    const form = pick(r, ['flat', 'nested', 'typed']);
    const v = form === 'nested' ? nest(x.v, s) : form === 'typed' ? (dtype === 'int32' ? Int32Array.from(x.v) : Float32Array.from(x.v)) : x.v;
    return [v, form === 'nested' && chance(r, 0.5) ? undefined : s, chance(r, 0.5) ? dtype : undefined];
  }},
  {op: 'scalar', args: (r) => [pick(r, [r() * 4 - 2, int(r, -3, 3), true]), ...(chance(r, 0.5) ? [pick(r, [...DTYPES, 'bool'])] : [])]},
  ...[1, 2, 3, 4, 5, 6].map((k) => ({op: `tensor${k}d`, args: (r) => {
    const s = shapeOf(r, {min: k, max: k, hi: 3}), x = t(r, s, pick(r, DTYPES));
    if (chance(r, 0.5)) return [nest(x.v, s)];
    return k === 1 ? [x.v, x.dtype] : [x.v, s, x.dtype];
  }})),
  {op: 'fill', args: (r) => [shapeOf(r), pick(r, [r() * 4, int(r, -3, 3)]), ...(chance(r, 0.5) ? [pick(r, DTYPES)] : [])]},
  {op: 'zeros', args: (r) => [shapeOf(r), ...(chance(r, 0.5) ? [pick(r, [...DTYPES, 'bool'])] : [])]},
  {op: 'ones', args: (r) => [shapeOf(r), ...(chance(r, 0.5) ? [pick(r, [...DTYPES, 'bool'])] : [])]},
  {op: 'eye', args: (r) => [int(r, 0, 4), ...(chance(r, 0.5) ? [int(r, 1, 4)] : chance(r, 0.5) ? [undefined] : []),
    ...(chance(r, 0.4) ? [[int(r, 1, 2)], pick(r, DTYPES)] : [])]},
  {op: 'linspace', args: (r) => [r() * 4 - 2, r() * 4 - 2, int(r, 1, 6)]},
  {op: 'range', args: (r) => {
    const start = int(r, -4, 4), stop = int(r, -4, 8), step = pick(r, [1, 2, -1, 0.5, -1.5]);
    return chance(r, 0.2) ? [start] : [start, stop, step, ...(chance(r, 0.5) ? [pick(r, DTYPES)] : [])];
  }},
  {op: 'buffer', call: (m, s, dtype, v) => m.buffer(s, dtype, v).toTensor(), args: (r) => {
    const s = shapeOf(r, {min: 1}), dtype = pick(r, DTYPES);
    return [s, dtype, t(r, s, dtype).v];
  }},
  {op: 'cosineWindow', args: (r) => [int(r, 1, 9), r(), r()]},
  {op: 'enclosingPowerOfTwo', args: (r) => [int(r, 1, 1000)]},
  {op: 'variable', call: (m, x) => {
    const v = m.variable(x), y = v.add(0);
    v.dispose();
    return y;
  }, args: (r) => [t(r, shapeOf(r), pick(r, DTYPES))]},
];

// ---- Windows: convolutions and pools -----------------------------------------------------

const pad2 = (r) => pick(r, ['same', 'valid', int(r, 0, 1), [[0, 0], [int(r, 0, 2), int(r, 0, 1)], [int(r, 0, 1), int(r, 0, 2)], [0, 0]]]);
/** An NHWC input, one time in five a single image [h, w, c] (TF.js takes rank 3 too). */
const image = (r, n, h, w, c) => t(r, chance(r, 0.2) ? [h, w, c] : [n, h, w, c]);

const windows = [
  {op: 'conv1d', grad: true, args: (r) => {
    const c = int(r, 1, 3), w = int(r, 3, 7), f = int(r, 1, 3);
    return [t(r, chance(r, 0.3) ? [w, c] : [int(r, 1, 2), w, c]), t(r, [f, c, int(r, 1, 3)]), int(r, 1, 2), pick(r, ['same', 'valid']),
      'NWC', chance(r, 0.2) ? 2 : 1];
  }},
  {op: 'conv2d', grad: true, args: (r) => {
    const c = int(r, 1, 3), dil = chance(r, 0.2) ? 2 : 1, st = dil > 1 ? 1 : int(r, 1, 2);
    return [image(r, int(r, 1, 2), int(r, 3, 6), int(r, 3, 6), c), t(r, [int(r, 1, 3), int(r, 1, 3), c, int(r, 1, 3)]), st, pad2(r),
      'NHWC', dil];
  }},
  {op: 'depthwiseConv2d', grad: true, args: (r) => {
    const c = int(r, 1, 3), dil = chance(r, 0.2) ? 2 : 1;
    return [image(r, int(r, 1, 2), int(r, 3, 6), int(r, 3, 6), c), t(r, [int(r, 1, 3), int(r, 1, 3), c, int(r, 1, 2)]),
      dil > 1 ? 1 : int(r, 1, 2), pad2(r), 'NHWC', dil];
  }},
  {op: 'conv2dTranspose', grad: true, args: (r) => {
    const n = int(r, 1, 2), h = int(r, 2, 4), w = int(r, 2, 4), c = int(r, 1, 3), o = int(r, 1, 3), k = int(r, 1, 3);
    const st = int(r, 1, 2), pad = pick(r, ['same', 'valid']);
    const out = (d) => (pad === 'same' ? d * st : (d - 1) * st + k);
    const single = chance(r, 0.2);
    return [t(r, single ? [h, w, c] : [n, h, w, c]), t(r, [k, k, o, c]), [...(single ? [] : [n]), out(h), out(w), o], st, pad];
  }},
  {op: 'conv3d', method: false, grad: true, args: (r) => {
    const c = int(r, 1, 2);
    return [t(r, [1, int(r, 2, 4), int(r, 2, 4), int(r, 2, 4), c]), t(r, [int(r, 1, 2), int(r, 1, 2), int(r, 1, 2), c, int(r, 1, 2)]),
      int(r, 1, 2), pick(r, ['same', 'valid'])];
  }},
  {op: 'conv3dTranspose', method: false, grad: true, args: (r) => {
    const d = int(r, 2, 3), c = int(r, 1, 2), o = int(r, 1, 2), st = int(r, 1, 2);
    return [t(r, [1, d, d, d, c]), t(r, [2, 2, 2, o, c]), [1, d * st, d * st, d * st, o], st, 'same'];
  }},
  {op: 'separableConv2d', grad: true, args: (r) => {
    const c = int(r, 1, 3), mult = int(r, 1, 2);
    return [t(r, [1, int(r, 3, 5), int(r, 3, 5), c]), t(r, [2, 2, c, mult]), t(r, [1, 1, c * mult, int(r, 1, 3)]), 1,
      pick(r, ['same', 'valid'])];
  }},
  {op: 'dilation2d', grad: true, args: (r) => {
    const c = int(r, 1, 3);
    return [t(r, [int(r, 1, 2), int(r, 3, 5), int(r, 3, 5), c]), t(r, [int(r, 1, 3), int(r, 1, 3), c]), int(r, 1, 2),
      pick(r, ['same', 'valid'])];
  }},
  ...['maxPool', 'avgPool'].map((op) => ({op, grad: true, args: (r) => {
    const size = chance(r, 0.3) ? int(r, 1, 3) : [int(r, 1, 3), int(r, 1, 3)], [fh, fw] = [size, size].flat().slice(-2);
    // Padding short of a whole window: a window of padding only averages nothing (NaN in both).
    const pad = chance(r, 0.5) ? pick(r, ['same', 'valid']) : chance(r, 0.5) ? int(r, 0, Math.min(fh, fw) - 1) :
      [[0, 0], [int(r, 0, fh - 1), int(r, 0, fh - 1)], [int(r, 0, fw - 1), int(r, 0, fw - 1)], [0, 0]];
    return [image(r, int(r, 1, 2), int(r, 2, 6), int(r, 2, 6), int(r, 1, 3)), size, int(r, 1, 2), pad];
  }})),
  ...['maxPool3d', 'avgPool3d'].map((op) => ({op, method: false, grad: true, args: (r) => [
    t(r, [int(r, 1, 2), int(r, 2, 4), int(r, 2, 4), int(r, 2, 4), int(r, 1, 2)]), int(r, 1, 2), int(r, 1, 2),
    pick(r, ['same', 'valid'])]})),
  {op: 'pool', grad: true, args: (r) => {
    const dil = chance(r, 0.3) ? [2, 1] : [1, 1];
    return [t(r, [int(r, 1, 2), int(r, 3, 6), int(r, 3, 6), int(r, 1, 2)]), [int(r, 1, 2), int(r, 1, 2)], pick(r, ['max', 'avg']),
      pick(r, ['same', 'valid']), dil, dil[0] > 1 ? [1, 1] : [int(r, 1, 2), int(r, 1, 2)]];
  }},
  {op: 'maxPoolWithArgmax', method: false, args: (r) => [t(r, [int(r, 1, 2), int(r, 2, 5), int(r, 2, 5), int(r, 1, 2)]),
    int(r, 1, 3), int(r, 1, 2), pick(r, ['same', 'valid']), chance(r, 0.5)]},
  {op: 'localResponseNormalization', grad: true, args: (r) => [t(r, [1, int(r, 1, 3), int(r, 1, 3), int(r, 1, 6)]),
    int(r, 1, 3), 1 + r(), r(), 0.25 + r() / 2]},
  ...['batchNorm', 'batchNorm2d', 'batchNorm3d', 'batchNorm4d'].map((op) => ({op, grad: true, method: op === 'batchNorm' ? undefined : false,
    args: (r) => {
      const rank = op === 'batchNorm' ? int(r, 1, 4) : Number(op[9]), s = shapeOf(r, {min: rank, max: rank, zero: false});
      const c = [s[rank - 1]];
      const offset = chance(r, 0.7) ? t(r, c) : undefined, scale = offset && chance(r, 0.7) ? t(r, c) : undefined;
      return [t(r, s), t(r, c), t(r, c, 'float32', 0.1, 2), offset, scale, ...(chance(r, 0.5) ? [r() / 10] : [])];
    }})),
  {op: 'depthToSpace', name: 'depthToSpace NCHW', method: false, args: (r) => {
    const b = int(r, 2, 3);
    return [t(r, [int(r, 1, 2), b * b * int(r, 1, 2), int(r, 1, 3), int(r, 1, 3)]), b, 'NCHW'];
  }},
  {op: 'spaceToBatchND', grad: true, args: (r) => {
    const b = [int(r, 1, 3), int(r, 1, 2)], pads = [[int(r, 0, 2), int(r, 0, 1)], [int(r, 0, 1), int(r, 0, 2)]];
    // Padded sizes a multiple of the block (one draw in ten not).
    const dim = (k) => Math.max(1, b[k] * int(r, 1, 3) - pads[k][0] - pads[k][1]) + (bad(r) ? 1 : 0);
    return [t(r, [int(r, 1, 2), dim(0), dim(1), int(r, 1, 2)], pick(r, DTYPES)), b, pads];
  }},
  {op: 'batchToSpaceND', grad: true, args: (r) => {
    const b = [int(r, 1, 3), int(r, 1, 2)], h = int(r, 1, 3), w = int(r, 1, 3);
    const crops = [[int(r, 0, b[0] - 1), int(r, 0, b[0] - 1)], [int(r, 0, b[1] - 1), 0]];
    return [t(r, [b[0] * b[1] * int(r, 1, 2) + (bad(r) ? 1 : 0), h, w, int(r, 1, 2)], pick(r, DTYPES)), b, crops];
  }},
];

// ---- Indices, segments, sorting ----------------------------------------------------------

const indexed = [
  {op: 'scatterND', method: false, args: (r) => {
    const s = [int(r, 1, 5), int(r, 1, 3)], n = int(r, 1, 5), dtype = pick(r, DTYPES);
    return [new T(Array.from({length: n}, () => int(r, 0, s[0] - 1)), [n, 1], 'int32'), t(r, [n, s[1]], dtype), s];
  }},
  {op: 'tensorScatterUpdate', method: false, args: (r) => {
    const s = [int(r, 2, 5), int(r, 1, 3)], dtype = pick(r, DTYPES);
    const rows = [...Array(s[0]).keys()].filter(() => chance(r, 0.5));
    return [t(r, s, dtype), new T(rows, [rows.length, 1], 'int32'), t(r, [rows.length, s[1]], dtype)];
  }},
  {op: 'sparseToDense', method: false, args: (r) => {
    const n = int(r, 2, 8), idx = [...Array(n).keys()].filter(() => chance(r, 0.5)), dtype = pick(r, DTYPES);
    return [new T(idx, [idx.length], 'int32'), t(r, [idx.length], dtype), [n], ...(chance(r, 0.5) ? [t(r, [], dtype)] : [])];
  }},
  {op: 'unsortedSegmentSum', grad: true, args: (r) => {
    const s = shapeOf(r, {min: 1, max: 3, zero: false}), k = int(r, 1, 4);
    return [t(r, s, pick(r, DTYPES)), new T(draw(r, s[0], 'int32', 0, k - 1), [s[0]], 'int32'), k];
  }},
  {op: 'topk', args: (r) => {
    const s = shapeOf(r, {min: 1, zero: false}), x = t(r, s, pick(r, DTYPES));
    if (x.dtype === 'float32') x.v = x.v.map((v) => Math.round(v * 4) / 4);  // ties
    return [x, ...(chance(r, 0.8) ? [int(r, 0, s[s.length - 1])] : []), ...(chance(r, 0.3) ? [chance(r, 0.5)] : [])];
  }},
  {op: 'unique', args: (r) => {
    const s = shapeOf(r, {min: 1, max: 2, zero: false}), dtype = pick(r, [...DTYPES, 'bool']);
    return [new T(draw(r, size(s), dtype, -2, 2).map(Math.round), s, dtype), ...(s.length > 1 && chance(r, 0.5) ? [int(r, -2, 1)] : [])];
  }},
  {op: 'bincount', method: false, args: (r) => {
    const n = int(r, 0, 8), x = new T(draw(r, n, 'int32', 0, 6), [n], 'int32');
    return [x, chance(r, 0.5) ? t(r, [n]) : new T([], [0], 'float32'), int(r, 1, 6)];
  }},
  {op: 'denseBincount', method: false, args: (r) => {
    const s = chance(r, 0.5) ? [int(r, 0, 6)] : [int(r, 1, 3), int(r, 1, 4)];
    const w = chance(r, 0.5) ? t(r, s) : new T([], [0], 'float32');
    return [new T(draw(r, size(s), 'int32', 0, 5), s, 'int32'), w, int(r, 1, 6), chance(r, 0.5)];
  }},
  ...['searchSorted', 'lowerBound', 'upperBound'].map((op) => ({op, method: false, args: (r) => {
    const rows = int(r, 1, 3), n = int(r, 1, 5), k = int(r, 1, 4), dtype = pick(r, DTYPES);
    const sorted = Array.from({length: rows}, () => draw(r, n, dtype, -3, 3).map(Math.round).sort((a, b) => a - b)).flat();
    const side = op === 'searchSorted' && chance(r, 0.6) ? [pick(r, ['left', 'right'])] : [];
    const oneD = rows === 1 && chance(r, 0.5);
    return [new T(sorted, oneD ? [n] : [rows, n], dtype), t(r, oneD ? [k] : [rows, k], dtype), ...side];
  }})),
  {op: 'raggedRange', method: false, args: (r) => {
    const n = int(r, 1, 4), dtype = pick(r, DTYPES);
    const s = draw(r, n, dtype, -4, 4), l = draw(r, n, dtype, -4, 8), d = draw(r, n, 'int32', 1, 3).map((v) => (chance(r, 0.3) ? -v : v));
    return [new T(s, [n], dtype), new T(l, [n], dtype), new T(d, [n], dtype)];
  }},
  {op: 'movingAverage', method: false, grad: true, args: (r) => {
    const s = shapeOf(r, {zero: false});
    return [t(r, s), t(r, s), 0.5 + r() / 2, ...(chance(r, 0.5) ? [int(r, 1, 5), chance(r, 0.5)] : [])];
  }},
];

// ---- Recurrent cells -------------------------------------------------------------------

const cells = [
  {op: 'basicLSTMCell', method: false, grad: true, args: (r) => {
    const b = int(r, 1, 3), i = int(r, 1, 3), u = int(r, 1, 3);
    return [r(), t(r, [i + u, 4 * u]), t(r, [4 * u]), t(r, [b, i]), t(r, [b, u]), t(r, [b, u])];
  }},
  {op: 'multiRNNCell', method: false, call: (m, kernels, biases, data, c, h) => {
    const cell = (k, bias) => (d, cc, hh) => m.basicLSTMCell(1, k, bias, d, cc, hh);
    return m.multiRNNCell(kernels.map((k, i) => cell(k, biases[i])), data, c, h);
  }, args: (r) => {
    const b = int(r, 1, 2), i = int(r, 1, 3), u = int(r, 1, 3), layers = int(r, 1, 2);
    return [Array.from({length: layers}, (_, l) => t(r, [(l ? u : i) + u, 4 * u])), Array.from({length: layers}, () => t(r, [4 * u])),
      t(r, [b, i]), Array.from({length: layers}, () => t(r, [b, u])), Array.from({length: layers}, () => t(r, [b, u]))];
  }},
];

// ---- Random values: shapes and dtypes compared, values checked against the distribution -----

const inRange = (lo, hi) => (v) => v.every((x) => x >= lo && x < hi);
const random = [
  {op: 'randomUniform', check: ([, lo, hi]) => inRange(lo, hi), args: (r) => [shapeOf(r), -r(), 1 + r(), ...(chance(r, 0.5) ? ['float32'] : [])]},
  {op: 'randomUniformInt', check: ([, lo, hi]) => (v) => v.every((x) => Number.isInteger(x) && x >= lo && x < hi),
    args: (r) => [shapeOf(r), int(r, -3, 0), int(r, 1, 5)]},
  {op: 'randomNormal', check: () => (v) => v.every(Number.isFinite), args: (r) => [shapeOf(r), r(), 1 + r()]},
  {op: 'randomStandardNormal', check: () => (v) => v.every(Number.isFinite), args: (r) => [shapeOf(r)]},
  {op: 'truncatedNormal', check: ([, mean, sd]) => (v) => v.every((x) => Math.abs(x - mean) <= 2 * sd + 1e-6),
    args: (r) => [shapeOf(r), r(), 0.5 + r()]},
  {op: 'randomGamma', check: () => (v) => v.every((x) => x >= 0), args: (r) => [shapeOf(r, {max: 2}), 0.5 + 2 * r(), ...(chance(r, 0.5) ? [1 + r()] : [])]},
  {op: 'rand', check: () => inRange(0, 1), call: (m, s) => m.rand(s, Math.random), args: (r) => [shapeOf(r, {max: 3})]},
  {op: 'multinomial', check: ([logits]) => (v) => v.every((x) => x >= 0 && x < logits.shape.at(-1)),
    args: (r) => [t(r, chance(r, 0.5) ? [int(r, 2, 5)] : [int(r, 1, 3), int(r, 2, 5)]), int(r, 1, 6)]},
  {op: 'dropout', check: ([x, rate]) => (v) => v.every((y, i) => y === 0 || Math.abs(y - x.v[i] / (1 - rate)) <= 1e-5 * Math.max(1, Math.abs(y))),
    args: (r) => [t(r, shapeOf(r)), pick(r, [0, r() * 0.9])]},
];

// ---- Async ops (host-side: read back, then computed in JS) ------------------------------

const asyncOps = [
  {op: 'whereAsync', async: true, method: false, args: (r) => [t(r, shapeOf(r, {max: 3}), 'bool')]},
  {op: 'booleanMaskAsync', async: true, method: false, args: (r) => {
    const s = shapeOf(r, {min: 1, max: 3, zero: false}), k = int(r, 1, s.length);
    return [t(r, s, pick(r, DTYPES)), t(r, s.slice(0, k), 'bool'), ...(chance(r, 0.3) ? [0] : [])];
  }},
  {op: 'setdiff1dAsync', async: true, method: false, args: (r) => {
    const dtype = pick(r, DTYPES);
    const n = int(r, 0, 8);
    return [new T(draw(r, n, dtype, -3, 3).map(Math.round), [n], dtype), new T(draw(r, 3, dtype, -3, 3).map(Math.round), [3], dtype)];
  }},
  {op: 'inTopKAsync', async: true, method: false, args: (r) => {
    const b = int(r, 1, 4), c = int(r, 2, 5);
    return [t(r, [b, c]), new T(draw(r, b, 'int32', 0, c - 1), [b], 'int32'), int(r, 1, c)];
  }},
];

/** Every case: op (TF.js's top-level name), args(r), and optional name, grad, method, call, tol, check, async. */
export const CASES = [...unary, ...binary, ...logical, ...elementwiseMore, ...reductions, ...boolReductions,
  ...argReductions, ...scans, ...reductionsMore, ...products, ...layout, ...rankedAliases, ...creation, ...windows,
  ...indexed, ...cells, ...random, ...asyncOps];

// ---- Tensor methods that are no top-level op: x.name(...args) ---------------------------

const f32 = (r, shape) => new T(values(r, size(shape), -3, 3), shape, 'float32');

/** Each: method, receiver(r) (a T), args(r). */
export const METHOD_CASES = [
  {method: 'asType', receiver: (r) => tensorOnly(r, shapeOf(r), pick(r, DTYPES)), args: (r) => [pick(r, [...DTYPES, 'bool'])]},
  {method: 'as1D', receiver: (r) => tensorOnly(r, shapeOf(r)), args: () => []},
  ...[2, 3, 4, 5].map((k) => ({method: `as${k}D`, receiver: (r) => f32(r, [2, 3]),
    args: (r) => [...Array(k - 2).fill(1), ...(chance(r, 0.5) ? [3, 2] : [6, 1])]})),
  {method: 'asScalar', receiver: (r) => f32(r, chance(r, 0.8) ? [1, 1] : [2]), args: () => []},
  {method: 'flatten', receiver: (r) => tensorOnly(r, shapeOf(r), pick(r, DTYPES)), args: () => []},
  ...['toBool', 'toFloat', 'toInt'].map((method) => ({method, receiver: (r) => tensorOnly(r, shapeOf(r), pick(r, [...DTYPES, 'bool'])),
    args: () => []})),
  {method: 'reshapeAs', receiver: (r) => f32(r, [2, 3]), args: (r) => [f32(r, pick(r, [[3, 2], [6], [1, 6, 1], [4]]))]},
  ...['resizeBilinear', 'resizeNearestNeighbor'].map((method) => ({method, grad: method === 'resizeBilinear',
    receiver: (r) => f32(r, chance(r, 0.7) ? [int(r, 1, 2), int(r, 1, 4), int(r, 1, 4), int(r, 1, 2)] : [int(r, 1, 4), int(r, 1, 4), 1]),
    args: (r) => {
      const align = chance(r, 0.3);
      return [[int(r, 1, 5), int(r, 1, 5)], align, !align && chance(r, 0.5)];
    }})),
];
