// TF.js's 3-D windows (NDHWC): conv3d, conv3dTranspose, maxPool3d,
// avgPool3d. The engine's ops compose them from the 2-D kernels, so they run
// and differentiate on every backend. As in TF.js, a rank-4 x is one example
// ([d, h, w, c]) and the result drops the batch again.
import {GlintError} from './core.js';
import {asTensor, tidy} from './tensor.js';
import {ops, runOp} from './ops.js';

// Float32's lowest: padding never wins a max (attributes travel as JSON).
const LOWEST = -3.4028234663852886e38;

function batched(op, x, body) {
  x = asTensor(x, op, 'x');
  if (x.rank !== 4 && x.rank !== 5) {
    throw new GlintError(`[${op}] x must be rank 4 [d, h, w, c] or 5 [n, d, h, w, c]: got shape [${x.shape}]`);
  }
  if (x.rank === 5) return body(x);
  return tidy(() => {
    const y = body(ops.reshape(x, [1, ...x.shape]));
    return ops.reshape(y, y.shape.slice(1));
  });
}

function ndhwc(op, dataFormat) {
  if (dataFormat !== 'NDHWC') throw new GlintError(`[${op}] dataFormat must be 'NDHWC' (got '${dataFormat}')`);
}

/**
 * 'same' and 'valid' go to the op; a non-negative integer pads depth, height
 * and width on both sides (a pad op with `fill`, then 'valid'), with TF.js's
 * default 'floor' rounding of the window count.
 */
function padded(op, x, pad, dimRoundingMode, fill, run) {
  if (pad === 'same' || pad === 'valid') return run(x, pad);
  if (!(typeof pad === 'number' && Number.isInteger(pad) && pad >= 0)) {
    throw new GlintError(`[${op}] pad must be 'same', 'valid' or a non-negative integer: got ${JSON.stringify(pad)}`);
  }
  if (dimRoundingMode != null && dimRoundingMode !== 'floor') {
    throw new GlintError(`[${op}] dimRoundingMode '${dimRoundingMode}' is not supported with a numeric pad ` +
        '(the windows are counted with floor)');
  }
  return tidy(() => run(ops.pad(x, [[0, 0], [pad, pad], [pad, pad], [pad, pad], [0, 0]], fill), 'valid'));
}

export function conv3d(x, filter, strides = 1, pad = 'valid', dataFormat = 'NDHWC', dilations = [1, 1, 1]) {
  ndhwc('conv3d', dataFormat);
  return batched('conv3d', x, (x5) => padded('conv3d', x5, pad, undefined, 0,
      (xp, p) => runOp('conv3d', [xp, filter], {strides, pad: p, dilations})[0]));
}

export function conv3dTranspose(x, filter, outputShape, strides = 1, pad = 'valid') {
  if (pad !== 'same' && pad !== 'valid') {
    throw new GlintError(`[conv3dTranspose] pad must be 'same' or 'valid': got ${JSON.stringify(pad)}`);
  }
  if (!Array.isArray(outputShape) || (outputShape.length !== 4 && outputShape.length !== 5)) {
    throw new GlintError('[conv3dTranspose] outputShape must be [d, h, w, c] or [n, d, h, w, c]: got ' +
        JSON.stringify(outputShape));
  }
  return batched('conv3dTranspose', x, (x5) => runOp('conv3dTranspose', [x5, filter], {
    outputShape: outputShape.length === 5 ? outputShape : [x5.shape[0], ...outputShape], strides, pad})[0]);
}

export function maxPool3d(x, filterSize = [1, 1, 1], strides, pad = 'valid', dimRoundingMode, dataFormat = 'NDHWC') {
  ndhwc('maxPool3d', dataFormat);
  return batched('maxPool3d', x, (x5) => padded('maxPool3d', x5, pad, dimRoundingMode, LOWEST,
      (xp, p) => runOp('maxPool3d', [xp], {filterSize, strides: strides ?? filterSize, pad: p})[0]));
}

export function avgPool3d(x, filterSize = [1, 1, 1], strides, pad = 'valid', dimRoundingMode, dataFormat = 'NDHWC') {
  ndhwc('avgPool3d', dataFormat);
  if (typeof pad === 'number') {
    // TF.js averages a numerically padded window over its in-bounds taps
    // only, which a pad op followed by 'valid' would not.
    throw new GlintError(`[avgPool3d] pad must be 'same' or 'valid' (got ${pad}): a numeric pad is not supported`);
  }
  return batched('avgPool3d', x, (x5) => padded('avgPool3d', x5, pad, dimRoundingMode, 0,
      (xp, p) => runOp('avgPool3d', [xp], {filterSize, strides: strides ?? filterSize, pad: p})[0]));
}
