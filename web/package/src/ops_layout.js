// TF.js ops that move elements between axes or scatter them (depthToSpace,
// spaceToBatchND, batchToSpaceND, mirrorPad, diag, sparseToDense, scatterND),
// composed from reshape, transpose, pad, slice, reverse and segment sums, so
// they run on every backend and the tape differentiates them.
import {GlintError} from './core.js';
import {Tensor, tensor, tidy, asTensor} from './tensor.js';
import {ops} from './ops.js';
import {eye} from './ops_composite.js';

const need = (op, arg, x) => asTensor(x, op, arg);
const prod = (a) => a.reduce((n, d) => n * d, 1);

/** [b, h, w, c] -> [b, h*s, w*s, c/(s*s)]: depth moved into s x s spatial blocks. */
export function depthToSpace(x, blockSize, dataFormat = 'NHWC') {
  x = need('depthToSpace', 'x', x);
  if (dataFormat !== 'NHWC') {
    throw new GlintError(`[depthToSpace] dataFormat must be 'NHWC' (got '${dataFormat}')`);
  }
  const s = blockSize;
  if (x.rank !== 4 || !Number.isInteger(s) || s < 2 || x.shape[3] % (s * s) !== 0) {
    throw new GlintError(`[depthToSpace] x must be rank 4 with a depth divisible by blockSize² and ` +
        `blockSize an integer > 1: got x [${x.shape}], blockSize ${blockSize}`);
  }
  const [b, h, w, c] = x.shape;
  return tidy(() => ops.reshape(ops.transpose(ops.reshape(x, [b, h, w, s, s, c / (s * s)]),
                                              [0, 1, 3, 2, 4, 5]), [b, h * s, w * s, c / (s * s)]));
}

function checkBlocks(op, x, blockShape, pairs, pairsName) {
  const m = Array.isArray(blockShape) ? blockShape.length : -1;
  if (m < 1 || x.rank < m + 1 || !blockShape.every((v) => Number.isInteger(v) && v >= 1) ||
      !Array.isArray(pairs) || pairs.length !== m ||
      !pairs.every((p) => Array.isArray(p) && p.length === 2 && p.every((v) => Number.isInteger(v) && v >= 0))) {
    throw new GlintError(`[${op}] needs blockShape of M >= 1 positive integers, x of rank > M and ${pairsName} ` +
        `[[M pairs of non-negative integers]]: got x [${x.shape}], blockShape ${JSON.stringify(blockShape)}, ` +
        `${pairsName} ${JSON.stringify(pairs)}`);
  }
  return m;
}

/** Pads the M spatial dims, then moves each blockShape block into the batch. */
export function spaceToBatchND(x, blockShape, paddings) {
  x = need('spaceToBatchND', 'x', x);
  const m = checkBlocks('spaceToBatchND', x, blockShape, paddings, 'paddings');
  const padded = x.shape.slice(1, m + 1).map((d, i) => d + paddings[i][0] + paddings[i][1]);
  padded.forEach((d, i) => {
    if (d % blockShape[i] !== 0) {
      throw new GlintError(`[spaceToBatchND] padded dimension ${i + 1} of x [${x.shape}] is ${d}, ` +
          `not divisible by blockShape[${i}] = ${blockShape[i]}`);
    }
  });
  const [batch] = x.shape, rest = x.shape.slice(m + 1);
  return tidy(() => {
    const p = ops.pad(x, [[0, 0], ...paddings, ...rest.map(() => [0, 0])]);
    const split = [batch];
    padded.forEach((d, i) => split.push(d / blockShape[i], blockShape[i]));
    const r = ops.reshape(p, [...split, ...rest]);
    // [blocks..., batch, reduced spatial..., rest...]
    const perm = [...blockShape.map((_, i) => 2 + 2 * i), 0, ...blockShape.map((_, i) => 1 + 2 * i),
      ...rest.map((_, i) => 1 + 2 * m + i)];
    return ops.reshape(ops.transpose(r, perm),
                       [batch * prod(blockShape), ...padded.map((d, i) => d / blockShape[i]), ...rest]);
  });
}

