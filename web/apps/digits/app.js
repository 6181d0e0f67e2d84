// Glint digits: draw a digit, the model reads it live; correct it and it
// fine-tunes on the spot. The engine runs in a worker (engine.js); this file
// is the page: pad, bars, samples, training chart. window.digitsApp exposes
// the state the browser test reads (tests/browser/digits.mjs).
import uPlot from '../../../node_modules/uplot/dist/uPlot.esm.js';
import {io} from 'glint-ml';
import {registerOffline} from '../offline.js';
import {Engine, argmax} from './engine.js';
import {gatherMnist, loadMnist, mnistFiles, rng, samples, toBytes, exportCsv, exportJson, PIXELS} from './data.js';
import {mnistify} from './mnistify.js';
import {doubt, measureNovelty, FARTHER, LOW, MIN_EXTENT} from './novelty.js';
import {Pad, RASTER} from './pad.js';
import {setupImport} from './import.js';
import {setupCheck} from './confusion.js';
import {setupGuide} from './guide.js';
import {setupSnippets} from './snippet.js';

const $ = (id) => document.getElementById(id);
const BACKEND_KEY = 'glint-digits/backend';
const REPLAY = 32;          // original digits mixed into each fine-tuning batch
const PERSONAL_MAX = 32;    // most recent personal samples in that batch
const NEW_COPIES = 4;       // the sample just taught counts this many times
const REPAIR_ROUNDS = 3;    // fine-tunes on samples a correction broke, before saying so
const SAMPLE_SHARE = 0.05;  // training from scratch: the user's samples are this share of the digits
const MAX_COPIES = 100;     // ... each counted at most this many times
const FOLLOW_MS = 250;      // while training, the drawing is re-read by the learning model this often

const app = window.digitsApp = {
  state: 'loading',         // 'loading' | 'ready' | 'training' | 'error'
  error: null,
  lastPrediction: null,     // {version, generation, probs, label, input}
  lastTeach: null,          // {label, ms, steps, probs, saved}
  backend: null,
  samples: [],
  source: null,
  offlineCached: 0,
  stats: {predictions: 0, inFlight: 0, maxInFlight: 0},   // live prediction: never piled up
};

let engine = null, mnist = null;
// For tests/browser/digits.mjs: what the page drew, predicted and held out.
Object.assign(app, {
  padVersion: () => pad.version,
  generation: () => generation,
  busy: () => busy || inFlight || frameRequested,
  ink: () => pad.ink(),
  strokes: () => pad.strokes,
  doubt: () => ({low: LOW, farther: FARTHER, minExtent: MIN_EXTENT}),
  heldOut: () => mnist?.test ?? null,   // null until the MNIST digits are loaded (on first need)
  backendInWorker: () => engine.getBackend(),
});
let generation = 0;          // bumps when the model changes: older predictions are stale
let busy = false;            // a teach / reset / backend switch is running
/** Ends a teach / reset / backend switch: controls back, and predict what was drawn meanwhile. */
function settle() {
  busy = false;
  setControls();
  readyStatus();
  schedulePredict();
}
const pad = new Pad($('pad'));

// ---- status -------------------------------------------------------------------

function status(kind, html) {
  const s = $('status');
  s.className = `summary ${kind}`;
  // The line is a live region: re-rendering the same words would say them again.
  const text = html.map((h) => (typeof h === 'string' ? h : h.textContent)).join('');
  if (s.textContent !== text) s.replaceChildren(...html);
}

// ---- controls that stay in the tab order --------------------------------------------
// A busy control is aria-disabled, not disabled: a disabled control drops out of
// the tab order under the keyboard user who just pressed it, and focus falls to
// the page. Its handler is guarded instead.

const enabled = (e) => e.getAttribute('aria-disabled') !== 'true';
function enable(e, on) {
  e.setAttribute('aria-disabled', String(!on));
}
/** A button's click handler that does nothing while the button is aria-disabled. */
function onPress(e, fn) {
  e.addEventListener('click', (ev) => {
    if (enabled(e)) fn(ev);
  });
}
/** A select's change handler; while aria-disabled the choice snaps back. */
function onChoose(e, fn) {
  let last = e.value;
  e.addEventListener('focus', () => { last = e.value; });   // the page may set it meanwhile
  e.addEventListener('change', (ev) => {
    if (!enabled(e)) {
      e.value = last;
      return;
    }
    last = e.value;
    fn(ev);
  });
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  e.append(...children.flat().filter((c) => c !== null && c !== undefined));
  return e;
}

const SOURCE_TEXT = {shipped: 'shipped', 'fine-tuned': 'fine-tuned by you', 'trained here': 'trained here',
                     training: 'training…'};

function showSource() {
  app.source = engine.source;
  // Training from scratch replaces the model from its first batch: the badge says so.
  const source = app.state === 'training' ? 'training' : engine.source;
  const b = $('model-source');
  b.className = `badge ${source === 'shipped' ? 'info' : source === 'training' ? 'pending' : 'ok'}`;
  b.textContent = SOURCE_TEXT[source] ?? source;
}

function readyStatus() {
  status('ok', [el('strong', {}, 'Ready'), ` — model ${SOURCE_TEXT[engine.source]}, on `,
                el('strong', {}, app.backend), ' in a Web Worker',
                app.samples.length ? ` · ${app.samples.length} personal sample${app.samples.length > 1 ? 's' : ''}` : '']);
}

function fail(e) {
  console.warn(e);
  app.error = e.message;
  status('fail', [el('strong', {}, 'Something went wrong: '), e.message]);
}

