// TF.js ops that select or scatter by value, composed from Glint's ops:
// topk (k rounds of argMax), dilation2d (a max over shifted windows),
// tensorScatterUpdate (the last update per index wins), broadcastArgs (host
// shapes) and image.threshold (binary and Otsu).
import {GlintError} from './core.js';
import {Tensor, tensor, tidy, asTensor} from './tensor.js';
import {ops} from './ops.js';
import {bincount} from './ops_more.js';
import {cumsum, isFinite} from './ops_composite.js';

const need = (op, arg, x) => asTensor(x, op, arg);
const LOWEST = -3.4028234663852886e38;

/**
 * {values, indices} of the k largest entries along the last axis, largest
 * first; equal values keep their order (lower index first), as TF.js.
 */
export function topk(x, k = 1, sorted = true) {
  x = need('topk', 'x', x);
  if (x.rank < 1) throw new GlintError(`[topk] x must be rank >= 1: got shape [${x.shape}]`);
  const n = x.shape[x.rank - 1];
  if (!Number.isInteger(k) || k < 0 || k > n) {
    throw new GlintError(`[topk] k must be an integer in [0, ${n}] for x [${x.shape}]: got ${k}`);
  }
  if (!sorted) return unsortedTopk(x, k);
  return tidy(() => {
    const lead = x.shape.slice(0, -1);
    if (k === 0) {
      return {values: ops.reshape(ops.slice(x, x.shape.map(() => 0), [...lead, 0]), [...lead, 0]),
        indices: ops.zeros([...lead, 0], 'int32')};
    }
    const f = ops.cast(x, 'float32');
    // Taken entries drop to -Infinity (a tensor: attributes travel as JSON, which has none).
    // When only -Infinity is left, the first entry not yet taken is next, as TF.js's stable sort.
    const negInf = tensor(Float32Array.of(-Infinity), []);
    let rest = f, free = ops.onesLike(f);
    const vals = [], idxs = [];
    for (let i = 0; i < k; ++i) {
      const exhausted = ops.equal(ops.max(rest, -1), negInf);
      const at = ops.where(exhausted, ops.argMax(free, -1), ops.argMax(rest, -1));
      const hot = ops.oneHot(at, n, 1, 0, 'float32');
      const taken = ops.cast(hot, 'bool');
      // A select, not a product: -Infinity * 0 would be NaN.
      vals.push(ops.sum(ops.where(taken, f, ops.zerosLike(f)), -1, true));
      idxs.push(ops.expandDims(at, -1));
      rest = ops.where(taken, ops.mul(ops.onesLike(rest), negInf), rest);
      free = ops.sub(free, hot);
    }
    const values = ops.concat(vals, -1);
    return {values: x.dtype === 'float32' ? values : ops.cast(values, x.dtype), indices: ops.concat(idxs, -1)};
  });
}

// Which of two (value, index) entries ranks first: the larger value, then the lower index.
// (A NaN difference is neither: TF.js's rule, which decides where NaNs land.)
const before = (a, b) => {
  const d = b.value - a.value;
  return d === 0 ? a.index - b.index : d;
};

/**
 * Floyd and Rivest's selection over entries[left..right]: afterwards entry k
 * is the (k+1)-th in rank order, those before it rank above it. The partition
 * steps are TF.js's, so the k entries in front come in the same order as its
 * topk(x, k, false) returns them (the order of an unsorted top k is the
 * selection's).
 */
function floydRivest(entries, k, left, right) {
  const swap = (i, j) => {
    const t = entries[i];
    entries[i] = entries[j];
    entries[j] = t;
  };
  while (right > left) {
    if (right - left > 600) {  // narrow the range first from a sample (the published constants)
      const n = right - left + 1, i = k - left + 1, z = Math.log(n);
      const s = 0.5 * Math.exp(2 * z / 3), sd = 0.5 * Math.sqrt(z * s * (n - s) / n) * Math.sign(i - n / 2);
      floydRivest(entries, k, Math.max(left, Math.floor(k - i * s / n + sd)),
          Math.min(right, Math.floor(k + (n - i) * s / n + sd)));
    }
    const pivot = entries[k];
    let i = left, j = right;
    swap(left, k);
    if (before(entries[right], pivot) > 0) swap(left, right);
    while (i < j) {
      swap(i, j);
      ++i;
      --j;
      while (before(entries[i], pivot) < 0) ++i;
      while (before(entries[j], pivot) > 0) --j;
    }
    if (before(entries[left], pivot) === 0) {
      swap(left, j);
    } else {
      ++j;
      swap(j, right);
    }
    if (j <= k) left = j + 1;
    if (k <= j) right = j - 1;
  }
}

