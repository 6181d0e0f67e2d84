// The op table's windowed ops (convolutions, pools, normalization), index and
// segment ops, recurrent cells, random and async ops, and the Tensor methods
// that are no top-level op (see op_table_cases.mjs).
import {values, int, size} from './shared_cases.mjs';
import {T, pick, chance, shapeOf, draw, tensorOnly, t, DTYPES, bad} from './op_table_draw.mjs';

// ---- Windows: convolutions and pools -----------------------------------------------------

const pad2 = (r) => pick(r, ['same', 'valid', int(r, 0, 1), [[0, 0], [int(r, 0, 2), int(r, 0, 1)], [int(r, 0, 1), int(r, 0, 2)], [0, 0]]]);
/** An NHWC input, one time in five a single image [h, w, c] (TF.js takes rank 3 too). */
const image = (r, n, h, w, c) => t(r, chance(r, 0.2) ? [h, w, c] : [n, h, w, c]);

export const windows = [
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

export const indexed = [
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

export const cells = [
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
export const random = [
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

export const asyncOps = [
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