// ---- prediction -------------------------------------------------------------------

const bars = [];
for (let d = 0; d < 10; ++d) {
  const fill = el('span', {class: 'fill'});
  const value = el('span', {class: 'value'}, '');
  const row = el('li', {}, el('span', {class: 'digit'}, String(d)), el('span', {class: 'track'}, fill), value);
  $('bars').append(row);
  bars.push({row, fill, value});
  const button = el('button', {class: 'digit-button', 'data-digit': String(d), 'aria-disabled': 'true',
                               'aria-label': `It is a ${d}: teach the model`}, String(d));
  onPress(button, () => teach(d));
  $('teach').append(button);
}

// What a screen reader hears about the prediction: "7, 94% sure", once the
// drawing and the model have settled, and only when it says something new.
const SETTLE_MS = 700;
let sayTimer = null, said = {text: '', version: -1};
function sayPrediction() {
  clearTimeout(sayTimer);
  sayTimer = setTimeout(() => {
    const p = app.lastPrediction;
    if (!p?.probs || p.version !== pad.version || pad.pointerId !== null || pad.penDown) return;
    // While training, the reading drifts with the model: only a new drawing is worth saying.
    if (app.state === 'training' && p.version === said.version) return;
    const text = readingWords(p.probs, input());
    if (text === said.text && p.version === said.version) return;
    said = {text, version: p.version};
    $('said').textContent = text;
  }, SETTLE_MS);
}
const predictionWords = (probs) => `${argmax(probs)}, ${Math.round(100 * probs[argmax(probs)])}% sure`;

// "Not sure" (novelty.js): a low best probability, a drawing unlike every MNIST
// digit and the user's samples, or ink too small to be a digit.
const DOUBT_WORDS = {low: 'it could be several digits', small: 'too small to be a digit',
                     unlike: 'it does not look like a digit'};
// Mid-stroke the ink is rarely like a digit yet, and the MNIST distance is main-thread work
// on every frame: while the pen is down only a low probability counts.
const drawing = () => pad.pointerId !== null || pad.penDown;
const doubtOf = (probs, x) => doubt(probs, drawing() ? null : x, mnist, app.samples.map((s) => s.pixels));
/** What the status region says: "7, 94% sure", or "not sure: maybe 2; …". */
function readingWords(probs, x) {
  const why = doubtOf(probs, x);
  return why ? `not sure: maybe ${argmax(probs)}; ${DOUBT_WORDS[why]}` : predictionWords(probs);
}
/** One rounding for the bars, the headline and the chip: down to 0.1%, so never "100%". */
const percent = (p) => `${(Math.floor(1000 * p + 1e-9) / 10).toFixed(1)}%`;

function renderProbs(probs, x = input()) {
  const best = probs ? argmax(probs) : -1;
  bars.forEach((b, d) => {
    const p = probs ? probs[d] : 0;
    b.fill.style.width = `${(100 * p).toFixed(1)}%`;
    b.value.textContent = probs ? percent(p) : '';
    b.row.classList.toggle('best', d === best);
  });
  const why = probs ? doubtOf(probs, x) : null;
  $('guess').textContent = !probs ? '–' : why ? '?' : String(best);
  $('guess').classList.toggle('unsure', Boolean(why));
  const chip = $('mini-guess');
  chip.hidden = !probs;
  chip.replaceChildren(...(!probs ? [] : [why ? `not sure · ${best}?` : `reads ${best} · ${percent(probs[best])}`,
                                         el('span', {class: 'visually-hidden'}, ': correct it')]));
  $('confidence').textContent = !probs ? 'draw a digit' : why ?
      `not sure: maybe ${best} (${percent(probs[best])}); ${DOUBT_WORDS[why]}` : `${percent(probs[best])} sure`;
  if (probs) sayPrediction();
}
// The chip (phone): a tap goes to the teach buttons, next to the pad.
onPress($('mini-guess'), () => {
  const first = $('teach').querySelector('.digit-button');
  first.focus({preventScroll: true});
  $('teach').scrollIntoView({block: 'nearest'});
});

const preview = $('input28').getContext('2d');
function drawPreview(pixels) {
  const img = preview.createImageData(28, 28);
  for (let i = 0; i < PIXELS; ++i) {
    const v = pixels ? Math.round(pixels[i] * 255) : 0;
    img.data.set([v, v, v, 255], 4 * i);
  }
  preview.putImageData(img, 0, 0);
}

let current = null;           // {version, pixels} of the drawing on the pad
function input() {
  if (pad.empty) return null;
  if (!current || current.version !== pad.version) {
    // A picture on the pad is in the model's form already; strokes are preprocessed as MNIST was.
    const m = pad.picture ? null : mnistify(pad.ink(), RASTER, RASTER);
    const pixels = m ? m.pixels : pad.picture.pixels;
    // extent: the ink's longer side, of the pad's (novelty.js: a dot is not a digit).
    current = {version: pad.version, pixels, picture: !m, extent: m ? Math.max(m.box.w, m.box.h) / RASTER : 1};
  }
  return current;
}

// At most one prediction in flight and one frame's worth queued: drawing
// never piles requests up, and the last stroke is always the one predicted.
// A finished drawing (the pen lifted) does not queue behind the live reading in flight:
// it goes at once, a second one in flight at most, and an older reading that lands
// after it is dropped.
let frameRequested = false, inFlight = 0, again = false;
function schedulePredict() {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(() => {
    frameRequested = false;
    predictNow();
  });
}

