// More TF.js ops composed from Glint's ops in JS (as ops_composite.js): each
// runs on every backend and, where TF.js differentiates it, the tape does too.
// The *Async ops and unique read their inputs, as TF.js's own do.
import {GlintError} from './core.js';
import {Tensor, tensor, tidy, asTensor} from './tensor.js';
import {ops} from './ops.js';
import {spaceToBatchND, batchToSpaceND} from './ops_layout.js';

const need = (op, arg, x) => asTensor(x, op, arg);

function rankChecked(op, rank, fn) {
  return (x, ...rest) => {
    const t = need(op, 'x', x);
    if (t.rank !== rank) throw new GlintError(`[${op}] x must be rank ${rank}: got shape [${t.shape}]`);
    return fn(t, ...rest);
  };
}
export const batchNorm2d = rankChecked('batchNorm2d', 2, ops.batchNorm);
export const batchNorm3d = rankChecked('batchNorm3d', 3, ops.batchNorm);
export const batchNorm4d = rankChecked('batchNorm4d', 4, ops.batchNorm);

/** A depthwise convolution followed by a 1x1 pointwise one. */
export function separableConv2d(x, depthwiseFilter, pointwiseFilter, strides, pad, dilation = [1, 1],
                                dataFormat = 'NHWC') {
  x = need('separableConv2d', 'x', x);
  const dw = need('separableConv2d', 'depthwiseFilter', depthwiseFilter);
  const pw = need('separableConv2d', 'pointwiseFilter', pointwiseFilter);
  if (dataFormat !== 'NHWC') {
    throw new GlintError(`[separableConv2d] dataFormat must be 'NHWC' (got '${dataFormat}')`);
  }
  if ((x.rank !== 3 && x.rank !== 4) || dw.rank !== 4 || pw.rank !== 4 || pw.shape[0] !== 1 ||
      pw.shape[1] !== 1 || pw.shape[2] !== dw.shape[2] * dw.shape[3]) {
    throw new GlintError(`[separableConv2d] needs x rank 3 or 4, depthwiseFilter [fh, fw, in, mult] and ` +
        `pointwiseFilter [1, 1, in*mult, out]: got x [${x.shape}], depthwiseFilter [${dw.shape}], ` +
        `pointwiseFilter [${pw.shape}]`);
  }
  return tidy(() => {
    const x4 = x.rank === 3 ? ops.expandDims(x, 0) : x;
    const y = ops.conv2d(ops.depthwiseConv2d(x4, dw, strides, pad, 'NHWC', dilation), pw, 1, 'valid');
    return x.rank === 3 ? ops.squeeze(y, [0]) : y;
  });
}

/** x / (bias + alpha * sum of squares over depthRadius channels either side)^beta. */
export function localResponseNormalization(x, depthRadius = 5, bias = 1, alpha = 1, beta = 0.5) {
  x = need('localResponseNormalization', 'x', x);
  if ((x.rank !== 3 && x.rank !== 4) || !Number.isInteger(depthRadius) || depthRadius < 0) {
    throw new GlintError(`[localResponseNormalization] needs x of rank 3 or 4 and an integer depthRadius ` +
        `>= 0: got x [${x.shape}], depthRadius ${depthRadius}`);
  }
  const c = x.shape[x.rank - 1], r = depthRadius;
  return tidy(() => {
    const sq = ops.pad(ops.square(x), [...x.shape.slice(0, -1).map(() => [0, 0]), [r, r]]);
    let window = null;
    for (let i = 0; i <= 2 * r; ++i) {
      const begin = sq.shape.map(() => 0);
      begin[begin.length - 1] = i;
      const part = ops.slice(sq, begin, [...x.shape.slice(0, -1), c]);
      window = window ? ops.add(window, part) : part;
    }
    return ops.div(x, ops.pow(ops.add(ops.mul(window, alpha), bias), beta));
  });
}

