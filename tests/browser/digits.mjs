#!/usr/bin/env node
// The digits app (web/apps/digits) in headless Chromium, driven like a user:
// digits are drawn with the mouse from stroke lists (no images), and
//   - clear 0, 1, 3, 7 are read right by the shipped model; the 28x28 input
//     matches this file's own MNIST preprocessing of the page's ink, and the
//     probabilities match this file's own forward pass of the shipped weights;
//   - an odd 7 that the shipped model misreads (checked) is taught with one
//     click: the corrected prediction is on screen within 300 ms (page clock
//     and the test's wall clock); the downloaded fine-tuned model
//     gives the page's probabilities in this file's forward pass;
//   - after a reload the personal sample and the fine-tuned model are back;
//     reset restores the shipped model (the odd 7 misread again);
//   - the backend switches to gl and back with the same predictions;
//   - training from scratch charts loss/accuracy and its held-out accuracy
//     matches this file's evaluation of the downloaded model;
//   - with the network off and the server stopped, a reload still predicts;
//   - screenshots at desktop and phone widths; no console errors.
// Needs make web and make demo. Last line: "N passed, N failed".
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {check, checkNoErrors, DESKTOP, openPage, repo, runMain, screenshots, withBrowser} from './harness.mjs';

const appDir = path.join(repo, 'web/apps/digits');
// --threads 0: the single-thread build (the page's ?threads=0).
const argv = process.argv.slice(2);
const query = argv[0] === '--threads' && argv[1] === '0' ? '?threads=0' : '';
// ---- strokes: point lists in pad coordinates [0, 1] ----------------------------------------

const arc = (cx, cy, rx, ry, from, to, n = 24) => Array.from({length: n + 1}, (_, i) => {
  const a = (from + (to - from) * i / n) * Math.PI / 180;
  return [cx + rx * Math.cos(a), cy + ry * Math.sin(a)];
});
const DIGITS = {
  0: [arc(0.5, 0.5, 0.2, 0.3, -90, 275, 32)],
  1: [[[0.53, 0.18], [0.51, 0.5], [0.49, 0.82]]],
  3: [[...arc(0.47, 0.34, 0.16, 0.14, -160, 90), ...arc(0.47, 0.64, 0.18, 0.16, -90, 160).slice(1)]],
  7: [[[0.28, 0.22], [0.72, 0.22], [0.6, 0.45], [0.46, 0.82]]],
};
// Sevens drawn oddly; the first one the shipped model misreads is the one taught.
const ODD_SEVENS = {
  'hooked stem': [[[0.28, 0.2], [0.72, 0.2], [0.5, 0.5], [0.4, 0.72], [0.55, 0.82], [0.72, 0.76]]],
  'curled top': [[[0.25, 0.38], [0.27, 0.22], [0.72, 0.22], [0.48, 0.84]]],
  'serif and slant': [[[0.22, 0.34], [0.22, 0.2], [0.78, 0.2], [0.26, 0.82]]],
  'crossed, short bar': [[[0.55, 0.2], [0.72, 0.2], [0.45, 0.82]], [[0.38, 0.5], [0.7, 0.5]]],
  'wide and flat': [[[0.1, 0.35], [0.9, 0.35], [0.55, 0.65]]],
};

// ---- an independent MNIST preprocessing and forward pass ------------------------------------

