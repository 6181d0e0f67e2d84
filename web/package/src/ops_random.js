// Random draws TF.js programs use beyond uniform/normal: multinomial (inverse
// CDF over softmax probabilities, composed from Glint's ops) and randomGamma
// (host-side Marsaglia-Tsang sampling, as TF.js draws it on the host too).
import {GlintError} from './core.js';
import {tensor, tidy, asTensor} from './tensor.js';
import {ops} from './ops.js';
import {cumsum} from './ops_composite.js';

/**
 * numSamples class indices per row of logits [batch, classes] (or [classes]):
 * int32 [batch, numSamples] ([numSamples]). normalized: logits are already
 * probabilities.
 */
export function multinomial(logits, numSamples, seed, normalized = false) {
  const l = asTensor(logits, 'multinomial', 'logits');
  if ((l.rank !== 1 && l.rank !== 2) || l.shape[l.rank - 1] < 2) {
    throw new GlintError(`[multinomial] logits must be [classes] or [batch, classes] with classes >= 2: got [${l.shape}]`);
  }
  if (!Number.isInteger(numSamples) || numSamples < 1) {
    throw new GlintError(`[multinomial] numSamples must be a positive integer: got ${numSamples}`);
  }
  return tidy(() => {
    const rows = l.rank === 1 ? ops.expandDims(l, 0) : l;
    const probs = normalized ? ops.cast(rows, 'float32') : ops.softmax(ops.cast(rows, 'float32'));
    const cdf = cumsum(probs, 1);
    const batch = rows.shape[0];
    // Scaled by the total so that rounding in the cumulative sum never leaves the last class unreachable.
    const total = ops.slice(cdf, [0, rows.shape[1] - 1], [batch, 1]);
    const u = ops.mul(ops.randomUniform([batch, numSamples], 0, 1, 'float32', seed), total);
    const below = ops.lessEqual(ops.expandDims(cdf, 1), ops.expandDims(u, 2));
    const picks = ops.minimum(ops.sum(ops.cast(below, 'int32'), -1), tensor(rows.shape[1] - 1, [], 'int32'));
    return l.rank === 1 ? ops.reshape(picks, [numSamples]) : picks;
  });
}

// A small seeded generator (Math.random without a seed).
function uniformSource(seed) {
  if (seed == null) return Math.random;
  let s = (typeof seed === 'number' ? seed : [...String(seed)].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619), 2166136261)) >>> 0;
  return () => {
    s = (s + 0x6D2B79F5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
}

/**
 * Gamma(alpha) samples times beta. TF.js documents beta as the rate but
 * multiplies by it (its samples have mean alpha * beta); Glint keeps TF.js's
 * results. int32 rounds.
 */
export function randomGamma(shape, alpha, beta = 1, dtype = 'float32', seed) {
  if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 0)) {
    throw new GlintError(`[randomGamma] shape must be non-negative integers: got ${JSON.stringify(shape)}`);
  }
  if (!(alpha > 0) || !(beta > 0)) {
    throw new GlintError(`[randomGamma] alpha and beta must be positive: got ${alpha}, ${beta}`);
  }
  if (dtype !== 'float32' && dtype !== 'int32') {
    throw new GlintError(`[randomGamma] dtype must be float32 or int32: got ${dtype}`);
  }
  const rand = uniformSource(seed);
  const normal = () => Math.sqrt(-2 * Math.log(rand())) * Math.cos(2 * Math.PI * rand());
  // Marsaglia and Tsang (2000); alpha < 1 boosted by u^(1/alpha).
  const d = alpha < 1 ? alpha + 2 / 3 : alpha - 1 / 3, c = 1 / Math.sqrt(9 * d);
  const draw = () => {
    for (;;) {
      let x, v;
      do {
        x = normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = rand();
      if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) {
        let g = d * v;
        if (alpha < 1) g *= rand() ** (1 / alpha);
        return g * beta;
      }
    }
  };
  const n = shape.reduce((a, b) => a * b, 1);
  const values = dtype === 'float32' ? Float32Array.from({length: n}, draw) :
      Int32Array.from({length: n}, () => Math.round(draw()));
  return tensor(values, shape, dtype);
}
