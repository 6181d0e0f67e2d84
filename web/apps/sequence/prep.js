// From a column of strings to what the LSTM sees. Everything here is fitted on
// the training part only (the first 1 - valFraction of the series), so the
// validation windows never leak into the encoding:
//   categorical  classes by training frequency (the rare tail becomes 'other'),
//                inputs and targets one-hot
//   numeric      inputs z-scored; targets binned into K quantile bins, so the
//                next value is predicted as a distribution over the bins
// The encoding is a plain object: it is saved next to the model.
import {isNumber} from './csv.js';

/** A problem with the data or a setting; `field` is the id of the form field it concerns, if one. */
export class DataError extends Error {
  constructor(message, field = null) {
    super(message);
    this.field = field;
  }
}

/** "1 value", "2 values". */
export const plural = (n, word, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

/** The column's values as a series: strings (categorical) or numbers, empty cells dropped. */
export function cleanSeries(values, kind) {
  const present = values.filter((v) => v !== '');
  if (kind === 'numeric') {
    const bad = present.find((v) => !isNumber(v));
    if (bad !== undefined) {
      throw new DataError(`'${bad}' is not a number: treat this column as categories, or pick another`);
    }
    return {series: present.map(Number), dropped: values.length - present.length};
  }
  return {series: present, dropped: values.length - present.length};
}

export const splitIndex = (n, valFraction) => Math.floor(n * (1 - valFraction));

/** Fits the encoding on series[0, split). */
export function fitEncoding(series, kind, {valFraction = 0.2, bins = 12, maxClasses = 30} = {}) {
  const split = splitIndex(series.length, valFraction);
  const train = series.slice(0, split);
  if (train.length < 2) throw new DataError('the training part has fewer than 2 values', 'val');
  if (kind === 'categorical') {
    const counts = new Map();
    for (const v of train) counts.set(v, (counts.get(v) ?? 0) + 1);
    let classes = [...counts.keys()].sort((a, b) => counts.get(b) - counts.get(a) || (a < b ? -1 : 1));
    let other = false;
    if (classes.length > maxClasses || series.slice(split).some((v) => !counts.has(v))) {
      // Values unseen in training (or too rare to keep) share one class.
      classes = classes.slice(0, maxClasses - 1);
      other = true;
    }
    if (other) classes.push('(other)');
    if (classes.length < 2) throw new DataError('the series has only one distinct value: nothing to predict');
    return {kind, classes, other, valFraction};
  }
  const sorted = Float64Array.from(train).sort();
  const mean = train.reduce((a, b) => a + b, 0) / train.length;
  const std = Math.sqrt(train.reduce((a, b) => a + (b - mean) ** 2, 0) / train.length) || 1;
  const edges = [];
  for (let j = 1; j < bins; ++j) {
    const e = sorted[Math.min(sorted.length - 1, Math.floor((j * sorted.length) / bins))];
    if (e > sorted[0] && (edges.length === 0 || e > edges[edges.length - 1])) edges.push(e);
  }
  if (edges.length === 0) throw new DataError('the series is constant: nothing to predict');
  // A bin stands for the median of the training values that fall into it.
  const members = Array.from({length: edges.length + 1}, () => []);
  for (const v of sorted) members[binOf(edges, v)].push(v);
  const values = members.map((m) => m[Math.floor(m.length / 2)]);
  const lo = sorted[0], hi = sorted[sorted.length - 1];
  const classes = values.map((_, b) => `${fmt(b ? edges[b - 1] : lo)}–${fmt(b < edges.length ? edges[b] : hi)}`);
  return {kind, classes, edges, values, mean, std, valFraction};
}

const fmt = (v) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(1) : v.toPrecision(2));

