// The discrete Fourier transforms (tf.spectral, tf.signal.stft) over the
// innermost axis, composed from the engine's matMul, transpose and
// element-wise kernels, so they run on every backend and differentiate.
//
// Length n: n <= 64 is one matrix product with the DFT matrix; n = n1 * n2
// (n1 the largest factor <= sqrt n) is the four-step FFT: n2 transforms of
// length n1, twiddles, n1 transforms of length n2, each recursively; a prime
// n > 64 goes through Bluestein's chirp, a convolution done with transforms
// of a power-of-two length >= 2n - 1. Work O(n (n1 + n2)) per level, memory
// O(n): no n x n matrix. Angles are reduced modulo n in float64 before
// rounding to float32, so large n keeps its accuracy.
import {GlintError} from './core.js';
import {tensor, tidy, asTensor} from './tensor.js';
import {ops} from './ops.js';
import {isComplex, parts, fromParts, multiply} from './complex.js';
import {hannWindow, frame} from './ops_signal.js';

const DIRECT_MAX = 64;

function largestFactorUpToRoot(n) {
  for (let d = Math.floor(Math.sqrt(n)); d > 1; --d) if (n % d === 0) return d;
  return 1;
}

// [[C, sS], [-sS, C]] with C = cos(2 pi jk / n), S = sin(2 pi jk / n), s the
// transform's sign: [re im] times it is the transform of re + i im. Only the
// top half when the input is real.
function dftMatrix(n, sign, realInput) {
  const rows = realInput ? n : 2 * n, cols = 2 * n;
  const m = new Float32Array(rows * cols);
  for (let j = 0; j < n; ++j) {
    for (let k = 0; k < n; ++k) {
      const angle = 2 * Math.PI * ((j * k) % n) / n;
      const c = Math.cos(angle), s = sign * Math.sin(angle);
      m[j * cols + k] = c;
      m[j * cols + n + k] = s;
      if (!realInput) {
        m[(n + j) * cols + k] = -s;
        m[(n + j) * cols + n + k] = c;
      }
    }
  }
  return tensor(m, [rows, cols]);
}

function direct(re, im, n, sign) {
  const z = im ? ops.concat([re, im], 1) : re;
  return ops.split(ops.matMul(z, dftMatrix(n, sign, !im)), 2, 1);
}

// exp(i sign 2 pi a b / n) for a < rows, b < cols, as [re, im] of shape [rows, cols].
function twiddles(rows, cols, n, sign) {
  const re = new Float32Array(rows * cols), im = new Float32Array(rows * cols);
  for (let a = 0; a < rows; ++a) {
    for (let b = 0; b < cols; ++b) {
      const angle = 2 * Math.PI * ((a * b) % n) / n;
      re[a * cols + b] = Math.cos(angle);
      im[a * cols + b] = sign * Math.sin(angle);
    }
  }
  return [tensor(re, [rows, cols]), tensor(im, [rows, cols])];
}

function fourStep(re, im, n, sign) {
  const rows = re.shape[0], n1 = largestFactorUpToRoot(n), n2 = n / n1;
  const byColumns = (t, a, b) => (t ? ops.reshape(ops.transpose(ops.reshape(t, [rows, a, b]), [0, 2, 1]),
      [rows * b, a]) : null);
  // Element [r, j2, k1] after the first pass: the length-n1 transforms of x[n2 j1 + j2].
  const [ar, ai] = transform(byColumns(re, n1, n2), byColumns(im, n1, n2), n1, sign);
  const [tr, ti] = twiddles(n2, n1, n, sign);
  const [br, bi] = multiply([ops.reshape(ar, [rows, n2, n1]), ops.reshape(ai, [rows, n2, n1])], [tr, ti]);
  // Then the length-n2 transforms over j2; output k = k1 + n1 k2.
  const [cr, ci] = transform(byColumns(br, n2, n1), byColumns(bi, n2, n1), n2, sign);
  const back = (t) => ops.reshape(ops.transpose(ops.reshape(t, [rows, n1, n2]), [0, 2, 1]), [rows, n]);
  return [back(cr), back(ci)];
}

function chirp(n, length, sign) {
  // exp(i sign pi j^2 / n) for j < length; j^2 reduced modulo 2n.
  const re = new Float32Array(length), im = new Float32Array(length);
  for (let j = 0; j < length; ++j) {
    const angle = Math.PI * Number((BigInt(j) * BigInt(j)) % BigInt(2 * n)) / n;
    re[j] = Math.cos(angle);
    im[j] = sign * Math.sin(angle);
  }
  return [re, im];
}