/** v + (x - v) * (1 - decay), divided by 1 - decay^step when zeroDebias. */
export function movingAverage(v, x, decay, step, zeroDebias = true) {
  v = need('movingAverage', 'v', v);
  x = need('movingAverage', 'x', x);
  if (v.shape.join() !== x.shape.join()) {
    throw new GlintError(`[movingAverage] v and x must have one shape: got [${v.shape}] and [${x.shape}]`);
  }
  if (zeroDebias && step == null) {
    throw new GlintError('[movingAverage] step is needed when zeroDebias is true');
  }
  return tidy(() => {
    const d = asTensor(decay, 'movingAverage', 'decay', v);
    let update = ops.mul(ops.sub(x, v), ops.sub(1, d));
    if (zeroDebias) {
      update = ops.div(update, ops.sub(1, ops.pow(d, asTensor(step, 'movingAverage', 'step', v))));
    }
    return ops.add(v, update);
  });
}

/**
 * For each value, where it goes in the sorted last axis of sortedSequence:
 * 'left' counts the entries below it, 'right' those at or below it. int32.
 */
export function searchSorted(sortedSequence, values, side = 'left') {
  const s = need('searchSorted', 'sortedSequence', sortedSequence);
  const v = need('searchSorted', 'values', values);
  if (side !== 'left' && side !== 'right') {
    throw new GlintError(`[searchSorted] side must be 'left' or 'right': got ${JSON.stringify(side)}`);
  }
  if (s.rank < 1 || v.rank < 1 || s.rank !== v.rank ||
      s.shape.slice(0, -1).join() !== v.shape.slice(0, -1).join()) {
    throw new GlintError(`[searchSorted] sortedSequence and values must have one rank >= 1 and the same ` +
        `leading dimensions: got [${s.shape}] and [${v.shape}]`);
  }
  return tidy(() => {
    const below = side === 'left' ? ops.less : ops.lessEqual;
    const hits = below(ops.expandDims(s, -2), ops.expandDims(v, -1));
    const counts = ops.sum(ops.cast(hits, 'int32'), -1);
    // TF.js answers 1-D inputs with shape [1, values.size]; kept so results match.
    return v.rank === 1 ? ops.reshape(counts, [1, v.size]) : counts;
  });
}
export const lowerBound = (sortedSequence, values) => searchSorted(sortedSequence, values, 'left');
export const upperBound = (sortedSequence, values) => searchSorted(sortedSequence, values, 'right');

function countBins(op, x, weights, size, binaryOutput) {
  if (!Number.isInteger(size) || size < 0) {
    throw new GlintError(`[${op}] size must be a non-negative integer: got ${size}`);
  }
  const w = weights == null ? null : need(op, 'weights', weights);
  if (x.dtype !== 'int32') throw new GlintError(`[${op}] x must be int32: got ${x.dtype}`);
  if (w && w.size > 0 && w.shape.join() !== x.shape.join()) {
    throw new GlintError(`[${op}] weights must be empty or of x's shape [${x.shape}]: got [${w.shape}]`);
  }
  const weighted = w && w.size > 0 && !binaryOutput;
  const dtype = w ? w.dtype : 'int32';
  return tidy(() => {
    // Values outside [0, size) have an all-zero one-hot row: they are not counted.
    const hot = ops.oneHot(x, size, 1, 0, 'float32');
    let counts = weighted ? ops.sum(ops.mul(hot, ops.expandDims(ops.cast(w, 'float32'), -1)), -2) :
        ops.sum(hot, -2);
    if (binaryOutput) counts = ops.minimum(counts, 1);
    return ops.cast(counts, dtype);
  });
}

/** Counts (or sums of weights) of each value 0..size-1 in the 1-D int32 x. */
export function bincount(x, weights, size) {
  x = need('bincount', 'x', x);
  if (x.rank !== 1) throw new GlintError(`[bincount] x must be rank 1: got [${x.shape}]`);
  return countBins('bincount', x, weights, size, false);
}

/** bincount for 1-D or 2-D x (per row); binaryOutput marks presence instead of counting. */
export function denseBincount(x, weights, size, binaryOutput = false) {
  x = need('denseBincount', 'x', x);
  if (x.rank !== 1 && x.rank !== 2) throw new GlintError(`[denseBincount] x must be rank 1 or 2: got [${x.shape}]`);
  return countBins('denseBincount', x, weights, size, binaryOutput);
}

