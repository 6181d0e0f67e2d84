// tf.sparse: segment reductions composed from gather and unsortedSegmentSum
// (the output's row count is read from the sorted segment ids, as TF.js's
// kernels read it), and the index bookkeeping ops (sparseReshape,
// sparseFillEmptyRows), which are host-side integer work in TF.js too.
import {GlintError} from './core.js';
import {Tensor, tensor, tidy, asTensor} from './tensor.js';
import {ops} from './ops.js';

const ints = (op, arg, x) => {
  const t = x instanceof Tensor ? x : tensor(x, undefined, 'int32');
  if (t.dtype !== 'int32') throw new GlintError(`[${op}] ${arg} must be int32: got ${t.dtype} [${t.shape}]`);
  return t;
};

function segmentReduce(op, data, indices, segmentIds, mean) {
  const d = asTensor(data, op, 'data');
  const idx = ints(op, 'indices', indices), seg = ints(op, 'segmentIds', segmentIds);
  try {
    if (d.rank < 1 || idx.rank !== 1 || seg.rank !== 1 || idx.shape[0] !== seg.shape[0]) {
      throw new GlintError(`[${op}] needs data of rank >= 1 and 1-D indices and segmentIds of one length: got ` +
          `data [${d.shape}], indices [${idx.shape}], segmentIds [${seg.shape}]`);
    }
    const ids = seg.dataSync(), rows = idx.dataSync();
    for (let i = 0; i < ids.length; ++i) {
      if (ids[i] < 0 || (i > 0 && ids[i] < ids[i - 1])) {
        throw new GlintError(`[${op}] segmentIds must be non-negative and sorted: segmentIds[${i}] = ${ids[i]}`);
      }
      if (rows[i] < 0 || rows[i] >= d.shape[0]) {
        throw new GlintError(`[${op}] indices[${i}] = ${rows[i]} is out of range [0, ${d.shape[0]})`);
      }
    }
    const numSegments = ids.length ? ids[ids.length - 1] + 1 : 0;
    return tidy(() => {
      if (numSegments === 0) return ops.zeros([0, ...d.shape.slice(1)], d.dtype);
      const picked = ops.gather(d, idx);
      const sums = ops.unsortedSegmentSum(picked, seg, numSegments);
      if (!mean) return sums;
      // Empty segments divide by 1 (and stay 0).
      const counts = ops.maximum(ops.unsortedSegmentSum(ops.ones([ids.length], 'float32'), seg, numSegments), 1);
      return ops.div(sums, ops.reshape(counts, [numSegments, ...d.shape.slice(1).map(() => 1)]));
    });
  } finally {
    if (idx !== indices) idx.dispose();
    if (seg !== segmentIds) seg.dispose();
  }
}

/** Sums of data rows (picked by indices) per sorted segment id: [segmentIds[-1] + 1, ...]. */
export const sparseSegmentSum = (data, indices, segmentIds) =>
  segmentReduce('sparseSegmentSum', data, indices, segmentIds, false);
/** Means of data rows per sorted segment id (empty segments are 0). */
export const sparseSegmentMean = (data, indices, segmentIds) =>
  segmentReduce('sparseSegmentMean', data, indices, segmentIds, true);

/** The indices of a sparse tensor of inputShape, re-expressed for newShape (one -1 inferred). */
export function sparseReshape(inputIndices, inputShape, newShape) {
  const op = 'sparseReshape';
  const idx = ints(op, 'inputIndices', inputIndices), inS = ints(op, 'inputShape', inputShape);
  const outS = ints(op, 'newShape', newShape);
  try {
    if (idx.rank !== 2 || inS.rank !== 1 || outS.rank !== 1 || idx.shape[1] !== inS.shape[0]) {
      throw new GlintError(`[${op}] needs inputIndices [N, rank], inputShape [rank] and newShape 1-D: got ` +
          `[${idx.shape}], [${inS.shape}], [${outS.shape}]`);
    }
    const from = Array.from(inS.dataSync()), want = Array.from(outS.dataSync());
    const size = from.reduce((a, b) => a * b, 1);
    const unknown = want.map((d, i) => (d === -1 ? i : -1)).filter((i) => i >= 0);
    if (unknown.length > 1) throw new GlintError(`[${op}] newShape [${want}] has more than one -1`);
    const known = want.reduce((a, d) => (d === -1 ? a : a * d), 1);
    if (want.some((d) => d < -1)) throw new GlintError(`[${op}] newShape [${want}] has a negative size`);
    if (unknown.length) {
      if (known === 0 || size % known !== 0) {
        throw new GlintError(`[${op}] cannot infer the -1 of [${want}] for ${size} elements`);
      }
      want[unknown[0]] = size / known;
    } else if (known !== size) {
      throw new GlintError(`[${op}] newShape [${want}] holds ${known} elements; inputShape [${from}] ${size}`);
    }
    const n = idx.shape[0], r = from.length, r2 = want.length;
    const v = idx.dataSync(), out = new Int32Array(n * r2);
    for (let i = 0; i < n; ++i) {
      let linear = 0;
      for (let j = 0; j < r; ++j) linear = linear * from[j] + v[i * r + j];
      for (let j = r2 - 1; j >= 0; --j) {
        out[i * r2 + j] = linear % want[j];
        linear = Math.floor(linear / want[j]);
      }
    }
    return {outputIndices: tensor(out, [n, r2], 'int32'), outputShape: tensor(want, [r2], 'int32')};
  } finally {
    for (const [t, orig] of [[idx, inputIndices], [inS, inputShape], [outS, newShape]]) if (t !== orig) t.dispose();
  }
}

