// TF.js's argument forms the engine's ops do not take, applied over ops.js's ops
// (which the Tensor methods call too): rank-1 operands of dot, numeric and
// explicit padding of avgPool, single images [h, w, c] for the windowed ops,
// and gather's batchDims. Found by tests/web/op_table.test.mjs against TF.js 4.22.
import {GlintError} from './core.js';
import {Tensor, asTensor, tidy, tensor} from './tensor.js';
import {getBackend} from './engine.js';
import {ops} from './ops.js';

// The forms replaced, called for the inputs they take.
const base = {...ops};

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
ops.conv2dTranspose = (x, filter, outputShape, ...rest) => tidy(() => {
  const t = asTensor(x, 'conv2dTranspose', 'x');
  if (t.rank !== 3) return base.conv2dTranspose(t, filter, outputShape, ...rest);
  const shape = Array.isArray(outputShape) && outputShape.length === 3 ? [1, ...outputShape] : outputShape;
  return ops.squeeze(base.conv2dTranspose(ops.expandDims(t, 0), filter, shape, ...rest), [0]);
});

// squeeze: an axis listed twice (as i and i - rank) is squeezed once.
ops.squeeze = (x, axis) => {
  if (!Array.isArray(axis)) return base.squeeze(x, axis);
  return tidy(() => {
    const t = asTensor(x, 'squeeze', 'x');
    return base.squeeze(t, [...new Set(axis.map((a) => (a < 0 ? a + t.rank : a)))]);
  });
};

/**
 * gather's indices outside [0, dim): the engine's kernels give zeros (a GPU
 * kernel cannot report them, as in TF.js's GPU backends). Where the indices
 * are known without a GPU read (a JS array, or a tensor on cpu, whose read
 * is a copy) it is an error, as TF.js's cpu backend makes it.
 */
function checkGatherIndices(x, indices, axis) {
  if (!(x instanceof Tensor) || x.id === null || !Number.isInteger(axis)) return;
  const ax = axis < 0 ? axis + x.rank : axis;
  if (ax < 0 || ax >= x.rank) return;  // the op names the axis
  let values;
  if (Array.isArray(indices) || ArrayBuffer.isView(indices)) {
    values = Array.isArray(indices) ? indices.flat(Infinity) : indices;
  } else if (indices instanceof Tensor && indices.id !== null && indices.dtype === 'int32' &&
             ['cpu', 'reference'].includes(getBackend())) {
    values = indices.dataSync();
  } else {
    return;
  }
  const d = x.shape[ax];
  for (let i = 0; i < values.length; ++i) {
    const v = values[i];
    if (typeof v === 'number' && !(v >= 0 && v < d)) {
      throw new GlintError(`[gather] indices[${i}] = ${v} is outside [0, ${d}) (axis ${axis} of x [${x.shape}])`);
    }
  }
}

/**
 * gather with batchDims b: x and indices share their first b dimensions, and each
 * batch gathers from its own slice. As one gather on the batches laid end to end
 * along the gathered axis (moved next to them), the indices offset per batch.
 */
ops.gather = (x, indices, axis = 0, batchDims = 0) => {
  checkGatherIndices(x, indices, axis);
  if (!batchDims) return base.gather(x, indices, axis);
  return tidy(() => {
    const t = asTensor(x, 'gather', 'x');
    const idx = indices instanceof Object && 'dtype' in indices ? indices : tensor(indices, undefined, 'int32');
    const b = batchDims < 0 ? batchDims + idx.rank : batchDims, ax = axis < 0 ? axis + t.rank : axis;
    if (!(Number.isInteger(b) && b >= 0 && b <= idx.rank && ax >= b && ax < t.rank &&
          t.shape.slice(0, b).every((d, i) => d === idx.shape[i]))) {
      throw new GlintError(`[gather] batchDims ${batchDims} needs x and indices to share their first batchDims ` +
          `dimensions and axis (${axis}) at or after them: got x [${t.shape}], indices [${idx.shape}]`);
    }
    const batch = t.shape.slice(0, b), n = batch.reduce((p, d) => p * d, 1);
    const pre = t.shape.slice(b, ax), post = t.shape.slice(ax + 1), d = t.shape[ax];
    // [batch..., pre..., d, post...] -> [n * d, pre..., post...]
    const perm = [...Array(t.rank).keys()];
    const moved = ops.transpose(t, [...perm.slice(0, b), ax, ...perm.slice(b, ax), ...perm.slice(ax + 1)]);
    const rows = ops.reshape(moved, [n * d, ...pre, ...post]);
    const inner = idx.shape.slice(b);
    const offsets = ops.reshape(ops.mul(ops.range(0, n, 1, 'int32'), tensor(d, [], 'int32')), [n, ...inner.map(() => 1)]);
    const flatIdx = ops.add(ops.reshape(idx, [n, ...inner]), offsets);
    // [n, inner..., pre..., post...] -> [batch..., pre..., inner..., post...]
    const got = ops.reshape(base.gather(rows, flatIdx, 0), [...batch, ...inner, ...pre, ...post]);
    const k = inner.length, p = pre.length;
    const back = [...Array(b).keys(), ...Array.from({length: p}, (_, i) => b + k + i),
      ...Array.from({length: k}, (_, i) => b + i), ...Array.from({length: post.length}, (_, i) => b + k + p + i)];
    return ops.transpose(got, back);
  });
};
