// tf.image.transform and tf.image.rotateWithOffset: the source position of
// every output pixel is computed on the host (the transforms are 8 numbers per
// image); the pixels are then gathered and blended by Glint's ops, so every
// backend runs it and the tape differentiates it with respect to the image.
import {GlintError} from './core.js';
import {Tensor, tensor, tidy, asTensor} from './tensor.js';
import {ops} from './ops.js';

// Where a coordinate outside [0, len) reads from, per fill mode (TF's rules).
function reflectCoord(v, len) {
  if (len <= 1) return 0;
  const period = 2 * len;
  let c = v;
  if (c < 0) {
    if (c < period) c += period * Math.trunc(-c / period);
    c = c < -len ? c + period : -c - 1;
  } else if (c > len - 1) {
    c -= period * Math.trunc(c / period);
    if (c >= len) c = period - c - 1;
  }
  return Math.min(Math.max(c, 0), len - 1);
}

function wrapCoord(v, len) {
  if (len <= 1) return 0;
  let c = v;
  if (c < 0) c += len * (Math.trunc(-c / (len - 1)) + 1);
  else if (c > len - 1) c -= len * Math.trunc(c / (len - 1));
  return Math.min(Math.max(c, 0), len - 1);
}

const COORD = {
  constant: (v) => v,
  nearest: (v, len) => Math.min(Math.max(v, 0), len - 1),
  reflect: reflectCoord,
  wrap: wrapCoord,
};

/**
 * Blends taps: out[p] = sum_k weight_k[p] * (inside_k[p] ? image[index_k[p]] : fill[channel]).
 * taps: [{index: Int32Array, weight: Float32Array}], index -1 = outside.
 */
function blend(image, outShape, taps, fill) {
  const [, , , c] = image.shape;
  const n = outShape[0] * outShape[1] * outShape[2];
  return tidy(() => {
    const flat = ops.reshape(image, [-1, c]);
    const fillRow = tensor(Float32Array.from({length: c}, (_, ch) => fill[ch]), [1, c]);
    let out = null;
    for (const {index, weight} of taps) {
      const inside = Float32Array.from(index, (i) => (i >= 0 ? 1 : 0));
      const safe = Int32Array.from(index, (i) => Math.max(i, 0));
      const w = tensor(weight, [n, 1]);
      const inW = ops.mul(w, tensor(inside, [n, 1]));
      const outW = ops.sub(w, inW);
      const term = ops.add(ops.mul(ops.gather(flat, tensor(safe, [n], 'int32')), inW), ops.mul(fillRow, outW));
      out = out ? ops.add(out, term) : term;
    }
    return ops.reshape(out, [...outShape, c]);
  });
}

/**
 * Projective transforms of images [b, h, w, c]: transforms [1 or b, 8]
 * (a0, a1, a2, b0, b1, b2, c0, c1) map output (x, y) to input
 * ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1.
 */