async function predictNow({finished = false} = {}) {
  if (!engine?.model || busy) return;
  if (inFlight && !(finished && inFlight === 1)) {
    again = true;
    return;
  }
  ++inFlight;
  let failed = false;
  try {
    const x = input();
    const gen = generation;
    if (!x) {
      drawPreview(null);
      renderProbs(null);
      app.lastPrediction = {version: pad.version, generation: gen, probs: null, label: null, input: null};
      return;
    }
    drawPreview(x.pixels);
    const st = app.stats;
    st.maxInFlight = Math.max(st.maxInFlight, ++st.inFlight);
    let probs;
    const asked = performance.now();
    try {
      const reading = engine.predict(x.pixels);
      // While the worker reads it: the MNIST distance the bars' "not sure" needs, which
      // would otherwise come between the answer and the bars on the page.
      if (!drawing()) measureNovelty(x, mnist);
      probs = await reading;
    } finally {
      --st.inFlight;
      // The last round trips, for tests/browser/digits_loading.mjs's diagnostics.
      (st.waits ??= []).push({asked, ms: performance.now() - asked, version: x.version});
      if (st.waits.length > 50) st.waits.shift();
    }
    ++st.predictions;
    if (gen !== generation) return;   // the model changed meanwhile: predict again
    const shown = app.lastPrediction;
    if (shown?.probs && shown.generation === gen && shown.version > x.version) return;   // overtaken
    renderProbs(probs, x);
    app.lastPrediction = {version: x.version, generation: gen, probs, label: argmax(probs),
                          input: Array.from(x.pixels)};
  } catch (e) {
    failed = true;
    fail(e);
  } finally {
    --inFlight;
    if (!failed && !inFlight && (again || app.lastPrediction?.version !== pad.version ||
                    app.lastPrediction?.generation !== generation)) {
      again = false;
      schedulePredict();
    }
  }
}

pad.addEventListener('change', () => {
  $('pad-hint').hidden = !pad.empty;
  const finished = !pad.empty && pad.pointerId === null && !pad.penDown;
  // A finished drawing: a correction may come next, and needs the MNIST digits to replay.
  if (finished && app.state !== 'loading') needMnist().catch(() => {});   // said when one needs them
  setControls();
  // The finished drawing is read now, not at the next frame.
  if (finished) predictNow({finished: true});
  else schedulePredict();
});
// Emptying the pad leaves its buttons with nothing to do: the pad takes focus, ready to draw.
onPress($('undo'), () => {
  pad.undo();
  if (pad.empty) pad.canvas.focus();
});
onPress($('clear'), () => {
  pad.clear();
  $('teach-result').textContent = '';   // the last teach message was about the drawing just cleared
  pad.canvas.focus();
});
// A held-out MNIST digit on the pad: predicting and teaching without drawing.
onPress($('example'), async () => {
  try {
    await needMnist();
  } catch (e) {
    $('teach-result').textContent = `No held-out digit: ${e.message}`;
    return;
  }
  const k = mnist.test[Math.floor(Math.random() * mnist.test.length)];
  const pixels = Float32Array.from(mnist.pixels.subarray(k * PIXELS, (k + 1) * PIXELS), (v) => v / 255);
  pad.setPicture(pixels, mnist.labels[k]);
  $('teach-result').textContent = `A held-out ${mnist.labels[k]} from MNIST is on the pad.`;
});
document.addEventListener('keydown', (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key === 'z' && !e.target.closest('input, select, textarea')) {
    e.preventDefault();
    pad.undo();
  }
});

// ---- teaching ----------------------------------------------------------------------

function setControls() {
  const idle = app.state === 'ready' && !busy;
  for (const b of document.querySelectorAll('.digit-button')) enable(b, idle && !pad.empty);
  enable($('undo'), !pad.empty);
  enable($('clear'), !pad.empty);
  enable($('example'), app.state !== 'loading');
  enable($('reset'), idle && engine?.source !== 'shipped');
  enable($('download-model'), idle);
  enable($('backend'), idle);
  enable($('train'), idle);
  enable($('stop'), app.state === 'training');
  enable($('epochs'), app.state !== 'training');
  const none = app.samples.length === 0;
  enable($('export-json'), !none);
  enable($('export-csv'), !none);
  enable($('clear-samples'), !none && app.state !== 'training');
  if (engine) showSource();
}

/** The batch the model fine-tunes on: personal samples (the new one weighted) + replayed originals. */
function teachBatch(personal, newPixels, label) {
  const mine = personal.slice(-PERSONAL_MAX);
  const rows = [...mine.map((s) => ({pixels: s.pixels, label: s.label}))];
  for (let i = 1; i < NEW_COPIES; ++i) rows.push({pixels: newPixels, label});
  const rnd = rng((Date.now() ^ app.samples.length * 7919) >>> 0);
  const replay = Array.from({length: REPLAY}, () => mnist.train[Math.floor(rnd() * mnist.train.length)]);
  const n = rows.length + replay.length;
  const {x: rx, y: ry} = gatherMnist(mnist, replay);
  const x = new Float32Array(n * PIXELS), y = new Float32Array(n * 10);
  rows.forEach((r, i) => {
    for (let p = 0; p < PIXELS; ++p) x[i * PIXELS + p] = r.pixels[p] / 255;
    y[i * 10 + r.label] = 1;
  });
  x.set(rx, rows.length * PIXELS);
  y.set(ry, rows.length * 10);
  return {x, y, n};
}