/** topk(x, k, false) on the host: each row's k largest in selection order (all of a row for k = n, unmoved). */
function unsortedTopk(x, k) {
  const n = x.shape[x.rank - 1], rows = n ? x.size / n : 0;
  const data = x.dataSync();
  const values = new data.constructor(rows * k), indices = new Int32Array(rows * k);
  for (let r = 0; r < rows; ++r) {
    let entries = Array.from(data.subarray(r * n, (r + 1) * n), (value, index) => ({value, index}));
    if (k < n) {
      floydRivest(entries, k, 0, n - 1);
      entries = entries.slice(0, k);
    }
    entries.forEach((e, i) => {
      values[r * k + i] = e.value;
      indices[r * k + i] = e.index;
    });
  }
  const shape = [...x.shape.slice(0, -1), k];
  return {values: tensor(values, shape, x.dtype), indices: tensor(indices, shape, 'int32')};
}

function pairOf(op, name, v) {
  const p = typeof v === 'number' ? [v, v] : v;
  if (!Array.isArray(p) || p.length !== 2 || !p.every((d) => Number.isInteger(d) && d >= 1)) {
    throw new GlintError(`[${op}] ${name} must be a positive integer or a pair of them: got ${JSON.stringify(v)}`);
  }
  return p;
}

/**
 * A window of fh x fw (dilated extent) sliding by (sh, sw) over h x w: the
 * output size and, for 'same', TF's padding (the odd pixel after).
 */
function windowGeometry(h, w, fh, fw, sh, sw, pad) {
  if (pad !== 'same') {
    return {outH: Math.ceil((h - fh + 1) / sh), outW: Math.ceil((w - fw + 1) / sw), top: 0, left: 0, padH: 0, padW: 0};
  }
  const outH = Math.ceil(h / sh), outW = Math.ceil(w / sw);
  const padH = Math.max((outH - 1) * sh + fh - h, 0), padW = Math.max((outW - 1) * sw + fw - w, 0);
  return {outH, outW, top: Math.floor(padH / 2), left: Math.floor(padW / 2), padH, padW};
}

/**
 * Grayscale morphological dilation: out = max over the window of x + filter,
 * x [b, h, w, c] (or [h, w, c]), filter [fh, fw, c].
 */
export function dilation2d(x, filter, strides, pad, dilations = [1, 1], dataFormat = 'NHWC') {
  x = need('dilation2d', 'x', x);
  const f = need('dilation2d', 'filter', filter);
  if (dataFormat !== 'NHWC') throw new GlintError(`[dilation2d] dataFormat must be 'NHWC' (got '${dataFormat}')`);
  const x4 = x.rank === 3 ? null : x;
  if ((x.rank !== 3 && x.rank !== 4) || f.rank !== 3 || f.shape[2] !== x.shape[x.rank - 1]) {
    throw new GlintError(`[dilation2d] needs x [b, h, w, c] or [h, w, c] and filter [fh, fw, c]: got x ` +
        `[${x.shape}], filter [${f.shape}]`);
  }
  if (pad !== 'same' && pad !== 'valid') {
    throw new GlintError(`[dilation2d] pad must be 'same' or 'valid': got ${JSON.stringify(pad)}`);
  }
  const [sh, sw] = pairOf('dilation2d', 'strides', strides), [dh, dw] = pairOf('dilation2d', 'dilations', dilations);
  const [fh, fw] = f.shape;
  return tidy(() => {
    const xb = x4 ?? ops.expandDims(x, 0);
    const [b, h, w, c] = xb.shape;
    const effH = (fh - 1) * dh + 1, effW = (fw - 1) * dw + 1;
    const {outH, outW, top, left, padH, padW} = windowGeometry(h, w, effH, effW, sh, sw, pad);
    if (outH <= 0 || outW <= 0) {
      throw new GlintError(`[dilation2d] the dilated filter [${effH}, ${effW}] does not fit x [${xb.shape}]`);
    }
    const padded = ops.pad(xb, [[0, 0], [top, padH - top], [left, padW - left], [0, 0]], LOWEST);
    let out = null;
    for (let i = 0; i < fh; ++i) {
      for (let j = 0; j < fw; ++j) {
        const y0 = i * dh, x0 = j * dw;
        const window = ops.stridedSlice(padded, [0, y0, x0, 0],
            [b, y0 + (outH - 1) * sh + 1, x0 + (outW - 1) * sw + 1, c], [1, sh, sw, 1]);
        const term = ops.add(window, ops.reshape(ops.slice(f, [i, j, 0], [1, 1, c]), [c]));
        out = out ? ops.maximum(out, term) : term;
      }
    }
    return x4 ? out : ops.squeeze(out, [0]);
  });
}

