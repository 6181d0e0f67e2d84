// What the digits app's browser drivers (digits, digits_teaching) share: digits
// drawn as strokes (point lists in pad coordinates, no images), an independent
// MNIST preprocessing and forward pass of a downloaded model in float64, and
// the steps that drive the page (wait until ready, draw, wait for the settled
// prediction, catch downloads).
import fs from 'node:fs';
import path from 'node:path';
import {openPage, repo} from './harness.mjs';

/** Throws, saying what to run, when the app's model and data, the package or the app's own engine build are missing. */
export function requireDigitsBuilds({threads = true} = {}) {
  const build = threads ? 'glint-mt' : 'glint-st';
  for (const f of ['web/apps/digits/model/model.json', 'web/apps/digits/data/digits.json',
                   `web/package/dist/${build}.mjs`, `web/apps/digits/glint/${build}.wasm`]) {
    if (!fs.existsSync(path.join(repo, f))) throw new Error(`${f} is missing: run make web-apps and make demo`);
  }
}

// ---- strokes: point lists in pad coordinates [0, 1] ----------------------------------------

export const arc = (cx, cy, rx, ry, from, to, n = 24) => Array.from({length: n + 1}, (_, i) => {
  const a = (from + (to - from) * i / n) * Math.PI / 180;
  return [cx + rx * Math.cos(a), cy + ry * Math.sin(a)];
});
export const DIGITS = {
  0: [arc(0.5, 0.5, 0.2, 0.3, -90, 275, 32)],
  1: [[[0.53, 0.18], [0.51, 0.5], [0.49, 0.82]]],
  3: [[...arc(0.47, 0.34, 0.16, 0.14, -160, 90), ...arc(0.47, 0.64, 0.18, 0.16, -90, 160).slice(1)]],
  7: [[[0.28, 0.22], [0.72, 0.22], [0.6, 0.45], [0.46, 0.82]]],
};
// Sevens drawn oddly; the first one the shipped model misreads is the one taught.
export const ODD_SEVENS = {
  'hooked stem': [[[0.28, 0.2], [0.72, 0.2], [0.5, 0.5], [0.4, 0.72], [0.55, 0.82], [0.72, 0.76]]],
  'curled top': [[[0.25, 0.38], [0.27, 0.22], [0.72, 0.22], [0.48, 0.84]]],
  'serif and slant': [[[0.22, 0.34], [0.22, 0.2], [0.78, 0.2], [0.26, 0.82]]],
  'crossed, short bar': [[[0.55, 0.2], [0.72, 0.2], [0.45, 0.82]], [[0.38, 0.5], [0.7, 0.5]]],
  'wide and flat': [[[0.1, 0.35], [0.9, 0.35], [0.55, 0.65]]],
};

// ---- an independent MNIST preprocessing and forward pass ------------------------------------

/** The page's ink (levels in [0, 1], side x side) as MNIST's 28x28, by direct 2D area sums. */
export function referencePreprocess(ink, side) {
  let x0 = side, y0 = side, x1 = -1, y1 = -1;
  ink.forEach((v, i) => {
    if (v <= 0) return;
    const x = i % side, y = Math.floor(i / side);
    x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
  });
  const w = x1 - x0 + 1, h = y1 - y0 + 1;
  const s = 20 / Math.max(w, h);
  const tw = Math.max(1, Math.round(w * s)), th = Math.max(1, Math.round(h * s));
  const sx = w / tw, sy = h / th;
  const box = [];
  for (let i = 0; i < th; ++i) {
    for (let j = 0; j < tw; ++j) {
      // The output pixel's footprint in the source, summed pixel by pixel.
      const ax = j * sx, bx = ax + sx, ay = i * sy, by = ay + sy;
      let sum = 0;
      for (let y = Math.floor(ay); y < Math.ceil(by) && y < h; ++y) {
        const oy = Math.min(by, y + 1) - Math.max(ay, y);
        for (let x = Math.floor(ax); x < Math.ceil(bx) && x < w; ++x) {
          const ox = Math.min(bx, x + 1) - Math.max(ax, x);
          if (ox > 0 && oy > 0) sum += ink[(y0 + y) * side + x0 + x] * ox * oy;
        }
      }
      box.push(Math.min(1, sum / (sx * sy)));
    }
  }
  let m = 0, mx = 0, my = 0;
  box.forEach((v, k) => { m += v; mx += (k % tw + 0.5) * v; my += (Math.floor(k / tw) + 0.5) * v; });
  const dx = Math.round(14 - mx / m), dy = Math.round(14 - my / m);
  const out = new Float64Array(784);
  box.forEach((v, k) => {
    const x = k % tw + dx, y = Math.floor(k / tw) + dy;
    if (x >= 0 && x < 28 && y >= 0 && y < 28) out[y * 28 + x] = v;
  });
  return out;
}