async function teach(label) {
  const t0 = performance.now();
  const x = input();
  if (!x || busy || app.state !== 'ready') {
    if (!x) $('teach-result').textContent = 'Draw a digit first, then click what it is.';
    return;
  }
  busy = true;
  setControls();
  try {
    await needMnist();
  } catch (e) {
    $('teach-result').textContent = `Cannot learn from it yet: ${e.message}`;
    settle();
    return;
  }
  const before = app.lastPrediction?.version === x.version ? app.lastPrediction.label : null;
  const bytes = toBytes(x.pixels);
  const sample = {id: null, label, pixels: bytes, created: Date.now()};
  app.samples.push(sample);
  const stored = samples.add(label, x.pixels).then((id) => { sample.id = id; });
  stored.catch(() => {});   // reported below, once the answer is on screen
  try {
    const batch = teachBatch(app.samples, bytes, label);
    const r = await engine.fineTune({...batch, target: x.pixels, label});
    ++generation;
    renderProbs(r.probs);
    const ms = performance.now() - t0;
    app.lastPrediction = {version: x.version, generation, probs: r.probs, label: argmax(r.probs),
                          input: Array.from(x.pixels)};
    app.lastTeach = {label, ms, steps: r.steps, probs: r.probs, before, saved: false};
    renderSamples();
    const right = argmax(r.probs) === label;
    // The teach message says the new reading: the prediction announcer need not repeat it.
    said = {text: predictionWords(r.probs), version: x.version};
    const learned = right ?
        `Learned: it reads ${said.text} now (${r.steps} steps, ${Math.round(ms)} ms).` :
        `Nudged towards ${label} (${r.steps} steps, ${Math.round(ms)} ms): ` +
        'teach it another example or two.';
    $('teach-result').textContent = learned;
    // After the answer is on screen: did the correction break a sample the model read right?
    const guard = await guardEarlierSamples(sample);
    app.lastTeach.guard = guard;
    let changed = '';
    if (guard.repaired || guard.broken.length) {
      const probs = await engine.predict(x.pixels);
      ++generation;
      renderProbs(probs);
      app.lastPrediction = {version: x.version, generation, probs, label: argmax(probs), input: Array.from(x.pixels)};
      app.lastTeach.probs = probs;
      if (argmax(probs) !== argmax(r.probs)) {
        changed = ` Re-learning your earlier samples changed that: it reads ${predictionWords(probs)} now.`;
      }
      said = {text: predictionWords(probs), version: x.version};
    }
    $('teach-result').textContent = `${learned}${changed} ${checkWords(guard)}`;
    // Persist: model and sample survive a reload.
    await stored;
    await engine.save('fine-tuned');
    app.lastTeach.saved = true;
    showSource();
    $('teach-result').textContent += ' Saved in this browser.';
  } catch (e) {
    fail(e);
  } finally {
    settle();
  }
}

// ---- forgetting: the user's samples re-checked after every change of the model ----------

/** The personal samples as model input [n*784] in [0, 1]. */
function samplePixels(list) {
  const x = new Float32Array(list.length * PIXELS);
  list.forEach((s, i) => {
    for (let p = 0; p < PIXELS; ++p) x[i * PIXELS + p] = s.pixels[p] / 255;
  });
  return x;
}

/** Reads every personal sample with the current model: s.reads and s.right; the list re-rendered. */
async function checkSamples() {
  const list = app.samples;
  const probs = await engine.predictMany(samplePixels(list), list.length);
  list.forEach((s, i) => {
    s.reads = argmax(probs[i]);
    s.right = s.reads === s.label;
  });
  renderSamples();
  return list;
}

/**
 * After a correction: samples the model read right before and misreads now
 * are fine-tuned on (weighted) for up to REPAIR_ROUNDS rounds; whatever is
 * still misread is named. {right, total, repaired, broken: [samples]}.
 */
async function guardEarlierSamples(taught) {
  const wasRight = new Set(app.samples.filter((s) => s !== taught && s.right === true));
  await checkSamples();
  if (taught.right) wasRight.add(taught);   // learned now: it must stay learned through the repair
  let broken = app.samples.filter((s) => wasRight.has(s) && !s.right);
  const repaired = broken.length;
  for (let round = 0; round < REPAIR_ROUNDS && broken.length; ++round) {
    const weighted = [...broken.flatMap((s) => Array(NEW_COPIES).fill(s)), taught];
    const batch = teachBatch([...app.samples, ...weighted], taught.pixels, taught.label);
    await engine.fineTune({...batch, target: samplePixels([broken[0]]), label: broken[0].label});
    await checkSamples();
    broken = app.samples.filter((s) => wasRight.has(s) && !s.right);
  }
  const right = app.samples.filter((s) => s.right).length;
  return {right, total: app.samples.length, repaired: repaired - broken.length, broken};
}

function checkWords({right, total, repaired, broken}) {
  const named = broken.map((s) => `sample ${app.samples.indexOf(s) + 1} (a ${s.label}) now reads ${s.reads}`);
  return `Still right: ${right} of your ${total} sample${total === 1 ? '' : 's'}.` +
      (repaired ? ` ${repaired} that this correction had broken ${repaired === 1 ? 'was' : 'were'} re-learned.` : '') +
      (named.length ? ` Not fixed: ${named.join('; ')}. Teach ${named.length === 1 ? 'it' : 'them'} again, ` +
                      'or remove what you did not mean.' : '');
}

// ---- personal samples --------------------------------------------------------------