/** The page's ink (levels in [0, 1], side x side) as MNIST's 28x28, by direct 2D area sums. */
function referencePreprocess(ink, side) {
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
function referenceModel(modelJson, weightBytes) {
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

const maxDiff = (a, b) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);
const argmax = (p) => p.reduce((best, v, i) => (v > p[best] ? i : best), 0);
const fmtP = (p) => p ? `${argmax(p)} (${(100 * Math.max(...p)).toFixed(1)}%)` : 'nothing';

// ---- driving the page ------------------------------------------------------------------------

async function waitReady(page, timeout = 90000) {
  await page.waitForFunction(() => ['ready', 'error'].includes(window.digitsApp?.state), null, {timeout});
  const s = await page.evaluate(() => ({state: digitsApp.state, error: digitsApp.error}));
  if (s.state !== 'ready') throw new Error(`the app did not start: ${s.error}`);
}

/** Clears the pad, draws the strokes with the mouse, waits for the prediction of that drawing. */
async function draw(page, strokes) {
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
async function settled(page) {
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

async function downloadsOf(page, click, count) {
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

function modelFromDownload(files) {
  const json = JSON.parse(files['glint-digits.json'].toString('utf8'));
  const bin = files['glint-digits.weights.bin'];
  const expected = json.weightsManifest.flatMap((g) => g.weights)
      .reduce((a, w) => a + 4 * w.shape.reduce((x, y) => x * y, 1), 0);
  return {json, bin, expected, forward: referenceModel(json, new Uint8Array(bin))};
}

async function main() {
  for (const f of ['web/apps/digits/model/model.json', 'web/apps/digits/data/digits.json',
                   query ? 'web/package/dist/glint-st.mjs' : 'web/package/dist/glint-mt.mjs']) {
    if (!fs.existsSync(path.join(repo, f))) throw new Error(`${f} is missing: run make web and make demo`);
  }
  const shippedJson = JSON.parse(fs.readFileSync(path.join(appDir, 'model/model.json'), 'utf8'));
  const shippedBin = fs.readFileSync(path.join(appDir, 'model', shippedJson.weightsManifest[0].paths[0]));
  const shipped = referenceModel(shippedJson, new Uint8Array(shippedBin));

  await withBrowser(async ({base, context, stopServer}) => {
    const t0 = Date.now();
    const {page, errors} = await openPage(context, `${base}/web/apps/digits/index.html${query}`);
    await waitReady(page);
    const start = await page.evaluate(() => ({backend: digitsApp.backend, source: digitsApp.source,
                                              engine: document.getElementById('engine').textContent}));
    check('app ready', start.source === 'shipped',
          `${((Date.now() - t0) / 1000).toFixed(1)} s, model ${start.source}, backend ${start.backend}, ${start.engine}`);

    // Clear digits, read by the shipped model; preprocessing and probabilities recomputed here.
    for (const [digit, strokes] of Object.entries(DIGITS)) {
      const p = await draw(page, strokes);
      check(`a drawn ${digit} reads as ${digit}`, p.label === Number(digit) && p.screen === digit,
            `read ${fmtP(p.probs)}, on screen "${p.screen}"`);
      if (digit === '3' || digit === '7') {
        const ink = await page.evaluate(() => Array.from(digitsApp.ink()));
        const want = referencePreprocess(ink, Math.sqrt(ink.length));
        const d = maxDiff(p.input, want);
        check(`28x28 input of the ${digit} = MNIST preprocessing recomputed here`, d < 1e-5,
              `max |diff| ${d.toExponential(2)}`);
        const preview = await page.evaluate(() => Array.from(document.getElementById('input28')
            .getContext('2d').getImageData(0, 0, 28, 28).data.filter((_, i) => i % 4 === 0)));
        const dp = maxDiff(preview, p.input.map((v) => Math.round(v * 255)));
        check(`the preview shows that input (${digit})`, dp <= 1, `max |diff| ${dp} grey levels`);
      }
      const ref = shipped(p.input);
      const d = maxDiff(p.probs, ref);
      check(`probabilities of the ${digit} = forward pass of the shipped weights here`, d < 1e-4,
            `max |diff| ${d.toExponential(2)}`);
    }

    // Live: predictions arrive while the stroke is still being drawn, one at a time.
    await page.evaluate(() => document.getElementById('clear').click());
    const stats0 = await page.evaluate(() => ({...digitsApp.stats}));
    const pbox = await page.locator('#pad').boundingBox();
    await page.mouse.move(pbox.x + pbox.width * 0.5, pbox.y + pbox.height * 0.15);
    await page.mouse.down();
    for (let i = 1; i <= 40; ++i) {
      await page.mouse.move(pbox.x + pbox.width * 0.5, pbox.y + pbox.height * (0.15 + 0.7 * i / 40));
      await page.waitForTimeout(15);
    }
    const during = await page.evaluate(() => ({...digitsApp.stats, label: digitsApp.lastPrediction?.label}));
    await page.mouse.up();
    await settled(page);
    const live = during.predictions - stats0.predictions;
    check('live: predictions while the stroke is drawn, never more than one in flight',
          live >= 3 && during.maxInFlight === 1 && during.label === 1,
          `${live} predictions before the pen lifted (40 moves), at most ${during.maxInFlight} in flight, ` +
          `read ${during.label} mid-stroke`);

    // An odd 7 that the shipped model misreads.
    let odd = null;
    const tried = [];
    for (const [name, strokes] of Object.entries(ODD_SEVENS)) {
      const p = await draw(page, strokes);
      tried.push(`${name}: ${fmtP(p.probs)}`);
      if (p.label !== 7) {
        odd = {name, strokes, before: p};
        break;
      }
    }
    if (!check('an odd 7 that the shipped model misreads', odd !== null, tried.join('; '))) {
      throw new Error('no odd 7 to teach');
    }

    // Teach it: one click on 7; the page measures click handler -> render.
    await page.locator('[data-digit="7"]').scrollIntoViewIfNeeded();
    const button = await page.locator('[data-digit="7"]').boundingBox();
    const w0 = Date.now();
    await page.mouse.click(button.x + button.width / 2, button.y + button.height / 2);
    // Wall clock: until the guess on screen changes to 7 (or the teach is over without it).
    await page.waitForFunction(() => document.getElementById('guess').textContent === '7' ||
                                      digitsApp.lastTeach, null, {timeout: 10000, polling: 'raf'});
    const wall = Date.now() - w0;
    await page.waitForFunction(() => digitsApp.lastTeach, null, {timeout: 10000});
    const taught = await page.evaluate(() => digitsApp.lastTeach);
    check('teaching: the odd 7 reads as 7', argmax(taught.probs) === 7, `now ${fmtP(taught.probs)} ` +
          `after ${taught.steps} steps (was ${fmtP(odd.before.probs)})`);
    check('corrected prediction on screen within 300 ms (page clock: click handler -> render; test wall clock)',
          taught.ms < 300 && wall < 300, `${taught.ms.toFixed(0)} ms in the page, ${wall} ms wall clock in the test`);
    await page.waitForFunction(() => digitsApp.lastTeach.saved, null, {timeout: 20000});
    const thumbs = await page.locator('#samples li').count();
    check('the sample joins the personal set', thumbs === 1, `${thumbs} thumbnail(s)`);

    // The downloaded fine-tuned model gives the page's probabilities here.
    const files = await downloadsOf(page, '#download-model', 2);
    const tuned = modelFromDownload(files);
    const dTuned = maxDiff(tuned.forward(odd.before.input), taught.probs);
    check('downloaded model (TF.js format) = the fine-tuned model', tuned.bin.length === tuned.expected &&
          tuned.json.format === 'layers-model' && dTuned < 1e-4,
          `${tuned.bin.length} weight bytes, forward pass here vs page max |diff| ${dTuned.toExponential(2)}`);
    const sampleFiles = await downloadsOf(page, '#export-json', 1);
    const exported = JSON.parse(sampleFiles['glint-digits-samples.json'].toString('utf8'));
    const exportedPixels = exported.samples[0]?.pixels ?? [];
    check('personal set exported as JSON', exported.samples.length === 1 && exported.samples[0].label === 7 &&
          maxDiff(exportedPixels, odd.before.input.map((v) => Math.round(v * 255))) === 0,
          `${exported.samples.length} sample(s)`);

    // Reload: the personal set and the fine-tuned model are back.
    await page.reload();
    await waitReady(page);
    const back = await page.evaluate(() => ({source: digitsApp.source,
                                             labels: digitsApp.samples.map((s) => s.label)}));
    check('after a reload: the personal set is back', back.labels.length === 1 && back.labels[0] === 7,
          `labels [${back.labels}]`);
    const again = await draw(page, odd.strokes);
    check('after a reload: the fine-tuned model reads the odd 7 as 7', back.source === 'fine-tuned' &&
          again.label === 7 && maxDiff(again.probs, taught.probs) < 1e-5,
          `model ${back.source}, read ${fmtP(again.probs)}`);

    // Reset: the shipped model again (the personal set is kept, as the page says).
    await page.click('#reset');
    await page.waitForFunction(() => digitsApp.source === 'shipped' && !digitsApp.busy(), null, {timeout: 20000});
    const reset = await settled(page);
    const note = await page.locator('#teach-result').textContent();
    check('reset restores the shipped model: the odd 7 is misread again', reset.label !== 7 &&
          maxDiff(reset.probs, odd.before.probs) < 1e-5, `read ${fmtP(reset.probs)}; "${note}"`);
    const kept = await page.evaluate(() => digitsApp.samples.length);
    check('reset says it keeps the personal set, and keeps it', kept === 1 && /kept/.test(note), `${kept} sample(s)`);

    // Backends: gl where available, predictions the same as on cpu.
    const backends = await page.evaluate(() => [...document.querySelectorAll('#backend option')].map((o) => o.value));
    if (backends.includes('gl')) {
      await page.selectOption('#backend', 'gl');
      await page.waitForFunction(() => digitsApp.backend === 'gl' && !digitsApp.busy(), null, {timeout: 20000});
      const onGl = await settled(page);
      const shown = await page.evaluate(() => digitsApp.backendInWorker());
      check('switch to gl: the worker runs gl, same prediction as cpu', shown === 'gl' &&
            maxDiff(onGl.probs, reset.probs) < 1e-3, `worker backend ${shown}, max |diff| vs cpu ` +
            `${maxDiff(onGl.probs, reset.probs).toExponential(2)}`);
      await page.selectOption('#backend', 'cpu');
      await page.waitForFunction(() => digitsApp.backend === 'cpu' && !digitsApp.busy(), null, {timeout: 20000});
    } else {
      check('backend choices listed', backends.includes('cpu'), backends.join(', '));
    }

    // Train from scratch (1 epoch): the chart fills; held-out accuracy checked here.
    await page.selectOption('#epochs', '1');
    await page.click('#train');
    await page.waitForFunction(() => digitsApp.training?.done, null, {timeout: 120000});
    const tr = await page.evaluate(() => ({...digitsApp.training, source: digitsApp.source,
                                           points: document.querySelectorAll('#chart canvas').length,
                                           test: Array.from(digitsApp.heldOut())}));
    check('training from scratch: 125 batches charted, model saved', tr.batches === 125 && tr.points > 0 &&
          tr.source === 'trained here', `${tr.batches} batches, model ${tr.source}`);
    check('training from scratch: loss falls, held-out accuracy > 80% after 1 epoch',
          tr.lastLoss < 0.5 * tr.firstLoss && tr.valAcc.length === 1 && tr.valAcc[0] > 0.8,
          `loss ${tr.firstLoss.toFixed(3)} (first batch) -> ${tr.lastLoss.toFixed(3)} (smoothed, last), ` +
          `held-out accuracy ${(100 * tr.valAcc[0]).toFixed(2)}%`);
    const trained = modelFromDownload(await downloadsOf(page, '#download-model', 2));
    const data = zlib.gunzipSync(fs.readFileSync(path.join(appDir, 'data/digits.u8.gz')));
    const count = data.length / 785;
    let right = 0;
    for (const k of tr.test) {
      const px = Array.from(data.subarray(k * 784, (k + 1) * 784), (v) => v / 255);
      if (argmax(trained.forward(px)) === data[count * 784 + k]) ++right;
    }
    const acc = right / tr.test.length;
    check('held-out accuracy = evaluation of the downloaded model here', Math.abs(acc - tr.valAcc[0]) < 0.002,
          `${(100 * acc).toFixed(2)}% here over ${tr.test.length} digits, page ${(100 * tr.valAcc[0]).toFixed(2)}%`);

    // Screenshots with a digit on the pad.
    await draw(page, DIGITS[3]);
    await screenshots(page, 'digits');
    const phone1 = await draw(page, DIGITS[1]);
    check('phone width: drawing still predicts', phone1.label === 1, fmtP(phone1.probs));
    await page.setViewportSize(DESKTOP);

    // The personal sample is removable (the removal persists: checked after the offline reload).
    await page.locator('#samples li .remove').first().click();
    await page.waitForFunction(() => digitsApp.samples.length === 0 &&
                                      document.querySelectorAll('#samples li').length === 0);

    // Offline: network off and the server gone; the reload comes from the service worker.
    await page.waitForFunction(() => digitsApp.offlineReady, null, {timeout: 30000});
    await context.setOffline(true);
    await stopServer();
    await page.reload();
    await waitReady(page);
    const off = await draw(page, DIGITS[1]);
    check('offline (no network, server stopped): reload, the app still predicts', off.label === 1,
          `read ${fmtP(off.probs)}, model ${await page.evaluate(() => digitsApp.source)}, ` +
          await page.locator('#engine').textContent());
    await context.setOffline(false);
    const left = await page.evaluate(() => digitsApp.samples.length);
    check('a removed sample stays removed after a reload', left === 0, `${left} sample(s)`);

    const unnamed = await page.evaluate(() => [...document.querySelectorAll('button, select, #pad')]
        .filter((b) => b.tabIndex < 0 || !(b.getAttribute('aria-label') || b.textContent.trim() ||
                                           b.labels?.length)).map((b) => b.outerHTML.slice(0, 60)));
    await page.evaluate(() => document.activeElement?.blur());   // draw()'s Clear left it on the pad
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
    // The pad comes first: it can be drawn from the keyboard (tests/browser/a11y_digits.mjs).
    check('controls are named buttons and selects, reachable with Tab; the pad first', unnamed.length === 0 &&
          focused === 'pad', unnamed.join(' ') || `first Tab stop: ${focused}`);
    checkNoErrors(errors);
    console.log(`(${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    await page.close();
  });
}

runMain(main);