/** The inverse of spaceToBatchND: batch blocks back into space, then cropped. */
export function batchToSpaceND(x, blockShape, crops) {
  x = need('batchToSpaceND', 'x', x);
  const m = checkBlocks('batchToSpaceND', x, blockShape, crops, 'crops');
  const blocks = prod(blockShape);
  if (x.shape[0] % blocks !== 0) {
    throw new GlintError(`[batchToSpaceND] the batch of x [${x.shape}] must be divisible by ` +
        `prod(blockShape) = ${blocks}`);
  }
  const batch = x.shape[0] / blocks, spatial = x.shape.slice(1, m + 1), rest = x.shape.slice(m + 1);
  const full = spatial.map((d, i) => d * blockShape[i]);
  full.forEach((d, i) => {
    if (crops[i][0] + crops[i][1] > d) {
      throw new GlintError(`[batchToSpaceND] crops[${i}] ${JSON.stringify(crops[i])} exceed dimension ${d}`);
    }
  });
  return tidy(() => {
    const r = ops.reshape(x, [...blockShape, batch, ...spatial, ...rest]);
    const perm = [m];
    spatial.forEach((_, i) => perm.push(m + 1 + i, i));
    rest.forEach((_, i) => perm.push(2 * m + 1 + i));
    const merged = ops.reshape(ops.transpose(r, perm), [batch, ...full, ...rest]);
    return ops.slice(merged, [0, ...crops.map((c) => c[0]), ...rest.map(() => 0)],
                     [batch, ...full.map((d, i) => d - crops[i][0] - crops[i][1]), ...rest]);
  });
}

/** Pads each axis with its own mirror image: 'reflect' (edge not repeated) or 'symmetric'. */
export function mirrorPad(x, paddings, mode) {
  x = need('mirrorPad', 'x', x);
  if (mode !== 'reflect' && mode !== 'symmetric') {
    throw new GlintError(`[mirrorPad] mode must be 'reflect' or 'symmetric': got ${JSON.stringify(mode)}`);
  }
  const edge = mode === 'reflect' ? 1 : 0;
  if (!Array.isArray(paddings) || paddings.length !== x.rank) {
    throw new GlintError(`[mirrorPad] paddings must have one pair per dimension of x [${x.shape}]: ` +
        `got ${JSON.stringify(paddings)}`);
  }
  paddings.forEach((p, i) => {
    const limit = x.shape[i] - edge;
    if (!Array.isArray(p) || p.length !== 2 || !p.every((v) => Number.isInteger(v) && v >= 0 && v <= limit)) {
      throw new GlintError(`[mirrorPad] paddings[${i}] must be two integers in [0, ${limit}] for ` +
          `x [${x.shape}] in '${mode}' mode: got ${JSON.stringify(p)}`);
    }
  });
  return tidy(() => {
    let y = x;
    paddings.forEach(([before, after], axis) => {
      if (before === 0 && after === 0) return;
      const n = y.shape[axis];
      const along = (start, size) => {
        const begin = y.shape.map(() => 0), sz = y.shape.slice();
        begin[axis] = start;
        sz[axis] = size;
        return ops.reverse(ops.slice(y, begin, sz), [axis]);
      };
      const parts = [];
      if (before > 0) parts.push(along(edge, before));
      parts.push(y);
      if (after > 0) parts.push(along(n - edge - after, after));
      y = ops.concat(parts, axis);
    });
    return y === x ? x.clone() : y;
  });
}

/** A tensor of shape [...x.shape, ...x.shape] with x on its diagonal. */
export function diag(x) {
  x = need('diag', 'x', x);
  const n = x.size;
  return tidy(() => {
    const e = eye(n, n, undefined, x.dtype);
    return ops.reshape(ops.mul(e, ops.reshape(x, [1, n])), [...x.shape, ...x.shape]);
  });
}

