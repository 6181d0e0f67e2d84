// The op table of tests/web/op_table.test.mjs: for each TF.js op, how to draw its
// arguments (op_table_draw.mjs). Here the array ops: element-wise, reductions,
// products, layout, creation; op_table_cases_nn.mjs has the windows, indices,
// cells, random and async ops, and the Tensor methods that are no top-level op.
import {int, size} from './shared_cases.mjs';
import {T, nest, pick, chance, shapeOf, draw, t, operand, broadcastPair, axisOf, DTYPES, ANY, bad}
  from './op_table_draw.mjs';
import {windows, indexed, cells, random, asyncOps} from './op_table_cases_nn.mjs';
export {METHOD_CASES} from './op_table_cases_nn.mjs';

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

export const CASES = [...unary, ...binary, ...logical, ...elementwiseMore, ...reductions, ...boolReductions,
  ...argReductions, ...scans, ...reductionsMore, ...products, ...layout, ...rankedAliases, ...creation, ...windows,
  ...indexed, ...cells, ...random, ...asyncOps];