/** tensor with the slices at indices replaced by updates; a repeated index takes its last update. */
export function tensorScatterUpdate(tensorIn, indices, updates) {
  const t = need('tensorScatterUpdate', 'tensor', tensorIn);
  const idx = indices instanceof Tensor ? indices : tensor(indices, undefined, 'int32');
  const u = need('tensorScatterUpdate', 'updates', updates);
  try {
    const k = idx.shape[idx.rank - 1];
    if (idx.dtype !== 'int32' || idx.rank < 1 || k > t.rank) {
      throw new GlintError(`[tensorScatterUpdate] indices must be int32 [..., k] with k <= ${t.rank}: ` +
          `got ${idx.dtype} [${idx.shape}]`);
    }
    const want = [...idx.shape.slice(0, -1), ...t.shape.slice(k)];
    if (u.shape.join() !== want.join() || u.dtype !== t.dtype) {
      throw new GlintError(`[tensorScatterUpdate] updates must be ${t.dtype} [${want}] for tensor [${t.shape}] and ` +
          `indices [${idx.shape}]: got ${u.dtype} [${u.shape}]`);
    }
    const positions = t.shape.slice(0, k).reduce((a, d) => a * d, 1);
    const inner = t.shape.slice(k);
    return tidy(() => {
      const strides = t.shape.slice(0, k).map((_, i) => t.shape.slice(i + 1, k).reduce((a, d) => a * d, 1));
      const flat = ops.reshape(ops.sum(ops.mul(ops.reshape(idx, [-1, k]), tensor(strides, [k], 'int32')), -1), [-1]);
      const n = flat.shape[0];
      if (n === 0) return t.clone();
      // hot[i, p] = i + 1 where update i goes to p: the largest is the last update there.
      const order = ops.reshape(ops.range(1, n + 1, 1, 'float32'), [n, 1]);
      const hot = ops.mul(ops.oneHot(flat, positions, 1, 0, 'float32'), order);
      const last = ops.argMax(hot, 0);
      const hit = ops.greater(ops.max(hot, 0), 0);
      const rows = ops.reshape(u, [n, ...inner]);
      const picked = ops.gather(rows, last);
      const base = ops.reshape(t, [positions, ...inner]);
      const mask = ops.reshape(hit, [positions, ...inner.map(() => 1)]);
      const tiled = inner.length ? ops.tile(mask, [1, ...inner]) : mask;
      return ops.reshape(ops.where(tiled, picked, base), t.shape);
    });
  } finally {
    if (idx !== indices) idx.dispose();
  }
}

/** The broadcast shape of two int32 shape vectors (read from the tensors), as an int32 tensor. */
export function broadcastArgs(s0, s1) {
  const a = need('broadcastArgs', 's0', s0), b = need('broadcastArgs', 's1', s1);
  if (a.rank !== 1 || b.rank !== 1 || a.dtype !== 'int32' || b.dtype !== 'int32') {
    throw new GlintError(`[broadcastArgs] s0 and s1 must be 1-D int32: got ${a.dtype} [${a.shape}] and ${b.dtype} [${b.shape}]`);
  }
  const x = Array.from(a.dataSync()), y = Array.from(b.dataSync());
  const n = Math.max(x.length, y.length);
  const out = [];
  for (let i = 0; i < n; ++i) {
    const p = x[x.length - n + i] ?? 1, q = y[y.length - n + i] ?? 1;
    if (p !== q && p !== 1 && q !== 1) {
      throw new GlintError(`[broadcastArgs] shapes [${x}] and [${y}] do not broadcast: ${p} vs ${q}`);
    }
    out.push(p === 1 ? q : p);
  }
  return tensor(out, [n], 'int32');
}