/** A tensor of shape whose values come from calling randFunction once per element. */
export function rand(shape, randFunction, dtype) {
  const size = shape.reduce((n, d) => n * d, 1);
  const values = Array.from({length: size}, () => randFunction());
  return tensor(values, shape, dtype ?? 'float32');
}

export function randomStandardNormal(shape, dtype, seed) {
  if (dtype != null && dtype !== 'float32' && dtype !== 'int32') {
    throw new GlintError(`[randomStandardNormal] dtype must be float32 or int32: got ${dtype}`);
  }
  const x = ops.randomNormal(shape, 0, 1, 'float32', seed);
  if (dtype !== 'int32') return x;
  return tidy(() => ops.cast(x, 'int32'));
}

/** Integers drawn uniformly from [minval, maxval). */
export function randomUniformInt(shape, minval, maxval, seed) {
  return tidy(() => ops.cast(ops.floor(ops.randomUniform(shape, minval, maxval, 'float32', seed)), 'int32'));
}

const DTYPE_RANK = {bool: 0, int32: 1, float32: 2, complex64: 3};

/** The dtype that holds both (bool < int32 < float32 < complex64; string only with string). */
export function upcastType(typeA, typeB) {
  if (typeA === 'string' || typeB === 'string') {
    if (typeA === 'string' && typeB === 'string') return 'string';
    throw new GlintError(`Can not upcast ${typeA} with ${typeB}`);
  }
  if (!(typeA in DTYPE_RANK) || !(typeB in DTYPE_RANK)) {
    throw new GlintError(`[upcastType] unknown dtype: ${typeA}, ${typeB}`);
  }
  return DTYPE_RANK[typeA] >= DTYPE_RANK[typeB] ? typeA : typeB;
}

/** The dtype sum() gives for type: bool sums to int32. */
export function sumOutType(type) {
  return upcastType(type, 'int32');
}

/** op({name: fn}): fn as a named op (errors thrown inside it are prefixed with the name). */
export function op(f) {
  const keys = f && typeof f === 'object' ? Object.keys(f) : [];
  if (keys.length !== 1 || typeof f[keys[0]] !== 'function') {
    throw new GlintError('[op] expects an object with exactly one function: {name: fn}');
  }
  const name = keys[0].endsWith('_') ? keys[0].slice(0, -1) : keys[0];
  const fn = f[keys[0]];
  const wrapped = (...args) => fn(...args);
  Object.defineProperty(wrapped, 'name', {value: `${name}__op`});
  return wrapped;
}

/** Fails unless x's shape matches shape (null entries match anything); returns x. */
export function ensureShape(x, shape) {
  x = need('ensureShape', 'x', x);
  const ok = x.rank === shape.length && shape.every((d, i) => d == null || d === x.shape[i]);
  if (!ok) throw new GlintError(`[ensureShape] the shape of x [${x.shape}] does not match [${shape}]`);
  return x;
}