function renderSamples() {
  const list = $('samples');
  list.replaceChildren(...app.samples.map((s, i) => {
    const c = el('canvas', {width: '28', height: '28', 'aria-hidden': 'true'});
    const ctx = c.getContext('2d');
    const img = ctx.createImageData(28, 28);
    for (let p = 0; p < PIXELS; ++p) {
      const v = 255 - s.pixels[p];   // dark ink on light paper
      img.data.set([v, v, v, 255], 4 * p);
    }
    ctx.putImageData(img, 0, 0);
    const misread = s.right === false;
    return el('li', {'data-label': String(s.label), class: misread ? 'misread' : ''}, c,
              el('span', {class: 'label'}, String(s.label)),
              misread ? el('span', {class: 'reads'}, `reads ${s.reads}`) : null,
              el('button', {class: 'remove', 'aria-label': `Remove sample ${i + 1} (a ${s.label}` +
                                                        `${misread ? `, now read as ${s.reads}` : ''})`,
                            title: 'Remove', onclick: () => removeSample(s, i)}, '×'));
  }));
  const checked = app.samples.filter((s) => s.right !== undefined);
  $('samples-check').textContent = checked.length ?
      `Still right: ${checked.filter((s) => s.right).length} of ${checked.length}.` : '';
  $('sample-count').textContent = String(app.samples.length);
  $('samples-empty').hidden = app.samples.length > 0;
  setControls();
}

async function removeSample(s, at) {
  app.samples = app.samples.filter((x) => x !== s);
  renderSamples();
  // The pressed button is gone: focus moves to the sample now in its place, else the list.
  const next = $('samples').querySelectorAll('.remove');
  (next[Math.min(at, next.length - 1)] ?? $('samples')).focus();
  if (app.state === 'ready' && !busy) readyStatus();   // its sample count
  try {
    if (s.id !== null) await samples.remove(s.id);
    $('teach-result').textContent = 'Sample removed: the next fine-tuning leaves it out ' +
        '(the model keeps what it learned until you reset it).';
  } catch (e) {
    fail(e);
  }
}

let confirmClear = null;
onPress($('clear-samples'), async () => {
  const btn = $('clear-samples');
  if (!confirmClear) {
    btn.textContent = `Delete ${app.samples.length}? Click again`;
    confirmClear = setTimeout(() => {
      confirmClear = null;
      btn.textContent = 'Delete all';
    }, 4000);
    return;
  }
  clearTimeout(confirmClear);
  confirmClear = null;
  btn.textContent = 'Delete all';
  try {
    await samples.clear();
    app.samples = [];
    renderSamples();
    readyStatus();
  } catch (e) {
    fail(e);
  }
});