/**
 * image.threshold(image [h, w, 1|3], method 'binary' | 'otsu', inverted, threshValue):
 * int32 0/255 where the (luma) value is above threshValue * 255, or above Otsu's threshold.
 */
export function threshold(image, method = 'binary', inverted = false, threshValue = 0.5) {
  const x = need('threshold', 'image', image);
  if (x.rank !== 3 || (x.shape[2] !== 1 && x.shape[2] !== 3) || (x.dtype !== 'int32' && x.dtype !== 'float32')) {
    throw new GlintError(`[threshold] image must be int32 or float32 [h, w, 1 or 3]: got ${x.dtype} [${x.shape}]`);
  }
  if (method !== 'binary' && method !== 'otsu') {
    throw new GlintError(`[threshold] method must be 'binary' or 'otsu': got ${JSON.stringify(method)}`);
  }
  return tidy(() => {
    const gray = x.shape[2] === 3 ?
      ops.sum(ops.mul(ops.cast(x, 'float32'), tensor([0.2989, 0.5870, 0.1140], [3])), -1, true) : x;
    let thresh = ops.mul(tensor([threshValue], [1]), 255);
    if (method === 'otsu') {
      const total = x.shape[0] * x.shape[1];
      const hist = bincount(ops.reshape(ops.cast(ops.round(ops.cast(gray, 'float32')), 'int32'), [-1]), null, 256);
      const h = ops.cast(hist, 'float32');
      const levels = ops.range(0, 256, 1, 'float32');
      // Class 1 is levels 0..t, class 2 the rest, for t = 0..254.
      const c1 = ops.slice(cumsum(h), [0], [255]), m1 = ops.slice(cumsum(ops.mul(h, levels)), [0], [255]);
      const c2 = ops.sub(total, c1), m2 = ops.sub(ops.sum(ops.mul(h, levels)), m1);
      const diff = ops.sub(ops.div(m1, c1), ops.div(m2, c2));
      const between = ops.mul(ops.mul(ops.div(c1, total), ops.div(c2, total)), ops.square(diff));
      // Non-finite (an empty class) never wins; no positive variance keeps -1.
      const valid = ops.where(isFinite(between), between, ops.zerosLike(between));
      const best = ops.argMax(valid);
      thresh = ops.where(ops.greater(ops.max(valid), 0), ops.cast(ops.reshape(best, [1]), 'float32'), tensor([-1], [1]));
    }
    const cond = inverted ? ops.lessEqual(gray, thresh) : ops.greater(gray, thresh);
    return ops.cast(ops.mul(ops.cast(cond, 'int32'), 255), 'int32');
  });
}

/**
 * Running products along axis by doubling (Hillis-Steele): log2(n) rounds of
 * multiplying by a copy shifted d places (ones shifted in); exclusive shifts
 * the input by one first, reverse scans from the end.
 */
export function cumprod(x, axis = 0, exclusive = false, reverse = false) {
  x = need('cumprod', 'x', x);
  const ax = axis < 0 ? axis + x.rank : axis;
  if (!Number.isInteger(ax) || ax < 0 || ax >= x.rank) {
    throw new GlintError(`[cumprod] axis ${axis} is out of range for shape [${x.shape}]`);
  }
  const n = x.shape[ax];
  // y shifted by d along ax towards the end, ones in front.
  const shift = (y, d) => {
    const size = y.shape.slice();
    size[ax] = n - d;
    const pads = y.shape.map(() => [0, 0]);
    pads[ax] = [d, 0];
    return ops.pad(ops.slice(y, y.shape.map(() => 0), size), pads, 1);
  };
  return tidy(() => {
    let y = reverse ? ops.reverse(x, [ax]) : x;
    if (exclusive && n > 0) y = shift(y, 1);
    for (let d = 1; d < n; d *= 2) y = ops.mul(y, shift(y, d));
    return reverse ? ops.reverse(y, [ax]) : (y === x ? x.clone() : y);
  });
}