/** A layers-model (model.json + weights) as plain float64 loops: Conv2D, MaxPooling2D, Flatten, Dense. */
export function referenceModel(modelJson, weightBytes) {
  const specs = modelJson.weightsManifest.flatMap((g) => g.weights);
  const f32 = new Float32Array(weightBytes.buffer, weightBytes.byteOffset, weightBytes.byteLength / 4);
  const weights = {};
  let at = 0;
  for (const sp of specs) {
    const n = sp.shape.reduce((a, b) => a * b, 1);
    if (sp.dtype !== 'float32' || sp.quantization) throw new Error(`unexpected weight ${sp.name}`);
    weights[sp.name] = {shape: sp.shape, data: f32.subarray(at, at + n)};
    at += n;
  }
  if (at !== f32.length) throw new Error(`weights: ${f32.length} floats, manifest ${at}`);
  const layers = modelJson.modelTopology.config.layers;
  const act = (name, v) => (name === 'relu' ? v.map((x) => Math.max(0, x)) : v);
  return (pixels) => {
    let t = {h: 28, w: 28, c: 1, v: Float64Array.from(pixels)};
    for (const {class_name: kind, config: cfg} of layers) {
      if (kind === 'Conv2D') {
        const k = weights[`${cfg.name}/kernel`], b = weights[`${cfg.name}/bias`];
        const [kh, kw, ci, co] = k.shape;
        const oh = t.h - kh + 1, ow = t.w - kw + 1;
        const v = new Float64Array(oh * ow * co);
        for (let y = 0; y < oh; ++y) for (let x = 0; x < ow; ++x) for (let o = 0; o < co; ++o) {
          let s = b.data[o];
          for (let i = 0; i < kh; ++i) for (let j = 0; j < kw; ++j) for (let c = 0; c < ci; ++c) {
            s += t.v[((y + i) * t.w + x + j) * ci + c] * k.data[((i * kw + j) * ci + c) * co + o];
          }
          v[(y * ow + x) * co + o] = s;
        }
        t = {h: oh, w: ow, c: co, v: act(cfg.activation, v)};
      } else if (kind === 'MaxPooling2D') {
        const [p] = cfg.pool_size;
        const oh = Math.floor(t.h / p), ow = Math.floor(t.w / p);
        const v = new Float64Array(oh * ow * t.c).fill(-Infinity);
        for (let y = 0; y < oh * p; ++y) for (let x = 0; x < ow * p; ++x) for (let c = 0; c < t.c; ++c) {
          const o = (Math.floor(y / p) * ow + Math.floor(x / p)) * t.c + c;
          v[o] = Math.max(v[o], t.v[(y * t.w + x) * t.c + c]);
        }
        t = {h: oh, w: ow, c: t.c, v};
      } else if (kind === 'Flatten') {
        t = {h: 1, w: 1, c: t.v.length, v: t.v};
      } else if (kind === 'Dense') {
        const k = weights[`${cfg.name}/kernel`], b = weights[`${cfg.name}/bias`];
        const [n, u] = k.shape;
        const v = Float64Array.from(b.data);
        for (let i = 0; i < n; ++i) for (let o = 0; o < u; ++o) v[o] += t.v[i] * k.data[i * u + o];
        if (cfg.activation === 'softmax') {
          const mx = Math.max(...v);
          const e = v.map((x) => Math.exp(x - mx));
          const s = e.reduce((a, x) => a + x, 0);
          t = {h: 1, w: 1, c: u, v: e.map((x) => x / s)};
        } else {
          t = {h: 1, w: 1, c: u, v: act(cfg.activation, v)};
        }
      } else {
        throw new Error(`reference model: layer ${kind} not handled`);
      }
    }
    return Array.from(t.v);
  };
}