// Row-major linear positions of index tuples (the last axis of indices) in shape.
function linearIndex(op, indices, shape) {
  const k = indices.rank === 0 ? 1 : indices.shape[indices.rank - 1];
  if (indices.dtype !== 'int32' || k > shape.length) {
    throw new GlintError(`[${op}] indices must be int32 with a last dimension of at most ${shape.length}: ` +
        `got ${indices.dtype} [${indices.shape}]`);
  }
  const strides = shape.slice(0, k).map((_, i) => prod(shape.slice(i + 1, k)));
  return {k, flat: ops.reshape(ops.sum(ops.mul(ops.reshape(indices, [-1, k]), tensor(strides, [k], 'int32')), -1), [-1])};
}

function intIndices(op, indices) {
  return indices instanceof Tensor ? indices : tensor(indices, undefined, 'int32');
}

/**
 * A dense tensor of shape with updates summed in at indices (repeated
 * indices add up): updates [...indices.shape[:-1], ...shape[k:]].
 */
export function scatterND(indices, updates, shape) {
  const idx = intIndices('scatterND', indices);
  const u = need('scatterND', 'updates', updates);
  try {
    if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 0)) {
      throw new GlintError(`[scatterND] shape must be an array of non-negative integers: got ${JSON.stringify(shape)}`);
    }
    const k = idx.shape[idx.rank - 1];
    const want = [...idx.shape.slice(0, -1), ...shape.slice(k)];
    if (u.shape.join() !== want.join()) {
      throw new GlintError(`[scatterND] updates must have shape [${want}] for indices [${idx.shape}] and ` +
          `shape [${shape}]: got [${u.shape}]`);
    }
    return tidy(() => {
      const {flat} = linearIndex('scatterND', idx, shape);
      const rows = ops.reshape(u, [-1, ...shape.slice(k)]);
      return ops.reshape(ops.unsortedSegmentSum(rows, flat, prod(shape.slice(0, k))), shape);
    });
  } finally {
    if (idx !== indices) idx.dispose();
  }
}

/**
 * A dense tensor of outputShape holding sparseValues at sparseIndices and
 * defaultValue elsewhere. Indices must not repeat (as TF.js requires).
 */
export function sparseToDense(sparseIndices, sparseValues, outputShape, defaultValue = 0) {
  const idx = intIndices('sparseToDense', sparseIndices);
  const v = need('sparseToDense', 'sparseValues', sparseValues);
  try {
    const n = idx.rank === 0 ? 1 : idx.shape[0];
    if (idx.rank > 2 || (v.rank !== 0 && (v.rank !== 1 || v.shape[0] !== n))) {
      throw new GlintError(`[sparseToDense] sparseIndices must be rank 0-2 and sparseValues a scalar or ` +
          `[${n}]: got [${idx.shape}] and [${v.shape}]`);
    }
    return tidy(() => {
      const tuples = idx.rank < 2 ? ops.reshape(idx, [n, 1]) : idx;
      const {flat} = linearIndex('sparseToDense', tuples, outputShape);
      const size = prod(outputShape);
      const vals = v.rank === 0 ? ops.tile(ops.reshape(v, [1]), [n]) : v;
      const placed = ops.unsortedSegmentSum(vals, flat, size);
      const hit = ops.greater(ops.unsortedSegmentSum(ops.ones([n], 'int32'), flat, size), 0);
      const dflt = asTensor(defaultValue, 'sparseToDense', 'defaultValue', v);
      // A number takes sparseValues' dtype; a tensor must have it (TF.js refuses a cast).
      if (defaultValue instanceof Tensor && dflt.dtype !== v.dtype) {
        throw new GlintError(`[sparseToDense] defaultValue is ${dflt.dtype} but sparseValues ${v.dtype}: they must share a dtype`);
      }
      const out = ops.where(hit, placed, ops.cast(dflt, v.dtype));
      return ops.reshape(out, outputShape);
    });
  } finally {
    if (idx !== sparseIndices) idx.dispose();
  }
}