/** Pooling with dilations: spaceToBatchND around a max or average pool, as atrous convolutions do. */
export function pool(input, windowShape, poolingType, pad, dilations = [1, 1], strides = [1, 1],
                     dimRoundingMode) {
  let x = need('pool', 'input', input);
  if (poolingType !== 'max' && poolingType !== 'avg') {
    throw new GlintError(`[pool] poolingType must be 'max' or 'avg': got ${JSON.stringify(poolingType)}`);
  }
  if (dimRoundingMode != null) {
    throw new GlintError('[pool] dimRoundingMode is not supported: pad the input instead');
  }
  const pair = (v) => (typeof v === 'number' ? [v, v] : v);
  const [dh, dw] = pair(dilations), [sh, sw] = pair(strides), win = pair(windowShape);
  if ((dh > 1 || dw > 1) && (sh > 1 || sw > 1)) {
    throw new GlintError(`[pool] strides ${JSON.stringify(strides)} must be 1 when dilations are ` +
        `${JSON.stringify(dilations)}`);
  }
  if (typeof pad !== 'string') {
    throw new GlintError(`[pool] pad must be 'same' or 'valid': got ${JSON.stringify(pad)}`);
  }
  // TF.js pads dilated 'same' windows with zeros (a max then sees 0, an average counts it);
  // rather than differ from TF.js or from TF, that combination is refused.
  if ((dh > 1 || dw > 1) && pad !== 'valid') {
    throw new GlintError(`[pool] dilations ${JSON.stringify(dilations)} need pad 'valid': got '${pad}'`);
  }
  const run = (t, p) => (poolingType === 'max' ? ops.maxPool(t, win, [sh, sw], p) : ops.avgPool(t, win, [sh, sw], p));
  if (dh === 1 && dw === 1) return run(x, pad);
  return tidy(() => {
    const x4 = x.rank === 3 ? ops.expandDims(x, 0) : x;
    const [h, w] = [x4.shape[1], x4.shape[2]];
    const effH = (win[0] - 1) * dh + 1, effW = (win[1] - 1) * dw + 1;
    if (effH > h || effW > w) {
      throw new GlintError(`[pool] the dilated window [${effH}, ${effW}] is larger than the input [${h}, ${w}]`);
    }
    // Pad to a multiple of the dilation (the extra rows are cropped again below).
    const padded = ops.pad(x4, [[0, 0], [0, (dh - h % dh) % dh], [0, (dw - w % dw) % dw], [0, 0]]);
    const outH = h - effH + 1, outW = w - effW + 1;
    const s2b = spaceToBatchND(padded, [dh, dw], [[0, 0], [0, 0]]);
    const pooled = run(s2b, 'valid');
    const back = batchToSpaceND(pooled, [dh, dw], [[0, pooled.shape[1] * dh - outH], [0, pooled.shape[2] * dw - outW]]);
    return x.rank === 3 ? ops.squeeze(back, [0]) : back;
  });
}