// X_k = c_k sum_j (x_j c_j) conj(c_(k-j)), c_j = exp(i sign pi j^2 / n): a
// circular convolution of length m >= 2n - 1, done with length-m transforms.
function bluestein(re, im, n, sign) {
  const rows = re.shape[0];
  let m = 1;
  while (m < 2 * n - 1) m *= 2;
  const [cr, ci] = chirp(n, n, sign);
  const c = [tensor(cr, [1, n]), tensor(ci, [1, n])];
  const a = multiply([re, im ?? ops.zerosLike(re)], c).map((t) => ops.pad(t, [[0, 0], [0, m - n]]));
  const br = new Float32Array(m), bi = new Float32Array(m);
  for (let j = 0; j < n; ++j) {
    br[j] = cr[j];
    bi[j] = -ci[j];
    if (j > 0) {
      br[m - j] = cr[j];
      bi[m - j] = -ci[j];
    }
  }
  const fa = transform(a[0], a[1], m, -1);
  const fb = transform(tensor(br, [1, m]), tensor(bi, [1, m]), m, -1);
  const [pr, pi] = multiply(fa, fb);
  const [qr, qi] = transform(pr, pi, m, 1);
  const conv = [qr, qi].map((t) => ops.mul(ops.slice(t, [0, 0], [rows, n]), 1 / m));
  return multiply(conv, c);
}

/** The unscaled transform of the rows of re + i im ([rows, n]; im null: zeros). */
function transform(re, im, n, sign) {
  if (n === 1) return [re, im ?? ops.zerosLike(re)];
  if (n <= DIRECT_MAX) return direct(re, im, n, sign);
  return largestFactorUpToRoot(n) > 1 ? fourStep(re, im, n, sign) : bluestein(re, im, n, sign);
}

// ---- TF.js's ops ----------------------------------------------------------------------

function complexInput(op, input) {
  const x = asTensor(input, op, 'input');
  if (x.rank < 1 || x.shape[x.rank - 1] < 1) {
    throw new GlintError(`[${op}] input needs rank >= 1 and an innermost dimension >= 1: got shape [${x.shape}]`);
  }
  return x;
}

function complexTransform(op, input, sign) {
  const x = complexInput(op, input);
  return tidy(() => {
    const shape = x.shape, n = shape[shape.length - 1], rows = x.size / n;
    const [re, im] = parts(x, op, 'input');
    let [yr, yi] = transform(ops.reshape(re, [rows, n]), ops.reshape(im, [rows, n]), n, sign);
    if (sign > 0) [yr, yi] = [ops.mul(yr, 1 / n), ops.mul(yi, 1 / n)];
    return fromParts(ops.reshape(yr, shape), ops.reshape(yi, shape));
  });
}

/** The DFT over the innermost axis (a real input counts as complex with zero imaginary part). */
export const fft = (input) => complexTransform('fft', input, -1);
/** The inverse DFT over the innermost axis, scaled by 1/n. */
export const ifft = (input) => complexTransform('ifft', input, 1);

/** The DFT of a real signal: the fftLength / 2 + 1 non-negative frequencies (cut or zero-padded to fftLength). */
export function rfft(input, fftLength) {
  const x = complexInput('rfft', input);
  if (isComplex(x)) throw new GlintError('[rfft] input must be real: got complex64 (use fft)');
  const shape = x.shape, inner = shape[shape.length - 1];
  const n = fftLength ?? inner;
  if (!Number.isInteger(n) || n < 1) throw new GlintError(`[rfft] fftLength must be a positive integer: got ${fftLength}`);
  return tidy(() => {
    let re = x.dtype === 'float32' ? x : ops.cast(x, 'float32');
    const rows = x.size / inner;
    re = ops.reshape(re, [rows, inner]);
    if (n < inner) re = ops.slice(re, [0, 0], [rows, n]);
    else if (n > inner) re = ops.pad(re, [[0, 0], [0, n - inner]]);
    const half = Math.floor(n / 2) + 1;
    const [yr, yi] = transform(re, null, n, -1);
    const out = [...shape.slice(0, -1), half];
    return fromParts(ops.reshape(ops.slice(yr, [0, 0], [rows, half]), out),
        ops.reshape(ops.slice(yi, [0, 0], [rows, half]), out));
  });
}

/**
 * The real signal of length 2 (m - 1) whose rfft is the input's m values.
 * Shapes as TF.js: a 1-D input gives [1, length], 2-D and 3-D keep their
 * outer dimensions; higher ranks keep theirs too (TF.js flattens them to 2-D).
 */
export function irfft(input) {
  const x = complexInput('irfft', input);
  return tidy(() => {
    const shape = x.shape, m = shape[shape.length - 1], rows = x.size / m;
    let [re, im] = parts(x, 'irfft', 'input').map((t) => ops.reshape(t, [rows, m]));
    if (m > 2) {
      // The negative frequencies: the conjugates of 1 .. m-2, reversed.
      const mirror = (t) => ops.reverse(ops.slice(t, [0, 1], [rows, m - 2]), 1);
      re = ops.concat([re, mirror(re)], 1);
      im = ops.concat([im, ops.neg(mirror(im))], 1);
    }
    const n = re.shape[1];
    const [yr] = transform(re, im, n, 1);
    const y = ops.mul(yr, 1 / n);
    return shape.length === 1 ? y : ops.reshape(y, [...shape.slice(0, -1), n]);
  });
}

/** Short-time Fourier transform of a 1-D signal: [frames, fftLength / 2 + 1], complex64. */
export function stft(signal, frameLength, frameStep, fftLength, windowFn = hannWindow) {
  const n = fftLength ?? 2 ** Math.ceil(Math.log2(frameLength));
  return tidy(() => rfft(ops.mul(frame(signal, frameLength, frameStep), windowFn(frameLength)), n));
}