export function transform(image, transforms, interpolation = 'nearest', fillMode = 'constant', fillValue = 0,
                          outputShape) {
  const img = asTensor(image, 'transform', 'image');
  const tr = transforms instanceof Tensor ? transforms : tensor(transforms);
  try {
    if (img.rank !== 4 || tr.rank !== 2 || tr.shape[1] !== 8 || (tr.shape[0] !== 1 && tr.shape[0] !== img.shape[0])) {
      throw new GlintError(`[transform] needs image [b, h, w, c] and transforms [1 or b, 8]: got [${img.shape}] and ` +
          `[${tr.shape}]`);
    }
    if (img.dtype !== 'float32') throw new GlintError(`[transform] image must be float32 (as TF.js): got ${img.dtype}`);
    if (interpolation !== 'nearest' && interpolation !== 'bilinear') {
      throw new GlintError(`[transform] interpolation must be 'nearest' or 'bilinear': got ${JSON.stringify(interpolation)}`);
    }
    if (!(fillMode in COORD)) {
      throw new GlintError(`[transform] fillMode must be constant, reflect, wrap or nearest: got ${JSON.stringify(fillMode)}`);
    }
    const [b, h, w, c] = img.shape;
    const [oh, ow] = outputShape ?? [h, w];
    const t = tr.dataSync();
    const n = b * oh * ow;
    const taps = (interpolation === 'nearest' ? [0] : [0, 1, 2, 3]).map(() => ({
      index: new Int32Array(n).fill(-1), weight: new Float32Array(n)}));
    const map = COORD[fillMode];
    const at = (bi, y, x) => (y >= 0 && y < h && x >= 0 && x < w ? (bi * h + y) * w + x : -1);
    for (let bi = 0; bi < b; ++bi) {
      const m = tr.shape[0] === 1 ? 0 : bi * 8;
      for (let oy = 0; oy < oh; ++oy) {
        for (let ox = 0; ox < ow; ++ox) {
          const p = (bi * oh + oy) * ow + ox;
          const k = t[m + 6] * ox + t[m + 7] * oy + 1;
          if (k === 0) {
            taps[0].weight[p] = 1;  // the fill value
            continue;
          }
          const x = map((t[m] * ox + t[m + 1] * oy + t[m + 2]) / k, w);
          const y = map((t[m + 3] * ox + t[m + 4] * oy + t[m + 5]) / k, h);
          if (interpolation === 'nearest') {
            taps[0].index[p] = at(bi, Math.round(y), Math.round(x));
            taps[0].weight[p] = 1;
          } else {
            const x0 = Math.floor(x), y0 = Math.floor(y);
            const corners = [[y0, x0, (y0 + 1 - y) * (x0 + 1 - x)], [y0, x0 + 1, (y0 + 1 - y) * (x - x0)],
              [y0 + 1, x0, (y - y0) * (x0 + 1 - x)], [y0 + 1, x0 + 1, (y - y0) * (x - x0)]];
            corners.forEach(([yy, xx, wt], i) => {
              taps[i].index[p] = at(bi, yy, xx);
              taps[i].weight[p] = wt;
            });
          }
        }
      }
    }
    return blend(img, [b, oh, ow], taps, new Array(c).fill(fillValue));
  } finally {
    if (tr !== transforms) tr.dispose();
  }
}

/**
 * Rotates images [b, h, w, c] by radians about center (a fraction of the size,
 * or [x, y] fractions); uncovered pixels get fillValue (a number, or one per
 * channel with the 4th, alpha, at 255). Nearest-pixel sampling.
 */
export function rotateWithOffset(image, radians, fillValue = 0, center = 0.5) {
  const img = asTensor(image, 'rotateWithOffset', 'image');
  if (img.rank !== 4 || img.dtype !== 'float32') {
    throw new GlintError(`[rotateWithOffset] image must be float32 rank 4 (as TF.js): got ${img.dtype} [${img.shape}]`);
  }
  const [b, h, w, c] = img.shape;
  const cx = w * (typeof center === 'number' ? center : center[0]);
  const cy = h * (typeof center === 'number' ? center : center[1]);
  const sin = Math.sin(radians), cos = Math.cos(radians);
  const n = b * h * w;
  const tap = {index: new Int32Array(n).fill(-1), weight: new Float32Array(n).fill(1)};
  for (let bi = 0; bi < b; ++bi) {
    for (let y = 0; y < h; ++y) {
      for (let x = 0; x < w; ++x) {
        const sx = Math.round((x - cx) * cos - (y - cy) * sin + cx);
        const sy = Math.round((x - cx) * sin + (y - cy) * cos + cy);
        if (sx >= 0 && sx < w && sy >= 0 && sy < h) tap.index[(bi * h + y) * w + x] = (bi * h + sy) * w + sx;
      }
    }
  }
  const fill = Array.from({length: c}, (_, ch) => (typeof fillValue === 'number' ? fillValue :
      ch === 3 ? 255 : fillValue[ch]));
  return blend(img, [b, h, w], [tap], fill);
}