/**
 * Every empty row of a 2-D+ sparse tensor gets one entry (row, 0, ...) =
 * defaultValue; entries come out ordered by row, in input order within a row.
 */
export function sparseFillEmptyRows(indices, values, denseShape, defaultValue) {
  const op = 'sparseFillEmptyRows';
  const idx = ints(op, 'indices', indices), shp = ints(op, 'denseShape', denseShape);
  const vals = asTensor(values, op, 'values');
  const dflt = asTensor(defaultValue, op, 'defaultValue', vals);
  try {
    if (idx.rank !== 2 || vals.rank !== 1 || vals.shape[0] !== idx.shape[0] || shp.rank !== 1 ||
        shp.shape[0] !== idx.shape[1] || dflt.rank !== 0) {
      throw new GlintError(`[${op}] needs indices [N, rank], values [N], denseShape [rank] and a scalar ` +
          `defaultValue: got [${idx.shape}], [${vals.shape}], [${shp.shape}], [${dflt.shape}]`);
    }
    const [n, r] = idx.shape, rows = shp.dataSync()[0];
    const v = idx.dataSync(), x = vals.dataSync(), fill = dflt.dataSync()[0];
    const count = new Int32Array(rows);
    for (let i = 0; i < n; ++i) {
      const row = v[i * r];
      if (row < 0 || row >= rows) throw new GlintError(`[${op}] indices[${i}] row ${row} is out of range [0, ${rows})`);
      ++count[row];
    }
    const start = new Int32Array(rows + 1);
    for (let row = 0; row < rows; ++row) start[row + 1] = start[row] + Math.max(count[row], 1);
    const total = start[rows];
    const outIdx = new Int32Array(total * r), outVals = new (x.constructor)(total);
    const empty = new Array(rows).fill(false), reverse = new Int32Array(n), next = start.slice(0, rows);
    for (let row = 0; row < rows; ++row) {
      if (count[row] === 0) {
        empty[row] = true;
        outIdx[start[row] * r] = row;
        outVals[start[row]] = fill;
      }
    }
    for (let i = 0; i < n; ++i) {
      const at = next[v[i * r]]++;
      for (let j = 0; j < r; ++j) outIdx[at * r + j] = v[i * r + j];
      outVals[at] = x[i];
      reverse[i] = at;
    }
    return {outputIndices: tensor(outIdx, [total, r], 'int32'), outputValues: tensor(outVals, [total], vals.dtype),
      emptyRowIndicator: tensor(empty, [rows], 'bool'), reverseIndexMap: tensor(reverse, [n], 'int32')};
  } finally {
    for (const [t, orig] of [[idx, indices], [shp, denseShape], [vals, values], [dflt, defaultValue]]) {
      if (t !== orig) t.dispose();
    }
  }
}

export const sparse = {sparseSegmentSum, sparseSegmentMean, sparseReshape, sparseFillEmptyRows};

/**
 * raggedRange(starts, limits, deltas): the ranges start:limit:delta of each
 * row, as {rtNestedSplits: [rows + 1] int32 row offsets, rtDenseValues}.
 * Scalars broadcast against the vectors. Host-side, as TF.js's kernel.
 */
export function raggedRange(starts, limits, deltas) {
  const op = 'raggedRange';
  const s = asTensor(starts, op, 'starts'), l = asTensor(limits, op, 'limits'), d = asTensor(deltas, op, 'deltas');
  const ts = [s, l, d];
  if (ts.some((t) => t.rank > 1) || ts.some((t) => t.dtype !== s.dtype) || s.dtype === 'bool') {
    throw new GlintError(`[${op}] starts, limits and deltas must be scalars or 1-D of one numeric dtype: got ` +
        ts.map((t) => `${t.dtype} [${t.shape}]`).join(', '));
  }
  const lens = ts.filter((t) => t.rank === 1).map((t) => t.shape[0]);
  if (lens.some((n) => n !== lens[0])) throw new GlintError(`[${op}] the 1-D inputs differ in length: ${lens.join(', ')}`);
  const rows = lens.length ? lens[0] : 1;
  const [sv, lv, dv] = ts.map((t) => t.dataSync());
  const at = (v, t, i) => (t.rank === 0 ? v[0] : v[i]);
  const splits = new Int32Array(rows + 1), vals = [];
  for (let i = 0; i < rows; ++i) {
    const a = at(sv, s, i), z = at(lv, l, i), step = at(dv, d, i);
    if (step === 0) throw new GlintError(`[${op}] deltas[${i}] is 0`);
    const n = (step > 0 && z > a) || (step < 0 && z < a) ?
      (s.dtype === 'int32' ? Math.floor((Math.abs(z - a) + Math.abs(step) - 1) / Math.abs(step)) :
        Math.ceil(Math.abs((z - a) / step))) : 0;
    for (let k = 0; k < n; ++k) vals.push(a + k * step);
    splits[i + 1] = splits[i] + n;
  }
  return {rtNestedSplits: tensor(splits, [rows + 1], 'int32'), rtDenseValues: tensor(vals, [vals.length], s.dtype)};
}
