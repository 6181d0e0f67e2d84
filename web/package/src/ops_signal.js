// tf.signal's windows and frame, composed from Glint's ops.
import {GlintError} from './core.js';
import {tensor, tidy, asTensor} from './tensor.js';
import {ops} from './ops.js';

const need = (op, arg, x) => asTensor(x, op, arg);

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