/**
 * {result, indexes}: maxPool and, per output, the flat position of the max
 * in x ((y * width + x) * channels + c, plus the batch offset when
 * includeBatchInIndex). The first max in window order wins, as in TF.js.
 */
export function maxPoolWithArgmax(x, filterSize, strides, pad, includeBatchInIndex = false) {
  x = need('maxPoolWithArgmax', 'x', x);
  if (x.rank !== 4) throw new GlintError(`[maxPoolWithArgmax] x must be rank 4: got shape [${x.shape}]`);
  if (pad !== 'same' && pad !== 'valid') {
    throw new GlintError(`[maxPoolWithArgmax] pad must be 'same' or 'valid': got ${JSON.stringify(pad)}`);
  }
  const [fh, fw] = pairOf('maxPoolWithArgmax', 'filterSize', filterSize);
  const [sh, sw] = pairOf('maxPoolWithArgmax', 'strides', strides);
  const [b, h, w, c] = x.shape;
  const {outH, outW, top, left, padH, padW} = windowGeometry(h, w, fh, fw, sh, sw, pad);
  if (outH < 0 || outW < 0) {
    throw new GlintError(`[maxPoolWithArgmax] the filter [${fh}, ${fw}] does not fit x [${x.shape}] with 'valid' padding`);
  }
  if (outH === 0 || outW === 0) {  // one larger than x: no window fits, empty results (as TF.js)
    return {result: ops.slice(x, [0, 0, 0, 0], [b, outH, outW, c]), indexes: ops.zeros([b, outH, outW, c], 'int32')};
  }
  const nb = includeBatchInIndex ? b : 1;
  return tidy(() => {
    const padded = ops.pad(x, [[0, 0], [top, padH - top], [left, padW - left], [0, 0]], LOWEST);
    let best = null, where = null;
    for (let i = 0; i < fh; ++i) {
      for (let j = 0; j < fw; ++j) {
        const v = ops.stridedSlice(padded, [0, i, j, 0], [b, i + (outH - 1) * sh + 1, j + (outW - 1) * sw + 1, c],
                                   [1, sh, sw, 1]);
        const pos = new Int32Array(nb * outH * outW * c);
        let at = 0;
        for (let n = 0; n < nb; ++n) {
          for (let oy = 0; oy < outH; ++oy) {
            for (let ox = 0; ox < outW; ++ox) {
              const y = oy * sh + i - top, xx = ox * sw + j - left;
              for (let ch = 0; ch < c; ++ch) pos[at++] = ((n * h + y) * w + xx) * c + ch;
            }
          }
        }
        const idx = ops.tile(tensor(pos, [nb, outH, outW, c], 'int32'), [b / nb, 1, 1, 1]);
        if (!best) {
          best = v;
          where = idx;
        } else {
          const better = ops.greater(v, best);
          best = ops.where(better, v, best);
          where = ops.where(better, idx, where);
        }
      }
    }
    return {result: best, indexes: where};
  });
}

/**
 * Bitwise AND of int32 tensors of one shape, bit by bit: floorDiv by 2^i is an
 * arithmetic shift, so negative values give their two's-complement bits.
 */
export function bitwiseAnd(x, y) {
  const a = need('bitwiseAnd', 'x', x), b = need('bitwiseAnd', 'y', y);
  if (a.dtype !== 'int32' || b.dtype !== 'int32' || a.shape.join() !== b.shape.join()) {
    throw new GlintError(`[bitwiseAnd] x and y must be int32 of one shape: got ${a.dtype} [${a.shape}] and ` +
        `${b.dtype} [${b.shape}]`);
  }
  return tidy(() => {
    const two = tensor(2, [], 'int32');
    let out = ops.zerosLike(a);
    for (let i = 0; i < 31; ++i) {
      const p = tensor(2 ** i, [], 'int32');
      const both = ops.mul(ops.mod(ops.floorDiv(a, p), two), ops.mod(ops.floorDiv(b, p), two));
      out = ops.add(out, ops.mul(both, p));
    }
    const signs = ops.cast(ops.logicalAnd(ops.less(a, 0), ops.less(b, 0)), 'int32');
    return ops.add(out, ops.mul(signs, tensor(-(2 ** 31), [], 'int32')));
  });
}