/** The bin of v: the number of edges <= v. */
export function binOf(edges, v) {
  let lo = 0, hi = edges.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (edges[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export const numFeatures = (enc) => (enc.kind === 'categorical' ? enc.classes.length : 1);

/** The class (target index) of one raw value. */
export function classOf(enc, v) {
  if (enc.kind === 'numeric') return binOf(enc.edges, v);
  const i = enc.classes.indexOf(v);
  return i >= 0 && !(enc.other && i === enc.classes.length - 1) ? i : enc.classes.length - 1;
}

/** Writes the input features of raw value v at out[at...]. */
export function writeFeatures(enc, v, out, at) {
  if (enc.kind === 'numeric') out[at] = (v - enc.mean) / enc.std;
  else out[at + classOf(enc, v)] = 1;
}

/** The raw value a sampled class stands for (fed back when forecasting). */
export const valueOfClass = (enc, c) => (enc.kind === 'numeric' ? enc.values[c] : enc.classes[c]);

/** The input window [1, W, F] that ends with the series' last value. */
export function lastWindow(enc, series, window) {
  const F = numFeatures(enc);
  const x = new Float32Array(window * F);
  const tail = series.slice(-window);
  tail.forEach((v, i) => writeFeatures(enc, v, x, i * F));
  return x;
}

/**
 * Windows of `window` values predicting the next one: train = targets before
 * the split, validation = targets from the split on (their inputs may reach
 * back into the training part: that is the past, not a leak).
 */
export function makeWindows(enc, series, window) {
  const n = series.length, split = splitIndex(n, enc.valFraction);
  const F = numFeatures(enc), K = enc.classes.length;
  const feats = new Float32Array(n * F);
  const codes = new Int32Array(n);
  series.forEach((v, t) => {
    writeFeatures(enc, v, feats, t * F);
    codes[t] = classOf(enc, v);
  });
  const cut = (from, to) => {
    const count = Math.max(0, to - from);
    const x = new Float32Array(count * window * F), y = new Float32Array(count * K);
    const targets = new Int32Array(count);
    for (let i = 0; i < count; ++i) {
      const t = from + i;
      x.set(feats.subarray((t - window) * F, t * F), i * window * F);
      y[i * K + codes[t]] = 1;
      targets[i] = codes[t];
    }
    return {x, y, targets, count};
  };
  const train = cut(window, split);
  const val = cut(Math.max(split, window), n);
  if (train.count < 8) {
    throw new DataError(`window ${window} leaves ${plural(train.count, 'training window')} ` +
        `(the series has ${plural(n, 'value')}, ${split} before the validation split): use a smaller window`, 'window');
  }
  if (val.count < 1) throw new DataError('no validation windows: raise the validation share', 'val');
  return {train, val, F, K, window, split};
}

/** Class frequencies in the training windows' targets (add-one smoothed): the trivial baseline. */
export function priorOf(windows) {
  const p = new Float64Array(windows.K).fill(1);
  for (const t of windows.train.targets) p[t] += 1;
  const total = windows.train.count + windows.K;
  return Array.from(p, (v) => v / total);
}

/** Mean negative log-likelihood and accuracy of distributions [count*K] against targets. */
export function score(dists, targets, K) {
  let nll = 0, hits = 0;
  for (let i = 0; i < targets.length; ++i) {
    const row = dists.subarray ? dists.subarray(i * K, (i + 1) * K) : dists.slice(i * K, (i + 1) * K);
    nll -= Math.log(Math.max(row[targets[i]], 1e-12));
    let best = 0;
    for (let k = 1; k < K; ++k) if (row[k] > row[best]) best = k;
    if (best === targets[i]) ++hits;
  }
  return {nll: nll / targets.length, accuracy: hits / targets.length};
}

/** Samples a class from p at a temperature; temperature 0 is the argmax. */
export function sample(p, temperature, random = Math.random) {
  let best = 0;
  for (let k = 1; k < p.length; ++k) if (p[k] > p[best]) best = k;
  if (!(temperature > 0)) return best;
  // p^(1/T) in log space, so small temperatures do not underflow.
  const logits = Array.from(p, (v) => Math.log(Math.max(v, 1e-30)) / temperature);
  const top = Math.max(...logits);
  const w = logits.map((l) => Math.exp(l - top));
  let r = random() * w.reduce((a, b) => a + b, 0);
  for (let k = 0; k < w.length; ++k) if ((r -= w[k]) < 0) return k;
  return best;
}

/**
 * What the series chart draws: every value up to `most` points; beyond that the
 * lowest and highest of each group of `per` values. y: numbers (a numeric series,
 * or class indices); split: where validation starts. {per, data: [x, train, val]}.
 */
export function chartPoints(y, split, most = 4000) {
  const n = y.length, per = Math.ceil(n / (most / 2));
  if (n <= most) {
    return {per: 1, data: [Array.from(y, (_, i) => i), Array.from(y, (v, i) => (i <= split ? v : null)),
                           Array.from(y, (v, i) => (i >= split ? v : null))]};
  }
  const x = [], a = [], b = [];
  for (let start = 0; start < n; start += per) {
    const end = Math.min(n, start + per);
    let lo = start, hi = start;
    for (let i = start; i < end; ++i) {
      if (y[i] < y[lo]) lo = i;
      if (y[i] > y[hi]) hi = i;
    }
    // The two parts share the split point so the line is unbroken.
    for (const i of lo === hi ? [lo] : lo < hi ? [lo, hi] : [hi, lo]) {
      x.push(i);
      a.push(i <= split ? y[i] : null);
      b.push(i >= split ? y[i] : null);
    }
  }
  return {per, data: [x, a, b]};
}