export const maxDiff = (a, b) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);
export const argmax = (p) => p.reduce((best, v, i) => (v > p[best] ? i : best), 0);
export const fmtP = (p) => p ? `${argmax(p)} (${(100 * Math.max(...p)).toFixed(1)}%)` : 'nothing';

// ---- driving the page ------------------------------------------------------------------------

export async function waitReady(page, timeout = 90000) {
  await page.waitForFunction(() => ['ready', 'error'].includes(window.digitsApp?.state), null, {timeout});
  const s = await page.evaluate(() => ({state: digitsApp.state, error: digitsApp.error}));
  if (s.state !== 'ready') throw new Error(`the app did not start: ${s.error}`);
}

/** Clears the pad, draws the strokes with the mouse, waits for the prediction of that drawing. */
export async function draw(page, strokes) {
  await page.evaluate(() => document.getElementById('clear').click());
  await page.locator('#pad').scrollIntoViewIfNeeded();
  const box = await page.locator('#pad').boundingBox();
  const at = ([x, y]) => [box.x + x * box.width, box.y + y * box.height];
  for (const stroke of strokes) {
    await page.mouse.move(...at(stroke[0]));
    await page.mouse.down();
    for (const p of stroke.slice(1)) await page.mouse.move(...at(p), {steps: 6});
    await page.mouse.up();
  }
  return settled(page);
}

/** The prediction for what is on the pad now, from the current model. */
export async function settled(page) {
  await page.waitForFunction(() => {
    const p = digitsApp.lastPrediction;
    return p && p.probs && p.version === digitsApp.padVersion() && !digitsApp.busy();
  }, null, {timeout: 30000, polling: 50});
  // A frame later: a prediction of the same drawing by a model swapped meanwhile is redone.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50))));
  await page.waitForFunction(() => {
    const p = digitsApp.lastPrediction;
    return p && p.probs && p.version === digitsApp.padVersion() && p.generation === digitsApp.generation();
  }, null, {timeout: 30000, polling: 50});
  return page.evaluate(() => ({...digitsApp.lastPrediction, screen: document.getElementById('guess').textContent}));
}

export async function downloadsOf(page, click, count) {
  const got = [];
  const done = new Promise((resolve) => {
    const on = async (d) => {
      got.push({name: d.suggestedFilename(), path: await d.path()});
      if (got.length === count) {
        page.off('download', on);
        resolve();
      }
    };
    page.on('download', on);
  });
  await page.click(click);
  await Promise.race([done, new Promise((_, rej) => setTimeout(() => rej(new Error(
      `${click}: ${got.length} of ${count} downloads`)), 20000))]);
  return Object.fromEntries(got.map((g) => [g.name, fs.readFileSync(g.path)]));
}

export function modelFromDownload(files) {
  const json = JSON.parse(files['glint-digits.json'].toString('utf8'));
  const bin = files['glint-digits.weights.bin'];
  const expected = json.weightsManifest.flatMap((g) => g.weights)
      .reduce((a, w) => a + 4 * w.shape.reduce((x, y) => x * y, 1), 0);
  return {json, bin, expected, forward: referenceModel(json, new Uint8Array(bin))};
}

/** The app opened in a new page of the context (served at base), started: {page, errors}. */
export async function openDigits(context, base, {query = '', ...options} = {}) {
  const opened = await openPage(context, `${base}/web/apps/digits/index.html${query}`, options);
  await waitReady(opened.page);
  return opened;
}
