// More TF.js ops composed from Glint's ops in JS (as ops_composite.js): rank
// aliases, separable and fused convolutions, LRN, dilated pooling, search and
// counting ops, random and dtype helpers. Each runs on every backend and,
// where TF.js differentiates it, the tape does too.
import {GlintError} from './core.js';
import {tensor, tidy, asTensor} from './tensor.js';
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
  const x = need('pool', 'input', input);
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

export function grayscaleToRGB(image) {
  const x = need('grayscaleToRGB', 'image', image);
  if (x.rank < 2 || x.shape[x.rank - 1] !== 1) {
    throw new GlintError(`[grayscaleToRGB] the last dimension of image must be 1: got [${x.shape}]`);
  }
  return tidy(() => ops.tile(x, [...x.shape.slice(0, -1).map(() => 1), 3]));
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