// ---- Ops that read their inputs (host-side in TF.js too) -------------------------

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
export async function setdiff1dAsync(x, y) {
  const a = need('setdiff1dAsync', 'x', x), b = need('setdiff1dAsync', 'y', y);
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
export async function inTopKAsync(predictions, targets, k = 1) {
  const p = need('inTopKAsync', 'predictions', predictions), t = need('inTopKAsync', 'targets', targets);
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

// ---- tf.linalg, tf.signal, tf.image additions -------------------------------------

/** Keeps the band numLower below and numUpper above the diagonal (negative: all) of the last two axes. */
export function bandPart(a, numLower, numUpper) {
  a = need('bandPart', 'a', a);
  if (a.rank < 2) throw new GlintError(`[bandPart] a must be rank >= 2: got [${a.shape}]`);
  const [m, n] = a.shape.slice(-2);
  const lower = numLower < 0 ? m : numLower, upper = numUpper < 0 ? n : numUpper;
  if (!Number.isInteger(lower) || !Number.isInteger(upper)) {
    throw new GlintError(`[bandPart] numLower and numUpper must be integers: got ${numLower}, ${numUpper}`);
  }
  const mask = new Float32Array(m * n);
  for (let i = 0; i < m; ++i) for (let j = 0; j < n; ++j) mask[i * n + j] = i - j <= lower && j - i <= upper ? 1 : 0;
  return tidy(() => {
    const keep = ops.cast(tensor(mask, [m, n]), 'bool');
    return ops.where(keep, a, ops.zerosLike(a));
  });
}

/** Orthonormalizes the rows of a 2-D tensor (or an array of 1-D tensors) by Gram-Schmidt. */
export function gramSchmidt(xs) {
  const list = Array.isArray(xs);
  const rows = list ? xs.map((x, i) => need('gramSchmidt', `xs[${i}]`, x)) : null;
  const m = list ? null : need('gramSchmidt', 'xs', xs);
  if (list ? rows.length === 0 || rows.some((r) => r.rank !== 1 || r.shape[0] !== rows[0].shape[0]) : m.rank !== 2) {
    throw new GlintError('[gramSchmidt] expects a 2-D tensor or a non-empty array of 1-D tensors of one length');
  }
  return tidy(() => {
    const vs = list ? rows : ops.unstack(m);
    const out = [];
    for (const v of vs) {
      let x = v;
      for (const y of out) x = ops.sub(x, ops.mul(ops.sum(ops.mul(y, x)), y));
      out.push(ops.div(x, ops.sqrt(ops.sum(ops.square(x)))));
    }
    return list ? out : ops.stack(out);
  });
}

function cosineWindow(op, length, a, b) {
  if (!Number.isInteger(length) || length < 0) {
    throw new GlintError(`[${op}] windowLength must be a non-negative integer: got ${length}`);
  }
  // As TF.js: periodic for even lengths (2πi/N), symmetric for odd ones (2πi/(N-1)); N = 1 gives NaN there too.
  const denominator = length + (1 - length % 2) - 1;
  return tidy(() => ops.sub(a, ops.mul(b, ops.cos(ops.mul(ops.range(0, length, 1, 'float32'), 2 * Math.PI / denominator)))));
}
export const hannWindow = (windowLength) => cosineWindow('hannWindow', windowLength, 0.5, 0.5);
export const hammingWindow = (windowLength) => cosineWindow('hammingWindow', windowLength, 0.54, 0.46);

/** Overlapping frames of frameLength every frameStep along the last axis of the 1-D signal. */
export function frame(signal, frameLength, frameStep, padEnd = false, padValue = 0) {
  const s = need('frame', 'signal', signal);
  if (s.rank !== 1 || !Number.isInteger(frameLength) || frameLength < 1 || !Number.isInteger(frameStep) ||
      frameStep < 1) {
    throw new GlintError(`[frame] needs a 1-D signal and positive integer frameLength, frameStep: got ` +
        `[${s.shape}], ${frameLength}, ${frameStep}`);
  }
  const n = s.shape[0];
  return tidy(() => {
    let src = s, count;
    if (padEnd) {
      count = Math.max(0, Math.ceil(n / frameStep));
      const needLen = (count - 1) * frameStep + frameLength;
      if (needLen > n) src = ops.pad(s, [[0, needLen - n]], padValue);
    } else {
      count = n < frameLength ? 0 : Math.floor((n - frameLength) / frameStep) + 1;
    }
    if (count === 0) return ops.reshape(ops.slice(s, [0], [0]), [0, frameLength]);
    const idx = new Int32Array(count * frameLength);
    for (let f = 0; f < count; ++f) for (let j = 0; j < frameLength; ++j) idx[f * frameLength + j] = f * frameStep + j;
    return ops.reshape(ops.gather(src, tensor(idx, [idx.length], 'int32')), [count, frameLength]);
  });
}

/** [..., 1] grayscale to [..., 3] RGB by repeating the channel. */
export function grayscaleToRGB(image) {
  const x = need('grayscaleToRGB', 'image', image);
  if (x.rank < 2 || x.shape[x.rank - 1] !== 1) {
    throw new GlintError(`[grayscaleToRGB] the last dimension of image must be 1: got [${x.shape}]`);
  }
  return tidy(() => ops.tile(x, [...x.shape.slice(0, -1).map(() => 1), 3]));
}

// ---- RNN cells as functions (tf.basicLSTMCell, tf.multiRNNCell) -------------------

/** One LSTM step: [c, h] from data [b, in], c [b, u], h [b, u], lstmKernel [in+u, 4u], lstmBias [4u]. */
export function basicLSTMCell(forgetBias, lstmKernel, lstmBias, data, c, h) {
  const k = need('basicLSTMCell', 'lstmKernel', lstmKernel), bias = need('basicLSTMCell', 'lstmBias', lstmBias);
  const x = need('basicLSTMCell', 'data', data), cPrev = need('basicLSTMCell', 'c', c);
  const hPrev = need('basicLSTMCell', 'h', h);
  const u = cPrev.shape[1];
  if (k.rank !== 2 || k.shape[0] !== x.shape[1] + hPrev.shape[1] || k.shape[1] !== 4 * u) {
    throw new GlintError(`[basicLSTMCell] lstmKernel must be [${x.shape[1] + hPrev.shape[1]}, ${4 * u}] for data ` +
        `[${x.shape}] and h [${hPrev.shape}]: got [${k.shape}]`);
  }
  return tidy(() => {
    const gates = ops.add(ops.matMul(ops.concat([x, hPrev], 1), k), bias);
    const [i, j, f, o] = ops.split(gates, 4, 1);
    const cNext = ops.add(ops.mul(ops.sigmoid(i), ops.tanh(j)),
                          ops.mul(cPrev, ops.sigmoid(ops.add(f, need('basicLSTMCell', 'forgetBias', forgetBias)))));
    return [cNext, ops.mul(ops.tanh(cNext), ops.sigmoid(o))];
  });
}

/** Runs cells in sequence, each on the previous one's h: [[c...], [h...]]. */
export function multiRNNCell(lstmCells, data, c, h) {
  let input = need('multiRNNCell', 'data', data);
  const cs = [], hs = [];
  for (let i = 0; i < lstmCells.length; ++i) {
    const [ci, hi] = lstmCells[i](input, c[i], h[i]);
    cs.push(ci);
    hs.push(hi);
    input = hi;
  }
  return [cs, hs];
}

// ---- einsum ------------------------------------------------------------------------

/**
 * einsum('ij,jk->ik', a, b): one or two operands, an explicit '->', no index
 * repeated within an operand (TF.js's limits). Each operand is transposed to
 * one shared index order and given size-1 axes for the indices it lacks; their
 * broadcast product is summed over the indices the output drops.
 */
export function einsum(equation, ...tensors) {
  if (typeof equation !== 'string' || (equation.match(/->/g) ?? []).length !== 1) {
    throw new GlintError(`[einsum] the equation needs exactly one '->': got ${JSON.stringify(equation)}`);
  }
  const [lhs, out] = equation.replace(/\s/g, '').split('->');
  const terms = lhs.split(',');
  if (terms.length !== tensors.length) {
    throw new GlintError(`[einsum] '${equation}' has ${terms.length} operands, got ${tensors.length} tensors`);
  }
  if (terms.length > 2) throw new GlintError('[einsum] more than 2 operands are not supported (as in TF.js)');
  const xs = tensors.map((t, i) => need('einsum', `tensors[${i}]`, t));
  const sizes = new Map();
  terms.forEach((term, i) => {
    if (!/^[a-zA-Z]*$/.test(term) || new Set(term).size !== term.length) {
      throw new GlintError(`[einsum] operand ${i} '${term}' must be distinct letters (no repeated or ellipsis axes)`);
    }
    if (term.length !== xs[i].rank) {
      throw new GlintError(`[einsum] operand ${i} '${term}' names ${term.length} axes; its shape is [${xs[i].shape}]`);
    }
    [...term].forEach((c, d) => {
      const n = xs[i].shape[d];
      if (sizes.has(c) && sizes.get(c) !== n) {
        throw new GlintError(`[einsum] index '${c}' is ${sizes.get(c)} in one operand and ${n} in another`);
      }
      sizes.set(c, n);
    });
  });
  if (new Set(out).size !== out.length || [...out].some((c) => !sizes.has(c))) {
    throw new GlintError(`[einsum] output '${out}' must be distinct indices of the operands`);
  }
  const order = [...out, ...[...sizes.keys()].filter((c) => !out.includes(c))];
  return tidy(() => {
    const aligned = xs.map((x, i) => {
      const term = terms[i];
      const present = order.filter((c) => term.includes(c));
      const moved = ops.transpose(x, present.map((c) => term.indexOf(c)));
      return ops.reshape(moved, order.map((c) => (term.includes(c) ? sizes.get(c) : 1)));
    });
    const product = aligned.length === 1 ? aligned[0] : ops.mul(aligned[0], aligned[1]);
    const summed = order.slice(out.length).map((_, k) => out.length + k);
    const reduced = summed.length ? ops.sum(product, summed) : product;
    return ops.reshape(reduced, [...out].map((c) => sizes.get(c)));
  });
}

// ---- linalg.qr ---------------------------------------------------------------------

// Householder QR of one [m, n] matrix, with TF.js's conventions (the reflector
// makes r[j][j] = -sign(r[j][j]) * |column|, a zero diagonal counting as negative).
function qr2d(x, fullMatrices) {
  const [m, n] = x.shape;
  const k = Math.min(m, n);
  let q = ops.cast(tensor(Float32Array.from({length: m * m}, (_, i) => (i % (m + 1) === 0 ? 1 : 0)), [m, m]), 'float32');
  let r = x;
  for (let j = 0; j < k; ++j) {
    const col = ops.slice(r, [j, j], [m - j, 1]);
    const normX = ops.sqrt(ops.sum(ops.square(col)));
    const rjj = ops.slice(r, [j, j], [1, 1]);
    const s = ops.where(ops.greater(rjj, 0), ops.fill([1, 1], -1), ops.fill([1, 1], 1));
    const u1 = ops.sub(rjj, ops.mul(s, normX));
    const below = ops.div(ops.slice(col, [1, 0], [m - j - 1, 1]), u1);
    const w = ops.concat([ops.ones([1, 1]), below], 0);
    const tau = ops.div(ops.mul(ops.neg(s), u1), normX);
    const rLow = ops.slice(r, [j, 0], [m - j, n]);
    const rLowNew = ops.sub(rLow, ops.matMul(ops.mul(tau, w), ops.matMul(w, rLow, true, false)));
    r = j === 0 ? rLowNew : ops.concat([ops.slice(r, [0, 0], [j, n]), rLowNew], 0);
    const qRight = ops.slice(q, [0, j], [m, m - j]);
    const qRightNew = ops.sub(qRight, ops.matMul(ops.matMul(qRight, w), ops.mul(tau, w), false, true));
    q = j === 0 ? qRightNew : ops.concat([ops.slice(q, [0, 0], [m, j]), qRightNew], 1);
  }
  if (!fullMatrices && m > n) {
    q = ops.slice(q, [0, 0], [m, n]);
    r = ops.slice(r, [0, 0], [n, n]);
  }
  return [q, r];
}

/** [q, r] with x = q r over the last two axes: q orthonormal columns, r upper triangular. */
export function qr(x, fullMatrices = false) {
  x = need('qr', 'x', x);
  if (x.rank < 2) throw new GlintError(`[qr] x must be rank >= 2: got [${x.shape}]`);
  if (x.dtype !== 'float32') throw new GlintError(`[qr] x must be float32: got ${x.dtype}`);
  const [m, n] = x.shape.slice(-2);
  const lead = x.shape.slice(0, -2);
  return tidy(() => {
    if (lead.length === 0) return qr2d(x, fullMatrices);
    const parts = ops.unstack(ops.reshape(x, [-1, m, n])).map((mat) => qr2d(mat, fullMatrices));
    const qs = ops.stack(parts.map((p) => p[0])), rs = ops.stack(parts.map((p) => p[1]));
    return [ops.reshape(qs, [...lead, ...qs.shape.slice(1)]), ops.reshape(rs, [...lead, ...rs.shape.slice(1)])];
  });
}

// ---- fused.conv2d / fused.depthwiseConv2d ----------------------------------------

function activate(op, y, activation, preluActivationWeights, leakyreluAlpha) {
  switch (activation) {
    case 'linear': return y;
    case 'relu': return ops.relu(y);
    case 'relu6': return ops.relu6(y);
    case 'elu': return ops.elu(y);
    case 'sigmoid': return ops.sigmoid(y);
    case 'leakyrelu': return ops.leakyRelu(y, leakyreluAlpha);
    case 'prelu':
      if (preluActivationWeights == null) throw new GlintError(`[${op}] activation 'prelu' needs preluActivationWeights`);
      return ops.add(ops.relu(y), ops.mul(preluActivationWeights, ops.minimum(y, 0)));
    default:
      throw new GlintError(`[${op}] unknown activation '${activation}': use linear, relu, relu6, elu, ` +
          'sigmoid, leakyrelu or prelu');
  }
}

function fusedWindow(op, run) {
  return ({x, filter, strides, pad, dataFormat = 'NHWC', dilations = [1, 1], dimRoundingMode, bias,
           activation = 'linear', preluActivationWeights, leakyreluAlpha = 0.2}) => {
    if (dimRoundingMode != null) throw new GlintError(`[${op}] dimRoundingMode is not supported: pad the input instead`);
    return tidy(() => {
      let y = run(x, filter, strides, pad, dataFormat, dilations);
      if (bias != null) y = ops.add(y, bias);
      return activate(op, y, activation, preluActivationWeights, leakyreluAlpha);
    });
  };
}
export const fusedConv2d = fusedWindow('fused.conv2d', ops.conv2d);
export const fusedDepthwiseConv2d = fusedWindow('fused.depthwiseConv2d', ops.depthwiseConv2d);
