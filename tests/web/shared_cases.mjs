// What the JS API suites share, in node (tests/web) and in the page
// (tests/browser/pages/api_suite.js imports it as /tests/web/shared_cases.mjs):
// deterministic values, the error measure, the op cases compared across
// backends and the standard models. Pure: each takes the glint module.

/** n values in [-1, 1) from a linear congruential generator. */
export function randomValues(n, seed) {
  let s = seed;
  return Array.from({length: n}, () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648 * 2 - 1;
  });
}

/** max |a - b| / max(1, |b|); Infinity when the lengths differ. */
export function maxRelErr(a, b) {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; ++i) m = Math.max(m, Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i])));
  return m;
}

/** Ops over a [6, 5] (values a) and b [5, 4] (values b): name -> g => tensor. */
export function opCases(a, b) {
  return {
    matMul: (g) => g.matMul(g.tensor(a, [6, 5]), g.tensor(b, [5, 4])),
    softmax: (g) => g.softmax(g.tensor(a, [6, 5])),
    sum: (g) => g.sum(g.tensor(a, [6, 5])),
    conv2d: (g) => g.conv2d(g.tensor(a.slice(0, 24), [1, 4, 3, 2]), g.tensor(b.slice(0, 16), [2, 2, 2, 2]), 1, 'same'),
    maxPool: (g) => g.maxPool(g.tensor(a.slice(0, 24), [1, 4, 3, 2]), 2, 1, 'same'),
    meanAxis: (g) => g.mean(g.tensor(a, [6, 5]), 0),
    broadcast: (g) => g.add(g.tensor(a, [6, 5]), g.tensor(b.slice(0, 5), [5])),
    relu: (g) => g.relu(g.tensor(a, [30])),
    transpose: (g) => g.transpose(g.tensor(a, [6, 5])),
    gather: (g) => g.gather(g.tensor(a, [6, 5]), g.tensor([5, 0, 2], [3], 'int32')),
    oneHot: (g) => g.oneHot(g.tensor([3, 0, 1], [3], 'int32'), 4),
    argMax: (g) => g.argMax(g.tensor(a, [6, 5]), 1),
    // The transforms in each of their forms: one product (n 15), four-step
    // (n 96 = 8 x 12, and 4096 through 100), Bluestein's (n 67, prime).
    fft: (g) => g.fft(g.complex(g.tensor(a.slice(0, 15), [15]), g.tensor(b.slice(0, 15), [15]))),
    rfft: (g) => g.rfft(g.tensor([...a, ...b, ...a, ...b].slice(0, 96), [96])),
    ifftPrime: (g) => g.ifft(g.complex(g.tensor([...b, ...a, ...b, ...a].slice(0, 67), [67]),
        g.tensor([...a, ...b, ...a, ...b].slice(0, 67), [67]))),
    irfft: (g) => g.irfft(g.complex(g.tensor(a.slice(0, 10), [2, 5]), g.tensor(b.slice(0, 10), [2, 5]))),
  };
}

/** a [m, k] x b [k, n] in plain JS (row-major). */
export function jsMatMul(a, b, m, k, n) {
  const out = [];
  for (let i = 0; i < m; ++i) {
    for (let j = 0; j < n; ++j) {
      let s = 0;
      for (let p = 0; p < k; ++p) s += a[i * k + p] * b[p * n + j];
      out.push(s);
    }
  }
  return out;
}

/** The standard benchmark models (../shared/DESIGN.md): mlp, cnn, lstm. */
export function standardModel(glint, name) {
  const L = glint.layers;
  if (name === 'mlp') {
    return glint.sequential({layers: [L.dense({units: 128, activation: 'relu', inputShape: [784]}),
                                      L.dense({units: 10, activation: 'softmax'})]});
  }
  if (name === 'cnn') {
    return glint.sequential({layers: [
      L.conv2d({filters: 8, kernelSize: 3, activation: 'relu', inputShape: [28, 28, 1]}),
      L.maxPooling2d({poolSize: 2}),
      L.conv2d({filters: 16, kernelSize: 3, activation: 'relu'}),
      L.maxPooling2d({poolSize: 2}), L.flatten(), L.dense({units: 10, activation: 'softmax'})]});
  }
  if (name === 'lstm') {
    return glint.sequential({layers: [L.lstm({units: 128, inputShape: [28, 28]}),
                                      L.dense({units: 10, activation: 'softmax'})]});
  }
  throw new Error('no model ' + name);
}

/** A seeded generator of uniforms in [0, 1) (mulberry32), so a failure names a reproducible case. */
export function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6D2B79F5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** n uniforms in [lo, hi) from the generator r. */
export function values(r, n, lo = -1, hi = 1) {
  return Array.from({length: n}, () => lo + (hi - lo) * r());
}

/** A uniform integer in [lo, hi]. */
export const int = (r, lo, hi) => lo + Math.floor(r() * (hi - lo + 1));

/** The number of elements of a shape. */
export const size = (shape) => shape.reduce((a, b) => a * b, 1);

/** The tensors of an op's result (a tensor, or arrays/objects of them; objects by sorted key), in order. */
export function flattenTensors(out) {
  if (out && typeof out.dataSync === 'function' && Array.isArray(out.shape)) return [out];
  if (Array.isArray(out)) return out.flatMap(flattenTensors);
  if (out && typeof out === 'object') return Object.keys(out).sort().flatMap((k) => flattenTensors(out[k]));
  return [];
}

/**
 * Where two lists of tensors differ (shape, dtype, or a value beyond
 * |a - b| <= tol * max(1, |b|); NaN matches NaN), as a sentence; null when they agree.
 */
export function tensorsDiffer(ours, theirs, tol) {
  if (ours.length !== theirs.length) return `${ours.length} outputs vs ${theirs.length}`;
  for (let i = 0; i < ours.length; ++i) {
    const o = ours[i], t = theirs[i];
    if (JSON.stringify(o.shape) !== JSON.stringify(t.shape)) return `output ${i}: shape [${o.shape}] vs [${t.shape}]`;
    if (o.dtype !== t.dtype) return `output ${i}: dtype ${o.dtype} vs ${t.dtype}`;
    const a = o.dataSync(), b = t.dataSync();
    for (let j = 0; j < b.length; ++j) {
      const x = Number(a[j]), y = Number(b[j]);
      if (x === y || (Number.isNaN(x) && Number.isNaN(y))) continue;
      if (t.dtype !== 'float32' || !(Math.abs(x - y) <= tol * Math.max(1, Math.abs(y)))) {
        return `output ${i} element ${j}: ${x} vs ${y}`;
      }
    }
  }
  return null;
}

/** Why web/package/api_gaps.json (parsed: gaps) leaves a TF.js name out of glint-ml, or null. */
export function gapReason(gaps, scope, name, value) {
  const names = gaps.names[scope] ?? {};
  if (Object.hasOwn(names, name)) return names[name];
  for (const g of gaps.groups) {
    if (g.scope !== scope) continue;
    if (g.names?.includes(name)) return g.reason;
    if (g.pattern && new RegExp(g.pattern).test(name) && (!g.valueType || typeof value === g.valueType)) {
      return g.reason;
    }
  }
  return null;
}