function download(name, text, type) {
  const a = el('a', {download: name, href: URL.createObjectURL(new Blob([text], {type}))});
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
onPress($('export-json'), () =>
  download('glint-digits-samples.json', exportJson(app.samples), 'application/json'));
onPress($('export-csv'), () =>
  download('glint-digits-samples.csv', exportCsv(app.samples), 'text/csv'));

// ---- what teaching pages have: sample import, the model check, a first-run guide, the snippet ----

setupImport({
  canImport: () => app.state === 'ready' && !busy,
  existing: () => app.samples,
  async add(list) {
    busy = true;
    setControls();
    try {
      const ids = await samples.addAll(list);
      app.samples.push(...list.map((s, i) => ({...s, id: ids[i]})));
      await checkSamples();   // "Still right: k of n" with the newcomers
    } finally {
      settle();
    }
  },
});
setupCheck({app, engine: () => engine, mnist: () => mnist, needMnist, samples: () => app.samples,
            idle: () => app.state === 'ready' && !busy});
setupGuide();
setupSnippets();

// ---- model: backend, download, reset ----------------------------------------------------

onPress($('download-model'), async () => {
  try {
    await io.browserDownloads('glint-digits').save(await engine.artifacts());
  } catch (e) {
    fail(e);
  }
});

onPress($('reset'), async () => {
  busy = true;
  setControls();
  try {
    await engine.reset();
    ++generation;
    showSource();
    await checkSamples();
    const n = app.samples.length;
    $('teach-result').textContent = 'Back to the shipped model.' + (n === 0 ? '' : n === 1 ?
        ' Your sample is kept: it joins the next fine-tuning.' :
        ` Your ${n} samples are kept: they join the next fine-tuning.`);
  } catch (e) {
    fail(e);
  } finally {
    settle();
  }
});

async function showBackend(info) {
  app.backend = await engine.getBackend();
  const select = $('backend');
  const usable = info.backends.filter((b) => b.available && b.name !== 'reference');
  select.replaceChildren(...usable.map((b) => el('option', {value: b.name},
                                                 b.name + (b.software ? ' (software GPU)' : ''))));
  select.value = app.backend;
  const unavailable = info.backends.filter((b) => !b.available && b.name !== 'reference');
  const software = usable.filter((b) => b.software).map((b) => b.name);
  $('backend-note').textContent = [
    software.length ? `${software.join(', ')}: a software-emulated GPU here, slower than cpu` : '',
    unavailable.length ? `not here: ${unavailable.map((b) => `${b.name} (${b.reason})`).join('; ')}` : '',
  ].filter(Boolean).join(' · ');
  $('engine').textContent = `${info.build.name} (${info.build.threads ? 'SIMD + threads' :
                                                    'SIMD, one thread'}), in a Web Worker`;
}

onChoose($('backend'), async (e) => {
  busy = true;
  setControls();
  try {
    app.backend = await engine.setBackend(e.target.value);
    localStorage.setItem(BACKEND_KEY, app.backend);
    ++generation;
  } catch (err) {
    fail(err);
  } finally {
    settle();
  }
});

// ---- training from scratch ---------------------------------------------------------------

let chart = null;
const series = {x: [], loss: [], acc: [], valAcc: []};

function makeChart() {
  const box = $('chart');
  const width = Math.max(260, box.clientWidth);
  const text = getComputedStyle(document.body).color;   // canvas axes cannot use currentColor
  chart?.destroy();
  chart = new uPlot({
    width, height: 220,
    legend: {live: false},
    scales: {x: {time: false}, loss: {auto: true}, acc: {range: [0, 1]}},
    axes: [{label: 'epoch', stroke: text, grid: {stroke: '#8883'}},
           {scale: 'loss', label: 'loss', stroke: text, grid: {stroke: '#8883'}},
           {scale: 'acc', side: 1, label: 'accuracy', stroke: text, grid: {show: false},
            values: (u, v) => v.map((x) => `${Math.round(x * 100)}%`)}],
    series: [{label: 'epoch', value: (u, v) => (v == null ? '–' : v.toFixed(2))},
             {label: 'loss', scale: 'loss', stroke: '#e8590c', width: 2,
              value: (u, v) => (v == null ? '–' : v.toFixed(3))},
             {label: 'accuracy', scale: 'acc', stroke: '#3b5bdb', width: 2,
              value: (u, v) => (v == null ? '–' : `${(v * 100).toFixed(1)}%`)},
             {label: 'held-out accuracy', scale: 'acc', stroke: '#2f9e44', width: 0,
              points: {show: true, size: 9, fill: '#2f9e44'}, spanGaps: true,
              value: (u, v) => (v == null ? '–' : `${(v * 100).toFixed(1)}%`)}],
  }, [series.x, series.loss, series.acc, series.valAcc], box);
}

let chartFrame = false;
function redrawChart() {
  if (chartFrame) return;
  chartFrame = true;
  requestAnimationFrame(() => {
    chartFrame = false;
    chart.setData([series.x, series.loss, series.acc, series.valAcc]);
  });
}

// The chart in words, for those who cannot see it: a summary as its label and
// one table row per finished epoch (the figures the chart plots at its end).
const pct = (v) => `${(100 * v).toFixed(1)}%`;
function describeChart() {
  const rows = app.training?.epochRows ?? [];
  const n = series.loss.length;
  const label = n === 0 ? 'Training chart: no training yet.' :
      `Training chart: smoothed loss from ${series.loss[0].toFixed(3)} to ${series.loss[n - 1].toFixed(3)} ` +
      `over ${n} batches, accuracy ${pct(series.acc[n - 1])}` +
      (rows.length ? `; held-out accuracy ${rows.map((r) => pct(r.valAcc)).join(', then ')} ` +
                     `after ${rows.length === 1 ? 'epoch 1' : `epochs 1 to ${rows.length}`}.` : '.');
  $('chart').setAttribute('aria-label', label);
  $('chart-table').querySelector('tbody').replaceChildren(...rows.map((r) => el('tr', {},
      el('th', {scope: 'row'}, String(r.epoch)), el('td', {}, r.loss.toFixed(3)), el('td', {}, pct(r.acc)),
      el('td', {}, pct(r.valAcc)))));
  $('chart-data').hidden = rows.length === 0;
}

new ResizeObserver(() => {
  if (chart) chart.setSize({width: Math.max(260, $('chart').clientWidth), height: 220});
}).observe($('chart'));

onPress($('train'), async () => {
  const epochs = Number($('epochs').value);
  app.state = 'training';
  setControls();
  try {
    await needMnist();
  } catch (e) {
    app.state = 'ready';
    setControls();
    $('train-status').textContent = `Cannot train: ${e.message}`;
    return;
  }
  for (const k of Object.keys(series)) series[k].length = 0;
  makeChart();
  hideStopChoice();
  // The user's samples join the MNIST digits, each counted `copies` times (together about
  // SAMPLE_SHARE of the set), so that the styles they taught survive a fresh start.
  const mine = app.samples;
  const copies = mine.length ? Math.max(1, Math.min(MAX_COPIES, Math.round(SAMPLE_SHARE * mnist.train.length /
                                                                            mine.length))) : 0;
  const n = mnist.train.length + copies * mine.length;
  const steps = Math.ceil(n / 64);
  let smoothLoss = null, smoothAcc = null, epochNow = 0, batchNow = 0, followedAt = 0;
  app.training = {epochs, n, copies, steps, batches: 0, history: null, valAcc: [], firstLoss: null, lastLoss: null,
                  epochRows: []};
  describeChart();
  const what = `8,000 digits` + (mine.length ? ` and your ${mine.length} sample${mine.length > 1 ? 's' : ''} ` +
                                             `(each counted ${copies} times)` : '');
  // #train-status shows every batch; #train-said, a status region, says what a person can
  // follow: the start, each finished epoch, the end.
  $('train-said').textContent = `Training started: ${epochs} epoch${epochs > 1 ? 's' : ''} on ${what}.`;
  $('train-status').textContent = `preparing ${what}…`;
  $('teach-result').textContent = '';
  $('chart-empty').hidden = true;
  try {
    const train = gatherMnist(mnist, mnist.train), test = gatherMnist(mnist, mnist.test);
    const x = new Float32Array(n * PIXELS), y = new Float32Array(n * 10);
    x.set(train.x);
    y.set(train.y);
    const minePixels = samplePixels(mine);
    for (let c = 0, row = mnist.train.length; c < copies; ++c) {
      mine.forEach((s, i) => {
        x.set(minePixels.subarray(i * PIXELS, (i + 1) * PIXELS), row * PIXELS);
        y[row * 10 + s.label] = 1;
        ++row;
      });
    }
    ++generation;
    const {history, stopped} = await engine.trainFromScratch({
      x, y, n, xv: test.x, yv: test.y, nv: mnist.test.length,
      epochs,
      onBatch: (b, logs) => {
        // Exponential smoothing: single batches are noisy.
        smoothLoss = smoothLoss === null ? logs.loss : 0.9 * smoothLoss + 0.1 * logs.loss;
        const acc = logs.acc ?? logs.accuracy;
        smoothAcc = smoothAcc === null ? acc : 0.9 * smoothAcc + 0.1 * acc;
        series.x.push(epochNow + (b + 1) / steps);
        series.loss.push(smoothLoss);
        series.acc.push(smoothAcc);
        series.valAcc.push(null);
        app.training.batches++;
        batchNow = b + 1;
        app.training.firstLoss ??= logs.loss;
        app.training.lastLoss = smoothLoss;
        $('train-status').textContent = `epoch ${epochNow + 1}/${epochs} · batch ${b + 1}/${steps} · ` +
            `loss ${smoothLoss.toFixed(3)} · accuracy ${(100 * smoothAcc).toFixed(1)}%`;
        redrawChart();
        // The prediction follows the model as it learns. Not a new generation: a reading
        // by the model of a few batches ago is still a reading of this drawing, and
        // discarding it whenever the model moved on would leave a new drawing unread.
        // Every 250 ms at most: a reading in flight delays the next drawing's.
        const now = performance.now();
        if (now - followedAt > FOLLOW_MS && !inFlight) {
          followedAt = now;
          schedulePredict();
        }
      },
      onEpoch: (epoch, logs) => {
        const v = logs.val_acc ?? logs.val_accuracy;
        // A Stop ends the epoch early and fit still reports it: that one is not a finished epoch.
        if (batchNow < steps) {
          app.training.partial = {epoch: epoch + 1, batch: batchNow, valAcc: v};
          return;
        }
        epochNow = epoch + 1;
        series.valAcc[series.valAcc.length - 1] = v;
        app.training.valAcc.push(v);
        app.training.epochRows.push({epoch: epochNow, loss: smoothLoss, acc: smoothAcc, valAcc: v});
        redrawChart();
        describeChart();
        if (epochNow < epochs) {
          $('train-said').textContent = `Epoch ${epochNow} of ${epochs} done: ${pct(v)} on the held-out digits.`;
        }
      },
    });
    app.training.history = history.history;
    app.training.stopped = stopped;
    if (stopped) {
      // Stopped inside an epoch, or between two (after the last batch of epochNow).
      const inEpoch = batchNow === steps ? Math.max(1, epochNow) : epochNow + 1;
      app.training.stoppedAt = {batch: batchNow, epoch: inEpoch};
      $('train-status').textContent = `stopped at batch ${batchNow} of ${steps} in epoch ${inEpoch} of ${epochs}.`;
      if (engine.candidate) {
        await offerStoppedModel(test, mnist.test.length);
      } else {   // there was no model before it to keep
        await engine.save('trained here');
        $('train-status').textContent += ' Saved in this browser.';
      }
    } else {
      const last = app.training.valAcc.at(-1);
      await engine.save('trained here');
      $('train-status').textContent = `done: ${pct(last)} on the 2,000 held-out digits after ` +
          `${epochs} epoch${epochs > 1 ? 's' : ''}. Saved in this browser.`;
      if (mine.length) {
        await checkSamples();
        $('train-status').textContent += ` ${checkWords({right: mine.filter((s) => s.right).length,
                                                          total: mine.length, repaired: 0, broken: []})}`;
      }
    }
    $('train-said').textContent = `Training ${$('train-status').textContent}`;
  } catch (e) {
    fail(e);
  } finally {
    app.state = app.error ? 'error' : 'ready';
    app.training.done = true;
    ++generation;
    showSource();
    setControls();
    // Stop has nothing left to stop: the keyboard user lands on Start again.
    if (document.activeElement === $('stop')) $('train').focus();
    if (!app.error) readyStatus();
    schedulePredict();
  }
});
// ---- a stopped run: the user's model stays unless they choose the new one ----------------

/** Measures the stopped model and the kept one on the held-out digits and offers the choice. */
async function offerStoppedModel(test, nv) {
  const labels = mnist.labels;
  const truth = Array.from(mnist.test, (k) => labels[k]);
  const [mineAcc, newAcc] = [await engine.accuracy(test.x, truth, nv), await engine.accuracy(test.x, truth, nv, {candidate: true})];
  app.training.compare = {kept: mineAcc, stopped: newAcc};
  $('stop-choice-text').textContent = `Your model (${SOURCE_TEXT[engine.source]}) is kept: it reads ` +
      `${pct(mineAcc)} of the 2,000 held-out digits. The stopped one reads ${pct(newAcc)}.`;
  $('stop-choice').hidden = false;
}
function hideStopChoice() {
  $('stop-choice').hidden = true;
}
onPress($('use-stopped'), async () => {
  hideStopChoice();
  busy = true;
  setControls();
  try {
    await engine.adoptCandidate();
    await engine.save('trained here');
    ++generation;
    showSource();
    $('train-status').textContent = 'Using the stopped model. Saved in this browser.';
    if (app.samples.length) await checkSamples();
  } catch (e) {
    fail(e);
  } finally {
    settle();
    $('train').focus();   // the pressed button is hidden now
  }
});
onPress($('keep-mine'), async () => {
  hideStopChoice();
  await engine.dropCandidate();
  $('train-status').textContent = `Kept your model (${SOURCE_TEXT[engine.source]}).`;
  $('train').focus();
});

onPress($('stop'), () => {
  engine.stop();
  $('train-status').textContent = 'stopping after this batch…';
  $('train-said').textContent = 'Stopping after this batch.';
});

// ?threads=0: the single-thread build even where threads would work.
const THREADS = new URLSearchParams(location.search).get('threads') === '0' ? false : 'auto';

// ---- start -----------------------------------------------------------------------------------

// ---- the MNIST digits: fetched when first needed ---------------------------------------
// Corrections replay them, training learns from them, "held-out digit" shows one.
// Not on page load (1.5 MB, most of a first visit's bytes): at the first need, or
// when the first drawing is finished, since a correction, which must be
// instant, may follow it.

const DATA = new URL('./data/', import.meta.url);
let mnistLoading = null;
const MB = (n) => (n / 1e6).toFixed(1);
function needMnist() {
  if (mnist) return Promise.resolve(mnist);
  mnistLoading ??= loadMnist(DATA, {onProgress: (loaded, total) => {
    app.mnistBytes = {loaded, total};
    $('data-progress').textContent = `Fetching the MNIST digits: ${MB(loaded)}` +
        (total ? ` of ${MB(total)} MB` : ' MB');
  }}).then((data) => {
    mnist = data;
    $('data-progress').textContent = '';
    setControls();
    schedulePredict();   // "not sure" compares the drawing with these digits
    // The offline copy takes them too, now that they are here.
    if (app.offlineReady) registerOffline(mnistFiles(DATA)).catch(() => {});
    return data;
  }, (e) => {
    mnistLoading = null;
    $('data-progress').textContent = '';
    throw new Error(`the bundled digits (data/) could not be loaded: ${e.message}` +
                    (navigator.onLine ? '. Run `make demo`.' : ' (offline: they are kept for offline use once fetched)'));
  });
  return mnistLoading;
}

/** Shows the engine's download ({loaded, total} bytes of the .wasm) in the header. */
function showEngineProgress({file, loaded, total}) {
  (app.engineProgress ??= []).push({file, loaded, total});
  const bar = $('load-progress');
  bar.hidden = false;
  if (total) {
    bar.max = total;
    bar.value = loaded;
  } else {
    bar.removeAttribute('value');   // indeterminate
  }
  $('load-text').textContent = `Loading the engine: ${MB(loaded)}${total ? ` of ${MB(total)}` : ''} MB`;
}

async function start() {
  // performance.now() as each start-up step ends (bench/size.mjs prints them).
  const steps = app.stats.startup = {};
  const stepDone = (name) => { steps[name] = Math.round(performance.now()); };
  status('pending', [el('strong', {}, 'Starting the engine…'), ' loading Glint in a worker and the model']);
  engine = await Engine.start({threads: THREADS, onProgress: showEngineProgress});
  stepDone('engine');
  $('load-text').textContent = 'Starting the engine…';
  const info = await engine.backendInfo();
  // The saved choice where it still works; else a real GPU, else cpu (a
  // software-emulated GPU is slower than the wasm cpu backend).
  const usable = info.backends.filter((b) => b.available && b.name !== 'reference');
  const saved = localStorage.getItem(BACKEND_KEY);
  const gpu = usable.find((b) => b.name === 'gl' && !b.software);
  const want = usable.find((b) => b.name === saved)?.name ?? gpu?.name ?? 'cpu';
  if (usable.some((b) => b.name === want)) await engine.setBackend(want);
  await showBackend(info);
  stepDone('backend');
  await engine.load();
  stepDone('model');
  app.samples = (await samples.all()).map((s) => ({...s, pixels: new Uint8Array(s.pixels)}));
  status('pending', [el('strong', {}, 'Warming up…'), ' the first training steps, so that your first correction is quick']);
  // A throwaway model on a batch shaped like a correction's (values do not matter here).
  const warmN = Math.min(app.samples.length + 1, PERSONAL_MAX) + NEW_COPIES - 1 + REPLAY;
  const warmY = new Float32Array(warmN * 10);
  for (let i = 0; i < warmN; ++i) warmY[i * 10] = 1;
  await engine.warmUp(new Float32Array(warmN * PIXELS), warmY, warmN);
  stepDone('warmUp');
  $('load-progress').hidden = true;
  $('load-text').textContent = '';
  await checkSamples();
  showSource();
  makeChart();
  describeChart();
  app.state = 'ready';
  setControls();
  readyStatus();
  schedulePredict();
  // Offline: hand the service worker what the worker fetched (the page's own
  // requests are in its resource timing list).
  const model = await (await fetch(new URL('./model/model.json', import.meta.url))).json();
  const shards = (model.weightsManifest ?? []).flatMap((g) => g.paths)
      .map((p) => new URL(p, new URL('./model/', import.meta.url)).href);
  try {
    app.offlineCached = await registerOffline([...await engine.resources(), ...shards]);
    app.offlineReady = true;
  } catch (e) {
    // Offline now, or service workers refused: the copy made on an earlier visit still serves.
    console.warn(`offline copy not updated: ${e.message}`);
  }
}

start().catch((e) => {
  app.state = 'error';
  fail(e);
});
